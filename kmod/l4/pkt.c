// SPDX-License-Identifier: GPL-2.0
/*
 * The L3/L4 header walk: what a packet is, in one pass over headers that
 * are (made) linear. Fragments never reach the request hooks whole-packet
 * wise: nf_defrag runs before them and output fragmentation after the
 * reply hooks, so a fragment here is someone else's business (e.g. defrag
 * bypassed by a raw-table NOTRACK rule); it is left alone.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "l4/pkt.h"

static int klb_ipv4_walk(struct sk_buff *skb, unsigned int nhoff,
			 struct klb_flow *flow, bool first_frag_ok)
{
	const struct iphdr *iph;
	unsigned int l4off;
	__be16 frag;

	if (!pskb_may_pull(skb, nhoff + sizeof(*iph)))
		return -1;
	iph = (const struct iphdr *)(skb->data + nhoff);
	frag = first_frag_ok ? htons(IP_OFFSET) : htons(IP_OFFSET | IP_MF);
	if (iph->version != 4 || iph->ihl < 5 || (iph->frag_off & frag))
		return -1;
	l4off = nhoff + iph->ihl * 4;
	if (l4off > skb->len)
		return -1;
	flow->proto = iph->protocol;
	flow->saddr.ip = iph->saddr;
	flow->daddr.ip = iph->daddr;
	return l4off;
}

static int klb_ipv6_walk(struct sk_buff *skb, unsigned int nhoff,
			 struct klb_flow *flow, bool first_frag_ok)
{
	const struct ipv6hdr *ip6h;
	__be16 frag_off = 0, frag;
	u8 nexthdr;
	int off;

	if (!pskb_may_pull(skb, nhoff + sizeof(*ip6h)))
		return -1;
	ip6h = (const struct ipv6hdr *)(skb->data + nhoff);
	if (ip6h->version != 6)
		return -1;
	flow->saddr.in6 = ip6h->saddr;
	flow->daddr.in6 = ip6h->daddr;
	nexthdr = ip6h->nexthdr;
	off = ipv6_skip_exthdr(skb, nhoff + sizeof(*ip6h), &nexthdr,
			       &frag_off);
	frag = first_frag_ok ? htons(IP6_OFFSET) : htons(IP6_OFFSET | IP6_MF);
	if (off < 0 || (frag_off & frag))
		return -1;
	flow->proto = nexthdr;
	return off;
}

int klb_ip_walk(struct sk_buff *skb, unsigned int nhoff,
		struct klb_flow *flow, bool first_frag_ok)
{
	if (flow->family == AF_INET)
		return klb_ipv4_walk(skb, nhoff, flow, first_frag_ok);
	return klb_ipv6_walk(skb, nhoff, flow, first_frag_ok);
}

static enum klb_parse klb_parse_l4(struct sk_buff *skb, struct klb_pkt *p)
{
	unsigned int room;

	switch (p->flow.proto) {
	case IPPROTO_TCP: {
		const struct tcphdr *th;

		if (!pskb_may_pull(skb, p->l4off + sizeof(*th)))
			return KLB_PARSE_IGNORE;
		th = (const struct tcphdr *)(skb->data + p->l4off);
		p->flow.sport = th->source;
		p->flow.dport = th->dest;
		p->tcpflags = (th->fin ? KLB_TCP_FIN : 0) |
			      (th->syn ? KLB_TCP_SYN : 0) |
			      (th->rst ? KLB_TCP_RST : 0) |
			      (th->ack ? KLB_TCP_ACK : 0);
		p->l4hlen = th->doff * 4;
		room = skb->len - p->l4off;
		if (th->doff < sizeof(*th) / 4 || p->l4hlen > room)
			return KLB_PARSE_BAD;
		return KLB_PARSE_OK;
	}
	case IPPROTO_UDP: {
		const struct udphdr *uh;
		unsigned int ulen;

		if (!pskb_may_pull(skb, p->l4off + sizeof(*uh)))
			return KLB_PARSE_IGNORE;
		uh = (const struct udphdr *)(skb->data + p->l4off);
		p->flow.sport = uh->source;
		p->flow.dport = uh->dest;
		p->l4hlen = sizeof(*uh);
		/* A GSO super-packet's length field is fixed up per segment. */
		ulen = ntohs(uh->len);
		room = skb->len - p->l4off;
		if (!skb_is_gso(skb) && (ulen < sizeof(*uh) || ulen > room))
			return KLB_PARSE_BAD;
		return KLB_PARSE_OK;
	}
	case IPPROTO_ICMP:
		if (p->flow.family != AF_INET)
			return KLB_PARSE_IGNORE;
		p->l4hlen = sizeof(struct icmphdr);
		return KLB_PARSE_OK;
	case IPPROTO_ICMPV6:
		if (p->flow.family != AF_INET6)
			return KLB_PARSE_IGNORE;
		p->l4hlen = sizeof(struct icmp6hdr);
		return KLB_PARSE_OK;
	}
	return KLB_PARSE_IGNORE;
}

enum klb_parse klb_pkt_parse(struct sk_buff *skb, u16 family,
			     struct klb_pkt *p)
{
	int off;

	memset(p, 0, sizeof(*p));
	p->flow.family = family;
	p->nhoff = skb_network_offset(skb);
	off = klb_ip_walk(skb, p->nhoff, &p->flow, false);
	if (off < 0)
		return KLB_PARSE_IGNORE;
	p->l4off = off;
	return klb_parse_l4(skb, p);
}
