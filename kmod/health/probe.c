// SPDX-License-Identifier: GPL-2.0
/*
 * A backend's probe: one delayed work, no thread. At each start it opens a
 * non-blocking kernel TCP socket in the pool's netns (the kernel picks the
 * balancer's source address), connects, sends the kind's request and reads
 * the answer; socket callbacks (softirq) only requeue the work at once, and
 * the work's own timer is the probe's deadline. Every run does what can be
 * done without blocking and returns. The socket is reset (SO_LINGER 0)
 * when the probe ends, so hundreds of backends leave no TIME_WAIT behind,
 * and lives only while a probe is in flight: between probes a backend
 * costs this struct and a timer.
 */
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <net/sock.h>
#include <net/tcp_states.h>

#include "health/probe.h"

static void klb_probe_sk_event(struct sock *sk)
{
	struct klb_probe *p;

	read_lock_bh(&sk->sk_callback_lock);
	p = sk->sk_user_data;
	if (p)
		mod_delayed_work(klb_health_wq, &p->work, 0);
	read_unlock_bh(&sk->sk_callback_lock);
}

static void klb_probe_attach(struct klb_probe *p, struct socket *sock)
{
	struct sock *sk = sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	p->saved_state_change = sk->sk_state_change;
	p->saved_data_ready = sk->sk_data_ready;
	p->saved_write_space = sk->sk_write_space;
	sk->sk_user_data = p;
	sk->sk_state_change = klb_probe_sk_event;
	sk->sk_data_ready = klb_probe_sk_event;
	sk->sk_write_space = klb_probe_sk_event;
	write_unlock_bh(&sk->sk_callback_lock);
	p->sock = sock;
}

/* Give the callbacks back and reset the connection. */
static void klb_probe_close(struct klb_probe *p)
{
	struct sock *sk;

	if (!p->sock)
		return;
	sk = p->sock->sk;
	write_lock_bh(&sk->sk_callback_lock);
	sk->sk_user_data = NULL;
	sk->sk_state_change = p->saved_state_change;
	sk->sk_data_ready = p->saved_data_ready;
	sk->sk_write_space = p->saved_write_space;
	write_unlock_bh(&sk->sk_callback_lock);
	sock_no_linger(sk);
	sock_release(p->sock);
	p->sock = NULL;
	p->phase = KLB_PROBE_IDLE;
}

/* Jiffies from now until @t, 0 if it has passed. */
static unsigned long klb_probe_until(unsigned long t)
{
	return time_after(t, jiffies) ? t - jiffies : 0;
}

/* A probe ended: report it, and start the next one an interval after. */
static void klb_probe_done(struct klb_probe *p, int res)
{
	unsigned long interval = msecs_to_jiffies(p->cfg->interval_ms);
	unsigned long next;

	klb_probe_close(p);
	p->done(p, res);
	/* Up to a tenth early, so that probes do not fall into step. */
	next = p->started + interval - klb_random_below(interval / 10 + 1);
	mod_delayed_work(klb_health_wq, &p->work, klb_probe_until(next));
}

static int klb_probe_connect(struct klb_probe *p)
{
	const struct klb_backend *be = p->be;
	__be16 port = p->cfg->port ? htons(p->cfg->port) : be->port;
	struct sockaddr_storage ss = {};
	struct socket *sock;
	int len, err;

	err = sock_create_kern(p->kn->net, be->family, SOCK_STREAM,
			       IPPROTO_TCP, &sock);
	if (err)
		return klb_probe_fail(KLB_PROBE_ERR_CONNECT, -err);
	if (be->family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		sin->sin_family = AF_INET;
		sin->sin_addr.s_addr = be->addr.ip;
		sin->sin_port = port;
		len = sizeof(*sin);
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		sin6->sin6_family = AF_INET6;
		sin6->sin6_addr = be->addr.in6;
		sin6->sin6_port = port;
		len = sizeof(*sin6);
	}
	klb_probe_attach(p, sock);
	p->phase = KLB_PROBE_CONNECTING;
	err = kernel_connect(sock, (struct sockaddr *)&ss, len, O_NONBLOCK);
	if (err && err != -EINPROGRESS)
		return klb_probe_fail(KLB_PROBE_ERR_CONNECT, -err);
	return 0;
}

static int klb_probe_begin(struct klb_probe *p)
{
	p->started = jiffies;
	p->deadline = p->started + msecs_to_jiffies(p->cfg->timeout_ms);
	p->len = 0;
	p->sent = 0;
	p->nread = 0;
	p->status = 0;
	p->head_end = 0;
	return klb_probe_connect(p);
}

/* Connected yet? 1 yes, 0 not yet, or the failure. */
static int klb_probe_connected(struct klb_probe *p)
{
	struct sock *sk = p->sock->sk;
	int err = sock_error(sk);

	if (err)
		return klb_probe_fail(KLB_PROBE_ERR_CONNECT, -err);
	switch (READ_ONCE(sk->sk_state)) {
	case TCP_ESTABLISHED:
	case TCP_CLOSE_WAIT:
		return 1;
	case TCP_SYN_SENT:
		return 0;
	default:
		return klb_probe_fail(KLB_PROBE_ERR_CONNECT, ECONNREFUSED);
	}
}

static int klb_probe_send(struct klb_probe *p)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	struct kvec vec = { .iov_base = p->buf + p->sent,
			    .iov_len = p->len - p->sent };
	int n;

	n = kernel_sendmsg(p->sock, &msg, &vec, 1, vec.iov_len);
	if (n == -EAGAIN)
		return 0;
	if (n < 0)
		return klb_probe_fail(KLB_PROBE_ERR_IO, -n);
	p->sent += n;
	if (p->sent < p->len)
		return 0;
	/* The buffer now keeps what the answer needs kept. */
	p->len = 0;
	p->phase = KLB_PROBE_READING;
	return 0;
}

static int klb_probe_read(struct klb_probe *p)
{
	char chunk[256];
	int n, res;

	for (;;) {
		struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
		struct kvec vec = { .iov_base = chunk, .iov_len = sizeof(chunk) };

		n = kernel_recvmsg(p->sock, &msg, &vec, 1, sizeof(chunk),
				   msg.msg_flags);
		if (n == -EAGAIN)
			return 0;
		if (n < 0)
			return klb_probe_fail(KLB_PROBE_ERR_IO, -n);
		p->nread += n;
		res = klb_probe_answer(p, chunk, n, n == 0);
		if (res)
			return res;
		if (!n)
			return klb_probe_fail(KLB_PROBE_ERR_CLOSED, 0);
	}
}

/* Move the probe in flight on as far as it goes now. */
static int klb_probe_step(struct klb_probe *p)
{
	int res;

	if (p->phase == KLB_PROBE_CONNECTING) {
		res = klb_probe_connected(p);
		if (res <= 0)
			return res;
		if (p->cfg->kind == KLB_CHECK_TCP)
			return 1;
		res = klb_probe_request(p);
		if (res)
			return klb_probe_fail(KLB_PROBE_ERR_NOMEM, 0);
		p->phase = KLB_PROBE_SENDING;
	}
	if (p->phase == KLB_PROBE_SENDING) {
		res = klb_probe_send(p);
		if (res || p->phase == KLB_PROBE_SENDING)
			return res;
	}
	return klb_probe_read(p);
}

static void klb_probe_work(struct work_struct *work)
{
	struct klb_probe *p = container_of(to_delayed_work(work),
					   struct klb_probe, work);
	int res;

	if (READ_ONCE(p->stopping))
		return;
	/* Connected at once (loopback) or not, the step below finds out. */
	res = p->sock ? 0 : klb_probe_begin(p);
	if (!res)
		res = klb_probe_step(p);
	if (!res && time_after_eq(jiffies, p->deadline))
		res = klb_probe_fail(KLB_PROBE_ERR_TIMEOUT, p->phase);
	if (res) {
		klb_probe_done(p, res);
		return;
	}
	/* Not done: an event requeues it; else the deadline does. */
	queue_delayed_work(klb_health_wq, &p->work,
			   klb_probe_until(p->deadline));
}

struct klb_probe *klb_probe_alloc(struct klb_net *kn, struct klb_pool *pool,
				  struct klb_backend *be,
				  void (*done)(struct klb_probe *p, int res))
{
	struct klb_probe *p;

	p = kzalloc(sizeof(*p), GFP_KERNEL);
	if (!p)
		return NULL;
	INIT_DELAYED_WORK(&p->work, klb_probe_work);
	p->kn = kn;
	p->pool = pool;
	p->cfg = pool->check;
	klb_backend_get(be);
	p->be = be;
	p->done = done;
	klb_obj_inc(KLB_OBJ_PROBE);
	return p;
}

void klb_probe_start(struct klb_probe *p)
{
	unsigned long interval = msecs_to_jiffies(p->cfg->interval_ms);

	queue_delayed_work(klb_health_wq, &p->work,
			   klb_random_below(interval + 1));
}

void klb_probe_pause(struct klb_probe *p)
{
	/* The work may be running: let it see stopping, then wait for it. */
	WRITE_ONCE(p->stopping, true);
	cancel_delayed_work_sync(&p->work);
	/* No callback finds us after this ... */
	klb_probe_close(p);
	/* ... and what one queued before it is gone too. */
	cancel_delayed_work_sync(&p->work);
}

void klb_probe_resume(struct klb_probe *p)
{
	WRITE_ONCE(p->stopping, false);
	klb_probe_start(p);
}

void klb_probe_free(struct klb_probe *p)
{
	klb_probe_pause(p);
	klb_backend_put(p->be);
	klb_obj_dec(KLB_OBJ_PROBE);
	kfree(p);
}
