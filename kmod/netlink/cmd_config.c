// SPDX-License-Identifier: GPL-2.0
/*
 * FLUSH and RESTORE: the whole configuration at once. A restore's config
 * nest is parsed into a staged configuration (config/restore.c), which is
 * swapped in only if all of it is valid. A restore transaction
 * (cmd_txn.c) stages its messages' nests with the same code.
 */
#include "config/restore.h"
#include "events.h"
#include "netlink/cmds.h"
#include "netlink/hostmap.h"
#include "netlink/parse.h"
#include "sched/table.h"

/*
 * Tell the events group the configuration was flushed (with what it had)
 * or restored (with what it has now): one event for all of it.
 */
static void klb_nl_config_event(struct klb_net *kn, u8 action,
				u32 npools, u32 nservices, u32 nbackends)
{
	struct klb_event ev = {
		.object = KLB_EVENT_CONFIG,
		.action = action,
		.sched = -1,
		.has_counts = true,
		.npools = npools,
		.nservices = nservices,
		.nbackends = nbackends,
	};

	klb_event_send(kn, &ev, GFP_KERNEL);
}

static u32 klb_nl_nbackends(struct klb_net *kn)
{
	struct klb_pool *pool;
	u32 n = 0;

	list_for_each_entry(pool, &kn->pools, node)
		n += pool->nbackends;
	return n;
}

void klb_nl_restored(struct klb_net *kn)
{
	klb_nl_config_event(kn, KLB_EVENT_RESTORE, kn->npools, kn->nservices,
			    klb_nl_nbackends(kn));
}

int klb_nl_flush(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_nl_net(info);
	u32 npools = kn->npools, nservices = kn->nservices;
	u32 nbackends = klb_nl_nbackends(kn);

	klb_config_flush(kn);
	klb_nl_config_event(kn, KLB_EVENT_FLUSH, npools, nservices, nbackends);
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

int klb_nl_restore_stage(struct klb_net *kn, const struct nlattr *config,
			 struct klb_staged *st, struct netlink_ext_ack *extack)
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
		pool = klb_nl_pool_build(kn, &st->pools, &st->ix.pools, attr,
					 extack);
		if (IS_ERR(pool)) {
			klb_restore_blame(extack, attr, KLB_POOL_A_NAME,
					  "pool");
			return PTR_ERR(pool);
		}
		list_add_tail(&pool->node, &st->pools);
		err = klb_staged_index_pool(st, pool);
		if (err)
			return err;
	}
	nla_for_each_nested(attr, config, rem) {
		if (nla_type(attr) != KLB_CONFIG_A_SERVICE)
			continue;
		err = klb_nl_parse_service(&st->pools, attr, &cfg, extack);
		if (!err) {
			svc = klb_service_create(kn, &st->pools, &st->services,
						 &st->ix, &cfg, extack);
			err = PTR_ERR_OR_ZERO(svc);
		}
		if (err) {
			klb_restore_blame(extack, attr, KLB_SERVICE_A_NAME,
					  "service");
			return err;
		}
		list_add_tail(&svc->node, &st->services);
		err = klb_staged_index_service(st, svc);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The config's HASH_SEED, if any (the policy checked its length). Set
 * before staging, so that the staged pools' tables use it; the old one
 * is kept in @old for a failed restore to put back.
 */
static const struct nlattr *klb_restore_seed(struct klb_net *kn,
					     const struct nlattr *config,
					     siphash_key_t *old)
{
	const struct nlattr *seed;

	seed = nla_find_nested(config, KLB_CONFIG_A_HASH_SEED);
	*old = kn->hash_seed;
	if (seed)
		klb_sched_seed_key(nla_data(seed), &kn->hash_seed);
	return seed;
}

int klb_nl_restore(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_nl_net(info);
	const struct nlattr *seed;
	struct klb_staged st;
	siphash_key_t old;
	int err;

	if (klb_nl_missing(info->extack, NULL, info->attrs, KLB_A_CONFIG,
			   "config"))
		return -EINVAL;
	seed = klb_restore_seed(kn, info->attrs[KLB_A_CONFIG], &old);
	klb_staged_init(&st);
	err = klb_nl_restore_stage(kn, info->attrs[KLB_A_CONFIG], &st,
				   info->extack);
	if (!err)
		err = klb_nl_hostmap_restore(kn, info, &st);
	if (!err)
		err = klb_staged_commit(kn, &st, info->extack);
	else
		klb_staged_abort(kn, &st);
	if (err) {
		kn->hash_seed = old;
		return err;
	}
	/* Pools kept across the swap still hash with the old seed. */
	if (seed && memcmp(&old, &kn->hash_seed, sizeof(old)))
		klb_sched_seed_set(kn, nla_data(seed));
	klb_nl_restored(kn);
	return 0;
}
