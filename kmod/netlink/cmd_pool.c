// SPDX-License-Identifier: GPL-2.0
/* POOL_* and BACKEND_*: one pool, or one backend of a pool. */
#include "events.h"
#include "netlink/check.h"
#include "netlink/cmds.h"
#include "netlink/parse.h"
#include "netlink/policy.h"

/* Tell the events group what a successful command did to @pool. */
static void klb_nl_pool_event(struct klb_net *kn, u8 action, const char *name,
			      int sched)
{
	struct klb_event ev = {
		.object = KLB_EVENT_POOL,
		.action = action,
		.pool = name,
		.sched = sched,
	};

	klb_event_send(kn, &ev, GFP_KERNEL);
}

/* The existing pool named in @tb (of the request's KLB_A_POOL). */
static struct klb_pool *klb_nl_pool(struct klb_net *kn, struct genl_info *info,
				    struct nlattr **tb)
{
	struct klb_pool *pool;
	const char *name;
	int err;

	err = klb_nl_req_name(info->attrs[KLB_A_POOL], tb, KLB_POOL_A_NAME,
			      "pool", &name, info->extack);
	if (err)
		return ERR_PTR(err);
	pool = klb_pool_find(&kn->pools, name);
	if (!pool) {
		klb_err(info->extack, tb[KLB_POOL_A_NAME],
			"pool %s does not exist", name);
		return ERR_PTR(-ENOENT);
	}
	return pool;
}

/* Parse KLB_A_POOL into @tb and find the pool it names. */
static struct klb_pool *klb_nl_pool_req(struct klb_net *kn,
					struct genl_info *info,
					struct nlattr **tb)
{
	int err;

	err = klb_nl_nest(info, KLB_A_POOL, "pool attributes", tb,
			  KLB_POOL_A_MAX, klb_pool_policy);
	if (err)
		return ERR_PTR(err);
	return klb_nl_pool(kn, info, tb);
}

int klb_nl_pool_new(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_nl_net(info);
	struct klb_pool *pool;

	if (klb_nl_missing(info->extack, NULL, info->attrs, KLB_A_POOL,
			   "pool attributes"))
		return -EINVAL;
	pool = klb_nl_pool_build(kn, &kn->pools, NULL, info->attrs[KLB_A_POOL],
				 info->extack);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	klb_pool_add(kn, pool);
	klb_config_changed(kn);
	klb_nl_pool_event(kn, KLB_EVENT_NEW, pool->name, pool->sched);
	return 0;
}

/* SCHED, CHECK, ALL_UNHEALTHY: whichever are given, all checked first. */
int klb_nl_pool_set(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_nl_net(info);
	struct nlattr *tb[KLB_POOL_A_MAX + 1];
	struct klb_check_cfg *check = NULL;
	struct klb_pool_change chg = {};
	struct klb_passive_cfg passive;
	bool none = false, has_passive;
	struct klb_pool *pool;
	int err = 0;

	pool = klb_nl_pool_req(kn, info, tb);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	has_passive = klb_nl_parse_passive(tb, &passive);
	if (!tb[KLB_POOL_A_SCHED] && !tb[KLB_POOL_A_CHECK] &&
	    !tb[KLB_POOL_A_ALL_UNHEALTHY] && !tb[KLB_POOL_A_HASH] &&
	    !has_passive) {
		klb_err(info->extack, info->attrs[KLB_A_POOL],
			"nothing to change: missing pool scheduler, hash, check, all-unhealthy, passive or slowstart");
		return -EINVAL;
	}
	if (tb[KLB_POOL_A_CHECK]) {
		check = kmalloc(sizeof(*check), GFP_KERNEL);
		if (!check)
			return -ENOMEM;
		err = klb_nl_parse_check(tb[KLB_POOL_A_CHECK], check, &none,
					 info->extack);
		if (err)
			goto out;
	}
	/* The policy checked the ranges. */
	chg.has_sched = tb[KLB_POOL_A_SCHED];
	if (chg.has_sched)
		chg.sched = nla_get_u8(tb[KLB_POOL_A_SCHED]);
	chg.has_hash = tb[KLB_POOL_A_HASH];
	if (chg.has_hash)
		chg.hash = nla_get_u8(tb[KLB_POOL_A_HASH]);
	chg.has_all_unhealthy = tb[KLB_POOL_A_ALL_UNHEALTHY];
	if (chg.has_all_unhealthy)
		chg.all_unhealthy = nla_get_u8(tb[KLB_POOL_A_ALL_UNHEALTHY]);
	chg.has_check = tb[KLB_POOL_A_CHECK];
	chg.check = none ? NULL : check;
	chg.passive = has_passive ? &passive : NULL;
	err = klb_pool_set(kn, pool, &chg, info->extack);
	if (!err) {
		klb_config_changed(kn);
		klb_nl_pool_event(kn, KLB_EVENT_SET, pool->name, pool->sched);
	}
out:
	kfree(check);
	return err;
}

int klb_nl_pool_del(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_nl_net(info);
	struct nlattr *tb[KLB_POOL_A_MAX + 1];
	char name[KLB_NAME_MAX];
	struct klb_pool *pool;
	int err;

	pool = klb_nl_pool_req(kn, info, tb);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	strscpy(name, pool->name, sizeof(name));	/* @pool goes */
	err = klb_pool_del(kn, pool, info->extack);
	if (err)
		return err;
	klb_config_changed(kn);
	klb_nl_pool_event(kn, KLB_EVENT_DEL, name, -1);
	return 0;
}

int klb_nl_pool_get(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_nl_net(info);
	struct nlattr *tb[KLB_POOL_A_MAX + 1];
	struct klb_pool *pool;

	pool = klb_nl_pool_req(kn, info, tb);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	return klb_nl_pool_get_one(kn, pool, info);
}

typedef int (*klb_backend_op_t)(struct klb_net *kn, struct klb_pool *pool,
				const struct klb_backend_cfg *cfg,
				struct netlink_ext_ack *extack);

/*
 * Tell the events group what a successful command did to @be of @pool. A
 * changed state is "state" (reason "operator"): the same action a state
 * change has from elsewhere (events.h), whatever else changed with it.
 */
static void klb_nl_backend_event(struct klb_net *kn, u8 action,
				 const struct klb_pool *pool,
				 const struct klb_backend *be, u8 old_state)
{
	struct klb_event ev = {
		.object = KLB_EVENT_BACKEND,
		.action = action,
		.pool = pool->name,
		.sched = -1,
		.be = be,
	};

	if (action == KLB_EVENT_SET && be->state != old_state) {
		ev.action = KLB_EVENT_STATE;
		ev.reason = KLB_EVENT_REASON_OPERATOR;
	}
	klb_event_send(kn, &ev, GFP_KERNEL);
}

/* BACKEND_NEW, _SET and _DEL: a pool name and one backend nest. */
static int klb_nl_backend(struct genl_info *info, klb_backend_op_t op,
			  u8 action)
{
	struct klb_net *kn = klb_nl_net(info);
	struct nlattr *tb[KLB_POOL_A_MAX + 1];
	struct klb_backend_cfg cfg;
	struct klb_backend *be, *held;
	struct klb_pool *pool;
	u8 old_state = 0;
	int err;

	err = klb_nl_nest(info, KLB_A_POOL, "pool attributes", tb,
			  KLB_POOL_A_MAX, klb_pool_policy);
	if (err)
		return err;
	if (klb_nl_missing(info->extack, info->attrs[KLB_A_POOL], tb,
			   KLB_POOL_A_BACKEND, "backend attributes"))
		return -EINVAL;
	err = klb_nl_parse_backend(tb[KLB_POOL_A_BACKEND], &cfg, info->extack);
	if (err)
		return err;
	pool = klb_nl_pool(kn, info, tb);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	/* What it was (set), and a hold so that a deleted one can be told. */
	held = klb_backend_find(pool, &cfg);
	if (held) {
		old_state = held->state;
		klb_backend_get(held);
	}
	err = op(kn, pool, &cfg, info->extack);
	if (!err) {
		klb_config_changed(kn);
		be = held ?: klb_backend_find(pool, &cfg);	/* new: now */
		if (!WARN_ON_ONCE(!be))
			klb_nl_backend_event(kn, action, pool, be, old_state);
	}
	if (held)
		klb_backend_put(held);
	return err;
}

int klb_nl_backend_new(struct sk_buff *skb, struct genl_info *info)
{
	return klb_nl_backend(info, klb_backend_add, KLB_EVENT_NEW);
}

int klb_nl_backend_set(struct sk_buff *skb, struct genl_info *info)
{
	return klb_nl_backend(info, klb_backend_set, KLB_EVENT_SET);
}

int klb_nl_backend_del(struct sk_buff *skb, struct genl_info *info)
{
	return klb_nl_backend(info, klb_backend_del, KLB_EVENT_DEL);
}
