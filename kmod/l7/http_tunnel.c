// SPDX-License-Identifier: GPL-2.0
/*
 * An http session whose backend switched protocols (HS_TUNNEL): a
 * request that asked to (klb_http_wants_upgrade(), e.g. WebSocket) went
 * with its Upgrade field on a fresh backend connection, and the backend
 * answered 101. The 101 head goes to the client, then the connection is
 * no longer HTTP: bytes go both ways as in tls pass-through, socket to
 * socket without a copy (klb_l7_pump()), a half-close passed on, until
 * both sides closed. Bytes read past the heads (the client's first
 * frames behind its request, the backend's behind its 101) go first.
 * The request buffers are freed once those are sent: a tunnel holds no
 * more memory than a tls session. The backend connection is never
 * parked; the backend stays counted active while the tunnel lasts.
 * Timeout: l7_idle_timeout without a byte either way.
 */
#include "l7/http_session.h"

/* Bytes one run moves each way before yielding to other sessions. */
#define HTTP_TUNNEL_BUDGET	(128 * 1024)

static void http_pipe_init(struct klb_l7_pipe *p, const u8 *buf, u32 len)
{
	p->buf = buf;
	p->off = 0;
	p->len = len;
	p->eof = false;
	p->shut = false;
}

/* The 101 head is in hout: from now on, a tunnel. */
int klb_hs_tunnel_begin(struct http_session *hs)
{
	struct http_buf *c = &hs->cin, *b = &hs->bin;

	/* The request had no body: what follows its head is the new protocol. */
	http_pipe_init(&hs->tc2b, c->data + c->fed, c->len - c->fed);
	/* A client that sent its last bytes already (http_watch_client()). */
	hs->tc2b.eof = hs->client_eof;
	http_pipe_init(&hs->tb2c, b->data + hs->resp.head_len,
		       b->len - hs->resp.head_len);
	/* No response body follows: the 101 goes out without waiting. */
	hs->rphase = RP_DONE;
	hs->state = HS_TUNNEL;
	klb_hs_arm(hs, HT_IDLE);
	return HS_NEXT;
}

static bool http_pipe_sent(const struct klb_l7_pipe *p)
{
	return p->off == p->len;
}

/* Its bytes in hand are sent: forget the buffer they were in. */
static void http_pipe_drop(struct klb_l7_pipe *p)
{
	p->buf = NULL;
	p->off = 0;
	p->len = 0;
}

int klb_hs_tunnel(struct http_session *hs)
{
	long bin = HTTP_TUNNEL_BUDGET, bout = HTTP_TUNNEL_BUDGET;
	struct klb_l7_session *s = &hs->s;
	bool progress = false;
	int head, e1, e2 = 0;

	/* The 101 goes out whole before any byte of the new protocol. */
	head = klb_hs_flush_head(hs, &progress);
	if (head < 0)
		return klb_hs_abort(hs, KLB_L7_ERR_RESET, 0);
	e1 = klb_l7_pump(&s->client, &hs->up->s, &hs->tc2b, &bin, &progress,
			 &hs->bytes_in);
	if (head)
		e2 = klb_l7_pump(&hs->up->s, &s->client, &hs->tb2c, &bout,
				 &progress, &hs->bytes_out);
	if ((e1 && e1 != -EAGAIN) || (e2 && e2 != -EAGAIN))
		return klb_hs_abort(hs, KLB_L7_ERR_RESET, HTTP_ABORT_RESET);

	/* What was in hand is sent: the buffers go, the sockets hold the rest. */
	if (hs->cin.data && head && http_pipe_sent(&hs->tc2b) &&
	    http_pipe_sent(&hs->tb2c)) {
		klb_hs_bufs_put(hs);
		http_pipe_drop(&hs->tc2b);
		http_pipe_drop(&hs->tb2c);
	}
	if (hs->tc2b.shut && hs->tb2c.shut) {
		/* Both sides closed: a clean end, FIN to both. */
		klb_upstream_close(hs->up, false);
		hs->up = NULL;
		klb_hs_put_backend(hs);
		return HS_END;
	}
	if (e1 == -EAGAIN || e2 == -EAGAIN)
		hs->yield = true;
	if (progress)
		klb_hs_arm(hs, HT_IDLE);
	else if (klb_l7_session_expired(s))
		return klb_hs_abort(hs, KLB_L7_ERR_TIMEOUT, 0);
	return HS_WAIT;
}
