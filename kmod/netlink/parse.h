/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Requests into the config layer's structs (parse.c, rules.c): what the
 * policies cannot check is checked here, and each refusal says what was
 * wrong with klb_err(). Nothing here changes any state.
 */
#ifndef _KLB_NETLINK_PARSE_H
#define _KLB_NETLINK_PARSE_H

#include <net/genetlink.h>

#include "config/pool.h"
#include "netlink/attr.h"
#include "config/rule.h"
#include "config/service.h"

int klb_nl_parse_backend(const struct nlattr *nest,
			 struct klb_backend_cfg *cfg,
			 struct netlink_ext_ack *extack);
/*
 * KLB_SERVICE_A_PERSIST and _PERSIST_MASK of @tb, if given, into @timeout
 * and @mask; a mask left at 0 becomes the full address length.
 */
/*
 * ADOPT, on SERVICE_NEW (@adopt preset to the default for @mode and
 * @proto by klb_nl_adopt_default()) or SERVICE_SET: on needs dr or tun
 * over tcp.
 */
int klb_nl_adopt(struct nlattr **tb, u8 mode, u8 proto, bool *adopt,
		 struct netlink_ext_ack *extack);
int klb_nl_persist(struct nlattr **tb, u16 family, u8 mode, u32 *timeout,
		   u8 *mask, struct netlink_ext_ack *extack);
int klb_nl_proxy_protocol(const struct nlattr *attr, u8 mode, u8 *pp,
			  struct netlink_ext_ack *extack);
/*
 * A new pool from a KLB_A_POOL or KLB_CONFIG_A_POOL nest: NAME, [SCHED],
 * [BACKENDS]. Checked against @pools (live or staged; @names: their index
 * by name, or NULL to walk the list), returned unlinked.
 */
struct klb_index;
struct klb_pool *klb_nl_pool_build(struct klb_net *kn,
				   struct list_head *pools,
				   const struct klb_index *names,
				   const struct nlattr *nest,
				   struct netlink_ext_ack *extack);
int klb_nl_parse_service(struct list_head *pools, const struct nlattr *nest,
			 struct klb_service_cfg *cfg,
			 struct netlink_ext_ack *extack);
/* rules.c */
int klb_nl_rule_fill(struct nlattr **tb, const struct nlattr *nest, u8 mode,
		     struct list_head *pools, struct klb_rule_entry *e,
		     struct netlink_ext_ack *extack);
int klb_nl_rules_build(struct list_head *pools,
		       const struct klb_service_cfg *cfg,
		       const struct nlattr *nest, struct klb_rule_set **setp,
		       struct netlink_ext_ack *extack);

#endif /* _KLB_NETLINK_PARSE_H */
