/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The handlers of the klb family's commands (cmd_*.c, dump.c), for the ops
 * table in family.c.
 *
 * Every doit runs with its namespace's kn->lock held: the family's
 * pre_doit takes it and post_doit drops it, so a handler only parses,
 * looks up, changes and, on success, bumps the generation. Dumps take the
 * lock per callback themselves.
 */
#ifndef _KLB_NETLINK_CMDS_H
#define _KLB_NETLINK_CMDS_H

#include <net/genetlink.h>

#include "klb.h"

/* The namespace of a doit request, whose lock pre_doit took. */
static inline struct klb_net *klb_nl_net(struct genl_info *info)
{
	struct klb_net *kn = info->user_ptr[0];

	klb_assert_locked(kn);
	return kn;
}

/* cmd_pool.c */
int klb_nl_pool_new(struct sk_buff *skb, struct genl_info *info);
int klb_nl_pool_set(struct sk_buff *skb, struct genl_info *info);
int klb_nl_pool_del(struct sk_buff *skb, struct genl_info *info);
int klb_nl_pool_get(struct sk_buff *skb, struct genl_info *info);
int klb_nl_backend_new(struct sk_buff *skb, struct genl_info *info);
int klb_nl_backend_set(struct sk_buff *skb, struct genl_info *info);
int klb_nl_backend_del(struct sk_buff *skb, struct genl_info *info);

/* cmd_service.c */
int klb_nl_service_new(struct sk_buff *skb, struct genl_info *info);
int klb_nl_service_set(struct sk_buff *skb, struct genl_info *info);
int klb_nl_service_del(struct sk_buff *skb, struct genl_info *info);
int klb_nl_service_get(struct sk_buff *skb, struct genl_info *info);

/* cmd_rule.c */
int klb_nl_rule_new(struct sk_buff *skb, struct genl_info *info);
int klb_nl_rule_del(struct sk_buff *skb, struct genl_info *info);

/* cmd_hostmap.c */
int klb_nl_hostmap_new(struct sk_buff *skb, struct genl_info *info);
int klb_nl_hostmap_del(struct sk_buff *skb, struct genl_info *info);
int klb_nl_hostmap_set(struct sk_buff *skb, struct genl_info *info);
/* dump_hostmap.c */
int klb_nl_hostmap_dump(struct sk_buff *skb, struct netlink_callback *cb);

/* cmd_config.c */
int klb_nl_flush(struct sk_buff *skb, struct genl_info *info);
int klb_nl_restore(struct sk_buff *skb, struct genl_info *info);
/*
 * Parse a config nest into @st: its pools first, then its services, which
 * may name any pool of @st. On error extack names the object at fault and
 * @st holds what was staged before it.
 */
struct klb_staged;
int klb_nl_restore_stage(struct klb_net *kn, const struct nlattr *config,
			 struct klb_staged *st, struct netlink_ext_ack *extack);
/* Tell the events group the configuration was restored. */
void klb_nl_restored(struct klb_net *kn);

/* cmd_txn.c: restore transactions */
int klb_nl_restore_begin(struct sk_buff *skb, struct genl_info *info);
int klb_nl_restore_stage_msg(struct sk_buff *skb, struct genl_info *info);
int klb_nl_restore_commit(struct sk_buff *skb, struct genl_info *info);
int klb_nl_restore_abort(struct sk_buff *skb, struct genl_info *info);

/* cmd_stats.c */
int klb_nl_stats_get(struct sk_buff *skb, struct genl_info *info);
int klb_nl_zero(struct sk_buff *skb, struct genl_info *info);

/* dump.c: replies to GET and the dumps */
int klb_nl_pool_get_one(struct klb_net *kn, struct klb_pool *pool,
			struct genl_info *info);
int klb_nl_pool_dump(struct sk_buff *skb, struct netlink_callback *cb);
int klb_nl_service_get_one(struct klb_net *kn, struct klb_service *svc,
			   struct genl_info *info);
int klb_nl_service_dump(struct sk_buff *skb, struct netlink_callback *cb);
int klb_nl_conn_dump(struct sk_buff *skb, struct netlink_callback *cb);
int klb_nl_rule_dump(struct sk_buff *skb, struct netlink_callback *cb);
/* dump_persist.c */
int klb_nl_persist_dump(struct sk_buff *skb, struct netlink_callback *cb);

#endif /* _KLB_NETLINK_CMDS_H */
