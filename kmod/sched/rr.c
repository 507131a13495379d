// SPDX-License-Identifier: GPL-2.0
/*
 * Round robin: the caller hands out tickets from one shared counter (an
 * atomic in the kernel), so concurrent CPUs never need a lock to take
 * turns; weights are ignored because the table only lists eligible
 * backends.
 */
#include "algo.h"

u32 klb_rr_pick(u32 n, u32 ticket)
{
	if (!n)
		return KLB_PICK_NONE;
	/*
	 * A plain modulo: when the u32 ticket wraps, one round is cut short,
	 * once every 4 billion connections. Not worth a cmpxchg loop.
	 */
	return ticket % n;
}
