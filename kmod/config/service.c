// SPDX-License-Identifier: GPL-2.0
/*
 * Services: a virtual address, port and protocol steering to a pool.
 *
 * The datapath finds a service by VIP in the VIP table (l4/vip.c). Removing
 * a service unhashes it, waits for a grace period so that no packet can still
 * be creating a connection to it, then flushes its connections.
 *
 * An http or tls service also has a listener of the L7 engine (l7/), opened
 * by klb_service_start() before the service is hashed and closed by
 * klb_service_stop() before it is unhashed. svc->stopping doubles as "not
 * started": it is set until the listener opens and again once it closes,
 * so stopping a list of services stops exactly those that were started.
 */
#include <linux/slab.h>

#include "acl.h"
#include "flow.h"
#include "config/hostmap.h"
#include "config/pool.h"
#include "config/quota.h"
#include "config/rule.h"
#include "config/index.h"
#include "config/service.h"
#include "l4/conn.h"
#include "l4/hooks.h"
#include "l4/persist.h"
#include "l4/vip.h"
#include "l7/engine.h"

static bool klb_addr_equal_cfg(const struct klb_service *svc,
			       const struct klb_service_cfg *cfg)
{
	return svc->family == cfg->family &&
	       klb_addr_equal(cfg->family, &svc->addr, &cfg->addr);
}

struct klb_service *klb_service_find(struct list_head *services,
				     const char *name)
{
	struct klb_service *svc;

	list_for_each_entry(svc, services, node)
		if (!strcmp(svc->name, name))
			return svc;
	return NULL;
}

static struct klb_service *
klb_service_find_vip(struct list_head *services,
		     const struct klb_service_cfg *cfg)
{
	struct klb_service *svc;

	list_for_each_entry(svc, services, node)
		if (svc->port == cfg->port && svc->proto == cfg->proto &&
		    klb_addr_equal_cfg(svc, cfg))
			return svc;
	return NULL;
}

static int klb_service_check_pool(struct klb_pool *pool, u16 family, u8 mode,
				  const struct nlattr *attr,
				  struct netlink_ext_ack *extack)
{
	if (!klb_mode_l7(mode) && klb_pool_family_mismatch(pool, family)) {
		klb_err(extack, attr,
			"pool %s has backends of another address family",
			pool->name);
		return -EINVAL;
	}
	return 0;
}

/* Is @cfg a valid newcomer to @pools and @services? Its pool, if so. */
static struct klb_pool *klb_service_check(struct list_head *pools,
					  struct list_head *services,
					  const struct klb_set_index *six,
					  const struct klb_service_cfg *cfg,
					  struct netlink_ext_ack *extack)
{
	struct klb_service *svc;
	struct klb_pool *pool;
	int err;

	if (six ? klb_index_service(&six->services, cfg->name) :
		  klb_service_find(services, cfg->name)) {
		klb_err(extack, NULL, "service %s already exists", cfg->name);
		return ERR_PTR(-EEXIST);
	}
	svc = six ? klb_index_vip(&six->vips, cfg->family, &cfg->addr,
				  cfg->port, cfg->proto) :
		    klb_service_find_vip(services, cfg);
	if (svc) {
		klb_err(extack, NULL,
			"address, port and protocol already used by service %s",
			svc->name);
		return ERR_PTR(-EEXIST);
	}
	pool = six ? klb_index_pool(&six->pools, cfg->pool) :
		     klb_pool_find(pools, cfg->pool);
	if (!pool) {
		klb_err(extack, cfg->pool_attr, "pool %s does not exist",
			cfg->pool);
		return ERR_PTR(-ENOENT);
	}
	err = klb_service_check_pool(pool, cfg->family, cfg->mode,
				     cfg->pool_attr, extack);
	return err ? ERR_PTR(err) : pool;
}

/*
 * Check @cfg against the set it joins (@pools, @services: live or staged)
 * and allocate the service, unlinked; it counts as a user of its pool.
 * @cfg->rules is taken over, whether this succeeds or not.
 */
struct klb_service *klb_service_create(struct klb_net *kn,
				       struct list_head *pools,
				       struct list_head *services,
				       const struct klb_set_index *six,
				       const struct klb_service_cfg *cfg,
				       struct netlink_ext_ack *extack)
{
	struct klb_service *svc;
	struct klb_pool *pool;
	int err;

	klb_assert_locked(kn);

	pool = klb_service_check(pools, services, six, cfg, extack);
	if (IS_ERR(pool)) {
		svc = ERR_CAST(pool);
		goto err_rules;
	}
	err = klb_quota_take_service(kn, extack);
	if (err) {
		svc = ERR_PTR(err);
		goto err_rules;
	}
	svc = kzalloc(sizeof(*svc), GFP_KERNEL_ACCOUNT);
	if (!svc)
		goto err_quota;
	svc->stats = klb_stats_alloc();
	if (!svc->stats) {
		kfree(svc);
		goto err_quota;
	}
	klb_obj_inc(KLB_OBJ_SERVICE);
	kref_init(&svc->ref);
	INIT_HLIST_NODE(&svc->vip_node);
	INIT_LIST_HEAD(&svc->node);
	strscpy(svc->name, cfg->name, sizeof(svc->name));
	svc->family = cfg->family;
	svc->addr = cfg->addr;
	svc->port = cfg->port;
	svc->proto = cfg->proto;
	svc->mode = cfg->mode;
	svc->proxy_protocol = cfg->proxy_protocol;
	svc->nsnat = cfg->nsnat;
	memcpy(svc->snat, cfg->snat, sizeof(svc->snat));
	svc->persist_timeout = cfg->persist_timeout;
	svc->persist_mask = cfg->persist_mask;
	svc->adopt = cfg->adopt;
	if (cfg->cookie)
		strscpy(svc->cookie, cfg->cookie, sizeof(svc->cookie));
	svc->stopping = klb_mode_l7(cfg->mode);	/* not started yet */
	atomic_set(&svc->active_conns, 0);
	RCU_INIT_POINTER(svc->pool, pool);
	pool->users++;

	if (cfg->rules)
		klb_rules_attach(kn, svc, cfg->rules);
	RCU_INIT_POINTER(svc->acl, cfg->acl);
	return svc;

err_quota:
	klb_quota_give(kn, &kn->alloc.services);
	svc = ERR_PTR(-ENOMEM);
err_rules:
	if (cfg->rules)
		klb_rule_set_destroy(cfg->rules);
	klb_acl_destroy(cfg->acl);
	return svc;
}

/* Undo klb_service_create(): drop the configuration's hold on @svc. */
static void klb_service_unconfigure(struct klb_net *kn,
				    struct klb_service *svc)
{
	klb_rules_clear(kn, svc);
	klb_hostmap_replace(kn, svc, NULL);
	klb_service_pool(kn, svc)->users--;
	klb_quota_give(kn, &kn->alloc.services);
	klb_service_put(svc);
}

/* Open the listener of an http or tls service; nothing to do for nat. */
int klb_service_start(struct klb_net *kn, struct klb_service *svc,
		      struct netlink_ext_ack *extack)
{
	int err;

	klb_assert_locked(kn);

	if (!klb_mode_l7(svc->mode))
		return 0;
	/* Before the listener opens: its first session must see it running. */
	WRITE_ONCE(svc->stopping, false);
	err = klb_l7_service_start(kn, svc, extack);
	if (err) {
		WRITE_ONCE(svc->stopping, true);
		if (extack && !extack->_msg)
			klb_err(extack, NULL,
				"cannot open the listener of service %s (%d)",
				svc->name, err);
	}
	return err;
}

/*
 * Close the listener of a started http or tls service; its sessions see
 * svc->stopping, finish the exchange in progress and close.
 */
void klb_service_stop(struct klb_net *kn, struct klb_service *svc)
{
	klb_assert_locked(kn);

	if (!klb_mode_l7(svc->mode) || svc->stopping)
		return;
	klb_l7_service_stop(kn, svc);
}

/* Hooks are registered only while the netns has a service (as IPVS does). */
int klb_hooks_sync(struct klb_net *kn, u32 nservices)
{
	int err;

	klb_assert_locked(kn);

	if (nservices && !kn->hooks_registered) {
		err = klb_hooks_register(kn);
		if (err)
			return err;
		kn->hooks_registered = true;
	} else if (!nservices && kn->hooks_registered) {
		klb_hooks_unregister(kn);
		kn->hooks_registered = false;
	}
	return 0;
}

/*
 * Remove the services on @services (unlinked from kn->services by the
 * caller) and drop the configuration's reference on each. @live: packets
 * may still be flowing, so wait for them and flush the connections; when
 * the netns is dismantled the hooks and the connections are already gone.
 * Started http and tls services are stopped either way (the engine of a
 * dismantled netns is already gone, and stopping is then harmless).
 */
bool klb_services_unpublish(struct klb_net *kn, struct list_head *services)
{
	struct klb_service *svc;

	klb_assert_locked(kn);

	/* Listeners close first, while their VIP still steers to them. */
	list_for_each_entry(svc, services, node) {
		klb_service_stop(kn, svc);
		klb_vip_unhash(kn, svc);
		WRITE_ONCE(svc->dying, true);
	}
	return !list_empty(services);
}

void klb_services_release(struct klb_net *kn, struct list_head *services)
{
	struct klb_service *svc, *tmp;

	list_for_each_entry_safe(svc, tmp, services, node) {
		list_del(&svc->node);
		klb_service_unconfigure(kn, svc);
	}
}

void klb_services_destroy(struct klb_net *kn, struct list_head *services,
			  bool live)
{
	if (klb_services_unpublish(kn, services) && live) {
		synchronize_rcu();
		klb_conn_flush_dying(kn);
		klb_persist_flush_dying(kn);
	}
	klb_services_release(kn, services);
}

int klb_service_add(struct klb_net *kn, const struct klb_service_cfg *cfg,
		    struct netlink_ext_ack *extack)
{
	struct klb_service *svc;
	int err;

	svc = klb_service_create(kn, &kn->pools, &kn->services, NULL, cfg,
				 extack);
	if (IS_ERR(svc))
		return PTR_ERR(svc);
	/* The first service: size the connection hash for conn_max now. */
	if (!kn->nservices)
		klb_conn_table_fit(kn);

	err = klb_service_start(kn, svc, extack);
	if (err)
		goto err_svc;
	err = klb_hooks_sync(kn, kn->nservices + 1);
	if (err) {
		klb_err(extack, NULL, "cannot register netfilter hooks");
		klb_service_stop(kn, svc);
		goto err_svc;
	}
	klb_vip_hash(kn, svc);
	list_add_tail(&svc->node, &kn->services);
	kn->nservices++;
	return 0;

err_svc:
	klb_service_unconfigure(kn, svc);
	return err;
}

int klb_service_set_pool(struct klb_net *kn, struct klb_service *svc,
			 const char *name, const struct nlattr *pool_attr,
			 struct netlink_ext_ack *extack)
{
	struct klb_pool *pool, *old;
	int err;

	klb_assert_locked(kn);

	pool = klb_pool_find(&kn->pools, name);
	if (!pool) {
		klb_err(extack, pool_attr, "pool %s does not exist", name);
		return -ENOENT;
	}
	old = klb_service_pool(kn, svc);
	if (pool == old)
		return 0;
	err = klb_service_check_pool(pool, svc->family, svc->mode, pool_attr,
				     extack);
	if (err)
		return err;

	/* Existing connections keep their backend; new ones use @pool. */
	rcu_assign_pointer(svc->pool, pool);
	old->users--;
	pool->users++;
	return 0;
}

void klb_service_set_persist(struct klb_net *kn, struct klb_service *svc,
			     u32 timeout, u8 mask)
{
	klb_assert_locked(kn);
	WRITE_ONCE(svc->persist_mask, mask);
	WRITE_ONCE(svc->persist_timeout, timeout);
}

void klb_service_set_adopt(struct klb_net *kn, struct klb_service *svc,
			   bool adopt)
{
	klb_assert_locked(kn);
	WRITE_ONCE(svc->adopt, adopt);
}

void klb_service_set_acl(struct klb_net *kn, struct klb_service *svc,
			 struct klb_acl *acl)
{
	struct klb_acl *old;

	klb_assert_locked(kn);
	old = rcu_replace_pointer(svc->acl, acl, lockdep_is_held(&kn->lock));
	klb_acl_free(old);
}

void klb_service_set_proxy_protocol(struct klb_net *kn,
				    struct klb_service *svc, u8 version)
{
	klb_assert_locked(kn);
	WRITE_ONCE(svc->proxy_protocol, version);
}

int klb_service_del(struct klb_net *kn, struct klb_service *svc)
{
	LIST_HEAD(victim);

	klb_assert_locked(kn);

	list_move(&svc->node, &victim);
	kn->nservices--;
	klb_services_destroy(kn, &victim, true);
	/* Unregistering cannot fail. */
	return klb_hooks_sync(kn, kn->nservices);
}
