// SPDX-License-Identifier: GPL-2.0
/*
 * The L7 engine's per-netns state and the life of a client session.
 *
 * Steering: the VIP of an http or tls service need not be an address of
 * the balancer. In PRE_ROUTING, a packet to such a VIP:port gets a route
 * that delivers it locally (what a "local" route would give it), so TCP
 * finds the service's listener, bound to the VIP with IP_TRANSPARENT.
 * Replies leave from the VIP the same way a TPROXY socket's do.
 * Attaching a route skips the input route lookup and with it the kernel's
 * martian source checks, so steering makes them itself: a packet from a
 * loopback, unspecified, multicast or broadcast address, or from an
 * address of the balancer, is dropped (drops bad_source), as routing
 * would have dropped it. (rp_filter, which the VIP's own route would not
 * apply either when it is not local, stays the administrator's: see
 * Documentation/security.md.)
 *
 * Sessions: accepted by a listener, each one is a work item driven by its
 * protocol's ->run(). A session ends in its own work item, which can't
 * wait for itself: freeing is handed to another work item that first
 * cancels any pending run of the session's work, then frees. What the
 * protocols ask of the engine while a session runs is in session.c.
 *
 * This file is the top of the L7 layer: it knows the protocols (their
 * ops) and is called by no other file of l7/.
 */
#include <linux/slab.h>
#include <net/addrconf.h>
#include <net/ip6_route.h>
#include <net/route.h>

#include "l7/bufs.h"
#include "l7/l7.h"
#include "l7/route.h"

/* ---- steering ------------------------------------------------------------ */

static struct dst_entry *klb_l7_local_dst4(struct net *net)
{
	struct rtable *rt;

	rt = klb_rt_dst_alloc(net->loopback_dev, RTCF_LOCAL, RTN_LOCAL);
	if (!rt)
		return NULL;
	rt->rt_is_input = 1;
	return &rt->dst;
}

static struct dst_entry *klb_l7_local_dst6(struct net *net)
{
#if IS_ENABLED(CONFIG_IPV6)
	struct rt6_info *rt;

	rt = ip6_dst_alloc(net, net->loopback_dev, 0);
	if (!rt)
		return NULL;
	rt->rt6i_idev = in6_dev_get(net->loopback_dev);
	if (!rt->rt6i_idev) {
		dst_release(&rt->dst);
		return NULL;
	}
	rt->rt6i_flags = RTF_LOCAL;
	rt->dst.input = ip6_input;
	return &rt->dst;
#else
	return NULL;
#endif
}

/* A source that routing would call martian, or one of ours. */
static bool klb_l7_bad_source4(struct net *net, const struct sk_buff *skb)
{
	__be32 saddr = ip_hdr(skb)->saddr;

	if (ipv4_is_loopback(saddr) || ipv4_is_zeronet(saddr) ||
	    ipv4_is_multicast(saddr) || ipv4_is_lbcast(saddr))
		return true;
	/* LOCAL: an address of ours; BROADCAST: a subnet's broadcast. */
	return inet_addr_type_dev_table(net, skb->dev, saddr) != RTN_UNICAST;
}

static bool klb_l7_bad_source6(struct net *net, const struct sk_buff *skb)
{
#if IS_ENABLED(CONFIG_IPV6)
	const struct in6_addr *saddr = &ipv6_hdr(skb)->saddr;
	int type = ipv6_addr_type(saddr);

	if (type & (IPV6_ADDR_LOOPBACK | IPV6_ADDR_MULTICAST | IPV6_ADDR_MAPPED))
		return true;
	if (type == IPV6_ADDR_ANY)
		return true;
	return ipv6_chk_addr(net, saddr, NULL, 0);
#else
	return true;
#endif
}

unsigned int klb_l7_steer(struct klb_net *kn, struct klb_service *svc,
			  struct sk_buff *skb)
{
	struct dst_entry *dst;
	bool bad;

	/* Already routed (a local client over lo): leave it alone. */
	if (skb_dst(skb))
		return NF_ACCEPT;
	bad = svc->family == AF_INET ? klb_l7_bad_source4(kn->net, skb) :
				       klb_l7_bad_source6(kn->net, skb);
	if (bad) {
		klb_stats_drop(svc->stats, KLB_DROP_BAD_SOURCE);
		return NF_DROP;
	}
	dst = svc->family == AF_INET ? rcu_dereference(kn->l7->local_dst4) :
				       rcu_dereference(kn->l7->local_dst6);
	if (dst) {
		dst_hold(dst);
		skb_dst_set(skb, dst);
	}
	return NF_ACCEPT;
}

/* The local route of @family, made when the first service needs it. */
static int klb_l7_local_dst(struct klb_net *kn, u16 family)
{
	struct dst_entry __rcu **slot;
	struct dst_entry *dst;

	slot = family == AF_INET ? &kn->l7->local_dst4 : &kn->l7->local_dst6;
	if (rcu_access_pointer(*slot))
		return 0;
	dst = family == AF_INET ? klb_l7_local_dst4(kn->net) :
				  klb_l7_local_dst6(kn->net);
	if (!dst)
		return -EOPNOTSUPP;
	rcu_assign_pointer(*slot, dst);
	return 0;
}

/*
 * The netns is going: our routes must stop pinning its loopback device.
 * As the kernel does for its own cached routes, point them at the
 * blackhole device; a packet still steered with one is dropped.
 */
static void klb_l7_local_dst_put(struct klb_net *kn,
				 struct dst_entry __rcu **slot)
{
	struct dst_entry *dst = rcu_dereference_protected(*slot,
				lockdep_is_held(&kn->lock));

	if (dst)
		dst_dev_put(dst);
}

static void klb_l7_local_dst_free(struct klb_net *kn,
				  struct dst_entry __rcu **slot)
{
	struct dst_entry *dst = rcu_dereference_protected(*slot,
				lockdep_is_held(&kn->lock));

	RCU_INIT_POINTER(*slot, NULL);
	if (dst)
		dst_release(dst);	/* freed after readers are done */
}

/* ---- sessions ------------------------------------------------------------ */

static void klb_l7_session_timer(struct timer_list *t)
{
	struct klb_l7_session *s = from_timer(s, t, timer);

	queue_work(klb_l7_wq, &s->work);
}

static void klb_l7_reap(struct work_struct *work)
{
	struct klb_l7_session *s = container_of(work, struct klb_l7_session,
						reap);
	struct klb_l7_net *l7 = s->kn->l7;
	bool last;

	/* The session's work may have been queued again before it ended. */
	cancel_work_sync(&s->work);
	kfree(s);
	klb_obj_dec(KLB_OBJ_L7_SESSION);

	spin_lock_bh(&l7->lock);
	last = !--l7->nsessions;
	if (last)
		wake_up(&l7->gone);
	spin_unlock_bh(&l7->lock);
}

/* Under l7->lock: the session list changed; never 0 (a dump's "unset"). */
static void klb_l7_sgen_bump(struct klb_l7_net *l7)
{
	if (!++l7->sgen)
		l7->sgen = 1;
}

/* In the session's own work item: release everything, free it later. */
static void klb_l7_session_end(struct klb_l7_session *s, bool abort)
{
	struct klb_l7_net *l7 = s->kn->l7;

	s->ended = true;
	del_timer_sync(&s->timer);
	klb_l7_sock_release(&s->client, abort);

	spin_lock_bh(&l7->lock);
	list_del_init(&s->node);
	klb_l7_sgen_bump(l7);
	spin_unlock_bh(&l7->lock);

	atomic_dec(&s->svc->active_conns);
	klb_service_put(s->svc);
	s->svc = NULL;
	queue_work(klb_l7_wq, &s->reap);
}

/* Read and drop what the client still sends, until EOF or the deadline. */
static bool klb_l7_session_drain(struct klb_l7_session *s)
{
	char buf[256];
	int i, n;

	if (READ_ONCE(s->aborted) || klb_l7_session_expired(s))
		return true;
	for (i = 0; i < 64; i++) {
		n = klb_l7_recv(&s->client, buf, sizeof(buf));
		if (n == -EAGAIN)
			return false;
		if (n <= 0)
			return true;
	}
	queue_work(klb_l7_wq, &s->work);	/* a busy client: be fair */
	return false;
}

static void klb_l7_session_work(struct work_struct *work)
{
	struct klb_l7_session *s = container_of(work, struct klb_l7_session,
						work);
	bool abort = READ_ONCE(s->aborted);

	/* Queued again by an event that came before the end: nothing left. */
	if (s->ended)
		return;
	if (s->lingering) {
		if (klb_l7_session_drain(s))
			klb_l7_session_end(s, abort);
		return;
	}
	if (!abort && !s->ops->run(s))
		return;

	s->ops->destroy(s, abort);
	abort |= s->reset;
	if (s->lingering && !abort) {
		klb_l7_shutdown_write(&s->client);
		klb_l7_session_set_timeout(s, 2);
		if (!klb_l7_session_drain(s))
			return;
	}
	klb_l7_session_end(s, abort);
}

static void klb_l7_sockaddr(const struct sockaddr_storage *ss, u16 *family,
			    union nf_inet_addr *addr, __be16 *port)
{
	const struct sockaddr_in6 *sin6 = (const void *)ss;
	const struct sockaddr_in *sin = (const void *)ss;

	*family = ss->ss_family;
	memset(addr, 0, sizeof(*addr));
	if (ss->ss_family == AF_INET) {
		addr->ip = sin->sin_addr.s_addr;
		*port = sin->sin_port;
	} else {
		addr->in6 = sin6->sin6_addr;
		*port = sin6->sin6_port;
	}
}

/* A new client connection accepted by @svc's listener. */
static void klb_l7_session_accept(struct klb_net *kn, struct klb_service *svc,
				  struct socket *sock,
				  const struct klb_l7_sock *listener)
{
	const struct klb_l7_session_ops *ops;
	struct klb_l7_net *l7 = kn->l7;
	struct sockaddr_storage ss;
	struct klb_l7_session *s;
	u16 family;

	ops = svc->mode == KLB_MODE_HTTP ? &klb_http_session_ops :
					   &klb_tls_session_ops;
	if (!ops->run ||
	    atomic_read(&svc->active_conns) >=
	    READ_ONCE(kn->sysctl.l7_max_conns) ||
	    READ_ONCE(l7->nsessions) >= READ_ONCE(kn->sysctl.l7_max_sessions)) {
		klb_stats_l7(svc->stats, KLB_L7_ERR_LIMIT);
		goto refuse;
	}
	s = kzalloc(ops->size, GFP_KERNEL);
	if (!s)
		goto refuse;
	klb_obj_inc(KLB_OBJ_L7_SESSION);

	INIT_WORK(&s->work, klb_l7_session_work);
	INIT_WORK(&s->reap, klb_l7_reap);
	INIT_LIST_HEAD(&s->node);
	timer_setup(&s->timer, klb_l7_session_timer, 0);
	spin_lock_init(&s->info_lock);
	s->created = jiffies;
	s->kn = kn;
	s->ops = ops;
	s->flow.proto = IPPROTO_TCP;
	if (kernel_getpeername(sock, (struct sockaddr *)&ss) >= 0)
		klb_l7_sockaddr(&ss, &s->flow.family, &s->flow.saddr,
				&s->flow.sport);
	if (kernel_getsockname(sock, (struct sockaddr *)&ss) >= 0)
		klb_l7_sockaddr(&ss, &family, &s->flow.daddr,
				&s->flow.dport);
	tcp_sock_set_nodelay(sock->sk);

	klb_service_get(svc);
	s->svc = svc;
	atomic_inc(&svc->active_conns);
	klb_stats_l7_conn(svc->stats);

	spin_lock_bh(&l7->lock);
	list_add_tail(&s->node, &l7->sessions);
	l7->nsessions++;
	klb_l7_sgen_bump(l7);
	spin_unlock_bh(&l7->lock);

	klb_l7_sock_attach(&s->client, sock, &s->work, listener);
	/* Bytes that came with the handshake raised no event for us. */
	queue_work(klb_l7_wq, &s->work);
	return;

refuse:
	sock_no_linger(sock->sk);
	sock_release(sock);
}

/* Wake the sessions of @svc (NULL: all) so they notice stopping/aborted. */
static void klb_l7_sessions_kick(struct klb_l7_net *l7,
				 struct klb_service *svc, bool abort)
{
	struct klb_l7_session *s;

	spin_lock_bh(&l7->lock);
	list_for_each_entry(s, &l7->sessions, node) {
		if (svc && s->svc != svc)
			continue;
		if (abort)
			WRITE_ONCE(s->aborted, true);
		queue_work(klb_l7_wq, &s->work);
	}
	spin_unlock_bh(&l7->lock);
}

/* ---- conn dumps ------------------------------------------------------------- */

static void klb_l7_session_info(struct klb_l7_session *s,
				struct klb_l7_session_info *si)
{
	si->svc = s->svc;
	si->flow = &s->flow;
	si->mode = s->svc->mode;
	si->state = READ_ONCE(s->lingering) ? KLB_L7_STATE_CLOSING :
					      s->ops->state(s);
	si->age_ms = jiffies_to_msecs(jiffies - s->created);
	spin_lock(&s->info_lock);
	si->be_family = s->be_family;
	si->be_addr = s->be_addr;
	si->be_port = s->be_port;
	si->bytes_in = s->bytes_in;
	si->bytes_out = s->bytes_out;
	spin_unlock(&s->info_lock);
}

int klb_l7_session_walk(struct klb_net *kn, unsigned long *pos,
			unsigned int *gen,
			int (*fn)(const struct klb_l7_session_info *si,
				  void *arg),
			void *arg)
{
	struct klb_l7_net *l7 = kn->l7;
	struct klb_l7_session_info si;
	struct klb_l7_session *s;
	unsigned long i = 0;
	int err = 0;

	if (!l7)
		return 0;
	spin_lock_bh(&l7->lock);
	*gen = l7->sgen ?: 1;
	list_for_each_entry(s, &l7->sessions, node) {
		if (i++ < *pos)
			continue;
		klb_l7_session_info(s, &si);
		err = fn(&si, arg);
		if (err)
			break;
		(*pos)++;
	}
	spin_unlock_bh(&l7->lock);
	return err;
}

/* ---- service start and stop ---------------------------------------------- */

int klb_l7_service_start(struct klb_net *kn, struct klb_service *svc,
			 struct netlink_ext_ack *extack)
{
	klb_assert_locked(kn);
	if (!kn->l7 || klb_l7_local_dst(kn, svc->family)) {
		klb_err(extack, NULL, "mode %s is not available for this address family",
			svc->mode == KLB_MODE_HTTP ? "http" : "tls");
		return -EOPNOTSUPP;
	}
	return klb_l7_listener_open(kn, svc, klb_l7_session_accept, extack);
}

void klb_l7_service_stop(struct klb_net *kn, struct klb_service *svc)
{
	/*
	 * The successor first, then stopping (release): a session that sees
	 * stopping also sees where to go (klb_l7_session_follow()), and a
	 * request routed meanwhile is served there instead of getting a 503.
	 */
	klb_l7_listener_name_successor(svc);
	/* pairs with smp_load_acquire() in klb_l7_session_follow() */
	smp_store_release(&svc->stopping, true);
	klb_l7_listener_close(svc);
	if (kn->l7)
		klb_l7_sessions_kick(kn->l7, svc, false);
}

/* ---- per netns and module ------------------------------------------------ */

int klb_l7_net_init(struct klb_net *kn)
{
	struct klb_l7_net *l7;

	l7 = kzalloc(sizeof(*l7), GFP_KERNEL);
	if (!l7)
		return -ENOMEM;
	spin_lock_init(&l7->lock);
	INIT_LIST_HEAD(&l7->sessions);
	spin_lock_init(&l7->qlock);
	INIT_LIST_HEAD(&l7->queue);
	INIT_LIST_HEAD(&l7->listeners);
	init_waitqueue_head(&l7->gone);
	kn->l7 = l7;
	return 0;
}

void klb_l7_net_pre_exit(struct klb_net *kn)
{
	struct klb_l7_net *l7 = kn->l7;
	struct klb_service *svc;
	struct klb_backend *be;
	struct klb_pool *pool;

	klb_assert_locked(kn);

	/* No new session, then none left, then no idle connection. */
	list_for_each_entry(svc, &kn->services, node)
		klb_l7_listener_close(svc);
	klb_l7_sessions_kick(l7, NULL, true);
	wait_event(l7->gone, !READ_ONCE(l7->nsessions));
	list_for_each_entry(pool, &kn->pools, node)
		list_for_each_entry(be, &pool->backends, pool_node)
			klb_l7_backend_removed(kn, be);

	klb_l7_local_dst_put(kn, &l7->local_dst4);
	klb_l7_local_dst_put(kn, &l7->local_dst6);
}

void klb_l7_net_exit(struct klb_net *kn)
{
	struct klb_l7_net *l7 = kn->l7;

	/* The hooks are gone: nobody reads the routes any more. */
	klb_l7_local_dst_free(kn, &l7->local_dst4);
	klb_l7_local_dst_free(kn, &l7->local_dst6);
	kfree(l7);
	kn->l7 = NULL;
}

int klb_l7_module_init(void)
{
	if (klb_l7_wq_init())
		return -ENOMEM;
	if (klb_l7_bufs_init()) {
		klb_l7_wq_exit();
		return -ENOMEM;
	}
	return 0;
}

void klb_l7_module_exit(void)
{
	klb_l7_wq_exit();
	klb_l7_bufs_exit();
}
