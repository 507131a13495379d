/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Source prefix lists (acl_match.c): pure code, no allocation or locking,
 * built unchanged in userspace (-DKLB_USERSPACE) for its unit test
 * (tools/testing/unit/test_acl.c). A list is normalised once when it is
 * configured: sorted, prefixes inside another of the list dropped. What is
 * left is disjoint, so a lookup is one binary search, O(log n) in softirq.
 */
#ifndef _KLB_ACL_MATCH_H
#define _KLB_ACL_MATCH_H

#include "pure.h"

/*
 * An address as a 128-bit number, in host order: IPv4 in lo (hi 0),
 * IPv6 in both. @v6 keeps the families apart.
 */
struct klb_acl_addr {
	u64 hi, lo;
	bool v6;
};

struct klb_acl_prefix {
	struct klb_acl_addr a;
	u8 len;			/* 0..32 (IPv4) or 0..128 (IPv6) */
};

/* Is @p well formed: a length within its family, no host bit set? */
bool klb_acl_prefix_valid(const struct klb_acl_prefix *p);
/*
 * Sort @p[0..n) and drop every prefix that another one of the list
 * contains (duplicates too); returns how many are left, in @p. The
 * prefixes must be valid.
 */
u32 klb_acl_normalise(struct klb_acl_prefix *p, u32 n);
/* Is @a in one of the @n prefixes of a normalised list? */
bool klb_acl_match(const struct klb_acl_prefix *p, u32 n,
		   const struct klb_acl_addr *a);
/*
 * May @a connect: in no prefix of @deny, and in one of @allow if @nallow
 * is not 0 (deny wins)?
 */
bool klb_acl_allows(const struct klb_acl_prefix *allow, u32 nallow,
		    const struct klb_acl_prefix *deny, u32 ndeny,
		    const struct klb_acl_addr *a);

#endif /* _KLB_ACL_MATCH_H */
