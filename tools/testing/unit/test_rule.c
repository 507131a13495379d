// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the steering rules in kmod/l7/parse/rule_match.c: validation
 * and normalization of rules, each matcher's semantics as documented in
 * rule_match.h, and first-match-wins over an ordered list, on requests
 * parsed by the real HTTP parser.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rule_match.h"
#include "tap.h"


static const struct klb_http_limits lim = {
	.max_line = 8192, .max_head = 65536, .max_fields = 100,
};

/* Spec "host=H path=P hname=N hvalue=V method=M sni=S", '|' separated. */
struct rspec {
	const char *host, *path, *hname, *hvalue, *method, *sni;
};

static int make_rule(struct klb_rule *r, const struct rspec *s)
{
	const char *msg;

	memset(r, 0, sizeof(*r));
#define SET(f, bit)							\
	do {								\
		if (s->f) {						\
			r->match |= bit;				\
			r->f##_len = strlen(s->f);			\
			memcpy(r->f, s->f, r->f##_len);			\
		}							\
	} while (0)
	SET(host, KLB_RULE_M_HOST);
	SET(path, KLB_RULE_M_PATH);
	SET(method, KLB_RULE_M_METHOD);
	SET(sni, KLB_RULE_M_SNI);
	if (s->hname) {
		r->match |= KLB_RULE_M_HEADER;
		r->hname_len = strlen(s->hname);
		memcpy(r->hname, s->hname, r->hname_len);
		r->hvalue_len = strlen(s->hvalue);
		memcpy(r->hvalue, s->hvalue, r->hvalue_len);
	}
#undef SET
	return klb_rule_prepare(r, &msg);
}

static void test_prepare(void)
{
	static const struct {
		struct rspec s;
		int rc;
	} cases[] = {
		{ { .host = "Example.COM." }, 0 },
		{ { .host = "*.example.com" }, 0 },
		{ { .host = "10.0.0.1" }, 0 },
		{ { .host = "[::1]" }, 0 },
		{ { .host = "" }, KLB_RULE_E_HOST },
		{ { .host = "*" }, KLB_RULE_E_HOST },
		{ { .host = "*." }, KLB_RULE_E_HOST },
		{ { .host = "a.*.com" }, KLB_RULE_E_HOST },
		{ { .host = "*example.com" }, KLB_RULE_E_HOST },
		{ { .host = "a..com" }, KLB_RULE_E_HOST },
		{ { .host = "a b" }, KLB_RULE_E_HOST },
		{ { .sni = "[::1]" }, KLB_RULE_E_SNI },
		{ { .sni = "*.Example.com" }, 0 },
		{ { .path = "/api" }, 0 },
		{ { .path = "api" }, KLB_RULE_E_PATH },
		{ { .path = "/a?b" }, KLB_RULE_E_PATH },
		{ { .path = "/a b" }, KLB_RULE_E_PATH },
		{ { .path = "" }, KLB_RULE_E_PATH },
		{ { .hname = "X-Env", .hvalue = "canary" }, 0 },
		{ { .hname = "X-Env", .hvalue = "" }, 0 },
		{ { .hname = "X Env", .hvalue = "a" }, KLB_RULE_E_HNAME },
		{ { .hname = "", .hvalue = "a" }, KLB_RULE_E_HNAME },
		{ { .hname = "X", .hvalue = " a" }, KLB_RULE_E_HVALUE },
		{ { .hname = "X", .hvalue = "a\x01" }, KLB_RULE_E_HVALUE },
		{ { .method = "GET" }, 0 },
		{ { .method = "G T" }, KLB_RULE_E_METHOD },
		{ { .method = "" }, KLB_RULE_E_METHOD },
	};
	struct klb_rule *r = malloc(sizeof(*r));
	const char *msg = NULL;
	u32 i;
	int rc;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		rc = make_rule(r, &cases[i].s);
		tap_ok(rc == cases[i].rc, "prepare case %u -> %d (got %d)", i, cases[i].rc, rc);
	}
	make_rule(r, &(struct rspec){ .host = "Example.COM." });
	tap_ok(r->host_len == 11 && !memcmp(r->host, "example.com", 11),
	       "prepare lowercases and drops the trailing dot");
	r->match = 1U << 7;
	tap_ok(klb_rule_prepare(r, &msg) == KLB_RULE_E_MATCH && msg, "unknown matcher bit refused with a message");
	free(r);
}

struct mcase {
	struct rspec rule;
	const char *req;	/* request head, or NULL for TLS */
	const char *sni;
	bool match;
};

static const struct mcase mcases[] = {
	{ { .host = "example.com" }, "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n", NULL, true },
	{ { .host = "example.com" }, "GET / HTTP/1.1\r\nHost: EXAMPLE.com:8080\r\n\r\n", NULL, true },
	{ { .host = "example.com" }, "GET / HTTP/1.1\r\nHost: example.com.\r\n\r\n", NULL, true },
	{ { .host = "example.com" }, "GET / HTTP/1.1\r\nHost: example.com.:80\r\n\r\n", NULL, true },
	{ { .host = "example.com" }, "GET / HTTP/1.1\r\nHost: a.example.com\r\n\r\n", NULL, false },
	{ { .host = "example.com" }, "GET / HTTP/1.1\r\nHost: example.co\r\n\r\n", NULL, false },
	{ { .host = "example.com" }, "GET / HTTP/1.0\r\n\r\n", NULL, false },
	{ { .host = "example.com" }, "GET http://example.com/x HTTP/1.1\r\nHost: other\r\n\r\n", NULL, true },
	{ { .host = "*.example.com" }, "GET / HTTP/1.1\r\nHost: a.example.com\r\n\r\n", NULL, true },
	{ { .host = "*.example.com" }, "GET / HTTP/1.1\r\nHost: a.b.Example.com:1\r\n\r\n", NULL, true },
	{ { .host = "*.example.com" }, "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n", NULL, false },
	{ { .host = "*.example.com" }, "GET / HTTP/1.1\r\nHost: aexample.com\r\n\r\n", NULL, false },
	{ { .host = "*.example.com" }, "GET / HTTP/1.1\r\nHost: .example.com\r\n\r\n", NULL, false },
	{ { .host = "[::1]" }, "GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n", NULL, true },
	{ { .host = "example.com" }, NULL, "example.com", false },
	{ { .path = "/api" }, "GET /api HTTP/1.1\r\nHost: a\r\n\r\n", NULL, true },
	{ { .path = "/api" }, "GET /api/v1?x HTTP/1.1\r\nHost: a\r\n\r\n", NULL, true },
	{ { .path = "/api" }, "GET /apix HTTP/1.1\r\nHost: a\r\n\r\n", NULL, true },
	{ { .path = "/api" }, "GET /API HTTP/1.1\r\nHost: a\r\n\r\n", NULL, false },
	{ { .path = "/api" }, "GET /ap?i HTTP/1.1\r\nHost: a\r\n\r\n", NULL, false },
	{ { .path = "/api" }, "GET /?/api HTTP/1.1\r\nHost: a\r\n\r\n", NULL, false },
	{ { .path = "/" }, "GET http://a.com HTTP/1.1\r\nHost: a\r\n\r\n", NULL, true },
	{ { .path = "/x" }, "GET http://a.com/x/y HTTP/1.1\r\nHost: a\r\n\r\n", NULL, true },
	{ { .path = "/" }, "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n", NULL, false },
	{ { .hname = "x-env", .hvalue = "canary" }, "GET / HTTP/1.1\r\nHost: a\r\nX-Env:  canary\t\r\n\r\n", NULL, true },
	{ { .hname = "X-Env", .hvalue = "canary" }, "GET / HTTP/1.1\r\nHost: a\r\nX-Env: Canary\r\n\r\n", NULL, false },
	{ { .hname = "X-Env", .hvalue = "canary" }, "GET / HTTP/1.1\r\nHost: a\r\nX-Env: prod\r\nx-env: canary\r\n\r\n", NULL, true },
	{ { .hname = "X-Env", .hvalue = "canary" }, "GET / HTTP/1.1\r\nHost: a\r\nX-Env: canary, prod\r\n\r\n", NULL, false },
	{ { .hname = "X-Env", .hvalue = "canary" }, "GET / HTTP/1.1\r\nHost: a\r\nX-Envy: canary\r\n\r\n", NULL, false },
	{ { .hname = "X-Env", .hvalue = "" }, "GET / HTTP/1.1\r\nHost: a\r\nX-Env: \r\n\r\n", NULL, true },
	{ { .hname = "X-Env", .hvalue = "canary" }, NULL, "a", false },
	{ { .method = "POST" }, "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\n\r\n", NULL, true },
	{ { .method = "POST" }, "post / HTTP/1.1\r\nHost: a\r\n\r\n", NULL, false },
	{ { .method = "POST" }, "POSTX / HTTP/1.1\r\nHost: a\r\n\r\n", NULL, false },
	{ { .sni = "a.example" }, NULL, "a.example", true },
	{ { .sni = "*.example" }, NULL, "b.a.example", true },
	{ { .sni = "*.example" }, NULL, "example", false },
	{ { .sni = "a.example" }, NULL, NULL, false },
	{ { .sni = "a.example" }, "GET / HTTP/1.1\r\nHost: a.example\r\n\r\n", NULL, false },
	{ { .host = "a.example", .path = "/x", .method = "GET", .hname = "K", .hvalue = "v" },
	  "GET /x/1 HTTP/1.1\r\nHost: a.example\r\nK: v\r\n\r\n", NULL, true },
	{ { .host = "a.example", .path = "/x", .method = "GET", .hname = "K", .hvalue = "v" },
	  "GET /y/1 HTTP/1.1\r\nHost: a.example\r\nK: v\r\n\r\n", NULL, false },
	{ { 0 }, "GET / HTTP/1.0\r\n\r\n", NULL, true },
	{ { 0 }, NULL, NULL, true },
};

static bool eval(const struct mcase *c, struct klb_rule *r, int *err)
{
	struct klb_rule_input in;
	struct klb_http_msg m;

	*err = make_rule(r, &c->rule);
	if (*err)
		return false;
	memset(&in, 0, sizeof(in));
	if (c->req) {
		klb_http_req_init(&m);
		*err = klb_http_parse(&m, (const u8 *)c->req, strlen(c->req), &lim);
		if (*err)
			return false;
		klb_rule_input_http(&in, (const u8 *)c->req, &m);
	}
	if (c->sni) {
		in.sni = (const u8 *)c->sni;
		in.sni_len = strlen(c->sni);
	}
	return klb_rule_match(r, &in);
}

static void test_match(void)
{
	struct klb_rule *r = malloc(sizeof(*r));
	u32 i;
	int err;
	bool got;

	for (i = 0; i < ARRAY_SIZE(mcases); i++) {
		got = eval(&mcases[i], r, &err);
		tap_ok(!err && got == mcases[i].match, "match case %u: %s (got %s, err %d)",
		       i, mcases[i].match ? "match" : "no match",
		       got ? "match" : "no match", err);
	}
	free(r);
}

static void test_first(void)
{
	static const struct rspec specs[] = {
		{ .host = "api.example.com", .path = "/v2" },
		{ .hname = "X-Env", .hvalue = "canary" },
		{ .host = "*.example.com" },
		{ .sni = "tls.example.com" },
		{ .method = "DELETE" },
	};
	static const struct {
		const char *req;
		const char *sni;
		int want;
	} reqs[] = {
		{ "GET /v2/x HTTP/1.1\r\nHost: api.example.com\r\nX-Env: canary\r\n\r\n", NULL, 0 },
		{ "GET /v1/x HTTP/1.1\r\nHost: api.example.com\r\nX-Env: canary\r\n\r\n", NULL, 1 },
		{ "GET /v1/x HTTP/1.1\r\nHost: api.example.com\r\n\r\n", NULL, 2 },
		{ "DELETE / HTTP/1.1\r\nHost: other.org\r\n\r\n", NULL, 4 },
		{ "GET / HTTP/1.1\r\nHost: other.org\r\n\r\n", NULL, -1 },
		{ NULL, "tls.example.com", 3 },
		{ NULL, "x.org", -1 },
	};
	struct klb_rule *rules = calloc(ARRAY_SIZE(specs), sizeof(*rules));
	struct klb_rule_input in;
	struct klb_http_msg m;
	u32 i;
	int got;

	for (i = 0; i < ARRAY_SIZE(specs); i++)
		make_rule(&rules[i], &specs[i]);
	for (i = 0; i < ARRAY_SIZE(reqs); i++) {
		memset(&in, 0, sizeof(in));
		if (reqs[i].req) {
			klb_http_req_init(&m);
			klb_http_parse(&m, (const u8 *)reqs[i].req, strlen(reqs[i].req), &lim);
			klb_rule_input_http(&in, (const u8 *)reqs[i].req, &m);
		} else {
			in.sni = (const u8 *)reqs[i].sni;
			in.sni_len = strlen(reqs[i].sni);
		}
		got = klb_rules_first(rules, ARRAY_SIZE(specs), &in);
		tap_ok(got == reqs[i].want, "first match %u: rule %d (got %d)", i, reqs[i].want, got);
	}
	tap_ok(klb_rules_first(rules, 0, &in) == -1, "empty rule list matches nothing");
	free(rules);
}

int main(void)
{
	test_prepare();
	test_match();
	test_first();
	return tap_done();
}
