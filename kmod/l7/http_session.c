// SPDX-License-Identifier: GPL-2.0
/*
 * The http service mode: one client connection, its requests one at a
 * time, each routed on its own to a backend connection taken from the
 * keep-alive pool (or made), and the answers relayed back in order.
 *
 * States (hs->state) and how each one is left:
 *
 *   HS_HEAD      read and parse a request head in cin
 *                  head complete -> route: 503 (HS_REPLY), HS_QUEUED
 *                  or HS_CONNECT
 *                  parse error -> HS_REPLY (400, 431, 501, 505)
 *                  timeout: 408 (HS_REPLY); idle between requests: end
 *                  client EOF or reset, service stopping -> end
 *   HS_CONNECT   the backend connection is being made
 *                  connected -> HS_SEND
 *                  refused, failed, timeout -> retry (HS_CONNECT) or 502
 *   HS_SEND      the rewritten head (after a PROXY v2 header) goes out
 *                  all sent -> HS_EXCHANGE
 *                  send error -> retry (HS_CONNECT) or 502
 *                  the backend takes nothing for l7_idle_timeout -> 504
 *   HS_EXCHANGE  request body and response at once (http_relay.c)
 *                  response relayed -> HS_HEAD (keep-alive) or end
 *                  101 to an upgrade request -> HS_TUNNEL
 *                  errors -> retry, a reply of ours, or end
 *   HS_REPLY     a response of our own; then end, lingering
 *   HS_TUNNEL    the backend switched protocols (101) for a request that
 *                asked to (http_tunnel.c): bytes both ways until both
 *                sides closed, or l7_idle_timeout without a byte
 *   HS_QUEUED    every backend of the pool at its maxconn (l7/queue.c)
 *                  a slot for it -> HS_CONNECT
 *                  queue full, http_queue_timeout -> 503 (HS_REPLY)
 *                  client gone -> end
 *
 * Memory is bounded per session whatever the message sizes: cin and bin
 * (client and backend bytes, the larger of a head and KLB_L7_BUF_SIZE),
 * hout (one head we write), and this struct. Buffers exist only while a
 * request needs them, so that clients who are slow or idle cost little:
 *   - idle (before the first request, or kept alive between two): this
 *     struct and the socket, no buffer;
 *   - reading a head: cin alone, KLB_HTTP_HEAD_BUF (1 KiB) from the
 *     request's first byte, doubled each time a head does not fit, up to
 *     http_max_header_size (the parser keeps offsets, so the head may
 *     move): a slowloris client dribbling a short head holds 1 KiB;
 *   - routed (head complete, a backend to contact): bin and hout
 *     allocated, and cin grown to the relay size if the request has a
 *     body or asks for an upgrade (~41 KiB with the defaults; without,
 *     ~25 KiB plus the head's buffer);
 *   - the exchange ends: all freed, or with a pipelined request after
 *     it, bin and hout freed and cin kept (it holds those bytes).
 * The buffers of 8-16 KiB come from a slab cache of their own (l7/bufs.c),
 * so that a request does not cost a zeroed page allocation for each.
 * What is held is charged to the netns's l7_mem_max_kb as it is
 * allocated: over it, the request is answered 503 (errors limit).
 *
 * A request may go to a second backend when the first one failed before
 * answering anything (connect refused or timed out, a pooled connection
 * found dead): only for methods that may safely run twice, and only
 * while we still hold every byte the client sent (cin.base: the head
 * stays pinned in cin until a body byte is sent).
 */
#include <linux/mm.h>
#include <linux/slab.h>

#include "l7/http_session.h"

/* The Set-Cookie room (KLB_HTTP_RW_COOKIE_GROWTH) holds any name. */
static_assert(sizeof_field(struct klb_service, cookie) ==
	      KLB_HTTP_COOKIE_NAME_MAX + 1);

/* Bytes one run relays before it lets other sessions run. */
#define HTTP_RUN_BUDGET		(256 * 1024)

/* ---- HS_HEAD ------------------------------------------------------------------ */

/* The request head limits, for a head read into cin. */
static void http_req_limits(struct http_session *hs)
{
	const struct klb_sysctl *sc = klb_l7_sysctl(&hs->s);
	u32 h = READ_ONCE(sc->http_max_header_size);

	hs->req_lim.max_line = h;
	hs->req_lim.max_head = h;
	hs->req_lim.max_fields = READ_ONCE(sc->http_max_headers);
}

/* Ready for a request head at the start of cin. */
static void http_head_begin(struct http_session *hs)
{
	hs->state = HS_HEAD;
	klb_http_req_init(&hs->req);
	http_req_limits(hs);
	hs->retried = false;
	hs->req_sent = false;
	hs->c2b_dead = false;
	hs->resp_any = false;
	hs->resp_started = false;
	hs->client_keep = false;
	hs->hout_to_client = false;
	hs->upgrade = false;
	hs->rphase = RP_HEAD;
}

/*
 * cin is full (or absent) with a head not complete: grow it to the next
 * size. Leading CRLFs and a head can just outgrow the head limit: 431.
 * false: it could not grow, the answer is under way (HS_REPLY).
 */
static bool http_head_grow(struct http_session *hs)
{
	u32 cap = klb_http_head_buf_next(hs->cin.cap, hs->req_lim.max_head);

	if (!cap)
		klb_hs_bad_request(hs, KLB_HTTP_E_HEAD_TOO_LARGE);
	else if (klb_hs_cin_grow(hs, cap))
		klb_hs_reply(hs, 503);
	else
		return true;
	return false;
}

static int http_st_head(struct http_session *hs)
{
	struct klb_l7_session *s = &hs->s;
	struct http_buf *b = &hs->cin;
	int r, n;

	/* A buffer when the request's first byte is there, not before. */
	if (!b->data) {
		if (!klb_l7_readable(&s->client)) {
			if (klb_l7_sock_dead(&s->client))
				return HS_END;
			goto wait;
		}
		b->cap = 0;
		b->len = 0;
		b->pos = 0;
		b->fed = 0;
		b->base = 0;
		if (!http_head_grow(hs))
			return HS_NEXT;
	}
	for (;;) {
		if (b->len) {
			r = klb_http_parse(&hs->req, b->data, b->len,
					   &hs->req_lim);
			if (r == KLB_HTTP_OK)
				return klb_hs_route(hs);
			if (r < 0)
				return klb_hs_bad_request(hs, r);
			/* Offsets only: the head may move to a larger cin. */
			if (b->len == b->cap && !http_head_grow(hs))
				return HS_NEXT;
		}
		if (hs->client_eof)
			return HS_END;	/* nothing, or half a head: no answer */
		n = klb_l7_recv(&s->client, b->data + b->len, b->cap - b->len);
		if (n == -EAGAIN)
			break;
		if (n < 0)
			return HS_END;
		if (!n) {
			hs->client_eof = true;
			continue;
		}
		/* A request's head timeout runs from its first byte. */
		if (!b->len && hs->tmode == HT_KEEPALIVE)
			klb_hs_arm(hs, HT_HEADER);
		b->len += n;
	}
wait:
	/* Unconfigured: no new exchange (a complete head was routed above). */
	if (klb_l7_session_stopping(s) && !klb_hs_follow(hs))
		return HS_END;
	if (!klb_l7_session_expired(s))
		return HS_WAIT;
	if (hs->tmode == HT_KEEPALIVE)
		return HS_END;	/* idle between requests: close quietly */
	klb_l7_count(s, NULL, KLB_L7_ERR_TIMEOUT);
	return klb_hs_reply(hs, 408);
}

/* ---- HS_CONNECT, HS_SEND ---------------------------------------------------- */

static int http_st_connect(struct http_session *hs)
{
	int r = klb_upstream_state(hs->up);

	if (r > 0)
		return klb_hs_send_begin(hs);
	if (r < 0 || klb_l7_session_expired(&hs->s)) {
		/* A parked connection that died says little of the backend. */
		if (!hs->up_reused)
			klb_health_passive(hs->s.kn, hs->be,
					   KLB_PASSIVE_CONNECT);
		return klb_hs_upstream_failed(hs, KLB_L7_ERR_CONNECT);
	}
	return HS_WAIT;
}

static int http_exchange_begin(struct http_session *hs)
{
	hs->state = HS_EXCHANGE;
	hs->rphase = RP_HEAD;
	hs->interim = 0;
	klb_http_resp_init(&hs->resp, hs->req.method_id);
	hs->bin.len = 0;
	hs->bin.pos = 0;
	hs->bin.fed = 0;
	klb_hs_arm(hs, HT_IDLE);
	return HS_NEXT;
}

static int http_st_send(struct http_session *hs)
{
	bool progress = false;
	int n;

	while (hs->hout_pos < hs->hout_len) {
		n = klb_l7_send(&hs->up->s, hs->hout + hs->hout_pos,
				hs->hout_len - hs->hout_pos, false);
		if (n == -EAGAIN || !n)
			break;
		if (n < 0)
			return klb_hs_upstream_failed(hs, KLB_L7_ERR_RESET);
		hs->hout_pos += n;
		hs->bytes_in += n;
		progress = true;
	}
	if (hs->hout_pos == hs->hout_len)
		return http_exchange_begin(hs);
	if (progress) {
		klb_hs_arm(hs, HT_IDLE);
		return HS_WAIT;
	}
	if (!klb_l7_session_expired(&hs->s))
		return HS_WAIT;
	klb_l7_count(&hs->s, hs->be, KLB_L7_ERR_TIMEOUT);
	klb_hs_upstream_abort(hs);
	return klb_hs_reply(hs, 504);
}

/* ---- the end of an exchange -------------------------------------------------- */

/*
 * The response is relayed. The backend connection is parked (or kept,
 * PROXY v2) only if nothing about it is in doubt: a persistent response,
 * the request all sent, nothing read past the response, and no Upgrade
 * forwarded on it (the backend declined to switch, but a connection that
 * was offered one is not shared).
 */
static void http_upstream_done(struct http_session *hs)
{
	bool tidy = hs->req_sent && !hs->c2b_dead &&
		    hs->bin.fed == hs->bin.len;

	if (!tidy || !(hs->resp.flags & KLB_HTTP_F_PERSISTENT) ||
	    hs->upgrade) {
		/* A backend still owed request bytes would wait for them. */
		klb_upstream_close(hs->up, !tidy);
		hs->up = NULL;
		hs->up_own = false;
	} else if (!hs->up_own) {
		klb_upstream_park(hs->up);
		hs->up = NULL;
	}
}

/* Pipelined bytes after the request go to the front of cin. */
static void http_next_request(struct http_session *hs)
{
	struct http_buf *b = &hs->cin;
	u32 n = b->len - b->fed;

	/*
	 * Idle until the next request: no buffer (allocated again then).
	 * A pipelined head keeps cin, the rest waits for it to be routed.
	 */
	if (!n) {
		klb_hs_bufs_put(hs);
	} else {
		klb_hs_exchange_bufs_put(hs);
		memmove(b->data, b->data + b->fed, n);
	}
	b->len = n;
	b->pos = 0;
	b->fed = 0;
	b->base = 0;
	http_head_begin(hs);
	klb_hs_arm(hs, n ? HT_HEADER : HT_KEEPALIVE);
}

static int http_exchange_end(struct http_session *hs)
{
	http_upstream_done(hs);
	klb_hs_put_backend(hs);
	if (hs->client_keep) {
		http_next_request(hs);
		return HS_NEXT;
	}
	/* Closing on a client that may still send would reset our answer. */
	if (!hs->client_eof || klb_l7_readable(&hs->s.client))
		klb_l7_session_linger(&hs->s);
	return HS_END;
}

/* HS_EXCHANGE: the relay (http_relay.c) says how the exchange goes on. */
static int http_st_exchange(struct http_session *hs)
{
	int r = klb_hs_exchange(hs);

	if (r == HS_EXCHANGE_END)
		return http_exchange_end(hs);
	if (r == HS_BACKEND_FAILED)
		return klb_hs_upstream_failed(hs, KLB_L7_ERR_RESET);
	return r;
}

/* ---- HS_REPLY ------------------------------------------------------------------ */

static int http_st_reply(struct http_session *hs)
{
	u8 reply[KLB_HTTP_ERR_RESP_MAX];
	bool progress = false;
	u32 len;
	int n;

	/* An interim response half sent goes out whole first. */
	n = klb_hs_flush_head(hs, &progress);
	if (n < 0)
		return HS_END;
	len = klb_http_error_response(hs->reply_status, reply, sizeof(reply));
	while (n && hs->reply_pos < len) {
		n = klb_l7_send(&hs->s.client, reply + hs->reply_pos,
				len - hs->reply_pos, false);
		if (n == -EAGAIN)
			n = 0;
		if (n < 0)
			return HS_END;
		hs->reply_pos += n;
	}
	if (hs->reply_pos == len) {
		klb_l7_session_linger(&hs->s);
		return HS_END;
	}
	return klb_l7_session_expired(&hs->s) ? HS_END : HS_WAIT;
}

/* ---- the session ops -------------------------------------------------------------- */

static void http_init(struct http_session *hs)
{
	struct klb_l7_session *s = &hs->s;

	/*
	 * Every accepted connection holds one, idle ones included: past
	 * 1024 bytes it costs a kmalloc-2k object (security.md, l7_memory.sh).
	 * Lock debugging (lockdep, debug spinlocks) grows every lock and
	 * work item in it; those kernels are for tests.
	 */
	BUILD_BUG_ON(!IS_ENABLED(CONFIG_LOCKDEP) &&
		     !IS_ENABLED(CONFIG_DEBUG_SPINLOCK) &&
		     sizeof(struct http_session) > 1024);
	BUILD_BUG_ON(KLB_HTTP_ERR_RESP_MAX > U8_MAX);	/* reply_pos */
	hs->inited = true;
	hs->ck_name_len = strnlen(s->svc->cookie, sizeof(s->svc->cookie));
	http_head_begin(hs);
	/* The first request's head timeout runs from the accept. */
	klb_hs_arm(hs, HT_HEADER);
}

static int http_step(struct http_session *hs)
{
	switch (hs->state) {
	case HS_HEAD:
		return http_st_head(hs);
	case HS_CONNECT:
		return http_st_connect(hs);
	case HS_SEND:
		return http_st_send(hs);
	case HS_EXCHANGE:
		return http_st_exchange(hs);
	case HS_REPLY:
		return http_st_reply(hs);
	case HS_TUNNEL:
		return klb_hs_tunnel(hs);
	case HS_QUEUED:
		return klb_hs_st_queued(hs);
	}
	return HS_END;
}

static bool http_run(struct klb_l7_session *s)
{
	struct http_session *hs = to_hs(s);
	int r = HS_NEXT;

	if (!hs->inited)
		http_init(hs);
	hs->budget = HTTP_RUN_BUDGET;
	hs->yield = false;
	while (r == HS_NEXT)
		r = http_step(hs);
	klb_hs_flush_bytes(hs);
	/* Out of budget with bytes still flowing: no event would come. */
	if (r == HS_WAIT && hs->yield)
		queue_work(klb_l7_wq, &s->work);
	return r == HS_END;
}

static void http_destroy(struct klb_l7_session *s, bool abort)
{
	struct http_session *hs = to_hs(s);

	klb_l7_queue_del(s, &hs->wait);
	/* Between requests only our own idle connection (PROXY v2) is left. */
	if (hs->up)
		klb_upstream_close(hs->up, abort || hs->state != HS_HEAD);
	hs->up = NULL;
	klb_hs_put_backend(hs);
	klb_hs_flush_bytes(hs);
	klb_hs_bufs_put(hs);
}

/* For conn dumps: single loads of what the work item writes. */
static u8 http_state(const struct klb_l7_session *s)
{
	const struct http_session *hs = container_of(s, struct http_session, s);

	switch (READ_ONCE(hs->state)) {
	case HS_HEAD:
		return READ_ONCE(hs->tmode) == HT_KEEPALIVE ?
		       KLB_L7_STATE_IDLE : KLB_L7_STATE_READING_HEAD;
	case HS_CONNECT:
		return KLB_L7_STATE_WAITING_BACKEND;
	case HS_QUEUED:
		return KLB_L7_STATE_QUEUED;
	case HS_REPLY:
		return KLB_L7_STATE_REPLYING;
	default:
		return KLB_L7_STATE_RELAYING;
	}
}

const struct klb_l7_session_ops klb_http_session_ops = {
	.size = sizeof(struct http_session),
	.run = http_run,
	.destroy = http_destroy,
	.state = http_state,
};
