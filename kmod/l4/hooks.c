// SPDX-License-Identifier: GPL-2.0
/*
 * klb netfilter hooks: where packets enter the L4 datapath.
 *
 * Requests (client -> VIP) are caught in PRE_ROUTING and LOCAL_OUT just
 * before conntrack, after defragmentation: the destination becomes the
 * chosen backend before routing (PRE_ROUTING) or followed by a re-route
 * (LOCAL_OUT). If nf_conntrack is loaded it thus only ever sees the
 * client <-> backend flow, and recognises the backend's packets as replies.
 *
 * Replies (backend -> client) are caught in FORWARD (routed on to a remote
 * client; ahead of IPVS, see KLB_PRI_FORWARD_REPLY), POST_ROUTING (sent by
 * this host to a remote client) and LOCAL_IN (to a local client, after NAT),
 * after conntrack has seen them and after routing and reverse-path
 * filtering used the real addresses; their source becomes the VIP again.
 *
 * The reply hooks see every packet of the namespace, so their miss path is
 * one parse of headers already in the linear area and one hash lookup.
 *
 * The other L4 modes leave through klb's own transmit paths (xmit.c):
 *  - fnat: requests are rewritten both ways in PRE_ROUTING and routed as
 *    output (their new source is local: the input route would call it a
 *    martian); replies come to the balancer's address, so LOCAL_IN finds
 *    them, after the input route checked the real addresses, and sends
 *    them on to the client. A local client (LOCAL_OUT) is re-routed as in
 *    nat, and its replies are delivered locally.
 *  - dr, tun: requests are sent to the backend from PRE_ROUTING; replies
 *    do not come back. Local clients are not balanced in these modes
 *    (their packets go on unchanged), as the backend answers from the VIP.
 * Packets klb transmits itself skip conntrack on the way in.
 */
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <net/dst.h>
#include <net/sock.h>

#include "l4/adopt.h"
#include "l4/conn.h"
#include "l4/fnat.h"
#include "l4/hooks.h"
#include "l4/icmp.h"
#include "acl.h"
#include "l4/nat.h"
#include "l4/persist.h"
#include "l4/vip.h"
#include "l4/xmit.h"
#include "l7/engine.h"
#include "sched/table.h"

static void klb_drop_count(struct klb_service *svc, enum klb_drop_reason why)
{
	klb_stats_drop(svc->stats, why);
}

/* Why a new connection could not be made. */
static enum klb_drop_reason klb_conn_new_drop(long err)
{
	switch (err) {
	case -EADDRINUSE:	/* this backend cannot take this client port */
		return KLB_DROP_NO_BACKEND;
	case -EADDRNOTAVAIL:	/* fnat: no free source port */
		return KLB_DROP_NO_PORT;
	case -ENETUNREACH:	/* fnat: no source address towards it */
		return KLB_DROP_NO_ROUTE;
	case -EPROTO:		/* adopt: the pick needs more than the headers */
		return KLB_DROP_BAD_PACKET;
	case -ENOENT:		/* adopt: no backend */
		return KLB_DROP_NO_BACKEND;
	case -EDQUOT:		/* adopt: net.klb.adopt_max */
		return KLB_DROP_ADOPT_FULL;
	default:		/* -ENOSPC, -ENOMEM */
		return KLB_DROP_TABLE_FULL;
	}
}

/*
 * Schedule a new connection for the first packet of a flow; @local: the
 * client is on this host (LOCAL_OUT).
 */
static struct klb_conn *klb_conn_schedule(struct klb_net *kn,
					  struct klb_service *svc,
					  const struct klb_pkt *p, bool local)
{
	struct klb_persist *pe = NULL;
	struct klb_sched_table *table;
	struct klb_backend *be = NULL;
	struct klb_pool *pool;
	struct klb_conn *c;
	bool adopt = false;

	if (p->flow.proto == IPPROTO_TCP &&
	    (p->tcpflags & (KLB_TCP_SYN | KLB_TCP_ACK | KLB_TCP_RST |
			    KLB_TCP_FIN)) != KLB_TCP_SYN) {
		/*
		 * Only a fresh SYN opens a TCP connection, but in dr and
		 * tun a flow another balancer scheduled may be adopted
		 * mid-way (l4/adopt.c). Never by a RST.
		 */
		adopt = klb_adopt_wanted(svc, p->tcpflags);
		if (!adopt) {
			klb_drop_count(svc, KLB_DROP_BAD_PACKET);
			return NULL;
		}
	}
	/* A service without source lists pays one load and test. */
	if (!klb_acl_allows_flow(rcu_dereference(svc->acl), &p->flow)) {
		klb_drop_count(svc, KLB_DROP_ACL);
		return NULL;
	}

	pool = rcu_dereference(svc->pool);
	table = pool ? rcu_dereference(pool->table) : NULL;
	if (unlikely(adopt)) {
		c = klb_conn_adopt(kn, svc, table, &p->flow);
		goto made;
	}
	/* A service without persistence pays this one test. */
	if (READ_ONCE(svc->persist_timeout))
		be = klb_persist_pick(kn, svc, pool, table, &p->flow, &pe);
	else if (table)
		be = klb_sched_pick(table, &p->flow);
	if (!be || be->family != p->flow.family) {
		klb_persist_put(pe);
		klb_drop_count(svc, !be && klb_sched_has_backends(table) ?
				    KLB_DROP_MAXCONN : KLB_DROP_NO_BACKEND);
		return NULL;
	}

	if (svc->mode == KLB_MODE_FNAT)
		c = klb_fnat_conn_new(kn, svc, be, &p->flow, pe);
	else
		c = klb_conn_new(kn, svc, be, &p->flow, pe);
made:
	if (IS_ERR(c)) {
		klb_drop_count(svc, klb_conn_new_drop(PTR_ERR(c)));
		return NULL;
	}
	if (local)
		set_bit(KLB_CONN_F_LOCAL, &c->flags);
	return c;
}

/*
 * Forward a client's packet of connection @c. nat: the destination is
 * rewritten and the caller routes it. fnat: the source too, and it is
 * sent from here unless the client is local. dr, tun: sent from here.
 * Returns NF_ACCEPT, NF_STOLEN or NF_DROP.
 */
static unsigned int klb_forward(struct klb_net *kn, struct klb_conn *c,
				struct sk_buff *skb, const struct klb_pkt *p,
				bool local)
{
	const struct klb_flow *r = &c->h[KLB_DIR_REPLY].flow;
	struct klb_service *svc = c->svc;
	u8 mode = svc->mode;

	if (mode == KLB_MODE_FNAT && !local &&
	    !klb_xmit_route(kn->net, skb, svc, &r->saddr, &r->daddr, false))
		return NF_DROP;
	if (mode == KLB_MODE_NAT || mode == KLB_MODE_FNAT) {
		if (klb_nat_rewrite(skb, p, false, &r->saddr, r->sport))
			return NF_DROP;
		if (mode == KLB_MODE_FNAT &&
		    klb_nat_rewrite(skb, p, true, &r->daddr, r->dport))
			return NF_DROP;
	}
	klb_conn_seen(kn, c, KLB_DIR_ORIG, p->tcpflags);
	klb_conn_account(c, skb, p, false);

	switch (mode) {
	case KLB_MODE_FNAT:
		return local ? NF_ACCEPT : klb_xmit_send(kn->net, skb, svc->family);
	case KLB_MODE_DR:
		return klb_xmit_dr(kn->net, skb, svc, c->be);
	case KLB_MODE_TUN:
		return klb_xmit_tun(kn->net, skb, svc, c->be);
	}
	return NF_ACCEPT;
}

/* A new SYN on a finished connection's tuple starts afresh. */
static bool klb_conn_finished(const struct klb_conn *c, u8 tcpflags)
{
	return (tcpflags & (KLB_TCP_SYN | KLB_TCP_ACK)) == KLB_TCP_SYN &&
	       klb_conn_done(c);
}

/*
 * A packet to @svc's VIP. Called with BH disabled under rcu_read_lock.
 * Returns NF_ACCEPT (nat, fnat from a local client: rewritten, for the
 * caller to route), NF_STOLEN (sent on by klb) or NF_DROP.
 */
static unsigned int klb_request_svc(struct klb_net *kn, struct klb_service *svc,
				    struct sk_buff *skb, enum klb_parse res,
				    const struct klb_pkt *p, bool local)
{
	struct klb_conn_table *t = kn->conns;
	struct klb_conn *c;

	if (res == KLB_PARSE_BAD) {
		klb_drop_count(svc, KLB_DROP_BAD_PACKET);
		return NF_DROP;
	}

	c = klb_conn_find(t, &p->flow, KLB_DIR_ORIG);
	if (c && klb_conn_finished(c, p->tcpflags)) {
		klb_conn_expire(t, c);
		c = NULL;
	}
	if (!c) {
		c = klb_conn_schedule(kn, svc, p, local);
		if (!c)
			return NF_DROP;
	}
	return klb_forward(kn, c, skb, p, local);
}

/* dr and tun do not balance local clients (see the top of this file). */
static bool klb_mode_remote_only(u8 mode)
{
	return mode == KLB_MODE_DR || mode == KLB_MODE_TUN;
}

static unsigned int klb_request(struct sk_buff *skb,
				const struct nf_hook_state *state,
				enum klb_parse res, const struct klb_pkt *p)
{
	struct klb_net *kn = klb_net(state->net);
	struct klb_service *svc;
	unsigned int verdict;

	bool local = state->hook == NF_INET_LOCAL_OUT;

	/* LOCAL_OUT may run in process context: keep per-CPU counters safe. */
	local_bh_disable();
	if (p->flow.proto == IPPROTO_ICMP || p->flow.proto == IPPROTO_ICMPV6) {
		verdict = klb_icmp_request(kn, skb, p, local);
	} else {
		svc = klb_vip_lookup_rcu(kn, p->flow.family, p->flow.proto,
					 &p->flow.daddr, p->flow.dport);
		if (!svc)
			verdict = NF_ACCEPT;
		else if (klb_mode_l7(svc->mode))
			/* L7: TCP terminates here; a local client needs a local VIP. */
			verdict = local ? NF_ACCEPT : klb_l7_steer(kn, svc, skb);
		else if (local && klb_mode_remote_only(svc->mode))
			verdict = NF_ACCEPT;
		else
			verdict = klb_request_svc(kn, svc, skb, res, p, local);
	}
	local_bh_enable();
	return verdict;
}

/* Did the destination change? Then the route chosen so far is stale. */
static bool klb_daddr_changed(const struct sk_buff *skb, u16 family,
			      const struct klb_pkt *p)
{
	if (family == AF_INET)
		return ip_hdr(skb)->daddr != p->flow.daddr.ip;
	return !ipv6_addr_equal(&ipv6_hdr(skb)->daddr, &p->flow.daddr.in6);
}

static unsigned int klb_prerouting(struct sk_buff *skb,
				   const struct nf_hook_state *state,
				   u16 family)
{
	enum klb_parse res;
	struct klb_pkt p;
	unsigned int verdict;

	res = klb_pkt_parse(skb, family, &p);
	if (res == KLB_PARSE_IGNORE)
		return NF_ACCEPT;
	verdict = klb_request(skb, state, res, &p);
	if (verdict == NF_ACCEPT && skb_dst(skb) &&
	    klb_daddr_changed(skb, family, &p))
		skb_dst_drop(skb);
	return verdict;
}

static unsigned int klb_local_out(struct sk_buff *skb,
				  const struct nf_hook_state *state,
				  u16 family)
{
	enum klb_parse res;
	struct klb_pkt p;
	unsigned int verdict;
	int err;

	res = klb_pkt_parse(skb, family, &p);
	if (res == KLB_PARSE_IGNORE)
		return NF_ACCEPT;
	verdict = klb_request(skb, state, res, &p);
	if (verdict != NF_ACCEPT || !klb_daddr_changed(skb, family, &p))
		return verdict;

	if (family == AF_INET)
		err = klb_route_me_harder4(state->net, state->sk, skb);
	else
		err = klb_route_me_harder6(state->net, state->sk, skb);
	return err < 0 ? NF_DROP : NF_ACCEPT;
}

/*
 * A backend's packet of connection @c, in @hook. nat: the source becomes
 * the VIP again. fnat (LOCAL_IN only: it is addressed to the balancer):
 * the destination becomes the client too, and it is sent on unless the
 * client is local. dr, tun: seen only if klb routes the backend's way to
 * the client; counted, unchanged. A dr or tun reply that this host only
 * bridges (br_netfilter shows it to the IP hooks) passes klb by, as it
 * would without br_netfilter: the state follows the client alone.
 */
static unsigned int klb_reply_conn(struct klb_net *kn, struct klb_conn *c,
				   struct sk_buff *skb,
				   const struct klb_pkt *p, unsigned int hook)
{
	const struct klb_flow *o = &c->h[KLB_DIR_ORIG].flow;
	u8 mode = c->svc->mode;
	bool fnat = mode == KLB_MODE_FNAT;
	bool send = fnat && !test_bit(KLB_CONN_F_LOCAL, &c->flags);

	if (fnat && hook != NF_INET_LOCAL_IN)
		return NF_ACCEPT;
	if (klb_mode_remote_only(mode) && klb_skb_bridged(skb))
		return NF_ACCEPT;
	if (send && !klb_xmit_route(kn->net, skb, c->svc, &o->saddr,
				    &o->daddr, true))
		return NF_DROP;
	if (mode == KLB_MODE_NAT || fnat) {
		if (klb_nat_rewrite(skb, p, true, &o->daddr, o->dport))
			return NF_DROP;
		if (fnat &&
		    klb_nat_rewrite(skb, p, false, &o->saddr, o->sport))
			return NF_DROP;
	}
	klb_conn_seen(kn, c, KLB_DIR_REPLY, p->tcpflags);
	klb_conn_account(c, skb, p, true);

	if (send)
		return klb_xmit_send(kn->net, skb, c->svc->family);
	/*
	 * TCP early demux ran on the backend's address and may have
	 * attached a socket that is not the one connected to the VIP.
	 */
	if (hook == NF_INET_LOCAL_IN && skb->sk)
		skb_orphan(skb);
	return NF_ACCEPT;
}

static unsigned int klb_reply(struct sk_buff *skb,
			      const struct nf_hook_state *state, u16 family)
{
	struct klb_net *kn = klb_net(state->net);
	struct klb_conn_table *t = kn->conns;
	unsigned int verdict;
	enum klb_parse res;
	struct klb_conn *c;
	struct klb_pkt p;

	if (klb_conn_table_empty(t))
		return NF_ACCEPT;
	/* Received and routed on: FORWARD has seen it (klb_nf_ops). */
	if (state->hook == NF_INET_POST_ROUTING && skb->skb_iif)
		return NF_ACCEPT;
	res = klb_pkt_parse(skb, family, &p);
	if (res == KLB_PARSE_IGNORE)
		return NF_ACCEPT;

	if (p.flow.proto == IPPROTO_ICMP || p.flow.proto == IPPROTO_ICMPV6) {
		local_bh_disable();
		verdict = klb_icmp_reply(kn, skb, &p, state->hook);
		local_bh_enable();
		return verdict;
	}

	c = klb_conn_find(t, &p.flow, KLB_DIR_REPLY);
	if (!c)
		return NF_ACCEPT;
	/*
	 * A SYN-ACK on the tuple of a connection that is over answers a new
	 * connection klb did not make (its SYN would have replaced this
	 * entry): another balancer's to the same backend, IPVS's say. The
	 * tuple has a new owner: klb forgets its entry, so that neither this
	 * packet nor the rest of that connection is rewritten as klb's.
	 */
	if ((p.tcpflags & KLB_TCP_SYN) && klb_conn_done(c)) {
		klb_conn_expire(t, c);
		return NF_ACCEPT;
	}

	local_bh_disable();
	if (res == KLB_PARSE_BAD) {
		klb_drop_count(c->svc, KLB_DROP_BAD_PACKET);
		verdict = NF_DROP;
		goto out;
	}
	verdict = klb_reply_conn(kn, c, skb, &p, state->hook);
out:
	local_bh_enable();
	return verdict;
}

static unsigned int klb_ipv4_prerouting(void *priv, struct sk_buff *skb,
					const struct nf_hook_state *state)
{
	return klb_prerouting(skb, state, AF_INET);
}

static unsigned int klb_ipv4_local_out(void *priv, struct sk_buff *skb,
				       const struct nf_hook_state *state)
{
	return klb_local_out(skb, state, AF_INET);
}

static unsigned int klb_ipv4_reply(void *priv, struct sk_buff *skb,
				   const struct nf_hook_state *state)
{
	return klb_reply(skb, state, AF_INET);
}

static unsigned int klb_ipv6_prerouting(void *priv, struct sk_buff *skb,
					const struct nf_hook_state *state)
{
	return klb_prerouting(skb, state, AF_INET6);
}

static unsigned int klb_ipv6_local_out(void *priv, struct sk_buff *skb,
				       const struct nf_hook_state *state)
{
	return klb_local_out(skb, state, AF_INET6);
}

static unsigned int klb_ipv6_reply(void *priv, struct sk_buff *skb,
				   const struct nf_hook_state *state)
{
	return klb_reply(skb, state, AF_INET6);
}

/*
 * Forwarded replies are taken in FORWARD, after the filter and security
 * tables (0, 50: firewall rules still see the backend's address) and before
 * IPVS's reply hooks (99, 100): a backend answering a new klb connection on
 * a client port that an IPVS connection to it used before would otherwise
 * have its SYN-ACK claimed by IPVS's TIME_WAIT entry and sent to the client
 * from the wrong VIP; the client resets it and retries a second later.
 * POST_ROUTING keeps the replies this host makes itself (a local backend).
 */
#define KLB_PRI_FORWARD_REPLY	(NF_IP_PRI_SECURITY + 1)

static const struct nf_hook_ops klb_nf_ops[] = {
	{
		.hook		= klb_ipv4_prerouting,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_PRE_ROUTING,
		.priority	= NF_IP_PRI_CONNTRACK - 1,
	},
	{
		.hook		= klb_ipv4_local_out,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_LOCAL_OUT,
		.priority	= NF_IP_PRI_CONNTRACK - 1,
	},
	{
		.hook		= klb_ipv4_reply,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_FORWARD,
		.priority	= KLB_PRI_FORWARD_REPLY,
	},
	{
		.hook		= klb_ipv4_reply,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_POST_ROUTING,
		.priority	= NF_IP_PRI_NAT_SRC + 1,
	},
	{
		.hook		= klb_ipv4_reply,
		.pf		= NFPROTO_IPV4,
		.hooknum	= NF_INET_LOCAL_IN,
		.priority	= NF_IP_PRI_NAT_SRC + 1,
	},
	{
		.hook		= klb_ipv6_prerouting,
		.pf		= NFPROTO_IPV6,
		.hooknum	= NF_INET_PRE_ROUTING,
		.priority	= NF_IP6_PRI_CONNTRACK - 1,
	},
	{
		.hook		= klb_ipv6_local_out,
		.pf		= NFPROTO_IPV6,
		.hooknum	= NF_INET_LOCAL_OUT,
		.priority	= NF_IP6_PRI_CONNTRACK - 1,
	},
	{
		.hook		= klb_ipv6_reply,
		.pf		= NFPROTO_IPV6,
		.hooknum	= NF_INET_FORWARD,
		.priority	= KLB_PRI_FORWARD_REPLY,
	},
	{
		.hook		= klb_ipv6_reply,
		.pf		= NFPROTO_IPV6,
		.hooknum	= NF_INET_POST_ROUTING,
		.priority	= NF_IP6_PRI_NAT_SRC + 1,
	},
	{
		.hook		= klb_ipv6_reply,
		.pf		= NFPROTO_IPV6,
		.hooknum	= NF_INET_LOCAL_IN,
		.priority	= NF_IP6_PRI_NAT_SRC + 1,
	},
};

int klb_hooks_register(struct klb_net *kn)
{
	int err;

	klb_assert_locked(kn);
	if (kn->hooks_registered)
		return 0;

	err = klb_defrag_enable(kn->net);
	if (err)
		return err;
	err = nf_register_net_hooks(kn->net, klb_nf_ops,
				    ARRAY_SIZE(klb_nf_ops));
	if (err) {
		klb_defrag_disable(kn->net);
		return err;
	}
	kn->hooks_registered = true;
	return 0;
}

void klb_hooks_unregister(struct klb_net *kn)
{
	klb_assert_locked(kn);
	if (!kn->hooks_registered)
		return;

	/* Waits for packets in flight (synchronize_net). */
	nf_unregister_net_hooks(kn->net, klb_nf_ops, ARRAY_SIZE(klb_nf_ops));
	klb_defrag_disable(kn->net);
	kn->hooks_registered = false;
}
