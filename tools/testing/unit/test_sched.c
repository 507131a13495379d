// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the pure schedulers in kmod/sched/, built in userspace
 * with ASan and UBSan from the very files the module compiles.
 *
 * Statistical checks use a fixed PRNG seed (override with KLB_TEST_SEED)
 * so a failure reproduces, and bounds of several standard deviations so a
 * correct scheduler does not fail by bad luck while a wrong one (off by a
 * weight, biased to one index) is far outside them.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "algo.h"
#include "tap.h"

#define NMAX 64

/* Is a binomial count within k standard deviations of trials * p? */
static bool near_binomial(u64 count, u64 trials, double p, double k)
{
	double mean = trials * p, sd = sqrt(trials * p * (1 - p));

	return fabs((double)count - mean) <= k * sd + 1;
}

static void test_rr(void)
{
	u32 cnt[7] = { 0 }, i;
	bool even = true;

	for (i = 0; i < 7 * 1000; i++)
		cnt[klb_rr_pick(7, i)]++;
	for (i = 0; i < 7; i++)
		even &= cnt[i] == 1000;
	tap_ok(even, "rr: 7000 picks over 7 backends give exactly 1000 each");
	tap_ok(klb_rr_pick(0, 5) == KLB_PICK_NONE, "rr: empty table picks none");
	/* Consecutive tickets never pick the same backend twice in a row. */
	even = true;
	for (i = 0; i < 100; i++)
		even &= klb_rr_pick(3, i) != klb_rr_pick(3, i + 1);
	tap_ok(even, "rr: consecutive tickets rotate");
}

static void test_wrr(void)
{
	static const u32 w123[] = { 1, 2, 3 };
	static const u32 w511[] = { 5, 1, 1 };
	/* nginx documents this sequence for weights a=5, b=1, c=1. */
	static const u32 seq511[] = { 0, 0, 1, 0, 2, 0, 0 };
	u32 w[NMAX], cnt[NMAX], i, n, pick, total, run;
	s64 cur[NMAX];
	bool ok;

	memset(cur, 0, sizeof(cur));
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < 6; i++)
		cnt[klb_wrr_pick(w123, cur, 3)]++;
	tap_ok(cnt[0] == 1 && cnt[1] == 2 && cnt[2] == 3,
	       "wrr: 1:2:3 over one cycle of 6 is exactly 1:2:3 (got %u:%u:%u)",
	       cnt[0], cnt[1], cnt[2]);
	for (i = 0; i < 600 - 6; i++)
		cnt[klb_wrr_pick(w123, cur, 3)]++;
	tap_ok(cnt[0] == 100 && cnt[1] == 200 && cnt[2] == 300,
	       "wrr: 1:2:3 over 600 picks is exactly 100:200:300 (got %u:%u:%u)",
	       cnt[0], cnt[1], cnt[2]);

	memset(cur, 0, sizeof(cur));
	ok = true;
	for (i = 0; i < 2 * ARRAY_SIZE(seq511); i++)
		ok &= klb_wrr_pick(w511, cur, 3) == seq511[i % 7];
	tap_ok(ok, "wrr: 5:1:1 is smooth (a a b a c a a), not a burst of 5");

	/* Exactness for arbitrary weights, including 0 and the maximum. */
	ok = true;
	for (run = 0; run < 20 && ok; run++) {
		n = 1 + rnd() % 12;
		total = 0;
		for (i = 0; i < n; i++) {
			w[i] = rnd() % 4 == 0 ? 0 : 1 + rnd() % (run < 10 ? 10 : 65535);
			total += w[i];
			cnt[i] = 0;
			cur[i] = 0;
		}
		for (i = 0; i < total; i++) {
			pick = klb_wrr_pick(w, cur, n);
			if (pick >= n) {
				ok = false;
				break;
			}
			cnt[pick]++;
		}
		for (i = 0; i < n && ok; i++)
			ok = cnt[i] == w[i];
		if (!ok)
			tap_diag("run %u: n=%u backend %u got %u, weight %u", run,
				 n, i - 1, cnt[i - 1], w[i - 1]);
	}
	tap_ok(ok, "wrr: random weights (0..65535): each backend exactly weight times per cycle");

	memset(cur, 0, sizeof(cur));
	w[0] = 0;
	w[1] = 0;
	tap_ok(klb_wrr_pick(w, cur, 2) == KLB_PICK_NONE &&
	       klb_wrr_pick(w, cur, 0) == KLB_PICK_NONE,
	       "wrr: all weights 0 or no backend picks none");
}

static void test_lc(void)
{
	u32 active[NMAX], w[NMAX], cnt[NMAX], i, p, lo, hi;
	bool ok, seen1 = false, seen2 = false;

	active[0] = 5;
	active[1] = 3;
	active[2] = 3;
	active[3] = 9;
	ok = true;
	for (i = 0; i < 8; i++) {
		p = klb_lc_pick(active, 4, i);
		ok &= p == 1 || p == 2;
		seen1 |= p == 1;
		seen2 |= p == 2;
	}
	tap_ok(ok && seen1 && seen2,
	       "lc: picks the least loaded, ties shared by the rotating start");

	/* Simulated arrivals, no departures: loads stay level. */
	memset(active, 0, sizeof(active));
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < 1000; i++) {
		p = klb_lc_pick(active, 6, i);
		active[p]++;
		cnt[p]++;
	}
	lo = hi = cnt[0];
	for (i = 1; i < 6; i++) {
		lo = cnt[i] < lo ? cnt[i] : lo;
		hi = cnt[i] > hi ? cnt[i] : hi;
	}
	tap_ok(hi - lo <= 1, "lc: 1000 arrivals on 6 backends: counts %u..%u", lo, hi);

	/* Equal loads with a fixed start must not pile on index 0. */
	memset(active, 0, sizeof(active));
	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < 600; i++)
		cnt[klb_lc_pick(active, 6, i)]++;
	ok = true;
	for (i = 0; i < 6; i++)
		ok &= cnt[i] == 100;
	tap_ok(ok, "lc: all idle, rotating start spreads evenly (100 each of 600)");

	/* wlc: 10 active each, weights 1:2:3 -> the weight 3 backend. */
	active[0] = active[1] = active[2] = 10;
	w[0] = 1;
	w[1] = 2;
	w[2] = 3;
	tap_ok(klb_wlc_pick(active, w, 3, 0) == 2 &&
	       klb_wlc_pick(active, w, 3, 1) == 2,
	       "wlc: equal active, picks the heaviest");
	active[0] = active[1] = active[2] = 0;
	tap_ok(klb_wlc_pick(active, w, 3, 0) == 2,
	       "wlc: all idle, the +1 overhead prefers the heaviest");
	active[0] = active[1] = 10;
	active[2] = 40;	/* 41/3 > 11/1 */
	tap_ok(klb_wlc_pick(active, w, 3, 2) == 1,
	       "wlc: (active+1)/weight compared, not active alone");

	memset(active, 0, sizeof(active));
	for (i = 0; i < 6000; i++)
		active[klb_wlc_pick(active, w, 3, i)]++;
	tap_ok(active[0] >= 999 && active[0] <= 1001 &&
	       active[1] >= 1999 && active[1] <= 2001 &&
	       active[2] >= 2999 && active[2] <= 3001,
	       "wlc: 6000 arrivals on weights 1:2:3 give %u:%u:%u",
	       active[0], active[1], active[2]);

	/* Near the u32 limit: cross-multiplication must not overflow. */
	active[0] = 0xffffffffU;
	active[1] = 0xfffffffeU;
	w[0] = w[1] = 65535;
	tap_ok(klb_wlc_pick(active, w, 2, 0) == 1 &&
	       klb_wlc_pick(active, w, 2, 1) == 1,
	       "wlc: no overflow with active near 2^32 and weight 65535");

	w[0] = 0;
	w[1] = 5;
	active[0] = 0;
	active[1] = 1000;
	tap_ok(klb_wlc_pick(active, w, 2, 0) == 1, "wlc: weight 0 never picked");
	w[1] = 0;
	tap_ok(klb_wlc_pick(active, w, 2, 0) == KLB_PICK_NONE &&
	       klb_lc_pick(active, 0, 3) == KLB_PICK_NONE,
	       "lc/wlc: nothing eligible picks none");
}

static void test_p2c(void)
{
	static const u32 w[] = { 1, 2, 3 };
	u32 active[3] = { 0 }, cum[3], cnt[3] = { 0 }, i, total, p;
	const u32 trials = 600000;

	total = klb_cum_build(w, 3, cum);
	/* Loads never change: each draw is kept, spread is exactly by weight. */
	for (i = 0; i < trials; i++)
		cnt[klb_p2c_pick(active, cum, w, 3, rnd(), rnd())]++;
	tap_ok(near_binomial(cnt[0], trials, 1.0 / 6, 6) &&
	       near_binomial(cnt[1], trials, 2.0 / 6, 6) &&
	       near_binomial(cnt[2], trials, 3.0 / 6, 6),
	       "p2c: idle backends, spread by weight 1:2:3 (got %u:%u:%u of %u, total %u)",
	       cnt[0], cnt[1], cnt[2], trials, total);

	/* Arrivals only: active counts track the weights closely. */
	memset(active, 0, sizeof(active));
	for (i = 0; i < 60000; i++) {
		p = klb_p2c_pick(active, cum, w, 3, rnd(), rnd());
		active[p]++;
	}
	tap_ok(abs((int)active[0] - 10000) < 300 &&
	       abs((int)active[1] - 20000) < 300 &&
	       abs((int)active[2] - 30000) < 300,
	       "p2c: 60000 arrivals on weights 1:2:3 give %u:%u:%u",
	       active[0], active[1], active[2]);

	/*
	 * Equal weights, backend 0 heavily loaded: it wins only when drawn
	 * twice, probability 1/9 instead of 1/3.
	 */
	{
		static const u32 we[] = { 1, 1, 1 };
		u32 ld[3] = { 1000, 0, 0 };

		klb_cum_build(we, 3, cum);
		memset(cnt, 0, sizeof(cnt));
		for (i = 0; i < trials; i++)
			cnt[klb_p2c_pick(ld, cum, we, 3, rnd(), rnd())]++;
		tap_ok(near_binomial(cnt[0], trials, 1.0 / 9, 6),
		       "p2c: a loaded backend only gets picked when drawn twice (%u of %u, expect %u)",
		       cnt[0], trials, trials / 9);
	}

	{
		static const u32 wz[] = { 0, 0 };
		u32 ld[2] = { 0, 0 };

		klb_cum_build(wz, 2, cum);
		tap_ok(klb_p2c_pick(ld, cum, wz, 2, 1, 2) == KLB_PICK_NONE &&
		       klb_p2c_pick(ld, cum, wz, 0, 1, 2) == KLB_PICK_NONE,
		       "p2c: all weights 0 or no backend picks none");
	}
}

static void test_sh(void)
{
	static const u32 w[] = { 1, 2, 0, 3, 4 };
	u32 cum[5], cnt[5] = { 0 }, i, key, first, total;
	const u32 trials = 1000000;
	bool ok = true;

	total = klb_cum_build(w, 5, cum);
	for (i = 0; i < 1000 && ok; i++) {
		key = rnd();
		first = klb_sh_pick(cum, 5, key);
		ok = first < 5 && klb_sh_pick(cum, 5, key) == first;
	}
	tap_ok(ok, "sh: the same client hash always picks the same backend");

	for (i = 0; i < trials; i++)
		cnt[klb_sh_pick(cum, 5, rnd())]++;
	ok = cnt[2] == 0;
	for (i = 0; i < 5; i++)
		ok &= near_binomial(cnt[i], trials, (double)w[i] / total, 6);
	tap_ok(ok, "sh: 1M random clients on weights 1:2:0:3:4 give %u:%u:%u:%u:%u",
	       cnt[0], cnt[1], cnt[2], cnt[3], cnt[4]);

	/* Boundaries of the hash space land inside the table. */
	tap_ok(klb_sh_pick(cum, 5, 0) == 0 && klb_sh_pick(cum, 5, 0xffffffffU) == 4,
	       "sh: hash 0 and 2^32-1 map to the first and last weighted backend");
	{
		static const u32 wz[] = { 0, 0, 0 };
		u32 cz[3];

		klb_cum_build(wz, 3, cz);
		tap_ok(klb_sh_pick(cz, 3, 123) == KLB_PICK_NONE &&
		       klb_sh_pick(cz, 0, 123) == KLB_PICK_NONE,
		       "sh: all weights 0 or no backend picks none");
	}
}

/* Maglev helpers: tables are compared through keys, not indices. */
static u32 mh_table[KLB_MH_SIZE], mh_table2[KLB_MH_SIZE];

/* Exactly sized scratch, so that ASan catches any overrun. */
static u32 mh_build_m(u32 *table, u32 m, const u32 *keys, const u32 *w, u32 n)
{
	u32 *scratch = calloc(n ? klb_mh_scratch_len(n) : 1, sizeof(u32));
	u32 filled;

	filled = klb_mh_build(table, m, keys, w, n, scratch);
	free(scratch);
	return filled;
}

static void mh_build(u32 *table, const u32 *keys, const u32 *w, u32 n)
{
	mh_build_m(table, KLB_MH_SIZE, keys, w, n);
}

/*
 * Reference for the weighted Maglev fill, written the obvious slow way:
 * in each round every backend, in key order, earns its weight in credit and
 * takes a turn when the credit reaches the largest weight. The module's
 * heap-based build must produce the very same table.
 */
static void mh_build_reference(u32 *table, u32 m, const u32 *keys,
			       const u32 *w, u32 n)
{
	u32 order[NMAX], pos[NMAX], skip[NMAX], credit[NMAX];
	u32 i, j, b, c, tmp, wmax = 0, filled = 0;

	for (i = 0; i < m; i++)
		table[i] = KLB_PICK_NONE;
	for (i = 0; i < n; i++) {
		wmax = w[i] > wmax ? w[i] : wmax;
		order[i] = i;
		pos[i] = klb_mix32(keys[i] ^ 0x9e3779b9U) % m;
		skip[i] = klb_mix32(keys[i] ^ 0x7f4a7c15U) % (m - 1) + 1;
		credit[i] = 0;
	}
	for (i = 1; i < n; i++)	/* insertion sort by (key, index) */
		for (j = i; j > 0 && (keys[order[j]] < keys[order[j - 1]] ||
				      (keys[order[j]] == keys[order[j - 1]] &&
				       order[j] < order[j - 1])); j--) {
			tmp = order[j];
			order[j] = order[j - 1];
			order[j - 1] = tmp;
		}
	if (!wmax)
		return;
	while (filled < m) {
		for (j = 0; j < n && filled < m; j++) {
			b = order[j];
			credit[b] += w[b];
			if (credit[b] < wmax)
				continue;
			credit[b] -= wmax;
			for (c = pos[b]; table[c] != KLB_PICK_NONE; c = pos[b])
				pos[b] = (pos[b] + skip[b]) % m;
			pos[b] = (pos[b] + skip[b]) % m;
			table[c] = b;
			filled++;
		}
	}
}

static void test_mh_reference(void)
{
	static const u32 primes[] = { 2, 3, 7, 13, 251, 4093, 65537 };
	u32 keys[NMAX], w[NMAX], i, n, m, run;
	bool ok = true;

	for (run = 0; run < 60 && ok; run++) {
		n = 1 + rnd() % NMAX;
		m = primes[run % ARRAY_SIZE(primes)];
		for (i = 0; i < n; i++) {
			/* Few distinct keys sometimes: exercise tie breaks. */
			keys[i] = run % 3 ? rnd() : rnd() % 4;
			w[i] = rnd() % 5 == 0 ? 0 :
			       1 + rnd() % (run % 2 ? 65535 : 4);
		}
		mh_build_m(mh_table, m, keys, w, n);
		mh_build_reference(mh_table2, m, keys, w, n);
		ok = !memcmp(mh_table, mh_table2, m * sizeof(u32));
		if (!ok)
			tap_diag("run %u: n=%u m=%u differs from the reference", run, n, m);
	}
	tap_ok(ok, "mh: heap-based weighted build equals the round-by-round reference");
}

/* Fraction of slots whose backend (by key) differs between two tables. */
static double mh_moved(const u32 *t1, const u32 *k1, const u32 *t2,
		       const u32 *k2)
{
	u32 i, moved = 0;

	for (i = 0; i < KLB_MH_SIZE; i++)
		moved += k1[t1[i]] != k2[t2[i]];
	return (double)moved / KLB_MH_SIZE;
}

static void test_mh_basic(void)
{
	static const u32 w[] = { 1, 2, 3 };
	u32 keys[NMAX], ww[NMAX], cnt[NMAX] = { 0 }, i, key, first, filled;
	bool ok = true;

	for (i = 0; i < 3; i++)
		keys[i] = rnd();
	filled = mh_build_m(mh_table, KLB_MH_SIZE, keys, w, 3);
	for (i = 0; i < KLB_MH_SIZE; i++) {
		ok &= mh_table[i] < 3;
		if (mh_table[i] < 3)
			cnt[mh_table[i]]++;
	}
	tap_ok(ok && filled == KLB_MH_SIZE, "mh: every one of %u slots holds a backend",
	       KLB_MH_SIZE);
	/* The credit scheme gives slot counts proportional to weight +-1 per round end. */
	ok = true;
	for (i = 0; i < 3; i++)
		ok &= fabs(cnt[i] - KLB_MH_SIZE * w[i] / 6.0) <= 3;
	tap_ok(ok, "mh: slots by weight 1:2:3 are %u:%u:%u (exact to +-3)",
	       cnt[0], cnt[1], cnt[2]);

	memset(cnt, 0, sizeof(cnt));
	for (i = 0; i < 600000; i++)
		cnt[klb_mh_pick(mh_table, KLB_MH_SIZE, rnd())]++;
	ok = true;
	for (i = 0; i < 3; i++)
		ok &= near_binomial(cnt[i], 600000, w[i] / 6.0, 6);
	tap_ok(ok, "mh: 600k random clients on weights 1:2:3 give %u:%u:%u",
	       cnt[0], cnt[1], cnt[2]);

	ok = true;
	for (i = 0; i < 1000 && ok; i++) {
		key = rnd();
		first = klb_mh_pick(mh_table, KLB_MH_SIZE, key);
		mh_build(mh_table2, keys, w, 3);
		ok = klb_mh_pick(mh_table2, KLB_MH_SIZE, key) == first;
	}
	tap_ok(ok, "mh: the same client hash picks the same backend, also after a rebuild");

	/* Build order must not matter: reversed input, same table by key. */
	{
		u32 rk[3] = { keys[2], keys[1], keys[0] };
		u32 rw[3] = { w[2], w[1], w[0] };

		mh_build(mh_table2, rk, rw, 3);
		tap_ok(mh_moved(mh_table, keys, mh_table2, rk) == 0,
		       "mh: table depends on the backend set, not the list order");
	}

	/* Equal weights on 7 backends: counts differ by at most one. */
	for (i = 0; i < 7; i++) {
		keys[i] = rnd();
		ww[i] = 10;
		cnt[i] = 0;
	}
	mh_build(mh_table, keys, ww, 7);
	for (i = 0; i < KLB_MH_SIZE; i++)
		cnt[mh_table[i]]++;
	ok = true;
	for (i = 0; i < 7; i++)
		ok &= cnt[i] == KLB_MH_SIZE / 7 || cnt[i] == KLB_MH_SIZE / 7 + 1;
	tap_ok(ok, "mh: equal weights give every backend m/n slots (+-1)");

	ww[0] = 0;
	ww[1] = 0;
	filled = mh_build_m(mh_table, KLB_MH_SIZE, keys, ww, 2);
	ok = filled == 0;
	for (i = 0; i < KLB_MH_SIZE; i++)
		ok &= mh_table[i] == KLB_PICK_NONE;
	filled = mh_build_m(mh_table2, KLB_MH_SIZE, keys, ww, 0);
	tap_ok(ok && filled == 0 &&
	       klb_mh_pick(mh_table2, KLB_MH_SIZE, 42) == KLB_PICK_NONE,
	       "mh: all weights 0 or no backend: every slot picks none");
}

/*
 * Minimal disruption. Removing one of N equally weighted backends must move
 * its own 1/N of the slots (unavoidable) and few others. Maglev does not
 * promise zero extra movement: the removed backend's turns no longer block
 * slots, so some others settle differently. Measured over 6000 random
 * cases with m = 65537, N = 5..10, the extra (slots moved that did not
 * belong to the removed backend) has median 0.17%, p99 0.5%, and a rare tail
 * up to ~5% when two backends draw the same skip (their preference lists are
 * then shifts of each other and contend all along). Hence two bounds:
 *  - each case: moved <= 1/N + 6%, while reshuffling even one more
 *    backend's share would be >= 2/N >= 1/N + 10%, and a rebuild from
 *    scratch (what sh does) ~(N-1)/N;
 *  - on average over all 45 cases: extra <= 0.6%, which catches a
 *    systematic regression that stays under the per-case bound.
 */
static void test_mh_disruption(void)
{
	u32 keys[NMAX], k2[NMAX], w[NMAX], w2[NMAX], i, j, n, victim, moved_keys, key;
	u32 extra, cases = 0;
	double moved, worst = 0, worst_extra = 0, sum_extra = 0;
	bool ok = true, restored = true, own_moved = true, keys_ok = true;

	for (n = 5; n <= 10; n++) {
		for (i = 0; i < n; i++) {
			keys[i] = rnd();
			w[i] = 100;
		}
		mh_build(mh_table, keys, w, n);
		for (victim = 0; victim < n; victim++) {
			for (i = 0, j = 0; i < n; i++) {
				if (i == victim)
					continue;
				k2[j] = keys[i];
				w2[j++] = w[i];
			}
			mh_build(mh_table2, k2, w2, n - 1);
			moved = mh_moved(mh_table, keys, mh_table2, k2);
			extra = 0;
			for (i = 0; i < KLB_MH_SIZE; i++) {
				/* Every slot of the victim must have moved elsewhere. */
				if (mh_table[i] == victim)
					own_moved &= k2[mh_table2[i]] != keys[victim];
				else
					extra += keys[mh_table[i]] != k2[mh_table2[i]];
			}
			cases++;
			sum_extra += (double)extra / KLB_MH_SIZE;
			if (moved > worst)
				worst = moved;
			if ((double)extra / KLB_MH_SIZE > worst_extra)
				worst_extra = (double)extra / KLB_MH_SIZE;
			if (moved > 1.0 / n + 0.06) {
				ok = false;
				tap_diag("n=%u victim %u: %.4f of slots moved, 1/n=%.4f",
					 n, victim, moved, 1.0 / n);
			}

			/* The same through lookups of random client hashes. */
			moved_keys = 0;
			for (i = 0; i < 20000; i++) {
				key = rnd();
				moved_keys += keys[klb_mh_pick(mh_table, KLB_MH_SIZE, key)] !=
					      k2[klb_mh_pick(mh_table2, KLB_MH_SIZE, key)];
			}
			keys_ok &= moved_keys <= 20000 * (1.0 / n + 0.07);

			/* Adding it back (at the end of the list) restores the table. */
			k2[n - 1] = keys[victim];
			w2[n - 1] = w[victim];
			mh_build(mh_table2, k2, w2, n);
			restored &= mh_moved(mh_table, keys, mh_table2, k2) == 0;
		}
	}
	tap_diag("worst fraction moved %.4f; extra moves: worst %.4f, mean %.4f",
		 worst, worst_extra, sum_extra / cases);
	tap_ok(ok, "mh: removing 1 of N (N=5..10, each one in turn) moves <= 1/N + 6%% of slots");
	tap_ok(sum_extra / cases <= 0.006,
	       "mh: on average removal moves %.3f%% of slots beyond the removed backend's (<= 0.6%%)",
	       100 * sum_extra / cases);
	tap_ok(own_moved, "mh: the removed backend keeps no slot");
	tap_ok(keys_ok, "mh: random clients moved <= 1/N + 7%% on removal");
	tap_ok(restored, "mh: adding the removed backend back restores the table exactly");

	/* Adding an N+1th backend takes about 1/(N+1) and no more. */
	for (i = 0; i < 8; i++) {
		keys[i] = rnd();
		w[i] = 1;
	}
	mh_build(mh_table, keys, w, 7);
	mh_build(mh_table2, keys, w, 8);
	moved = mh_moved(mh_table, keys, mh_table2, keys);
	tap_ok(moved >= 1.0 / 8 - 0.001 && moved <= 1.0 / 8 + 0.06,
	       "mh: adding an 8th backend moves %.4f of slots (1/8 = 0.125)", moved);
}

int main(void)
{
	const char *seed = getenv("KLB_TEST_SEED");

	rng_state = seed ? strtoull(seed, NULL, 0) : 20240601;
	tap_diag("klb scheduler unit tests, KLB_TEST_SEED=%llu",
		 (unsigned long long)rng_state);
	test_rr();
	test_wrr();
	test_lc();
	test_p2c();
	test_sh();
	test_mh_basic();
	test_mh_reference();
	test_mh_disruption();
	return tap_done();
}
