// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for kmod/l7/parse/http_cookie.c: finding the
 * persistence cookie in the Cookie fields of every request head the
 * parser accepts.
 *
 * Input: [0] the length of the cookie name (mod 8), then the name, then
 * the head. Invariants: every value found lies inside a field line of
 * the head (after its colon, before its CR) and holds no ';', CR or LF;
 * the iteration ends; klb_cookie_find_id() says yes exactly when one of
 * those values is an id, and returns the first such id; an id's text
 * reads back as the same id. The head is an exact-size heap copy (ASan).
 */
#include <stdlib.h>
#include <string.h>

#include "http_cookie.h"
#include "fuzz_check.h"

static const struct klb_http_limits lim = {
	.max_line = 4096, .max_head = 16384, .max_fields = 256,
};

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct klb_cookie_cursor c = { 0 };
	struct klb_http_msg m;
	struct klb_http_span v;
	u8 text[KLB_HTTP_COOKIE_VALUE_LEN];
	u64 id, first = 0, got, back;
	bool any = false;
	u32 nlen, len, n = 0, e;
	const u8 *name;
	u8 *buf;

	if (size < 1 || size > 16384)
		return 0;
	nlen = data[0] % 8;
	if (size < 1 + nlen)
		return 0;
	name = data + 1;
	len = size - 1 - nlen;
	buf = malloc(len ? len : 1);
	memcpy(buf, data + 1 + nlen, len);
	klb_http_req_init(&m);
	if (klb_http_parse(&m, buf, len, &lim) != KLB_HTTP_OK) {
		free(buf);
		return 0;
	}

	while (klb_cookie_next(buf, &m, name, nlen, &c, &v)) {
		CHECK(++n <= m.head_len);	/* it ends */
		CHECK(nlen > 0);
		CHECK(v.off >= m.fields_start && v.off + v.len <= m.head_len);
		/* inside one field line */
		for (e = v.off; e < v.off + v.len; e++)
			CHECK(buf[e] != ';' && buf[e] != '\r' && buf[e] != '\n');
		CHECK(buf[v.off + v.len] != '\n');
		if (!any && klb_cookie_value_id(buf + v.off, v.len, &id)) {
			any = true;
			first = id;
		}
	}
	got = ~first;
	CHECK(klb_cookie_find_id(buf, &m, name, nlen, &got) == any);
	CHECK(!any || got == first);
	if (any) {
		klb_cookie_value_text(first, text);
		CHECK(klb_cookie_value_id(text, sizeof(text), &back) &&
		      back == first);
	}
	free(buf);
	return 0;
}
