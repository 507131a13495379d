// SPDX-License-Identifier: GPL-2.0
/*
 * What every part of an http session does (http_session.c, http_route.c,
 * http_relay.c, http_tunnel.c): arm the timer for a phase, account for
 * the backend that serves the request, answer the client ourselves or
 * end without an answer, the persistence cookie of a response, and send
 * a head we wrote. It calls nothing of the http files, which all sit
 * above it.
 */
#include "l7/http_session.h"
#include "sched/table.h"

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

void klb_hs_flush_bytes(struct http_session *hs)
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
void klb_hs_set_backend(struct http_session *hs, struct klb_backend *be)
{
	hs->be = be;
	atomic_inc(&be->active_conns);
	klb_l7_session_set_backend(&hs->s, be);
}

void klb_hs_put_backend(struct http_session *hs)
{
	if (!hs->be)
		return;
	klb_hs_flush_bytes(hs);
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

/* ---- ending ---------------------------------------------------------------- */

int klb_hs_bad_request(struct http_session *hs, int err)
{
	u16 status = klb_http_err_status(err);

	klb_l7_count(&hs->s, NULL, status == 431 ? KLB_L7_ERR_LIMIT :
						   KLB_L7_ERR_PARSE);
	return klb_hs_reply(hs, status);
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

/*
 * Send the response head in hout to the client: 1 when nothing is left
 * to send, 0 when blocked, < 0 when the client failed.
 */
int klb_hs_flush_head(struct http_session *hs, bool *progress)
{
	bool more;
	int n;

	while (hs->hout_to_client) {
		/* Body bytes in hand go right after: one segment for both. */
		more = hs->rphase == RP_BODY && !hs->resp_body.done &&
		       hs->bin.len > hs->bin.pos;
		n = klb_l7_send(&hs->s.client, hs->hout + hs->hout_pos,
				hs->hout_len - hs->hout_pos, more);
		if (n == -EAGAIN || !n)
			return 0;
		if (n < 0)
			return n;
		if (hs->rphase != RP_HEAD)
			hs->resp_started = true;
		hs->hout_pos += n;
		hs->bytes_out += n;
		*progress = true;
		if (hs->hout_pos == hs->hout_len)
			hs->hout_to_client = false;
	}
	return 1;
}
