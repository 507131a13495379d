// SPDX-License-Identifier: GPL-2.0
/*
 * Where a request of the http mode goes: its rules and cookie pick the
 * backend (or the queue, when every one is at its maxconn), a backend
 * connection is taken from the pool or made, and a backend that failed
 * before answering gets the request retried on another when that is
 * safe. Called by the state machine (http_session.c).
 */
#include "l7/http_session.h"

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
	klb_hs_set_backend(hs, be);
	/* The body starts over from the bytes cin still holds. */
	hs->cin.pos = hs->cin.base;
	hs->cin.fed = hs->cin.base;
	klb_hs_body_init(&hs->req_body, &hs->req, hs->req_lim.max_head);
	hs->req_sent = false;
	hs->c2b_dead = false;
	return http_connect(hs, false);
}

/* The request's cookie: the id of the backend it names, if any. */
static void http_cookie_read(struct http_session *hs)
{
	hs->ck_valid = hs->ck_name_len &&
		       klb_cookie_find_id(hs->cin.data, &hs->req,
					  (const u8 *)hs->s.svc->cookie,
					  hs->ck_name_len, &hs->ck_id);
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

/* ---- the persistence cookie ---------------------------------------------- */

int klb_hs_send_begin(struct http_session *hs)
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
		return klb_hs_send_begin(hs);
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
bool klb_hs_follow(struct http_session *hs)
{
	struct klb_l7_session *s = &hs->s;

	if (!klb_l7_session_stopping(s) || !klb_l7_session_follow(s))
		return false;
	hs->ck_name_len = strnlen(s->svc->cookie, sizeof(s->svc->cookie));
	return true;
}

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
	 * Its service stopped since klb_hs_route() looked (a restore replaced
	 * it): the service that took its address over serves the request.
	 */
	if (!be && klb_hs_follow(hs)) {
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
		klb_hs_set_backend(hs, be);
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
int klb_hs_st_queued(struct http_session *hs)
{
	/* The client went away: no one to answer. */
	if (klb_l7_sock_dead(&hs->s.client))
		return HS_END;
	return http_route_pick(hs);
}

/* A complete request head: rewrite it, pick its backend, connect. */
int klb_hs_route(struct http_session *hs)
{
	u8 ip[KLB_IP_TEXT_MAX];		/* client address, for X-Forwarded-For */
	unsigned int ip_len;
	int n;

	klb_hs_follow(hs);
	/* Only a request that asks properly gets its Upgrade forwarded. */
	hs->upgrade = klb_http_wants_upgrade(&hs->req);
	/* Before anything points into cin: it may move. */
	if (klb_hs_exchange_bufs_get(hs))
		return klb_hs_reply(hs, 503);

	ip_len = klb_ip_text(hs->s.flow.family == AF_INET6,
			     (const u8 *)&hs->s.flow.saddr, ip);
	n = klb_http_rewrite_req(hs->cin.data, &hs->req, ip, ip_len,
				 hs->upgrade, hs->hout + KLB_PROXY_V2_MAX,
				 hs->hout_cap - KLB_PROXY_V2_MAX);
	if (n < 0)
		return klb_hs_bad_request(hs, KLB_HTTP_E_HEAD_TOO_LARGE);
	hs->hout_len = KLB_PROXY_V2_MAX + n;

	if (!klb_l7_source_allowed(&hs->s))
		return klb_hs_reply(hs, 403);
	http_cookie_read(hs);
	return http_route_pick(hs);
}
