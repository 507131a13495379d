// SPDX-License-Identifier: GPL-2.0
/*
 * Least connections and weighted least connections over a plain array of
 * active connection counts. The algorithm itself is klb_least_pick() in
 * algo.h, shared with the module's datapath, which reads live atomics.
 */
#include "algo.h"

static u32 klb_array_load(const void *ctx, u32 i)
{
	return ((const u32 *)ctx)[i];
}

u32 klb_lc_pick(const u32 *active, u32 n, u32 start)
{
	return klb_least_pick(n, start, NULL, klb_array_load, active);
}

u32 klb_wlc_pick(const u32 *active, const u32 *weights, u32 n, u32 start)
{
	return klb_least_pick(n, start, weights, klb_array_load, active);
}
