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

#include "l7/bufs.h"
#include "l7/http_session.h"
#include "sched/table.h"

/* The Set-Cookie room (KLB_HTTP_RW_COOKIE_GROWTH) holds any name. */
static_assert(sizeof_field(struct klb_service, cookie) ==
	      KLB_HTTP_COOKIE_NAME_MAX + 1);

/* Response heads may be larger than request heads (cookies). */
#define HTTP_RESP_HEAD_MIN	8192
/* Bytes one run relays before it lets other sessions run. */
#define HTTP_RUN_BUDGET		(256 * 1024)

/* ---- timers ---------------------------------------------------------------- */

static unsigned int http_timeout(const struct klb_sysctl *sc, u8 mode)
{
	switch (mode) {
	case HT_HEADER:
		return READ_ONCE(sc->http_header_timeout);
	case HT_KEEPALIVE:
		return READ_ONCE(sc->http_keepalive_timeout);
	case HT_CONNECT:
		return READ_ONCE(sc->l7_connect_timeout);
	case HT_RESPONSE:
		return READ_ONCE(sc->http_response_timeout);
	case HT_IDLE:
		return READ_ONCE(sc->l7_idle_timeout);
	case HT_QUEUE:
		return READ_ONCE(sc->http_queue_timeout);
	}
	return 0;
}

/* Arm the timer for @mode; its expiry then means what @mode says. */
void klb_hs_arm(struct http_session *hs, u8 mode)
{
	hs->tmode = mode;
	klb_l7_session_set_timeout(&hs->s,
				   http_timeout(klb_l7_sysctl(&hs->s), mode));
}

/* ---- backends and their connections ---------------------------------------- */

static void http_flush_bytes(struct http_session *hs)
{
	if (!hs->bytes_in && !hs->bytes_out)
		return;
	klb_stats_l7_bytes(hs->s.svc->stats, hs->bytes_in, hs->bytes_out);
	if (hs->be)
		klb_stats_l7_bytes(hs->be->stats, hs->bytes_in, hs->bytes_out);
	klb_l7_session_add_bytes(&hs->s, hs->bytes_in, hs->bytes_out);
	hs->bytes_in = 0;
	hs->bytes_out = 0;
}

/* @be (referenced) serves the request: lc, wlc and p2c see it busy. */
static void http_set_backend(struct http_session *hs, struct klb_backend *be)
{
	hs->be = be;
	atomic_inc(&be->active_conns);
	klb_l7_session_set_backend(&hs->s, be);
}

void klb_hs_put_backend(struct http_session *hs)
{
	if (!hs->be)
		return;
	http_flush_bytes(hs);
	klb_l7_session_set_backend(&hs->s, NULL);
	klb_l7_backend_done(hs->s.kn, hs->be);
	klb_backend_put(hs->be);
	hs->be = NULL;
}

/* Mid-exchange: the backend connection can never be trusted again. */
void klb_hs_upstream_abort(struct http_session *hs)
{
	if (hs->up)
		klb_upstream_close(hs->up, true);
	hs->up = NULL;
	hs->up_own = false;
}

/* ---- ending ---------------------------------------------------------------- */

/*
 * Answer the client ourselves and close. Only before any byte of the
 * final response went to it: callers check hs->resp_started.
 */
int klb_hs_reply(struct http_session *hs, u16 status)
{
	klb_l7_count_status(&hs->s, hs->be, status);
	klb_hs_put_backend(hs);
	/* An idle connection of ours (PROXY v2); a busy one was aborted. */
	if (hs->up)
		klb_upstream_close(hs->up, false);
	hs->up = NULL;
	/* A head of which nothing was sent is dropped; a started one ends. */
	if (hs->hout_to_client && !hs->hout_pos)
		hs->hout_to_client = false;
	hs->reply_status = status;
	hs->reply_pos = 0;
	hs->state = HS_REPLY;
	klb_hs_arm(hs, HT_IDLE);
	return HS_NEXT;
}

/*
 * End the session without an answer: count @ctr (on the backend too if
 * HTTP_ABORT_BACKEND), drop the backend connection, and with
 * HTTP_ABORT_RESET reset the client, whose response is incomplete: a
 * FIN could pass a close-delimited one off as whole.
 */
int klb_hs_abort(struct http_session *hs, enum klb_l7_ctr ctr, unsigned int how)
{
	klb_l7_count(&hs->s, (how & HTTP_ABORT_BACKEND) ? hs->be : NULL, ctr);
	klb_hs_upstream_abort(hs);
	klb_hs_put_backend(hs);
	if (how & HTTP_ABORT_RESET)
		klb_l7_session_reset(&hs->s);
	return HS_END;
}

static int http_bad_request(struct http_session *hs, int err)
{
	u16 status = klb_http_err_status(err);

	klb_l7_count(&hs->s, NULL, status == 431 ? KLB_L7_ERR_LIMIT :
						   KLB_L7_ERR_PARSE);
	return klb_hs_reply(hs, status);
}

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

static bool http_idempotent(u8 method)
{
	switch (method) {
	case KLB_HTTP_M_GET:
	case KLB_HTTP_M_HEAD:
	case KLB_HTTP_M_OPTIONS:
	case KLB_HTTP_M_TRACE:
	case KLB_HTTP_M_PUT:
	case KLB_HTTP_M_DELETE:
		return true;
	}
	return false;
}

static bool http_can_retry(const struct http_session *hs)
{
	return !hs->retried && !hs->resp_any && hs->cin.base &&
	       http_idempotent(hs->req.method_id);
}

static int http_connect(struct http_session *hs, bool reuse);

/*
 * The backend failed before answering anything: connect refused, failed
 * or timed out, or (reset, EOF) a connection that was dead already.
 * Retry once on another backend if that is safe; a refusing backend
 * would refuse again, a pooled connection's backend may be fine.
 */
int klb_hs_upstream_failed(struct http_session *hs, enum klb_l7_ctr ctr)
{
	struct klb_backend *old = hs->be, *be;
	bool reused = hs->up_reused;
	struct klb_rule_input in;

	klb_l7_count(&hs->s, old, ctr);
	klb_hs_upstream_abort(hs);
	if (!http_can_retry(hs))
		return klb_hs_reply(hs, 502);
	hs->retried = true;
	klb_rule_input_http(&in, hs->cin.data, &hs->req);
	be = klb_l7_pick(&hs->s, &in, old, hs->ck_valid ? &hs->ck_id : NULL,
			 NULL);
	if (!be || (be == old && !reused)) {
		if (be)
			klb_backend_put(be);
		return klb_hs_reply(hs, 502);
	}
	if (be != old)
		klb_stats_l7(be->stats, KLB_L7_REQUESTS);
	klb_hs_put_backend(hs);
	http_set_backend(hs, be);
	/* The body starts over from the bytes cin still holds. */
	hs->cin.pos = hs->cin.base;
	hs->cin.fed = hs->cin.base;
	klb_hs_body_init(&hs->req_body, &hs->req, hs->req_lim.max_head);
	hs->req_sent = false;
	hs->c2b_dead = false;
	return http_connect(hs, false);
}

/* ---- the persistence cookie ---------------------------------------------- */

/* The request's cookie: the id of the backend it names, if any. */
static void http_cookie_read(struct http_session *hs)
{
	hs->ck_valid = hs->ck_name_len &&
		       klb_cookie_find_id(hs->cin.data, &hs->req,
					  (const u8 *)hs->s.svc->cookie,
					  hs->ck_name_len, &hs->ck_id);
}

/*
 * The final response head needs a Set-Cookie naming the backend that
 * answered unless the request's cookie already named that one.
 */
bool klb_hs_set_cookie(struct http_session *hs, struct klb_http_set_cookie *ck)
{
	u64 id;

	if (!hs->ck_name_len || !hs->be)
		return false;
	id = klb_sched_backend_id(hs->be);
	if (hs->ck_valid && hs->ck_id == id)
		return false;
	ck->name = (const u8 *)hs->s.svc->cookie;
	ck->name_len = hs->ck_name_len;
	ck->id = id;
	return true;
}

/* Write the PROXY v2 header right before the request head in hout. */
static u32 http_proxy_header(struct http_session *hs)
{
	struct klb_l7_session *s = &hs->s;
	u8 hdr[KLB_PROXY_V2_MAX];
	u32 n;

	n = klb_proxy_v2_build(hdr, s->flow.family == AF_INET6,
			       (const u8 *)&s->flow.saddr, ntohs(s->flow.sport),
			       (const u8 *)&s->flow.daddr, ntohs(s->flow.dport));
	memcpy(hs->hout + KLB_PROXY_V2_MAX - n, hdr, n);
	return n;
}

static int http_send_begin(struct http_session *hs)
{
	hs->state = HS_SEND;
	klb_hs_arm(hs, HT_IDLE);
	return HS_NEXT;
}

/* This client's own connection (PROXY v2), if it still serves hs->be. */
static bool http_own_usable(struct http_session *hs)
{
	struct klb_upstream *up = hs->up;

	return up && hs->up_own && up->be == hs->be &&
	       klb_upstream_state(up) == 1 && !klb_l7_sock_dead(&up->s) &&
	       !klb_l7_readable(&up->s);
}

/*
 * A backend connection for the request. With PROXY v2 a connection
 * carries one client's address, so it is never shared through the pool:
 * the session keeps its own between requests instead. @reuse: an idle
 * connection (the pool's, or our own) may carry the request; not for a
 * request that can't be retried, since the backend may be closing that
 * connection (its keep-alive timeout) just as the request goes out, and
 * then the client would get a 502 for nothing.
 */
static int http_connect(struct http_session *hs, bool reuse)
{
	struct klb_l7_session *s = &hs->s;
	bool pp = READ_ONCE(s->svc->proxy_protocol) == 2;
	struct klb_upstream *up;

	hs->hout_pos = KLB_PROXY_V2_MAX;
	hs->up_reused = false;
	if (reuse && http_own_usable(hs)) {
		hs->up_reused = true;
		return http_send_begin(hs);
	}
	if (hs->up)
		klb_upstream_close(hs->up, false);
	hs->up = NULL;

	up = klb_upstream_get(s->kn, hs->be, &s->work, reuse && !pp);
	if (IS_ERR(up))
		return klb_hs_upstream_failed(hs, KLB_L7_ERR_CONNECT);
	hs->up = up;
	hs->up_own = pp;
	hs->up_reused = up->reused;
	if (pp && !up->reused)
		hs->hout_pos -= http_proxy_header(hs);
	hs->state = HS_CONNECT;
	klb_hs_arm(hs, HT_CONNECT);
	return HS_NEXT;
}

/*
 * Nothing routed yet, the service stopped: go on with the service that
 * took over its address (restore), if any.
 */
static bool http_follow(struct http_session *hs)
{
	struct klb_l7_session *s = &hs->s;

	if (!klb_l7_session_stopping(s) || !klb_l7_session_follow(s))
		return false;
	hs->ck_name_len = strnlen(s->svc->cookie, sizeof(s->svc->cookie));
	return true;
}

static int http_exchange_bufs_get(struct http_session *hs);

/* hs->be serves the request: connect to it. */
static int http_route_go(struct http_session *hs)
{
	/* Body bytes follow the head; the head stays for a retry. */
	hs->cin.base = hs->req.head_len;
	hs->cin.pos = hs->cin.base;
	hs->cin.fed = hs->cin.base;
	klb_hs_body_init(&hs->req_body, &hs->req, hs->req_lim.max_head);
	/*
	 * An upgrade may turn the connection into a tunnel that is never
	 * given back: it takes a fresh one, not one from the pool.
	 */
	return http_connect(hs, !hs->upgrade &&
			    http_idempotent(hs->req.method_id));
}

/*
 * Pick the request's backend. If every usable backend of its pool is at
 * its maxconn, or requests of that pool wait already (they go first),
 * the request waits in the queue (HS_QUEUED) if there is room, for up to
 * http_queue_timeout; then, or without room, 503 (drops maxconn). Run
 * again from HS_QUEUED whenever the session is woken.
 */
static int http_route_pick(struct http_session *hs)
{
	struct klb_l7_session *s = &hs->s;
	bool queued = hs->wait.s;
	struct klb_rule_input in;
	struct klb_backend *be;
	const void *full;

	klb_rule_input_http(&in, hs->cin.data, &hs->req);
	be = klb_l7_pick(s, &in, NULL, hs->ck_valid ? &hs->ck_id : NULL,
			 &full);
	/*
	 * Its service stopped since http_route() looked (a restore replaced
	 * it): the service that took its address over serves the request.
	 */
	if (!be && http_follow(hs)) {
		http_cookie_read(hs);
		be = klb_l7_pick(s, &in, NULL,
				 hs->ck_valid ? &hs->ck_id : NULL, &full);
	}
	if (be && READ_ONCE(be->maxconn) &&
	    klb_l7_queue_ahead(s->kn, be->pool, queued ? &hs->wait : NULL)) {
		full = be->pool;
		klb_backend_put(be);
		be = NULL;
	}
	/*
	 * Its service now routes it to another pool (a restore replaced
	 * them): wait for that one's backends, at the end of its line.
	 */
	if (queued && full && full != hs->wait.pool) {
		klb_l7_queue_del(s, &hs->wait);
		queued = false;
	}
	if (be) {
		klb_l7_queue_del(s, &hs->wait);
		klb_l7_count(s, be, KLB_L7_REQUESTS);
		http_set_backend(hs, be);
		return http_route_go(hs);
	}
	if (full && queued && !klb_l7_session_expired(s))
		return HS_WAIT;
	if (full && !queued && !klb_l7_queue_add(s, &hs->wait, full)) {
		/* Requeued for another pool: the first deadline still holds. */
		if (hs->state != HS_QUEUED) {
			hs->state = HS_QUEUED;
			klb_hs_arm(hs, HT_QUEUE);
		}
		return HS_WAIT;
	}
	klb_l7_queue_del(s, &hs->wait);
	klb_l7_count(s, NULL, KLB_L7_REQUESTS);
	if (full)
		klb_stats_drop(s->svc->stats, KLB_DROP_MAXCONN);
	else
		klb_l7_count(s, NULL, KLB_L7_ERR_NO_BACKEND);
	return klb_hs_reply(hs, 503);
}

/* HS_QUEUED: woken by a freed slot, the queue timeout or the client. */
static int http_st_queued(struct http_session *hs)
{
	/* The client went away: no one to answer. */
	if (klb_l7_sock_dead(&hs->s.client))
		return HS_END;
	return http_route_pick(hs);
}

/* A complete request head: rewrite it, pick its backend, connect. */
static int http_route(struct http_session *hs)
{
	u8 ip[KLB_IP_TEXT_MAX];		/* client address, for X-Forwarded-For */
	unsigned int ip_len;
	int n;

	http_follow(hs);
	/* Only a request that asks properly gets its Upgrade forwarded. */
	hs->upgrade = klb_http_wants_upgrade(&hs->req);
	/* Before anything points into cin: it may move. */
	if (http_exchange_bufs_get(hs))
		return klb_hs_reply(hs, 503);

	ip_len = klb_ip_text(hs->s.flow.family == AF_INET6,
			     (const u8 *)&hs->s.flow.saddr, ip);
	n = klb_http_rewrite_req(hs->cin.data, &hs->req, ip, ip_len,
				 hs->upgrade, hs->hout + KLB_PROXY_V2_MAX,
				 hs->hout_cap - KLB_PROXY_V2_MAX);
	if (n < 0)
		return http_bad_request(hs, KLB_HTTP_E_HEAD_TOO_LARGE);
	hs->hout_len = KLB_PROXY_V2_MAX + n;

	if (!klb_l7_source_allowed(&hs->s))
		return klb_hs_reply(hs, 403);
	http_cookie_read(hs);
	return http_route_pick(hs);
}

static int http_cin_grow(struct http_session *hs, u32 cap);

/*
 * cin is full (or absent) with a head not complete: grow it to the next
 * size. Leading CRLFs and a head can just outgrow the head limit: 431.
 * false: it could not grow, the answer is under way (HS_REPLY).
 */
static bool http_head_grow(struct http_session *hs)
{
	u32 cap = klb_http_head_buf_next(hs->cin.cap, hs->req_lim.max_head);

	if (!cap)
		http_bad_request(hs, KLB_HTTP_E_HEAD_TOO_LARGE);
	else if (http_cin_grow(hs, cap))
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
				return http_route(hs);
			if (r < 0)
				return http_bad_request(hs, r);
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
	if (klb_l7_session_stopping(s) && !http_follow(hs))
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
		return http_send_begin(hs);
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

static void http_exchange_bufs_put(struct http_session *hs);

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
		http_exchange_bufs_put(hs);
		memmove(b->data, b->data + b->fed, n);
	}
	b->len = n;
	b->pos = 0;
	b->fed = 0;
	b->base = 0;
	http_head_begin(hs);
	klb_hs_arm(hs, n ? HT_HEADER : HT_KEEPALIVE);
}

int klb_hs_exchange_end(struct http_session *hs)
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

/* bin and hout: only while a request is routed. */
static void http_exchange_bufs_put(struct http_session *hs)
{
	u32 held = (hs->bin.data ? hs->bin.cap : 0) +
		   (hs->hout ? hs->hout_cap : 0);

	klb_l7_buf_free(hs->bin.data, hs->bin.cap);
	klb_l7_buf_free(hs->hout, hs->hout_cap);
	hs->bin.data = NULL;
	hs->hout = NULL;
	klb_l7_mem_uncharge(&hs->s, held);
	hs->mem -= held;
}

void klb_hs_bufs_put(struct http_session *hs)
{
	http_exchange_bufs_put(hs);
	klb_l7_buf_free(hs->cin.data, hs->cin.cap);
	hs->cin.data = NULL;
	klb_l7_mem_uncharge(&hs->s, hs->mem);
	hs->mem = 0;
}

/*
 * Move cin to a buffer of @cap bytes (larger), its bytes and offsets
 * kept, the growth charged. -ENOBUFS: the netns is at l7_mem_max_kb
 * (counted); -ENOMEM. Either way cin is as it was.
 */
static int http_cin_grow(struct http_session *hs, u32 cap)
{
	struct http_buf *b = &hs->cin;
	u32 more = cap - (b->data ? b->cap : 0);
	u8 *data;

	if (klb_l7_mem_charge(&hs->s, more))
		return -ENOBUFS;
	data = klb_l7_buf_alloc(cap);
	if (!data) {
		klb_l7_mem_uncharge(&hs->s, more);
		return -ENOMEM;
	}
	if (b->len)
		memcpy(data, b->data, b->len);
	klb_l7_buf_free(b->data, b->cap);
	b->data = data;
	b->cap = cap;
	hs->mem += more;
	return 0;
}

/*
 * A routed request's buffers, sized by the sysctls of now: cin grown to
 * the relay size (a body or a tunnel goes through it), bin and hout.
 * -ENOBUFS: the netns is at l7_mem_max_kb (counted); -ENOMEM.
 */
static int http_exchange_bufs_get(struct http_session *hs)
{
	struct klb_l7_session *s = &hs->s;
	u32 h = READ_ONCE(klb_l7_sysctl(s)->http_max_header_size);
	u32 r = max_t(u32, h, HTTP_RESP_HEAD_MIN);
	u32 cin_cap = max_t(u32, h, KLB_L7_BUF_SIZE);
	size_t mem;
	int err;

	/*
	 * cin is the relay buffer of a request body and of an upgraded
	 * connection's client bytes. Most requests have neither: their head
	 * already fits where it was read, and growing it would cost a
	 * 16 KiB allocation and a copy per request (issue 20). Pipelined
	 * bytes just wait in the socket for the room.
	 */
	if (hs->req.body == KLB_HTTP_BODY_NONE && !hs->upgrade)
		cin_cap = 0;
	if (cin_cap > hs->cin.cap) {
		err = http_cin_grow(hs, cin_cap);
		if (err)
			return err;
	}
	hs->bin.cap = max_t(u32, r, KLB_L7_BUF_SIZE);
	/*
	 * Room for what a rewrite adds: it can never run out of buffer. The
	 * cookie's too, always: the session may move to a service that has
	 * one (klb_l7_session_follow()).
	 */
	hs->hout_cap = KLB_PROXY_V2_MAX + r + KLB_HTTP_RW_GROWTH +
		       KLB_HTTP_RW_COOKIE_GROWTH;
	mem = (size_t)hs->bin.cap + hs->hout_cap;
	if (klb_l7_mem_charge(s, mem))
		return -ENOBUFS;
	hs->bin.data = klb_l7_buf_alloc(hs->bin.cap);
	hs->hout = klb_l7_buf_alloc(hs->hout_cap);
	if (!hs->bin.data || !hs->hout) {
		klb_l7_buf_free(hs->bin.data, hs->bin.cap);
		klb_l7_buf_free(hs->hout, hs->hout_cap);
		hs->bin.data = NULL;
		hs->hout = NULL;
		klb_l7_mem_uncharge(s, mem);
		return -ENOMEM;
	}
	hs->mem += mem;
	hs->resp_lim.max_line = r;
	hs->resp_lim.max_head = r;
	hs->resp_lim.max_fields = r;	/* bounded by the head size */
	return 0;
}

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
		return klb_hs_exchange(hs);
	case HS_REPLY:
		return http_st_reply(hs);
	case HS_TUNNEL:
		return klb_hs_tunnel(hs);
	case HS_QUEUED:
		return http_st_queued(hs);
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
	http_flush_bytes(hs);
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
	http_flush_bytes(hs);
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
