// SPDX-License-Identifier: GPL-2.0
/*
 * Attribute policies of the klb family. The core validates against them
 * strictly before a handler runs: types, exact address lengths, string
 * caps and value ranges; unknown attributes, attributes a command does
 * not take and output-only ones are refused, with an extack message that
 * points at the attribute (and, for a range, says the range). What a
 * policy cannot express (the characters of a name, unicast addresses,
 * combinations of attributes) is checked in parse.c.
 */
#include <linux/in.h>
#include <linux/in6.h>

#include "netlink/policy.h"
#include "l7/parse/rule_match.h"

/*
 * 0..KLB_WEIGHT_MAX does not fit the policy's 16-bit inline bounds. (Not
 * const: before 6.2 the policy points at a mutable range.)
 */
static struct netlink_range_validation klb_weight_range __ro_after_init = {
	.max = KLB_WEIGHT_MAX,
};

static struct netlink_range_validation klb_maxconn_range __ro_after_init = {
	.max = KLB_MAXCONN_MAX,
};

/*
 * Stats in a request (service and backend): refused with klb's message.
 * A stats nest carries NLA_F_NESTED, as every nest must, and the core
 * checks that flag before it looks at the type: a stats entry of type
 * NLA_REJECT would answer "NLA_F_NESTED not expected", never its
 * reject_message. So stats is a nest here, whose every attribute (L7's
 * inside too) is an NLA_REJECT with the message. An empty stats nest
 * holds no figure and passes; nothing reads it.
 */
#define KLB_BACKEND_STATS_OUT	"backend stats are output only"
#define KLB_SERVICE_STATS_OUT	"service stats are output only"

static const struct nla_policy klb_backend_l7_stats_out_policy[KLB_L7_STATS_A_MAX + 1] = {
	[KLB_L7_STATS_A_PAD ... KLB_L7_STATS_A_MAX] = {
		.type = NLA_REJECT, .reject_message = KLB_BACKEND_STATS_OUT },
};

static const struct nla_policy klb_backend_stats_out_policy[KLB_STATS_A_MAX + 1] = {
	[KLB_STATS_A_PAD ... KLB_STATS_A_L7 - 1] = {
		.type = NLA_REJECT, .reject_message = KLB_BACKEND_STATS_OUT },
	[KLB_STATS_A_L7] = NLA_POLICY_NESTED(klb_backend_l7_stats_out_policy),
	[KLB_STATS_A_L7 + 1 ... KLB_STATS_A_MAX] = {
		.type = NLA_REJECT, .reject_message = KLB_BACKEND_STATS_OUT },
};

static const struct nla_policy klb_service_l7_stats_out_policy[KLB_L7_STATS_A_MAX + 1] = {
	[KLB_L7_STATS_A_PAD ... KLB_L7_STATS_A_MAX] = {
		.type = NLA_REJECT, .reject_message = KLB_SERVICE_STATS_OUT },
};

static const struct nla_policy klb_service_stats_out_policy[KLB_STATS_A_MAX + 1] = {
	[KLB_STATS_A_PAD ... KLB_STATS_A_L7 - 1] = {
		.type = NLA_REJECT, .reject_message = KLB_SERVICE_STATS_OUT },
	[KLB_STATS_A_L7] = NLA_POLICY_NESTED(klb_service_l7_stats_out_policy),
	[KLB_STATS_A_L7 + 1 ... KLB_STATS_A_MAX] = {
		.type = NLA_REJECT, .reject_message = KLB_SERVICE_STATS_OUT },
};

const struct nla_policy klb_backend_policy[KLB_BACKEND_A_MAX + 1] = {
	[KLB_BACKEND_A_ADDR4]	= NLA_POLICY_EXACT_LEN(sizeof(struct in_addr)),
	[KLB_BACKEND_A_ADDR6]	= NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
	[KLB_BACKEND_A_PORT]	= NLA_POLICY_MIN(NLA_U16, 1),
	[KLB_BACKEND_A_WEIGHT]	= NLA_POLICY_FULL_RANGE(NLA_U32, &klb_weight_range),
	[KLB_BACKEND_A_STATE]	= NLA_POLICY_MAX(NLA_U8, KLB_BACKEND_STATE_MAX),
	[KLB_BACKEND_A_STATS]	= NLA_POLICY_NESTED(klb_backend_stats_out_policy),
	[KLB_BACKEND_A_HEALTH]	= { .type = NLA_REJECT,
				    .reject_message = "backend health is output only" },
	[KLB_BACKEND_A_CHECK_OK] = { .type = NLA_REJECT,
				    .reject_message = "check counters are output only" },
	[KLB_BACKEND_A_CHECK_FAIL] = { .type = NLA_REJECT,
				    .reject_message = "check counters are output only" },
	[KLB_BACKEND_A_HEALTH_AGE] = { .type = NLA_REJECT,
				    .reject_message = "backend health is output only" },
	[KLB_BACKEND_A_CHECK_ERROR] = { .type = NLA_REJECT,
				    .reject_message = "check error is output only" },
	[KLB_BACKEND_A_EJECTED_MS] = { .type = NLA_REJECT,
				   .reject_message = "passive health figures are output only" },
	[KLB_BACKEND_A_EJECTIONS] = { .type = NLA_REJECT,
				  .reject_message = "passive health figures are output only" },
	[KLB_BACKEND_A_PASSIVE_FAIL] = { .type = NLA_REJECT,
				     .reject_message = "passive health figures are output only" },
	[KLB_BACKEND_A_MAXCONN]	= NLA_POLICY_FULL_RANGE(NLA_U32, &klb_maxconn_range),
	[KLB_BACKEND_A_WEIGHT_NOW] = { .type = NLA_REJECT,
				   .reject_message = "the slow start weight is output only" },
};

static struct netlink_range_validation klb_check_interval_range __ro_after_init = {
	.min = KLB_CHECK_INTERVAL_MIN_MS,
	.max = KLB_CHECK_INTERVAL_MAX_MS,
};

static struct netlink_range_validation klb_check_timeout_range __ro_after_init = {
	.min = KLB_CHECK_TIMEOUT_MIN_MS,
	.max = KLB_CHECK_INTERVAL_MAX_MS,
};

static struct netlink_range_validation klb_passive_eject_range __ro_after_init = {
	.min = KLB_PASSIVE_EJECT_MIN_MS,
	.max = KLB_PASSIVE_EJECT_MAX_MS,
};

static struct netlink_range_validation klb_slowstart_range __ro_after_init = {
	.min = 0,
	.max = KLB_SLOWSTART_MAX_MS,
};

/* What a policy cannot say (timeout <= interval, kinds) is in check.c. */
const struct nla_policy klb_check_policy[KLB_CHECK_A_MAX + 1] = {
	[KLB_CHECK_A_KIND]	= NLA_POLICY_MAX(NLA_U8, KLB_CHECK_KIND_MAX),
	[KLB_CHECK_A_PORT]	= NLA_POLICY_MIN(NLA_U16, 1),
	[KLB_CHECK_A_INTERVAL_MS] = NLA_POLICY_FULL_RANGE(NLA_U32,
						&klb_check_interval_range),
	[KLB_CHECK_A_TIMEOUT_MS] = NLA_POLICY_FULL_RANGE(NLA_U32,
						&klb_check_timeout_range),
	[KLB_CHECK_A_RISE]	= NLA_POLICY_RANGE(NLA_U8, 1, KLB_CHECK_RISE_FALL_MAX),
	[KLB_CHECK_A_FALL]	= NLA_POLICY_RANGE(NLA_U8, 1, KLB_CHECK_RISE_FALL_MAX),
	[KLB_CHECK_A_PATH]	= { .type = NLA_NUL_STRING, .len = KLB_CHECK_PATH_MAX - 1 },
	[KLB_CHECK_A_HOST]	= { .type = NLA_NUL_STRING, .len = KLB_CHECK_HOST_MAX - 1 },
	[KLB_CHECK_A_EXPECT]	= NLA_POLICY_RANGE(NLA_U16, 1, 599),
	[KLB_CHECK_A_BODY]	= { .type = NLA_NUL_STRING, .len = KLB_CHECK_BODY_MAX - 1 },
	[KLB_CHECK_A_SNI]	= { .type = NLA_NUL_STRING, .len = KLB_CHECK_HOST_MAX - 1 },
};

/* KLB_POOL_A_BACKENDS: a list of KLB_POOL_A_BACKEND nests. */
static const struct nla_policy klb_backends_policy[KLB_POOL_A_BACKEND + 1] = {
	[KLB_POOL_A_BACKEND]	= NLA_POLICY_NESTED(klb_backend_policy),
};

const struct nla_policy klb_pool_policy[KLB_POOL_A_MAX + 1] = {
	[KLB_POOL_A_NAME]	= { .type = NLA_NUL_STRING, .len = KLB_NAME_MAX - 1 },
	[KLB_POOL_A_SCHED]	= NLA_POLICY_MAX(NLA_U8, KLB_SCHED_MAX),
	[KLB_POOL_A_BACKEND]	= NLA_POLICY_NESTED(klb_backend_policy),
	[KLB_POOL_A_BACKENDS]	= NLA_POLICY_NESTED(klb_backends_policy),
	[KLB_POOL_A_CHECK]	= NLA_POLICY_NESTED(klb_check_policy),
	[KLB_POOL_A_ALL_UNHEALTHY] = NLA_POLICY_MAX(NLA_U8, KLB_ALL_UNHEALTHY_MAX),
	[KLB_POOL_A_PASSIVE_FALL] = NLA_POLICY_MAX(NLA_U8, KLB_CHECK_RISE_FALL_MAX),
	[KLB_POOL_A_PASSIVE_EJECT_MS] = NLA_POLICY_FULL_RANGE(NLA_U32,
						&klb_passive_eject_range),
	[KLB_POOL_A_PASSIVE_5XX] = NLA_POLICY_MAX(NLA_U8, 1),
	[KLB_POOL_A_SLOWSTART_MS] = NLA_POLICY_FULL_RANGE(NLA_U32,
						&klb_slowstart_range),
	[KLB_POOL_A_HASH] = NLA_POLICY_MAX(NLA_U8, KLB_HASH_MAX),
};

const struct nla_policy klb_rule_policy[KLB_RULE_A_MAX + 1] = {
	[KLB_RULE_A_SERVICE]	= { .type = NLA_NUL_STRING, .len = KLB_NAME_MAX - 1 },
	[KLB_RULE_A_INDEX]	= { .type = NLA_U32 },
	[KLB_RULE_A_HOST]	= { .type = NLA_NUL_STRING, .len = KLB_RULE_NAME_LEN },
	[KLB_RULE_A_PATH]	= { .type = NLA_NUL_STRING, .len = KLB_RULE_PATH_MAX - 1 },
	[KLB_RULE_A_HEADER_NAME] = { .type = NLA_NUL_STRING, .len = KLB_RULE_HNAME_MAX - 1 },
	[KLB_RULE_A_HEADER_VALUE] = { .type = NLA_NUL_STRING, .len = KLB_RULE_HVALUE_MAX - 1 },
	[KLB_RULE_A_METHOD]	= { .type = NLA_NUL_STRING, .len = KLB_RULE_METHOD_MAX - 1 },
	[KLB_RULE_A_SNI]	= { .type = NLA_NUL_STRING, .len = KLB_RULE_NAME_LEN },
	[KLB_RULE_A_POOL]	= { .type = NLA_NUL_STRING, .len = KLB_NAME_MAX - 1 },
};

/* KLB_SERVICE_A_RULES: a list of KLB_RULES_A_RULE nests, in order. */
static const struct nla_policy klb_rules_policy[KLB_RULES_A_MAX + 1] = {
	[KLB_RULES_A_RULE]	= NLA_POLICY_NESTED(klb_rule_policy),
};

/* KLB_SERVICE_A_SNAT: source addresses of an fnat service, repeated. */
static const struct nla_policy klb_snat_policy[KLB_SNAT_A_MAX + 1] = {
	[KLB_SNAT_A_ADDR4]	= NLA_POLICY_EXACT_LEN(sizeof(struct in_addr)),
	[KLB_SNAT_A_ADDR6]	= NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
};

static struct netlink_range_validation klb_persist_range __ro_after_init = {
	.max = KLB_PERSIST_TIMEOUT_MAX,
};

/* A prefix: the address, then its length (checked by netlink/acl.c). */
static const struct nla_policy klb_acl_policy[KLB_ACL_A_MAX + 1] = {
	[KLB_ACL_A_PREFIX4]	= NLA_POLICY_EXACT_LEN(sizeof(struct in_addr) + 1),
	[KLB_ACL_A_PREFIX6]	= NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr) + 1),
};

const struct nla_policy klb_service_policy[KLB_SERVICE_A_MAX + 1] = {
	[KLB_SERVICE_A_NAME]	= { .type = NLA_NUL_STRING, .len = KLB_NAME_MAX - 1 },
	[KLB_SERVICE_A_ADDR4]	= NLA_POLICY_EXACT_LEN(sizeof(struct in_addr)),
	[KLB_SERVICE_A_ADDR6]	= NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
	[KLB_SERVICE_A_PORT]	= NLA_POLICY_MIN(NLA_U16, 1),
	[KLB_SERVICE_A_PROTO]	= { .type = NLA_U8 },
	[KLB_SERVICE_A_MODE]	= NLA_POLICY_MAX(NLA_U8, KLB_MODE_MAX),
	[KLB_SERVICE_A_POOL]	= { .type = NLA_NUL_STRING, .len = KLB_NAME_MAX - 1 },
	[KLB_SERVICE_A_STATS]	= NLA_POLICY_NESTED(klb_service_stats_out_policy),
	[KLB_SERVICE_A_PROXY_PROTOCOL] = NLA_POLICY_MAX(NLA_U8, 2),
	[KLB_SERVICE_A_RULES]	= NLA_POLICY_NESTED(klb_rules_policy),
	[KLB_SERVICE_A_NRULES]	= { .type = NLA_REJECT,
				    .reject_message = "service nrules is output only" },
	[KLB_SERVICE_A_SNAT]	= NLA_POLICY_NESTED(klb_snat_policy),
	[KLB_SERVICE_A_PERSIST]	= NLA_POLICY_FULL_RANGE(NLA_U32, &klb_persist_range),
	[KLB_SERVICE_A_PERSIST_MASK] = NLA_POLICY_MAX(NLA_U8, 128),
	[KLB_SERVICE_A_COOKIE]	= { .type = NLA_NUL_STRING, .len = KLB_COOKIE_NAME_MAX - 1 },
	[KLB_SERVICE_A_ALLOW]	= NLA_POLICY_NESTED(klb_acl_policy),
	[KLB_SERVICE_A_DENY]	= NLA_POLICY_NESTED(klb_acl_policy),
	[KLB_SERVICE_A_NHOSTS]	= { .type = NLA_REJECT,
				    .reject_message = "service nhosts is output only" },
	[KLB_SERVICE_A_ADOPT]	= NLA_POLICY_MAX(NLA_U8, 1),
};

static const struct nla_policy klb_config_policy[KLB_CONFIG_A_MAX + 1] = {
	[KLB_CONFIG_A_POOL]	= NLA_POLICY_NESTED(klb_pool_policy),
	[KLB_CONFIG_A_SERVICE]	= NLA_POLICY_NESTED(klb_service_policy),
	[KLB_CONFIG_A_HASH_SEED] = NLA_POLICY_EXACT_LEN(KLB_HASH_SEED_LEN),
};

/* POOL_* and BACKEND_* take a pool nest (with a backend nest inside). */
const struct nla_policy klb_pool_cmd_policy[KLB_A_MAX + 1] = {
	[KLB_A_POOL]		= NLA_POLICY_NESTED(klb_pool_policy),
};

const struct nla_policy klb_service_cmd_policy[KLB_A_MAX + 1] = {
	[KLB_A_SERVICE]		= NLA_POLICY_NESTED(klb_service_policy),
};

const struct nla_policy klb_rule_cmd_policy[KLB_A_MAX + 1] = {
	[KLB_A_RULE]		= NLA_POLICY_NESTED(klb_rule_policy),
};

/* The host map's names: as long as a DNS name, and one trailing dot. */
const struct nla_policy klb_hostmap_policy[KLB_HOSTMAP_A_MAX + 1] = {
	[KLB_HOSTMAP_A_SERVICE]	= { .type = NLA_NUL_STRING, .len = KLB_NAME_MAX - 1 },
	[KLB_HOSTMAP_A_HOST]	= { .type = NLA_NUL_STRING,
				    .len = KLB_HOSTMAP_NAME_LEN + 1 },
	[KLB_HOSTMAP_A_POOL]	= { .type = NLA_NUL_STRING, .len = KLB_NAME_MAX - 1 },
};

/* HOSTMAP_*: the nest, repeated at the top level by SET. */
const struct nla_policy klb_hostmap_cmd_policy[KLB_A_MAX + 1] = {
	[KLB_A_HOSTMAP]		= NLA_POLICY_NESTED(klb_hostmap_policy),
};

/* RESTORE: the config, then its services' host maps (cmd_hostmap.c). */
const struct nla_policy klb_restore_cmd_policy[KLB_A_MAX + 1] = {
	[KLB_A_CONFIG]		= NLA_POLICY_NESTED(klb_config_policy),
	[KLB_A_HOSTMAP]		= NLA_POLICY_NESTED(klb_hostmap_policy),
};

/* RESTORE_STAGE: a transaction and a part of its config. */
const struct nla_policy klb_txn_stage_cmd_policy[KLB_A_MAX + 1] = {
	[KLB_A_TXN]		= NLA_POLICY_MIN(NLA_U32, 1),
	[KLB_A_CONFIG]		= NLA_POLICY_NESTED(klb_config_policy),
};

/* RESTORE_ABORT: the transaction only. */
const struct nla_policy klb_txn_cmd_policy[KLB_A_MAX + 1] = {
	[KLB_A_TXN]		= NLA_POLICY_MIN(NLA_U32, 1),
};

/* RESTORE_COMMIT: the transaction, and the host maps of its services. */
const struct nla_policy klb_txn_commit_cmd_policy[KLB_A_MAX + 1] = {
	[KLB_A_TXN]		= NLA_POLICY_MIN(NLA_U32, 1),
	[KLB_A_HOSTMAP]		= NLA_POLICY_NESTED(klb_hostmap_policy),
};

/* CONN_GET may name the service whose connections to dump. */
const struct nla_policy klb_conn_cmd_policy[KLB_A_MAX + 1] = {
	[KLB_A_SERVICE]		= NLA_POLICY_NESTED(klb_service_policy),
};

/* PERSIST_GET, like CONN_GET, may name a service. */
const struct nla_policy klb_persist_cmd_policy[KLB_A_MAX + 1] = {
	[KLB_A_SERVICE]		= NLA_POLICY_NESTED(klb_service_policy),
};

/* FLUSH takes nothing: every top-level attribute is refused. */
const struct nla_policy klb_flush_cmd_policy[KLB_A_MAX + 1] = {
};

/* ZERO may name a service or a pool (the handler takes only the name). */
const struct nla_policy klb_zero_cmd_policy[KLB_A_MAX + 1] = {
	[KLB_A_POOL]		= NLA_POLICY_NESTED(klb_pool_policy),
	[KLB_A_SERVICE]		= NLA_POLICY_NESTED(klb_service_policy),
};
