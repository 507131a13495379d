/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Address rewriting (nat.c) and the per-packet accounting of a translated
 * packet; used by the hooks and the ICMP code.
 */
#ifndef _KLB_L4_NAT_H
#define _KLB_L4_NAT_H

#include <linux/skbuff.h>

#include "l4/conn.h"
#include "l4/pkt.h"

/*
 * Rewrite the source (@src) or destination address and port of a TCP or
 * UDP packet, fixing the IPv4 header and L4 checksums for every
 * ip_summed mode. Returns 0 or -ENOMEM.
 */
int klb_nat_rewrite(struct sk_buff *skb, const struct klb_pkt *p, bool src,
		    const union nf_inet_addr *addr, __be16 port);

/*
 * Count a translated packet on its service and backend: one per skb and
 * its L3 length, as netfilter counters (nft, iptables) and IPVS count, so
 * that both ends of a connection can be compared with them; a GSO
 * super-packet counts once.
 */
static inline void klb_conn_account(const struct klb_conn *c,
				    const struct sk_buff *skb,
				    const struct klb_pkt *p, bool reply)
{
	unsigned int len = skb->len - p->nhoff;

	klb_stats_packet(c->svc->stats, reply, len);
	klb_stats_packet(c->be->stats, reply, len);
}

#endif /* _KLB_L4_NAT_H */
