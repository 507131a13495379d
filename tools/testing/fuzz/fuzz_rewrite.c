// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for kmod/l7/parse/http_rewrite.c: request and response head
 * rewriting on every head the parser accepts.
 *
 * Input: [0] request or response, the Connection choice for a response
 * and the request method it answers, [1] output capacity below the
 * documented bound, and for a response whether a Set-Cookie is added
 * (odd) and its name's length, then the head. Invariants: the rewrite
 * fits in the head's length plus KLB_HTTP_RW_GROWTH (and
 * KLB_HTTP_RW_COOKIE_GROWTH with a cookie); a smaller buffer gives either
 * the same bytes or -1, never a write past it (ASan: exact heap copies);
 * the rewritten head parses again with the same start line and framing,
 * no hop-by-hop field is left but the Connection field we add (and
 * Upgrade, only for a request klb_http_wants_upgrade() and a response
 * rewritten with KLB_HTTP_RW_CONN_UPGRADE), and the
 * Set-Cookie field asked for is there, with the id as its value.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_rewrite.h"
#include "fuzz_check.h"

static const struct klb_http_limits lim = {
	.max_line = 4096, .max_head = 16384, .max_fields = 256,
};

/* Re-parsing: the rewrite may add two lines and some bytes. */
static const struct klb_http_limits lim_out = {
	.max_line = 4096,
	.max_head = 16384 + KLB_HTTP_RW_GROWTH + KLB_HTTP_RW_COOKIE_GROWTH,
	.max_fields = 259,
};

static const u8 ip[] = "2001:db8::1";

/* Cookie names: a prefix of this token, the longest allowed. */
static const u8 ck_name[KLB_HTTP_COOKIE_NAME_MAX + 1] =
	"SRV_abcdefghijklmnopqrstuvwxyz-0123456789.!#$%&'*+^`|~ABCDEFGHI";

static int rewrite(const u8 *d, const struct klb_http_msg *m, bool resp,
		   u8 conn, const struct klb_http_set_cookie *ck, u8 *out,
		   u32 cap)
{
	if (resp)
		return klb_http_rewrite_resp(d, m, conn, ck, out, cap);
	/* As the kernel does: Upgrade goes on only for an upgrade request. */
	return klb_http_rewrite_req(d, m, ip, sizeof(ip) - 1,
				    klb_http_wants_upgrade(m), out, cap);
}

/* The last Set-Cookie field is ours: NAME=VALUE; Path=/; HttpOnly */
static void check_cookie(const u8 *o, const struct klb_http_msg *b,
			 const struct klb_http_set_cookie *ck)
{
	struct klb_http_span v, last = { 0, 0 };
	u8 text[KLB_HTTP_COOKIE_VALUE_LEN];
	u32 cursor = 0, n = ck->name_len;
	static const char tail[] = "; Path=/; HttpOnly";

	while (klb_http_field_find(o, b, "set-cookie", 10, &cursor, &v))
		last = v;
	klb_cookie_value_text(ck->id, text);
	CHECK(last.len == n + 1 + sizeof(text) + sizeof(tail) - 1);
	CHECK(!memcmp(o + last.off, ck->name, n) && o[last.off + n] == '=');
	CHECK(!memcmp(o + last.off + n + 1, text, sizeof(text)));
	CHECK(!memcmp(o + last.off + n + 1 + sizeof(text), tail,
		      sizeof(tail) - 1));
}

static bool has_field(const u8 *buf, const struct klb_http_msg *m,
		      const char *name)
{
	struct klb_http_span v;
	u32 cursor = 0;

	return klb_http_field_find(buf, m, name, strlen(name), &cursor, &v);
}

static void check_same(const u8 *d, const struct klb_http_msg *a,
		       const u8 *o, const struct klb_http_msg *b, bool resp,
		       u8 conn)
{
	u32 sl;

	/* the start line, byte for byte */
	for (sl = a->head_start; d[sl] != '\r'; sl++)
		;
	sl -= a->head_start;
	CHECK(!memcmp(o, d + a->head_start, sl) && o[sl] == '\r');
	CHECK(b->body == a->body && b->content_length == a->content_length &&
	      b->version == a->version && b->status == a->status);
	CHECK(!has_field(o, b, "keep-alive"));
	CHECK(!has_field(o, b, "proxy-connection"));
	if (resp) {
		CHECK(conn != KLB_HTTP_RW_CONN_NONE ||
		      !has_field(o, b, "connection"));
		CHECK(conn != KLB_HTTP_RW_CONN_CLOSE ||
		      (b->flags & KLB_HTTP_F_CONN_CLOSE));
		CHECK(conn != KLB_HTTP_RW_CONN_KEEPALIVE ||
		      (b->flags & KLB_HTTP_F_CONN_KEEPALIVE));
		CHECK(conn != KLB_HTTP_RW_CONN_UPGRADE ||
		      (b->flags & KLB_HTTP_F_CONN_UPGRADE));
		return;
	}
	CHECK(b->method_id == a->method_id);
	CHECK(b->target.len == a->target.len &&
	      !memcmp(o + b->target.off, d + a->target.off, a->target.len));
	CHECK(b->host.len == a->host.len &&
	      !memcmp(o + b->host.off, d + a->host.off, a->host.len));
	/* Upgrade only when relayed, and then Connection says upgrade */
	if (klb_http_wants_upgrade(a))
		CHECK((b->flags & KLB_HTTP_F_CONN_UPGRADE) &&
		      has_field(o, b, "upgrade") && klb_http_wants_upgrade(b));
	else
		CHECK(!has_field(o, b, "upgrade"));
	/* whatever the client asked, the backend connection may persist */
	CHECK(b->flags & KLB_HTTP_F_PERSISTENT);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct klb_http_set_cookie ck, *ckp = NULL;
	struct klb_http_msg a, b;
	bool resp;
	u8 conn, *out, *small;
	u32 n, cap;
	int rc, rs;

	if (size < 2 || size > 16384)
		return 0;
	resp = data[0] & 1;
	conn = (data[0] >> 1) % 4;
	n = size - 2;
	if (resp)
		klb_http_resp_init(&a, (data[0] >> 3) % 10);
	else
		klb_http_req_init(&a);
	if (klb_http_parse(&a, data + 2, n, &lim) != KLB_HTTP_OK)
		return 0;
	if (resp && (data[1] & 1)) {
		ck.name = ck_name;
		ck.name_len = 1 + (data[1] >> 1) % KLB_HTTP_COOKIE_NAME_MAX;
		ck.id = (u64)data[0] << 56 | (u64)n * 0x9e3779b97f4a7c15ULL;
		ckp = &ck;
	}

	cap = a.head_len - a.head_start + KLB_HTTP_RW_GROWTH +
	      (ckp ? KLB_HTTP_RW_COOKIE_GROWTH : 0);
	out = malloc(cap);
	rc = rewrite(data + 2, &a, resp, conn, ckp, out, cap);
	CHECK(rc > 0 && (u32)rc <= cap);

	/* a smaller buffer: the same bytes, or refused */
	cap = data[1] * (u32)rc / 255;
	small = malloc(cap ? cap : 1);
	rs = rewrite(data + 2, &a, resp, conn, ckp, small, cap);
	CHECK(rs == -1 || (rs == rc && !memcmp(small, out, rc)));
	free(small);

	if (resp)
		klb_http_resp_init(&b, (data[0] >> 3) % 10);
	else
		klb_http_req_init(&b);
	small = malloc(rc);
	memcpy(small, out, rc);
	CHECK(klb_http_parse(&b, small, rc, &lim_out) == KLB_HTTP_OK);
	CHECK(b.head_len == (u32)rc && b.head_start == 0);
	check_same(data + 2, &a, small, &b, resp, conn);
	if (ckp)
		check_cookie(small, &b, ckp);
	free(small);
	free(out);
	return 0;
}
