// SPDX-License-Identifier: GPL-2.0
/*
 * klb packet parsing and L3/L4 address rewriting.
 *
 * Checksums are updated incrementally with the inet_proto_csum_replace*
 * helpers, which do the right thing for each ip_summed mode:
 *  - CHECKSUM_PARTIAL (locally generated or offloaded, GSO included): the
 *    L4 check field holds the pseudo-header sum only, so only address
 *    changes are folded in; the device or the GSO code finishes the job.
 *  - CHECKSUM_COMPLETE: skb->csum covers the packet; changing a pseudo
 *    header address changes the L4 check field without a compensating
 *    data change, so skb->csum is adjusted too. A port change and its
 *    check-field change cancel out.
 *  - CHECKSUM_NONE / UNNECESSARY: the check field is simply updated.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "klb.h"
#include "nat.h"

static enum klb_parse klb_parse_l4(struct sk_buff *skb, struct klb_pkt *p)
{
	unsigned int room;

	switch (p->proto) {
	case IPPROTO_TCP: {
		const struct tcphdr *th;

		if (!pskb_may_pull(skb, p->l4off + sizeof(*th)))
			return KLB_PARSE_IGNORE;
		th = (const struct tcphdr *)(skb->data + p->l4off);
		p->tuple.sport = th->source;
		p->tuple.dport = th->dest;
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
		p->tuple.sport = uh->source;
		p->tuple.dport = uh->dest;
		p->l4hlen = sizeof(*uh);
		/* A GSO super-packet's length field is fixed up per segment. */
		ulen = ntohs(uh->len);
		room = skb->len - p->l4off;
		if (!skb_is_gso(skb) && (ulen < sizeof(*uh) || ulen > room))
			return KLB_PARSE_BAD;
		return KLB_PARSE_OK;
	}
	case IPPROTO_ICMP:
		if (p->family != AF_INET)
			return KLB_PARSE_IGNORE;
		p->l4hlen = sizeof(struct icmphdr);
		return KLB_PARSE_OK;
	case IPPROTO_ICMPV6:
		if (p->family != AF_INET6)
			return KLB_PARSE_IGNORE;
		p->l4hlen = sizeof(struct icmp6hdr);
		return KLB_PARSE_OK;
	}
	return KLB_PARSE_IGNORE;
}

/*
 * Fragments never reach us whole-packet-wise: nf_defrag runs before our
 * request hooks and output fragmentation happens after our reply hooks,
 * so a fragment here is someone else's business (e.g. defrag disabled by
 * a raw-table NOTRACK path); it is left alone.
 */
static enum klb_parse klb_parse_ipv4(struct sk_buff *skb, struct klb_pkt *p)
{
	const struct iphdr *iph;

	if (!pskb_may_pull(skb, p->nhoff + sizeof(*iph)))
		return KLB_PARSE_IGNORE;
	iph = (const struct iphdr *)(skb->data + p->nhoff);
	if (iph->version != 4 || iph->ihl < 5 || ip_is_fragment(iph))
		return KLB_PARSE_IGNORE;
	p->proto = iph->protocol;
	p->l4off = p->nhoff + iph->ihl * 4;
	p->tuple.saddr.ip = iph->saddr;
	p->tuple.daddr.ip = iph->daddr;
	if (p->l4off > skb->len)
		return KLB_PARSE_IGNORE;
	return klb_parse_l4(skb, p);
}

static enum klb_parse klb_parse_ipv6(struct sk_buff *skb, struct klb_pkt *p)
{
	const struct ipv6hdr *ip6h;
	__be16 frag_off = 0;
	u8 nexthdr;
	int off;

	if (!pskb_may_pull(skb, p->nhoff + sizeof(*ip6h)))
		return KLB_PARSE_IGNORE;
	ip6h = (const struct ipv6hdr *)(skb->data + p->nhoff);
	if (ip6h->version != 6)
		return KLB_PARSE_IGNORE;
	p->tuple.saddr.in6 = ip6h->saddr;
	p->tuple.daddr.in6 = ip6h->daddr;
	nexthdr = ip6h->nexthdr;
	off = ipv6_skip_exthdr(skb, p->nhoff + sizeof(*ip6h), &nexthdr,
			       &frag_off);
	if (off < 0 || (frag_off & htons(IP6_OFFSET | IP6_MF)))
		return KLB_PARSE_IGNORE;
	p->proto = nexthdr;
	p->l4off = off;
	return klb_parse_l4(skb, p);
}

enum klb_parse klb_pkt_parse(struct sk_buff *skb, u16 family,
			     struct klb_pkt *p)
{
	memset(p, 0, sizeof(*p));
	p->family = family;
	p->nhoff = skb_network_offset(skb);
	if (family == AF_INET)
		return klb_parse_ipv4(skb, p);
	return klb_parse_ipv6(skb, p);
}

int klb_nat_rewrite(struct sk_buff *skb, const struct klb_pkt *p, bool src,
		    const union nf_inet_addr *addr, __be16 port)
{
	unsigned int csum_off;
	bool l4_csum = true;
	__be16 *portp;
	__sum16 *check;

	if (p->proto == IPPROTO_TCP)
		csum_off = offsetof(struct tcphdr, check);
	else
		csum_off = offsetof(struct udphdr, check);
	if (skb_ensure_writable(skb, p->l4off + csum_off + sizeof(*check)))
		return -ENOMEM;

	portp = (__be16 *)(skb->data + p->l4off) + (src ? 0 : 1);
	check = (__sum16 *)(skb->data + p->l4off + csum_off);
	/* IPv4 UDP without checksum stays without checksum. */
	if (p->proto == IPPROTO_UDP && p->family == AF_INET && !*check &&
	    skb->ip_summed != CHECKSUM_PARTIAL)
		l4_csum = false;

	if (p->family == AF_INET) {
		struct iphdr *iph = (struct iphdr *)(skb->data + p->nhoff);
		__be32 *ap = src ? &iph->saddr : &iph->daddr;

		if (l4_csum)
			inet_proto_csum_replace4(check, skb, *ap, addr->ip,
						 true);
		csum_replace4(&iph->check, *ap, addr->ip);
		*ap = addr->ip;
	} else {
		struct ipv6hdr *ip6h = (struct ipv6hdr *)(skb->data + p->nhoff);
		struct in6_addr *ap = src ? &ip6h->saddr : &ip6h->daddr;

		inet_proto_csum_replace16(check, skb, ap->s6_addr32,
					  addr->ip6, true);
		*ap = addr->in6;
	}

	if (l4_csum) {
		inet_proto_csum_replace2(check, skb, *portp, port, false);
		/* 0 means "no checksum" for UDP: send its other spelling. */
		if (p->proto == IPPROTO_UDP && !*check &&
		    skb->ip_summed != CHECKSUM_PARTIAL)
			*check = CSUM_MANGLED_0;
	}
	*portp = port;
	return 0;
}
