// SPDX-License-Identifier: GPL-2.0
/*
 * FLUSH and RESTORE: the whole configuration at once.
 *
 * RESTORE builds the new pools and services off to the side, with the very
 * code and checks of the single-object commands but against the staged
 * lists, and only when all of it is valid swaps it in. On any error the
 * staged objects are freed and nothing changed. The swap hashes the new
 * services first, ahead of the old ones, so each virtual address goes from
 * the old service to the new one without a moment with neither.
 *
 * Staged http and tls services (with their rules, which name staged pools)
 * open their listeners before the swap, next to the old ones (the engine
 * uses SO_REUSEPORT), because opening a socket can fail and the swap must
 * not; the old services then close theirs as they are destroyed.
 */
#include "netlink.h"

static void klb_pools_destroy(struct klb_net *kn, struct list_head *pools,
			      bool live)
{
	struct klb_pool *pool, *tmp;

	list_for_each_entry_safe(pool, tmp, pools, node) {
		list_del(&pool->node);
		klb_pool_destroy(kn, pool, live);
	}
}

/* Services first: a pool cannot go while a service uses it. */
static void klb_config_clear(struct klb_net *kn, bool live)
{
	LIST_HEAD(services);

	lockdep_assert_held(&kn->lock);

	list_splice_init(&kn->services, &services);
	kn->nservices = 0;
	klb_services_destroy(kn, &services, live);
	klb_pools_destroy(kn, &kn->pools, live);
	kn->npools = 0;
}

static void klb_config_flush(struct klb_net *kn)
{
	klb_config_clear(kn, true);
	klb_hooks_sync(kn, 0);
	klb_config_changed(kn);
}

/* The netns is going away: its hooks and connections are already gone. */
void klb_config_net_exit(struct klb_net *kn)
{
	klb_config_clear(kn, false);
}

int klb_nl_flush(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_net(genl_info_net(info));

	mutex_lock(&kn->lock);
	klb_config_flush(kn);
	mutex_unlock(&kn->lock);
	return 0;
}

/*
 * Say which object of the config was refused ("service web: pool nope does
 * not exist"), unless the message already starts by naming it.
 */
static void klb_restore_blame(struct netlink_ext_ack *extack,
			      const struct nlattr *nest, int type,
			      const char *what)
{
	const struct nlattr *attr = nla_find_nested(nest, type);
	char prefix[KLB_NAME_MAX + 16];
	const char *name;

	if (!extack || !extack->_msg || !attr)
		return;
	name = nla_data(attr);
	if (strnlen(name, nla_len(attr)) >= KLB_NAME_MAX)
		return;
	snprintf(prefix, sizeof(prefix), "%s %s ", what, name);
	if (!strncmp(extack->_msg, prefix, strlen(prefix)))
		return;
	klb_err_prefix(extack, "%s %s: ", what, name);
}

static int klb_restore_stage(struct klb_net *kn, const struct nlattr *config,
			     struct list_head *pools,
			     struct list_head *services,
			     struct netlink_ext_ack *extack)
{
	struct klb_service_cfg cfg;
	struct klb_service *svc;
	struct klb_pool *pool;
	struct nlattr *attr;
	int err, rem;

	/* Pools first, wherever they are: services refer to them by name. */
	nla_for_each_nested(attr, config, rem) {
		if (nla_type(attr) != KLB_CONFIG_A_POOL)
			continue;
		pool = klb_nl_pool_build(kn, pools, attr, extack);
		if (IS_ERR(pool)) {
			klb_restore_blame(extack, attr, KLB_POOL_A_NAME,
					  "pool");
			return PTR_ERR(pool);
		}
		list_add_tail(&pool->node, pools);
	}
	nla_for_each_nested(attr, config, rem) {
		if (nla_type(attr) != KLB_CONFIG_A_SERVICE)
			continue;
		err = klb_nl_parse_service(attr, &cfg, extack);
		if (!err) {
			svc = klb_service_create(kn, pools, services, &cfg,
						 extack);
			err = PTR_ERR_OR_ZERO(svc);
		}
		if (err) {
			klb_restore_blame(extack, attr, KLB_SERVICE_A_NAME,
					  "service");
			return err;
		}
		list_add_tail(&svc->node, services);
	}
	return 0;
}

static void klb_restore_swap(struct klb_net *kn, struct list_head *pools,
			     struct list_head *services)
{
	struct klb_service *svc;
	struct list_head *p;
	u32 npools = 0, nservices = 0;

	list_for_each_entry(svc, services, node) {
		klb_service_hash(kn, svc);
		nservices++;
	}
	list_for_each(p, pools)
		npools++;

	klb_config_clear(kn, true);
	list_splice_tail_init(pools, &kn->pools);
	list_splice_tail_init(services, &kn->services);
	kn->npools = npools;
	kn->nservices = nservices;
	klb_hooks_sync(kn, nservices);	/* unregistering cannot fail */
	klb_config_changed(kn);
}

/*
 * Open the listeners of the staged http and tls services. *@started: one
 * was opened, or tried to.
 */
static int klb_restore_start(struct klb_net *kn, struct list_head *services,
			     bool *started, struct netlink_ext_ack *extack)
{
	struct klb_service *svc;
	int err;

	list_for_each_entry(svc, services, node) {
		*started |= svc->mode != KLB_MODE_NAT;
		err = klb_service_start(kn, svc, extack);
		if (err) {
			klb_err_prefix(extack, "service %s: ", svc->name);
			return err;
		}
	}
	return 0;
}

int klb_nl_restore(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_net(genl_info_net(info));
	LIST_HEAD(services);
	LIST_HEAD(pools);
	bool started = false;
	int err;

	if (NL_REQ_ATTR_CHECK(info->extack, NULL, info->attrs, KLB_A_CONFIG)) {
		klb_err(info->extack, NULL, "missing config");
		return -EINVAL;
	}

	mutex_lock(&kn->lock);
	err = klb_restore_stage(kn, info->attrs[KLB_A_CONFIG], &pools,
				&services, info->extack);
	if (err)
		goto err_staged;
	err = klb_restore_start(kn, &services, &started, info->extack);
	if (err)
		goto err_staged;
	/* The only step of the swap that can fail: do it before the swap. */
	err = klb_hooks_sync(kn, kn->nservices + !list_empty(&services));
	if (err) {
		klb_err(info->extack, NULL, "cannot register netfilter hooks");
		goto err_staged;
	}
	klb_restore_swap(kn, &pools, &services);
	mutex_unlock(&kn->lock);
	return 0;

err_staged:
	/*
	 * Stops the services that were started. Once a listener was open, a
	 * client may have reached a staged service: tear down as live, so
	 * that the engine lets go of the staged backends too.
	 */
	klb_services_destroy(kn, &services, started);
	klb_pools_destroy(kn, &pools, started);
	mutex_unlock(&kn->lock);
	return err;
}
