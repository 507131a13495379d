// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the HTTP/1.x head parser and chunked decoder in
 * kmod/l7/parse/http_parse.c, built in userspace with ASan and UBSan.
 *
 * Every parse of a partial head runs on a heap copy of exactly the bytes
 * given, so a parser reading past len is an ASan report, not a silent pass.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_parse.h"
#include "tap.h"


static const struct klb_http_limits lim_default = {
	.max_line = 8192, .max_head = 65536, .max_fields = 100,
};

/* Parse buf[0..len) from a heap copy of exactly len bytes. */
static int parse_copy(struct klb_http_msg *m, const char *buf, u32 len,
		      const struct klb_http_limits *lim)
{
	u8 *copy = malloc(len ? len : 1);
	int rc;

	memcpy(copy, buf, len);
	rc = klb_http_parse(m, copy, len, lim);
	free(copy);
	return rc;
}

static int parse_lim(const char *s, u32 len, bool resp, u8 reqm,
		     struct klb_http_msg *m, const struct klb_http_limits *lim)
{
	if (resp)
		klb_http_resp_init(m, reqm);
	else
		klb_http_req_init(m);
	return parse_copy(m, s, len, lim);
}

static int parse(const char *s, struct klb_http_msg *m)
{
	return parse_lim(s, strlen(s), false, 0, m, &lim_default);
}

static bool same_result(const struct klb_http_msg *a,
			const struct klb_http_msg *b)
{
	return !memcmp(&a->method, &b->method, sizeof(a->method)) &&
	       !memcmp(&a->target, &b->target, sizeof(a->target)) &&
	       !memcmp(&a->path, &b->path, sizeof(a->path)) &&
	       !memcmp(&a->host, &b->host, sizeof(a->host)) &&
	       !memcmp(&a->reason, &b->reason, sizeof(a->reason)) &&
	       a->head_start == b->head_start && a->head_len == b->head_len &&
	       a->fields == b->fields && a->flags == b->flags &&
	       a->content_length == b->content_length &&
	       a->status == b->status && a->method_id == b->method_id &&
	       a->version == b->version && a->target_form == b->target_form &&
	       a->body == b->body;
}

/*
 * Parse @s whole, then in two pieces split at every byte, then in random
 * pieces: the outcome must never depend on the segmentation.
 */
static bool split_equal(const char *s, bool resp, u8 reqm,
			const struct klb_http_limits *lim)
{
	struct klb_http_msg whole, part;
	u32 len = strlen(s), k, at, round;
	int rw, rp;

	rw = parse_lim(s, len, resp, reqm, &whole, lim);
	for (k = 0; k <= len; k++) {
		rp = parse_lim(s, k, resp, reqm, &part, lim);
		if (rp == KLB_HTTP_NEED_MORE)
			rp = parse_copy(&part, s, len, lim);
		if (rp != rw || (rw == KLB_HTTP_OK && !same_result(&whole, &part))) {
			tap_diag("split at %u: %d vs whole %d", k, rp, rw);
			return false;
		}
	}
	for (round = 0; round < 50; round++) {
		resp ? klb_http_resp_init(&part, reqm) : klb_http_req_init(&part);
		at = 0;
		do {
			at += rnd() % 7;
			if (at > len)
				at = len;
			rp = parse_copy(&part, s, at, lim);
		} while (rp == KLB_HTTP_NEED_MORE && at < len);
		if (rp != rw || (rw == KLB_HTTP_OK && !same_result(&whole, &part))) {
			tap_diag("random split round %u: %d vs whole %d", round, rp, rw);
			return false;
		}
	}
	return true;
}

/* @s with CR, LF and other non-printables escaped, for TAP lines. */
static const char *esc(const char *s)
{
	static char out[4][160];
	static unsigned int which;
	char *o = out[which++ % 4];
	u32 n = 0;

	for (; *s && n < sizeof(out[0]) - 8; s++) {
		u8 c = *s;

		if (c == '\r')
			n += sprintf(o + n, "\\r");
		else if (c == '\n')
			n += sprintf(o + n, "\\n");
		else if (c < 0x20 || c >= 0x7f)
			n += sprintf(o + n, "\\x%02x", c);
		else
			o[n++] = c;
	}
	o[n] = '\0';
	return o;
}

static bool span_is(const char *buf, struct klb_http_span sp, const char *want)
{
	return sp.len == strlen(want) && !memcmp(buf + sp.off, want, sp.len);
}

#define H11 "Host: example.com\r\n"

struct bad_case {
	const char *name;
	const char *head;
	int err;
	u16 status;
};

/* Every shape the issue says must be refused, and its neighbours. */
static const struct bad_case bad_requests[] = {
	{ "CL then TE", "POST / HTTP/1.1\r\n" H11 "Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n", KLB_HTTP_E_CL_TE, 400 },
	{ "TE then CL", "POST / HTTP/1.1\r\n" H11 "Transfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n", KLB_HTTP_E_CL_TE, 400 },
	{ "TE then CL 0", "POST / HTTP/1.1\r\n" H11 "Transfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n", KLB_HTTP_E_CL_TE, 400 },
	{ "differing CL", "POST / HTTP/1.1\r\n" H11 "Content-Length: 5\r\nContent-Length: 6\r\n\r\n", KLB_HTTP_E_CL_MISMATCH, 400 },
	{ "differing CL list", "POST / HTTP/1.1\r\n" H11 "Content-Length: 5, 6\r\n\r\n", KLB_HTTP_E_CL_MISMATCH, 400 },
	{ "CL sign", "POST / HTTP/1.1\r\n" H11 "Content-Length: +5\r\n\r\n", KLB_HTTP_E_CL_INVALID, 400 },
	{ "CL negative", "POST / HTTP/1.1\r\n" H11 "Content-Length: -1\r\n\r\n", KLB_HTTP_E_CL_INVALID, 400 },
	{ "CL hex", "POST / HTTP/1.1\r\n" H11 "Content-Length: 0x5\r\n\r\n", KLB_HTTP_E_CL_INVALID, 400 },
	{ "CL trailing junk", "POST / HTTP/1.1\r\n" H11 "Content-Length: 5a\r\n\r\n", KLB_HTTP_E_CL_INVALID, 400 },
	{ "CL inner space", "POST / HTTP/1.1\r\n" H11 "Content-Length: 5 5\r\n\r\n", KLB_HTTP_E_CL_INVALID, 400 },
	{ "CL empty", "POST / HTTP/1.1\r\n" H11 "Content-Length: \r\n\r\n", KLB_HTTP_E_CL_INVALID, 400 },
	{ "CL empty list item", "POST / HTTP/1.1\r\n" H11 "Content-Length: 5,\r\n\r\n", KLB_HTTP_E_CL_INVALID, 400 },
	{ "CL overflow", "POST / HTTP/1.1\r\n" H11 "Content-Length: 18446744073709551616\r\n\r\n", KLB_HTTP_E_CL_INVALID, 400 },
	{ "CL huge", "POST / HTTP/1.1\r\n" H11 "Content-Length: 99999999999999999999999\r\n\r\n", KLB_HTTP_E_CL_INVALID, 400 },
	{ "TE gzip only", "POST / HTTP/1.1\r\n" H11 "Transfer-Encoding: gzip\r\n\r\n", KLB_HTTP_E_TE_NOT_CHUNKED, 400 },
	{ "TE chunked then gzip", "POST / HTTP/1.1\r\n" H11 "Transfer-Encoding: chunked, gzip\r\n\r\n", KLB_HTTP_E_TE_NOT_CHUNKED, 400 },
	{ "TE chunked twice", "POST / HTTP/1.1\r\n" H11 "Transfer-Encoding: chunked, chunked\r\n\r\n", KLB_HTTP_E_TE_NOT_CHUNKED, 400 },
	{ "TE chunked twice over lines", "POST / HTTP/1.1\r\n" H11 "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n", KLB_HTTP_E_TE_NOT_CHUNKED, 400 },
	{ "TE unknown", "POST / HTTP/1.1\r\n" H11 "Transfer-Encoding: xchunked\r\n\r\n", KLB_HTTP_E_TE_UNKNOWN, 501 },
	{ "TE identity", "POST / HTTP/1.1\r\n" H11 "Transfer-Encoding: identity\r\n\r\n", KLB_HTTP_E_TE_UNKNOWN, 501 },
	{ "TE chunked with params", "POST / HTTP/1.1\r\n" H11 "Transfer-Encoding: chunked;a=b\r\n\r\n", KLB_HTTP_E_TE_UNKNOWN, 501 },
	{ "TE quoted", "POST / HTTP/1.1\r\n" H11 "Transfer-Encoding: \"chunked\"\r\n\r\n", KLB_HTTP_E_TE_UNKNOWN, 501 },
	{ "TE junk after", "POST / HTTP/1.1\r\n" H11 "Transfer-Encoding: chunked x\r\n\r\n", KLB_HTTP_E_TE_UNKNOWN, 501 },
	{ "TE empty", "POST / HTTP/1.1\r\n" H11 "Transfer-Encoding: \r\n\r\n", KLB_HTTP_E_TE_NOT_CHUNKED, 400 },
	{ "TE in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", KLB_HTTP_E_TE_HTTP10, 400 },
	{ "obs-fold", "GET / HTTP/1.1\r\n" H11 "X-A: a\r\n b\r\n\r\n", KLB_HTTP_E_OBS_FOLD, 400 },
	{ "obs-fold tab", "GET / HTTP/1.1\r\n" H11 "X-A: a\r\n\tb\r\n\r\n", KLB_HTTP_E_OBS_FOLD, 400 },
	{ "first field folded", "GET / HTTP/1.1\r\n " H11 "\r\n", KLB_HTTP_E_OBS_FOLD, 400 },
	{ "space before colon", "POST / HTTP/1.1\r\n" H11 "Content-Length : 5\r\n\r\n", KLB_HTTP_E_WS_BEFORE_COLON, 400 },
	{ "tab before colon", "POST / HTTP/1.1\r\n" H11 "Transfer-Encoding\t: chunked\r\n\r\n", KLB_HTTP_E_WS_BEFORE_COLON, 400 },
	{ "name with paren", "GET / HTTP/1.1\r\n" H11 "X(Y: a\r\n\r\n", KLB_HTTP_E_FIELD_NAME, 400 },
	{ "name with 8bit", "GET / HTTP/1.1\r\n" H11 "X\x80Y: a\r\n\r\n", KLB_HTTP_E_FIELD_NAME, 400 },
	{ "empty name", "GET / HTTP/1.1\r\n" H11 ": a\r\n\r\n", KLB_HTTP_E_FIELD_NAME, 400 },
	{ "no colon", "GET / HTTP/1.1\r\n" H11 "NoColon\r\n\r\n", KLB_HTTP_E_FIELD_NAME, 400 },
	{ "value CTL", "GET / HTTP/1.1\r\n" H11 "X: a\x01" "b\r\n\r\n", KLB_HTTP_E_FIELD_VALUE, 400 },
	{ "value DEL", "GET / HTTP/1.1\r\n" H11 "X: a\x7f\r\n\r\n", KLB_HTTP_E_FIELD_VALUE, 400 },
	{ "value VT", "GET / HTTP/1.1\r\n" H11 "X: \x0b" "chunked\r\n\r\n", KLB_HTTP_E_FIELD_VALUE, 400 },
	{ "bare CR in value", "GET / HTTP/1.1\r\n" H11 "X: a\rb\r\n\r\n", KLB_HTTP_E_BARE_CR, 400 },
	{ "bare CR ending field", "GET / HTTP/1.1\r\n" H11 "X: a\rTransfer-Encoding: chunked\r\n\r\n", KLB_HTTP_E_BARE_CR, 400 },
	{ "bare LF request line", "GET / HTTP/1.1\n" H11 "\r\n", KLB_HTTP_E_BARE_LF, 400 },
	{ "bare LF field", "GET / HTTP/1.1\r\nHost: a\nX: b\r\n\r\n", KLB_HTTP_E_BARE_LF, 400 },
	{ "bare LF end", "GET / HTTP/1.1\r\n" H11 "\n", KLB_HTTP_E_BARE_LF, 400 },
	{ "method paren", "G(T / HTTP/1.1\r\n" H11 "\r\n", KLB_HTTP_E_METHOD, 400 },
	{ "method empty", " / HTTP/1.1\r\n" H11 "\r\n", KLB_HTTP_E_METHOD, 400 },
	{ "method tab", "GET\t/ HTTP/1.1\r\n" H11 "\r\n", KLB_HTTP_E_METHOD, 400 },
	{ "no spaces", "GET\r\n" H11 "\r\n", KLB_HTTP_E_REQ_LINE, 400 },
	{ "double space", "GET  / HTTP/1.1\r\n" H11 "\r\n", KLB_HTTP_E_REQ_LINE, 400 },
	{ "trailing space", "GET / HTTP/1.1 \r\n" H11 "\r\n", KLB_HTTP_E_VERSION, 400 },
	{ "space in target", "GET /a b HTTP/1.1\r\n" H11 "\r\n", KLB_HTTP_E_VERSION, 400 },
	{ "lowercase version", "GET / http/1.1\r\n" H11 "\r\n", KLB_HTTP_E_VERSION, 400 },
	{ "short version", "GET / HTTP/1\r\n" H11 "\r\n", KLB_HTTP_E_VERSION, 400 },
	{ "HTTP/1.2", "GET / HTTP/1.2\r\n" H11 "\r\n", KLB_HTTP_E_VERSION_UNSUPP, 505 },
	{ "HTTP/2.0", "GET / HTTP/2.0\r\n" H11 "\r\n", KLB_HTTP_E_VERSION_UNSUPP, 505 },
	{ "8bit in target", "GET /\xff HTTP/1.1\r\n" H11 "\r\n", KLB_HTTP_E_TARGET, 400 },
	{ "fragment", "GET /a#b HTTP/1.1\r\n" H11 "\r\n", KLB_HTTP_E_TARGET, 400 },
	{ "relative target", "GET a/b HTTP/1.1\r\n" H11 "\r\n", KLB_HTTP_E_TARGET, 400 },
	{ "ftp target", "GET ftp://a/b HTTP/1.1\r\n" H11 "\r\n", KLB_HTTP_E_TARGET, 400 },
	{ "userinfo", "GET http://u@a.com/ HTTP/1.1\r\n" H11 "\r\n", KLB_HTTP_E_TARGET, 400 },
	{ "empty authority", "GET http:/// HTTP/1.1\r\n" H11 "\r\n", KLB_HTTP_E_TARGET, 400 },
	{ "asterisk GET", "GET * HTTP/1.1\r\n" H11 "\r\n", KLB_HTTP_E_TARGET, 400 },
	{ "CONNECT origin", "CONNECT /a HTTP/1.1\r\n" H11 "\r\n", KLB_HTTP_E_TARGET, 400 },
	{ "no Host 1.1", "GET / HTTP/1.1\r\n\r\n", KLB_HTTP_E_HOST, 400 },
	{ "two Host", "GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", KLB_HTTP_E_HOST, 400 },
	{ "two identical Host", "GET / HTTP/1.1\r\nHost: a\r\nHost: a\r\n\r\n", KLB_HTTP_E_HOST, 400 },
	{ "bad Host", "GET / HTTP/1.1\r\nHost: a/b\r\n\r\n", KLB_HTTP_E_HOST, 400 },
	{ "Host with space", "GET / HTTP/1.1\r\nHost: a b\r\n\r\n", KLB_HTTP_E_HOST, 400 },
	{ "space after empty line", "\r\n GET / HTTP/1.1\r\n" H11 "\r\n", KLB_HTTP_E_METHOD, 400 },
};

static void test_bad_requests(void)
{
	struct klb_http_msg m;
	u32 i;
	int rc;

	for (i = 0; i < ARRAY_SIZE(bad_requests); i++) {
		const struct bad_case *c = &bad_requests[i];

		rc = parse(c->head, &m);
		tap_ok(rc == c->err && klb_http_err_status(rc) == c->status,
		       "refused: %s -> %s %u (got %s %d)", c->name,
		       klb_http_err_name(c->err), c->status,
		       klb_http_err_name(rc), rc);
		/* The error is sticky: calling again cannot un-refuse. */
		if (rc < 0 && klb_http_parse(&m, (const u8 *)c->head,
					     strlen(c->head), &lim_default) != rc)
			tap_ok(false, "refused: %s: error not sticky", c->name);
	}
	/* NUL inside a value cannot go in a C string literal table. */
	{
		static const char h[] = "GET / HTTP/1.1\r\nHost: a\r\nX: a\0b\r\n\r\n";

		klb_http_req_init(&m);
		rc = parse_copy(&m, h, sizeof(h) - 1, &lim_default);
		tap_ok(rc == KLB_HTTP_E_FIELD_VALUE, "refused: NUL in value (%d)", rc);
	}
}

static void test_limits(void)
{
	struct klb_http_limits lim = { .max_line = 32, .max_head = 80, .max_fields = 3 };
	struct klb_http_msg m;
	const char *ok = "GET /0123456789012345 HTTP/1.1\r\nHost: a\r\nB: b\r\nC: c\r\n\r\n";
	const char *longline = "GET /01234567890123456 HTTP/1.1\r\nHost: a\r\n\r\n";
	const char *nofields = "GET / HTTP/1.1\r\nHost: a\r\nB: b\r\nC: c\r\nD: d\r\n\r\n";
	const char *bighead = "GET / HTTP/1.1\r\nHost: a\r\nB: 0123456789012345678901234567890123456789012345678\r\n\r\n";
	int rc;

	rc = parse_lim(ok, strlen(ok), false, 0, &m, &lim);
	tap_ok(rc == KLB_HTTP_OK, "limits: request line of exactly max_line passes (%d)", rc);
	rc = parse_lim(longline, strlen(longline), false, 0, &m, &lim);
	tap_ok(rc == KLB_HTTP_E_LINE_TOO_LONG && klb_http_err_status(rc) == 400,
	       "limits: request line one over max_line is 400 (%d)", rc);
	/* Refused before the line ends: a client cannot make us wait for it. */
	rc = parse_lim(longline, 32, false, 0, &m, &lim);
	tap_ok(rc == KLB_HTTP_E_LINE_TOO_LONG, "limits: unterminated over-long line refused early (%d)", rc);
	rc = parse_lim(longline, 31, false, 0, &m, &lim);
	tap_ok(rc == KLB_HTTP_NEED_MORE, "limits: ... but not one byte earlier (%d)", rc);
	rc = parse_lim(nofields, strlen(nofields), false, 0, &m, &lim);
	tap_ok(rc == KLB_HTTP_E_TOO_MANY_FIELDS && klb_http_err_status(rc) == 431,
	       "limits: max_fields + 1 fields is 431 (%d)", rc);
	lim.max_head = 80;
	rc = parse_lim(bighead, strlen(bighead), false, 0, &m, &lim);
	tap_ok(rc == KLB_HTTP_E_HEAD_TOO_LARGE && klb_http_err_status(rc) == 431,
	       "limits: head over max_head is 431 (%d, len %zu)", rc, strlen(bighead));
	rc = parse_lim(bighead, 80, false, 0, &m, &lim);
	tap_ok(rc == KLB_HTTP_E_HEAD_TOO_LARGE, "limits: unterminated big head refused early (%d)", rc);
	lim.max_head = strlen(bighead);
	rc = parse_lim(bighead, strlen(bighead), false, 0, &m, &lim);
	tap_ok(rc == KLB_HTTP_OK, "limits: head of exactly max_head passes (%d)", rc);
	tap_ok(split_equal(longline, false, 0, &lim) && split_equal(nofields, false, 0, &lim),
	       "limits: same verdict at every split");
}

static void test_valid_requests(void)
{
	struct klb_http_msg m;
	const char *h;
	u32 cursor;
	struct klb_http_span v;
	int rc;

	h = "GET /a/b?x=1&y=2 HTTP/1.1\r\nHost: Example.com:8080\r\nUser-Agent: t\r\n"
	    "X-Env:  canary \r\nx-env: second\r\nAccept: */*\r\n\r\n";
	rc = parse(h, &m);
	tap_ok(rc == KLB_HTTP_OK && m.method_id == KLB_HTTP_M_GET &&
	       span_is(h, m.method, "GET") && span_is(h, m.target, "/a/b?x=1&y=2") &&
	       span_is(h, m.path, "/a/b") && span_is(h, m.host, "Example.com:8080") &&
	       m.version == 11 && m.fields == 5 && m.head_len == strlen(h) &&
	       m.body == KLB_HTTP_BODY_NONE && m.target_form == KLB_HTTP_T_ORIGIN &&
	       (m.flags & KLB_HTTP_F_PERSISTENT) && (m.flags & KLB_HTTP_F_HOST),
	       "GET parsed: method, target, path, host, version, fields, framing");
	cursor = 0;
	tap_ok(klb_http_field_find((const u8 *)h, &m, "X-ENV", 5, &cursor, &v) &&
	       span_is(h, v, "canary") &&
	       klb_http_field_find((const u8 *)h, &m, "X-ENV", 5, &cursor, &v) &&
	       span_is(h, v, "second") &&
	       !klb_http_field_find((const u8 *)h, &m, "X-ENV", 5, &cursor, &v),
	       "field lookup: case-insensitive, trimmed, walks duplicates, then ends");
	cursor = 0;
	tap_ok(!klb_http_field_find((const u8 *)h, &m, "X-En", 4, &cursor, &v) &&
	       (cursor = 0, klb_http_field_find((const u8 *)h, &m, "accept", 6, &cursor, &v)) &&
	       span_is(h, v, "*/*"),
	       "field lookup: no prefix matches; last field found");

	h = "POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 42\r\nContent-Length: 42, 42\r\n"
	    "Expect: 100-Continue\r\nConnection: close\r\n\r\n";
	rc = parse(h, &m);
	tap_ok(rc == KLB_HTTP_OK && m.method_id == KLB_HTTP_M_POST &&
	       m.body == KLB_HTTP_BODY_LENGTH && m.content_length == 42 &&
	       (m.flags & KLB_HTTP_F_EXPECT_CONTINUE) && (m.flags & KLB_HTTP_F_CONN_CLOSE) &&
	       !(m.flags & KLB_HTTP_F_PERSISTENT),
	       "POST: identical duplicate Content-Length merged, Expect, close (%d)", rc);
	h = "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 18446744073709551615\r\n\r\n";
	rc = parse(h, &m);
	tap_ok(rc == KLB_HTTP_OK && m.content_length == ~0ULL, "Content-Length: 2^64-1 is accepted");
	h = "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 0\r\n\r\n";
	rc = parse(h, &m);
	tap_ok(rc == KLB_HTTP_OK && m.body == KLB_HTTP_BODY_NONE &&
	       (m.flags & KLB_HTTP_F_CONTENT_LENGTH), "Content-Length: 0 is no body");
	h = "PUT / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: gzip\r\nTransfer-Encoding: Chunked\r\n\r\n";
	rc = parse(h, &m);
	tap_ok(rc == KLB_HTTP_OK && m.body == KLB_HTTP_BODY_CHUNKED &&
	       (m.flags & KLB_HTTP_F_CHUNKED), "TE gzip then chunked over two lines is chunked (%d)", rc);
	h = "GET /chat HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: keep-alive, Upgrade\r\n\r\n";
	rc = parse(h, &m);
	tap_ok(rc == KLB_HTTP_OK && (m.flags & KLB_HTTP_F_UPGRADE) &&
	       (m.flags & KLB_HTTP_F_CONN_UPGRADE) && (m.flags & KLB_HTTP_F_CONN_KEEPALIVE),
	       "Upgrade and Connection options seen");
	tap_ok(klb_http_wants_upgrade(&m), "GET 1.1, Connection: Upgrade, Upgrade: an upgrade request");
	{
		static const struct {
			const char *h;
			bool want;
			const char *what;
		} up[] = {
			{ "GET / HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: h2c\r\n\r\n",
			  true, "h2c is an upgrade request like any other" },
			{ "GET / HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\n\r\n",
			  false, "Upgrade without Connection: upgrade" },
			{ "GET / HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\n\r\n",
			  false, "Connection: upgrade without Upgrade" },
			{ "GET / HTTP/1.0\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n",
			  false, "HTTP/1.0 upgrade is ignored (RFC 9110 7.8)" },
			{ "POST / HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\nContent-Length: 0\r\n\r\n",
			  false, "POST upgrade is not relayed" },
			{ "GET / HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\nContent-Length: 3\r\n\r\n",
			  false, "GET upgrade with a body is not relayed" },
			{ "GET / HTTP/1.1\r\nHost: a\r\nConnection: upgrade\r\nUpgrade: websocket\r\nTransfer-Encoding: chunked\r\n\r\n",
			  false, "GET upgrade with a chunked body is not relayed" },
			{ "CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n",
			  false, "CONNECT is never an upgrade" },
			{ "GET / HTTP/1.1\r\nHost: a\r\nConnection: close, Upgrade\r\nUpgrade: websocket\r\n\r\n",
			  true, "upgrade listed among other options" },
		};
		u32 i;

		for (i = 0; i < ARRAY_SIZE(up); i++) {
			rc = parse(up[i].h, &m);
			tap_ok(rc == KLB_HTTP_OK && klb_http_wants_upgrade(&m) == up[i].want,
			       "upgrade request: %s (%d)", up[i].what, rc);
		}
		klb_http_req_init(&m);
		tap_ok(!klb_http_wants_upgrade(&m), "upgrade request: not before the head is parsed");
	}
	h = "GET / HTTP/1.0\r\n\r\n";
	rc = parse(h, &m);
	tap_ok(rc == KLB_HTTP_OK && m.version == 10 && !(m.flags & KLB_HTTP_F_HOST) &&
	       !(m.flags & KLB_HTTP_F_PERSISTENT), "HTTP/1.0 without Host, not persistent");
	h = "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\n\r\n";
	rc = parse(h, &m);
	tap_ok(rc == KLB_HTTP_OK && (m.flags & KLB_HTTP_F_PERSISTENT), "HTTP/1.0 keep-alive is persistent");
	h = "GET http://Other.example:81/p/q?z HTTP/1.1\r\nHost: ignored\r\n\r\n";
	rc = parse(h, &m);
	tap_ok(rc == KLB_HTTP_OK && m.target_form == KLB_HTTP_T_ABSOLUTE &&
	       span_is(h, m.host, "Other.example:81") && span_is(h, m.path, "/p/q"),
	       "absolute-form: host from the target wins over Host, path extracted");
	h = "GET HTTPS://a.example?x HTTP/1.1\r\nHost: a\r\n\r\n";
	rc = parse(h, &m);
	tap_ok(rc == KLB_HTTP_OK && span_is(h, m.host, "a.example") && m.path.len == 0,
	       "absolute-form without path: empty path");
	h = "CONNECT a.example:443 HTTP/1.1\r\nHost: a.example:443\r\n\r\n";
	rc = parse(h, &m);
	tap_ok(rc == KLB_HTTP_OK && m.target_form == KLB_HTTP_T_AUTHORITY &&
	       span_is(h, m.host, "a.example:443"), "CONNECT authority-form");
	h = "OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n";
	rc = parse(h, &m);
	tap_ok(rc == KLB_HTTP_OK && m.target_form == KLB_HTTP_T_ASTERISK &&
	       m.method_id == KLB_HTTP_M_OPTIONS, "OPTIONS asterisk-form");
	h = "get / HTTP/1.1\r\nHost: a\r\n\r\n";
	rc = parse(h, &m);
	tap_ok(rc == KLB_HTTP_OK && m.method_id == KLB_HTTP_M_OTHER && span_is(h, m.method, "get"),
	       "methods are case-sensitive: 'get' is another method");
	h = "\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\nX: \t\x80\xff ok\t\r\n\r\n";
	rc = parse(h, &m);
	tap_ok(rc == KLB_HTTP_OK && m.head_start == 4 && m.method.off == 4,
	       "leading CRLFs skipped; HTAB and obs-text allowed in values (%d)", rc);
	h = "GET / HTTP/1.1\r\nHost:\r\n\r\n";
	rc = parse(h, &m);
	tap_ok(rc == KLB_HTTP_OK && m.host.len == 0 && (m.flags & KLB_HTTP_F_HOST),
	       "empty Host value accepted, empty host");
}

static void test_splits(void)
{
	static const char *const heads[] = {
		"GET /a/b?x=1 HTTP/1.1\r\nHost: example.com\r\nX-Env: canary\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\nX: b\r\n\r\n",
		"\r\nGET http://h:1/p HTTP/1.0\r\nConnection: keep-alive\r\n\r\n",
		"GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n b\r\n\r\n",
	};
	u32 i;

	for (i = 0; i < ARRAY_SIZE(heads); i++)
		tap_ok(split_equal(heads[i], false, 0, &lim_default),
		       "request %u: same result split at every byte and at random", i);
	tap_ok(split_equal("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\n", true,
			   KLB_HTTP_M_GET, &lim_default) &&
	       split_equal("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n",
			   true, KLB_HTTP_M_GET, &lim_default),
	       "responses: same result at every split");
}

static void test_pipelined(void)
{
	const char *p = "GET /1 HTTP/1.1\r\nHost: a\r\n\r\n"
			"POST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc"
			"GET /3 HTTP/1.1\r\nHost: a\r\n\r\n";
	struct klb_http_msg m;
	u32 off = 0, n = 0;
	int rc;
	bool ok = true;

	while (off < strlen(p)) {
		klb_http_req_init(&m);
		rc = klb_http_parse(&m, (const u8 *)p + off, strlen(p) - off, &lim_default);
		if (rc != KLB_HTTP_OK) {
			ok = false;
			break;
		}
		n++;
		ok &= (u32)p[off + m.target.off + 1] == '0' + n;
		off += m.head_len;
		if (m.body == KLB_HTTP_BODY_LENGTH)
			off += m.content_length;
	}
	tap_ok(ok && n == 3 && off == strlen(p),
	       "pipelined: three heads in one buffer, each ends where the next starts");
}

struct resp_case {
	u8 method;
	const char *head;
	int rc;
	u8 body;
	bool persistent;
};

static const struct resp_case responses[] = {
	{ KLB_HTTP_M_GET, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", 0, KLB_HTTP_BODY_LENGTH, true },
	{ KLB_HTTP_M_HEAD, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n", 0, KLB_HTTP_BODY_NONE, true },
	{ KLB_HTTP_M_HEAD, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", 0, KLB_HTTP_BODY_NONE, true },
	{ KLB_HTTP_M_GET, "HTTP/1.1 204 No Content\r\n\r\n", 0, KLB_HTTP_BODY_NONE, true },
	{ KLB_HTTP_M_GET, "HTTP/1.1 304 Not Modified\r\nContent-Length: 10\r\n\r\n", 0, KLB_HTTP_BODY_NONE, true },
	{ KLB_HTTP_M_POST, "HTTP/1.1 100 Continue\r\n\r\n", 0, KLB_HTTP_BODY_NONE, true },
	{ KLB_HTTP_M_GET, "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n", 0, KLB_HTTP_BODY_NONE, true },
	{ KLB_HTTP_M_GET, "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n", 0, KLB_HTTP_BODY_TUNNEL, false },
	{ KLB_HTTP_M_CONNECT, "HTTP/1.1 200 Connection established\r\n\r\n", 0, KLB_HTTP_BODY_TUNNEL, false },
	{ KLB_HTTP_M_CONNECT, "HTTP/1.1 407 Auth\r\nContent-Length: 1\r\n\r\n", 0, KLB_HTTP_BODY_LENGTH, true },
	{ KLB_HTTP_M_GET, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", 0, KLB_HTTP_BODY_CHUNKED, true },
	{ KLB_HTTP_M_GET, "HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n", 0, KLB_HTTP_BODY_CLOSE, false },
	{ KLB_HTTP_M_GET, "HTTP/1.1 200 OK\r\nTransfer-Encoding: foo, chunked\r\n\r\n", 0, KLB_HTTP_BODY_CHUNKED, true },
	{ KLB_HTTP_M_GET, "HTTP/1.1 200 OK\r\n\r\n", 0, KLB_HTTP_BODY_CLOSE, false },
	{ KLB_HTTP_M_GET, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n", 0, KLB_HTTP_BODY_NONE, true },
	{ KLB_HTTP_M_GET, "HTTP/1.1 200\r\nContent-Length: 1\r\n\r\n", 0, KLB_HTTP_BODY_LENGTH, true },
	{ KLB_HTTP_M_GET, "HTTP/1.1 200 \r\nContent-Length: 1\r\n\r\n", 0, KLB_HTTP_BODY_LENGTH, true },
	{ KLB_HTTP_M_GET, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1\r\n\r\n", 0, KLB_HTTP_BODY_LENGTH, false },
	{ KLB_HTTP_M_GET, "HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\n", 0, KLB_HTTP_BODY_LENGTH, false },
	{ KLB_HTTP_M_GET, "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 3\r\n\r\n", 0, KLB_HTTP_BODY_LENGTH, true },
	{ KLB_HTTP_M_GET, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", KLB_HTTP_E_CL_TE, 0, false },
	{ KLB_HTTP_M_GET, "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 4\r\n\r\n", KLB_HTTP_E_CL_MISMATCH, 0, false },
	{ KLB_HTTP_M_GET, "HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n", KLB_HTTP_E_TE_HTTP10, 0, false },
	{ KLB_HTTP_M_GET, "HTTP/1.1 099 Low\r\n\r\n", KLB_HTTP_E_STATUS_LINE, 0, false },
	{ KLB_HTTP_M_GET, "HTTP/1.1 600 High\r\n\r\n", KLB_HTTP_E_STATUS_LINE, 0, false },
	{ KLB_HTTP_M_GET, "HTTP/1.1 2000 OK\r\n\r\n", KLB_HTTP_E_STATUS_LINE, 0, false },
	{ KLB_HTTP_M_GET, "HTTP/1.1 20x OK\r\n\r\n", KLB_HTTP_E_STATUS_LINE, 0, false },
	{ KLB_HTTP_M_GET, "HTTP/1.1  200 OK\r\n\r\n", KLB_HTTP_E_STATUS_LINE, 0, false },
	{ KLB_HTTP_M_GET, "HTTP/1.1 200 O\x01K\r\n\r\n", KLB_HTTP_E_STATUS_LINE, 0, false },
	{ KLB_HTTP_M_GET, "\r\nHTTP/1.1 200 OK\r\n\r\n", KLB_HTTP_E_STATUS_LINE, 0, false },
	{ KLB_HTTP_M_GET, "HTTP/2.0 200 OK\r\n\r\n", KLB_HTTP_E_VERSION_UNSUPP, 0, false },
	{ KLB_HTTP_M_GET, "HTTP/1.1 200 OK\r\nX: a\r\n b\r\n\r\n", KLB_HTTP_E_OBS_FOLD, 0, false },
};

static void test_responses(void)
{
	struct klb_http_msg m;
	u32 i;
	int rc;

	for (i = 0; i < ARRAY_SIZE(responses); i++) {
		const struct resp_case *c = &responses[i];

		rc = parse_lim(c->head, strlen(c->head), true, c->method, &m, &lim_default);
		tap_ok(rc == c->rc && (rc || (m.body == c->body &&
		       !!(m.flags & KLB_HTTP_F_PERSISTENT) == c->persistent)),
		       "response %u: method %u '%.40s' -> rc %d body %u persistent %d "
		       "(got %d, %u, %d)", i, c->method, esc(c->head), c->rc, c->body,
		       c->persistent, rc, m.body, !!(m.flags & KLB_HTTP_F_PERSISTENT));
	}
	rc = parse_lim("HTTP/1.1 100 Continue\r\n\r\n", 25, true, KLB_HTTP_M_POST, &m, &lim_default);
	tap_ok(rc == KLB_HTTP_OK && (m.flags & KLB_HTTP_F_INTERIM) && m.status == 100,
	       "1xx is interim: another head follows");
	rc = parse_lim("HTTP/1.1 404 Not Found\r\n\r\n", 26, true, KLB_HTTP_M_GET, &m, &lim_default);
	tap_ok(rc == KLB_HTTP_OK && m.status == 404 &&
	       span_is("HTTP/1.1 404 Not Found\r\n\r\n", m.reason, "Not Found"),
	       "status and reason extracted");
}

/* Decode @body fed in pieces of random sizes (0 = all at once). */
static int chunk_decode(const char *body, u32 len, u32 maxpiece, u32 max_trailer,
			char *out, u32 *outlen, u32 *end)
{
	struct klb_chunk c;
	u32 off = 0, used, piece, plen;
	int rc = KLB_CHUNK_FRAMING;
	u8 *copy;

	klb_chunk_init(&c, max_trailer);
	*outlen = 0;
	while (off < len) {
		piece = maxpiece ? 1 + rnd() % maxpiece : len;
		if (piece > len - off)
			piece = len - off;
		copy = malloc(piece);
		memcpy(copy, body + off, piece);
		plen = 0;
		while (plen < piece) {
			rc = klb_chunk_feed(&c, copy + plen, piece - plen, &used);
			if (rc < 0 || !used) {
				free(copy);
				return rc < 0 ? rc : -100;
			}
			if (rc == KLB_CHUNK_DATA) {
				memcpy(out + *outlen, copy + plen, used);
				*outlen += used;
			}
			plen += used;
			if (rc == KLB_CHUNK_DONE)
				break;
		}
		free(copy);
		off += plen;
		if (rc == KLB_CHUNK_DONE)
			break;
	}
	*end = off;
	return rc;
}

/*
 * As chunk_decode() all at once, but payload goes the way the relay's
 * zero-copy path takes it: past the decoder, announced with
 * klb_chunk_skip() in random amounts of at most klb_chunk_data_left().
 */
static int chunk_decode_skipping(const char *body, u32 len, char *out,
				 u32 *outlen, u32 *end, bool *framing_hidden)
{
	struct klb_chunk c;
	u32 off = 0, used;
	u64 left, n;
	int rc = KLB_CHUNK_FRAMING;

	klb_chunk_init(&c, 1024);
	*outlen = 0;
	*framing_hidden = false;
	while (off < len && rc != KLB_CHUNK_DONE) {
		left = klb_chunk_data_left(&c);
		if (left) {
			n = 1 + rnd() % left;
			if (n > len - off)
				n = len - off;
			memcpy(out + *outlen, body + off, n);
			*outlen += n;
			off += n;
			klb_chunk_skip(&c, n);
			continue;
		}
		rc = klb_chunk_feed(&c, (const u8 *)body + off, 1, &used);
		if (rc < 0)
			return rc;
		/* Fed one byte at a time: payload fed here was not announced. */
		if (rc == KLB_CHUNK_DATA)
			*framing_hidden = true;
		off += used;
	}
	*end = off;
	return rc;
}

static void test_chunked_skip(void)
{
	static const char body[] = "4\r\nWiki\r\n5;ext=1\r\npedia\r\n23\r\n in\r\n\r\nchunks, and some more bytes!\r\n"
				   "0\r\nT: y\r\n\r\nNEXT";
	static const char want[] = "Wikipedia in\r\n\r\nchunks, and some more bytes!";
	struct klb_chunk c;
	char out[256];
	u32 outlen, end, used, i;
	bool ok = true, hidden = false;
	int rc = 0;

	for (i = 0; i < 300 && ok; i++) {
		rc = chunk_decode_skipping(body, sizeof(body) - 1, out, &outlen, &end, &hidden);
		ok = rc == KLB_CHUNK_DONE && !hidden && outlen == strlen(want) &&
		     !memcmp(out, want, outlen) && end == sizeof(body) - 1 - 4;
	}
	tap_ok(ok, "chunked: payload skipped in random amounts (zero copy) decodes the same (rc %d)", rc);

	klb_chunk_init(&c, 64);
	ok = klb_chunk_data_left(&c) == 0;
	klb_chunk_skip(&c, 3);		/* framing due: nothing to skip */
	rc = klb_chunk_feed(&c, (const u8 *)"3\r\n", 3, &used);
	ok = ok && rc == KLB_CHUNK_FRAMING && klb_chunk_data_left(&c) == 3;
	klb_chunk_skip(&c, 10);		/* never more than the chunk holds */
	ok = ok && klb_chunk_data_left(&c) == 0;
	rc = klb_chunk_feed(&c, (const u8 *)"X", 1, &used);
	tap_ok(ok && rc == KLB_HTTP_E_CHUNK_CRLF,
	       "chunked: data_left is 0 while framing is due, skip stops at the chunk's end");
}

static void test_chunked(void)
{
	static const char body[] = "4\r\nWiki\r\n5;ext=1;q=\"a b\"\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n"
				   "00a ;x\r\n0123456789\r\n0\r\nX-Trailer: y\r\nZ:\r\n\r\nNEXT";
	static const char want[] = "Wikipedia in\r\n\r\nchunks.0123456789";
	char out[256];
	u32 outlen, end, i;
	bool ok = true;
	int rc;

	rc = chunk_decode(body, sizeof(body) - 1, 0, 1024, out, &outlen, &end);
	tap_ok(rc == KLB_CHUNK_DONE && outlen == strlen(want) && !memcmp(out, want, outlen) &&
	       end == sizeof(body) - 1 - 4,
	       "chunked: data, extensions, trailers decoded; stops before the next message");
	for (i = 0; i < 500 && ok; i++) {
		rc = chunk_decode(body, sizeof(body) - 1, 1 + i % 9, 1024, out, &outlen, &end);
		ok = rc == KLB_CHUNK_DONE && outlen == strlen(want) &&
		     !memcmp(out, want, outlen) && end == sizeof(body) - 1 - 4;
	}
	tap_ok(ok, "chunked: 500 random segmentations decode the same");

	{
		static const struct {
			const char *body;
			u32 max_trailer;
			int err;
		} bad[] = {
			{ "G\r\n", 64, KLB_HTTP_E_CHUNK_SIZE },
			{ "\r\n", 64, KLB_HTTP_E_CHUNK_SIZE },
			{ "-1\r\n", 64, KLB_HTTP_E_CHUNK_SIZE },
			{ "0x5\r\n", 64, KLB_HTTP_E_CHUNK_SIZE },
			{ "4\nWiki", 64, KLB_HTTP_E_CHUNK_SIZE },
			{ "10000000000000000\r\n", 64, KLB_HTTP_E_CHUNK_SIZE },
			{ "00000000000000000000fffffffffffffffff\r\n", 64, KLB_HTTP_E_CHUNK_SIZE },
			{ "4 \r\nWiki\r\n", 64, KLB_HTTP_E_CHUNK_EXT },
			{ "4;a\nWiki", 64, KLB_HTTP_E_CHUNK_CRLF },
			{ "4;a\x01\r\nWiki", 64, KLB_HTTP_E_CHUNK_EXT },
			/* RFC 9112 7.1.1: chunk-ext = *( BWS ";" BWS name [ BWS "=" BWS value ] ) */
			{ "5;a=\"unbalanced\r\nhello\r\n0\r\n\r\n", 64, KLB_HTTP_E_CHUNK_EXT },
			{ "2;\r\nhi\r\n0\r\n\r\n", 64, KLB_HTTP_E_CHUNK_EXT },
			{ "2; \r\nhi\r\n", 64, KLB_HTTP_E_CHUNK_EXT },
			{ "2;;a\r\nhi\r\n", 64, KLB_HTTP_E_CHUNK_EXT },
			{ "2;=b\r\nhi\r\n", 64, KLB_HTTP_E_CHUNK_EXT },
			{ "2;a=\r\nhi\r\n", 64, KLB_HTTP_E_CHUNK_EXT },
			{ "2;a=b c\r\nhi\r\n", 64, KLB_HTTP_E_CHUNK_EXT },
			{ "2;a b\r\nhi\r\n", 64, KLB_HTTP_E_CHUNK_EXT },
			{ "2;a=b=c\r\nhi\r\n", 64, KLB_HTTP_E_CHUNK_EXT },
			{ "2;a=\"x\"y\r\nhi\r\n", 64, KLB_HTTP_E_CHUNK_EXT },
			{ "2;a=\"x\x01\"\r\nhi\r\n", 64, KLB_HTTP_E_CHUNK_EXT },
			{ "2;a=\"x\\\x7f\"\r\nhi\r\n", 64, KLB_HTTP_E_CHUNK_EXT },
			{ "2;a@b\r\nhi\r\n", 64, KLB_HTTP_E_CHUNK_EXT },
			{ "2;a=\"x\nhi", 64, KLB_HTTP_E_CHUNK_CRLF },
			{ "4\r\rWiki", 64, KLB_HTTP_E_CHUNK_CRLF },
			{ "4\r\nWikiX\r\n", 64, KLB_HTTP_E_CHUNK_CRLF },
			{ "4\r\nWiki\n0\r\n\r\n", 64, KLB_HTTP_E_CHUNK_CRLF },
			{ "4\r\nWiki\r\r", 64, KLB_HTTP_E_CHUNK_CRLF },
			{ "0\r\n X: y\r\n\r\n", 64, KLB_HTTP_E_TRAILER },
			{ "0\r\nX : y\r\n\r\n", 64, KLB_HTTP_E_TRAILER },
			{ "0\r\nX: \x01\r\n\r\n", 64, KLB_HTTP_E_TRAILER },
			{ "0\r\nX: y\n\r\n", 64, KLB_HTTP_E_TRAILER },
			{ "0\r\n\n", 64, KLB_HTTP_E_TRAILER },
			{ "0\r\n\r\r", 64, KLB_HTTP_E_CHUNK_CRLF },
			{ "0\r\nX-Long: 0123456789\r\n\r\n", 16, KLB_HTTP_E_TRAILER_TOO_LARGE },
		};

		for (i = 0; i < ARRAY_SIZE(bad); i++) {
			rc = chunk_decode(bad[i].body, strlen(bad[i].body), 0,
					  bad[i].max_trailer, out, &outlen, &end);
			tap_ok(rc == bad[i].err && klb_http_err_status(rc) == 400,
			       "chunked refused: '%s' -> %s (got %d)", esc(bad[i].body),
			       klb_http_err_name(bad[i].err), rc);
		}
	}
	{
		/* Extensions the grammar allows: BWS, values, quoted pairs. */
		static const char *const good[] = {
			"2;a\r\nhi\r\n0\r\n\r\n",
			"2 ; a ; b = c\t;d=\"\"\r\nhi\r\n0\r\n\r\n",
			"2;a=\"x y;z=\\\"q\\\\\" ;b\r\nhi\r\n0\r\n\r\n",
			"2;name=\"\xc3\xa9\"\r\nhi\r\n0\r\n\r\n",
			"2;!#$%&'*+-.^_`|~=!#$%&'*+-.^_`|~\r\nhi\r\n0\r\n\r\n",
		};

		for (i = 0; i < ARRAY_SIZE(good); i++) {
			rc = chunk_decode(good[i], strlen(good[i]), 1 + i, 64, out,
					  &outlen, &end);
			tap_ok(rc == KLB_CHUNK_DONE && outlen == 2 && !memcmp(out, "hi", 2),
			       "chunked: extension allowed: '%s' (got %d)", esc(good[i]), rc);
		}
	}
	{
		/* A chunk-size line over KLB_CHUNK_LINE_MAX, in extensions. */
		static char big[KLB_CHUNK_LINE_MAX + 16];

		memset(big, 'a', sizeof(big));
		memcpy(big, "1;", 2);
		rc = chunk_decode(big, sizeof(big), 0, 64, out, &outlen, &end);
		tap_ok(rc == KLB_HTTP_E_CHUNK_EXT, "chunked: endless extension refused (%d)", rc);
		memcpy(big + KLB_CHUNK_LINE_MAX - 2, "\r\nx\r\n0\r\n\r\n", 10);
		rc = chunk_decode(big, KLB_CHUNK_LINE_MAX + 8, 0, 64, out, &outlen, &end);
		tap_ok(rc == KLB_CHUNK_DONE && outlen == 1, "chunked: extension of exactly the limit passes (%d)", rc);
	}
	{
		/* A huge chunk streams through without any buffering. */
		struct klb_chunk c;
		static const u8 hdr[] = "ffffffffffffffff\r\n";
		u8 data[4096] = { 0 };
		u32 used;

		klb_chunk_init(&c, 64);
		rc = klb_chunk_feed(&c, hdr, sizeof(hdr) - 1, &used);
		ok = rc == KLB_CHUNK_FRAMING && used == sizeof(hdr) - 1;
		for (i = 0; i < 1000 && ok; i++)
			ok = klb_chunk_feed(&c, data, sizeof(data), &used) == KLB_CHUNK_DATA &&
			     used == sizeof(data);
		tap_ok(ok && c.left == ~0ULL - 1000ULL * sizeof(data),
		       "chunked: a 2^64-1 chunk passes through in constant memory");
	}
}

/* The head buffer's growth (klb_http_head_buf_next()). */
static void test_head_buf_next(void)
{
	tap_ok(klb_http_head_buf_next(0, 8192) == KLB_HTTP_HEAD_BUF,
	       "head buffer: KLB_HTTP_HEAD_BUF (%u) first", KLB_HTTP_HEAD_BUF);
	tap_ok(klb_http_head_buf_next(1024, 8192) == 2048 &&
	       klb_http_head_buf_next(2048, 8192) == 4096 &&
	       klb_http_head_buf_next(4096, 8192) == 8192,
	       "head buffer: doubles up to the head limit");
	tap_ok(klb_http_head_buf_next(8192, 8192) == 0 &&
	       klb_http_head_buf_next(16384, 8192) == 0,
	       "head buffer: at or over the head limit it may not grow");
	tap_ok(klb_http_head_buf_next(0, 512) == 512 &&
	       klb_http_head_buf_next(4096, 5000) == 5000,
	       "head buffer: never over a head limit that is not a power of 2");
	tap_ok(klb_http_head_buf_next(0x80000000u, 0xffffffffu) == 0xffffffffu,
	       "head buffer: doubling that would wrap gives the limit");
}

/*
 * A head read the way http_session.c reads it: into a KLB_HTTP_HEAD_BUF
 * buffer, moved to a larger one (a new allocation, the old one freed)
 * each time it is full, parsed after each read. The results must be those
 * of one parse of the whole head: they are offsets, not pointers.
 */
static void test_head_grow(void)
{
	const struct klb_http_limits lim = {
		.max_line = 8192, .max_head = 8192, .max_fields = 1000,
	};
	char head[6000];
	struct klb_http_msg m, whole;
	u32 cap = 0, len = 0, n, total, grows = 0;
	u8 *buf = NULL, *nbuf;
	int rc = KLB_HTTP_NEED_MORE;

	n = snprintf(head, sizeof(head),
		     "GET /grown HTTP/1.1\r\nHost: grow.example\r\n");
	while (n < sizeof(head) - 64)
		n += snprintf(head + n, sizeof(head) - n,
			      "X-Pad-%u: %s\r\n", n, "aaaaaaaaaaaaaaaaaaaaaaaa");
	n += snprintf(head + n, sizeof(head) - n, "\r\nGET /next");
	total = n;

	klb_http_req_init(&whole);
	tap_ok(klb_http_parse(&whole, (const u8 *)head, total, &lim) ==
	       KLB_HTTP_OK, "grow: the head parses whole (%u bytes)",
	       whole.head_len);

	klb_http_req_init(&m);
	while (rc == KLB_HTTP_NEED_MORE && len < total) {
		if (len == cap) {
			u32 next = klb_http_head_buf_next(cap, lim.max_head);

			if (!next)
				break;
			nbuf = malloc(next);
			if (len)
				memcpy(nbuf, buf, len);
			free(buf);
			buf = nbuf;
			cap = next;
			grows++;
		}
		/* a slow client: 7 bytes a read */
		n = cap - len < 7 ? cap - len : 7;
		if (n > total - len)
			n = total - len;
		memcpy(buf + len, head + len, n);
		len += n;
		rc = klb_http_parse(&m, buf, len, &lim);
	}
	tap_ok(rc == KLB_HTTP_OK && m.head_len == whole.head_len &&
	       m.fields == whole.fields && m.host.off == whole.host.off &&
	       m.host.len == whole.host.len && m.path.off == whole.path.off &&
	       !memcmp(buf + m.host.off, "grow.example", 12),
	       "grow: read 7 bytes at a time through %u buffers, same head", grows);
	tap_ok(grows == 4 && cap == 8192,
	       "grow: 1024, 2048, 4096, 8192 bytes (cap %u)", cap);
	free(buf);
}

int main(void)
{
	rng_state = 42;
	test_bad_requests();
	test_limits();
	test_valid_requests();
	test_splits();
	test_pipelined();
	test_responses();
	test_chunked();
	test_chunked_skip();
	test_head_buf_next();
	test_head_grow();
	return tap_done();
}
