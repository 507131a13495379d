// SPDX-License-Identifier: GPL-2.0
/*
 * POOL_SET: a pool's scheduler, hash, check, all-unhealthy option and
 * passive health changed at once, or, if any part fails, none of them.
 *
 * Everything that may fail comes first, before anything is changed: the
 * new check's copy and probes, and room to remember what the change
 * touches on each backend. Then the settings are made and the table the
 * pool will have is built; that build (memory for a table) is the last
 * thing that can fail, and if it does, the settings, the backends' health
 * and passive state and the old probes are put back as they were. Only
 * then is anything freed: the old check and probes, the old table.
 *
 * While the table is built (under klb_net->lock, microseconds) the
 * datapath may see the new passive settings of a change that is then
 * refused; it never sees a table, a check or a probe of one.
 */
#include <linux/slab.h>

#include "config/pool.h"
#include "health/health.h"
#include "sched/table.h"

/* What a pool set may change on one backend, to put it back. */
struct klb_backend_saved {
	u8 health;
	u32 check_err;
	unsigned long health_changed;
	u32 weight_now;
	u8 passive_fall;
	bool passive_5xx;
	u32 passive_eject_ms;
	int passive_fails;
	unsigned long ejected_until;
	u32 ejections;
};

/* What it may change on the pool. */
struct klb_pool_saved {
	u8 hash, all_unhealthy, passive_fall;
	bool passive_5xx;
	u32 passive_eject_ms, slowstart_ms;
};

static void klb_pool_save(const struct klb_pool *pool,
			  struct klb_pool_saved *ps,
			  struct klb_backend_saved *bs)
{
	const struct klb_backend *be;

	ps->hash = pool->hash;
	ps->all_unhealthy = pool->all_unhealthy;
	ps->passive_fall = pool->passive_fall;
	ps->passive_5xx = pool->passive_5xx;
	ps->passive_eject_ms = pool->passive_eject_ms;
	ps->slowstart_ms = pool->slowstart_ms;
	list_for_each_entry(be, &pool->backends, pool_node) {
		bs->health = READ_ONCE(be->health);
		bs->check_err = READ_ONCE(be->check_err);
		bs->health_changed = READ_ONCE(be->health_changed);
		bs->weight_now = be->weight_now;
		bs->passive_fall = be->passive_fall;
		bs->passive_5xx = be->passive_5xx;
		bs->passive_eject_ms = be->passive_eject_ms;
		bs->passive_fails = atomic_read(&be->passive_fails);
		bs->ejected_until = READ_ONCE(be->ejected_until);
		bs->ejections = READ_ONCE(be->ejections);
		bs++;
	}
}

static void klb_pool_restore(struct klb_pool *pool,
			     const struct klb_pool_saved *ps,
			     const struct klb_backend_saved *bs)
{
	struct klb_backend *be;

	pool->hash = ps->hash;
	pool->all_unhealthy = ps->all_unhealthy;
	pool->passive_fall = ps->passive_fall;
	pool->passive_5xx = ps->passive_5xx;
	pool->passive_eject_ms = ps->passive_eject_ms;
	pool->slowstart_ms = ps->slowstart_ms;
	list_for_each_entry(be, &pool->backends, pool_node) {
		WRITE_ONCE(be->health, bs->health);
		WRITE_ONCE(be->check_err, bs->check_err);
		WRITE_ONCE(be->health_changed, bs->health_changed);
		be->weight_now = bs->weight_now;
		WRITE_ONCE(be->passive_fall, bs->passive_fall);
		WRITE_ONCE(be->passive_5xx, bs->passive_5xx);
		WRITE_ONCE(be->passive_eject_ms, bs->passive_eject_ms);
		/* Zeroed only by a change that turned passive health off. */
		if (!atomic_read(&be->passive_fails))
			atomic_set(&be->passive_fails, bs->passive_fails);
		WRITE_ONCE(be->ejected_until, bs->ejected_until);
		WRITE_ONCE(be->ejections, bs->ejections);
		bs++;
	}
}

int klb_pool_set(struct klb_net *kn, struct klb_pool *pool,
		 const struct klb_pool_change *chg,
		 struct netlink_ext_ack *extack)
{
	u8 sched = chg->has_sched ? chg->sched : pool->sched;
	struct klb_check_change check = {};
	struct klb_sched_table *table = NULL;
	struct klb_backend_saved *saved;
	struct klb_pool_saved psaved;
	bool publish, ramp = false;
	int err;

	klb_assert_locked(kn);

	if (chg->has_check) {
		err = klb_health_check_prepare(kn, pool, chg->check, &check);
		if (err)
			return err;
	}
	saved = kcalloc(pool->nbackends ?: 1, sizeof(*saved), GFP_KERNEL);
	if (!saved) {
		klb_health_check_abort(kn, pool, &check);
		return -ENOMEM;
	}
	klb_pool_save(pool, &psaved, saved);

	if (chg->has_hash)
		pool->hash = chg->hash;
	if (chg->has_all_unhealthy)
		pool->all_unhealthy = chg->all_unhealthy;
	if (chg->passive)
		klb_health_passive_apply(kn, pool, chg->passive);
	publish = chg->has_sched || chg->has_hash || chg->has_all_unhealthy ||
		  chg->passive;
	/* Health starts again at unknown: republish if that lists more. */
	if (chg->has_check && klb_health_check_hold(kn, pool))
		publish = true;

	if (publish) {
		table = klb_sched_prepare(kn, pool, sched, &ramp);
		if (IS_ERR(table)) {
			err = PTR_ERR(table);
			klb_pool_restore(pool, &psaved, saved);
			if (chg->has_check)
				klb_health_check_abort(kn, pool, &check);
			kfree(saved);
			klb_err(extack, NULL,
				"pool %s: no memory for its new table: nothing changed",
				pool->name);
			return err;
		}
	}
	if (chg->has_check)
		klb_health_check_commit(kn, pool, &check);
	if (publish) {
		klb_sched_commit(kn, pool, table, ramp);
		pool->sched = sched;
	}
	kfree(saved);
	return 0;
}
