// SPDX-License-Identifier: GPL-2.0
/*
 * The "klb" generic netlink family: policies, request parsing and the
 * commands on single objects (rules included). Replies and dumps are in
 * netlink_dump.c, FLUSH and RESTORE in restore.c.
 *
 * The core validates types and lengths against one policy per nesting
 * level (strictly: unknown attributes and output-only ones are refused);
 * value ranges are checked here, so that each refusal says what was wrong.
 * Operations are serialised by the genetlink mutex (no parallel_ops) and
 * every one of them takes klb_net->lock, which the datapath never does.
 */
#include <linux/ctype.h>
#include <linux/in.h>
#include <net/ipv6.h>

#include "netlink.h"

/* ---- extack messages with arguments ------------------------------------ */

#ifdef KLB_EXTACK_MSG_BUF
#define KLB_MSG_LEN	NETLINK_MAX_FMTMSG_LEN
#else
/*
 * The kernel has nowhere to keep a formatted message: extack only points
 * at one, and reads it when the ack is built, after the operation returned
 * and dropped the genetlink mutex. Keep messages in a ring written under
 * that mutex; another operation would have to fail this many times in
 * between for a message to be overwritten before it is sent.
 */
#define KLB_MSG_LEN	96
#define KLB_MSG_RING	32
static char klb_msg_ring[KLB_MSG_RING][KLB_MSG_LEN];
static unsigned int klb_msg_next;
#endif

static __printf(2, 0)
void klb_err_set(struct netlink_ext_ack *extack, const char *fmt, va_list ap)
{
	char *buf;

#ifdef KLB_EXTACK_MSG_BUF
	buf = extack->_msg_buf;
#else
	buf = klb_msg_ring[klb_msg_next++ % KLB_MSG_RING];
#endif
	vsnprintf(buf, KLB_MSG_LEN, fmt, ap);
	do_trace_netlink_extack(buf);
	extack->_msg = buf;
}

void klb_err(struct netlink_ext_ack *extack, const struct nlattr *attr,
	     const char *fmt, ...)
{
	va_list ap;

	if (!extack)
		return;
	va_start(ap, fmt);
	klb_err_set(extack, fmt, ap);
	va_end(ap);
	extack->bad_attr = attr;
}

static __printf(2, 3)
void klb_err_fmt(struct netlink_ext_ack *extack, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	klb_err_set(extack, fmt, ap);
	va_end(ap);
}

void klb_err_prefix(struct netlink_ext_ack *extack, const char *fmt, ...)
{
	char msg[KLB_MSG_LEN], prefix[KLB_MSG_LEN];
	va_list ap;

	if (!extack || !extack->_msg)
		return;
	strscpy(msg, extack->_msg, sizeof(msg));
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	klb_err_fmt(extack, "%s%s", prefix, msg);
}

/* ---- policies ------------------------------------------------------------ */

static const struct nla_policy klb_backend_policy[KLB_BACKEND_A_MAX + 1] = {
	[KLB_BACKEND_A_ADDR4]	= NLA_POLICY_EXACT_LEN(sizeof(struct in_addr)),
	[KLB_BACKEND_A_ADDR6]	= NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
	[KLB_BACKEND_A_PORT]	= { .type = NLA_U16 },
	[KLB_BACKEND_A_WEIGHT]	= { .type = NLA_U32 },
	[KLB_BACKEND_A_STATE]	= { .type = NLA_U8 },
	[KLB_BACKEND_A_STATS]	= { .type = NLA_REJECT,
				    .reject_message = "backend stats are output only" },
};

/* KLB_POOL_A_BACKENDS: a list of KLB_POOL_A_BACKEND nests. */
static const struct nla_policy klb_backends_policy[KLB_POOL_A_BACKEND + 1] = {
	[KLB_POOL_A_BACKEND]	= NLA_POLICY_NESTED(klb_backend_policy),
};

/*
 * Names are checked in klb_nl_name(), not by a length in the policy, so
 * that an over-long name is refused with a message saying so.
 */
const struct nla_policy klb_pool_policy[KLB_POOL_A_MAX + 1] = {
	[KLB_POOL_A_NAME]	= { .type = NLA_NUL_STRING },
	[KLB_POOL_A_SCHED]	= { .type = NLA_U8 },
	[KLB_POOL_A_BACKEND]	= NLA_POLICY_NESTED(klb_backend_policy),
	[KLB_POOL_A_BACKENDS]	= NLA_POLICY_NESTED(klb_backends_policy),
};

/*
 * Rule strings: the lengths of the uapi (host and sni are DNS names of at
 * most 253 characters), which fit the buffers of struct klb_rule. Only
 * their content is checked in code, by klb_rule_prepare().
 */
#define KLB_RULE_NAME_LEN	253

static const struct nla_policy klb_rule_policy[KLB_RULE_A_MAX + 1] = {
	[KLB_RULE_A_SERVICE]	= { .type = NLA_NUL_STRING },
	[KLB_RULE_A_INDEX]	= { .type = NLA_U32 },
	[KLB_RULE_A_HOST]	= { .type = NLA_NUL_STRING,
				    .len = KLB_RULE_NAME_LEN },
	[KLB_RULE_A_PATH]	= { .type = NLA_NUL_STRING,
				    .len = KLB_RULE_PATH_MAX - 1 },
	[KLB_RULE_A_HEADER_NAME] = { .type = NLA_NUL_STRING,
				     .len = KLB_RULE_HNAME_MAX - 1 },
	[KLB_RULE_A_HEADER_VALUE] = { .type = NLA_NUL_STRING,
				      .len = KLB_RULE_HVALUE_MAX - 1 },
	[KLB_RULE_A_METHOD]	= { .type = NLA_NUL_STRING,
				    .len = KLB_RULE_METHOD_MAX - 1 },
	[KLB_RULE_A_SNI]	= { .type = NLA_NUL_STRING,
				    .len = KLB_RULE_NAME_LEN },
	[KLB_RULE_A_POOL]	= { .type = NLA_NUL_STRING },
};

/* KLB_SERVICE_A_RULES: a list of KLB_RULES_A_RULE nests, in order. */
static const struct nla_policy klb_rules_policy[KLB_RULES_A_MAX + 1] = {
	[KLB_RULES_A_RULE]	= NLA_POLICY_NESTED(klb_rule_policy),
};

const struct nla_policy klb_service_policy[KLB_SERVICE_A_MAX + 1] = {
	[KLB_SERVICE_A_NAME]	= { .type = NLA_NUL_STRING },
	[KLB_SERVICE_A_ADDR4]	= NLA_POLICY_EXACT_LEN(sizeof(struct in_addr)),
	[KLB_SERVICE_A_ADDR6]	= NLA_POLICY_EXACT_LEN(sizeof(struct in6_addr)),
	[KLB_SERVICE_A_PORT]	= { .type = NLA_U16 },
	[KLB_SERVICE_A_PROTO]	= { .type = NLA_U8 },
	[KLB_SERVICE_A_MODE]	= { .type = NLA_U8 },
	[KLB_SERVICE_A_POOL]	= { .type = NLA_NUL_STRING },
	[KLB_SERVICE_A_STATS]	= { .type = NLA_REJECT,
				    .reject_message = "service stats are output only" },
	[KLB_SERVICE_A_PROXY_PROTOCOL] = { .type = NLA_U8 },
	[KLB_SERVICE_A_RULES]	= NLA_POLICY_NESTED(klb_rules_policy),
	[KLB_SERVICE_A_NRULES]	= { .type = NLA_REJECT,
				    .reject_message = "service nrules is output only" },
};

const struct nla_policy klb_config_policy[KLB_CONFIG_A_MAX + 1] = {
	[KLB_CONFIG_A_POOL]	= NLA_POLICY_NESTED(klb_pool_policy),
	[KLB_CONFIG_A_SERVICE]	= NLA_POLICY_NESTED(klb_service_policy),
};

static const struct nla_policy klb_policy[KLB_A_MAX + 1] = {
	[KLB_A_POOL]		= NLA_POLICY_NESTED(klb_pool_policy),
	[KLB_A_SERVICE]		= NLA_POLICY_NESTED(klb_service_policy),
	[KLB_A_CONFIG]		= NLA_POLICY_NESTED(klb_config_policy),
	[KLB_A_RULE]		= NLA_POLICY_NESTED(klb_rule_policy),
};

/* ---- parsing --------------------------------------------------------------- */

/* Report a missing attribute the way the core does, plus a message. */
static bool klb_nl_missing(struct netlink_ext_ack *extack,
			   const struct nlattr *nest, struct nlattr **tb,
			   int type, const char *what)
{
	if (!NL_REQ_ATTR_CHECK(extack, nest, tb, type))
		return false;
	klb_err(extack, NULL, "missing %s", what);
	return true;
}

static int klb_nl_name(const struct nlattr *attr, const char *what,
		       const char **name, struct netlink_ext_ack *extack)
{
	const char *s = nla_data(attr);
	size_t len = strlen(s);	/* the policy ensured a NUL */
	size_t i;

	if (!len) {
		klb_err(extack, attr, "%s name is empty", what);
		return -EINVAL;
	}
	if (len >= KLB_NAME_MAX) {
		klb_err(extack, attr, "%s name too long (max %d characters)",
			what, KLB_NAME_MAX - 1);
		return -ERANGE;
	}
	for (i = 0; i < len; i++) {
		if (!isascii(s[i]) || (!isalnum(s[i]) && !strchr("_.-", s[i]))) {
			klb_err(extack, attr,
				"%s name may only contain A-Z a-z 0-9 _ . -",
				what);
			return -EINVAL;
		}
	}
	*name = s;
	return 0;
}

/* A required name attribute in @tb. */
static int klb_nl_req_name(const struct nlattr *nest, struct nlattr **tb,
			   int type, const char *what, const char **name,
			   struct netlink_ext_ack *extack)
{
	char miss[24];

	snprintf(miss, sizeof(miss), "%s name", what);
	if (klb_nl_missing(extack, nest, tb, type, miss))
		return -EINVAL;
	return klb_nl_name(tb[type], what, name, extack);
}

/* Exactly one of @a4, @a6: a unicast address. */
static int klb_nl_addr(const struct nlattr *nest, struct nlattr **tb,
		       int t4, int t6, const char *what, u16 *family,
		       union nf_inet_addr *addr, struct netlink_ext_ack *extack)
{
	const struct nlattr *a4 = tb[t4], *a6 = tb[t6];

	memset(addr, 0, sizeof(*addr));
	if (a4 && a6) {
		klb_err(extack, a6, "%s has both an IPv4 and an IPv6 address",
			what);
		return -EINVAL;
	}
	if (!a4 && !a6) {
		NL_SET_ERR_ATTR_MISS(extack, nest, t4);
		klb_err(extack, NULL, "missing %s address", what);
		return -EINVAL;
	}
	if (a4) {
		*family = AF_INET;
		addr->ip = nla_get_in_addr(a4);
		if (ipv4_is_zeronet(addr->ip) || ipv4_is_multicast(addr->ip) ||
		    ipv4_is_lbcast(addr->ip)) {
			klb_err(extack, a4, "%s address %pI4 is not unicast",
				what, &addr->ip);
			return -EINVAL;
		}
	} else {
		*family = AF_INET6;
		addr->in6 = nla_get_in6_addr(a6);
		if (ipv6_addr_any(&addr->in6) ||
		    ipv6_addr_is_multicast(&addr->in6)) {
			klb_err(extack, a6, "%s address %pI6c is not unicast",
				what, &addr->in6);
			return -EINVAL;
		}
	}
	return 0;
}

static int klb_nl_port(const struct nlattr *nest, struct nlattr **tb,
		       int type, const char *what, __be16 *port,
		       struct netlink_ext_ack *extack)
{
	char miss[24];

	snprintf(miss, sizeof(miss), "%s port", what);
	if (klb_nl_missing(extack, nest, tb, type, miss))
		return -EINVAL;
	*port = htons(nla_get_u16(tb[type]));
	if (!*port) {
		klb_err(extack, tb[type], "%s port must be 1..65535", what);
		return -EINVAL;
	}
	return 0;
}

static int klb_nl_parse_backend(const struct nlattr *nest,
				struct klb_backend_cfg *cfg,
				struct netlink_ext_ack *extack)
{
	struct nlattr *tb[KLB_BACKEND_A_MAX + 1];
	int err;

	err = nla_parse_nested(tb, KLB_BACKEND_A_MAX, nest, klb_backend_policy,
			       extack);
	if (err)
		return err;

	memset(cfg, 0, sizeof(*cfg));
	cfg->attr = nest;
	err = klb_nl_addr(nest, tb, KLB_BACKEND_A_ADDR4, KLB_BACKEND_A_ADDR6,
			  "backend", &cfg->family, &cfg->addr, extack);
	if (err)
		return err;
	err = klb_nl_port(nest, tb, KLB_BACKEND_A_PORT, "backend", &cfg->port,
			  extack);
	if (err)
		return err;
	if (tb[KLB_BACKEND_A_WEIGHT]) {
		cfg->weight = nla_get_u32(tb[KLB_BACKEND_A_WEIGHT]);
		if (cfg->weight > KLB_WEIGHT_MAX) {
			klb_err(extack, tb[KLB_BACKEND_A_WEIGHT],
				"weight %u out of range (0..%u)",
				cfg->weight, KLB_WEIGHT_MAX);
			return -ERANGE;
		}
		cfg->has_weight = true;
	}
	if (tb[KLB_BACKEND_A_STATE]) {
		cfg->state = nla_get_u8(tb[KLB_BACKEND_A_STATE]);
		if (cfg->state > KLB_BACKEND_STATE_MAX) {
			klb_err(extack, tb[KLB_BACKEND_A_STATE],
				"unknown backend state %u", cfg->state);
			return -EINVAL;
		}
		cfg->has_state = true;
	}
	return 0;
}

static int klb_nl_sched(const struct nlattr *attr, u8 *sched,
			struct netlink_ext_ack *extack)
{
	*sched = nla_get_u8(attr);
	if (*sched > KLB_SCHED_MAX) {
		klb_err(extack, attr, "unknown scheduler %u", *sched);
		return -EINVAL;
	}
	return 0;
}

static const char *klb_mode_name(u8 mode)
{
	switch (mode) {
	case KLB_MODE_NAT:
		return "nat";
	case KLB_MODE_HTTP:
		return "http";
	case KLB_MODE_TLS:
		return "tls";
	}
	return "?";
}

/* PROXY protocol version 2 only (v1 is text, v2 carries the same). */
static int klb_nl_proxy_protocol(const struct nlattr *attr, u8 mode, u8 *pp,
				 struct netlink_ext_ack *extack)
{
	*pp = nla_get_u8(attr);
	if (*pp != 0 && *pp != 2) {
		klb_err(extack, attr,
			"proxy protocol version %u not supported (0: none, 2)",
			*pp);
		return -EINVAL;
	}
	/* tls relays bytes unchanged and nat rewrites packets: no header. */
	if (*pp && mode != KLB_MODE_HTTP) {
		klb_err(extack, attr, "proxy protocol needs mode http");
		return -EINVAL;
	}
	return 0;
}

/*
 * A new pool from a KLB_A_POOL or KLB_CONFIG_A_POOL nest: NAME, [SCHED],
 * [BACKENDS]. Checked against @pools (live or staged), returned unlinked.
 */
struct klb_pool *klb_nl_pool_build(struct klb_net *kn,
				   struct list_head *pools,
				   const struct nlattr *nest,
				   struct netlink_ext_ack *extack)
{
	struct nlattr *tb[KLB_POOL_A_MAX + 1];
	struct klb_backend_cfg cfg;
	u8 sched = KLB_SCHED_WRR;
	struct klb_pool *pool;
	const char *name;
	struct nlattr *attr;
	int err, rem;

	err = nla_parse_nested(tb, KLB_POOL_A_MAX, nest, klb_pool_policy,
			       extack);
	if (err)
		return ERR_PTR(err);
	err = klb_nl_req_name(nest, tb, KLB_POOL_A_NAME, "pool", &name, extack);
	if (err)
		return ERR_PTR(err);
	if (tb[KLB_POOL_A_SCHED]) {
		err = klb_nl_sched(tb[KLB_POOL_A_SCHED], &sched, extack);
		if (err)
			return ERR_PTR(err);
	}
	if (klb_pool_find(pools, name)) {
		klb_err(extack, tb[KLB_POOL_A_NAME], "pool %s already exists",
			name);
		return ERR_PTR(-EEXIST);
	}

	pool = klb_pool_create(kn, name, sched);
	if (IS_ERR(pool))
		return pool;
	if (tb[KLB_POOL_A_BACKENDS]) {
		nla_for_each_nested(attr, tb[KLB_POOL_A_BACKENDS], rem) {
			err = klb_nl_parse_backend(attr, &cfg, extack);
			if (err)
				goto err_pool;
			err = klb_backend_append(kn, pool, &cfg, extack);
			if (err)
				goto err_pool;
		}
		err = klb_pool_publish(kn, pool);
		if (err)
			goto err_pool;
	}
	return pool;

err_pool:
	klb_pool_destroy(kn, pool, false);
	return ERR_PTR(err);
}

/*
 * KLB_A_SERVICE or KLB_CONFIG_A_SERVICE: every attribute is required but
 * PROXY_PROTOCOL and RULES.
 */
int klb_nl_parse_service(const struct nlattr *nest,
			 struct klb_service_cfg *cfg,
			 struct netlink_ext_ack *extack)
{
	struct nlattr *tb[KLB_SERVICE_A_MAX + 1];
	int err;

	err = nla_parse_nested(tb, KLB_SERVICE_A_MAX, nest, klb_service_policy,
			       extack);
	if (err)
		return err;

	memset(cfg, 0, sizeof(*cfg));
	err = klb_nl_req_name(nest, tb, KLB_SERVICE_A_NAME, "service",
			      &cfg->name, extack);
	if (err)
		return err;
	err = klb_nl_addr(nest, tb, KLB_SERVICE_A_ADDR4, KLB_SERVICE_A_ADDR6,
			  "service", &cfg->family, &cfg->addr, extack);
	if (err)
		return err;
	err = klb_nl_port(nest, tb, KLB_SERVICE_A_PORT, "service", &cfg->port,
			  extack);
	if (err)
		return err;

	if (klb_nl_missing(extack, nest, tb, KLB_SERVICE_A_PROTO,
			   "service protocol"))
		return -EINVAL;
	cfg->proto = nla_get_u8(tb[KLB_SERVICE_A_PROTO]);
	if (cfg->proto != IPPROTO_TCP && cfg->proto != IPPROTO_UDP) {
		klb_err(extack, tb[KLB_SERVICE_A_PROTO],
			"unsupported protocol %u (tcp or udp)", cfg->proto);
		return -EPROTONOSUPPORT;
	}

	if (klb_nl_missing(extack, nest, tb, KLB_SERVICE_A_MODE,
			   "service mode"))
		return -EINVAL;
	cfg->mode = nla_get_u8(tb[KLB_SERVICE_A_MODE]);
	if (cfg->mode > KLB_MODE_MAX) {
		klb_err(extack, tb[KLB_SERVICE_A_MODE], "unknown mode %u",
			cfg->mode);
		return -EINVAL;
	}
	/* The L7 engine terminates TCP connections; UDP has none. */
	if (cfg->mode != KLB_MODE_NAT && cfg->proto != IPPROTO_TCP) {
		klb_err(extack, tb[KLB_SERVICE_A_MODE],
			"mode %s needs proto tcp", klb_mode_name(cfg->mode));
		return -EINVAL;
	}
	if (tb[KLB_SERVICE_A_PROXY_PROTOCOL]) {
		err = klb_nl_proxy_protocol(tb[KLB_SERVICE_A_PROXY_PROTOCOL],
					    cfg->mode, &cfg->proxy_protocol,
					    extack);
		if (err)
			return err;
	}
	if (tb[KLB_SERVICE_A_RULES] && cfg->mode == KLB_MODE_NAT &&
	    nla_len(tb[KLB_SERVICE_A_RULES])) {
		klb_err(extack, tb[KLB_SERVICE_A_RULES],
			"rules need mode http or tls");
		return -EINVAL;
	}
	cfg->rules = tb[KLB_SERVICE_A_RULES];

	err = klb_nl_req_name(nest, tb, KLB_SERVICE_A_POOL, "pool", &cfg->pool,
			      extack);
	if (err)
		return err;
	cfg->pool_attr = tb[KLB_SERVICE_A_POOL];
	return 0;
}

/* ---- rules ------------------------------------------------------------- */

/* A string attribute into a rule buffer (not NUL-terminated there). */
static void klb_nl_rule_str(const struct nlattr *attr, char *buf, size_t size,
			    u16 *len)
{
	/* The policy bounds the length and ensures a NUL. */
	size_t n = min(strnlen(nla_data(attr), nla_len(attr)), size);

	memcpy(buf, nla_data(attr), n);
	*len = n;
}

/* The attribute a klb_rule_prepare() error is about. */
static const struct nlattr *klb_nl_rule_err_attr(struct nlattr **tb,
						 const struct nlattr *nest,
						 int err)
{
	switch (err) {
	case KLB_RULE_E_HOST:
		return tb[KLB_RULE_A_HOST];
	case KLB_RULE_E_SNI:
		return tb[KLB_RULE_A_SNI];
	case KLB_RULE_E_PATH:
		return tb[KLB_RULE_A_PATH];
	case KLB_RULE_E_HNAME:
		return tb[KLB_RULE_A_HEADER_NAME];
	case KLB_RULE_E_HVALUE:
		return tb[KLB_RULE_A_HEADER_VALUE];
	case KLB_RULE_E_METHOD:
		return tb[KLB_RULE_A_METHOD];
	}
	return nest;
}

/* Matchers that look into an HTTP request, and their names in messages. */
static const struct {
	int type;
	const char *what;
} klb_rule_http_attrs[] = {
	{ KLB_RULE_A_HOST, "host" },
	{ KLB_RULE_A_PATH, "path" },
	{ KLB_RULE_A_HEADER_NAME, "header" },
	{ KLB_RULE_A_HEADER_VALUE, "header" },
	{ KLB_RULE_A_METHOD, "method" },
};

/*
 * A rule of @svc from its parsed attributes @tb (of @nest): matchers
 * checked against the mode of the service, prepared for matching, and its
 * pool looked up in @pools (live or staged). Fills @e.
 */
static int klb_nl_rule_fill(struct nlattr **tb, const struct nlattr *nest,
			    const struct klb_service *svc,
			    struct list_head *pools, struct klb_rule_entry *e,
			    struct netlink_ext_ack *extack)
{
	struct klb_rule *r = &e->rule;
	const char *name, *msg;
	int err, i;

	BUILD_BUG_ON(KLB_RULE_NAME_LEN > KLB_RULE_HOST_MAX);

	for (i = 0; i < ARRAY_SIZE(klb_rule_http_attrs); i++) {
		const struct nlattr *a = tb[klb_rule_http_attrs[i].type];

		if (a && svc->mode != KLB_MODE_HTTP) {
			klb_err(extack, a, "%s needs an http service",
				klb_rule_http_attrs[i].what);
			return -EINVAL;
		}
	}
	if (tb[KLB_RULE_A_SNI] && svc->mode != KLB_MODE_TLS) {
		klb_err(extack, tb[KLB_RULE_A_SNI], "sni needs a tls service");
		return -EINVAL;
	}
	if (!tb[KLB_RULE_A_HEADER_NAME] != !tb[KLB_RULE_A_HEADER_VALUE]) {
		klb_err(extack, tb[KLB_RULE_A_HEADER_NAME] ?:
				tb[KLB_RULE_A_HEADER_VALUE],
			"header needs both a name and a value");
		return -EINVAL;
	}

	memset(r, 0, sizeof(*r));
	if (tb[KLB_RULE_A_HOST]) {
		r->match |= KLB_RULE_M_HOST;
		klb_nl_rule_str(tb[KLB_RULE_A_HOST], r->host, sizeof(r->host),
				&r->host_len);
	}
	if (tb[KLB_RULE_A_SNI]) {
		r->match |= KLB_RULE_M_SNI;
		klb_nl_rule_str(tb[KLB_RULE_A_SNI], r->sni, sizeof(r->sni),
				&r->sni_len);
	}
	if (tb[KLB_RULE_A_PATH]) {
		r->match |= KLB_RULE_M_PATH;
		klb_nl_rule_str(tb[KLB_RULE_A_PATH], r->path, sizeof(r->path),
				&r->path_len);
	}
	if (tb[KLB_RULE_A_HEADER_NAME]) {
		r->match |= KLB_RULE_M_HEADER;
		klb_nl_rule_str(tb[KLB_RULE_A_HEADER_NAME], r->hname,
				sizeof(r->hname), &r->hname_len);
		klb_nl_rule_str(tb[KLB_RULE_A_HEADER_VALUE], r->hvalue,
				sizeof(r->hvalue), &r->hvalue_len);
	}
	if (tb[KLB_RULE_A_METHOD]) {
		r->match |= KLB_RULE_M_METHOD;
		klb_nl_rule_str(tb[KLB_RULE_A_METHOD], r->method,
				sizeof(r->method), &r->method_len);
	}
	err = klb_rule_prepare(r, &msg);
	if (err) {
		klb_err(extack, klb_nl_rule_err_attr(tb, nest, err), "%s",
			msg ?: "invalid rule");
		return -EINVAL;
	}

	err = klb_nl_req_name(nest, tb, KLB_RULE_A_POOL, "pool", &name, extack);
	if (err)
		return err;
	e->pool = klb_pool_find(pools, name);
	if (!e->pool) {
		klb_err(extack, tb[KLB_RULE_A_POOL], "pool %s does not exist",
			name);
		return -ENOENT;
	}
	return 0;
}

/* The rules of a service nest are in its order: no name, no index. */
static int klb_nl_rule_in_service(struct nlattr **tb,
				  struct netlink_ext_ack *extack)
{
	if (tb[KLB_RULE_A_SERVICE]) {
		klb_err(extack, tb[KLB_RULE_A_SERVICE],
			"a rule inside a service names no service");
		return -EINVAL;
	}
	if (tb[KLB_RULE_A_INDEX]) {
		klb_err(extack, tb[KLB_RULE_A_INDEX],
			"a rule inside a service has no index: order counts");
		return -EINVAL;
	}
	return 0;
}

int klb_nl_rules_build(struct klb_net *kn, struct list_head *pools,
		       struct klb_service *svc, const struct nlattr *nest,
		       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[KLB_RULE_A_MAX + 1];
	struct klb_rule_set *set;
	struct nlattr *attr;
	u32 n = 0, i = 0;
	int err, rem;

	lockdep_assert_held(&kn->lock);

	nla_for_each_nested(attr, nest, rem)
		n++;
	if (!n)
		return 0;
	if (svc->mode == KLB_MODE_NAT) {
		klb_err(extack, nest, "service %s is not an http or tls service",
			svc->name);
		return -EINVAL;
	}
	if (n > KLB_RULES_MAX) {
		klb_err(extack, nest, "too many rules (max %d)", KLB_RULES_MAX);
		return -ENOSPC;
	}
	set = klb_rule_set_alloc(n);
	if (!set)
		return -ENOMEM;
	nla_for_each_nested(attr, nest, rem) {
		err = nla_parse_nested(tb, KLB_RULE_A_MAX, attr,
				       klb_rule_policy, extack);
		if (!err)
			err = klb_nl_rule_in_service(tb, extack);
		if (!err)
			err = klb_nl_rule_fill(tb, attr, svc, pools, &set->e[i],
					       extack);
		if (err) {
			klb_err_prefix(extack, "rule %u: ", i);
			klb_rule_set_destroy(set);
			return err;
		}
		i++;
	}
	klb_rules_attach(kn, svc, set);
	return 0;
}

/* ---- commands on one object ---------------------------------------------- */

/* Parse the top-level nest @type of a request into @tb. */
static int klb_nl_nest(struct genl_info *info, int type, const char *what,
		       struct nlattr **tb, int maxtype,
		       const struct nla_policy *policy)
{
	if (klb_nl_missing(info->extack, NULL, info->attrs, type, what))
		return -EINVAL;
	return nla_parse_nested(tb, maxtype, info->attrs[type], policy,
				info->extack);
}

/* The existing pool named in @tb; kn->lock held. */
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

static struct klb_service *klb_nl_service(struct klb_net *kn,
					  struct genl_info *info,
					  struct nlattr **tb)
{
	struct klb_service *svc;
	const char *name;
	int err;

	err = klb_nl_req_name(info->attrs[KLB_A_SERVICE], tb,
			      KLB_SERVICE_A_NAME, "service", &name,
			      info->extack);
	if (err)
		return ERR_PTR(err);
	svc = klb_service_find(&kn->services, name);
	if (!svc) {
		klb_err(info->extack, tb[KLB_SERVICE_A_NAME],
			"service %s does not exist", name);
		return ERR_PTR(-ENOENT);
	}
	return svc;
}

static int klb_nl_pool_new(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_net(genl_info_net(info));
	struct klb_pool *pool;

	if (klb_nl_missing(info->extack, NULL, info->attrs, KLB_A_POOL,
			   "pool attributes"))
		return -EINVAL;

	mutex_lock(&kn->lock);
	pool = klb_nl_pool_build(kn, &kn->pools, info->attrs[KLB_A_POOL],
				 info->extack);
	if (!IS_ERR(pool)) {
		list_add_tail(&pool->node, &kn->pools);
		kn->npools++;
		klb_config_changed(kn);
	}
	mutex_unlock(&kn->lock);
	return PTR_ERR_OR_ZERO(pool);
}

static int klb_nl_pool_set(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_net(genl_info_net(info));
	struct nlattr *tb[KLB_POOL_A_MAX + 1];
	struct klb_pool *pool;
	u8 sched;
	int err;

	err = klb_nl_nest(info, KLB_A_POOL, "pool attributes", tb,
			  KLB_POOL_A_MAX, klb_pool_policy);
	if (err)
		return err;

	mutex_lock(&kn->lock);
	pool = klb_nl_pool(kn, info, tb);
	err = PTR_ERR_OR_ZERO(pool);
	if (err)
		goto out;
	if (klb_nl_missing(info->extack, info->attrs[KLB_A_POOL], tb,
			   KLB_POOL_A_SCHED, "pool scheduler")) {
		err = -EINVAL;
		goto out;
	}
	err = klb_nl_sched(tb[KLB_POOL_A_SCHED], &sched, info->extack);
	if (err)
		goto out;
	err = klb_pool_set_sched(kn, pool, sched);
	if (!err)
		klb_config_changed(kn);
out:
	mutex_unlock(&kn->lock);
	return err;
}

static int klb_nl_pool_del(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_net(genl_info_net(info));
	struct nlattr *tb[KLB_POOL_A_MAX + 1];
	struct klb_pool *pool;
	int err;

	err = klb_nl_nest(info, KLB_A_POOL, "pool attributes", tb,
			  KLB_POOL_A_MAX, klb_pool_policy);
	if (err)
		return err;

	mutex_lock(&kn->lock);
	pool = klb_nl_pool(kn, info, tb);
	err = PTR_ERR_OR_ZERO(pool);
	if (!err)
		err = klb_pool_del(kn, pool, info->extack);
	if (!err)
		klb_config_changed(kn);
	mutex_unlock(&kn->lock);
	return err;
}

static int klb_nl_pool_get(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_net(genl_info_net(info));
	struct nlattr *tb[KLB_POOL_A_MAX + 1];
	struct klb_pool *pool;
	int err;

	err = klb_nl_nest(info, KLB_A_POOL, "pool attributes", tb,
			  KLB_POOL_A_MAX, klb_pool_policy);
	if (err)
		return err;

	mutex_lock(&kn->lock);
	pool = klb_nl_pool(kn, info, tb);
	err = PTR_ERR_OR_ZERO(pool);
	if (!err)
		err = klb_nl_pool_get_one(kn, pool, info);
	mutex_unlock(&kn->lock);
	return err;
}

enum klb_backend_op { KLB_BACKEND_ADD, KLB_BACKEND_SET, KLB_BACKEND_DEL };

static int klb_nl_backend(struct genl_info *info, enum klb_backend_op op)
{
	struct klb_net *kn = klb_net(genl_info_net(info));
	struct nlattr *tb[KLB_POOL_A_MAX + 1];
	struct klb_backend_cfg cfg;
	struct klb_pool *pool;
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

	mutex_lock(&kn->lock);
	pool = klb_nl_pool(kn, info, tb);
	err = PTR_ERR_OR_ZERO(pool);
	if (err)
		goto out;
	if (op == KLB_BACKEND_ADD)
		err = klb_backend_add(kn, pool, &cfg, info->extack);
	else if (op == KLB_BACKEND_SET)
		err = klb_backend_set(kn, pool, &cfg, info->extack);
	else
		err = klb_backend_del(kn, pool, &cfg, info->extack);
	if (!err)
		klb_config_changed(kn);
out:
	mutex_unlock(&kn->lock);
	return err;
}

static int klb_nl_backend_new(struct sk_buff *skb, struct genl_info *info)
{
	return klb_nl_backend(info, KLB_BACKEND_ADD);
}

static int klb_nl_backend_set(struct sk_buff *skb, struct genl_info *info)
{
	return klb_nl_backend(info, KLB_BACKEND_SET);
}

static int klb_nl_backend_del(struct sk_buff *skb, struct genl_info *info)
{
	return klb_nl_backend(info, KLB_BACKEND_DEL);
}

static int klb_nl_service_new(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_net(genl_info_net(info));
	struct klb_service_cfg cfg;
	int err;

	if (klb_nl_missing(info->extack, NULL, info->attrs, KLB_A_SERVICE,
			   "service attributes"))
		return -EINVAL;
	err = klb_nl_parse_service(info->attrs[KLB_A_SERVICE], &cfg,
				   info->extack);
	if (err)
		return err;

	mutex_lock(&kn->lock);
	err = klb_service_add(kn, &cfg, info->extack);
	if (!err)
		klb_config_changed(kn);
	mutex_unlock(&kn->lock);
	return err;
}

/*
 * Only the pool and the PROXY protocol of a service can change; anything
 * else makes a new service (and, for http and tls, a new listener).
 */
static const int klb_service_fixed[] = {
	KLB_SERVICE_A_ADDR4, KLB_SERVICE_A_ADDR6, KLB_SERVICE_A_PORT,
	KLB_SERVICE_A_PROTO, KLB_SERVICE_A_MODE,
};

static int klb_nl_service_set(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_net(genl_info_net(info));
	struct nlattr *tb[KLB_SERVICE_A_MAX + 1];
	const struct nlattr *pp_attr;
	struct klb_service *svc;
	const char *pool;
	int err, i;
	u8 pp = 0;

	err = klb_nl_nest(info, KLB_A_SERVICE, "service attributes", tb,
			  KLB_SERVICE_A_MAX, klb_service_policy);
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(klb_service_fixed); i++) {
		if (tb[klb_service_fixed[i]]) {
			klb_err(info->extack, tb[klb_service_fixed[i]],
				"only the pool and the proxy protocol of a service can be changed");
			return -EOPNOTSUPP;
		}
	}
	if (tb[KLB_SERVICE_A_RULES]) {
		klb_err(info->extack, tb[KLB_SERVICE_A_RULES],
			"rules are changed by RULE_NEW and RULE_DEL");
		return -EOPNOTSUPP;
	}
	pp_attr = tb[KLB_SERVICE_A_PROXY_PROTOCOL];

	mutex_lock(&kn->lock);
	svc = klb_nl_service(kn, info, tb);
	err = PTR_ERR_OR_ZERO(svc);
	if (err)
		goto out;
	/* Check everything before changing anything. */
	if (pp_attr) {
		err = klb_nl_proxy_protocol(pp_attr, svc->mode, &pp,
					    info->extack);
		if (err)
			goto out;
	}
	if (tb[KLB_SERVICE_A_POOL]) {
		err = klb_nl_name(tb[KLB_SERVICE_A_POOL], "pool", &pool,
				  info->extack);
		if (err)
			goto out;
		err = klb_service_set_pool(kn, svc, pool,
					   tb[KLB_SERVICE_A_POOL],
					   info->extack);
		if (err)
			goto out;
	}
	/* Read by each new session of the service: one store. */
	if (pp_attr)
		WRITE_ONCE(svc->proxy_protocol, pp);
	if (pp_attr || tb[KLB_SERVICE_A_POOL])
		klb_config_changed(kn);
out:
	mutex_unlock(&kn->lock);
	return err;
}

static int klb_nl_service_del(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_net(genl_info_net(info));
	struct nlattr *tb[KLB_SERVICE_A_MAX + 1];
	struct klb_service *svc;
	int err;

	err = klb_nl_nest(info, KLB_A_SERVICE, "service attributes", tb,
			  KLB_SERVICE_A_MAX, klb_service_policy);
	if (err)
		return err;

	mutex_lock(&kn->lock);
	svc = klb_nl_service(kn, info, tb);
	err = PTR_ERR_OR_ZERO(svc);
	if (!err)
		err = klb_service_del(kn, svc);
	if (!err)
		klb_config_changed(kn);
	mutex_unlock(&kn->lock);
	return err;
}

static int klb_nl_service_get(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_net(genl_info_net(info));
	struct nlattr *tb[KLB_SERVICE_A_MAX + 1];
	struct klb_service *svc;
	int err;

	err = klb_nl_nest(info, KLB_A_SERVICE, "service attributes", tb,
			  KLB_SERVICE_A_MAX, klb_service_policy);
	if (err)
		return err;

	mutex_lock(&kn->lock);
	svc = klb_nl_service(kn, info, tb);
	err = PTR_ERR_OR_ZERO(svc);
	if (!err)
		err = klb_nl_service_get_one(kn, svc, info);
	mutex_unlock(&kn->lock);
	return err;
}

/* The http or tls service named in a KLB_A_RULE request; kn->lock held. */
static struct klb_service *klb_nl_rule_service(struct klb_net *kn,
					       struct genl_info *info,
					       struct nlattr **tb)
{
	struct klb_service *svc;
	const char *name;
	int err;

	err = klb_nl_req_name(info->attrs[KLB_A_RULE], tb, KLB_RULE_A_SERVICE,
			      "service", &name, info->extack);
	if (err)
		return ERR_PTR(err);
	svc = klb_service_find(&kn->services, name);
	if (!svc) {
		klb_err(info->extack, tb[KLB_RULE_A_SERVICE],
			"service %s does not exist", name);
		return ERR_PTR(-ENOENT);
	}
	if (svc->mode == KLB_MODE_NAT) {
		klb_err(info->extack, tb[KLB_RULE_A_SERVICE],
			"service %s is not an http or tls service", name);
		return ERR_PTR(-EINVAL);
	}
	return svc;
}

static int klb_nl_rule_new(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_net(genl_info_net(info));
	struct nlattr *tb[KLB_RULE_A_MAX + 1];
	struct klb_rule_entry *e;
	struct klb_rule_set *set;
	struct klb_service *svc;
	int err;

	err = klb_nl_nest(info, KLB_A_RULE, "rule attributes", tb,
			  KLB_RULE_A_MAX, klb_rule_policy);
	if (err)
		return err;
	if (tb[KLB_RULE_A_INDEX]) {
		klb_err(info->extack, tb[KLB_RULE_A_INDEX],
			"a new rule is appended: no index");
		return -EINVAL;
	}
	/* ~2 KiB: not for the stack */
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;

	mutex_lock(&kn->lock);
	svc = klb_nl_rule_service(kn, info, tb);
	err = PTR_ERR_OR_ZERO(svc);
	if (err)
		goto out;
	set = klb_service_rules(kn, svc);
	if (set && set->n >= KLB_RULES_MAX) {
		klb_err(info->extack, tb[KLB_RULE_A_SERVICE],
			"service %s has the maximum of %d rules", svc->name,
			KLB_RULES_MAX);
		err = -ENOSPC;
		goto out;
	}
	err = klb_nl_rule_fill(tb, info->attrs[KLB_A_RULE], svc, &kn->pools,
			       e, info->extack);
	if (!err)
		err = klb_rule_append(kn, svc, e);
	if (!err)
		klb_config_changed(kn);
out:
	mutex_unlock(&kn->lock);
	kfree(e);
	return err;
}

/* A rule is deleted by its position; matchers and pool are not compared. */
static const int klb_rule_del_refused[] = {
	KLB_RULE_A_HOST, KLB_RULE_A_PATH, KLB_RULE_A_HEADER_NAME,
	KLB_RULE_A_HEADER_VALUE, KLB_RULE_A_METHOD, KLB_RULE_A_SNI,
	KLB_RULE_A_POOL,
};

static int klb_nl_rule_del(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_net(genl_info_net(info));
	struct nlattr *tb[KLB_RULE_A_MAX + 1];
	struct klb_service *svc;
	int err, i;

	err = klb_nl_nest(info, KLB_A_RULE, "rule attributes", tb,
			  KLB_RULE_A_MAX, klb_rule_policy);
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(klb_rule_del_refused); i++) {
		if (tb[klb_rule_del_refused[i]]) {
			klb_err(info->extack, tb[klb_rule_del_refused[i]],
				"a rule is deleted by its service and index only");
			return -EINVAL;
		}
	}
	if (klb_nl_missing(info->extack, info->attrs[KLB_A_RULE], tb,
			   KLB_RULE_A_INDEX, "rule index"))
		return -EINVAL;

	mutex_lock(&kn->lock);
	svc = klb_nl_rule_service(kn, info, tb);
	err = PTR_ERR_OR_ZERO(svc);
	if (!err)
		err = klb_rule_del(kn, svc, nla_get_u32(tb[KLB_RULE_A_INDEX]),
				   tb[KLB_RULE_A_INDEX], info->extack);
	if (!err)
		klb_config_changed(kn);
	mutex_unlock(&kn->lock);
	return err;
}

/* ---- the family ------------------------------------------------------------ */

/*
 * Changes need CAP_NET_ADMIN in the user namespace that owns the network
 * namespace (GENL_UNS_ADMIN_PERM): a container manages its own balancer,
 * as with ip(8). Reading is open to everyone, as with `ip route show`.
 */
static const struct genl_ops klb_genl_ops[] = {
	{
		.cmd	= KLB_CMD_POOL_NEW,
		.doit	= klb_nl_pool_new,
		.flags	= GENL_UNS_ADMIN_PERM,
	}, {
		.cmd	= KLB_CMD_POOL_SET,
		.doit	= klb_nl_pool_set,
		.flags	= GENL_UNS_ADMIN_PERM,
	}, {
		.cmd	= KLB_CMD_POOL_DEL,
		.doit	= klb_nl_pool_del,
		.flags	= GENL_UNS_ADMIN_PERM,
	}, {
		.cmd	= KLB_CMD_POOL_GET,
		.doit	= klb_nl_pool_get,
		.dumpit	= klb_nl_pool_dump,
	}, {
		.cmd	= KLB_CMD_BACKEND_NEW,
		.doit	= klb_nl_backend_new,
		.flags	= GENL_UNS_ADMIN_PERM,
	}, {
		.cmd	= KLB_CMD_BACKEND_SET,
		.doit	= klb_nl_backend_set,
		.flags	= GENL_UNS_ADMIN_PERM,
	}, {
		.cmd	= KLB_CMD_BACKEND_DEL,
		.doit	= klb_nl_backend_del,
		.flags	= GENL_UNS_ADMIN_PERM,
	}, {
		.cmd	= KLB_CMD_SERVICE_NEW,
		.doit	= klb_nl_service_new,
		.flags	= GENL_UNS_ADMIN_PERM,
	}, {
		.cmd	= KLB_CMD_SERVICE_SET,
		.doit	= klb_nl_service_set,
		.flags	= GENL_UNS_ADMIN_PERM,
	}, {
		.cmd	= KLB_CMD_SERVICE_DEL,
		.doit	= klb_nl_service_del,
		.flags	= GENL_UNS_ADMIN_PERM,
	}, {
		.cmd	= KLB_CMD_SERVICE_GET,
		.doit	= klb_nl_service_get,
		.dumpit	= klb_nl_service_dump,
	}, {
		.cmd	= KLB_CMD_CONN_GET,
		.dumpit	= klb_nl_conn_dump,
	}, {
		.cmd	= KLB_CMD_FLUSH,
		.doit	= klb_nl_flush,
		.flags	= GENL_UNS_ADMIN_PERM,
	}, {
		.cmd	= KLB_CMD_RESTORE,
		.doit	= klb_nl_restore,
		.flags	= GENL_UNS_ADMIN_PERM,
	}, {
		.cmd	= KLB_CMD_RULE_NEW,
		.doit	= klb_nl_rule_new,
		.flags	= GENL_UNS_ADMIN_PERM,
	}, {
		.cmd	= KLB_CMD_RULE_DEL,
		.doit	= klb_nl_rule_del,
		.flags	= GENL_UNS_ADMIN_PERM,
	}, {
		.cmd	= KLB_CMD_RULE_GET,
		.dumpit	= klb_nl_rule_dump,
	},
};

/*
 * resv_start_op is left at 0, as new families should: every command gets
 * strict validation, including a zero genetlink reserved field.
 */
struct genl_family klb_genl_family __ro_after_init = {
	.name		= KLB_GENL_NAME,
	.version	= KLB_GENL_VERSION,
	.maxattr	= KLB_A_MAX,
	.policy		= klb_policy,
	.netnsok	= true,
	.parallel_ops	= false,
	.module		= THIS_MODULE,
	.ops		= klb_genl_ops,
	.n_ops		= ARRAY_SIZE(klb_genl_ops),
};

int __init klb_genl_init(void)
{
	return genl_register_family(&klb_genl_family);
}

void klb_genl_exit(void)
{
	genl_unregister_family(&klb_genl_family);
}
