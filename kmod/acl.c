// SPDX-License-Identifier: GPL-2.0
/*
 * Service source ACLs: allocation and the datapath's question (acl.h).
 * An ACL is immutable once published: a change builds a new one and
 * swaps the pointer, the old one is freed after a grace period.
 */
#include <linux/slab.h>

#include "klb.h"
#include "acl.h"
#include "flow.h"

void klb_acl_addr(u16 family, const union nf_inet_addr *a,
		  struct klb_acl_addr *out)
{
	const __be32 *w = a->ip6;

	if (family == AF_INET6) {
		out->hi = (u64)ntohl(w[0]) << 32 | ntohl(w[1]);
		out->lo = (u64)ntohl(w[2]) << 32 | ntohl(w[3]);
		out->v6 = true;
	} else {
		out->hi = 0;
		out->lo = ntohl(a->ip);
		out->v6 = false;
	}
}

struct klb_acl *klb_acl_new(const struct klb_acl_prefix *allow, u32 nallow,
			    const struct klb_acl_prefix *deny, u32 ndeny)
{
	struct klb_acl *acl;

	if (!nallow && !ndeny)
		return NULL;
	acl = kmalloc(struct_size(acl, p, nallow + ndeny), GFP_KERNEL_ACCOUNT);
	if (!acl)
		return ERR_PTR(-ENOMEM);
	memcpy(acl->p, allow, nallow * sizeof(*allow));
	acl->nallow = klb_acl_normalise(acl->p, nallow);
	memcpy(acl->p + acl->nallow, deny, ndeny * sizeof(*deny));
	acl->ndeny = klb_acl_normalise(acl->p + acl->nallow, ndeny);
	klb_obj_inc(KLB_OBJ_ACL);
	return acl;
}

static void klb_acl_free_rcu(struct rcu_head *rcu)
{
	klb_acl_destroy(container_of(rcu, struct klb_acl, rcu));
}

void klb_acl_free(struct klb_acl *acl)
{
	if (acl)
		call_rcu(&acl->rcu, klb_acl_free_rcu);
}

void klb_acl_destroy(struct klb_acl *acl)
{
	if (!acl)
		return;
	kfree(acl);
	klb_obj_dec(KLB_OBJ_ACL);
}

bool klb_acl_allows_flow(const struct klb_acl *acl,
			 const struct klb_flow *flow)
{
	struct klb_acl_addr a;

	if (!acl)
		return true;
	klb_acl_addr(flow->family, &flow->saddr, &a);
	return klb_acl_allows(acl->p, acl->nallow, acl->p + acl->nallow,
			      acl->ndeny, &a);
}
