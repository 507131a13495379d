/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Attribute policies of the klb family (policy.c): one per nesting level,
 * and one top-level policy per command, which admits only the nest that
 * command takes. Documentation/netlink/klb.yaml says the same thing;
 * tools/spec_check.py checks that the two agree.
 */
#ifndef _KLB_NETLINK_POLICY_H
#define _KLB_NETLINK_POLICY_H

#include <net/netlink.h>
#include <uapi/linux/klb.h>

/* Nested levels, for nla_parse_nested() in the command handlers. */
extern const struct nla_policy klb_backend_policy[KLB_BACKEND_A_MAX + 1];
extern const struct nla_policy klb_pool_policy[KLB_POOL_A_MAX + 1];
extern const struct nla_policy klb_check_policy[KLB_CHECK_A_MAX + 1];
extern const struct nla_policy klb_rule_policy[KLB_RULE_A_MAX + 1];
extern const struct nla_policy klb_hostmap_policy[KLB_HOSTMAP_A_MAX + 1];
extern const struct nla_policy klb_service_policy[KLB_SERVICE_A_MAX + 1];

/* Top level, per command (the ops table in family.c). */
extern const struct nla_policy klb_pool_cmd_policy[KLB_A_MAX + 1];
extern const struct nla_policy klb_service_cmd_policy[KLB_A_MAX + 1];
extern const struct nla_policy klb_rule_cmd_policy[KLB_A_MAX + 1];
extern const struct nla_policy klb_hostmap_cmd_policy[KLB_A_MAX + 1];
extern const struct nla_policy klb_restore_cmd_policy[KLB_A_MAX + 1];
extern const struct nla_policy klb_txn_stage_cmd_policy[KLB_A_MAX + 1];
extern const struct nla_policy klb_txn_cmd_policy[KLB_A_MAX + 1];
extern const struct nla_policy klb_txn_commit_cmd_policy[KLB_A_MAX + 1];
extern const struct nla_policy klb_conn_cmd_policy[KLB_A_MAX + 1];
extern const struct nla_policy klb_persist_cmd_policy[KLB_A_MAX + 1];
extern const struct nla_policy klb_flush_cmd_policy[KLB_A_MAX + 1];
extern const struct nla_policy klb_zero_cmd_policy[KLB_A_MAX + 1];

/*
 * Rule strings: the lengths of the uapi (host and sni are DNS names of at
 * most 253 characters), which fit the buffers of struct klb_rule.
 */
#define KLB_RULE_NAME_LEN	253

#endif /* _KLB_NETLINK_POLICY_H */
