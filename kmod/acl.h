/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A service's source allow and deny prefix lists (acl.c), published under
 * RCU with the service (klb_service.acl) and read by the datapath for
 * every new connection. The matching itself is pure code (acl_match.c).
 */
#ifndef _KLB_ACL_H
#define _KLB_ACL_H

#include <linux/netfilter.h>
#include <linux/rcupdate.h>

#include "acl_match.h"

struct klb_flow;

struct klb_acl {
	struct rcu_head rcu;
	u32 nallow, ndeny;
	struct klb_acl_prefix p[];	/* allow[nallow], then deny[ndeny] */
};

/*
 * A new ACL from the valid prefixes @allow[@nallow] and @deny[@ndeny],
 * normalised; NULL with both empty (no ACL: everyone passes) or
 * ERR_PTR(-ENOMEM). Process context.
 */
struct klb_acl *klb_acl_new(const struct klb_acl_prefix *allow, u32 nallow,
			    const struct klb_acl_prefix *deny, u32 ndeny);
/* Free after a grace period (NULL is fine). */
void klb_acl_free(struct klb_acl *acl);
/* Free now: nobody can see it any more (NULL is fine). */
void klb_acl_destroy(struct klb_acl *acl);
/* May the source of @flow connect? A NULL @acl lets everyone. */
bool klb_acl_allows_flow(const struct klb_acl *acl,
			 const struct klb_flow *flow);
/* @family's address @a as acl_match.c numbers it. */
void klb_acl_addr(u16 family, const union nf_inet_addr *a,
		  struct klb_acl_addr *out);

#endif /* _KLB_ACL_H */
