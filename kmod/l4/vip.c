// SPDX-License-Identifier: GPL-2.0
/*
 * The VIP table: one RCU hash of services per network namespace
 * (kn->svc_hash), keyed by family, protocol, VIP and port. Every packet the
 * request hooks see that has no connection yet costs one lookup here.
 */
#include <linux/hash.h>
#include <linux/jhash.h>
#include <linux/net.h>
#include <linux/rculist.h>

#include "klb.h"
#include "flow.h"
#include "l4/vip.h"

static u32 klb_vip_seed __read_mostly;

static u32 klb_vip_hashfn(u16 family, u8 proto,
			  const union nf_inet_addr *addr, __be16 port)
{
	u32 h;

	net_get_random_once(&klb_vip_seed, sizeof(klb_vip_seed));
	if (family == AF_INET)
		h = (__force u32)addr->ip;
	else
		h = jhash2((const u32 *)addr->ip6, 4, klb_vip_seed);
	h = jhash_3words(h, (__force u32)port, proto, klb_vip_seed);
	return hash_32(h, KLB_SVC_HASH_BITS);
}

struct klb_service *klb_vip_lookup_rcu(struct klb_net *kn, u16 family,
				       u8 proto,
				       const union nf_inet_addr *addr,
				       __be16 port)
{
	u32 h = klb_vip_hashfn(family, proto, addr, port);
	struct klb_service *svc;

	hlist_for_each_entry_rcu(svc, &kn->svc_hash[h], vip_node)
		if (svc->port == port && svc->proto == proto &&
		    svc->family == family &&
		    klb_addr_equal(family, &svc->addr, addr))
			return svc;
	return NULL;
}

void klb_vip_hash(struct klb_net *kn, struct klb_service *svc)
{
	u32 h = klb_vip_hashfn(svc->family, svc->proto, &svc->addr, svc->port);

	klb_assert_locked(kn);
	hlist_add_head_rcu(&svc->vip_node, &kn->svc_hash[h]);
}

void klb_vip_unhash(struct klb_net *kn, struct klb_service *svc)
{
	klb_assert_locked(kn);
	hlist_del_init_rcu(&svc->vip_node);
}
