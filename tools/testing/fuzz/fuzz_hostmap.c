// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for kmod/l7/parse/hostmap.c. Input: NUL-separated
 * strings; the first byte says how many of them are names for the map
 * (the rest are raw Host values to look up). Invariants: prepare never
 * overruns, is idempotent and gives a valid name; a prepared name is
 * found by lookup as it is, uppercased, with ":80" and with a trailing
 * dot; a lookup's hit is the stripped host, case-insensitively; a copy
 * without one entry finds all the others and not that one.
 */
#include <stdlib.h>
#include <string.h>

#include "hostmap.h"
#include "fuzz_check.h"

#define MAXN	64

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

static void *table(struct klb_hm *t, u32 cap, u32 names)
{
	void *mem = malloc(klb_hm_mem_size(cap, names));

	CHECK(mem);
	klb_hm_init(t, mem, cap, names, 0x0123456789abcdefULL, 42);
	return mem;
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	char raw[300], name[KLB_HM_NAME_MAX], again[KLB_HM_NAME_MAX];
	char var[KLB_HM_NAME_MAX + 8];
	struct klb_hm t, c;
	const struct klb_hm_entry *e;
	u32 len, len2, dup, i, k, want;
	const char *msg;
	void *mem, *cmem;

	if (!size)
		return 0;
	want = data[0] % MAXN;
	data++;
	size--;
	mem = table(&t, MAXN, MAXN * KLB_HM_NAME_MAX);
	for (k = 0; k < want && size; k++) {
		len = take(&data, &size, raw, sizeof(raw));
		if (klb_hm_name_prepare(raw, len, name, &len2, &msg)) {
			CHECK(msg && *msg);
			continue;
		}
		CHECK(len2 >= 1 && len2 <= KLB_HM_NAME_MAX);
		CHECK(!klb_hm_name_prepare(name, len2, again, &len, &msg));
		CHECK(len == len2 && !memcmp(name, again, len));
		i = klb_hm_add(&t, name, len2, (void *)(long)(t.n + 1), &dup);
		CHECK(i == 0 || (i == (u32)-1 && dup < t.n));
	}
	for (i = 0; i < t.n; i++) {
		const struct klb_hm_entry *x = &t.e[i];

		len = x->len;
		memcpy(var, klb_hm_name(&t, i), len);
		e = klb_hm_lookup(&t, (const u8 *)var, len);
		CHECK(e == x);
		for (k = 0; k < len; k++)
			if (var[k] >= 'a' && var[k] <= 'z')
				var[k] -= 'a' - 'A';
		memcpy(var + len, ".:80", 4);
		CHECK(klb_hm_lookup(&t, (const u8 *)var, len + 4) == x);
	}
	while (size) {
		len = take(&data, &size, raw, sizeof(raw));
		e = klb_hm_lookup(&t, (const u8 *)raw, len);
		if (e) {
			len2 = klb_host_strip((const u8 *)raw, len);
			CHECK(klb_l7_ieq((const u8 *)t.names + e->off, e->len,
					 (const u8 *)raw, len2));
		}
	}
	if (t.n) {
		cmem = malloc(klb_hm_mem_size(t.n, t.names_len));
		CHECK(cmem);
		klb_hm_init(&c, cmem, t.n, t.names_len, t.k0, t.k1);
		klb_hm_copy(&c, &t, 0);
		CHECK(c.n == t.n - 1);
		CHECK(klb_hm_find(&c, (const u8 *)klb_hm_name(&t, 0),
				  t.e[0].len) < 0);
		for (i = 1; i < t.n; i++)
			CHECK(klb_hm_find(&c, (const u8 *)klb_hm_name(&t, i),
					  t.e[i].len) == (int)i - 1);
		free(cmem);
	}
	free(mem);
	return 0;
}
