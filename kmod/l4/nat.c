// SPDX-License-Identifier: GPL-2.0
/*
 * L3/L4 address rewriting of a translated packet.
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
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/ip.h>
#include <net/ipv6.h>

#include "l4/nat.h"

int klb_nat_rewrite(struct sk_buff *skb, const struct klb_pkt *p, bool src,
		    const union nf_inet_addr *addr, __be16 port)
{
	unsigned int csum_off;
	bool l4_csum = true;
	__be16 *portp;
	__sum16 *check;

	if (p->flow.proto == IPPROTO_TCP)
		csum_off = offsetof(struct tcphdr, check);
	else
		csum_off = offsetof(struct udphdr, check);
	if (skb_ensure_writable(skb, p->l4off + csum_off + sizeof(*check)))
		return -ENOMEM;

	portp = (__be16 *)(skb->data + p->l4off) + (src ? 0 : 1);
	check = (__sum16 *)(skb->data + p->l4off + csum_off);
	/* IPv4 UDP without checksum stays without checksum. */
	if (p->flow.proto == IPPROTO_UDP && p->flow.family == AF_INET && !*check &&
	    skb->ip_summed != CHECKSUM_PARTIAL)
		l4_csum = false;

	if (p->flow.family == AF_INET) {
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
		if (p->flow.proto == IPPROTO_UDP && !*check &&
		    skb->ip_summed != CHECKSUM_PARTIAL)
			*check = CSUM_MANGLED_0;
	}
	*portp = port;
	return 0;
}
