// SPDX-License-Identifier: GPL-2.0
/*
 * The whole configuration at once: FLUSH, RESTORE and the netns teardown.
 *
 * A restore builds the new pools and services off to the side (struct
 * klb_staged), with the very code and checks of the single-object commands
 * but against the staged lists, and only when all of it is valid applies
 * the difference (apply.c): what stays keeps its objects, connections and
 * counters. On any error the staged objects are freed and nothing changed.
 * New services are hashed ahead of the old ones they replace, so each
 * virtual address goes from the old service to the new one without a
 * moment with neither.
 *
 * New http and tls services (with their rules, which name staged pools)
 * open their listeners before the apply, next to the old ones (the engine
 * uses SO_REUSEPORT), because opening a socket can fail and the apply must
 * not; the old services then close theirs as they are removed. Services
 * that stay keep their listener.
 */
#include "config/pool.h"
#include "config/restore.h"
#include "config/service.h"
#include "health/health.h"
#include "l4/conn.h"
#include "l4/persist.h"
#include "l4/vip.h"

/*
 * Remove @services and @pools (unlinked by the caller) together: a flush
 * or restore of thousands of objects waits for one grace period and walks
 * the connection and persistence tables once, not once per object. The
 * services go first: a pool cannot go while a service uses it. @live:
 * packets may still be flowing (see klb_services_destroy()).
 */
static void klb_config_teardown(struct klb_net *kn,
				struct list_head *services,
				struct list_head *pools, bool live)
{
	bool expire = live && READ_ONCE(kn->sysctl.expire_nodest_conn);
	struct klb_pool *pool, *tmp;
	bool wait;

	klb_assert_locked(kn);

	wait = klb_services_unpublish(kn, services);
	list_for_each_entry(pool, pools, node)
		wait |= klb_pool_unpublish(kn, pool, expire);
	if (live && wait) {
		synchronize_rcu();
		klb_conn_flush_dying(kn);
		klb_persist_flush_dying(kn);
	}
	klb_services_release(kn, services);
	list_for_each_entry_safe(pool, tmp, pools, node) {
		list_del(&pool->node);
		klb_pool_release(kn, pool, live);
		cond_resched();
	}
}

static void klb_config_clear(struct klb_net *kn, bool live)
{
	LIST_HEAD(services);
	LIST_HEAD(pools);

	klb_assert_locked(kn);

	list_splice_init(&kn->services, &services);
	list_splice_init(&kn->pools, &pools);
	kn->nservices = 0;
	kn->npools = 0;
	klb_config_teardown(kn, &services, &pools, live);
}

void klb_config_flush(struct klb_net *kn)
{
	klb_config_clear(kn, true);
	klb_hooks_sync(kn, 0);
	klb_config_changed(kn);
}

void klb_config_net_exit(struct klb_net *kn)
{
	klb_config_clear(kn, false);
}

void klb_staged_init(struct klb_staged *st)
{
	INIT_LIST_HEAD(&st->pools);
	INIT_LIST_HEAD(&st->services);
	klb_set_index_init(&st->ix);
	klb_set_index_init(&st->live);
}

int klb_staged_index_pool(struct klb_staged *st, struct klb_pool *pool)
{
	return klb_index_add(&st->ix.pools, pool);
}

int klb_staged_index_service(struct klb_staged *st, struct klb_service *svc)
{
	return klb_index_add(&st->ix.services, svc) ?:
	       klb_index_add(&st->ix.vips, svc);
}

/* The live pools and services by name, for the apply's twins. */
static int klb_staged_index_live(struct klb_net *kn, struct klb_staged *st)
{
	struct klb_service *svc;
	struct klb_pool *pool;
	int err;

	list_for_each_entry(pool, &kn->pools, node) {
		err = klb_index_add(&st->live.pools, pool);
		if (err)
			return err;
	}
	list_for_each_entry(svc, &kn->services, node) {
		err = klb_index_add(&st->live.services, svc);
		if (err)
			return err;
	}
	return 0;
}

static void klb_staged_index_free(struct klb_staged *st)
{
	klb_set_index_free(&st->ix);
	klb_set_index_free(&st->live);
}

/*
 * Tear down what was staged. @started: a staged listener was opened (or
 * tried to be), so a client may have reached a staged service: tear down
 * as live, so that the engine lets go of the staged backends too.
 */
static void klb_staged_destroy(struct klb_net *kn, struct klb_staged *st,
			       bool started)
{
	klb_staged_index_free(st);
	klb_config_teardown(kn, &st->services, &st->pools, started);
}

void klb_staged_abort(struct klb_net *kn, struct klb_staged *st)
{
	klb_assert_locked(kn);
	klb_staged_destroy(kn, st, false);
}

/*
 * Open the listeners of the staged http and tls services. *@started: one
 * was opened, or tried to.
 */
static int klb_staged_start(struct klb_net *kn, struct klb_staged *st,
			    bool *started, struct netlink_ext_ack *extack)
{
	struct klb_service *svc;
	int err;

	list_for_each_entry(svc, &st->services, node) {
		/* One that stays keeps its listener and its sessions. */
		if (klb_staged_keeps(kn, st, svc))
			continue;
		*started |= klb_mode_l7(svc->mode);
		err = klb_service_start(kn, svc, extack);
		if (err) {
			klb_err_prefix(extack, "service %s: ", svc->name);
			return err;
		}
	}
	return 0;
}

int klb_staged_commit(struct klb_net *kn, struct klb_staged *st,
		      struct netlink_ext_ack *extack)
{
	bool started = false;
	int err;

	klb_assert_locked(kn);

	/* Into an empty netns: size the connection hash for conn_max now. */
	if (!kn->nservices)
		klb_conn_table_fit(kn);
	err = klb_staged_index_live(kn, st);
	if (err)
		goto err_staged;
	err = klb_staged_start(kn, st, &started, extack);
	if (err)
		goto err_staged;
	/* The only step of the swap that can fail: do it before the swap. */
	err = klb_hooks_sync(kn, kn->nservices + !list_empty(&st->services));
	if (err) {
		klb_err(extack, NULL, "cannot register netfilter hooks");
		goto err_staged;
	}
	klb_staged_apply(kn, st);	/* cannot fail */
	klb_staged_index_free(st);
	klb_hooks_sync(kn, kn->nservices);	/* unregistering cannot fail */
	klb_config_changed(kn);
	return 0;

err_staged:
	/* Stops the services that were started. */
	klb_staged_destroy(kn, st, started);
	return err;
}
