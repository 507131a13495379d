// SPDX-License-Identifier: GPL-2.0
/*
 * The exchange of the http service mode (HS_EXCHANGE): once the request
 * head is sent, the request body goes to the backend while the response
 * comes back, both at once, since a backend may answer before it has read
 * the whole body (413, 401). Each direction is a relay through one buffer
 * of bounded size: read what fits, let the body framing accept it, send
 * what was accepted; a full buffer or a blocked send stops the reading
 * (backpressure), and the next socket event resumes it.
 *
 * Framing is checked before bytes are forwarded, never after: a chunk
 * size that does not parse stops the relay before those bytes, so a
 * backend never sees a body that ends elsewhere than we think it does.
 *
 * Response phases (hs->rphase):
 *   RP_HEAD  parse a head in bin; interim ones (1xx but 101, at most
 *            KLB_HTTP_MAX_INTERIM, then 502) go to 1.1 clients, the
 *            final one is rewritten into hout -> RP_BODY; a 101 to a
 *            request whose Upgrade was forwarded -> HS_TUNNEL
 *            (http_tunnel.c), to any other request -> 502
 *   RP_BODY  relay the body per its framing -> RP_DONE
 *   RP_DONE  the exchange ends (HS_EXCHANGE_END: http_session.c goes on)
 */
#include "l7/http_session.h"

/* A response phase moved on: go on with the next one. */
#define HS_AGAIN	(-1)

/* A relay's outcome. */
enum {
	RELAY_WAIT,	/* blocked on a socket, or out of budget */
	RELAY_DONE,	/* the body is complete and all of it sent */
	RELAY_SRC_EOF,	/* the source closed before the body ended */
	RELAY_SRC_ERR,	/* the source failed (reset) */
	RELAY_DST_ERR,	/* the destination failed */
	RELAY_BAD,	/* the body's framing is broken */
};

void klb_hs_body_init(struct http_body *b, const struct klb_http_msg *m,
		      u32 max_trailer)
{
	b->mode = m->body;
	b->left = m->content_length;
	b->done = m->body == KLB_HTTP_BODY_NONE;
	klb_chunk_init(&b->chunk, max_trailer);
}

/* Let the framing accept what it can of data[fed..len). */
static int http_frame(struct http_body *body, struct http_buf *b)
{
	u32 n, used;
	int r;

	switch (body->mode) {
	case KLB_HTTP_BODY_LENGTH:
		n = min_t(u64, body->left, b->len - b->fed);
		b->fed += n;
		body->left -= n;
		body->done = !body->left;
		return 0;
	case KLB_HTTP_BODY_CHUNKED:
		while (b->fed < b->len && !body->done) {
			r = klb_chunk_feed(&body->chunk, b->data + b->fed,
					   b->len - b->fed, &used);
			if (r < 0)
				return r;
			b->fed += used;
			body->done = r == KLB_CHUNK_DONE;
		}
		return 0;
	case KLB_HTTP_BODY_CLOSE:
		b->fed = b->len;
		return 0;
	}
	body->done = true;
	return 0;
}

/*
 * Room to read into: sent bytes are dropped from the front when the
 * buffer is full. A pinned request head (base) that leaves no room at
 * all is given up: a retry is then no longer possible.
 */
static u32 http_buf_room(struct http_buf *b)
{
	u32 gone;

	if (b->len < b->cap)
		return b->cap - b->len;
	if (b->pos == b->len) {
		b->base = 0;
		b->pos = 0;
		b->fed = 0;
		b->len = 0;
	} else if (b->pos > b->base) {
		gone = b->pos - b->base;
		memmove(b->data + b->base, b->data + b->pos, b->len - b->pos);
		b->fed -= gone;
		b->len -= gone;
		b->pos = b->base;
	}
	return b->cap - b->len;
}

/* Send what the framing accepted. Returns false on a send error. */
static bool http_relay_send(struct http_session *hs, struct klb_l7_sock *dst,
			    struct http_buf *b, u64 *bytes, bool *moved)
{
	int n;

	if (b->pos == b->fed)
		return true;
	n = klb_l7_send(dst, b->data + b->pos, b->fed - b->pos, false);
	if (n == -EAGAIN || !n)
		return true;
	if (n < 0)
		return false;
	b->pos += n;
	*bytes += n;
	hs->budget -= n;
	/* Body bytes are gone: the request head needs no pinning. */
	b->base = 0;
	if (b->pos == b->len) {
		b->pos = 0;
		b->fed = 0;
		b->len = 0;
	}
	*moved = true;
	return true;
}

/*
 * Body bytes that may go from socket to socket without passing through
 * @b (zero copy): only once @b holds nothing unsent, and only payload,
 * never framing the relay must see. 0: read into @b instead.
 */
static u64 http_splice_room(const struct http_body *body,
			    const struct http_buf *b)
{
	if (b->pos != b->len)
		return 0;
	switch (body->mode) {
	case KLB_HTTP_BODY_LENGTH:
		return body->left;
	case KLB_HTTP_BODY_CHUNKED:
		return klb_chunk_data_left(&body->chunk);
	case KLB_HTTP_BODY_CLOSE:
		return U64_MAX;
	}
	return 0;
}

/* @n payload bytes went by splice: the framing takes them as seen. */
static void http_frame_spliced(struct http_body *body, u64 n)
{
	switch (body->mode) {
	case KLB_HTTP_BODY_LENGTH:
		body->left -= n;
		body->done = !body->left;
		break;
	case KLB_HTTP_BODY_CHUNKED:
		klb_chunk_skip(&body->chunk, n);
		break;
	}
}

/*
 * Bring more of the body along: spliced straight to @dst when it may be
 * (http_splice_room()), else read into @b for the framing to look at.
 * Returns a RELAY_* outcome when the relay stops, else -1 (*moved set if
 * bytes came).
 */
static int http_relay_pull(struct http_session *hs, struct klb_l7_sock *src,
			   struct klb_l7_sock *dst, struct http_buf *b,
			   struct http_body *body, u64 *bytes, bool *moved)
{
	u64 zc = http_splice_room(body, b);
	bool dst_failed = false;
	u32 room;
	int n;

	if (zc) {
		n = klb_l7_splice(src, dst, min_t(u64, zc, max(hs->budget, 1L)),
				  &dst_failed);
		if (n > 0) {
			http_frame_spliced(body, n);
			*bytes += n;
			hs->budget -= n;
			/* Body bytes are gone: the request head needs no pinning. */
			b->base = 0;
			b->pos = 0;
			b->fed = 0;
			b->len = 0;
		}
	} else {
		room = http_buf_room(b);
		n = room ? klb_l7_recv(src, b->data + b->len, room) : -EAGAIN;
		if (n > 0)
			b->len += n;
	}
	if (n > 0) {
		*moved = true;
		return -1;
	}
	if (!n && body->mode == KLB_HTTP_BODY_CLOSE) {
		body->done = true;	/* the end of the body */
		*moved = true;
		return -1;
	}
	if (!n)
		return RELAY_SRC_EOF;
	if (n == -EAGAIN)
		return -1;
	return dst_failed ? RELAY_DST_ERR : RELAY_SRC_ERR;
}

/*
 * Move one body from @src through @b to @dst as far as the sockets let
 * it go; payload that need not be looked at goes straight from socket to
 * socket (http_splice_room()). Stops reading @src at the body's end:
 * what follows is another message (a pipelined request) or bytes the
 * backend should not have sent.
 */
static int http_relay(struct http_session *hs, struct klb_l7_sock *src,
		      struct klb_l7_sock *dst, struct http_buf *b,
		      struct http_body *body, u64 *bytes, bool *progress)
{
	bool moved;
	int n;

	do {
		moved = false;
		if (!http_relay_send(hs, dst, b, bytes, &moved))
			return RELAY_DST_ERR;
		if (body->done) {
			if (b->pos == b->fed)
				return RELAY_DONE;
		} else if (b->fed < b->len) {
			if (http_frame(body, b))
				return RELAY_BAD;
			moved = true;
		} else {
			n = http_relay_pull(hs, src, dst, b, body, bytes,
					    &moved);
			if (n >= 0)
				return n;
		}
		*progress |= moved;
	} while (moved && hs->budget > 0);
	if (moved)
		hs->yield = true;
	return RELAY_WAIT;
}

/* ---- request side ------------------------------------------------------------ */

/*
 * The request is all read: still read the client (pipelined requests wait
 * in cin) to notice it resetting or leaving while the backend thinks.
 */
static int http_watch_client(struct http_session *hs, bool *progress)
{
	struct http_buf *b = &hs->cin;
	u32 room;
	int n;

	if (hs->client_eof || !hs->req_body.done)
		return HS_WAIT;
	room = http_buf_room(b);
	if (!room)
		return HS_WAIT;
	n = klb_l7_recv(&hs->s.client, b->data + b->len, room);
	if (n > 0) {
		b->len += n;
		*progress = true;
	} else if (!n) {
		hs->client_eof = true;	/* a half close: it may still read */
	} else if (n != -EAGAIN) {
		return klb_hs_abort(hs, KLB_L7_ERR_RESET, 0);
	}
	return HS_WAIT;
}

/* The request body is broken mid-relay (a smuggling shape). */
static int http_request_bad(struct http_session *hs)
{
	/* What was forwarded can never become a request at the backend. */
	klb_hs_upstream_abort(hs);
	if (hs->resp_started)
		return klb_hs_abort(hs, KLB_L7_ERR_PARSE, HTTP_ABORT_RESET);
	klb_l7_count(&hs->s, NULL, KLB_L7_ERR_PARSE);
	/* The client's mistake: a 4xx for the service, not the backend. */
	klb_hs_put_backend(hs);
	return klb_hs_reply(hs, 400);
}

static int http_request_step(struct http_session *hs, bool *progress)
{
	int r;

	if (hs->req_sent || hs->c2b_dead)
		return http_watch_client(hs, progress);
	r = http_relay(hs, &hs->s.client, &hs->up->s, &hs->cin,
		       &hs->req_body, &hs->bytes_in, progress);
	switch (r) {
	case RELAY_WAIT:
		return HS_WAIT;
	case RELAY_DONE:
		hs->req_sent = true;
		if (hs->rphase == RP_HEAD)
			klb_hs_arm(hs, HT_RESPONSE);
		return http_watch_client(hs, progress);
	case RELAY_DST_ERR:
		/* The backend stopped reading: its response may say why. */
		hs->c2b_dead = true;
		return HS_WAIT;
	case RELAY_BAD:
		return http_request_bad(hs);
	}
	/* The client closed or reset in the middle of its request. */
	return klb_hs_abort(hs, KLB_L7_ERR_RESET, 0);
}

/* ---- response side ----------------------------------------------------------- */

/* The backend broke the response head: 502 (nothing was relayed yet). */
static int http_bad_gateway(struct http_session *hs, enum klb_l7_ctr ctr)
{
	klb_l7_count(&hs->s, hs->be, ctr);
	klb_hs_upstream_abort(hs);
	return klb_hs_reply(hs, 502);
}

/* Whether the client connection outlives this exchange. */
static bool http_client_keep(struct http_session *hs)
{
	return (hs->req.flags & KLB_HTTP_F_PERSISTENT) &&
	       hs->resp.body != KLB_HTTP_BODY_CLOSE &&
	       hs->req_body.done && !hs->client_eof &&
	       !klb_l7_session_stopping(&hs->s);
}

/*
 * Put a rewritten head for the client in hout; the @final one gets the
 * persistence cookie if it needs one. hout has room for all of it.
 */
static int http_head_out(struct http_session *hs, u8 conn, bool final)
{
	struct klb_http_set_cookie ck;
	bool set = final && klb_hs_set_cookie(hs, &ck);
	int n = klb_http_rewrite_resp(hs->bin.data, &hs->resp, conn,
				      set ? &ck : NULL, hs->hout,
				      hs->hout_cap);

	if (n < 0)
		return n;
	hs->hout_pos = 0;
	hs->hout_len = n;
	hs->hout_to_client = true;
	return 0;
}

/* 1xx but 101: relayed to 1.1 clients (1.0 has none), then the next head. */
static int http_interim(struct http_session *hs)
{
	struct http_buf *b = &hs->bin;
	u32 len = hs->resp.head_len;

	/* The response timeout restarts below: the total is bounded here. */
	if (++hs->interim > KLB_HTTP_MAX_INTERIM)
		return http_bad_gateway(hs, KLB_L7_ERR_PARSE);
	if (hs->req.version == 11 &&
	    http_head_out(hs, KLB_HTTP_RW_CONN_NONE, false))
		return http_bad_gateway(hs, KLB_L7_ERR_PARSE);
	memmove(b->data, b->data + len, b->len - len);
	b->len -= len;
	klb_http_resp_init(&hs->resp, hs->req.method_id);
	if (hs->req_sent)
		klb_hs_arm(hs, HT_RESPONSE);
	return HS_AGAIN;
}

static int http_response_head_done(struct http_session *hs)
{
	struct klb_http_msg *m = &hs->resp;
	u8 conn;

	/*
	 * A 101 is relayed only to a request whose Upgrade we forwarded,
	 * and CONNECT tunnels not at all: a backend switching protocols
	 * anyway is broken.
	 */
	if (m->body == KLB_HTTP_BODY_TUNNEL &&
	    !(m->status == 101 && hs->upgrade))
		return http_bad_gateway(hs, KLB_L7_ERR_PARSE);
	klb_l7_count_status(&hs->s, hs->be, m->status);
	if (m->flags & KLB_HTTP_F_INTERIM)
		return http_interim(hs);
	/*
	 * The backend's own final answer (never one klb made up, such as a
	 * 502 for a failed connect): passive health counts 5xx if asked.
	 */
	klb_health_passive(hs->s.kn, hs->be,
			   m->status >= 500 && m->status < 600 ?
			   KLB_PASSIVE_5XX : KLB_PASSIVE_OK);
	if (m->body == KLB_HTTP_BODY_TUNNEL) {
		if (http_head_out(hs, KLB_HTTP_RW_CONN_UPGRADE, true))
			return http_bad_gateway(hs, KLB_L7_ERR_PARSE);
		return klb_hs_tunnel_begin(hs);
	}

	hs->client_keep = http_client_keep(hs);
	if (!hs->client_keep)
		conn = KLB_HTTP_RW_CONN_CLOSE;
	else if (hs->req.version == 10)
		conn = KLB_HTTP_RW_CONN_KEEPALIVE;
	else
		conn = KLB_HTTP_RW_CONN_NONE;
	if (http_head_out(hs, conn, true))
		return http_bad_gateway(hs, KLB_L7_ERR_PARSE);
	klb_hs_body_init(&hs->resp_body, m, hs->resp_lim.max_head);
	hs->bin.pos = m->head_len;
	hs->bin.fed = m->head_len;
	hs->rphase = RP_BODY;
	klb_hs_arm(hs, HT_IDLE);
	return HS_AGAIN;
}

static int http_response_head(struct http_session *hs, bool *progress)
{
	struct http_buf *b = &hs->bin;
	int r, n;

	for (;;) {
		if (b->len) {
			r = klb_http_parse(&hs->resp, b->data, b->len,
					   &hs->resp_lim);
			if (r == KLB_HTTP_OK)
				return http_response_head_done(hs);
			if (r < 0 || b->len == b->cap)
				return http_bad_gateway(hs, KLB_L7_ERR_PARSE);
		}
		n = klb_l7_recv(&hs->up->s, b->data + b->len, b->cap - b->len);
		if (n == -EAGAIN)
			return HS_WAIT;
		if (n > 0) {
			b->len += n;
			hs->resp_any = true;
			*progress = true;
			continue;
		}
		/* EOF or reset: a dead pooled connection, or a failure */
		if (!hs->resp_any)
			return HS_BACKEND_FAILED;
		return http_bad_gateway(hs, KLB_L7_ERR_RESET);
	}
}

static int http_response_body(struct http_session *hs, bool *progress)
{
	int r;

	r = http_relay(hs, &hs->up->s, &hs->s.client, &hs->bin,
		       &hs->resp_body, &hs->bytes_out, progress);
	switch (r) {
	case RELAY_WAIT:
		return HS_WAIT;
	case RELAY_DONE:
		hs->rphase = RP_DONE;
		return HS_WAIT;
	case RELAY_DST_ERR:	/* the client left */
		return klb_hs_abort(hs, KLB_L7_ERR_RESET, 0);
	case RELAY_BAD:
		return klb_hs_abort(hs, KLB_L7_ERR_PARSE,
				  HTTP_ABORT_BACKEND | HTTP_ABORT_RESET);
	}
	/* The backend cut the body short. */
	return klb_hs_abort(hs, KLB_L7_ERR_RESET,
			  HTTP_ABORT_BACKEND | HTTP_ABORT_RESET);
}

static int http_response_step(struct http_session *hs, bool *progress)
{
	int r;

	for (;;) {
		/* A head goes out whole before anything after it. */
		r = klb_hs_flush_head(hs, progress);
		if (r < 0)
			return klb_hs_abort(hs, KLB_L7_ERR_RESET, 0);
		if (!r)
			return HS_WAIT;
		switch (hs->rphase) {
		case RP_HEAD:
			r = http_response_head(hs, progress);
			break;
		case RP_BODY:
			return http_response_body(hs, progress);
		default:
			return HS_WAIT;
		}
		if (r != HS_AGAIN)
			return r;
	}
}

/* ---- both ----------------------------------------------------------------------- */

static int http_exchange_timeout(struct http_session *hs)
{
	if (hs->tmode == HT_RESPONSE) {
		/* A late answer must never reach another request: abort. */
		klb_l7_count(&hs->s, hs->be, KLB_L7_ERR_TIMEOUT);
		klb_hs_upstream_abort(hs);
		return klb_hs_reply(hs, 504);
	}
	/* No byte either way for l7_idle_timeout. */
	return klb_hs_abort(hs, KLB_L7_ERR_TIMEOUT,
			  hs->resp_started ? HTTP_ABORT_RESET : 0);
}

int klb_hs_exchange(struct http_session *hs)
{
	bool progress = false;
	int r;

	r = http_request_step(hs, &progress);
	if (r != HS_WAIT)
		return r;
	r = http_response_step(hs, &progress);
	if (r != HS_WAIT)
		return r;
	if (hs->rphase == RP_DONE)
		return HS_EXCHANGE_END;
	if (progress && hs->tmode == HT_IDLE)
		klb_hs_arm(hs, HT_IDLE);
	if (klb_l7_session_expired(&hs->s))
		return http_exchange_timeout(hs);
	return HS_WAIT;
}
