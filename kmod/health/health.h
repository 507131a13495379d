/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Backend health (health/): active checks of a pool's backends, and what
 * they decide. The layer sits between l7 and sched: config starts and
 * stops checks, l4 and l7 may report passive failures, and a change of
 * health republishes the pool's scheduler table (sched/).
 *
 * A pool with a check has one probe per backend (probe.c): a delayed work
 * that connects a non-blocking kernel socket from the pool's netns, sends
 * a small request, reads a small answer, every INTERVAL (less a random
 * jitter) and at most TIMEOUT per probe. RISE passes in a row make the
 * backend healthy, FALL failures in a row unhealthy (check.c). Probes never
 * take klb_net->lock: a transition marks the pool and queues the netns's
 * health work, which takes the lock briefly and republishes.
 *
 * Everything below but the net/module init and exit is called under
 * klb_net->lock.
 */
#ifndef _KLB_HEALTH_H
#define _KLB_HEALTH_H

#include "klb.h"

/* A pool's active check, as configured (defaults in uapi klb.h). */
struct klb_check_cfg {
	u8 kind;			/* enum klb_check_kind, not NONE */
	u8 rise;
	u8 fall;
	u16 port;			/* host order; 0: the backend's */
	u16 expect;			/* 1..5: status class; else exact */
	u32 interval_ms;
	u32 timeout_ms;
	char path[KLB_CHECK_PATH_MAX];
	char host[KLB_CHECK_HOST_MAX];	/* "": the backend's address */
	char body[KLB_CHECK_BODY_MAX];	/* "": not checked */
	char sni[KLB_CHECK_HOST_MAX];	/* "": no server_name */
};

/* Passive health and slow start settings of a pool, as requested. */
struct klb_passive_cfg {
	u8 fall;
	bool errors_5xx;
	u32 eject_ms;
	u32 slowstart_ms;
	bool has_fall, has_eject, has_5xx, has_slowstart;
};

/* What real traffic to a backend did (klb_health_passive()). */
enum klb_passive_result {
	KLB_PASSIVE_OK,		/* answered: the failures in a row end */
	KLB_PASSIVE_RESET,	/* L4: a reset answered the SYN */
	KLB_PASSIVE_TIMEOUT,	/* L4: the SYN never got an answer */
	KLB_PASSIVE_CONNECT,	/* L7: connect refused, failed, timed out */
	KLB_PASSIVE_5XX,	/* L7: a 5xx answer (if the pool counts them) */
};

/*
 * Report what real traffic to @be did (passive.c). Any context, never
 * sleeps; costs one atomic read when @be's pool has passive health off or
 * the backend is doing fine.
 */
void klb_health_passive(struct klb_net *kn, struct klb_backend *be,
			int result);
/* Apply @cfg's given fields to @pool and its backends, and republish. */
int klb_health_set_passive(struct klb_net *kn, struct klb_pool *pool,
			   const struct klb_passive_cfg *cfg);
/* The same without the republish (the caller's, config/pool_set.c). */
void klb_health_passive_apply(struct klb_net *kn, struct klb_pool *pool,
			      const struct klb_passive_cfg *cfg);
/* @be joins @pool: it takes the pool's passive settings. */
void klb_health_passive_copy(struct klb_net *kn, struct klb_pool *pool,
			     struct klb_backend *be);
/* Have the health work republish @pool (soon, and again until it works). */
void klb_health_mark(struct klb_net *kn, struct klb_pool *pool);
/* Run the netns's health work after @delay jiffies (0: at once). Any context. */
void klb_health_kick(struct klb_net *kn, unsigned long delay);

/* Fill @cfg with the defaults of @kind. */
void klb_check_defaults(struct klb_check_cfg *cfg, u8 kind);

/*
 * Give @pool the check @cfg (copied), or none (NULL): the backends' health
 * starts again at unknown, and the table is republished if that changed
 * any. -ENOMEM (no memory for a probe) changes nothing.
 */
int klb_health_set_check(struct klb_net *kn, struct klb_pool *pool,
			 const struct klb_check_cfg *cfg);

/*
 * The same in steps, for a change of which the check is one part
 * (config/pool_set.c), all under klb_net->lock:
 *  - prepare: everything that may fail (the copy of @cfg, a probe per
 *    backend, not started); -ENOMEM and nothing changed, or 0;
 *  - hold: the old probes paused, the backends' health reset to unknown
 *    (as the table built next must see it); true if one was unhealthy;
 *  - then commit (the old check and probes freed, the new ones started)
 *    or abort (the new ones freed, the old probes resumed; the caller
 *    puts back the health that hold reset).
 */
struct klb_probe;
struct klb_check_change {
	struct klb_check_cfg *cfg;	/* NULL: no check */
	struct klb_probe **probes;	/* one per backend, in list order */
	u32 n;
};

int klb_health_check_prepare(struct klb_net *kn, struct klb_pool *pool,
			     const struct klb_check_cfg *cfg,
			     struct klb_check_change *chg);
bool klb_health_check_hold(struct klb_net *kn, struct klb_pool *pool);
void klb_health_check_commit(struct klb_net *kn, struct klb_pool *pool,
			     struct klb_check_change *chg);
void klb_health_check_abort(struct klb_net *kn, struct klb_pool *pool,
			    struct klb_check_change *chg);
/* @pool's probes may run: it is linked into the live configuration. */
void klb_health_pool_start(struct klb_net *kn, struct klb_pool *pool);
/* Stop and free the probes and the check of @pool, which is going away. */
void klb_health_pool_free(struct klb_net *kn, struct klb_pool *pool);
/* A backend joins @pool: its probe (if the pool has a check). */
int klb_health_backend_added(struct klb_net *kn, struct klb_pool *pool,
			     struct klb_backend *be);
/*
 * A restore keeps the live @to and gives it @be, staged in @from (whose
 * check equals @to's, or @be loses the probe it had): it takes @to's
 * passive settings and its probe goes along. Cannot fail.
 */
void klb_health_backend_moved(struct klb_net *kn, struct klb_pool *from,
			      struct klb_pool *to, struct klb_backend *be);
/* A backend leaves @pool: its probe stops, nothing of it runs after. */
void klb_health_backend_removed(struct klb_net *kn, struct klb_backend *be);
/* The last failure of @be in words ("http check: status 503"), or "". */
const char *klb_health_error(const struct klb_backend *be, u8 kind,
			     char *buf, size_t len);
const char *klb_check_kind_name(u8 kind);

void klb_health_net_init(struct klb_net *kn);
/* After the configuration is gone: no health work runs after it. */
void klb_health_net_exit(struct klb_net *kn);
int klb_health_module_init(void);
void klb_health_module_exit(void);

#endif /* _KLB_HEALTH_H */
