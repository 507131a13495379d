// SPDX-License-Identifier: GPL-2.0
/*
 * klb: translation of ICMP and ICMPv6 errors that belong to a connection.
 *
 * An error quotes the packet that caused it. When that packet was
 * translated by klb, the quote shows the translated addresses, which the
 * receiver of the error cannot match to its socket. Two cases:
 *
 *  (a) about a client -> backend packet (from the backend, or a router on
 *      the way to it; caught by the reply hooks): the quote becomes
 *      client -> VIP again, and an outer source equal to the backend
 *      becomes the VIP.
 *  (b) about a VIP -> client packet (from the client or a router on the
 *      way; addressed to the VIP; caught by the request hooks): the quote
 *      becomes backend -> client and the error is sent to the backend.
 *
 * fnat: in (a) the quote is balancer -> backend and the error comes to
 * the balancer (LOCAL_IN): quote and outer destination become the client's
 * and klb sends it on; in (b) the quote becomes backend -> balancer and the
 * outer source the balancer's address. dr, tun: the backend holds the VIP
 * and its replies skip klb, so only (b) happens, and the error is sent to
 * the backend unchanged, the way the client's packets go (PMTU towards the
 * client thus reaches the backend's socket).
 *
 * Errors are rare, so the ICMP checksum is verified in full before and
 * recomputed in full after (it covers the quote, and for ICMPv6 the
 * pseudo-header too) instead of being patched field by field.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/checksum.h>
#include <net/ip6_checksum.h>
#include <net/ipv6.h>

#include "l4/conn.h"
#include "l4/icmp.h"
#include "l4/nat.h"
#include "l4/vip.h"
#include "l4/xmit.h"
#include "l7/engine.h"

/* The quoted packet inside an ICMP error. */
struct klb_icmp_quote {
	unsigned int nhoff;	/* quoted IP header, from skb->data */
	unsigned int l4off;	/* quoted L4 header, from skb->data */
	struct klb_flow flow;	/* as quoted */
};

static bool klb_icmp_is_error(u16 family, u8 type)
{
	if (family == AF_INET)
		return type == ICMP_DEST_UNREACH || type == ICMP_TIME_EXCEEDED ||
		       type == ICMP_PARAMETERPROB;
	return type == ICMPV6_DEST_UNREACH || type == ICMPV6_PKT_TOOBIG ||
	       type == ICMPV6_TIME_EXCEED || type == ICMPV6_PARAMPROB;
}

static bool klb_icmp_parse(struct sk_buff *skb, const struct klb_pkt *p,
			   struct klb_icmp_quote *q)
{
	const __be16 *ports;
	int off;

	/* ICMP and ICMPv6 headers are both 8 bytes, type first. */
	if (!pskb_may_pull(skb, p->l4off + p->l4hlen))
		return false;
	if (!klb_icmp_is_error(p->flow.family, skb->data[p->l4off]))
		return false;

	memset(q, 0, sizeof(*q));
	q->nhoff = p->l4off + p->l4hlen;
	q->flow.family = p->flow.family;
	/* Only a first fragment quotes the ports. */
	off = klb_ip_walk(skb, q->nhoff, &q->flow, true);
	if (off < 0)
		return false;
	q->l4off = off;
	if (q->flow.proto != IPPROTO_TCP && q->flow.proto != IPPROTO_UDP)
		return false;
	/* RFC 792 promises 8 bytes of the quoted L4 header; we need 4. */
	if (!pskb_may_pull(skb, q->l4off + 2 * sizeof(__be16)))
		return false;
	ports = (const __be16 *)(skb->data + q->l4off);
	q->flow.sport = ports[0];
	q->flow.dport = ports[1];
	return true;
}

static __sum16 klb_icmp_csum(struct sk_buff *skb, const struct klb_pkt *p)
{
	unsigned int len = skb->len - p->l4off;
	__wsum csum = skb_checksum(skb, p->l4off, len, 0);
	const struct ipv6hdr *ip6h;

	if (p->flow.family == AF_INET)
		return csum_fold(csum);
	ip6h = (const struct ipv6hdr *)(skb->data + p->nhoff);
	return csum_ipv6_magic(&ip6h->saddr, &ip6h->daddr, len, IPPROTO_ICMPV6,
			       csum);
}

static void klb_icmp_csum_set(struct sk_buff *skb, const struct klb_pkt *p)
{
	__sum16 *check;

	if (p->flow.family == AF_INET)
		check = &((struct icmphdr *)(skb->data + p->l4off))->checksum;
	else
		check = &((struct icmp6hdr *)(skb->data + p->l4off))->icmp6_cksum;
	*check = 0;
	*check = klb_icmp_csum(skb, p);
	/* skb->csum no longer describes the packet; software rechecks it. */
	if (skb->ip_summed == CHECKSUM_COMPLETE)
		skb->ip_summed = CHECKSUM_NONE;
}

/* Replace an address inside data that no offload engine will touch. */
static void klb_csum_addr(__sum16 *check, u16 family, const __be32 *from,
			  const __be32 *to)
{
	int i;

	for (i = 0; i < (family == AF_INET ? 1 : 4); i++)
		csum_replace4(check, from[i], to[i]);
}

/* Rewrite the outer source (@src) or destination address. */
static void klb_icmp_set_outer(struct sk_buff *skb, const struct klb_pkt *p,
			       bool src, const union nf_inet_addr *addr)
{
	if (p->flow.family == AF_INET) {
		struct iphdr *iph = (struct iphdr *)(skb->data + p->nhoff);
		__be32 *ap = src ? &iph->saddr : &iph->daddr;

		csum_replace4(&iph->check, *ap, addr->ip);
		*ap = addr->ip;
	} else {
		struct ipv6hdr *ip6h = (struct ipv6hdr *)(skb->data + p->nhoff);

		*(src ? &ip6h->saddr : &ip6h->daddr) = addr->in6;
	}
}

/*
 * Rewrite the quoted source (@src) or destination address and port, with
 * the quoted IPv4 header checksum and, best effort, the quoted L4
 * checksum when the quote is long enough to hold it.
 */
static void klb_icmp_set_quote(struct sk_buff *skb,
			       const struct klb_icmp_quote *q, u16 family,
			       bool src, const union nf_inet_addr *addr,
			       __be16 port)
{
	unsigned int csum_off = q->flow.proto == IPPROTO_TCP ?
				offsetof(struct tcphdr, check) :
				offsetof(struct udphdr, check);
	__be16 *portp = (__be16 *)(skb->data + q->l4off) + (src ? 0 : 1);
	__sum16 *check = NULL;
	__be32 *ap;

	if (q->l4off + csum_off + sizeof(*check) <= skb_headlen(skb))
		check = (__sum16 *)(skb->data + q->l4off + csum_off);
	/* A quoted IPv4 UDP checksum of 0 means none. */
	if (check && q->flow.proto == IPPROTO_UDP && family == AF_INET && !*check)
		check = NULL;

	if (family == AF_INET) {
		struct iphdr *iph = (struct iphdr *)(skb->data + q->nhoff);

		ap = src ? &iph->saddr : &iph->daddr;
		csum_replace4(&iph->check, *ap, addr->ip);
	} else {
		struct ipv6hdr *ip6h = (struct ipv6hdr *)(skb->data + q->nhoff);

		ap = (src ? &ip6h->saddr : &ip6h->daddr)->s6_addr32;
	}
	if (check) {
		klb_csum_addr(check, family, ap, addr->ip6);
		csum_replace2(check, *portp, port);
		if (q->flow.proto == IPPROTO_UDP && !*check)
			*check = CSUM_MANGLED_0;
	}
	memcpy(ap, addr->ip6, family == AF_INET ? 4 : 16);
	*portp = port;
}

/*
 * Make the parts we write linear and private and check the ICMP checksum.
 * Pointers into skb->data are stale afterwards.
 */
static bool klb_icmp_prepare(struct sk_buff *skb, const struct klb_pkt *p,
			     const struct klb_icmp_quote *q)
{
	unsigned int end = q->l4off + (q->flow.proto == IPPROTO_TCP ?
				       offsetof(struct tcphdr, check) :
				       offsetof(struct udphdr, check)) +
			   sizeof(__sum16);

	if (skb->ip_summed != CHECKSUM_UNNECESSARY && klb_icmp_csum(skb, p))
		return false;
	return !skb_ensure_writable(skb, min(end, skb->len));
}

unsigned int klb_icmp_reply(struct klb_net *kn, struct sk_buff *skb,
			    const struct klb_pkt *p, unsigned int hook)
{
	const struct klb_flow *o;
	struct klb_icmp_quote q;
	struct klb_flow key;
	struct klb_conn *c;
	const union nf_inet_addr *backend;

	if (!klb_icmp_parse(skb, p, &q))
		return NF_ACCEPT;
	/* The quote is client -> backend: look for that reply tuple. */
	klb_flow_reverse(&key, &q.flow);
	c = klb_conn_find(kn->conns, &key, KLB_DIR_REPLY);
	/* dr, tun: nothing to translate; fnat: only addressed to us. */
	if (!c || klb_conn_oneway(c) ||
	    (c->svc->mode == KLB_MODE_FNAT && hook != NF_INET_LOCAL_IN))
		return NF_ACCEPT;

	if (!klb_icmp_prepare(skb, p, &q)) {
		klb_stats_drop(c->svc->stats, KLB_DROP_BAD_PACKET);
		return NF_DROP;
	}
	o = &c->h[KLB_DIR_ORIG].flow;
	backend = &c->h[KLB_DIR_REPLY].flow.saddr;
	klb_icmp_set_quote(skb, &q, p->flow.family, false, &o->daddr, o->dport);
	if (klb_addr_equal(p->flow.family, &p->flow.saddr, backend))
		klb_icmp_set_outer(skb, p, true, &o->daddr);
	if (c->svc->mode == KLB_MODE_FNAT) {
		klb_icmp_set_quote(skb, &q, p->flow.family, true, &o->saddr,
				   o->sport);
		klb_icmp_set_outer(skb, p, false, &o->saddr);
	}
	klb_icmp_csum_set(skb, p);
	klb_conn_account(c, skb, p, true);
	if (c->svc->mode == KLB_MODE_FNAT &&
	    !test_bit(KLB_CONN_F_LOCAL, &c->flags))
		return klb_xmit_routed(kn->net, skb, c->svc, &o->saddr, NULL,
				       true);
	return NF_ACCEPT;
}

/*
 * An error about a segment an http or tls service's socket sent from its
 * VIP (e.g. "fragmentation needed" on the way to the client): deliver it
 * locally as the segments to the VIP are, so that TCP sees it (PMTU).
 */
static unsigned int klb_icmp_l7(struct klb_net *kn, struct sk_buff *skb,
				const struct klb_pkt *p,
				const struct klb_icmp_quote *q)
{
	struct klb_service *svc;

	/* LOCAL_OUT: routed already, klb_l7_steer() leaves it alone. */
	if (q->flow.proto != IPPROTO_TCP)
		return NF_ACCEPT;
	svc = klb_vip_lookup_rcu(kn, q->flow.family, q->flow.proto,
				 &q->flow.saddr, q->flow.sport);
	if (!svc || !klb_mode_l7(svc->mode))
		return NF_ACCEPT;
	return klb_l7_steer(kn, svc, skb);
}

unsigned int klb_icmp_request(struct klb_net *kn, struct sk_buff *skb,
			      const struct klb_pkt *p, bool local)
{
	const struct klb_flow *r;
	struct klb_icmp_quote q;
	struct klb_flow key;
	struct klb_conn *c;
	u8 mode;

	if (!klb_icmp_parse(skb, p, &q))
		return NF_ACCEPT;
	/* The quote is VIP -> client, and the error goes to the VIP. */
	if (!klb_addr_equal(p->flow.family, &p->flow.daddr, &q.flow.saddr))
		return NF_ACCEPT;
	klb_flow_reverse(&key, &q.flow);
	c = klb_conn_find(kn->conns, &key, KLB_DIR_ORIG);
	if (!c)
		return klb_icmp_l7(kn, skb, p, &q);

	mode = c->svc->mode;
	if (local && mode != KLB_MODE_NAT)
		return NF_ACCEPT;
	if (mode == KLB_MODE_DR || mode == KLB_MODE_TUN) {
		klb_conn_account(c, skb, p, false);
		return mode == KLB_MODE_DR ?
		       klb_xmit_dr(kn->net, skb, c->svc, c->be) :
		       klb_xmit_tun(kn->net, skb, c->svc, c->be);
	}
	if (!klb_icmp_prepare(skb, p, &q)) {
		klb_stats_drop(c->svc->stats, KLB_DROP_BAD_PACKET);
		return NF_DROP;
	}
	r = &c->h[KLB_DIR_REPLY].flow;
	klb_icmp_set_quote(skb, &q, p->flow.family, true, &r->saddr, r->sport);
	klb_icmp_set_outer(skb, p, false, &r->saddr);
	if (mode == KLB_MODE_FNAT) {
		klb_icmp_set_quote(skb, &q, p->flow.family, false, &r->daddr,
				   r->dport);
		klb_icmp_set_outer(skb, p, true, &r->daddr);
	}
	klb_icmp_csum_set(skb, p);
	klb_conn_account(c, skb, p, false);
	if (mode == KLB_MODE_FNAT)
		return klb_xmit_routed(kn->net, skb, c->svc, &r->saddr,
				       &r->daddr, false);
	return NF_ACCEPT;
}
