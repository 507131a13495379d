// SPDX-License-Identifier: GPL-2.0
/*
 * One kernel listening socket per http or tls service, bound to the VIP.
 *
 * IP_TRANSPARENT lets it bind an address the balancer does not own and
 * answer from it; net.c's steering delivers the VIP's packets to it.
 * SO_REUSEPORT lets a restore open a service's new listener before the
 * old one is closed, so the VIP never refuses connections in between.
 * What the old one still holds then goes to the new one (its successor,
 * found in the netns's list of listeners): the connections waiting in
 * its accept queue become sessions of the new service instead of being
 * reset, and the old service's sessions that have not routed anything
 * yet follow (svc->l7_next, klb_l7_session_follow()). Connections still
 * in the handshake (SYN received) are the kernel's to move: with
 * net.ipv4.tcp_migrate_req=1 it hands them to the new listener, whose
 * accept work we then run; without it they are reset.
 *
 * Accepted sockets inherit the listener's callbacks but, thanks to
 * SK_USER_DATA_NOCOPY, not its user data: until a session attaches to
 * them their events find nothing and do nothing.
 */
#include <linux/slab.h>
#include <net/ipv6.h>

#include "l7/l7.h"

struct klb_l7_listener {
	struct klb_l7_sock s;		/* only sock and saved_data_ready */
	struct work_struct accept_work;
	klb_l7_accept_fn accept;	/* makes a session of each connection */
	struct klb_net *kn;
	struct klb_service *svc;	/* owns the listener */
	struct list_head node;		/* klb_l7_net.listeners, under kn->lock */
};

static void klb_l7_listen_ready(struct sock *sk)
{
	struct klb_l7_listener *l;

	read_lock_bh(&sk->sk_callback_lock);
	rcu_read_lock();
	l = __rcu_dereference_sk_user_data_with_flags(sk, SK_USER_DATA_NOCOPY);
	if (l)
		queue_work(klb_l7_wq, &l->accept_work);
	rcu_read_unlock();
	read_unlock_bh(&sk->sk_callback_lock);
}

/* Accept in batches, so that one busy service can't hog its CPU's worker. */
#define KLB_L7_ACCEPT_BATCH	64

static void klb_l7_accept_work(struct work_struct *work)
{
	struct klb_l7_listener *l = container_of(work, struct klb_l7_listener,
						 accept_work);
	struct socket *sock;
	int i;

	for (i = 0; i < KLB_L7_ACCEPT_BATCH; i++) {
		if (kernel_accept(l->s.sock, &sock, O_NONBLOCK))
			return;
		l->accept(l->kn, l->svc, sock, &l->s);
	}
	queue_work(klb_l7_wq, &l->accept_work);
}

static int klb_l7_listener_bind(struct socket *sock, struct klb_service *svc)
{
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
		.sin6_port = svc->port,
	};
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = svc->port,
	};

	if (svc->family == AF_INET) {
		sin.sin_addr.s_addr = svc->addr.ip;
		return kernel_bind(sock, (struct sockaddr *)&sin, sizeof(sin));
	}
	sin6.sin6_addr = svc->addr.in6;
	return kernel_bind(sock, (struct sockaddr *)&sin6, sizeof(sin6));
}

int klb_l7_listener_open(struct klb_net *kn, struct klb_service *svc,
			 klb_l7_accept_fn accept,
			 struct netlink_ext_ack *extack)
{
	struct klb_l7_listener *l;
	struct socket *sock;
	struct sock *sk;
	int err;

	klb_assert_locked(kn);

	l = kzalloc(sizeof(*l), GFP_KERNEL);
	if (!l)
		return -ENOMEM;
	err = sock_create_kern(kn->net, svc->family, SOCK_STREAM, IPPROTO_TCP,
			       &sock);
	if (err) {
		kfree(l);
		klb_err(extack, NULL, "cannot create the listening socket (%d)",
			err);
		return err;
	}
	klb_obj_inc(KLB_OBJ_L7_LISTENER);
	INIT_WORK(&l->accept_work, klb_l7_accept_work);
	INIT_LIST_HEAD(&l->node);
	l->accept = accept;
	l->kn = kn;
	l->svc = svc;
	l->s.sock = sock;

	sk = sock->sk;
	sock_set_reuseaddr(sk);
	sock_set_reuseport(sk);
	klb_sock_set_transparent(sk);
	if (svc->family == AF_INET6)
		sk->sk_ipv6only = 1;

	write_lock_bh(&sk->sk_callback_lock);
	l->s.saved_data_ready = sk->sk_data_ready;
	__rcu_assign_sk_user_data_with_flags(sk, l, SK_USER_DATA_NOCOPY);
	sk->sk_data_ready = klb_l7_listen_ready;
	write_unlock_bh(&sk->sk_callback_lock);

	err = klb_l7_listener_bind(sock, svc);
	if (err) {
		klb_err(extack, NULL, "cannot listen on the service address (%d)",
			err);
		goto fail;
	}
	err = kernel_listen(sock, READ_ONCE(kn->net->core.sysctl_somaxconn));
	if (err) {
		klb_err(extack, NULL, "listen on the service address failed (%d)",
			err);
		goto fail;
	}
	svc->listener = l;
	list_add_tail(&l->node, &kn->l7->listeners);
	return 0;

fail:
	svc->listener = l;
	klb_l7_listener_close(svc);
	return err;
}

/* Another open listener of the same address, port and mode, if any. */
static struct klb_l7_listener *
klb_l7_listener_successor(const struct klb_l7_listener *l)
{
	const struct klb_service *svc = l->svc, *o;
	struct klb_l7_listener *n;

	list_for_each_entry(n, &l->kn->l7->listeners, node) {
		o = n->svc;
		if (n != l && o->family == svc->family && o->port == svc->port &&
		    o->mode == svc->mode && !READ_ONCE(o->stopping) &&
		    !memcmp(&o->addr, &svc->addr, sizeof(o->addr)))
			return n;
	}
	return NULL;
}

/* Connections waiting in @l's accept queue become sessions of @next's. */
static void klb_l7_listener_hand_over(struct klb_l7_listener *l,
				      struct klb_l7_listener *next)
{
	struct socket *sock;

	while (!kernel_accept(l->s.sock, &sock, O_NONBLOCK))
		next->accept(next->kn, next->svc, sock, &next->s);
}

void klb_l7_listener_name_successor(struct klb_service *svc)
{
	struct klb_l7_listener *l = svc->listener, *next;

	/* One that failed to open was never listed, and holds nothing. */
	if (!l || list_empty(&l->node) || svc->l7_next)
		return;
	next = klb_l7_listener_successor(l);
	if (!next)
		return;
	klb_service_get(next->svc);
	WRITE_ONCE(svc->l7_next, next->svc);
}

void klb_l7_listener_close(struct klb_service *svc)
{
	struct klb_l7_listener *l = svc->listener, *next;
	struct sock *sk;

	if (!l)
		return;
	klb_l7_listener_name_successor(svc);
	svc->listener = NULL;
	next = list_empty(&l->node) ? NULL : klb_l7_listener_successor(l);
	list_del_init(&l->node);

	sk = l->s.sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_data_ready = l->s.saved_data_ready;
	write_unlock_bh(&sk->sk_callback_lock);
	cancel_work_sync(&l->accept_work);
	if (next)
		klb_l7_listener_hand_over(l, next);
	/* Without a successor, resets the connections still waiting. */
	sock_release(l->s.sock);
	/* What the kernel migrated (tcp_migrate_req) raised no event there. */
	if (next)
		queue_work(klb_l7_wq, &next->accept_work);
	kfree(l);
	klb_obj_dec(KLB_OBJ_L7_LISTENER);
}
