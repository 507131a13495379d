// SPDX-License-Identifier: GPL-2.0
/*
 * Publishing a pool's scheduler table. Here rather than in config/ so
 * that the health layer, which sits below config, can republish a pool
 * whose backend changed health; both go through the same predicate
 * (klb_backend_usable()) and the same all-unhealthy rule.
 */
#include <linux/err.h>
#include <linux/math64.h>

#include "klb.h"
#include "sched/table.h"

/* Fail open: no backend usable, yet some would be but for their health. */
static bool klb_sched_fail_open(const struct klb_pool *pool)
{
	const struct klb_backend *be;

	if (pool->all_unhealthy != KLB_ALL_UNHEALTHY_FAIL_OPEN)
		return false;
	list_for_each_entry(be, &pool->backends, pool_node)
		if (klb_backend_usable(be, false))
			return false;
	return true;
}

/*
 * Slow start: the weight of @be in the table built at @now. A backend
 * that was not usable at the last publish starts now, at a twentieth of
 * its weight (at least 1), and grows linearly to its weight over the
 * pool's slowstart. @ramp: some other backend of the pool was usable
 * before; if none was, all start cold together and nothing is protected
 * by ramping them.
 */
static u32 klb_sched_weight_now(const struct klb_pool *pool,
				const struct klb_backend *be,
				unsigned long now, bool ramp)
{
	u32 ss = pool->slowstart_ms, w = be->weight, elapsed;

	if (!ss || !ramp)
		return w;
	elapsed = be->published ? jiffies_to_msecs(now - be->usable_since) : 0;
	if (elapsed >= ss)
		return w;
	elapsed = max(elapsed, ss / 20);
	return max_t(u32, 1, div_u64((u64)w * elapsed, ss));
}

/* After a publish: who is usable now, since when, and until when ramps. */
static void klb_sched_note_published(struct klb_pool *pool,
				     unsigned long now, bool ramp)
{
	unsigned long until = 0, ss = msecs_to_jiffies(pool->slowstart_ms);
	struct klb_backend *be;
	bool usable;

	list_for_each_entry(be, &pool->backends, pool_node) {
		usable = klb_backend_usable(be, false);
		if (usable && !be->published)
			be->usable_since = ramp ? now : now - ss;
		be->published = usable;
		if (usable && ss && time_before(now, be->usable_since + ss) &&
		    (!until || time_after(be->usable_since + ss, until)))
			until = be->usable_since + ss;
	}
	pool->ramp_until = until;
}

struct klb_sched_table *klb_sched_prepare(struct klb_net *kn,
					  struct klb_pool *pool, u8 sched,
					  bool *ramp)
{
	unsigned long now = jiffies;
	struct klb_backend *be;
	bool any = false;

	klb_assert_locked(kn);

	list_for_each_entry(be, &pool->backends, pool_node)
		any |= be->published;
	list_for_each_entry(be, &pool->backends, pool_node)
		be->weight_now = klb_sched_weight_now(pool, be, now, any);
	*ramp = any;
	return klb_sched_table_build(sched, pool->hash, &kn->hash_seed,
				     &pool->backends,
				     klb_sched_fail_open(pool));
}

void klb_sched_commit(struct klb_net *kn, struct klb_pool *pool,
		      struct klb_sched_table *new, bool ramp)
{
	struct klb_sched_table *old;

	old = rcu_replace_pointer(pool->table, new,
				  lockdep_is_held(&kn->lock));
	if (old)
		klb_sched_table_free(old);
	klb_sched_note_published(pool, jiffies, ramp);
	if (pool->ramp_until)
		kn->health_ramp = true;
}

int klb_sched_publish_sched(struct klb_net *kn, struct klb_pool *pool,
			    u8 sched)
{
	struct klb_sched_table *new;
	bool ramp;

	new = klb_sched_prepare(kn, pool, sched, &ramp);
	if (IS_ERR(new))
		return PTR_ERR(new);
	klb_sched_commit(kn, pool, new, ramp);
	return 0;
}

int klb_sched_publish(struct klb_net *kn, struct klb_pool *pool)
{
	return klb_sched_publish_sched(kn, pool, pool->sched);
}
