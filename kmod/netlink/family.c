// SPDX-License-Identifier: GPL-2.0
/*
 * The "klb" generic netlink family: its commands, who may run them, and
 * the lock every doit runs under.
 *
 * Who may configure klb (Documentation/security.md): every command that
 * changes state needs CAP_NET_ADMIN in the initial user namespace, as
 * IPVS does. A user namespace's root cannot: klb's parsers and datapath
 * are kernel code that an unprivileged user must not be able to reach by
 * creating a namespace of its own. The module parameter allow_userns=1
 * (writable only by the initial namespace's root) lets the owner of a
 * network namespace's user namespace configure klb in that namespace;
 * then its objects are capped (net.klb.*_max, read-only there) and
 * charged to its memory cgroup (memcg.h).
 *
 * The ops carry GENL_UNS_ADMIN_PERM (CAP_NET_ADMIN over the namespace),
 * checked by the core; pre_doit adds the initial-namespace check unless
 * allow_userns is set. Reading the configuration (pools, services, rules,
 * counters) is open to every user, as with `ip route show`; the
 * connection and persistence dumps show client addresses and need
 * CAP_NET_ADMIN over the namespace, as ctnetlink's dump does.
 *
 * Events (KLB_CMD_EVENT) go to the multicast group "events": open to
 * every user, as reading is (events.c says why).
 *
 * Each command has its own top-level policy (policy.c) that admits only
 * the nest it takes; the core validates strictly against it before the
 * handler runs.
 *
 * The family runs with parallel_ops: requests do not take the genetlink
 * mutex, so a long restore or flush in one namespace holds up neither
 * other namespaces nor other generic netlink families. Each namespace's
 * config lock (kn->lock) serialises its changes; dumps take it per
 * callback; nothing else is shared between requests (extack.c keeps each
 * request's message to itself).
 */
#include <linux/capability.h>
#include <linux/moduleparam.h>
#include <linux/user_namespace.h>

#include "memcg.h"
#include "events.h"
#include "netlink/cmds.h"
#include "netlink/family.h"
#include "netlink/policy.h"
#include "netlink/txn.h"

static bool allow_userns;
module_param(allow_userns, bool, 0644);
MODULE_PARM_DESC(allow_userns,
		 "let a user namespace's root configure klb in its own network namespaces (default: no)");

/*
 * The core checked CAP_NET_ADMIN over the namespace (GENL_UNS_ADMIN_PERM).
 * Without allow_userns, also over the initial user namespace.
 */
static int klb_nl_may_configure(struct sk_buff *skb, struct genl_info *info)
{
	if (netlink_capable(skb, CAP_NET_ADMIN))
		return 0;
	if (READ_ONCE(allow_userns) &&
	    genl_info_net(info)->user_ns != &init_user_ns)
		return 0;
	NL_SET_ERR_MSG(info->extack,
		       "Operation not permitted: configuring klb needs CAP_NET_ADMIN in the initial user namespace (a user namespace's root only with klb.allow_userns=1)");
	return -EPERM;
}

static struct genl_family klb_genl_family;

/*
 * Every doit runs under its namespace's config lock: taken here, dropped
 * in post_doit (which runs whatever doit returned), so handlers only do
 * their job. The datapath never takes it. The family goes along for the
 * replies (6.1's genl_info has no family of its own).
 */
static int klb_nl_pre_doit(const struct klb_genl_doit_ops *ops,
			   struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_net(genl_info_net(info));
	int err;

	if (ops->flags & GENL_UNS_ADMIN_PERM) {
		err = klb_nl_may_configure(skb, info);
		if (err)
			return err;
	}
	mutex_lock(&kn->lock);
	if (ops->flags & GENL_UNS_ADMIN_PERM)
		klb_memcg_adopt(kn);
	info->user_ptr[0] = kn;
	info->user_ptr[1] = &klb_genl_family;
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
		.flags	= GENL_UNS_ADMIN_PERM,
		KLB_OP_POLICY(klb_pool_cmd_policy),
	}, {
		.cmd	= KLB_CMD_POOL_SET,
		.doit	= klb_nl_pool_set,
		.flags	= GENL_UNS_ADMIN_PERM,
		KLB_OP_POLICY(klb_pool_cmd_policy),
	}, {
		.cmd	= KLB_CMD_POOL_DEL,
		.doit	= klb_nl_pool_del,
		.flags	= GENL_UNS_ADMIN_PERM,
		KLB_OP_POLICY(klb_pool_cmd_policy),
	}, {
		.cmd	= KLB_CMD_POOL_GET,
		.doit	= klb_nl_pool_get,
		.dumpit	= klb_nl_pool_dump,
		KLB_OP_POLICY(klb_pool_cmd_policy),
	}, {
		.cmd	= KLB_CMD_BACKEND_NEW,
		.doit	= klb_nl_backend_new,
		.flags	= GENL_UNS_ADMIN_PERM,
		KLB_OP_POLICY(klb_pool_cmd_policy),
	}, {
		.cmd	= KLB_CMD_BACKEND_SET,
		.doit	= klb_nl_backend_set,
		.flags	= GENL_UNS_ADMIN_PERM,
		KLB_OP_POLICY(klb_pool_cmd_policy),
	}, {
		.cmd	= KLB_CMD_BACKEND_DEL,
		.doit	= klb_nl_backend_del,
		.flags	= GENL_UNS_ADMIN_PERM,
		KLB_OP_POLICY(klb_pool_cmd_policy),
	}, {
		.cmd	= KLB_CMD_SERVICE_NEW,
		.doit	= klb_nl_service_new,
		.flags	= GENL_UNS_ADMIN_PERM,
		KLB_OP_POLICY(klb_service_cmd_policy),
	}, {
		.cmd	= KLB_CMD_SERVICE_SET,
		.doit	= klb_nl_service_set,
		.flags	= GENL_UNS_ADMIN_PERM,
		KLB_OP_POLICY(klb_service_cmd_policy),
	}, {
		.cmd	= KLB_CMD_SERVICE_DEL,
		.doit	= klb_nl_service_del,
		.flags	= GENL_UNS_ADMIN_PERM,
		KLB_OP_POLICY(klb_service_cmd_policy),
	}, {
		.cmd	= KLB_CMD_SERVICE_GET,
		.doit	= klb_nl_service_get,
		.dumpit	= klb_nl_service_dump,
		KLB_OP_POLICY(klb_service_cmd_policy),
	}, {
		.cmd	= KLB_CMD_CONN_GET,
		.dumpit	= klb_nl_conn_dump,
		.flags	= GENL_UNS_ADMIN_PERM,	/* client addresses */
		KLB_OP_POLICY(klb_conn_cmd_policy),
	}, {
		.cmd	= KLB_CMD_FLUSH,
		.doit	= klb_nl_flush,
		.flags	= GENL_UNS_ADMIN_PERM,
		KLB_OP_POLICY(klb_flush_cmd_policy),
	}, {
		.cmd	= KLB_CMD_RESTORE,
		.doit	= klb_nl_restore,
		.flags	= GENL_UNS_ADMIN_PERM,
		KLB_OP_POLICY(klb_restore_cmd_policy),
	}, {
		.cmd	= KLB_CMD_RULE_NEW,
		.doit	= klb_nl_rule_new,
		.flags	= GENL_UNS_ADMIN_PERM,
		KLB_OP_POLICY(klb_rule_cmd_policy),
	}, {
		.cmd	= KLB_CMD_RULE_DEL,
		.doit	= klb_nl_rule_del,
		.flags	= GENL_UNS_ADMIN_PERM,
		KLB_OP_POLICY(klb_rule_cmd_policy),
	}, {
		.cmd	= KLB_CMD_RULE_GET,
		.dumpit	= klb_nl_rule_dump,
		KLB_OP_POLICY(klb_rule_cmd_policy),
	}, {
		.cmd	= KLB_CMD_PERSIST_GET,
		.dumpit	= klb_nl_persist_dump,
		.flags	= GENL_UNS_ADMIN_PERM,	/* client addresses */
		KLB_OP_POLICY(klb_persist_cmd_policy),
	}, {
		.cmd	= KLB_CMD_STATS_GET,
		.doit	= klb_nl_stats_get,
		/* takes nothing, as FLUSH */
		KLB_OP_POLICY(klb_flush_cmd_policy),
	}, {
		.cmd	= KLB_CMD_ZERO,
		.doit	= klb_nl_zero,
		.flags	= GENL_UNS_ADMIN_PERM,
		KLB_OP_POLICY(klb_zero_cmd_policy),
	}, {
		.cmd	= KLB_CMD_HOSTMAP_NEW,
		.doit	= klb_nl_hostmap_new,
		.flags	= GENL_UNS_ADMIN_PERM,
		KLB_OP_POLICY(klb_hostmap_cmd_policy),
	}, {
		.cmd	= KLB_CMD_HOSTMAP_DEL,
		.doit	= klb_nl_hostmap_del,
		.flags	= GENL_UNS_ADMIN_PERM,
		KLB_OP_POLICY(klb_hostmap_cmd_policy),
	}, {
		.cmd	= KLB_CMD_HOSTMAP_GET,
		.dumpit	= klb_nl_hostmap_dump,
		KLB_OP_POLICY(klb_hostmap_cmd_policy),
	}, {
		.cmd	= KLB_CMD_HOSTMAP_SET,
		.doit	= klb_nl_hostmap_set,
		.flags	= GENL_UNS_ADMIN_PERM,
		KLB_OP_POLICY(klb_hostmap_cmd_policy),
	}, {
		.cmd	= KLB_CMD_RESTORE_BEGIN,
		.doit	= klb_nl_restore_begin,
		.flags	= GENL_UNS_ADMIN_PERM,
		/* takes nothing, as FLUSH */
		KLB_OP_POLICY(klb_flush_cmd_policy),
	}, {
		.cmd	= KLB_CMD_RESTORE_STAGE,
		.doit	= klb_nl_restore_stage_msg,
		.flags	= GENL_UNS_ADMIN_PERM,
		KLB_OP_POLICY(klb_txn_stage_cmd_policy),
	}, {
		.cmd	= KLB_CMD_RESTORE_COMMIT,
		.doit	= klb_nl_restore_commit,
		.flags	= GENL_UNS_ADMIN_PERM,
		KLB_OP_POLICY(klb_txn_commit_cmd_policy),
	}, {
		.cmd	= KLB_CMD_RESTORE_ABORT,
		.doit	= klb_nl_restore_abort,
		.flags	= GENL_UNS_ADMIN_PERM,
		KLB_OP_POLICY(klb_txn_cmd_policy),
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
static struct genl_family klb_genl_family __ro_after_init = {
	.name		= KLB_GENL_NAME,
	.version	= KLB_GENL_VERSION,
	.maxattr	= KLB_A_MAX,
	.netnsok	= true,
	.parallel_ops	= true,
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

	/* Before any transaction can begin: its socket's close ends it. */
	err = klb_txn_module_init();
	if (err)
		return err;
	err = genl_register_family(&klb_genl_family);
	if (err) {
		klb_txn_module_exit();
		return err;
	}
	klb_events_register(&klb_genl_family, KLB_GENL_MCGRP_EVENTS);
	return 0;
}

void klb_genl_exit(void)
{
	/* No event may be sent to group ids that are being given back. */
	klb_events_unregister();
	genl_unregister_family(&klb_genl_family);
	/* What is still open goes with its netns (klb_txn_net_exit()). */
	klb_txn_module_exit();
}
