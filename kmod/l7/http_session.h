/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The http service mode's session, shared by http_session.c (the state
 * machine: request heads, the end of an exchange), http_route.c (the
 * backend and its connection), http_relay.c (the exchange itself:
 * request body and response, both ways at once), http_tunnel.c (a
 * connection that switched protocols: WebSocket), http_bufs.c (the
 * buffers) and http_common.c (what all of them do).
 */
#ifndef _KLB_L7_HTTP_SESSION_H
#define _KLB_L7_HTTP_SESSION_H

#include "l7/l7.h"
#include "l7/parse/http_parse.h"
#include "l7/parse/http_rewrite.h"

/*
 * Bytes read from one side, on their way to the other:
 *   data[base..pos)  sent already (kept only until compaction)
 *   data[pos..fed)   accepted by the body framing, to be sent
 *   data[fed..len)   read, not framed yet (or past the body: the next
 *                    pipelined request on the client side)
 * data[0..base) is the request head while a retry may still need it.
 */
struct http_buf {
	u8 *data;
	u32 cap;
	u32 len;
	u32 pos;
	u32 fed;
	u32 base;
};

/* Where the body of a message ends (KLB_HTTP_BODY_*). */
struct http_body {
	u8 mode;
	bool done;		/* framing saw the end: all its bytes read */
	u64 left;		/* BODY_LENGTH: bytes still to come */
	struct klb_chunk chunk;	/* BODY_CHUNKED */
};

/* Session states; see http_session.c for each one's exits. */
enum {
	HS_HEAD,	/* reading (and parsing) a request head */
	HS_CONNECT,	/* waiting for the backend connection */
	HS_SEND,	/* sending the request head to the backend */
	HS_EXCHANGE,	/* request body and response, both ways */
	HS_REPLY,	/* sending a response of our own, then close */
	HS_TUNNEL,	/* switched protocols (101): bytes both ways */
	HS_QUEUED,	/* every backend at its maxconn: waiting (l7/queue.c) */
};

/* What the armed timer stands for. */
enum {
	HT_NONE,
	HT_HEADER,	/* http_header_timeout: the request head */
	HT_KEEPALIVE,	/* http_keepalive_timeout: idle between requests */
	HT_CONNECT,	/* l7_connect_timeout */
	HT_RESPONSE,	/* http_response_timeout: request sent, no head yet */
	HT_IDLE,	/* l7_idle_timeout: no byte either way */
	HT_QUEUE,	/* http_queue_timeout: waiting for a backend */
};

/* Response phases inside HS_EXCHANGE. */
enum {
	RP_HEAD,	/* reading a response head (interim ones included) */
	RP_BODY,	/* relaying the final response's body */
	RP_DONE,	/* the response is complete and sent */
};

/* A state handler's verdict. */
enum {
	HS_WAIT,	/* blocked until the next event */
	HS_NEXT,	/* state changed: run the new state now */
	HS_END,		/* the session is over */
	/* klb_hs_exchange() only, for http_session.c to act on: */
	HS_EXCHANGE_END,	/* the response is relayed: keep-alive or end */
	HS_BACKEND_FAILED,	/* reset before any answer: retry or 502 */
};

struct http_session {
	struct klb_l7_session s;	/* first: the core allocates ops->size */
	u8 state;			/* HS_* */
	u8 tmode;			/* HT_* */
	u8 rphase;			/* RP_* */

	/* The request in flight (or being read). */
	struct http_buf cin;		/* client bytes */
	struct klb_http_msg req;
	struct http_body req_body;
	struct klb_http_limits req_lim;
	struct klb_backend *be;		/* referenced, be->active_conns held */
	struct klb_l7_waiter wait;	/* HS_QUEUED */
	bool retried;
	bool req_sent;			/* head and body all sent to the backend */
	bool c2b_dead;			/* the backend stopped taking the body */
	bool resp_any;			/* a byte came from the backend */
	bool resp_started;		/* a byte of the final head went to the client */
	bool client_keep;		/* the client connection outlives this exchange */
	bool client_eof;		/* the client shut down its sending side */
	bool yield;			/* out of budget: run again later */
	bool inited;			/* http_init() ran */
	bool upgrade;			/* the request's Upgrade was forwarded */
	u32 mem;			/* bytes of cin, bin and hout held, charged */
	u8 interim;			/* 1xx responses to this request so far */

	/* The backend connection. */
	struct klb_upstream *up;
	bool up_own;			/* PROXY v2: ours alone, kept between requests */
	bool up_reused;			/* from the pool (or kept): may have died idle */
	struct http_buf bin;		/* backend bytes */
	struct klb_http_msg resp;
	struct http_body resp_body;
	struct klb_http_limits resp_lim;

	/*
	 * Heads we write: first the request head, behind room for a PROXY
	 * header; once the backend answers, each response head in turn.
	 */
	u8 *hout;
	u32 hout_cap;
	u32 hout_pos;
	u32 hout_len;
	bool hout_to_client;		/* holds a response head not yet sent */

	/*
	 * A response of our own: its status, and how much of its text went
	 * out. The text is rebuilt on each send (klb_http_error_response()),
	 * which keeps 192 bytes out of every session.
	 */
	u16 reply_status;
	u8 reply_pos;

	/* Persistence cookie (service ... cookie NAME), per request. */
	u64 ck_id;			/* the backend id the request's cookie names */
	bool ck_valid;			/* ck_id is set */
	u8 ck_name_len;			/* strlen(svc->cookie); 0: no cookie */

	/* HS_TUNNEL: each direction, bytes read past the heads first. */
	struct klb_l7_pipe tc2b;
	struct klb_l7_pipe tb2c;

	long budget;			/* bytes this run may still relay */
	u64 bytes_in;			/* relayed, not yet counted */
	u64 bytes_out;
};

static inline struct http_session *to_hs(struct klb_l7_session *s)
{
	return container_of(s, struct http_session, s);
}

/*
 * Interim (1xx) responses a request may get: each one re-arms
 * http_response_timeout, so without a bound a backend could hold a
 * session forever. 103 Early Hints and 102 Processing come a few at a
 * time; Go's HTTP client allows 5.
 */
#define KLB_HTTP_MAX_INTERIM	8

/*
 * The files of the http mode, top to bottom (each calls only those
 * below it): http_session.c (the states), http_route.c (backend choice
 * and connection), http_relay.c (the exchange), http_tunnel.c (after a
 * 101), http_bufs.c (buffers), http_common.c (what they all do).
 */

/* http_route.c */
int klb_hs_route(struct http_session *hs);
int klb_hs_st_queued(struct http_session *hs);
bool klb_hs_follow(struct http_session *hs);
int klb_hs_send_begin(struct http_session *hs);
int klb_hs_upstream_failed(struct http_session *hs, enum klb_l7_ctr ctr);

/* http_relay.c */
void klb_hs_body_init(struct http_body *b, const struct klb_http_msg *m,
		      u32 max_trailer);
/* HS_WAIT, HS_NEXT, HS_END, HS_EXCHANGE_END or HS_BACKEND_FAILED */
int klb_hs_exchange(struct http_session *hs);

/* http_tunnel.c */
int klb_hs_tunnel_begin(struct http_session *hs);
int klb_hs_tunnel(struct http_session *hs);

/* http_bufs.c */
void klb_hs_exchange_bufs_put(struct http_session *hs);
void klb_hs_bufs_put(struct http_session *hs);
int klb_hs_cin_grow(struct http_session *hs, u32 cap);
int klb_hs_exchange_bufs_get(struct http_session *hs);

/* http_common.c */
void klb_hs_arm(struct http_session *hs, u8 mode);
void klb_hs_flush_bytes(struct http_session *hs);
void klb_hs_set_backend(struct http_session *hs, struct klb_backend *be);
void klb_hs_put_backend(struct http_session *hs);
void klb_hs_upstream_abort(struct http_session *hs);
int klb_hs_reply(struct http_session *hs, u16 status);
int klb_hs_bad_request(struct http_session *hs, int err);
bool klb_hs_set_cookie(struct http_session *hs, struct klb_http_set_cookie *ck);
int klb_hs_flush_head(struct http_session *hs, bool *progress);

/* klb_hs_abort() @how */
#define HTTP_ABORT_BACKEND	1U	/* the backend's fault: count it there too */
#define HTTP_ABORT_RESET	2U	/* reset the client: its response is cut */
int klb_hs_abort(struct http_session *hs, enum klb_l7_ctr ctr, unsigned int how);

#endif /* _KLB_L7_HTTP_SESSION_H */
