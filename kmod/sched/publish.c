// SPDX-License-Identifier: GPL-2.0
/*
 * Publishing a pool's scheduler table. Here rather than in config/ so
 * that the health layer, which sits below config, can republish a pool
 * whose backend changed health; both go through the same predicate
 * (klb_backend_usable()) and the same all-unhealthy rule.
 */
#include <linux/err.h>

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

int klb_sched_publish_sched(struct klb_net *kn, struct klb_pool *pool,
			    u8 sched)
{
	struct klb_sched_table *new, *old;

	klb_assert_locked(kn);

	new = klb_sched_table_build(sched, &pool->backends,
				    klb_sched_fail_open(pool));
	if (IS_ERR(new))
		return PTR_ERR(new);
	old = rcu_replace_pointer(pool->table, new,
				  lockdep_is_held(&kn->lock));
	if (old)
		klb_sched_table_free(old);
	return 0;
}

int klb_sched_publish(struct klb_net *kn, struct klb_pool *pool)
{
	return klb_sched_publish_sched(kn, pool, pool->sched);
}
