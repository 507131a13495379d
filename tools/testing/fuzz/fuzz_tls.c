// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for kmod/l7/parse/tls_sni.c: arbitrary bytes as the start of
 * a client's stream. Invariants: a NEED_MORE hint lies beyond what was
 * given and within KLB_TLS_BUF_MAX; an SNI is a lowercase, non-empty,
 * NUL-terminated LDH name; hello_end is inside the buffer; and reading
 * the stream by following the hints gives the same answer as reading it
 * whole, with strictly growing hints (so a caller never spins).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tls_sni.h"
#include "fuzz_check.h"

static int parse_copy(const u8 *buf, u32 len, struct klb_tls_hello *h)
{
	u8 *copy = malloc(len ? len : 1);
	int rc;

	memcpy(copy, buf, len);
	rc = klb_tls_parse_hello(copy, len, h);
	free(copy);
	return rc;
}

static void check_result(int rc, u32 len, const struct klb_tls_hello *h)
{
	u32 i;

	CHECK(rc <= KLB_TLS_NEED_MORE && rc >= -KLB_TLS_E_MAX);
	CHECK(klb_tls_err_name(rc) != NULL);
	if (rc == KLB_TLS_NEED_MORE)
		CHECK(h->need > len && h->need <= KLB_TLS_BUF_MAX);
	if (rc == KLB_TLS_OK || rc == KLB_TLS_OK_NO_SNI)
		/* The record ending the hello may still be incomplete. */
		CHECK(h->hello_end > 5 && h->hello_end <= KLB_TLS_BUF_MAX);
	if (rc == KLB_TLS_OK) {
		CHECK(h->sni_len > 0 && h->sni_len <= KLB_TLS_SNI_MAX);
		CHECK(h->sni[h->sni_len] == '\0');
		CHECK(h->sni[0] != '.' && h->sni[h->sni_len - 1] != '.');
		for (i = 0; i < h->sni_len; i++)
			CHECK((h->sni[i] >= 'a' && h->sni[i] <= 'z') ||
			      (h->sni[i] >= '0' && h->sni[i] <= '9') ||
			      h->sni[i] == '-' || h->sni[i] == '_' ||
			      h->sni[i] == '.');
	}
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct klb_tls_hello whole, part;
	u32 len = 0, prev = 0;
	int rc, rp;

	if (size > KLB_TLS_BUF_MAX + 64)
		return 0;
	rc = parse_copy(data, size, &whole);
	check_result(rc, size, &whole);

	/* Follow the hints, as the kernel caller will. */
	for (;;) {
		rp = parse_copy(data, len, &part);
		check_result(rp, len, &part);
		if (rp != KLB_TLS_NEED_MORE || part.need > size)
			break;
		CHECK(part.need > prev);
		prev = part.need;
		len = part.need;
	}
	if (rp != KLB_TLS_NEED_MORE) {
		CHECK(rp == rc);
		if (rc == KLB_TLS_OK)
			CHECK(part.sni_len == whole.sni_len &&
			      !memcmp(part.sni, whole.sni, whole.sni_len));
		if (rc >= 0)
			CHECK(part.hello_end == whole.hello_end);
	} else if (rc >= 0 && rc != KLB_TLS_NEED_MORE) {
		/*
		 * Hints ask for whole records: the whole input may already
		 * hold the hello, but then its last record is incomplete.
		 */
		CHECK(whole.hello_end > size);
	}
	return 0;
}
