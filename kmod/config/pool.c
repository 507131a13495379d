// SPDX-License-Identifier: GPL-2.0
/*
 * Pools and their backends.
 *
 * The datapath never walks pool->backends: it picks from pool->table, an
 * immutable scheduler table that is rebuilt and republished after every
 * change to the backends or the scheduler. Building the new table before
 * touching the old one makes every change all-or-nothing: if the build
 * fails, the pool is left exactly as it was.
 */
#include <linux/inet.h>
#include <linux/slab.h>

#include "config/hostmap.h"
#include "config/pool.h"
#include "config/quota.h"
#include "health/health.h"
#include "l4/conn.h"
#include "l7/engine.h"
#include "l7/route.h"
#include "sched/table.h"

struct klb_pool *klb_pool_find(struct list_head *pools, const char *name)
{
	struct klb_pool *pool;

	list_for_each_entry(pool, pools, node)
		if (!strcmp(pool->name, name))
			return pool;
	return NULL;
}

struct klb_pool *klb_pool_create(struct klb_net *kn, const char *name,
				 u8 sched, struct netlink_ext_ack *extack)
{
	struct klb_pool *pool;
	int err;

	err = klb_quota_take_pool(kn, extack);
	if (err)
		return ERR_PTR(err);
	pool = kzalloc(sizeof(*pool), GFP_KERNEL_ACCOUNT);
	if (!pool) {
		klb_quota_give(kn, &kn->alloc.pools);
		return ERR_PTR(-ENOMEM);
	}
	strscpy(pool->name, name, sizeof(pool->name));
	pool->sched = sched;
	pool->passive_eject_ms = KLB_PASSIVE_EJECT_DEFAULT_MS;
	INIT_LIST_HEAD(&pool->node);
	INIT_LIST_HEAD(&pool->backends);

	/* Even an empty pool has a table: the datapath never sees NULL. */
	err = klb_sched_publish_sched(kn, pool, sched);
	if (err) {
		kfree(pool);
		klb_quota_give(kn, &kn->alloc.pools);
		return ERR_PTR(err);
	}
	klb_obj_inc(KLB_OBJ_POOL);
	return pool;
}

void klb_pool_add(struct klb_net *kn, struct klb_pool *pool)
{
	klb_assert_locked(kn);
	list_add_tail(&pool->node, &kn->pools);
	kn->npools++;
	klb_health_pool_start(kn, pool);
}

/*
 * Freeing an unlinked pool takes three steps (its services, if any, are
 * unpublished first and released before step 3), so that
 * a flush or restore of many pools waits for one grace period and walks
 * the connection table once (config/restore.c), whatever their number:
 *
 * 1. klb_pool_unpublish(): free its scheduler table (after a grace period:
 *    a reader that fetched the pool through a service just before that
 *    service moved to another pool may still be looking at it; pool->table
 *    is left pointing at the table until then) and, with @expire
 *    (net.klb.expire_nodest_conn, a live netns), mark its backends dying.
 * 2. The caller waits for a grace period, after which no packet can pick
 *    them, and removes the connections of dying backends in one pass.
 * 3. klb_pool_release(): let go of the backends and free the pool.
 *
 * Returns true if it marked a backend dying.
 */
bool klb_pool_unpublish(struct klb_net *kn, struct klb_pool *pool,
			bool expire)
{
	struct klb_sched_table *t;
	struct klb_backend *be;

	klb_assert_locked(kn);

	t = rcu_dereference_protected(pool->table, lockdep_is_held(&kn->lock));
	klb_sched_table_free(t);
	if (!expire)
		return false;
	list_for_each_entry(be, &pool->backends, pool_node)
		WRITE_ONCE(be->dying, true);
	return !list_empty(&pool->backends);
}

/*
 * @live: the netns is running (not being dismantled): the L7 engine is
 * told that the backends are gone (when the netns is dismantled, the
 * engine has already closed everything).
 */
void klb_pool_release(struct klb_net *kn, struct klb_pool *pool, bool live)
{
	struct klb_backend *be, *tmp;

	klb_assert_locked(kn);
	WARN_ON_ONCE(pool->users);

	/* Probes first: none runs on a backend being let go. */
	klb_health_pool_free(kn, pool);
	list_for_each_entry_safe(be, tmp, &pool->backends, pool_node) {
		list_del(&be->pool_node);
		if (live)
			klb_l7_backend_removed(kn, be);
		klb_quota_give(kn, &kn->alloc.backends);
		klb_backend_put(be);
	}
	klb_quota_give(kn, &kn->alloc.pools);
	klb_obj_dec(KLB_OBJ_POOL);
	kfree_rcu(pool, rcu);
}

void klb_pool_destroy(struct klb_net *kn, struct klb_pool *pool, bool live)
{
	bool expire = live && READ_ONCE(kn->sysctl.expire_nodest_conn);

	if (klb_pool_unpublish(kn, pool, expire)) {
		synchronize_rcu();
		klb_conn_flush_dying(kn);
	}
	klb_pool_release(kn, pool, live);
}

/*
 * If a service uses @pool, as its pool or in one of its rules, say which
 * (the first one) and return true.
 */
static bool klb_pool_used(struct klb_net *kn, struct klb_pool *pool,
			  struct netlink_ext_ack *extack)
{
	struct klb_rule_set *set;
	struct klb_service *svc;
	u32 i;

	if (!pool->users)
		return false;
	list_for_each_entry(svc, &kn->services, node) {
		if (klb_service_pool(kn, svc) == pool) {
			klb_err(extack, NULL, "pool %s is used by service %s",
				pool->name, svc->name);
			return true;
		}
		set = klb_service_rules(kn, svc);
		for (i = 0; set && i < set->n; i++) {
			if (set->e[i].pool == pool) {
				klb_err(extack, NULL,
					"pool %s is used by rule %u of service %s",
					pool->name, i, svc->name);
				return true;
			}
		}
		if (klb_hostmap_uses(kn, svc, pool, extack))
			return true;
	}
	/* users counts what the loop finds: never here, but do not free */
	WARN_ON_ONCE(1);
	klb_err(extack, NULL, "pool %s is in use", pool->name);
	return true;
}

int klb_pool_del(struct klb_net *kn, struct klb_pool *pool,
		 struct netlink_ext_ack *extack)
{
	klb_assert_locked(kn);

	if (klb_pool_used(kn, pool, extack))
		return -EBUSY;
	list_del(&pool->node);
	kn->npools--;
	klb_pool_destroy(kn, pool, true);
	return 0;
}

/* ---- backends ---------------------------------------------------------- */

const char *klb_addr_fmt(char *buf, size_t len, u16 family,
			 const union nf_inet_addr *addr, __be16 port)
{
	if (family == AF_INET)
		snprintf(buf, len, "%pI4:%u", &addr->ip, ntohs(port));
	else
		snprintf(buf, len, "[%pI6c]:%u", &addr->in6, ntohs(port));
	return buf;
}

#define KLB_ADDRSTRLEN	(INET6_ADDRSTRLEN + 8)

struct klb_backend *klb_backend_find(struct klb_pool *pool,
				     const struct klb_backend_cfg *cfg)
{
	struct klb_backend *be;

	list_for_each_entry(be, &pool->backends, pool_node)
		if (be->family == cfg->family && be->port == cfg->port &&
		    nf_inet_addr_cmp(&be->addr, &cfg->addr))
			return be;
	return NULL;
}

/* A backend of @pool whose family is not @family, if any. */
struct klb_backend *klb_pool_family_mismatch(struct klb_pool *pool,
					     u16 family)
{
	struct klb_backend *be;

	list_for_each_entry(be, &pool->backends, pool_node)
		if (be->family != family)
			return be;
	return NULL;
}

/* In NAT mode a service and the backends of its pool share the family. */
static struct klb_service *klb_pool_nat_user(struct klb_net *kn,
					     struct klb_pool *pool, u16 family)
{
	struct klb_service *svc;

	if (!pool->users)
		return NULL;
	list_for_each_entry(svc, &kn->services, node)
		if (!klb_mode_l7(svc->mode) && svc->family != family &&
		    klb_service_pool(kn, svc) == pool)
			return svc;
	return NULL;
}

/*
 * Check and append a backend without publishing a new table: the caller
 * does (klb_sched_publish), once for any number of appended backends.
 */
int klb_backend_append(struct klb_net *kn, struct klb_pool *pool,
		       const struct klb_backend_cfg *cfg,
		       struct netlink_ext_ack *extack)
{
	char buf[KLB_ADDRSTRLEN];
	struct klb_service *svc;
	struct klb_backend *be;
	int err;

	klb_assert_locked(kn);

	if (klb_backend_find(pool, cfg)) {
		klb_err(extack, cfg->attr, "backend %s already exists",
			klb_addr_fmt(buf, sizeof(buf), cfg->family,
				     &cfg->addr, cfg->port));
		return -EEXIST;
	}
	svc = klb_pool_nat_user(kn, pool, cfg->family);
	if (svc) {
		klb_err(extack, cfg->attr,
			"backend family differs from NAT service %s",
			svc->name);
		return -EINVAL;
	}

	err = klb_quota_take_backend(kn, extack);
	if (err)
		return err;
	be = kzalloc(sizeof(*be), GFP_KERNEL_ACCOUNT);
	if (!be)
		goto err_quota;
	be->stats = klb_stats_alloc();
	if (!be->stats) {
		kfree(be);
		goto err_quota;
	}
	klb_obj_inc(KLB_OBJ_BACKEND);
	kref_init(&be->ref);
	spin_lock_init(&be->idle_lock);
	spin_lock_init(&be->dr_lock);
	INIT_LIST_HEAD(&be->idle);
	be->family = cfg->family;
	be->addr = cfg->addr;
	be->port = cfg->port;
	be->weight = cfg->has_weight ? cfg->weight : 1;
	be->state = cfg->has_state ? cfg->state : KLB_BACKEND_UP;
	be->maxconn = cfg->maxconn;
	be->pool = pool;
	atomic_set(&be->active_conns, 0);
	if (klb_health_backend_added(kn, pool, be)) {
		klb_backend_put(be);
		goto err_quota;
	}

	list_add_tail(&be->pool_node, &pool->backends);
	pool->nbackends++;
	return 0;

err_quota:
	klb_quota_give(kn, &kn->alloc.backends);
	return -ENOMEM;
}

int klb_backend_add(struct klb_net *kn, struct klb_pool *pool,
		    const struct klb_backend_cfg *cfg,
		    struct netlink_ext_ack *extack)
{
	struct klb_backend *be;
	int err;

	err = klb_backend_append(kn, pool, cfg, extack);
	if (err)
		return err;
	err = klb_sched_publish(kn, pool);
	if (!err)
		klb_l7_queue_kick_all(kn);
	if (err) {
		be = list_last_entry(&pool->backends, struct klb_backend,
				     pool_node);
		list_del(&be->pool_node);
		pool->nbackends--;
		klb_health_backend_removed(kn, be);
		klb_quota_give(kn, &kn->alloc.backends);
		klb_backend_put(be);
	}
	return err;
}

static int klb_backend_missing(const struct klb_backend_cfg *cfg,
			       struct netlink_ext_ack *extack)
{
	char buf[KLB_ADDRSTRLEN];

	klb_err(extack, cfg->attr, "backend %s does not exist",
		klb_addr_fmt(buf, sizeof(buf), cfg->family, &cfg->addr,
			     cfg->port));
	return -ENOENT;
}

int klb_backend_set(struct klb_net *kn, struct klb_pool *pool,
		    const struct klb_backend_cfg *cfg,
		    struct netlink_ext_ack *extack)
{
	struct klb_backend *be;
	u32 weight;
	u8 state;
	int err;

	klb_assert_locked(kn);

	be = klb_backend_find(pool, cfg);
	if (!be)
		return klb_backend_missing(cfg, extack);

	/* Schedulers may read these locklessly (wlc): single stores. */
	weight = be->weight;
	state = be->state;
	if (cfg->has_weight)
		WRITE_ONCE(be->weight, cfg->weight);
	if (cfg->has_state)
		WRITE_ONCE(be->state, cfg->state);
	err = klb_sched_publish(kn, pool);
	if (err) {
		WRITE_ONCE(be->weight, weight);
		WRITE_ONCE(be->state, state);
		return err;
	}
	/* Read at each pick, not in the table: no publish needed. */
	if (cfg->has_maxconn)
		WRITE_ONCE(be->maxconn, cfg->maxconn);
	klb_l7_queue_kick_all(kn);
	return 0;
}

int klb_backend_del(struct klb_net *kn, struct klb_pool *pool,
		    const struct klb_backend_cfg *cfg,
		    struct netlink_ext_ack *extack)
{
	struct klb_backend *be;
	struct list_head *prev;
	int err;

	klb_assert_locked(kn);

	be = klb_backend_find(pool, cfg);
	if (!be)
		return klb_backend_missing(cfg, extack);

	prev = be->pool_node.prev;
	list_del(&be->pool_node);
	err = klb_sched_publish(kn, pool);
	if (err) {
		list_add(&be->pool_node, prev);
		return err;
	}
	pool->nbackends--;
	klb_health_backend_removed(kn, be);
	/* Its idle keep-alive connections close; none is parked any more. */
	klb_l7_backend_removed(kn, be);

	if (READ_ONCE(kn->sysctl.expire_nodest_conn)) {
		/* After this no reader can still pick it from the old table. */
		synchronize_rcu();
		klb_conn_backend_removed(kn, be);
	}
	klb_quota_give(kn, &kn->alloc.backends);
	klb_backend_put(be);
	return 0;
}
