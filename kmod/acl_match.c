// SPDX-License-Identifier: GPL-2.0
/*
 * Matching a source address against a service's allow and deny prefix
 * lists (acl_match.h). Two CIDR prefixes are either disjoint or one holds
 * the other, so once the held ones are dropped a sorted list is a set of
 * disjoint ranges: the only prefix that can hold an address is the last
 * one starting at or below it.
 */
#include "acl_match.h"

/* The mask of a @len-bit prefix within 64 bits of the number. */
static u64 klb_acl_mask64(int len)
{
	if (len <= 0)
		return 0;
	if (len >= 64)
		return ~0ULL;
	return ~0ULL << (64 - len);
}

/* @len in 128-bit terms: IPv4 sits in the low 32 bits. */
static int klb_acl_len128(const struct klb_acl_prefix *p)
{
	return p->a.v6 ? p->len : 96 + p->len;
}

static bool klb_acl_in(const struct klb_acl_prefix *p,
		       const struct klb_acl_addr *a)
{
	int len = klb_acl_len128(p);

	if (p->a.v6 != a->v6)
		return false;
	return !((a->hi ^ p->a.hi) & klb_acl_mask64(len)) &&
	       !((a->lo ^ p->a.lo) & klb_acl_mask64(len - 64));
}

bool klb_acl_prefix_valid(const struct klb_acl_prefix *p)
{
	int len = klb_acl_len128(p);

	if (p->len > (p->a.v6 ? 128 : 32))
		return false;
	if (!p->a.v6 && p->a.hi)
		return false;
	if (!p->a.v6 && p->a.lo >> 32)
		return false;
	return !(p->a.hi & ~klb_acl_mask64(len)) &&
	       !(p->a.lo & ~klb_acl_mask64(len - 64));
}

/* Order: IPv4 first, then by start address, then the shorter prefix. */
static int klb_acl_cmp(const struct klb_acl_prefix *x,
		       const struct klb_acl_prefix *y)
{
	if (x->a.v6 != y->a.v6)
		return x->a.v6 ? 1 : -1;
	if (x->a.hi != y->a.hi)
		return x->a.hi < y->a.hi ? -1 : 1;
	if (x->a.lo != y->a.lo)
		return x->a.lo < y->a.lo ? -1 : 1;
	if (x->len != y->len)
		return x->len < y->len ? -1 : 1;
	return 0;
}

u32 klb_acl_normalise(struct klb_acl_prefix *p, u32 n)
{
	struct klb_acl_prefix tmp;
	u32 i, j, out;

	/* Insertion sort: lists are short (KLB_ACL_PREFIXES_MAX). */
	for (i = 1; i < n; i++) {
		tmp = p[i];
		for (j = i; j > 0 && klb_acl_cmp(&p[j - 1], &tmp) > 0; j--)
			p[j] = p[j - 1];
		p[j] = tmp;
	}
	/*
	 * A prefix holding later ones comes before them (it starts at or
	 * below, and is shorter on a tie): keep one, skip all it holds.
	 */
	for (i = 0, out = 0; i < n; i++) {
		if (out && klb_acl_in(&p[out - 1], &p[i].a))
			continue;
		p[out++] = p[i];
	}
	return out;
}

bool klb_acl_match(const struct klb_acl_prefix *p, u32 n,
		   const struct klb_acl_addr *a)
{
	struct klb_acl_prefix key = { .a = *a, .len = 255 };
	u32 lo = 0, hi = n, mid;

	/* The first prefix ordered after @a; the one before may hold it. */
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (klb_acl_cmp(&p[mid], &key) <= 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && klb_acl_in(&p[lo - 1], a);
}

bool klb_acl_allows(const struct klb_acl_prefix *allow, u32 nallow,
		    const struct klb_acl_prefix *deny, u32 ndeny,
		    const struct klb_acl_addr *a)
{
	if (ndeny && klb_acl_match(deny, ndeny, a))
		return false;
	return !nallow || klb_acl_match(allow, nallow, a);
}
