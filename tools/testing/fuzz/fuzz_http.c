// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for kmod/l7/parse/http_parse.c: the request and response
 * head parsers and the chunked decoder, on arbitrary bytes and limits.
 *
 * Input: [0] mode (request / response / chunked) and the request method
 * a response answers, [1] limits selector, [2] piece size for the split
 * run, then the message bytes. Invariants: results lie inside the buffer,
 * and feeding the bytes in pieces gives the same answer as in one piece.
 * Every parse reads from a heap copy of exactly the bytes it is given.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "http_parse.h"
#include "fuzz_check.h"

static int parse_copy(struct klb_http_msg *m, const u8 *buf, u32 len,
		      const struct klb_http_limits *lim)
{
	u8 *copy = malloc(len ? len : 1);
	int rc;

	memcpy(copy, buf, len);
	rc = klb_http_parse(m, copy, len, lim);
	free(copy);
	return rc;
}

static void check_span(struct klb_http_span s, u32 end)
{
	CHECK(s.off <= end && s.len <= end - s.off);
}

static void msg_init(struct klb_http_msg *m, bool resp, u8 method)
{
	if (resp)
		klb_http_resp_init(m, method);
	else
		klb_http_req_init(m);
}

static void fuzz_head(const u8 *d, u32 n, bool resp, u8 method,
		      const struct klb_http_limits *lim, u32 piece)
{
	struct klb_http_msg whole, part;
	struct klb_http_span v;
	u32 at = 0, cursor = 0, fields = 0, i;
	int rc, rp;

	msg_init(&whole, resp, method);
	rc = parse_copy(&whole, d, n, lim);
	CHECK(rc == KLB_HTTP_OK || rc == KLB_HTTP_NEED_MORE ||
	      (rc < 0 && rc >= -KLB_HTTP_E_MAX));
	CHECK(klb_http_err_status(rc) >= 400);
	CHECK(klb_http_err_name(rc) != NULL);
	if (rc == KLB_HTTP_OK) {
		CHECK(whole.head_len <= n && whole.head_start < whole.head_len);
		CHECK(whole.head_len >= 4 && d[whole.head_len - 1] == '\n' &&
		      d[whole.head_len - 2] == '\r');
		CHECK(whole.head_len - whole.head_start <= lim->max_head);
		CHECK(whole.fields <= lim->max_fields);
		check_span(whole.method, whole.head_len);
		check_span(whole.target, whole.head_len);
		check_span(whole.path, whole.head_len);
		check_span(whole.host, whole.head_len);
		check_span(whole.reason, whole.head_len);
		CHECK(whole.version == 10 || whole.version == 11);
		CHECK(whole.body <= KLB_HTTP_BODY_TUNNEL);
		CHECK(!((whole.flags & KLB_HTTP_F_CHUNKED) &&
			(whole.flags & KLB_HTTP_F_CONTENT_LENGTH)));
		if (!resp)
			CHECK(whole.body != KLB_HTTP_BODY_CLOSE &&
			      whole.body != KLB_HTTP_BODY_TUNNEL);
		else
			CHECK(whole.status >= 100 && whole.status <= 599);
		/* Walk every field line: the lookup must see all of them. */
		while (klb_http_field_find(d, &whole, "x", 1, &cursor, &v))
			check_span(v, whole.head_len);
		/* Field lines are exactly the LFs between start line and end. */
		for (i = whole.fields_start; i + 2 < whole.head_len; i++)
			fields += d[i] == '\n';
		CHECK(fields == whole.fields);
	}

	/* The same bytes in pieces of @piece (the last one may be shorter). */
	msg_init(&part, resp, method);
	do {
		at = at + piece < n ? at + piece : n;
		rp = parse_copy(&part, d, at, lim);
	} while (rp == KLB_HTTP_NEED_MORE && at < n);
	CHECK(rp == rc);
	if (rc == KLB_HTTP_OK)
		CHECK(part.head_len == whole.head_len && part.flags == whole.flags &&
		      part.body == whole.body && part.fields == whole.fields &&
		      part.content_length == whole.content_length &&
		      part.host.off == whole.host.off && part.host.len == whole.host.len &&
		      part.path.off == whole.path.off && part.path.len == whole.path.len);
}

/*
 * Decode @d fed in pieces; returns rc, data bytes hashed, end offset.
 * @skip: payload is not fed but skipped (the relay's zero-copy path).
 */
static int chunk_run(const u8 *d, u32 n, u32 piece, u32 max_trailer,
		     bool skip, u64 *sum, u32 *ndata, u32 *end)
{
	struct klb_chunk c;
	u32 off = 0, used, len, i;
	int rc = KLB_CHUNK_FRAMING;
	u64 left;
	u8 *copy;

	klb_chunk_init(&c, max_trailer);
	*sum = 0;
	*ndata = 0;
	while (off < n) {
		len = piece < n - off ? piece : n - off;
		left = skip ? klb_chunk_data_left(&c) : 0;
		if (left) {
			len = left < len ? (u32)left : len;
			for (i = 0; i < len; i++)
				*sum = *sum * 31 + d[off + i];
			*ndata += len;
			klb_chunk_skip(&c, len);
			CHECK(klb_chunk_data_left(&c) == left - len);
			off += len;
			rc = KLB_CHUNK_DATA;	/* what feeding it would have said */
			continue;
		}
		copy = malloc(len);
		memcpy(copy, d + off, len);
		rc = klb_chunk_feed(&c, copy, len, &used);
		if (rc < 0) {
			free(copy);
			CHECK(rc >= -KLB_HTTP_E_MAX);
			/* Errors are sticky. */
			CHECK(klb_chunk_feed(&c, d, n, &used) == rc);
			break;
		}
		CHECK(used > 0 && used <= len);
		if (rc == KLB_CHUNK_DATA) {
			for (i = 0; i < used; i++)
				*sum = *sum * 31 + copy[i];
			*ndata += used;
		}
		free(copy);
		off += used;
		if (rc == KLB_CHUNK_DONE)
			break;
	}
	*end = off;
	return rc;
}

static void fuzz_chunked(const u8 *d, u32 n, u32 piece, u32 max_trailer)
{
	u64 s1, s2, s3;
	u32 n1, n2, n3, e1, e2, e3;
	int r1, r2, r3;

	r1 = chunk_run(d, n, n ? n : 1, max_trailer, false, &s1, &n1, &e1);
	r2 = chunk_run(d, n, piece, max_trailer, false, &s2, &n2, &e2);
	r3 = chunk_run(d, n, piece, max_trailer, true, &s3, &n3, &e3);
	CHECK(r1 == r2 && r1 == r3);
	if (r1 >= 0)
		CHECK(s1 == s2 && n1 == n2 && e1 == e2 &&
		      s1 == s3 && n1 == n3 && e1 == e3);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	struct klb_http_limits lim;
	u32 piece;

	if (size < 3 || size > 1 << 16)
		return 0;
	lim.max_line = 8 + (data[1] & 3) * 60 + ((data[1] & 3) == 3) * 8000;
	lim.max_head = 32 + ((data[1] >> 2) & 3) * 200 + ((data[1] & 0x0c) == 0x0c) * 60000;
	lim.max_fields = 1 + ((data[1] >> 4) & 15) * 7;
	piece = 1 + data[2] % 64;
	switch (data[0] % 3) {
	case 0:
		fuzz_head(data + 3, size - 3, false, 0, &lim, piece);
		break;
	case 1:
		fuzz_head(data + 3, size - 3, true, (data[0] / 3) % 10, &lim, piece);
		break;
	default:
		fuzz_chunked(data + 3, size - 3, piece, lim.max_head);
		break;
	}
	return 0;
}
