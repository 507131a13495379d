/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The VIP table (vip.c): services by (family, protocol, address, port), for
 * the datapath. The config layer hashes a service once it is ready to take
 * packets and unhashes it before it goes.
 */
#ifndef _KLB_L4_VIP_H
#define _KLB_L4_VIP_H

#include <linux/netfilter.h>

struct klb_net;
struct klb_service;

/* Under rcu_read_lock; the service stays valid until rcu_read_unlock(). */
struct klb_service *klb_vip_lookup_rcu(struct klb_net *kn, u16 family,
				       u8 proto,
				       const union nf_inet_addr *addr,
				       __be16 port);
/* Under kn->lock: visible to packets, ahead of any older twin (restore). */
void klb_vip_hash(struct klb_net *kn, struct klb_service *svc);
/* Under kn->lock: no new packet finds @svc after a grace period. */
void klb_vip_unhash(struct klb_net *kn, struct klb_service *svc);

#endif /* _KLB_L4_VIP_H */
