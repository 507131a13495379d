// SPDX-License-Identifier: GPL-2.0
/*
 * klb netfilter hooks: where packets enter the L4 NAT datapath.
 *
 * Requests (client -> VIP) are caught in PRE_ROUTING and LOCAL_OUT just
 * before conntrack, after defragmentation: the destination becomes the
 * chosen backend before routing (PRE_ROUTING) or followed by a re-route
 * (LOCAL_OUT). If nf_conntrack is loaded it thus only ever sees the
 * client <-> backend flow, and recognises the backend's packets as replies.
 *
 * Replies (backend -> client) are caught in POST_ROUTING (forwarded to a
 * remote client) and LOCAL_IN (to a local client), after conntrack and NAT
 * have seen them and after routing and reverse-path filtering used the
 * real addresses; their source becomes the VIP again.
 *
 * The reply hooks see every packet of the namespace, so their miss path is
 * one parse of headers already in the linear area and one hash lookup.
 */
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <net/dst.h>
#include <net/sock.h>

#include "l4/conn.h"
#include "l4/hooks.h"
#include "l4/icmp.h"
#include "l4/nat.h"
#include "l4/persist.h"
#include "l4/vip.h"
#include "l7/engine.h"
#include "sched/table.h"

static void klb_drop_count(struct klb_service *svc, enum klb_drop_reason why)
{
	klb_stats_drop(svc->stats, why);
}

/* Schedule a new connection for the first packet of a flow. */
static struct klb_conn *klb_conn_schedule(struct klb_net *kn,
					  struct klb_service *svc,
					  const struct klb_pkt *p)
{
	struct klb_persist *pe = NULL;
	struct klb_sched_table *table;
	struct klb_backend *be = NULL;
	struct klb_pool *pool;
	struct klb_conn *c;

	if (p->flow.proto == IPPROTO_TCP &&
	    (p->tcpflags & (KLB_TCP_SYN | KLB_TCP_ACK | KLB_TCP_RST |
			    KLB_TCP_FIN)) != KLB_TCP_SYN) {
		/* Only a fresh SYN opens a TCP connection. */
		klb_drop_count(svc, KLB_DROP_BAD_PACKET);
		return NULL;
	}

	pool = rcu_dereference(svc->pool);
	table = pool ? rcu_dereference(pool->table) : NULL;
	/* A service without persistence pays this one test. */
	if (READ_ONCE(svc->persist_timeout))
		be = klb_persist_pick(kn, svc, pool, table, &p->flow, &pe);
	else if (table)
		be = klb_sched_pick(table, &p->flow);
	if (!be || be->family != p->flow.family) {
		klb_persist_put(pe);
		klb_drop_count(svc, KLB_DROP_NO_BACKEND);
		return NULL;
	}

	c = klb_conn_new(kn, svc, be, &p->flow, pe);
	if (IS_ERR(c)) {
		/* -EADDRINUSE: this backend cannot take this client port. */
		klb_drop_count(svc, PTR_ERR(c) == -EADDRINUSE ?
				    KLB_DROP_NO_BACKEND : KLB_DROP_TABLE_FULL);
		return NULL;
	}
	return c;
}

/*
 * A packet to @svc's VIP. Called with BH disabled under rcu_read_lock.
 * Returns NF_ACCEPT with the destination rewritten, or NF_DROP.
 */
static unsigned int klb_request_svc(struct klb_net *kn, struct klb_service *svc,
				    struct sk_buff *skb, enum klb_parse res,
				    const struct klb_pkt *p)
{
	struct klb_conn_table *t = kn->conns;
	const struct klb_flow *r;
	struct klb_conn *c;

	if (res == KLB_PARSE_BAD) {
		klb_drop_count(svc, KLB_DROP_BAD_PACKET);
		return NF_DROP;
	}

	c = klb_conn_find(t, &p->flow, KLB_DIR_ORIG);
	/* A new SYN on a finished connection's tuple starts afresh. */
	if (c && (p->tcpflags & (KLB_TCP_SYN | KLB_TCP_ACK)) == KLB_TCP_SYN) {
		u8 state = READ_ONCE(c->state);

		if (state == KLB_CONN_TIME_WAIT || state == KLB_CONN_CLOSE) {
			klb_conn_expire(t, c);
			c = NULL;
		}
	}
	if (!c) {
		c = klb_conn_schedule(kn, svc, p);
		if (!c)
			return NF_DROP;
	}

	r = &c->h[KLB_DIR_REPLY].flow;
	if (klb_nat_rewrite(skb, p, false, &r->saddr, r->sport))
		return NF_DROP;
	klb_conn_seen(kn, c, KLB_DIR_ORIG, p->tcpflags);
	klb_conn_account(c, skb, p, false);
	return NF_ACCEPT;
}

static unsigned int klb_request(struct sk_buff *skb,
				const struct nf_hook_state *state,
				enum klb_parse res, const struct klb_pkt *p)
{
	struct klb_net *kn = klb_net(state->net);
	struct klb_service *svc;
	unsigned int verdict;

	/* LOCAL_OUT may run in process context: keep per-CPU counters safe. */
	local_bh_disable();
	if (p->flow.proto == IPPROTO_ICMP || p->flow.proto == IPPROTO_ICMPV6) {
		verdict = klb_icmp_request(kn, skb, p);
	} else {
		svc = klb_vip_lookup_rcu(kn, p->flow.family, p->flow.proto,
					 &p->flow.daddr, p->flow.dport);
		if (!svc)
			verdict = NF_ACCEPT;
		else if (klb_mode_l7(svc->mode))
			/* L7: TCP terminates here; a local client needs a local VIP. */
			verdict = state->hook == NF_INET_PRE_ROUTING ?
				  klb_l7_steer(kn, svc, skb) : NF_ACCEPT;
		else
			verdict = klb_request_svc(kn, svc, skb, res, p);
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

static unsigned int klb_reply(struct sk_buff *skb,
			      const struct nf_hook_state *state, u16 family)
{
	struct klb_net *kn = klb_net(state->net);
	struct klb_conn_table *t = kn->conns;
	const struct klb_flow *o;
	unsigned int verdict;
	enum klb_parse res;
	struct klb_conn *c;
	struct klb_pkt p;

	if (klb_conn_table_empty(t))
		return NF_ACCEPT;
	res = klb_pkt_parse(skb, family, &p);
	if (res == KLB_PARSE_IGNORE)
		return NF_ACCEPT;

	if (p.flow.proto == IPPROTO_ICMP || p.flow.proto == IPPROTO_ICMPV6) {
		local_bh_disable();
		verdict = klb_icmp_reply(kn, skb, &p);
		local_bh_enable();
		return verdict;
	}

	c = klb_conn_find(t, &p.flow, KLB_DIR_REPLY);
	if (!c)
		return NF_ACCEPT;

	local_bh_disable();
	if (res == KLB_PARSE_BAD) {
		klb_drop_count(c->svc, KLB_DROP_BAD_PACKET);
		verdict = NF_DROP;
		goto out;
	}
	o = &c->h[KLB_DIR_ORIG].flow;
	if (klb_nat_rewrite(skb, &p, true, &o->daddr, o->dport)) {
		verdict = NF_DROP;
		goto out;
	}
	klb_conn_seen(kn, c, KLB_DIR_REPLY, p.tcpflags);
	klb_conn_account(c, skb, &p, true);
	verdict = NF_ACCEPT;

	/*
	 * TCP early demux ran on the backend's address and may have
	 * attached a socket that is not the one connected to the VIP.
	 */
	if (state->hook == NF_INET_LOCAL_IN && skb->sk)
		skb_orphan(skb);
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
