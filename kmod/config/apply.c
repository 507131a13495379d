// SPDX-License-Identifier: GPL-2.0
/*
 * A restore applies the difference between the live configuration and the
 * staged one (restore.c built and checked all of it first), so that what
 * stays keeps going: connections, persistence entries, counters, L7
 * listeners and their sessions all belong to kernel objects that the
 * restore keeps.
 *
 * Objects are matched by name. A live pool with a staged twin stays and
 * takes the twin's settings and backends: its backends that the twin also
 * has (same address and port) stay with the twin's weight and state, the
 * twin's others move over, and the rest leave as a backend del does. A
 * live service with a staged twin of the same identity (address, port,
 * protocol, mode, and what cannot change under a running service: fnat
 * sources, the cookie name) stays and takes the twin's pool, rules, host map,
 * persistence and PROXY protocol setting in place; a different identity
 * is a remove and an add. The staged twins of what stays are freed: no
 * packet ever saw them. Live objects without a twin are removed as a
 * flush removes them; staged objects without one are added.
 *
 * Nothing here can fail but the tables of pools that stay, rebuilt for
 * their new backends (a small allocation, the staged build of the same
 * table succeeded): a pool that cannot get one keeps its old table and
 * the health work builds it again shortly, as after a failed health
 * republish. A pool's changed check (klb_health_set_check()) that finds
 * no memory for its probes keeps the old check.
 */
#include "config/hostmap.h"
#include "config/pool.h"
#include "config/quota.h"
#include "config/restore.h"
#include "config/rule.h"
#include "config/service.h"
#include "flow.h"
#include "health/health.h"
#include "l4/conn.h"
#include "l4/persist.h"
#include "l4/vip.h"
#include "l7/engine.h"
#include "sched/table.h"

/* What a restore does, sorted as it goes. */
struct klb_apply {
	struct list_head pools;		/* the new kn->pools, the file's order */
	struct list_head services;	/* the new kn->services */
	struct list_head gone_pools;	/* live, not in the file */
	struct list_head gone_services;
	struct list_head gone_backends;	/* of pools that stay */
	struct list_head spare_pools;	/* staged twins of pools that stay */
	struct list_head spare_services;
};

/* Can @live stay and become @staged in place? */
static bool klb_service_same_identity(const struct klb_service *live,
				      const struct klb_service *staged)
{
	u8 i;

	if (live->family != staged->family || live->port != staged->port ||
	    live->proto != staged->proto || live->mode != staged->mode ||
	    !klb_addr_equal(live->family, &live->addr, &staged->addr) ||
	    live->nsnat != staged->nsnat ||
	    strcmp(live->cookie, staged->cookie))
		return false;
	for (i = 0; i < live->nsnat; i++)
		if (!klb_addr_equal(live->family, &live->snat[i],
				    &staged->snat[i]))
			return false;
	return true;
}

struct klb_service *klb_staged_keeps(struct klb_net *kn,
				     const struct klb_staged *st,
				     struct klb_service *staged)
{
	/*
	 * Indexed as the commit began; names are unique in both sets, so a
	 * live service is looked up at most once, moved or not.
	 */
	struct klb_service *live = klb_index_service(&st->live.services,
						     staged->name);

	return live && klb_service_same_identity(live, staged) ? live : NULL;
}

/* The live twin of @pool if it has one (staged), else @pool. */
static struct klb_pool *klb_apply_twin(const struct klb_staged *st,
				       struct klb_pool *pool)
{
	return klb_index_pool(&st->live.pools, pool->name) ?: pool;
}

/* The host map's names, as the rules' pools below. */
static void klb_apply_repoint_hostmap(struct klb_net *kn,
				      const struct klb_staged *st,
				      struct klb_service *svc)
{
	struct klb_hostmap *map = klb_service_hostmap(kn, svc);
	struct klb_pool *pool, *twin;
	u32 i;

	for (i = 0; map && i < map->hm.n; i++) {
		pool = klb_hostmap_pool(map, i);
		twin = klb_apply_twin(st, pool);
		if (twin == pool)
			continue;
		WRITE_ONCE(map->hm.e[i].val, twin);
		pool->users--;
		twin->users++;
	}
}

/*
 * Make the staged @svc use the live twins of its staged pools (the twins
 * stay; the staged pools go), its default pool and its rules' pools.
 * Before any pool moves: the twins are found on kn->pools.
 */
static void klb_apply_repoint(struct klb_net *kn, const struct klb_staged *st,
			      struct klb_service *svc)
{
	struct klb_rule_set *set = klb_service_rules(kn, svc);
	struct klb_pool *pool = klb_service_pool(kn, svc), *twin;
	u32 i;

	twin = klb_apply_twin(st, pool);
	if (twin != pool) {
		rcu_assign_pointer(svc->pool, twin);
		pool->users--;
		twin->users++;
	}
	/* A started staged service may route by the set: single stores. */
	for (i = 0; set && i < set->n; i++) {
		pool = set->e[i].pool;
		twin = klb_apply_twin(st, pool);
		if (twin == pool)
			continue;
		WRITE_ONCE(set->e[i].pool, twin);
		pool->users--;
		twin->users++;
	}
	klb_apply_repoint_hostmap(kn, st, svc);
}

static struct klb_backend *klb_apply_backend_find(struct klb_pool *pool,
						  const struct klb_backend *be)
{
	const struct klb_backend_cfg cfg = {
		.addr = be->addr,
		.port = be->port,
		.family = be->family,
	};

	return klb_backend_find(pool, &cfg);
}

static bool klb_check_equal(const struct klb_check_cfg *a,
			    const struct klb_check_cfg *b)
{
	if (!a || !b)
		return a == b;
	return !memcmp(a, b, sizeof(*a));
}

/* The live @pool takes the settings of @staged, its twin. */
static bool klb_apply_pool_settings(struct klb_net *kn, struct klb_pool *pool,
				    struct klb_pool *staged)
{
	bool changed = pool->sched != staged->sched ||
		       pool->all_unhealthy != staged->all_unhealthy ||
		       pool->passive_fall != staged->passive_fall ||
		       pool->passive_5xx != staged->passive_5xx ||
		       pool->passive_eject_ms != staged->passive_eject_ms ||
		       pool->slowstart_ms != staged->slowstart_ms;

	pool->sched = staged->sched;
	pool->all_unhealthy = staged->all_unhealthy;
	pool->passive_fall = staged->passive_fall;
	pool->passive_5xx = staged->passive_5xx;
	pool->passive_eject_ms = staged->passive_eject_ms;
	pool->slowstart_ms = staged->slowstart_ms;
	if (!klb_check_equal(pool->check, staged->check)) {
		/*
		 * -ENOMEM (a probe) leaves the pool its old check: the
		 * restore still succeeds, and save then shows the old one.
		 */
		klb_health_set_check(kn, pool, staged->check);
		changed = true;
	}
	return changed;
}

/*
 * The live @pool becomes @staged, its twin: same backends in the same
 * order, same settings, a new table. Its backends that @staged does not
 * have go to a->gone_backends, out of the pool and of its next table.
 */
static void klb_apply_pool(struct klb_net *kn, struct klb_apply *a,
			   struct klb_pool *pool, struct klb_pool *staged)
{
	struct klb_backend *be, *twin, *tmp;
	bool changed;
	LIST_HEAD(backends);

	changed = klb_apply_pool_settings(kn, pool, staged);
	list_for_each_entry_safe(twin, tmp, &staged->backends, pool_node) {
		be = klb_apply_backend_find(pool, twin);
		if (be) {
			/* Not the next one of the pool: the order changes. */
			changed |= be != list_first_entry(&pool->backends,
							  struct klb_backend,
							  pool_node) ||
				   be->weight != twin->weight ||
				   be->state != twin->state;
			/* Schedulers may read these locklessly: single stores. */
			WRITE_ONCE(be->weight, twin->weight);
			WRITE_ONCE(be->state, twin->state);
			/* Read at each pick, not in the table. */
			WRITE_ONCE(be->maxconn, twin->maxconn);
			list_move_tail(&be->pool_node, &backends);
			continue;
		}
		/* New to the pool: it ramps up like a backend add. */
		klb_health_backend_moved(kn, staged, pool, twin);
		/* Queued http requests wait for the live pool's backends. */
		twin->pool = pool;
		twin->published = false;
		list_move_tail(&twin->pool_node, &backends);
		staged->nbackends--;
		changed = true;
	}
	list_for_each_entry_safe(be, tmp, &pool->backends, pool_node) {
		klb_health_backend_removed(kn, be);
		/* Its idle keep-alive connections close; none is parked any more. */
		klb_l7_backend_removed(kn, be);
		list_move_tail(&be->pool_node, &a->gone_backends);
		changed = true;
	}
	list_splice(&backends, &pool->backends);
	pool->nbackends = 0;
	list_for_each_entry(be, &pool->backends, pool_node) {
		klb_health_passive_copy(kn, pool, be);
		pool->nbackends++;
	}
	/*
	 * Unchanged: its table (rr cursor, wrr credits) stays as well. A
	 * failure: the old table stays until the health work builds one.
	 */
	if (changed && klb_sched_publish(kn, pool))
		klb_health_mark(kn, pool);
}

/* The live @svc becomes @staged, its twin of the same identity. */
static void klb_apply_service(struct klb_net *kn, struct klb_service *svc,
			      struct klb_service *staged)
{
	struct klb_pool *pool = klb_service_pool(kn, staged);
	struct klb_pool *old = klb_service_pool(kn, svc);

	if (pool != old) {
		/* Existing connections keep their backend; new ones use @pool. */
		rcu_assign_pointer(svc->pool, pool);
		old->users--;
		pool->users++;
	}
	klb_service_set_persist(kn, svc, staged->persist_timeout,
				staged->persist_mask);
	klb_service_set_proxy_protocol(kn, svc, staged->proxy_protocol);
	klb_service_set_adopt(kn, svc, staged->adopt);
	if (klb_service_rules(kn, svc) || klb_service_rules(kn, staged))
		klb_rules_move(kn, svc, staged);
	if (klb_service_hostmap(kn, svc) || klb_service_hostmap(kn, staged))
		klb_hostmap_move(kn, svc, staged);
}

static void klb_apply_sort_pools(struct klb_net *kn, struct klb_apply *a,
				 struct klb_staged *st)
{
	struct klb_pool *staged, *pool, *tmp;

	list_for_each_entry_safe(staged, tmp, &st->pools, node) {
		pool = klb_index_pool(&st->live.pools, staged->name);
		if (!pool) {
			list_move_tail(&staged->node, &a->pools);
			continue;
		}
		klb_apply_pool(kn, a, pool, staged);
		list_move_tail(&pool->node, &a->pools);
		list_move_tail(&staged->node, &a->spare_pools);
	}
	list_splice_init(&kn->pools, &a->gone_pools);
}

static void klb_apply_sort_services(struct klb_net *kn, struct klb_apply *a,
				    struct klb_staged *st)
{
	struct klb_service *staged, *svc, *tmp;

	list_for_each_entry_safe(staged, tmp, &st->services, node) {
		svc = klb_staged_keeps(kn, st, staged);
		if (!svc) {
			/* Ahead of an old twin of its address, if any. */
			klb_vip_hash(kn, staged);
			list_move_tail(&staged->node, &a->services);
			continue;
		}
		klb_apply_service(kn, svc, staged);
		list_move_tail(&svc->node, &a->services);
		list_move_tail(&staged->node, &a->spare_services);
	}
	list_splice_init(&kn->services, &a->gone_services);
}

/*
 * Remove what the file does not have, as a flush would: one grace period
 * and one pass over the connections for all of it. Removed services end
 * their connections; removed backends theirs with expire_nodest_conn.
 */
static void klb_apply_remove(struct klb_net *kn, struct klb_apply *a)
{
	bool expire = READ_ONCE(kn->sysctl.expire_nodest_conn);
	struct klb_backend *be, *tmp;
	struct klb_pool *pool, *ptmp;
	bool wait;

	wait = klb_services_unpublish(kn, &a->gone_services);
	list_for_each_entry(pool, &a->gone_pools, node)
		wait |= klb_pool_unpublish(kn, pool, expire);
	list_for_each_entry(be, &a->gone_backends, pool_node) {
		WRITE_ONCE(be->dying, expire);
		wait |= expire;
	}
	if (wait) {
		synchronize_rcu();
		klb_conn_flush_dying(kn);
		klb_persist_flush_dying(kn);
	}
	klb_services_release(kn, &a->gone_services);
	list_for_each_entry_safe(pool, ptmp, &a->gone_pools, node) {
		list_del(&pool->node);
		klb_pool_release(kn, pool, true);
		cond_resched();
	}
	list_for_each_entry_safe(be, tmp, &a->gone_backends, pool_node) {
		list_del(&be->pool_node);
		klb_quota_give(kn, &kn->alloc.backends);
		klb_backend_put(be);
	}
}

/* Free the staged twins of what stayed: never published, nobody saw them. */
static void klb_apply_free_spares(struct klb_net *kn, struct klb_apply *a)
{
	struct klb_pool *pool, *tmp;

	klb_services_release(kn, &a->spare_services);
	list_for_each_entry_safe(pool, tmp, &a->spare_pools, node) {
		list_del(&pool->node);
		klb_pool_unpublish(kn, pool, false);
		klb_pool_release(kn, pool, false);
	}
}

void klb_staged_apply(struct klb_net *kn, struct klb_staged *st)
{
	struct klb_service *svc;
	struct klb_pool *pool;
	struct klb_apply a;

	klb_assert_locked(kn);

	INIT_LIST_HEAD(&a.pools);
	INIT_LIST_HEAD(&a.services);
	INIT_LIST_HEAD(&a.gone_pools);
	INIT_LIST_HEAD(&a.gone_services);
	INIT_LIST_HEAD(&a.gone_backends);
	INIT_LIST_HEAD(&a.spare_pools);
	INIT_LIST_HEAD(&a.spare_services);

	list_for_each_entry(svc, &st->services, node)
		klb_apply_repoint(kn, st, svc);
	klb_apply_sort_pools(kn, &a, st);
	klb_apply_sort_services(kn, &a, st);

	/* What stays and what comes, in the file's order. */
	list_splice_init(&a.pools, &kn->pools);
	list_splice_init(&a.services, &kn->services);
	kn->npools = 0;
	list_for_each_entry(pool, &kn->pools, node) {
		/* The staged pools' probes were allocated as they were built. */
		if (!pool->health_live)
			klb_health_pool_start(kn, pool);
		kn->npools++;
	}
	kn->nservices = 0;
	list_for_each_entry(svc, &kn->services, node)
		kn->nservices++;

	klb_apply_remove(kn, &a);
	klb_apply_free_spares(kn, &a);
	/* Backends came or a maxconn rose: queued requests try again. */
	klb_l7_queue_kick_all(kn);
}
