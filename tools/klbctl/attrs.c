// SPDX-License-Identifier: GPL-2.0
/*
 * Names of the klb attributes, mirroring the nesting in <linux/klb.h>.
 * Used to turn the kernel's extack offset into "backend weight" and to
 * print a request for tests (KLBCTL_DUMP_REQUEST).
 */
#include <arpa/inet.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/klb.h>

#include "klbctl.h"
#include "nl.h"

enum atype { T_STR = 1, T_U8, T_U16, T_U32, T_U64, T_ADDR4, T_ADDR6, T_NEST, T_BIN };

struct aspace;

struct adesc {
	const char *name;
	enum atype type;
	const struct aspace *nest;
};

struct aspace {
	const char *noun;	/* what the attributes of this level belong to */
	unsigned int max;
	const struct adesc *a;	/* indexed by attribute type */
};

#define SPACE(noun, arr) { noun, ARRAY_SIZE(arr) - 1, arr }

static const struct adesc backend_attrs[] = {
	[KLB_BACKEND_A_ADDR4] = { "address", T_ADDR4, NULL },
	[KLB_BACKEND_A_ADDR6] = { "address", T_ADDR6, NULL },
	[KLB_BACKEND_A_PORT] = { "port", T_U16, NULL },
	[KLB_BACKEND_A_WEIGHT] = { "weight", T_U32, NULL },
	[KLB_BACKEND_A_STATE] = { "state", T_U8, NULL },
	[KLB_BACKEND_A_STATS] = { "stats", T_NEST, NULL },
	[KLB_BACKEND_A_HEALTH] = { "health", T_U8, NULL },
	[KLB_BACKEND_A_CHECK_OK] = { "check_ok", T_U64, NULL },
	[KLB_BACKEND_A_CHECK_FAIL] = { "check_fail", T_U64, NULL },
	[KLB_BACKEND_A_HEALTH_AGE] = { "health_age", T_U32, NULL },
	[KLB_BACKEND_A_CHECK_ERROR] = { "check_error", T_STR, NULL },
	[KLB_BACKEND_A_EJECTED_MS] = { "ejected", T_U32, NULL },
	[KLB_BACKEND_A_EJECTIONS] = { "ejections", T_U32, NULL },
	[KLB_BACKEND_A_PASSIVE_FAIL] = { "passive_fail", T_U64, NULL },
	[KLB_BACKEND_A_WEIGHT_NOW] = { "weight_now", T_U32, NULL },
	[KLB_BACKEND_A_MAXCONN] = { "maxconn", T_U32, NULL },
};
static const struct aspace backend_space = SPACE("backend", backend_attrs);

static const struct adesc backends_attrs[] = {
	[KLB_POOL_A_BACKEND] = { "backend", T_NEST, &backend_space },
};
static const struct aspace backends_space = SPACE("pool backends", backends_attrs);

static const struct adesc check_attrs[] = {
	[KLB_CHECK_A_KIND] = { "kind", T_U8, NULL },
	[KLB_CHECK_A_PORT] = { "port", T_U16, NULL },
	[KLB_CHECK_A_INTERVAL_MS] = { "interval", T_U32, NULL },
	[KLB_CHECK_A_TIMEOUT_MS] = { "timeout", T_U32, NULL },
	[KLB_CHECK_A_RISE] = { "rise", T_U8, NULL },
	[KLB_CHECK_A_FALL] = { "fall", T_U8, NULL },
	[KLB_CHECK_A_PATH] = { "path", T_STR, NULL },
	[KLB_CHECK_A_HOST] = { "host", T_STR, NULL },
	[KLB_CHECK_A_EXPECT] = { "expect", T_U16, NULL },
	[KLB_CHECK_A_BODY] = { "body", T_STR, NULL },
	[KLB_CHECK_A_SNI] = { "sni", T_STR, NULL },
};
static const struct aspace check_space = SPACE("check", check_attrs);

static const struct adesc pool_attrs[] = {
	[KLB_POOL_A_NAME] = { "name", T_STR, NULL },
	[KLB_POOL_A_SCHED] = { "sched", T_U8, NULL },
	[KLB_POOL_A_BACKEND] = { "backend", T_NEST, &backend_space },
	[KLB_POOL_A_BACKENDS] = { "backends", T_NEST, &backends_space },
	[KLB_POOL_A_CHECK] = { "check", T_NEST, &check_space },
	[KLB_POOL_A_ALL_UNHEALTHY] = { "all-unhealthy", T_U8, NULL },
	[KLB_POOL_A_PASSIVE_FALL] = { "passive-fall", T_U8, NULL },
	[KLB_POOL_A_PASSIVE_EJECT_MS] = { "passive-eject", T_U32, NULL },
	[KLB_POOL_A_PASSIVE_5XX] = { "passive-5xx", T_U8, NULL },
	[KLB_POOL_A_SLOWSTART_MS] = { "slowstart", T_U32, NULL },
	[KLB_POOL_A_HASH] = { "hash", T_U8, NULL },
};
static const struct aspace pool_space = SPACE("pool", pool_attrs);

static const struct adesc rule_attrs[] = {
	[KLB_RULE_A_SERVICE] = { "service", T_STR, NULL },
	[KLB_RULE_A_INDEX] = { "index", T_U32, NULL },
	[KLB_RULE_A_HOST] = { "host", T_STR, NULL },
	[KLB_RULE_A_PATH] = { "path", T_STR, NULL },
	[KLB_RULE_A_HEADER_NAME] = { "header_name", T_STR, NULL },
	[KLB_RULE_A_HEADER_VALUE] = { "header_value", T_STR, NULL },
	[KLB_RULE_A_METHOD] = { "method", T_STR, NULL },
	[KLB_RULE_A_SNI] = { "sni", T_STR, NULL },
	[KLB_RULE_A_POOL] = { "pool", T_STR, NULL },
};
static const struct aspace rule_space = SPACE("rule", rule_attrs);

static const struct adesc rules_attrs[] = {
	[KLB_RULES_A_RULE] = { "rule", T_NEST, &rule_space },
};
static const struct aspace rules_space = SPACE("service rules", rules_attrs);

static const struct adesc snat_attrs[] = {
	[KLB_SNAT_A_ADDR4] = { "address", T_ADDR4, NULL },
	[KLB_SNAT_A_ADDR6] = { "address", T_ADDR6, NULL },
};
static const struct aspace snat_space = SPACE("service snat", snat_attrs);

static const struct adesc acl_attrs[] = {
	[KLB_ACL_A_PREFIX4] = { "prefix4", T_BIN, NULL },
	[KLB_ACL_A_PREFIX6] = { "prefix6", T_BIN, NULL },
};
static const struct aspace acl_space = SPACE("service source list", acl_attrs);

static const struct adesc service_attrs[] = {
	[KLB_SERVICE_A_NAME] = { "name", T_STR, NULL },
	[KLB_SERVICE_A_ADDR4] = { "address", T_ADDR4, NULL },
	[KLB_SERVICE_A_ADDR6] = { "address", T_ADDR6, NULL },
	[KLB_SERVICE_A_PORT] = { "port", T_U16, NULL },
	[KLB_SERVICE_A_PROTO] = { "proto", T_U8, NULL },
	[KLB_SERVICE_A_MODE] = { "mode", T_U8, NULL },
	[KLB_SERVICE_A_POOL] = { "pool", T_STR, NULL },
	[KLB_SERVICE_A_STATS] = { "stats", T_NEST, NULL },
	[KLB_SERVICE_A_PROXY_PROTOCOL] = { "proxy_protocol", T_U8, NULL },
	[KLB_SERVICE_A_RULES] = { "rules", T_NEST, &rules_space },
	[KLB_SERVICE_A_NRULES] = { "nrules", T_U32, NULL },
	[KLB_SERVICE_A_SNAT] = { "snat", T_NEST, &snat_space },
	[KLB_SERVICE_A_PERSIST] = { "persist", T_U32, NULL },
	[KLB_SERVICE_A_PERSIST_MASK] = { "persist mask", T_U8, NULL },
	[KLB_SERVICE_A_ALLOW] = { "allow", T_NEST, &acl_space },
	[KLB_SERVICE_A_DENY] = { "deny", T_NEST, &acl_space },
	[KLB_SERVICE_A_COOKIE] = { "cookie", T_STR, NULL },
	[KLB_SERVICE_A_NHOSTS] = { "nhosts", T_U32, NULL },
	[KLB_SERVICE_A_ADOPT] = { "adopt", T_U8, NULL },
};
static const struct aspace service_space = SPACE("service", service_attrs);

static const struct adesc config_attrs[] = {
	[KLB_CONFIG_A_POOL] = { "pool", T_NEST, &pool_space },
	[KLB_CONFIG_A_SERVICE] = { "service", T_NEST, &service_space },
	/* T_BIN: a dump shows its length only (a secret) */
	[KLB_CONFIG_A_HASH_SEED] = { "hash-seed", T_BIN, NULL },
};
static const struct aspace config_space = SPACE("config", config_attrs);

static const struct adesc event_attrs[] = {
	[KLB_EVENT_A_OBJECT] = { "object", T_U8, NULL },
	[KLB_EVENT_A_ACTION] = { "action", T_U8, NULL },
	[KLB_EVENT_A_TIME] = { "time", T_U64, NULL },
	[KLB_EVENT_A_REASON] = { "reason", T_STR, NULL },
	[KLB_EVENT_A_POOL] = { "pool", T_STR, NULL },
	[KLB_EVENT_A_SERVICE] = { "service", T_STR, NULL },
	[KLB_EVENT_A_SCHED] = { "sched", T_U8, NULL },
	[KLB_EVENT_A_BACKEND] = { "backend", T_NEST, &backend_space },
	[KLB_EVENT_A_POOLS] = { "pools", T_U32, NULL },
	[KLB_EVENT_A_SERVICES] = { "services", T_U32, NULL },
	[KLB_EVENT_A_BACKENDS] = { "backends", T_U32, NULL },
};
static const struct aspace event_space = SPACE("event", event_attrs);

static const struct adesc hostmap_attrs[] = {
	[KLB_HOSTMAP_A_SERVICE] = { "service", T_STR, NULL },
	[KLB_HOSTMAP_A_HOST] = { "host", T_STR, NULL },
	[KLB_HOSTMAP_A_POOL] = { "pool", T_STR, NULL },
};
static const struct aspace hostmap_space = SPACE("hostmap", hostmap_attrs);

static const struct adesc top_attrs[] = {
	[KLB_A_POOL] = { "pool", T_NEST, &pool_space },
	[KLB_A_SERVICE] = { "service", T_NEST, &service_space },
	[KLB_A_CONN] = { "conn", T_NEST, NULL },
	[KLB_A_CONFIG] = { "config", T_NEST, &config_space },
	[KLB_A_RULE] = { "rule", T_NEST, &rule_space },
	[KLB_A_PERSIST] = { "persist", T_NEST, NULL },
	[KLB_A_STATS] = { "stats", T_NEST, NULL },
	[KLB_A_EVENT] = { "event", T_NEST, &event_space },
	[KLB_A_HOSTMAP] = { "hostmap", T_NEST, &hostmap_space },
	[KLB_A_TXN] = { "txn", T_U32, NULL },
};
static const struct aspace top_space = SPACE(NULL, top_attrs);

static const struct adesc *lookup(const struct aspace *sp, uint16_t type)
{
	if (!sp || type > sp->max || !sp->a[type].name)
		return NULL;
	return &sp->a[type];
}

/* Attributes of one level: [start, start + len) of the message at base. */
struct level {
	const char *base;
	const struct nlattr *start;
	int len;
};

static struct level top_level(const struct nlmsghdr *nlh)
{
	struct level l;

	l.base = (const char *)nlh;
	l.start = mnl_nlmsg_get_payload_offset(nlh, sizeof(struct genlmsghdr));
	l.len = (int)((const char *)mnl_nlmsg_get_payload_tail(nlh) -
		      (const char *)l.start);
	return l;
}

/*
 * Find the attribute starting at byte offset off. On success *sp is the
 * level it lives in and *type its type.
 */
static bool find(struct level l, uint32_t off, const struct aspace **sp,
		 uint16_t *type)
{
	const struct nlattr *a;
	int len = l.len;

	for (a = l.start; mnl_attr_ok(a, len);) {
		uint32_t aoff = (uint32_t)((const char *)a - l.base);
		const struct adesc *d = lookup(*sp, mnl_attr_get_type(a));

		if (aoff == off) {
			*type = mnl_attr_get_type(a);
			return true;
		}
		if (off > aoff && off < aoff + a->nla_len && d && d->nest) {
			struct level in = {
				l.base, mnl_attr_get_payload(a),
				(int)mnl_attr_get_payload_len(a)
			};

			*sp = d->nest;
			return find(in, off, sp, type);
		}
		a = mnl_attr_next(a);
		len = l.len - (int)((const char *)a - (const char *)l.start);
	}
	return false;
}

static const char *name_in(const struct aspace *sp, uint16_t type,
			   char *buf, size_t len)
{
	const struct adesc *d = lookup(sp, type);

	if (d && d->type == T_NEST)
		snprintf(buf, len, "%s", d->name);
	else if (d && sp->noun)
		snprintf(buf, len, "%s %s", sp->noun, d->name);
	else if (d)
		snprintf(buf, len, "%s", d->name);
	else if (sp && sp->noun)
		snprintf(buf, len, "%s attribute %u", sp->noun, type);
	else
		snprintf(buf, len, "attribute %u", type);
	return buf;
}

const char *attr_describe(const struct nlmsghdr *req, uint32_t off,
			  char *buf, size_t len)
{
	const struct aspace *sp = &top_space;
	uint16_t type;

	if (!find(top_level(req), off, &sp, &type)) {
		snprintf(buf, len, "at offset %u", off);
		return buf;
	}
	return name_in(sp, type, buf, len);
}

const char *attr_describe_missing(const struct nlmsghdr *req, bool in_nest,
				  uint32_t nest_off, uint32_t type,
				  char *buf, size_t len)
{
	const struct aspace *sp = &top_space;
	uint16_t nest_type;

	if (in_nest) {
		const struct adesc *d;

		if (!find(top_level(req), nest_off, &sp, &nest_type))
			sp = NULL;
		d = lookup(sp, nest_type);
		sp = d ? d->nest : NULL;
	}
	return name_in(sp, (uint16_t)type, buf, len);
}

/* ------------------------------------------- request dump (tests only) */

static const char *const cmd_names[] = {
	[KLB_CMD_POOL_NEW] = "pool_new",
	[KLB_CMD_POOL_SET] = "pool_set",
	[KLB_CMD_POOL_DEL] = "pool_del",
	[KLB_CMD_POOL_GET] = "pool_get",
	[KLB_CMD_BACKEND_NEW] = "backend_new",
	[KLB_CMD_BACKEND_SET] = "backend_set",
	[KLB_CMD_BACKEND_DEL] = "backend_del",
	[KLB_CMD_SERVICE_NEW] = "service_new",
	[KLB_CMD_SERVICE_SET] = "service_set",
	[KLB_CMD_SERVICE_DEL] = "service_del",
	[KLB_CMD_SERVICE_GET] = "service_get",
	[KLB_CMD_CONN_GET] = "conn_get",
	[KLB_CMD_FLUSH] = "flush",
	[KLB_CMD_RESTORE] = "restore",
	[KLB_CMD_RULE_NEW] = "rule_new",
	[KLB_CMD_RULE_DEL] = "rule_del",
	[KLB_CMD_RULE_GET] = "rule_get",
	[KLB_CMD_PERSIST_GET] = "persist_get",
	[KLB_CMD_STATS_GET] = "stats_get",
	[KLB_CMD_ZERO] = "zero",
	[KLB_CMD_EVENT] = "event",
	[KLB_CMD_HOSTMAP_NEW] = "hostmap_new",
	[KLB_CMD_HOSTMAP_DEL] = "hostmap_del",
	[KLB_CMD_HOSTMAP_GET] = "hostmap_get",
	[KLB_CMD_HOSTMAP_SET] = "hostmap_set",
	[KLB_CMD_RESTORE_BEGIN] = "restore_begin",
	[KLB_CMD_RESTORE_STAGE] = "restore_stage",
	[KLB_CMD_RESTORE_COMMIT] = "restore_commit",
	[KLB_CMD_RESTORE_ABORT] = "restore_abort",
};

static void dump_level(FILE *f, struct level l, const struct aspace *sp,
		       int indent)
{
	const struct nlattr *a;
	int len = l.len;

	for (a = l.start; mnl_attr_ok(a, len);) {
		uint16_t type = mnl_attr_get_type(a);
		const struct adesc *d = lookup(sp, type);
		char ip[INET6_ADDRSTRLEN];
		const void *p = mnl_attr_get_payload(a);
		uint16_t plen = mnl_attr_get_payload_len(a);

		fprintf(f, "%*s", indent * 2, "");
		if (!d) {
			fprintf(f, "attr%u len %u\n", type, plen);
		} else if (d->type == T_NEST) {
			struct level in = { l.base, p, plen };

			fprintf(f, "%s {\n", d->name);
			dump_level(f, in, d->nest, indent + 1);
			fprintf(f, "%*s}\n", indent * 2, "");
		} else if (d->type == T_STR) {
			fprintf(f, "%s \"%.*s\"\n", d->name, (int)plen, (const char *)p);
		} else if (d->type == T_U8 && plen == 1) {
			fprintf(f, "%s %u\n", d->name, mnl_attr_get_u8(a));
		} else if (d->type == T_U16 && plen == 2) {
			fprintf(f, "%s %u\n", d->name, mnl_attr_get_u16(a));
		} else if (d->type == T_U32 && plen == 4) {
			fprintf(f, "%s %u\n", d->name, mnl_attr_get_u32(a));
		} else if (d->type == T_ADDR4 && plen == 4) {
			fprintf(f, "%s4 %s\n", d->name, inet_ntop(AF_INET, p, ip, sizeof(ip)));
		} else if (d->type == T_ADDR6 && plen == 16) {
			fprintf(f, "%s6 %s\n", d->name, inet_ntop(AF_INET6, p, ip, sizeof(ip)));
		} else {
			fprintf(f, "%s len %u\n", d->name, plen);
		}
		a = mnl_attr_next(a);
		len = l.len - (int)((const char *)a - (const char *)l.start);
	}
}

void attr_dump_request(const struct nlmsghdr *req, FILE *f)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(req);
	const char *cmd = genl->cmd < ARRAY_SIZE(cmd_names) && cmd_names[genl->cmd] ?
			  cmd_names[genl->cmd] : "?";

	fprintf(f, "request %s%s len %u\n", cmd,
		req->nlmsg_flags & NLM_F_DUMP ? " dump" : "", req->nlmsg_len);
	dump_level(f, top_level(req), &top_space, 1);
}
