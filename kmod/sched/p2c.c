// SPDX-License-Identifier: GPL-2.0
/*
 * Power of two random choices over a plain array of active counts. The
 * algorithm is klb_p2c_pick_core() in algo.h, shared with the datapath.
 * Two random draws instead of a full scan keep the pick O(log n) and avoid
 * the herd effect of least-connections with stale counts: many CPUs picking
 * at once do not all pile onto the single least loaded backend.
 */
#include "algo.h"

static u32 klb_p2c_array_load(const void *ctx, u32 i)
{
	return ((const u32 *)ctx)[i];
}

u32 klb_p2c_pick(const u32 *active, const u32 *cum, const u32 *weights,
		 u32 n, u32 r1, u32 r2)
{
	return klb_p2c_pick_core(cum, weights, n, r1, r2, klb_p2c_array_load,
				 active);
}
