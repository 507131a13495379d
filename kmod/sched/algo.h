/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pure scheduler algorithms: functions of plain arrays (weights, active
 * connection counts, identity keys), no allocation, no locking, no kernel
 * API. kmod/sched/table.c owns the tables, the locking and the randomness
 * and calls these; tools/testing/unit and tools/testing/fuzz build the very
 * same files in userspace (see kmod/pure.h).
 *
 * Conventions:
 *  - Backends are indices 0..n-1 into the caller's arrays; every function
 *    that picks returns such an index or KLB_PICK_NONE.
 *  - Callers pass only eligible backends (up, weight > 0), but a weight of
 *    0 is still handled as "never picked" wherever weights are read.
 *  - n <= KLB_SCHED_BACKENDS_MAX, so the sum of all weights fits in a u32.
 *  - Random numbers and hashes come in as uniformly distributed u32s and are
 *    mapped onto a range with klb_reduce(), which uses their high bits.
 */
#ifndef _KLB_SCHED_ALGO_H
#define _KLB_SCHED_ALGO_H

#include "pure.h"

#define KLB_PICK_NONE		0xffffffffU
/* 65536 * 65535 < 2^32: a sum of weights never overflows a u32. */
#define KLB_SCHED_BACKENDS_MAX	65536U
/* Maglev lookup table size used by the module: prime, >> any sane pool. */
#define KLB_MH_SIZE		65537U

/*
 * Map a uniformly distributed x onto [0, range) without a division
 * (Lemire's multiply-shift). Bias is below range / 2^32.
 */
static inline u32 klb_reduce(u32 x, u32 range)
{
	return (u32)(((u64)x * range) >> 32);
}

/* rr.c: the ticket'th backend in turn. */
u32 klb_rr_pick(u32 n, u32 ticket);

/*
 * wrr.c: smooth weighted round robin. @credit holds n signed credits,
 * zeroed when the table is built, and must be serialised by the caller.
 * Over any window of sum(weights) picks backend i is chosen exactly
 * weights[i] times, and the picks of a heavy backend are interleaved with
 * the others rather than bunched up.
 */
u32 klb_wrr_pick(const u32 *weights, s64 *credit, u32 n);

/*
 * hash.c: weighted choice through cumulative weights, used by sh (with a
 * hash of the client address) and by p2c (with a random number).
 * klb_cum_build() fills cum[i] = weights[0] + .. + weights[i] and returns
 * the total; klb_cum_index() returns the backend whose share of
 * [0, total) the value falls into, so each backend gets a share of the
 * u32 space exactly proportional to its weight (to within 1 / 2^32).
 */
u32 klb_cum_build(const u32 *weights, u32 n, u32 *cum);
u32 klb_cum_index(const u32 *cum, u32 n, u32 x);
u32 klb_sh_pick(const u32 *cum, u32 n, u32 hash);
/* A bijective 32 bit finaliser: spreads the bits of an already keyed hash. */
u32 klb_mix32(u32 x);

/*
 * maglev.c: Maglev consistent hashing (Eisenbud et al., NSDI 2016) with
 * weights. @m must be prime, below 2^31 and preferably much larger than n
 * (KLB_MH_SIZE in the module; a backend may get no slot when n nears m).
 * @keys are stable per backend identities (a hash of family/address/port)
 * so that a backend keeps its slot preferences when others come and go;
 * the build order is by key, hence the table depends only on the set of
 * (key, weight) pairs, not on list order. @scratch holds
 * klb_mh_scratch_len(n) u32s. Returns the number of filled slots: m, or 0
 * if no backend has a weight (then every slot is KLB_PICK_NONE).
 */
u32 klb_mh_scratch_len(u32 n);
u32 klb_mh_build(u32 *table, u32 m, const u32 *keys, const u32 *weights,
		 u32 n, u32 *scratch);
u32 klb_mh_pick(const u32 *table, u32 m, u32 hash);

/*
 * Least-connection family. The datapath keeps active connection counts in
 * the backends themselves (atomics that change under our feet), so the
 * cores read them through @load. They are always inlined: with a constant
 * @load the compiler turns the call into a plain load, no indirect call per
 * backend on the packet path. lc.c and p2c.c wrap them for plain arrays.
 */
typedef u32 (*klb_load_fn)(const void *ctx, u32 i);

/*
 * Is backend a (load la, weight wa) strictly less loaded than b? Compares
 * (la + 1) / wa with (lb + 1) / wb by cross-multiplying in 64 bits: exact,
 * no division. The + 1 (IPVS-style overhead) makes an idle heavy backend
 * win over an idle light one. A weight of 0 is never less loaded.
 */
static inline bool klb_wload_less(u32 la, u32 wa, u32 lb, u32 wb)
{
	if (!wa)
		return false;
	if (!wb)
		return true;
	return ((u64)la + 1) * wb < ((u64)lb + 1) * wa;
}

/*
 * lc (@weights == NULL): fewest active connections. wlc: fewest per
 * weight. Ties go to the first candidate scanning from @start (a rotating
 * cursor supplied by the caller), so equal backends share new connections
 * instead of all of them landing on index 0.
 */
static __always_inline u32 klb_least_pick(u32 n, u32 start,
					  const u32 *weights,
					  klb_load_fn load, const void *ctx)
{
	u32 best = KLB_PICK_NONE, best_load = 0, k, i, l;

	if (!n)
		return KLB_PICK_NONE;
	i = start % n;
	for (k = 0; k < n; k++, i = (i + 1 == n) ? 0 : i + 1) {
		if (weights && !weights[i])
			continue;
		l = load(ctx, i);
		if (best == KLB_PICK_NONE) {
			best = i;
			best_load = l;
		} else if (weights ? klb_wload_less(l, weights[i], best_load,
						    weights[best]) :
				     l < best_load) {
			best = i;
			best_load = l;
		}
		/* Nothing beats an idle backend when weights don't matter. */
		if (!weights && !best_load)
			break;
	}
	return best;
}

/*
 * p2c: draw two candidates at random, each with probability proportional to
 * its weight (@r1, @r2 uniform random u32s from the caller; drawing with
 * replacement, so both may be the same), and keep the one with fewer
 * active connections per weight; on a tie the first. Unlike wlc there is
 * no + 1 overhead: the draw already favours heavy backends, and with it
 * idle backends (short connections) would get a share growing with the
 * square of their weight. This way, whenever active/weight is level (idle,
 * or balanced) the spread is exactly by weight, and a loaded backend is
 * only chosen when it is drawn twice.
 */
static __always_inline u32 klb_p2c_pick_core(const u32 *cum,
					     const u32 *weights, u32 n,
					     u32 r1, u32 r2,
					     klb_load_fn load,
					     const void *ctx)
{
	u32 a, b;

	a = klb_cum_index(cum, n, r1);
	b = klb_cum_index(cum, n, r2);
	if (a == b || b == KLB_PICK_NONE)
		return a;
	if ((u64)load(ctx, b) * weights[a] < (u64)load(ctx, a) * weights[b])
		return b;
	return a;
}

/* lc.c, p2c.c: the cores over a plain array of active counts. */
u32 klb_lc_pick(const u32 *active, u32 n, u32 start);
u32 klb_wlc_pick(const u32 *active, const u32 *weights, u32 n, u32 start);
u32 klb_p2c_pick(const u32 *active, const u32 *cum, const u32 *weights,
		 u32 n, u32 r1, u32 r2);

#endif /* _KLB_SCHED_ALGO_H */
