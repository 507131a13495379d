// SPDX-License-Identifier: GPL-2.0
/*
 * Source hashing and weighted choice by cumulative weights.
 *
 * sh maps the hash of the client address onto [0, total weight) and picks
 * the backend owning that point: the same client always lands on the same
 * backend while the table is unchanged, and the shares are exactly the
 * weights without a bucket table to size or fill. Lookup is a binary search,
 * O(log n). Changing the backend set moves many clients (every boundary
 * after the change shifts); use mh when that matters.
 */
#include "algo.h"

u32 klb_cum_build(const u32 *weights, u32 n, u32 *cum)
{
	u32 i, total = 0;

	/* n <= KLB_SCHED_BACKENDS_MAX, weights <= 65535: no overflow. */
	for (i = 0; i < n; i++) {
		total += weights[i];
		cum[i] = total;
	}
	return total;
}

u32 klb_cum_index(const u32 *cum, u32 n, u32 x)
{
	u32 lo = 0, hi, mid, target;

	if (!n || !cum[n - 1])
		return KLB_PICK_NONE;
	target = klb_reduce(x, cum[n - 1]);
	/*
	 * First i with cum[i] > target. A zero weight makes cum[i] equal to
	 * its predecessor, so such a backend can never be that first index.
	 */
	hi = n - 1;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (cum[mid] > target)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

u32 klb_sh_pick(const u32 *cum, u32 n, u32 hash)
{
	return klb_cum_index(cum, n, hash);
}

/*
 * MurmurHash3's fmix32: every input bit affects every output bit. Used to
 * derive independent-looking values (Maglev offset and skip) from one
 * keyed hash; it adds no secrecy, the key is in the caller's hash.
 */
u32 klb_mix32(u32 x)
{
	x ^= x >> 16;
	x *= 0x85ebca6bU;
	x ^= x >> 13;
	x *= 0xc2b2ae35U;
	x ^= x >> 16;
	return x;
}
