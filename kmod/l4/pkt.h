/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one L3/L4 header walk of the L4 datapath (pkt.c): the hooks parse
 * every packet with it, and the ICMP code parses the packet an error
 * quotes with the same IP walk.
 */
#ifndef _KLB_L4_PKT_H
#define _KLB_L4_PKT_H

#include <linux/skbuff.h>

#include "flow.h"

/* TCP flags the state machine looks at (struct klb_pkt.tcpflags). */
#define KLB_TCP_FIN	BIT(0)
#define KLB_TCP_SYN	BIT(1)
#define KLB_TCP_RST	BIT(2)
#define KLB_TCP_ACK	BIT(3)

/* What the hooks need to know about a packet, from one parse. */
struct klb_pkt {
	unsigned int nhoff;	/* network header, from skb->data */
	unsigned int l4off;	/* transport header, from skb->data */
	unsigned int l4hlen;	/* transport header length */
	u8 tcpflags;		/* KLB_TCP_* */
	struct klb_flow flow;	/* as on the wire; ports 0 for ICMP */
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
 * Walk the IP header at @nhoff (IPv6: and its extension headers) of a
 * packet of @flow->family: fill @flow's addresses and protocol and return
 * the offset of the L4 header, or -1 for a packet that is not for us (not
 * IP of that version, truncated, or a fragment). @first_frag_ok: a first
 * fragment is fine, as in the quote of an ICMP error (it has the ports).
 */
int klb_ip_walk(struct sk_buff *skb, unsigned int nhoff,
		struct klb_flow *flow, bool first_frag_ok);

#endif /* _KLB_L4_PKT_H */
