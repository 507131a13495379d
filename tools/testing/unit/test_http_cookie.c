// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of kmod/l7/parse/http_cookie.c (the persistence cookie of
 * the http service mode: finding a cookie in the Cookie fields of a
 * request head, and the backend id its value names), built in userspace
 * with ASan and UBSan.
 *
 * Heads are parsed from exact-size heap copies, so a read past the head
 * is an ASan report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_cookie.h"
#include "tap.h"

static const struct klb_http_limits lim = {
	.max_line = 8192, .max_head = 65536, .max_fields = 200,
};

/* A request head with @fields (CRLF-separated lines, may be ""). */
static u8 *head(const char *fields, struct klb_http_msg *m, u32 *len)
{
	char tmp[4096];
	u8 *buf;
	int n;

	n = snprintf(tmp, sizeof(tmp), "GET / HTTP/1.1\r\nHost: x\r\n%s\r\n",
		     fields);
	buf = malloc(n);
	memcpy(buf, tmp, n);
	*len = n;
	klb_http_req_init(m);
	if (klb_http_parse(m, buf, n, &lim) != KLB_HTTP_OK) {
		free(buf);
		return NULL;
	}
	return buf;
}

/*
 * Every value of cookie @name in @fields, joined with "|" (absent: ""),
 * or "PARSE" if the head does not parse.
 */
static const char *values(const char *fields, const char *name)
{
	static char out[1024];
	struct klb_cookie_cursor c = { 0 };
	struct klb_http_msg m;
	struct klb_http_span v;
	u32 len, n = 0;
	u8 *buf = head(fields, &m, &len);

	if (!buf)
		return "PARSE";
	out[0] = '\0';
	while (klb_cookie_next(buf, &m, (const u8 *)name, strlen(name), &c,
			       &v)) {
		if (v.off + v.len > len) {
			strcpy(out, "OUT OF BOUNDS");
			break;
		}
		n += snprintf(out + n, sizeof(out) - n, "%s%.*s", n ? "|" : "",
			      (int)v.len, (const char *)buf + v.off);
		if (n >= sizeof(out) - 1)
			break;
	}
	free(buf);
	return out;
}

static void test_find(void)
{
	static const struct {
		const char *fields, *name, *want, *what;
	} cases[] = {
		{ "Cookie: SRV=abc\r\n", "SRV", "abc", "alone" },
		{ "Cookie: a=1; SRV=v; b=2\r\n", "SRV", "v", "among others" },
		{ "Cookie: a=1;SRV=v;b=2\r\n", "SRV", "v", "no space after ;" },
		{ "Cookie:   a=1 ;  SRV = v  ; b=2  \r\n", "SRV", "v",
		  "whitespace around names, = and ;" },
		{ "Cookie: a=1;\tSRV=v\t;b=2\r\n", "SRV", "v", "tabs" },
		{ "Cookie: SRV=\"v\"\r\n", "SRV", "v", "quoted value" },
		{ "Cookie: SRV=\"\"\r\n", "SRV", "", "empty quoted value" },
		{ "Cookie: SRV=\"\r\n", "SRV", "\"", "a lone quote is the value" },
		{ "Cookie: SRV=\"v\r\n", "SRV", "\"v", "unbalanced quote kept" },
		{ "Cookie: SRV=\r\n", "SRV", "", "empty value" },
		{ "Cookie: SRV=a=b\r\n", "SRV", "a=b", "value holding =" },
		{ "Cookie: a=1\r\nCookie: SRV=v\r\n", "SRV", "v",
		  "in the second Cookie field" },
		{ "cookie: SRV=v\r\n", "SRV", "v", "field name lowercase" },
		{ "COOKIE: SRV=v\r\n", "SRV", "v", "field name uppercase" },
		{ "Cookie: srv=v\r\n", "SRV", "", "cookie names are case-sensitive" },
		{ "Cookie: SRVX=1; XSRV=2; SR=3\r\n", "SRV", "",
		  "longer, shorter, suffixed names do not match" },
		{ "Cookie: SRV; SRV2=x\r\n", "SRV", "", "a pair without = is skipped" },
		{ "Cookie: =v; SRV\r\n", "SRV", "", "no name, no = : nothing" },
		{ "X-Cookie: SRV=1\r\nSet-Cookie: SRV=2\r\n", "SRV", "",
		  "other fields are not Cookie" },
		{ "Cookie: \r\nCookie: SRV=1\r\n", "SRV", "1",
		  "an empty Cookie field, then one with it" },
		{ "Cookie: ;;SRV=1;;\r\n", "SRV", "1", "empty pairs" },
		{ "Cookie: SRV=1; a=2; SRV=3\r\nCookie: SRV=4\r\n", "SRV",
		  "1|3|4", "every occurrence, in order" },
		{ "Cookie: a=\"x;SRV=y\"\r\n", "SRV", "y\"",
		  "; inside quotes still separates (not a cookie-octet)" },
		{ "", "SRV", "", "no Cookie field" },
		{ "Cookie: SRV=v\r\n", "", "", "empty name never matches" },
		{ "Cookie: a-b.c_d=v\r\n", "a-b.c_d", "v", "token characters" },
	};
	u32 i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const char *got = values(cases[i].fields, cases[i].name);

		tap_ok(!strcmp(got, cases[i].want), "find: %s (got '%s', want '%s')",
		       cases[i].what, got, cases[i].want);
	}
}

static void test_value(void)
{
	static const struct {
		const char *v;
		bool ok;
		u64 id;
	} cases[] = {
		{ "0123456789abcdef", true, 0x0123456789abcdefULL },
		{ "0123456789ABCDEF", true, 0x0123456789abcdefULL },
		{ "0000000000000000", true, 0 },
		{ "ffffffffffffffff", true, ~0ULL },
		{ "0123456789abcde", false, 0 },
		{ "0123456789abcdef0", false, 0 },
		{ "0123456789abcdeg", false, 0 },
		{ "0x23456789abcdef", false, 0 },
		{ " 123456789abcdef", false, 0 },
		{ "", false, 0 },
	};
	u8 text[KLB_HTTP_COOKIE_VALUE_LEN + 1];
	u32 i, bad = 0;
	u64 id, back;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		bool ok;

		id = 42;
		ok = klb_cookie_value_id((const u8 *)cases[i].v,
					 strlen(cases[i].v), &id);
		tap_ok(ok == cases[i].ok && (!ok || id == cases[i].id) &&
		       (ok || id == 42),
		       "value '%s': %s", cases[i].v, cases[i].ok ? "an id" : "not an id");
	}
	for (i = 0; i < 10000; i++) {
		id = (u64)rnd() << 32 | rnd();
		text[KLB_HTTP_COOKIE_VALUE_LEN] = 'X';
		klb_cookie_value_text(id, text);
		if (text[KLB_HTTP_COOKIE_VALUE_LEN] != 'X' ||
		    !klb_cookie_value_id(text, KLB_HTTP_COOKIE_VALUE_LEN, &back) ||
		    back != id)
			bad++;
		for (u32 j = 0; j < KLB_HTTP_COOKIE_VALUE_LEN; j++)
			if (!((text[j] >= '0' && text[j] <= '9') ||
			      (text[j] >= 'a' && text[j] <= 'f')))
				bad++;
	}
	tap_ok(!bad, "value text: 16 lowercase hex digits that read back (%u bad)",
	       bad);
}

static void test_find_id(void)
{
	static const struct {
		const char *fields;
		bool ok;
		u64 id;
		const char *what;
	} cases[] = {
		{ "Cookie: a=1; SRV=00000000000000ff\r\n", true, 0xff, "found" },
		{ "Cookie: SRV=\"00000000000000ff\"\r\n", true, 0xff, "quoted" },
		{ "Cookie: SRV=zz; SRV=0000000000000001\r\n", true, 1,
		  "the first value that is an id" },
		{ "Cookie: SRV=0000000000000002\r\nCookie: SRV=0000000000000003\r\n",
		  true, 2, "the first of two ids" },
		{ "Cookie: SRV=forged\r\n", false, 0, "not an id" },
		{ "Cookie: srv=0000000000000001\r\n", false, 0, "another name" },
		{ "Cookie: a=1\r\n", false, 0, "absent" },
	};
	struct klb_http_msg m;
	u32 i, len;
	bool ok;
	u64 id;
	u8 *buf;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		buf = head(cases[i].fields, &m, &len);
		id = 0;
		ok = buf && klb_cookie_find_id(buf, &m, (const u8 *)"SRV", 3, &id);
		tap_ok(buf && ok == cases[i].ok && id == cases[i].id,
		       "find_id: %s", cases[i].what);
		free(buf);
	}
}

/* Random Cookie fields: every value found is inside the head, holds no ; */
static void test_random(void)
{
	static const char *const bits[] = {
		"SRV", "SRV=", "=", ";", " ", "\t", "\"", "a", "0123456789abcdef",
		"srv", "SRVX", "x=y", "; ", "==",
	};
	struct klb_cookie_cursor c;
	struct klb_http_msg m;
	struct klb_http_span v;
	char fields[1024];
	u32 i, j, k, n, len, tried = 0, found = 0, bad = 0;
	u8 *buf;

	for (i = 0; i < 20000; i++) {
		n = 0;
		for (k = 1 + rnd() % 3; k; k--) {
			n += sprintf(fields + n, "%s: ", rnd() % 4 ? "Cookie" : "X-C");
			for (j = rnd() % 10; j; j--)
				n += sprintf(fields + n, "%s",
					     bits[rnd() % ARRAY_SIZE(bits)]);
			n += sprintf(fields + n, "\r\n");
		}
		buf = head(fields, &m, &len);
		if (!buf)
			continue;
		tried++;
		memset(&c, 0, sizeof(c));
		for (k = 0; k < 100 && klb_cookie_next(buf, &m, (const u8 *)"SRV",
							3, &c, &v); k++) {
			found++;
			if (v.off < m.fields_start || v.off + v.len > len ||
			    memchr(buf + v.off, ';', v.len) ||
			    memchr(buf + v.off, '\r', v.len))
				bad++;
		}
		if (k == 100)
			bad++;	/* it must end */
		free(buf);
	}
	tap_ok(tried > 1000 && found > 1000 && !bad,
	       "random Cookie fields: values inside their field, iteration ends (%u bad, %u found in %u heads)",
	       bad, found, tried);
}

int main(void)
{
	rng_state = 11;
	test_find();
	test_value();
	test_find_id();
	test_random();
	return tap_done();
}
