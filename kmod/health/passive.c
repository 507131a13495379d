// SPDX-License-Identifier: GPL-2.0
/*
 * Passive health: what real traffic says of a backend, with no probe.
 *
 * The L4 datapath (a reset or no answer to a SYN) and the L7 engine
 * (connect refused or timed out, and 5xx answers if the pool asks)
 * report each outcome here, from softirq or a work item. FALL failures in
 * a row eject the backend: it leaves the pool's table for the ejection
 * period, which doubles on every ejection in a row (as Envoy's outlier
 * detection grows it), so a backend that keeps failing costs less and
 * less traffic. The period ending, or the pool's active check passing
 * RISE times after the ejection began, brings it back; a backend that then
 * serves well for a few periods starts again from the first period.
 *
 * A report touches only the backend (the pool's settings are copied into
 * it): a success costs one atomic read, a failure an atomic increment.
 * The table is republished by the netns's health work, which a report
 * queues on an ejection; it also notices when an ejection is over.
 */
#include "events.h"
#include "health/probe.h"
#include "sched/table.h"

/* An ejection period is forgotten after this many of them served well. */
#define KLB_EJECT_FORGET	4

static unsigned long klb_passive_period(const struct klb_backend *be,
					u32 ejections)
{
	u64 ms = READ_ONCE(be->passive_eject_ms);

	ms <<= min_t(u32, ejections, 16);
	return msecs_to_jiffies(min_t(u64, ms, KLB_PASSIVE_EJECT_MAX_MS));
}

static const char * const klb_passive_whats[] = {
	[KLB_PASSIVE_RESET] = "resets to a SYN",
	[KLB_PASSIVE_TIMEOUT] = "unanswered SYNs",
	[KLB_PASSIVE_CONNECT] = "connect failures",
	[KLB_PASSIVE_5XX] = "5xx answers",
};

static void klb_passive_eject(struct klb_net *kn, struct klb_backend *be,
			      int result)
{
	unsigned long now = jiffies, prev = READ_ONCE(be->ejected_until);
	unsigned long period;
	u32 n;

	/* A backend that served well since its last ejection starts over. */
	n = READ_ONCE(be->ejections);
	if (prev && time_after(now, prev + KLB_EJECT_FORGET *
					 klb_passive_period(be, n)))
		n = 0;
	period = klb_passive_period(be, n);
	/* One reporter wins; the others saw the backend already ejected. */
	if (cmpxchg(&be->ejected_until, prev, (now + period) | 1) != prev)
		return;
	WRITE_ONCE(be->ejected_for_ms, jiffies_to_msecs(period));
	WRITE_ONCE(be->ejected_at, now);
	WRITE_ONCE(be->ejections, n + 1);
	WRITE_ONCE(be->passive_why, result);
	/* The health work tells it (it knows the pool) and republishes. */
	klb_health_kick(kn, 0);
}

void klb_health_passive(struct klb_net *kn, struct klb_backend *be,
			int result)
{
	u8 fall = READ_ONCE(be->passive_fall);
	int fails;

	if (!fall)
		return;
	if (result == KLB_PASSIVE_OK) {
		/* The common case reads and leaves the cache line shared. */
		if (atomic_read(&be->passive_fails))
			atomic_set(&be->passive_fails, 0);
		return;
	}
	if (result == KLB_PASSIVE_5XX && !READ_ONCE(be->passive_5xx))
		return;
	atomic_long_inc(&be->passive_total);
	fails = atomic_inc_return(&be->passive_fails);
	if (fails < fall || klb_backend_ejected(be))
		return;
	atomic_set(&be->passive_fails, 0);
	klb_passive_eject(kn, be, result);
}

void klb_health_passive_copy(struct klb_net *kn, struct klb_pool *pool,
			     struct klb_backend *be)
{
	klb_assert_locked(kn);
	WRITE_ONCE(be->passive_5xx, pool->passive_5xx);
	WRITE_ONCE(be->passive_eject_ms, pool->passive_eject_ms);
	WRITE_ONCE(be->passive_fall, pool->passive_fall);
	if (!pool->passive_fall) {
		/* Off: an ejection in force ends at the next publish. */
		atomic_set(&be->passive_fails, 0);
		WRITE_ONCE(be->ejected_until, 0);
		WRITE_ONCE(be->ejections, 0);
	}
}

void klb_health_passive_apply(struct klb_net *kn, struct klb_pool *pool,
			      const struct klb_passive_cfg *cfg)
{
	struct klb_backend *be;

	klb_assert_locked(kn);
	if (cfg->has_fall)
		pool->passive_fall = cfg->fall;
	if (cfg->has_eject)
		pool->passive_eject_ms = cfg->eject_ms;
	if (cfg->has_5xx)
		pool->passive_5xx = cfg->errors_5xx;
	if (cfg->has_slowstart)
		pool->slowstart_ms = cfg->slowstart_ms;
	list_for_each_entry(be, &pool->backends, pool_node)
		klb_health_passive_copy(kn, pool, be);
}

int klb_health_set_passive(struct klb_net *kn, struct klb_pool *pool,
			   const struct klb_passive_cfg *cfg)
{
	klb_health_passive_apply(kn, pool, cfg);
	/* Ejections that ended, ramps that start or stop: publish again. */
	return klb_sched_publish(kn, pool);
}

/*
 * Under klb_net->lock, from the health work: say once that @be of @pool
 * was ejected, and once that the ejection is over. True: its usability
 * changed since the last publish.
 */
void klb_passive_tell(struct klb_net *kn, struct klb_pool *pool,
		      struct klb_backend *be)
{
	bool ejected = klb_backend_ejected(be);
	u8 why = READ_ONCE(be->passive_why);
	char reason[96];

	klb_assert_locked(kn);
	if (ejected == be->ejected_told)
		return;
	be->ejected_told = ejected;
	if (!ejected) {
		klb_event_backend(kn, pool, be, "passive: ejection over");
		return;
	}
	snprintf(reason, sizeof(reason),
		 "passive: %u %s in a row, ejected for %ums",
		 READ_ONCE(be->passive_fall),
		 why < ARRAY_SIZE(klb_passive_whats) && klb_passive_whats[why] ?
		 klb_passive_whats[why] : "failures",
		 READ_ONCE(be->ejected_for_ms));
	klb_event_backend(kn, pool, be, reason);
}

/* The first ejection of @pool's backends to end after now, or 0. */
unsigned long klb_passive_next_end(struct klb_pool *pool)
{
	struct klb_backend *be;
	unsigned long next = 0;

	list_for_each_entry(be, &pool->backends, pool_node) {
		if (!klb_backend_ejected(be))
			continue;
		if (!next || time_before(be->ejected_until, next))
			next = be->ejected_until;
	}
	return next;
}
