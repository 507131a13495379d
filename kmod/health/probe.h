/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One backend's active check (probe.c), the bytes it sends and reads
 * (proto.c) and what its results decide (check.c). Internal to health/.
 */
#ifndef _KLB_HEALTH_PROBE_H
#define _KLB_HEALTH_PROBE_H

#include <linux/net.h>
#include <linux/workqueue.h>

#include "health/health.h"

/* A request (an HTTP head, a ClientHello) and what is kept of answers. */
#define KLB_PROBE_BUF		512
/* An http probe reads at most this much looking for its body string. */
#define KLB_PROBE_READ_MAX	(64 * 1024)

/* Why a probe failed: be->check_err is (code << 24) | detail. */
enum klb_probe_err {
	KLB_PROBE_OK,
	KLB_PROBE_ERR_CONNECT,		/* detail: errno */
	KLB_PROBE_ERR_TIMEOUT,		/* detail: enum klb_probe_phase */
	KLB_PROBE_ERR_STATUS,		/* detail: the status */
	KLB_PROBE_ERR_BODY,		/* the string is not in the body */
	KLB_PROBE_ERR_BAD_ANSWER,	/* not HTTP, not a TLS handshake */
	KLB_PROBE_ERR_CLOSED,		/* closed before an answer */
	KLB_PROBE_ERR_TLS_ALERT,	/* detail: the alert description */
	KLB_PROBE_ERR_IO,		/* detail: errno of a send or recv */
	KLB_PROBE_ERR_NOMEM,
};

enum klb_probe_phase {
	KLB_PROBE_IDLE,
	KLB_PROBE_CONNECTING,
	KLB_PROBE_SENDING,
	KLB_PROBE_READING,
};

struct klb_probe {
	struct delayed_work work;	/* does everything, one at a time */
	struct klb_net *kn;
	struct klb_pool *pool;
	struct klb_backend *be;		/* a reference held */
	/* Each probe's result (1 passed, else -(err)), in the probe's work. */
	void (*done)(struct klb_probe *p, int res);
	const struct klb_check_cfg *cfg;	/* the pool's; outlives us */
	struct socket *sock;		/* while a probe is in flight */
	void (*saved_state_change)(struct sock *sk);
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_write_space)(struct sock *sk);
	unsigned long started;		/* jiffies */
	unsigned long deadline;
	bool stopping;			/* the work returns at once */
	u8 phase;			/* enum klb_probe_phase */
	unsigned long streak_start;	/* jiffies: the first of the passes */
	u8 passes;			/* in a row, saturating */
	u8 failures;
	u8 head_end;			/* http: bytes of "\r\n\r\n" matched */
	u16 status;			/* http: 0 until the status line */
	u16 len;			/* bytes in buf */
	u16 sent;			/* of the request */
	u32 nread;
	char buf[KLB_PROBE_BUF];
};

/* wq.c */
extern struct workqueue_struct *klb_health_wq;

/* passive.c, for the health work (check.c), under klb_net->lock */
void klb_passive_tell(struct klb_net *kn, struct klb_pool *pool,
		      struct klb_backend *be);
unsigned long klb_passive_next_end(struct klb_pool *pool);

/* probe.c */
struct klb_probe *klb_probe_alloc(struct klb_net *kn, struct klb_pool *pool,
				  struct klb_backend *be,
				  void (*done)(struct klb_probe *p, int res));
/* The first probe, at a random point of the first interval. */
void klb_probe_start(struct klb_probe *p);
/*
 * Stop: the probe in flight is dropped, nothing of @p runs until resumed
 * (a new probe then, at a random point of the first interval); its
 * streak of passes and failures is kept.
 */
void klb_probe_pause(struct klb_probe *p);
void klb_probe_resume(struct klb_probe *p);
/* Stop, close and free: nothing of @p runs after. */
void klb_probe_free(struct klb_probe *p);

/* proto.c: the request into p->buf (p->len); -ENOSPC if it does not fit */
int klb_probe_request(struct klb_probe *p);
/*
 * Feed @n answer bytes. Returns 1 (passed), a negative (code << 24 |
 * detail) of enum klb_probe_err (failed), or 0 (read on). @eof: the peer
 * closed, decide now.
 */
int klb_probe_answer(struct klb_probe *p, const char *data, size_t n,
		     bool eof);

static inline int klb_probe_fail(enum klb_probe_err code, u32 detail)
{
	return -(int)((code << 24) | (detail & 0xffffff));
}

#endif /* _KLB_HEALTH_PROBE_H */
