// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of kmod/l7/parse/http_rewrite.c (head rewriting, PROXY v2 header,
 * address text, generated responses), built in userspace with ASan and
 * UBSan.
 *
 * Every rewrite writes into a heap buffer of exactly the capacity given,
 * so writing one byte too many is an ASan report, not a silent pass.
 */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_rewrite.h"
#include "tap.h"


static const struct klb_http_limits lim = {
	.max_line = 8192, .max_head = 65536, .max_fields = 200,
};

/* @s with CR and LF escaped, for TAP lines. */
static const char *esc(const char *s, u32 len)
{
	static char out[4][1024];
	static unsigned int which;
	char *o = out[which++ % 4];
	u32 n = 0, i;

	for (i = 0; i < len && n < sizeof(out[0]) - 8; i++) {
		u8 c = s[i];

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

static int parse_msg(struct klb_http_msg *m, const char *s, u32 len,
		     bool resp, u8 method)
{
	if (resp)
		klb_http_resp_init(m, method);
	else
		klb_http_req_init(m);
	return klb_http_parse(m, (const u8 *)s, len, &lim);
}

/* Requests: rewrite as a relayed upgrade (the kernel's @upgrade). */
static bool rw_upgrade;

/* Rewrite into a heap buffer of exactly @cap bytes; copy out to @out. */
static int rewrite(const char *head, bool resp, u8 conn, const char *ip,
		   u32 cap, char *out)
{
	struct klb_http_msg m;
	u8 *buf = malloc(cap ? cap : 1);
	int rc;

	if (parse_msg(&m, head, strlen(head), resp, KLB_HTTP_M_GET) !=
	    KLB_HTTP_OK) {
		free(buf);
		return -100;
	}
	if (resp)
		rc = klb_http_rewrite_resp((const u8 *)head, &m, conn, NULL,
					   buf, cap);
	else
		rc = klb_http_rewrite_req((const u8 *)head, &m, (const u8 *)ip,
					  strlen(ip), rw_upgrade, buf, cap);
	if (rc > 0)
		memcpy(out, buf, rc);
	free(buf);
	return rc;
}

/* ---- address text -------------------------------------------------------- */

static void test_ip_text(void)
{
	static const struct {
		const char *in, *want;
	} v6[] = {
		{ "::", "::" },
		{ "::1", "::1" },
		{ "1::", "1::" },
		{ "2001:db8::1", "2001:db8::1" },
		{ "2001:0db8:0000:0000:0000:0000:0000:0001", "2001:db8::1" },
		/* one zero group alone is not shortened (RFC 5952 4.2.2) */
		{ "2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1" },
		/* the longest run wins, the first of equal ones (4.2.3) */
		{ "2001:0:0:1:0:0:0:1", "2001:0:0:1::1" },
		{ "2001:db8:0:0:1:0:0:1", "2001:db8::1:0:0:1" },
		{ "fe80::abcd:ef01:2345:6789", "fe80::abcd:ef01:2345:6789" },
		{ "FFFF:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
		  "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff" },
		{ "::ffff:192.0.2.33", "::ffff:192.0.2.33" },
		{ "::ffff:255.255.255.255", "::ffff:255.255.255.255" },
		{ "1:0:0:0:0:0:0:0", "1::" },
		{ "0:0:1:0:0:0:1:0", "0:0:1::1:0" },
	};
	static const char *const v4[] = {
		"0.0.0.0", "192.0.2.1", "10.20.30.40", "255.255.255.255",
	};
	u8 a[16], out[KLB_IP_TEXT_MAX + 8];
	u32 i, n;

	for (i = 0; i < ARRAY_SIZE(v6); i++) {
		inet_pton(AF_INET6, v6[i].in, a);
		memset(out, 'X', sizeof(out));
		n = klb_ip_text(true, a, out);
		tap_ok(n == strlen(v6[i].want) && !memcmp(out, v6[i].want, n) &&
		       out[n] == 'X',
		       "ipv6 %s -> %s (got %.*s)", v6[i].in, v6[i].want, (int)n,
		       out);
	}
	for (i = 0; i < ARRAY_SIZE(v4); i++) {
		inet_pton(AF_INET, v4[i], a);
		n = klb_ip_text(false, a, out);
		tap_ok(n == strlen(v4[i]) && !memcmp(out, v4[i], n),
		       "ipv4 %s", v4[i]);
	}
	/* the longest text fits the documented maximum */
	inet_pton(AF_INET6, "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff", a);
	tap_ok(klb_ip_text(true, a, out) <= KLB_IP_TEXT_MAX, "ipv6 max length");
}

/* Every 16-byte address formats as something inet_pton reads back. */
static void test_ip_text_roundtrip(void)
{
	u8 a[16], b[16], out[KLB_IP_TEXT_MAX + 1];
	u32 i, j, n, bad = 0;

	for (i = 0; i < 20000; i++) {
		for (j = 0; j < 16; j++)	/* plenty of zero groups */
			a[j] = rnd() % 3 ? 0 : rnd();
		if (i % 50 == 0)
			memcpy(a, "\0\0\0\0\0\0\0\0\0\0\xff\xff", 12);
		n = klb_ip_text(true, a, out);
		out[n] = '\0';
		if (inet_pton(AF_INET6, (char *)out, b) != 1 || memcmp(a, b, 16)) {
			if (!bad++)
				tap_diag("bad text %s", out);
		}
	}
	tap_ok(!bad, "ipv6 text reads back as the same address (%u bad)", bad);
}

/* ---- generated responses -------------------------------------------------- */

static void test_error_response(void)
{
	static const char want503[] =
		"HTTP/1.1 503 Service Unavailable\r\n"
		"Content-Type: text/plain\r\n"
		"Content-Length: 24\r\n"
		"Connection: close\r\n"
		"\r\n"
		"503 Service Unavailable\n";
	static const u16 codes[] = { 400, 408, 431, 501, 502, 503, 504, 505, 599 };
	u8 out[KLB_HTTP_ERR_RESP_MAX];
	u32 i, n, cap, cl;
	char *body;
	bool ok;

	n = klb_http_error_response(503, out, sizeof(out));
	tap_ok(n == strlen(want503) && !memcmp(out, want503, n),
	       "503 response exact bytes");

	for (i = 0; i < ARRAY_SIZE(codes); i++) {
		char s[KLB_HTTP_ERR_RESP_MAX + 1];
		struct klb_http_msg m;

		n = klb_http_error_response(codes[i], out, sizeof(out));
		memcpy(s, out, n);
		s[n] = '\0';
		body = strstr(s, "\r\n\r\n");
		ok = n && body && sscanf(strstr(s, "Content-Length: "),
					 "Content-Length: %u", &cl) == 1 &&
		     cl == strlen(body + 4);
		/* it is a response our own parser accepts, with that body */
		ok = ok && parse_msg(&m, s, n, true, KLB_HTTP_M_GET) ==
			   KLB_HTTP_OK && m.status == codes[i] &&
		     m.body == KLB_HTTP_BODY_LENGTH && m.content_length == cl &&
		     !(m.flags & KLB_HTTP_F_PERSISTENT);
		tap_ok(ok, "%u response: Content-Length matches, parses (%s)",
		       codes[i], esc(s, n));
		for (cap = 0, ok = true; cap < n; cap++) {
			u8 *b = malloc(cap ? cap : 1);

			ok &= klb_http_error_response(codes[i], b, cap) == 0;
			free(b);
		}
		tap_ok(ok, "%u response: every smaller buffer refused", codes[i]);
	}
}

/* ---- PROXY v2 ------------------------------------------------------------ */

static void test_proxy_v2(void)
{
	static const u8 want4[] = {
		0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49,
		0x54, 0x0a, 0x21, 0x11, 0x00, 0x0c,
		192, 0, 2, 1,  198, 51, 100, 7,
		0xd4, 0x31,  0x00, 0x50,
	};
	u8 src[16], dst[16], out[KLB_PROXY_V2_MAX];
	u32 n;

	inet_pton(AF_INET, "192.0.2.1", src);
	inet_pton(AF_INET, "198.51.100.7", dst);
	n = klb_proxy_v2_build(out, false, src, 54321, dst, 80);
	tap_ok(n == sizeof(want4) && !memcmp(out, want4, n),
	       "PROXY v2 IPv4 header exact bytes");

	inet_pton(AF_INET6, "2001:db8::1", src);
	inet_pton(AF_INET6, "2001:db8::2", dst);
	n = klb_proxy_v2_build(out, true, src, 1, dst, 443);
	tap_ok(n == 52 && out[12] == 0x21 && out[13] == 0x21 &&
	       out[14] == 0 && out[15] == 36 && !memcmp(out + 16, src, 16) &&
	       !memcmp(out + 32, dst, 16) && out[48] == 0 && out[49] == 1 &&
	       out[50] == 0x01 && out[51] == 0xbb,
	       "PROXY v2 IPv6 header: family, length, addresses, ports");
}

/* ---- request heads -------------------------------------------------------- */

struct rw_case {
	const char *what;
	const char *in;
	const char *want;
};

static const struct rw_case req_cases[] = {
	{ "1.1: XFF added, nothing else changes",
	  "GET /a?b HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n\r\n",
	  "GET /a?b HTTP/1.1\r\nHost: x\r\nAccept: */*\r\n"
	  "X-Forwarded-For: 192.0.2.1\r\n\r\n" },
	{ "1.0: asks the backend for keep-alive",
	  "GET / HTTP/1.0\r\n\r\n",
	  "GET / HTTP/1.0\r\nX-Forwarded-For: 192.0.2.1\r\n"
	  "Connection: keep-alive\r\n\r\n" },
	{ "1.0 keep-alive: Connection replaced, not doubled",
	  "GET / HTTP/1.0\r\nConnection: Keep-Alive\r\nKeep-Alive: 300\r\n\r\n",
	  "GET / HTTP/1.0\r\nX-Forwarded-For: 192.0.2.1\r\n"
	  "Connection: keep-alive\r\n\r\n" },
	{ "Connection: close is not forwarded (the backend conn persists)",
	  "POST /p HTTP/1.1\r\nHost: x\r\nConnection: close\r\n"
	  "Content-Length: 3\r\n\r\n",
	  "POST /p HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\n"
	  "X-Forwarded-For: 192.0.2.1\r\n\r\n" },
	{ "hop-by-hop: Keep-Alive, Proxy-Connection, Upgrade, named fields",
	  "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, x-secret ,Foo\r\n"
	  "Upgrade: websocket\r\nX-Secret: 1\r\nfoo: 2\r\nFoobar: 3\r\n"
	  "Keep-Alive: timeout=5\r\nProxy-Connection: keep-alive\r\n"
	  "TE: trailers\r\n\r\n",
	  "GET / HTTP/1.1\r\nHost: x\r\nFoobar: 3\r\nTE: trailers\r\n"
	  "X-Forwarded-For: 192.0.2.1\r\n\r\n" },
	{ "framing fields and Host survive being named in Connection",
	  "POST / HTTP/1.1\r\nHost: x\r\n"
	  "Connection: content-length, Transfer-Encoding, host\r\n"
	  "Transfer-Encoding: chunked\r\n\r\n",
	  "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n"
	  "X-Forwarded-For: 192.0.2.1\r\n\r\n" },
	{ "several Connection lines are all honoured",
	  "GET / HTTP/1.1\r\nConnection: a\r\nHost: x\r\nA: 1\r\nB: 2\r\n"
	  "Connection: b\r\nC: 3\r\n\r\n",
	  "GET / HTTP/1.1\r\nHost: x\r\nC: 3\r\n"
	  "X-Forwarded-For: 192.0.2.1\r\n\r\n" },
	{ "XFF present: client appended",
	  "GET / HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 10.0.0.1\r\n"
	  "Accept: */*\r\n\r\n",
	  "GET / HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 10.0.0.1, 192.0.2.1\r\n"
	  "Accept: */*\r\n\r\n" },
	{ "XFF twice: appended to the last one, trailing OWS dropped",
	  "GET / HTTP/1.1\r\nx-forwarded-for: 10.0.0.1\r\nHost: x\r\n"
	  "X-FORWARDED-FOR:10.0.0.2, 10.0.0.3 \t\r\n\r\n",
	  "GET / HTTP/1.1\r\nx-forwarded-for: 10.0.0.1\r\nHost: x\r\n"
	  "X-FORWARDED-FOR:10.0.0.2, 10.0.0.3, 192.0.2.1\r\n\r\n" },
	{ "XFF empty value",
	  "GET / HTTP/1.1\r\nHost: x\r\nX-Forwarded-For:  \r\n\r\n",
	  "GET / HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 192.0.2.1\r\n\r\n" },
	{ "XFF named in Connection: dropped, a fresh one added",
	  "GET / HTTP/1.1\r\nHost: x\r\nConnection: x-forwarded-for\r\n"
	  "X-Forwarded-For: 6.6.6.6\r\n\r\n",
	  "GET / HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 192.0.2.1\r\n\r\n" },
	{ "leading CRLFs before the request are not forwarded",
	  "\r\n\r\nGET / HTTP/1.1\r\nHost: x\r\n\r\n",
	  "GET / HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 192.0.2.1\r\n\r\n" },
	{ "absolute-form target and Expect forwarded as is, Host from it",
	  "PUT http://h:8080/u HTTP/1.1\r\nHost: h:8080\r\n"
	  "Expect: 100-continue\r\nContent-Length: 10\r\n\r\n",
	  "PUT http://h:8080/u HTTP/1.1\r\nHost: h:8080\r\n"
	  "Expect: 100-continue\r\nContent-Length: 10\r\n"
	  "X-Forwarded-For: 192.0.2.1\r\n\r\n" },
	{ "absolute-form: a different Host is replaced by the authority",
	  "GET http://a.example:81/p?q HTTP/1.1\r\nAccept: */*\r\n"
	  "HOST: b.example\r\n\r\n",
	  "GET http://a.example:81/p?q HTTP/1.1\r\nHost: a.example:81\r\n"
	  "Accept: */*\r\nX-Forwarded-For: 192.0.2.1\r\n\r\n" },
	{ "absolute-form HTTP/1.0 without Host: the authority is added",
	  "GET https://a.example/ HTTP/1.0\r\n\r\n",
	  "GET https://a.example/ HTTP/1.0\r\nHost: a.example\r\n"
	  "X-Forwarded-For: 192.0.2.1\r\nConnection: keep-alive\r\n\r\n" },
};

static void check_case(const struct rw_case *c, const char *want, bool resp,
		       u8 conn)
{
	u32 wlen = strlen(want), cap;
	char out[4096];
	int rc;
	bool ok = true;

	rc = rewrite(c->in, resp, conn, "192.0.2.1", 4096, out);
	if (!tap_ok(rc == (int)wlen && !memcmp(out, want, wlen), "%s", c->what)) {
		tap_diag("got  %s", rc > 0 ? esc(out, rc) : "error");
		tap_diag("want %s", esc(want, wlen));
		return;
	}
	/* exactly enough room works; one byte less is refused */
	for (cap = 0; cap <= wlen; cap++) {
		rc = rewrite(c->in, resp, conn, "192.0.2.1", cap, out);
		if (cap < wlen ? rc != -1 : rc != (int)wlen) {
			tap_diag("cap %u: rc %d", cap, rc);
			ok = false;
			break;
		}
	}
	tap_ok(ok, "%s: bounded output", c->what);
}

static void test_request_rewrite(void)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(req_cases); i++)
		check_case(&req_cases[i], req_cases[i].want, false, 0);
}

/* A relayed upgrade (klb_http_wants_upgrade()): Upgrade kept, Connection says so. */
static const struct rw_case upgrade_cases[] = {
	{ "upgrade: Upgrade kept, Connection: Upgrade, named fields still dropped",
	  "GET /ws HTTP/1.1\r\nHost: x\r\nConnection: keep-alive, Upgrade, x-secret\r\n"
	  "Upgrade: websocket\r\nX-Secret: 1\r\nSec-WebSocket-Key: k==\r\n"
	  "Sec-WebSocket-Version: 13\r\nKeep-Alive: 5\r\n\r\n",
	  "GET /ws HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\n"
	  "Sec-WebSocket-Key: k==\r\nSec-WebSocket-Version: 13\r\n"
	  "X-Forwarded-For: 192.0.2.1\r\nConnection: Upgrade\r\n\r\n" },
	{ "upgrade h2c: Upgrade kept, HTTP2-Settings (named in Connection) dropped",
	  "GET / HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\n"
	  "Upgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n",
	  "GET / HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\n"
	  "X-Forwarded-For: 192.0.2.1\r\nConnection: Upgrade\r\n\r\n" },
};

static void test_upgrade_rewrite(void)
{
	static const struct rw_case resp101 = {
		"101: Upgrade kept, Connection: Upgrade",
		"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
		"Connection: Upgrade\r\nSec-WebSocket-Accept: a=\r\n\r\n",
		"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
		"Sec-WebSocket-Accept: a=\r\nConnection: Upgrade\r\n\r\n",
	};
	u32 i;

	rw_upgrade = true;
	for (i = 0; i < ARRAY_SIZE(upgrade_cases); i++)
		check_case(&upgrade_cases[i], upgrade_cases[i].want, false, 0);
	rw_upgrade = false;
	check_case(&resp101, resp101.want, true, KLB_HTTP_RW_CONN_UPGRADE);
}

static void test_request_ipv6(void)
{
	static const char in[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
	static const char want[] =
		"GET / HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 2001:db8::7\r\n\r\n";
	char out[256];
	int rc;

	rc = rewrite(in, false, 0, "2001:db8::7", sizeof(out), out);
	tap_ok(rc == (int)strlen(want) && !memcmp(out, want, rc),
	       "IPv6 client in XFF, plain text");
}

/* ---- response heads ------------------------------------------------------- */

static const struct {
	struct rw_case c;
	u8 conn;
} resp_cases[] = {
	{ { "response: Connection and Keep-Alive dropped, nothing added",
	    "HTTP/1.1 200 OK\r\nConnection: keep-alive\r\nKeep-Alive: timeout=5\r\n"
	    "Content-Length: 2\r\n\r\n",
	    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n" },
	  KLB_HTTP_RW_CONN_NONE },
	{ { "response: Connection: close added",
	    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n",
	    "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n" },
	  KLB_HTTP_RW_CONN_CLOSE },
	{ { "response: keep-alive for a persistent 1.0 client",
	    "HTTP/1.1 204 No Content\r\nConnection: close\r\n\r\n",
	    "HTTP/1.1 204 No Content\r\nConnection: keep-alive\r\n\r\n" },
	  KLB_HTTP_RW_CONN_KEEPALIVE },
	{ { "response: named fields dropped, framing and Upgrade kept",
	    "HTTP/1.1 426 Upgrade Required\r\nConnection: X-Hop, transfer-encoding\r\n"
	    "X-Hop: 1\r\nUpgrade: h2c\r\nTransfer-Encoding: chunked\r\n\r\n",
	    "HTTP/1.1 426 Upgrade Required\r\nUpgrade: h2c\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n" },
	  KLB_HTTP_RW_CONN_NONE },
	{ { "response: status line without reason copied as is",
	    "HTTP/1.0 200\r\nContent-Length: 0\r\n\r\n",
	    "HTTP/1.0 200\r\nContent-Length: 0\r\nConnection: close\r\n\r\n" },
	  KLB_HTTP_RW_CONN_CLOSE },
	{ { "interim response: passes through",
	    "HTTP/1.1 100 Continue\r\n\r\n",
	    "HTTP/1.1 100 Continue\r\n\r\n" },
	  KLB_HTTP_RW_CONN_NONE },
};

static void test_response_rewrite(void)
{
	u32 i;

	for (i = 0; i < ARRAY_SIZE(resp_cases); i++)
		check_case(&resp_cases[i].c, resp_cases[i].c.want, true,
			   resp_cases[i].conn);
}

/* ---- the persistence cookie -------------------------------------------- */

/* Rewrite a response head with a Set-Cookie into exactly @cap bytes. */
static int rewrite_ck(const char *head, const char *name, u64 id, u8 conn,
		      u32 cap, char *out)
{
	struct klb_http_set_cookie ck = {
		.name = (const u8 *)name, .name_len = strlen(name), .id = id,
	};
	struct klb_http_msg m;
	u8 *buf = malloc(cap ? cap : 1);
	int rc;

	if (parse_msg(&m, head, strlen(head), true, KLB_HTTP_M_GET) !=
	    KLB_HTTP_OK) {
		free(buf);
		return -100;
	}
	rc = klb_http_rewrite_resp((const u8 *)head, &m, conn, &ck, buf, cap);
	if (rc > 0)
		memcpy(out, buf, rc);
	free(buf);
	return rc;
}

static void test_set_cookie(void)
{
	static const char head[] =
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n"
		"Set-Cookie: app=1\r\nConnection: keep-alive\r\n\r\n";
	static const char want[] =
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n"
		"Set-Cookie: app=1\r\n"
		"Set-Cookie: SRV=0123456789abcdef; Path=/; HttpOnly\r\n"
		"Connection: close\r\n\r\n";
	char name[KLB_HTTP_COOKIE_NAME_MAX + 1], big[2048], out[4096];
	struct klb_http_msg m;
	u32 cap, n, bad = 0;
	int rc, full;

	rc = rewrite_ck(head, "SRV", 0x0123456789abcdefULL,
			KLB_HTTP_RW_CONN_CLOSE, sizeof(out), out);
	tap_ok(rc == (int)strlen(want) && !memcmp(out, want, rc),
	       "Set-Cookie added after the backend's fields, before Connection (%s)",
	       rc > 0 ? esc(out, rc) : "error");
	tap_ok(rc > 0 && parse_msg(&m, out, rc, true, KLB_HTTP_M_GET) ==
	       KLB_HTTP_OK && m.body == KLB_HTTP_BODY_LENGTH &&
	       m.content_length == 3, "the head with Set-Cookie parses, same framing");
	rc = rewrite_ck(head, "SRV", 0xfULL, KLB_HTTP_RW_CONN_NONE, sizeof(out),
			out);
	tap_ok(rc > 0 && strstr(out, "SRV=000000000000000f; Path=/; HttpOnly\r\n"),
	       "an id is always 16 hex digits, leading zeros kept");

	/* the longest name, on a big head, fits the documented growth */
	memset(name, 'n', KLB_HTTP_COOKIE_NAME_MAX);
	name[KLB_HTTP_COOKIE_NAME_MAX] = '\0';
	n = sprintf(big, "HTTP/1.0 404 Not Found\r\nX-Pad: ");
	memset(big + n, 'p', 1500);
	n += 1500;
	n += sprintf(big + n, "\r\nContent-Length: 0\r\n\r\n");
	full = rewrite_ck(big, name, ~0ULL, KLB_HTTP_RW_CONN_KEEPALIVE,
			  n + KLB_HTTP_RW_GROWTH + KLB_HTTP_RW_COOKIE_GROWTH, out);
	tap_ok(full > 0 && (u32)full <= n + KLB_HTTP_RW_GROWTH +
					  KLB_HTTP_RW_COOKIE_GROWTH,
	       "longest name: fits in head + RW_GROWTH + RW_COOKIE_GROWTH (%d)",
	       full);
	/* every smaller buffer: refused, never a write past it (ASan) */
	for (cap = 0; cap < (u32)full; cap++) {
		char o2[4096];

		if (rewrite_ck(big, name, ~0ULL, KLB_HTTP_RW_CONN_KEEPALIVE,
			       cap, o2) != -1)
			bad++;
	}
	tap_ok(!bad, "Set-Cookie: every buffer smaller than the head is refused (%u bad)",
	       bad);
}

/* ---- properties over random heads --------------------------------------- */

static const char *const field_pool[] = {
	"Host: example.com", "Accept: */*", "Connection: close",
	"Connection: keep-alive", "Connection: x-a, upgrade", "Connection: ,,",
	"X-A: 1", "x-a: 2", "Keep-Alive: 5", "Upgrade: websocket",
	"Proxy-Connection: close", "X-Forwarded-For: 10.1.1.1",
	"x-forwarded-for:", "Content-Length: 5", "Transfer-Encoding: chunked",
	"Connection: Content-Length, Transfer-Encoding, Host",
	"Cookie: a=b; c=d", "Expect: 100-continue", "TE: trailers",
	"Connection: x-forwarded-for",
};

static u32 build_head(char *h, bool v10)
{
	u32 n, i, k = rnd() % 8;

	n = sprintf(h, "%s %s HTTP/1.%c\r\n", rnd() % 2 ? "GET" : "POST",
		    rnd() % 2 ? "/x" : "http://example.com/y", v10 ? '0' : '1');
	for (i = 0; i < k; i++)
		n += sprintf(h + n, "%s\r\n",
			     field_pool[rnd() % ARRAY_SIZE(field_pool)]);
	n += sprintf(h + n, "\r\n");
	return n;
}

static bool has_field(const u8 *buf, const struct klb_http_msg *m,
		      const char *name)
{
	struct klb_http_span v;
	u32 cursor = 0;

	return klb_http_field_find(buf, m, name, strlen(name), &cursor, &v);
}

/*
 * Whatever the head, the rewritten one parses with the same framing,
 * target and Host, carries no hop-by-hop field but our own, and ends
 * its (last) X-Forwarded-For with the client.
 */
static void test_properties(void)
{
	char h[1024];
	u8 out[1024 + KLB_HTTP_RW_GROWTH];
	struct klb_http_msg a, b;
	struct klb_http_span v, last;
	u32 i, n, tried = 0, bad = 0, cursor;
	int rc;

	for (i = 0; i < 20000; i++) {
		bool v10 = rnd() % 3 == 0;

		n = build_head(h, v10);
		if (parse_msg(&a, h, n, false, 0) != KLB_HTTP_OK)
			continue;
		tried++;
		rc = klb_http_rewrite_req((u8 *)h, &a, (const u8 *)"192.0.2.9", 9,
					  false, out, n + KLB_HTTP_RW_GROWTH);
		if (rc < 0 || parse_msg(&b, (char *)out, rc, false, 0) !=
		    KLB_HTTP_OK || b.body != a.body ||
		    b.content_length != a.content_length ||
		    b.method_id != a.method_id || b.version != a.version ||
		    b.target.len != a.target.len ||
		    memcmp(out + b.target.off, h + a.target.off, a.target.len) ||
		    b.host.len != a.host.len ||
		    memcmp(out + b.host.off, h + a.host.off, a.host.len) ||
		    has_field(out, &b, "keep-alive") ||
		    has_field(out, &b, "upgrade") ||
		    has_field(out, &b, "proxy-connection") ||
		    (!v10 && has_field(out, &b, "connection")) ||
		    !(b.flags & KLB_HTTP_F_PERSISTENT)) {
			if (!bad++)
				tap_diag("in %s -> %s", esc(h, n),
					 rc > 0 ? esc((char *)out, rc) : "error");
			continue;
		}
		/* the last X-Forwarded-For ends with the client */
		cursor = 0;
		last = (struct klb_http_span){ 0, 0 };
		while (klb_http_field_find(out, &b, "x-forwarded-for", 15,
					   &cursor, &v))
			last = v;
		if (last.len < 9 ||
		    memcmp(out + last.off + last.len - 9, "192.0.2.9", 9)) {
			if (!bad++)
				tap_diag("xff in %s", esc((char *)out, rc));
		}
	}
	tap_ok(tried > 1000 && !bad,
	       "random heads: rewrite keeps framing, drops hop-by-hop (%u of %u bad)",
	       bad, tried);
}

int main(void)
{
	rng_state = 7;
	test_ip_text();
	test_ip_text_roundtrip();
	test_error_response();
	test_proxy_v2();
	test_request_rewrite();
	test_upgrade_rewrite();
	test_request_ipv6();
	test_response_rewrite();
	test_set_cookie();
	test_properties();
	return tap_done();
}
