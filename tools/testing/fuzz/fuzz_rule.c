// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for kmod/l7/parse/rule_match.c. Input: six NUL-separated
 * strings (host, path, header name, header value, method, sni) for one
 * rule, a byte saying which matchers are set, then a request head and an
 * SNI. Invariants: prepare never overruns and is idempotent; a prepared
 * rule matches without crashing; a host rule built from the request's
 * own Host matches it; first-match over copies agrees with one match.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rule_match.h"
#include "fuzz_check.h"

static const struct klb_http_limits lim = {
	.max_line = 4096, .max_head = 8192, .max_fields = 64,
};

/* Next NUL-terminated piece of the input (or the rest of it). */
static u32 take(const u8 **d, size_t *n, char *out, u32 max)
{
	u32 i = 0;

	while (*n && **d) {
		if (i < max)
			out[i++] = **d;
		(*d)++;
		(*n)--;
	}
	if (*n) {
		(*d)++;
		(*n)--;
	}
	return i;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	static struct klb_rule r, r2, rules[3];
	struct klb_rule_input in;
	struct klb_http_msg m;
	const char *msg;
	u8 *head = NULL;
	char sni[256];
	u32 sni_len, i;
	int rc, first;
	bool hit;

	memset(&r, 0, sizeof(r));
	r.host_len = take(&data, &size, r.host, sizeof(r.host));
	r.path_len = take(&data, &size, r.path, sizeof(r.path));
	r.hname_len = take(&data, &size, r.hname, sizeof(r.hname));
	r.hvalue_len = take(&data, &size, r.hvalue, sizeof(r.hvalue));
	r.method_len = take(&data, &size, r.method, sizeof(r.method));
	r.sni_len = take(&data, &size, r.sni, sizeof(r.sni));
	if (!size)
		return 0;
	r.match = *data++ & 0x3f;
	size--;
	sni_len = take(&data, &size, sni, sizeof(sni));

	rc = klb_rule_prepare(&r, &msg);
	CHECK(rc <= 0);
	CHECK(rc ? msg != NULL : msg == NULL);
	if (rc)
		return 0;
	r2 = r;
	CHECK(klb_rule_prepare(&r2, &msg) == 0 && !memcmp(&r, &r2, sizeof(r)));

	memset(&in, 0, sizeof(in));
	head = malloc(size ? size : 1);
	memcpy(head, data, size);
	klb_http_req_init(&m);
	if (klb_http_parse(&m, head, size, &lim) == KLB_HTTP_OK)
		klb_rule_input_http(&in, head, &m);
	if (sni_len) {
		in.sni = (const u8 *)sni;
		in.sni_len = sni_len;
	}
	hit = klb_rule_match(&r, &in);
	rules[0] = r;
	/* Parsed methods are tokens: this rule can never match. */
	rules[0].match = KLB_RULE_M_METHOD;
	rules[0].method_len = 1;
	rules[0].method[0] = '\x01';
	rules[1] = r;
	rules[2] = r;
	first = klb_rules_first(rules, 3, &in);
	CHECK(first == (hit ? 1 : -1));

	/* A host rule made from the request's own host must match it. */
	if (in.host && in.host_len && in.host_len <= KLB_RULE_HOST_MAX) {
		memset(&r2, 0, sizeof(r2));
		r2.match = KLB_RULE_M_HOST;
		for (i = 0; i < in.host_len && in.host[i] != ':'; i++)
			r2.host[i] = in.host[i];
		r2.host_len = i;
		if (in.host[0] != '[' && klb_rule_prepare(&r2, &msg) == 0 &&
		    !r2.host_wild)
			CHECK(klb_rule_match(&r2, &in));
	}
	free(head);
	return 0;
}
