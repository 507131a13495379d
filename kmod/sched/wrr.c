// SPDX-License-Identifier: GPL-2.0
/*
 * Smooth weighted round robin, the scheme nginx uses: on every pick each
 * backend earns its weight in credit, the richest one is chosen and pays
 * the total weight back. Over sum(weights) picks every backend is chosen
 * exactly weight times (credits sum to zero after each pick and each one
 * stays within (-total, total)), and a heavy backend's turns are spread
 * through the cycle instead of coming in a burst, which matters for short
 * bursts of connections from one client.
 *
 * Credits start at zero when the table is (re)built, so a weight change
 * restarts the cycle, which is what an operator expects.
 */
#include "algo.h"

u32 klb_wrr_pick(const u32 *weights, s64 *credit, u32 n)
{
	u32 i, best = KLB_PICK_NONE;
	s64 total = 0;

	for (i = 0; i < n; i++) {
		if (!weights[i])
			continue;
		credit[i] += weights[i];
		total += weights[i];
		/* Strictly greater: ties go to the lowest index, deterministically. */
		if (best == KLB_PICK_NONE || credit[i] > credit[best])
			best = i;
	}
	if (best != KLB_PICK_NONE)
		credit[best] -= total;
	return best;
}
