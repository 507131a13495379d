// SPDX-License-Identifier: GPL-2.0
/*
 * Service mode tls: TLS pass-through steered by SNI.
 *
 * The ClientHello is read (it may span several segments and records, up
 * to KLB_TLS_BUF_MAX bytes), its SNI picks the pool through the rules,
 * and once the backend connection is up the bytes received so far are
 * its first bytes: the backend sees exactly what the client sent. From
 * then on the session relays both ways, socket to socket without a copy
 * (klb_l7_pump()), passing a half-close on, until both directions are
 * done. With proxy-protocol v2 a PROXY header naming the client goes in
 * front of the hello, so the backend's first bytes are that header.
 * Memory is what the two sockets' buffers hold, nothing more: the
 * hello's buffer is allocated when its first byte is there (512 bytes,
 * doubled each time it is full while the records need more), counted
 * against l7_mem_max_kb as it grows, and freed as soon as the hello is
 * sent.
 */
#include <linux/slab.h>

#include "l7/l7.h"
#include "l7/parse/http_rewrite.h"
#include "l7/parse/tls_sni.h"

enum klb_tls_state {
	KLB_TLS_HELLO,		/* reading the ClientHello */
	KLB_TLS_CONNECTING,	/* backend connection under way */
	KLB_TLS_RELAY,		/* bytes both ways */
};

struct klb_tls_session {
	struct klb_l7_session s;	/* first: the core allocates ops.size */
	u8 state;
	bool retried;
	bool active;			/* counted in be->active_conns */
	struct klb_backend *be;
	struct klb_upstream *up;
	/*
	 * The ClientHello as read, until it is sent; with PROXY v2 the
	 * header goes in front of it once the backend is connected.
	 */
	u8 *buf;
	u32 cap;
	u32 len;
	struct klb_l7_pipe c2b;		/* client -> backend; buf goes first */
	struct klb_l7_pipe b2c;
	struct klb_tls_hello hello;
};

/*
 * Every accepted tls connection holds one, idle ones included: like the
 * http session it must stay one kmalloc-1k object (the figure in
 * security.md, l7_memory.sh's bounds). Lock debugging grows the locks and
 * work items in it; those kernels are for tests.
 */
static_assert(IS_ENABLED(CONFIG_LOCKDEP) || IS_ENABLED(CONFIG_DEBUG_SPINLOCK) ||
	      sizeof(struct klb_tls_session) <= 1024);

/* Bytes one run moves each way before yielding to other sessions. */
#define KLB_TLS_BUDGET	(256 * 1024)

static struct klb_tls_session *klb_tls(struct klb_l7_session *s)
{
	return container_of(s, struct klb_tls_session, s);
}

static int klb_tls_grow(struct klb_tls_session *t, u32 cap)
{
	u8 *buf;

	if (cap <= t->cap)
		return 0;
	if (klb_l7_mem_charge(&t->s, cap - t->cap))
		return -ENOBUFS;
	buf = krealloc(t->buf, cap, GFP_KERNEL);
	if (!buf) {
		klb_l7_mem_uncharge(&t->s, cap - t->cap);
		return -ENOMEM;
	}
	t->buf = buf;
	t->cap = cap;
	return 0;
}

static void klb_tls_hello_free(struct klb_tls_session *t)
{
	kfree(t->buf);
	klb_l7_mem_uncharge(&t->s, t->cap);
	t->buf = NULL;
	t->cap = 0;
	t->len = 0;
	t->c2b.buf = NULL;
	t->c2b.off = 0;
	t->c2b.len = 0;
}

static bool klb_tls_fail(struct klb_tls_session *t, enum klb_l7_ctr why)
{
	klb_l7_count(&t->s, t->be, why);
	return true;
}

static int klb_tls_connect(struct klb_tls_session *t)
{
	struct klb_l7_session *s = &t->s;
	struct klb_upstream *up;

	up = klb_upstream_get(s->kn, t->be, &s->work, false);
	if (IS_ERR(up))
		return PTR_ERR(up);
	t->up = up;
	t->state = KLB_TLS_CONNECTING;
	klb_l7_session_set_timeout(s, READ_ONCE(klb_l7_sysctl(s)->l7_connect_timeout));
	return 0;
}

/* Pick a backend for the hello's SNI (or lack of it) and connect. */
static bool klb_tls_route(struct klb_tls_session *t, bool sni)
{
	struct klb_l7_session *s = &t->s;
	struct klb_rule_input in = { };
	struct klb_backend *avoid = t->be;
	const void *full;

	if (sni) {
		in.sni = (const u8 *)t->hello.sni;
		in.sni_len = t->hello.sni_len;
	}
	/* Its service stopped: the one that took its address over (restore). */
	if (klb_l7_session_stopping(s))
		klb_l7_session_follow(s);
	if (!klb_l7_source_allowed(s)) {
		if (avoid)
			klb_backend_put(avoid);
		t->be = NULL;
		return true;	/* closed, nothing relayed */
	}
	t->be = klb_l7_pick(s, &in, avoid, NULL, &full);
	/* It stopped since we looked: its successor, as above. */
	if (!t->be && klb_l7_session_stopping(s) && klb_l7_session_follow(s))
		t->be = klb_l7_pick(s, &in, avoid, NULL, &full);
	if (avoid)
		klb_backend_put(avoid);
	/* No queue in tls mode: every backend full, closed like L4 drops. */
	if (!t->be && full)
		klb_stats_drop(s->svc->stats, KLB_DROP_MAXCONN);
	klb_l7_session_set_backend(s, t->be);
	if (!t->be)
		return klb_tls_fail(t, KLB_L7_ERR_NO_BACKEND);
	if (!t->retried)
		klb_l7_count(s, t->be, KLB_L7_REQUESTS);
	if (klb_tls_connect(t))
		return klb_tls_fail(t, KLB_L7_ERR_CONNECT);
	return false;
}

static bool klb_tls_read_hello(struct klb_tls_session *t)
{
	struct klb_l7_session *s = &t->s;
	u32 need;
	int n, ret;

	if (klb_l7_session_expired(s))
		return klb_tls_fail(t, KLB_L7_ERR_TIMEOUT);
	/* No buffer before the first byte: idle connections hold none. */
	if (!t->buf && !klb_l7_readable(&s->client))
		return klb_l7_sock_dead(&s->client) ?
		       klb_tls_fail(t, KLB_L7_ERR_RESET) : false;
	for (;;) {
		need = t->hello.need ? t->hello.need : 5;
		/*
		 * Grown as the bytes come (doubled when full), not at once to
		 * what a record header claims: a client that announces 16 KiB
		 * and then trickles holds what it sent, 512 bytes at least.
		 */
		if (t->len == t->cap && need > t->cap &&
		    klb_tls_grow(t, max_t(u32, 512,
					  min_t(u32, need, t->cap * 2))))
			return true;
		if (t->len < need) {
			n = klb_l7_recv(&s->client, t->buf + t->len,
					min(need, t->cap) - t->len);
			if (n == -EAGAIN)
				return false;
			if (n <= 0)	/* gone before saying hello */
				return klb_tls_fail(t, KLB_L7_ERR_RESET);
			t->len += n;
			if (t->len < need)
				continue;
		}
		ret = klb_tls_parse_hello(t->buf, t->len, &t->hello);
		if (ret == KLB_TLS_NEED_MORE)
			continue;
		if (ret < 0)
			return klb_tls_fail(t, KLB_L7_ERR_PARSE);
		return klb_tls_route(t, ret == KLB_TLS_OK);
	}
}

/*
 * PROXY protocol v2: the backend learns the client's address from a
 * header in front of the ClientHello (the encoder of the http mode).
 * Only now, once the connection is up: a retry elsewhere keeps the hello
 * as read. -errno: no memory for it (counted by the charge).
 */
static int klb_tls_proxy_header(struct klb_tls_session *t)
{
	struct klb_l7_session *s = &t->s;
	u8 hdr[KLB_PROXY_V2_MAX];
	u32 n;

	n = klb_proxy_v2_build(hdr, s->flow.family == AF_INET6,
			       (const u8 *)&s->flow.saddr, ntohs(s->flow.sport),
			       (const u8 *)&s->flow.daddr, ntohs(s->flow.dport));
	if (klb_tls_grow(t, t->len + n))
		return -ENOBUFS;
	memmove(t->buf + n, t->buf, t->len);
	memcpy(t->buf, hdr, n);
	t->len += n;
	return 0;
}

static bool klb_tls_connected(struct klb_tls_session *t)
{
	struct klb_l7_session *s = &t->s;
	int state = klb_upstream_state(t->up);

	if (!state && !klb_l7_session_expired(s))
		return false;
	if (state <= 0) {
		/* Nothing was sent yet: one more try, elsewhere if possible. */
		klb_l7_count(s, t->be, state ? KLB_L7_ERR_CONNECT :
						KLB_L7_ERR_TIMEOUT);
		klb_health_passive(s->kn, t->be, KLB_PASSIVE_CONNECT);
		klb_upstream_close(t->up, true);
		t->up = NULL;
		if (t->retried)
			return true;
		t->retried = true;
		return klb_tls_route(t, t->hello.sni_len);
	}

	klb_health_passive(s->kn, t->be, KLB_PASSIVE_OK);
	atomic_inc(&t->be->active_conns);
	t->active = true;
	t->state = KLB_TLS_RELAY;
	if (READ_ONCE(s->svc->proxy_protocol) == 2 && klb_tls_proxy_header(t))
		return true;
	/* The hello (after a PROXY header) goes first. */
	t->c2b.buf = t->buf;
	t->c2b.off = 0;
	t->c2b.len = t->len;
	klb_l7_session_set_timeout(s, READ_ONCE(klb_l7_sysctl(s)->l7_idle_timeout));
	return false;
}

static bool klb_tls_relay(struct klb_tls_session *t)
{
	struct klb_l7_session *s = &t->s;
	long budget_in = KLB_TLS_BUDGET, budget_out = KLB_TLS_BUDGET;
	bool progress = false;
	u64 in = 0, out = 0;
	int e1, e2;

	e1 = klb_l7_pump(&s->client, &t->up->s, &t->c2b, &budget_in,
			 &progress, &in);
	/* The hello is sent: its buffer is not needed for the session's life. */
	if (t->buf && t->c2b.off == t->c2b.len)
		klb_tls_hello_free(t);
	e2 = klb_l7_pump(&t->up->s, &s->client, &t->b2c, &budget_out,
			 &progress, &out);
	if (in || out) {
		klb_stats_l7_bytes(s->svc->stats, in, out);
		klb_l7_session_add_bytes(s, in, out);
	}
	if ((e1 && e1 != -EAGAIN) || (e2 && e2 != -EAGAIN))
		return klb_tls_fail(t, KLB_L7_ERR_RESET);
	if (t->c2b.shut && t->b2c.shut)
		return true;
	if (e1 == -EAGAIN || e2 == -EAGAIN)
		queue_work(klb_l7_wq, &s->work);
	if (progress)
		klb_l7_session_set_timeout(s, READ_ONCE(klb_l7_sysctl(s)->l7_idle_timeout));
	else if (klb_l7_session_expired(s))
		return klb_tls_fail(t, KLB_L7_ERR_TIMEOUT);
	return false;
}

static bool klb_tls_run(struct klb_l7_session *s)
{
	struct klb_tls_session *t = klb_tls(s);

	switch (t->state) {
	case KLB_TLS_HELLO:
		if (!s->timer_set) {
			int hello = READ_ONCE(klb_l7_sysctl(s)->tls_hello_timeout);

			klb_l7_session_set_timeout(s, hello);
		}
		return klb_tls_read_hello(t);
	case KLB_TLS_CONNECTING:
		if (klb_tls_connected(t))
			return true;
		if (t->state != KLB_TLS_RELAY)
			return false;
		fallthrough;
	case KLB_TLS_RELAY:
		return klb_tls_relay(t);
	}
	return true;
}

static void klb_tls_destroy(struct klb_l7_session *s, bool abort)
{
	struct klb_tls_session *t = klb_tls(s);
	bool clean = t->c2b.shut && t->b2c.shut;

	if (t->up)
		klb_upstream_close(t->up, abort || !clean);
	if (t->active)
		klb_l7_backend_done(s->kn, t->be);
	if (t->be)
		klb_backend_put(t->be);
	klb_tls_hello_free(t);
}

/* For conn dumps: a single load of what the work item writes. */
static u8 klb_tls_state(const struct klb_l7_session *s)
{
	const struct klb_tls_session *t =
		container_of(s, struct klb_tls_session, s);

	switch (READ_ONCE(t->state)) {
	case KLB_TLS_HELLO:
		return KLB_L7_STATE_READING_HEAD;
	case KLB_TLS_CONNECTING:
		return KLB_L7_STATE_WAITING_BACKEND;
	default:
		return KLB_L7_STATE_RELAYING;
	}
}

const struct klb_l7_session_ops klb_tls_session_ops = {
	.size = sizeof(struct klb_tls_session),
	.run = klb_tls_run,
	.destroy = klb_tls_destroy,
	.state = klb_tls_state,
};
