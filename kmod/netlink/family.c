// SPDX-License-Identifier: GPL-2.0
/*
 * The "klb" generic netlink family: its commands, who may run them, and
 * the lock every doit runs under.
 *
 * Who may configure klb: every command that changes state needs
 * CAP_NET_ADMIN in the initial user namespace (GENL_ADMIN_PERM), as IPVS
 * does. A user namespace's root cannot: klb's parsers and datapath are
 * kernel code that an unprivileged user must not be able to reach by
 * creating a namespace of its own. Reading (GET, dumps) is open to every
 * user, as with `ip route show`.
 *
 * Events (KLB_CMD_EVENT) go to the multicast group "events": open to
 * every user, as reading is (events.c says why).
 *
 * Each command has its own top-level policy (policy.c) that admits only
 * the nest it takes; the core validates strictly against it before the
 * handler runs.
 */
#include "events.h"
#include "netlink/cmds.h"
#include "netlink/family.h"
#include "netlink/policy.h"

/*
 * Every doit runs under its namespace's config lock: taken here, dropped
 * in post_doit (which runs whatever doit returned), so handlers only do
 * their job. Operations are also serialised by the genetlink mutex (no
 * parallel_ops); the datapath never takes either.
 */
static int klb_nl_pre_doit(const struct klb_genl_doit_ops *ops,
			   struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_net(genl_info_net(info));

	mutex_lock(&kn->lock);
	info->user_ptr[0] = kn;
	return 0;
}

static void klb_nl_post_doit(const struct klb_genl_doit_ops *ops,
			     struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = info->user_ptr[0];

	mutex_unlock(&kn->lock);
}

#define KLB_OP_POLICY(p)	.policy = (p), .maxattr = KLB_A_MAX

static const struct genl_ops klb_genl_ops[] = {
	{
		.cmd	= KLB_CMD_POOL_NEW,
		.doit	= klb_nl_pool_new,
		.flags	= GENL_ADMIN_PERM,
		KLB_OP_POLICY(klb_pool_cmd_policy),
	}, {
		.cmd	= KLB_CMD_POOL_SET,
		.doit	= klb_nl_pool_set,
		.flags	= GENL_ADMIN_PERM,
		KLB_OP_POLICY(klb_pool_cmd_policy),
	}, {
		.cmd	= KLB_CMD_POOL_DEL,
		.doit	= klb_nl_pool_del,
		.flags	= GENL_ADMIN_PERM,
		KLB_OP_POLICY(klb_pool_cmd_policy),
	}, {
		.cmd	= KLB_CMD_POOL_GET,
		.doit	= klb_nl_pool_get,
		.dumpit	= klb_nl_pool_dump,
		KLB_OP_POLICY(klb_pool_cmd_policy),
	}, {
		.cmd	= KLB_CMD_BACKEND_NEW,
		.doit	= klb_nl_backend_new,
		.flags	= GENL_ADMIN_PERM,
		KLB_OP_POLICY(klb_pool_cmd_policy),
	}, {
		.cmd	= KLB_CMD_BACKEND_SET,
		.doit	= klb_nl_backend_set,
		.flags	= GENL_ADMIN_PERM,
		KLB_OP_POLICY(klb_pool_cmd_policy),
	}, {
		.cmd	= KLB_CMD_BACKEND_DEL,
		.doit	= klb_nl_backend_del,
		.flags	= GENL_ADMIN_PERM,
		KLB_OP_POLICY(klb_pool_cmd_policy),
	}, {
		.cmd	= KLB_CMD_SERVICE_NEW,
		.doit	= klb_nl_service_new,
		.flags	= GENL_ADMIN_PERM,
		KLB_OP_POLICY(klb_service_cmd_policy),
	}, {
		.cmd	= KLB_CMD_SERVICE_SET,
		.doit	= klb_nl_service_set,
		.flags	= GENL_ADMIN_PERM,
		KLB_OP_POLICY(klb_service_cmd_policy),
	}, {
		.cmd	= KLB_CMD_SERVICE_DEL,
		.doit	= klb_nl_service_del,
		.flags	= GENL_ADMIN_PERM,
		KLB_OP_POLICY(klb_service_cmd_policy),
	}, {
		.cmd	= KLB_CMD_SERVICE_GET,
		.doit	= klb_nl_service_get,
		.dumpit	= klb_nl_service_dump,
		KLB_OP_POLICY(klb_service_cmd_policy),
	}, {
		.cmd	= KLB_CMD_CONN_GET,
		.dumpit	= klb_nl_conn_dump,
		KLB_OP_POLICY(klb_conn_cmd_policy),
	}, {
		.cmd	= KLB_CMD_FLUSH,
		.doit	= klb_nl_flush,
		.flags	= GENL_ADMIN_PERM,
		KLB_OP_POLICY(klb_flush_cmd_policy),
	}, {
		.cmd	= KLB_CMD_RESTORE,
		.doit	= klb_nl_restore,
		.flags	= GENL_ADMIN_PERM,
		KLB_OP_POLICY(klb_restore_cmd_policy),
	}, {
		.cmd	= KLB_CMD_RULE_NEW,
		.doit	= klb_nl_rule_new,
		.flags	= GENL_ADMIN_PERM,
		KLB_OP_POLICY(klb_rule_cmd_policy),
	}, {
		.cmd	= KLB_CMD_RULE_DEL,
		.doit	= klb_nl_rule_del,
		.flags	= GENL_ADMIN_PERM,
		KLB_OP_POLICY(klb_rule_cmd_policy),
	}, {
		.cmd	= KLB_CMD_RULE_GET,
		.dumpit	= klb_nl_rule_dump,
		KLB_OP_POLICY(klb_rule_cmd_policy),
	}, {
		.cmd	= KLB_CMD_PERSIST_GET,
		.dumpit	= klb_nl_persist_dump,
		KLB_OP_POLICY(klb_persist_cmd_policy),
	}, {
		.cmd	= KLB_CMD_STATS_GET,
		.doit	= klb_nl_stats_get,
		/* takes nothing, as FLUSH */
		KLB_OP_POLICY(klb_flush_cmd_policy),
	}, {
		.cmd	= KLB_CMD_ZERO,
		.doit	= klb_nl_zero,
		.flags	= GENL_ADMIN_PERM,
		KLB_OP_POLICY(klb_zero_cmd_policy),
	},
};

/* Indexes in klb_genl_mcgrps. */
enum klb_genl_mcgrp {
	KLB_GENL_MCGRP_EVENTS,
};

static const struct genl_multicast_group klb_genl_mcgrps[] = {
	[KLB_GENL_MCGRP_EVENTS] = { .name = KLB_MCGRP_EVENTS },
};

/*
 * resv_start_op is left at 0, as new families should: every command gets
 * strict validation, including a zero genetlink reserved field.
 */
struct genl_family klb_genl_family __ro_after_init = {
	.name		= KLB_GENL_NAME,
	.version	= KLB_GENL_VERSION,
	.maxattr	= KLB_A_MAX,
	.netnsok	= true,
	.parallel_ops	= false,
	.pre_doit	= klb_nl_pre_doit,
	.post_doit	= klb_nl_post_doit,
	.module		= THIS_MODULE,
	.ops		= klb_genl_ops,
	.n_ops		= ARRAY_SIZE(klb_genl_ops),
	.mcgrps		= klb_genl_mcgrps,
	.n_mcgrps	= ARRAY_SIZE(klb_genl_mcgrps),
};

int __init klb_genl_init(void)
{
	int err;

	err = genl_register_family(&klb_genl_family);
	if (err)
		return err;
	klb_events_register(&klb_genl_family, KLB_GENL_MCGRP_EVENTS);
	return 0;
}

void klb_genl_exit(void)
{
	/* No event may be sent to group ids that are being given back. */
	klb_events_unregister();
	genl_unregister_family(&klb_genl_family);
}
