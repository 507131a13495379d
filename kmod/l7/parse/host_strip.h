/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A request's Host (or SNI) as the rules and the host map compare it:
 * without a ":port" suffix (an IPv6 literal keeps its brackets) and
 * without one trailing dot. Pure; one definition for both matchers, so a
 * name a rule matches is the name the map looks up.
 */
#ifndef _KLB_L7_HOST_STRIP_H
#define _KLB_L7_HOST_STRIP_H

#include "l7_pure.h"

/* The length of @h that is left. */
static inline u32 klb_host_strip(const u8 *h, u32 len)
{
	u32 i;

	if (len && h[0] == '[') {
		for (i = 0; i < len && h[i] != ']'; i++)
			;
		if (i < len)
			len = i + 1;
	} else {
		for (i = 0; i < len; i++) {
			if (h[i] == ':') {
				len = i;
				break;
			}
		}
	}
	if (len && h[len - 1] == '.')
		len--;
	return len;
}

#endif /* _KLB_L7_HOST_STRIP_H */
