/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klb packet parsing and address rewriting: private interface between
 * nat.c, icmp.c and hooks.c.
 */
#ifndef _KLB_NAT_H
#define _KLB_NAT_H

#include <linux/skbuff.h>
#include "conn.h"

/* What the hooks need to know about a packet, from one parse. */
struct klb_pkt {
	unsigned int nhoff;	/* network header, from skb->data */
	unsigned int l4off;	/* transport header, from skb->data */
	unsigned int l4hlen;	/* transport header length */
	u16 family;
	u8 proto;		/* TCP, UDP, ICMP or ICMPV6 */
	u8 tcpflags;		/* KLB_TCP_* */
	struct klb_tuple tuple;	/* as on the wire; ports 0 for ICMP */
};

enum klb_parse {
	KLB_PARSE_OK,
	KLB_PARSE_IGNORE,	/* not TCP/UDP/ICMP, a fragment, or too short
				 * to know: not ours, let it pass
				 */
	KLB_PARSE_BAD,		/* tuple known, L4 header inconsistent */
};

enum klb_parse klb_pkt_parse(struct sk_buff *skb, u16 family,
			     struct klb_pkt *p);

/*
 * Rewrite the source (@src) or destination address and port of a TCP or
 * UDP packet, fixing the IPv4 header and L4 checksums for every
 * ip_summed mode. Returns 0 or -ENOMEM.
 */
int klb_nat_rewrite(struct sk_buff *skb, const struct klb_pkt *p, bool src,
		    const union nf_inet_addr *addr, __be16 port);

/* icmp.c: translate an ICMP error that belongs to a connection. */
unsigned int klb_icmp_request(struct klb_net *kn, struct sk_buff *skb,
			      const struct klb_pkt *p);
unsigned int klb_icmp_reply(struct klb_net *kn, struct sk_buff *skb,
			    const struct klb_pkt *p);

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

#endif /* _KLB_NAT_H */
