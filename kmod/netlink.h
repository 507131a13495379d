/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Shared by the netlink files: netlink.c (family, policies, parsing, single
 * object commands), netlink_dump.c (replies and dumps), restore.c.
 */
#ifndef _KLB_NETLINK_H
#define _KLB_NETLINK_H

#include <net/genetlink.h>

#include "config.h"

extern const struct nla_policy klb_pool_policy[KLB_POOL_A_MAX + 1];
extern const struct nla_policy klb_service_policy[KLB_SERVICE_A_MAX + 1];
extern const struct nla_policy klb_config_policy[KLB_CONFIG_A_MAX + 1];

/* netlink.c: parse a validated nest into a checked, unlinked object */
struct klb_pool *klb_nl_pool_build(struct klb_net *kn,
				   struct list_head *pools,
				   const struct nlattr *nest,
				   struct netlink_ext_ack *extack);
int klb_nl_parse_service(const struct nlattr *nest,
			 struct klb_service_cfg *cfg,
			 struct netlink_ext_ack *extack);

/* netlink_dump.c */
int klb_nl_pool_get_one(struct klb_net *kn, struct klb_pool *pool,
			struct genl_info *info);
int klb_nl_pool_dump(struct sk_buff *skb, struct netlink_callback *cb);
int klb_nl_service_get_one(struct klb_net *kn, struct klb_service *svc,
			   struct genl_info *info);
int klb_nl_service_dump(struct sk_buff *skb, struct netlink_callback *cb);
int klb_nl_conn_dump(struct sk_buff *skb, struct netlink_callback *cb);
int klb_nl_rule_dump(struct sk_buff *skb, struct netlink_callback *cb);

/* restore.c */
int klb_nl_flush(struct sk_buff *skb, struct genl_info *info);
int klb_nl_restore(struct sk_buff *skb, struct genl_info *info);

#endif /* _KLB_NETLINK_H */
