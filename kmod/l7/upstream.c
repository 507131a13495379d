// SPDX-License-Identifier: GPL-2.0
/*
 * Connections to backends, and the idle pool that keeps them alive.
 *
 * The Stingray method: a finished HTTP exchange leaves its backend
 * connection open, parked on the backend (be->idle, most recent first),
 * and the next request for that backend, from any client, takes it
 * instead of connecting again.
 *
 * A parked connection's events queue its own idle_work, which closes it
 * if the backend closed it, reset it, or sent anything (a backend has
 * nothing to say between exchanges). Taking a connection from the pool
 * re-checks the same, so a connection handed out is established and
 * quiet; the backend may still close it at that very moment, which the
 * session handles as a reset before the first response byte (retry).
 *
 * That moment comes when the backend's keep-alive timeout runs out, so a
 * connection is parked for at most l7_backend_idle_timeout (a timer closes
 * it, and one past its age is never handed out), which should be below
 * the backends' own; and requests that must not be retried never take a
 * parked connection at all (klb_upstream_get()'s @reuse).
 */
#include <linux/slab.h>
#include <linux/tcp.h>
#include <net/tcp.h>

#include "l7/l7.h"

static bool klb_upstream_clean(const struct klb_upstream *up)
{
	const struct sock *sk = up->s.sock->sk;

	return READ_ONCE(sk->sk_state) == TCP_ESTABLISHED &&
	       !READ_ONCE(sk->sk_err) &&
	       !(READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN) &&
	       !klb_l7_readable(&up->s);
}

/* Parked longer than l7_backend_idle_timeout. */
static bool klb_upstream_too_old(const struct klb_upstream *up)
{
	unsigned long age = READ_ONCE(up->kn->sysctl.l7_backend_idle_timeout);

	return time_after_eq(jiffies, up->idle_since + age * HZ);
}

static void klb_upstream_idle_timer(struct timer_list *t)
{
	struct klb_upstream *up = from_timer(up, t, idle_timer);

	queue_work(klb_l7_wq, &up->idle_work);
}

static void klb_upstream_free(struct klb_upstream *up)
{
	klb_backend_put(up->be);
	kfree(up);
	klb_obj_dec(KLB_OBJ_L7_UPSTREAM);
}

/* Closing from idle_work itself: it can't wait for itself, see reap. */
static void klb_upstream_reap(struct work_struct *work)
{
	struct klb_upstream *up = container_of(work, struct klb_upstream,
					       reap);

	del_timer_sync(&up->idle_timer);
	cancel_work_sync(&up->idle_work);
	klb_upstream_free(up);
}

void klb_upstream_close(struct klb_upstream *up, bool abort)
{
	klb_l7_sock_release(&up->s, abort);
	/* The timer may still run from when it was parked: it queues idle_work. */
	del_timer_sync(&up->idle_timer);
	cancel_work_sync(&up->idle_work);
	klb_upstream_free(up);
}

static void klb_upstream_idle_work(struct work_struct *work)
{
	struct klb_upstream *up = container_of(work, struct klb_upstream,
					       idle_work);
	struct klb_backend *be = up->be;
	bool abort;

	spin_lock_bh(&be->idle_lock);
	/* Taken by a session meanwhile: the event is now its business. */
	if (!up->parked) {
		spin_unlock_bh(&be->idle_lock);
		return;
	}
	if (klb_upstream_clean(up) && !klb_upstream_too_old(up)) {
		/* An event, or the timeout was raised since: wait on. */
		mod_timer(&up->idle_timer, up->idle_since +
			  READ_ONCE(up->kn->sysctl.l7_backend_idle_timeout) * HZ);
		spin_unlock_bh(&be->idle_lock);
		return;
	}
	list_del_init(&up->idle_node);
	be->nidle--;
	up->parked = false;
	spin_unlock_bh(&be->idle_lock);

	/* Too old but clean: a graceful close, the backend did nothing wrong. */
	abort = !klb_upstream_clean(up) && !klb_l7_sock_dead(&up->s);
	klb_l7_sock_release(&up->s, abort);
	queue_work(klb_l7_wq, &up->reap);
}

/*
 * Take the most recently parked clean connection of @be, if any; the
 * ones that are not clean, or too old (the rest of the list then), go.
 */
static struct klb_upstream *klb_upstream_unpark(struct klb_backend *be)
{
	struct klb_upstream *up, *found = NULL;
	LIST_HEAD(stale);

	spin_lock_bh(&be->idle_lock);
	while ((up = list_first_entry_or_null(&be->idle, struct klb_upstream,
					      idle_node))) {
		be->nidle--;
		up->parked = false;
		if (klb_upstream_clean(up) && !klb_upstream_too_old(up)) {
			list_del_init(&up->idle_node);
			found = up;
			break;
		}
		list_move(&up->idle_node, &stale);
	}
	spin_unlock_bh(&be->idle_lock);

	while ((up = list_first_entry_or_null(&stale, struct klb_upstream,
					      idle_node))) {
		list_del_init(&up->idle_node);
		klb_upstream_close(up, !klb_upstream_clean(up));
	}
	return found;
}

static int klb_upstream_connect(struct klb_upstream *up)
{
	struct klb_backend *be = up->be;
	struct sockaddr_in6 sin6 = {
		.sin6_family = AF_INET6,
		.sin6_port = be->port,
	};
	struct sockaddr_in sin = {
		.sin_family = AF_INET,
		.sin_port = be->port,
	};
	int err;

	if (be->family == AF_INET) {
		sin.sin_addr.s_addr = be->addr.ip;
		err = kernel_connect(up->s.sock, (struct sockaddr *)&sin,
				     sizeof(sin), O_NONBLOCK);
	} else {
		sin6.sin6_addr = be->addr.in6;
		err = kernel_connect(up->s.sock, (struct sockaddr *)&sin6,
				     sizeof(sin6), O_NONBLOCK);
	}
	return err == -EINPROGRESS ? 0 : err;
}

struct klb_upstream *klb_upstream_get(struct klb_net *kn,
				      struct klb_backend *be,
				      struct work_struct *work, bool reuse)
{
	struct klb_upstream *up;
	struct socket *sock;
	int err;

	if (reuse) {
		up = klb_upstream_unpark(be);
		if (up) {
			klb_l7_sock_set_work(&up->s, work);
			up->reused = true;
			return up;
		}
	}

	up = kzalloc(sizeof(*up), GFP_KERNEL);
	if (!up)
		return ERR_PTR(-ENOMEM);
	err = sock_create_kern(kn->net, be->family, SOCK_STREAM, IPPROTO_TCP,
			       &sock);
	if (err) {
		kfree(up);
		return ERR_PTR(err);
	}
	klb_obj_inc(KLB_OBJ_L7_UPSTREAM);
	klb_backend_get(be);
	up->be = be;
	up->kn = kn;
	INIT_LIST_HEAD(&up->idle_node);
	INIT_WORK(&up->idle_work, klb_upstream_idle_work);
	INIT_WORK(&up->reap, klb_upstream_reap);
	timer_setup(&up->idle_timer, klb_upstream_idle_timer, 0);
	tcp_sock_set_nodelay(sock->sk);
	klb_l7_sock_attach(&up->s, sock, work, NULL);

	err = klb_upstream_connect(up);
	if (err) {
		klb_upstream_close(up, true);
		return ERR_PTR(err);
	}
	return up;
}

int klb_upstream_state(struct klb_upstream *up)
{
	struct sock *sk = up->s.sock->sk;
	int err;

	switch (READ_ONCE(sk->sk_state)) {
	case TCP_ESTABLISHED:
	case TCP_CLOSE_WAIT:	/* connected; reads will say the rest */
		return 1;
	case TCP_SYN_SENT:
	case TCP_SYN_RECV:
		return 0;
	default:
		err = sock_error(sk);
		return err ? err : -ECONNREFUSED;
	}
}

void klb_upstream_park(struct klb_upstream *up)
{
	struct klb_backend *be = up->be;
	int max = READ_ONCE(up->kn->sysctl.l7_backend_idle_max);

	up->uses++;
	/* Events from now on are the pool's, then look at what came before. */
	klb_l7_sock_set_work(&up->s, &up->idle_work);
	if (!klb_upstream_clean(up)) {
		klb_upstream_close(up, true);
		return;
	}
	spin_lock_bh(&be->idle_lock);
	if (be->removed || be->nidle >= max) {
		spin_unlock_bh(&be->idle_lock);
		klb_upstream_close(up, false);
		return;
	}
	list_add(&up->idle_node, &be->idle);
	be->nidle++;
	up->parked = true;
	up->reused = false;
	up->idle_since = jiffies;
	mod_timer(&up->idle_timer, up->idle_since +
		  READ_ONCE(up->kn->sysctl.l7_backend_idle_timeout) * HZ);
	spin_unlock_bh(&be->idle_lock);
}

void klb_l7_backend_removed(struct klb_net *kn, struct klb_backend *be)
{
	struct klb_upstream *up;
	LIST_HEAD(idle);

	spin_lock_bh(&be->idle_lock);
	be->removed = true;
	list_splice_init(&be->idle, &idle);
	list_for_each_entry(up, &idle, idle_node)
		up->parked = false;
	be->nidle = 0;
	spin_unlock_bh(&be->idle_lock);

	while ((up = list_first_entry_or_null(&idle, struct klb_upstream,
					      idle_node))) {
		list_del_init(&up->idle_node);
		klb_upstream_close(up, false);
	}
}
