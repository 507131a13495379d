// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the pure schedulers in kmod/sched/: Maglev and the
 * cumulative-weight (sh, p2c) table builders with arbitrary keys, weights
 * and table sizes, plus wrr/lc/wlc/p2c picks with arbitrary loads. Every
 * array is allocated at its exact size so ASan sees any overrun; the
 * checks below are the invariants the module relies on.
 *
 * Input: [0] Maglev table size selector, [1] backend count, then per backend a
 * 4 byte key, a 2 byte weight and a 2 byte load; the rest are client
 * hashes / random numbers, 4 bytes each.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "fuzz_check.h"

#define MAX_N 64

/* Small tables fuzz fast; the module's size only on request (selector 255). */
static const u32 primes[] = { 2, 3, 5, 7, 13, 61, 251, 1021, 4093 };

static u32 get32(const u8 *p)
{
	return p[0] | p[1] << 8 | p[2] << 16 | (u32)p[3] << 24;
}

static u32 *alloc32(u32 n)
{
	u32 *p = calloc(n ? n : 1, sizeof(u32));

	CHECK(p);
	return p;
}

static void check_maglev(u32 m, u32 n, const u32 *keys, const u32 *w,
			 const u8 *hashes, size_t nhashes)
{
	u32 *table = alloc32(m), *table2 = alloc32(m), *cnt = alloc32(n);
	u32 *scratch = alloc32(klb_mh_scratch_len(n));
	u32 *rkeys = alloc32(n), *rw = alloc32(n);
	u32 i, j, filled, wmax = 0;
	bool unique = true, equal = true;

	for (i = 0; i < n; i++) {
		wmax = w[i] > wmax ? w[i] : wmax;
		equal &= w[i] == w[0];
	}
	filled = klb_mh_build(table, m, keys, w, n, scratch);
	CHECK(filled == (wmax ? m : 0));
	for (i = 0; i < m; i++) {
		if (!wmax) {
			CHECK(table[i] == KLB_PICK_NONE);
			continue;
		}
		/* Every slot holds an eligible backend. */
		CHECK(table[i] < n && w[table[i]] > 0);
		cnt[table[i]]++;
	}
	/* A heavier backend never has more than one slot less. */
	for (i = 0; i < n; i++)
		for (j = 0; j < n; j++)
			if (w[i] && w[i] <= w[j])
				CHECK(cnt[i] <= cnt[j] + 1);
	if (wmax && equal && n <= m)
		for (i = 0; i < n; i++)
			CHECK(cnt[i] == m / n || cnt[i] == m / n + 1);

	for (i = 0; i + 4 <= nhashes; i += 4) {
		u32 b = klb_mh_pick(table, m, get32(hashes + i));

		CHECK(wmax ? b < n && w[b] : b == KLB_PICK_NONE);
	}

	/* Same set in reverse order: same table, mapped through the keys. */
	for (i = 0; i < n; i++) {
		rkeys[i] = keys[n - 1 - i];
		rw[i] = w[n - 1 - i];
		for (j = 0; j < i; j++)
			unique &= keys[i] != keys[j];
	}
	if (unique && wmax) {
		klb_mh_build(table2, m, rkeys, rw, n, scratch);
		for (i = 0; i < m; i++)
			CHECK(keys[table[i]] == rkeys[table2[i]]);
	}
	free(rw);
	free(rkeys);
	free(scratch);
	free(cnt);
	free(table2);
	free(table);
}

static void check_cum(u32 n, const u32 *w, const u32 *load, const u8 *hashes,
		      size_t nhashes)
{
	u32 *cum = alloc32(n), total, i, b;

	total = klb_cum_build(w, n, cum);
	for (i = 0; i + 8 <= nhashes; i += 8) {
		b = klb_sh_pick(cum, n, get32(hashes + i));
		CHECK(total ? b < n && w[b] : b == KLB_PICK_NONE);
		b = klb_p2c_pick(load, cum, w, n, get32(hashes + i),
				 get32(hashes + i + 4));
		CHECK(total ? b < n && w[b] : b == KLB_PICK_NONE);
	}
	/* The extremes of the hash space stay in the table. */
	b = klb_sh_pick(cum, n, 0xffffffffU);
	CHECK(total ? b < n && w[b] : b == KLB_PICK_NONE);
	free(cum);
}

static void check_picks(u32 n, const u32 *w, const u32 *load, u32 start)
{
	s64 *credit = calloc(n ? n : 1, sizeof(s64));
	u32 *cnt = alloc32(n), total = 0, i, b;

	CHECK(credit);
	for (i = 0; i < n; i++)
		total += w[i];
	/* wrr: exactly weight picks each over one cycle (if short enough). */
	if (total <= 4096) {
		for (i = 0; i < total; i++) {
			b = klb_wrr_pick(w, credit, n);
			CHECK(b < n && w[b]);
			cnt[b]++;
		}
		for (i = 0; i < n; i++)
			CHECK(cnt[i] == w[i]);
	}
	CHECK(total || klb_wrr_pick(w, credit, n) == KLB_PICK_NONE);

	/* lc: no backend has fewer connections than the one picked. */
	b = klb_lc_pick(load, n, start);
	CHECK(n ? b < n : b == KLB_PICK_NONE);
	for (i = 0; i < n; i++)
		CHECK(load[b] <= load[i]);

	/* wlc: none has a lower (load + 1) / weight. */
	b = klb_wlc_pick(load, w, n, start);
	CHECK(total ? b < n && w[b] : b == KLB_PICK_NONE);
	for (i = 0; i < n && total; i++)
		CHECK(!klb_wload_less(load[i], w[i], load[b], w[b]));

	CHECK(klb_rr_pick(n, start) == (n ? start % n : KLB_PICK_NONE));
	free(cnt);
	free(credit);
}

int LLVMFuzzerTestOneInput(const u8 *data, size_t size);

int LLVMFuzzerTestOneInput(const u8 *data, size_t size)
{
	u32 keys[MAX_N], w[MAX_N], load[MAX_N], n, m, i;
	const u8 *p;

	if (size < 2)
		return 0;
	m = data[0] == 255 ? KLB_MH_SIZE :
			     primes[data[0] % (sizeof(primes) / sizeof(primes[0]))];
	n = data[1] % (MAX_N + 1);
	if (size < 2 + 8 * (size_t)n)
		n = (size - 2) / 8;
	p = data + 2;
	for (i = 0; i < n; i++, p += 8) {
		keys[i] = get32(p);
		w[i] = p[4] | p[5] << 8;
		load[i] = p[6] | p[7] << 8;
		/* Sometimes an enormous load, to probe 64-bit comparisons. */
		if (load[i] == 0xffff)
			load[i] = 0xffffffffU;
	}
	size -= p - data;

	check_maglev(m, n, keys, w, p, size);
	check_cum(n, w, load, p, size);
	check_picks(n, w, load, size >= 4 ? get32(p) : 0);
	return 0;
}
