// SPDX-License-Identifier: GPL-2.0
/*
 * Requests into the config layer's structs: names, addresses, ports,
 * backends, pools and services. The policies (policy.c) have checked
 * types, lengths and ranges already; this checks the rest and says what
 * was wrong. Nothing here changes any state.
 */
#include <linux/in.h>
#include <net/ipv6.h>

#include "acl.h"
#include "config/index.h"
#include "netlink/attr.h"
#include "netlink/acl_nl.h"
#include "netlink/check.h"
#include "netlink/parse.h"
#include "netlink/policy.h"
#include "sched/table.h"

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
	*port = htons(nla_get_u16(tb[type]));	/* the policy refused 0 */
	return 0;
}

int klb_nl_parse_backend(const struct nlattr *nest,
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
	/* Ranges: the policy. */
	if (tb[KLB_BACKEND_A_WEIGHT]) {
		cfg->weight = nla_get_u32(tb[KLB_BACKEND_A_WEIGHT]);
		cfg->has_weight = true;
	}
	if (tb[KLB_BACKEND_A_STATE]) {
		cfg->state = nla_get_u8(tb[KLB_BACKEND_A_STATE]);
		cfg->has_state = true;
	}
	if (tb[KLB_BACKEND_A_MAXCONN]) {
		cfg->maxconn = nla_get_u32(tb[KLB_BACKEND_A_MAXCONN]);
		cfg->has_maxconn = true;
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
	case KLB_MODE_FNAT:
		return "fnat";
	case KLB_MODE_DR:
		return "dr";
	case KLB_MODE_TUN:
		return "tun";
	}
	return "?";
}

/* PROXY protocol version 2 only (v1 is text, v2 carries the same). */
int klb_nl_proxy_protocol(const struct nlattr *attr, u8 mode, u8 *pp,
			  struct netlink_ext_ack *extack)
{
	*pp = nla_get_u8(attr);
	if (*pp == 1) {	/* the policy refused above 2 */
		klb_err(extack, attr,
			"proxy protocol version %u not supported (0: none, 2)",
			*pp);
		return -EINVAL;
	}
	/*
	 * The L4 modes rewrite packets: no room for a header. http writes
	 * it before the request head, tls before the ClientHello.
	 */
	if (*pp && mode != KLB_MODE_HTTP && mode != KLB_MODE_TLS) {
		klb_err(extack, attr, "proxy protocol needs mode http or tls");
		return -EINVAL;
	}
	return 0;
}

/*
 * A new pool from a KLB_A_POOL or KLB_CONFIG_A_POOL nest: NAME, [SCHED],
 * [BACKENDS], [CHECK], [ALL_UNHEALTHY]. Checked against @pools (live or
 * staged), returned unlinked.
 */
struct klb_pool *klb_nl_pool_build(struct klb_net *kn,
				   struct list_head *pools,
				   const struct klb_index *names,
				   const struct nlattr *nest,
				   struct netlink_ext_ack *extack)
{
	struct nlattr *tb[KLB_POOL_A_MAX + 1];
	struct klb_check_cfg *check = NULL;
	struct klb_passive_cfg passive;
	struct klb_backend_cfg cfg;
	u8 sched = KLB_SCHED_WRR;
	struct klb_pool *pool;
	bool none = true;
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
	if (tb[KLB_POOL_A_SCHED])
		sched = nla_get_u8(tb[KLB_POOL_A_SCHED]);	/* range: policy */
	if (names ? klb_index_pool(names, name) : klb_pool_find(pools, name)) {
		klb_err(extack, tb[KLB_POOL_A_NAME], "pool %s already exists",
			name);
		return ERR_PTR(-EEXIST);
	}
	if (tb[KLB_POOL_A_CHECK]) {
		check = kmalloc(sizeof(*check), GFP_KERNEL);
		if (!check)
			return ERR_PTR(-ENOMEM);
		err = klb_nl_parse_check(tb[KLB_POOL_A_CHECK], check, &none,
					 extack);
		if (err) {
			kfree(check);
			return ERR_PTR(err);
		}
	}

	pool = klb_pool_create(kn, name, sched, extack);
	if (IS_ERR(pool)) {
		kfree(check);
		return pool;
	}
	if (tb[KLB_POOL_A_ALL_UNHEALTHY])
		pool->all_unhealthy = nla_get_u8(tb[KLB_POOL_A_ALL_UNHEALTHY]);
	if (tb[KLB_POOL_A_HASH])
		pool->hash = nla_get_u8(tb[KLB_POOL_A_HASH]);
	/* Before the backends too: each copies the passive settings. */
	if (klb_nl_parse_passive(tb, &passive)) {
		err = klb_health_set_passive(kn, pool, &passive);
		if (err)
			goto err_pool;
	}
	/* Before the backends: each gets its probe as it is appended. */
	err = none ? 0 : klb_health_set_check(kn, pool, check);
	kfree(check);
	if (err)
		goto err_pool;
	if (tb[KLB_POOL_A_BACKENDS]) {
		nla_for_each_nested(attr, tb[KLB_POOL_A_BACKENDS], rem) {
			err = klb_nl_parse_backend(attr, &cfg, extack);
			if (err)
				goto err_pool;
			err = klb_backend_append(kn, pool, &cfg, extack);
			if (err)
				goto err_pool;
		}
		err = klb_sched_publish(kn, pool);
		if (err)
			goto err_pool;
	}
	return pool;

err_pool:
	klb_pool_destroy(kn, pool, false);
	return ERR_PTR(err);
}

/* KLB_SERVICE_A_SNAT: 1..KLB_SNAT_MAX unicast addresses of @family. */
static int klb_nl_snat(const struct nlattr *nest, u16 family,
		       struct klb_service_cfg *cfg,
		       struct netlink_ext_ack *extack)
{
	const struct nlattr *a;
	int rem, want = family == AF_INET ? KLB_SNAT_A_ADDR4 : KLB_SNAT_A_ADDR6;

	nla_for_each_nested(a, nest, rem) {
		union nf_inet_addr *addr = &cfg->snat[cfg->nsnat];

		if (nla_type(a) != want) {
			klb_err(extack, a,
				"snat address of another family than the service");
			return -EINVAL;
		}
		if (cfg->nsnat == KLB_SNAT_MAX) {
			klb_err(extack, a, "too many snat addresses (max %d)",
				KLB_SNAT_MAX);
			return -E2BIG;
		}
		memset(addr, 0, sizeof(*addr));
		if (family == AF_INET) {
			addr->ip = nla_get_in_addr(a);
			if (ipv4_is_zeronet(addr->ip) ||
			    ipv4_is_multicast(addr->ip) ||
			    ipv4_is_lbcast(addr->ip) ||
			    ipv4_is_loopback(addr->ip)) {
				klb_err(extack, a, "snat address %pI4 is not unicast",
					&addr->ip);
				return -EINVAL;
			}
		} else {
			addr->in6 = nla_get_in6_addr(a);
			if (ipv6_addr_any(&addr->in6) ||
			    ipv6_addr_is_multicast(&addr->in6) ||
			    ipv6_addr_loopback(&addr->in6)) {
				klb_err(extack, a, "snat address %pI6c is not unicast",
					&addr->in6);
				return -EINVAL;
			}
		}
		cfg->nsnat++;
	}
	if (!cfg->nsnat) {
		klb_err(extack, nest, "empty snat address list");
		return -EINVAL;
	}
	return 0;
}

/* The modes and protocol whose flows can be adopted mid-way (l4/adopt.c). */
static bool klb_nl_adopt_default(u8 mode, u8 proto)
{
	return (mode == KLB_MODE_DR || mode == KLB_MODE_TUN) &&
	       proto == IPPROTO_TCP;
}

int klb_nl_adopt(struct nlattr **tb, u8 mode, u8 proto, bool *adopt,
		 struct netlink_ext_ack *extack)
{
	const struct nlattr *a = tb[KLB_SERVICE_A_ADOPT];

	if (!a)
		return 0;
	if (nla_get_u8(a) && !klb_nl_adopt_default(mode, proto)) {
		klb_err(extack, a,
			"adopt needs mode dr or tun and proto tcp (nat and fnat replies pin a flow to its balancer)");
		return -EINVAL;
	}
	*adopt = nla_get_u8(a);
	return 0;
}

/* PERSIST and PERSIST_MASK, on SERVICE_NEW or SERVICE_SET (@mode known). */
int klb_nl_persist(struct nlattr **tb, u16 family, u8 mode, u32 *timeout,
		   u8 *mask, struct netlink_ext_ack *extack)
{
	const struct nlattr *ma = tb[KLB_SERVICE_A_PERSIST_MASK];
	u8 max = family == AF_INET ? 32 : 128;

	if (tb[KLB_SERVICE_A_PERSIST]) {
		*timeout = nla_get_u32(tb[KLB_SERVICE_A_PERSIST]);
		if (*timeout && klb_mode_l7(mode)) {
			klb_err(extack, tb[KLB_SERVICE_A_PERSIST],
				"persist is for L4 modes (nat, fnat, dr, tun); http has cookie");
			return -EINVAL;
		}
	}
	if (ma) {
		*mask = nla_get_u8(ma);
		if (*mask > max || !*mask) {
			klb_err(extack, ma, "persist mask /%u out of range 1..%u",
				*mask, max);
			return -ERANGE;
		}
	} else if (!*mask) {
		*mask = max;
	}
	return 0;
}

/* A cookie name is an RFC 6265 token. */
static int klb_nl_cookie_name(const struct nlattr *attr,
			      struct netlink_ext_ack *extack)
{
	const char *s = nla_data(attr);

	for (; *s; s++) {
		if (*s <= 0x20 || *s >= 0x7f || strchr("()<>@,;:\\\"/[]?={}", *s)) {
			klb_err(extack, attr,
				"cookie name may only contain token characters");
			return -EINVAL;
		}
	}
	return 0;
}

/* The attributes of the L4 forwarding modes and of persistence. */
static int klb_nl_parse_service_l4(struct nlattr **tb,
				   struct klb_service_cfg *cfg,
				   struct netlink_ext_ack *extack)
{
	const struct nlattr *cookie = tb[KLB_SERVICE_A_COOKIE];
	int err;

	if (tb[KLB_SERVICE_A_SNAT]) {
		if (cfg->mode != KLB_MODE_FNAT) {
			klb_err(extack, tb[KLB_SERVICE_A_SNAT],
				"snat addresses need mode fnat");
			return -EINVAL;
		}
		err = klb_nl_snat(tb[KLB_SERVICE_A_SNAT], cfg->family, cfg,
				  extack);
		if (err)
			return err;
	}
	err = klb_nl_persist(tb, cfg->family, cfg->mode, &cfg->persist_timeout,
			     &cfg->persist_mask, extack);
	if (err)
		return err;
	if (cookie && nla_len(cookie) > 1) {
		if (cfg->mode != KLB_MODE_HTTP) {
			klb_err(extack, cookie, "cookie needs mode http");
			return -EINVAL;
		}
		err = klb_nl_cookie_name(cookie, extack);
		if (err)
			return err;
		cfg->cookie = nla_data(cookie);
	}
	return 0;
}

/*
 * KLB_A_SERVICE or KLB_CONFIG_A_SERVICE: every attribute is required but
 * PROXY_PROTOCOL and RULES. The rules' pools are looked up in @pools (live
 * or staged): kn->lock held. On success cfg->rules, if set, must go to
 * klb_service_create() or klb_service_add(), which take it over.
 */
int klb_nl_parse_service(struct list_head *pools, const struct nlattr *nest,
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
	cfg->mode = nla_get_u8(tb[KLB_SERVICE_A_MODE]);	/* range: policy */
	/* The L7 engine terminates TCP connections; UDP has none. */
	if (klb_mode_l7(cfg->mode) && cfg->proto != IPPROTO_TCP) {
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
	err = klb_nl_parse_service_l4(tb, cfg, extack);
	if (err)
		return err;
	cfg->adopt = klb_nl_adopt_default(cfg->mode, cfg->proto);
	err = klb_nl_adopt(tb, cfg->mode, cfg->proto, &cfg->adopt, extack);
	if (err)
		return err;
	if (tb[KLB_SERVICE_A_RULES] && !klb_mode_l7(cfg->mode) &&
	    nla_len(tb[KLB_SERVICE_A_RULES])) {
		klb_err(extack, tb[KLB_SERVICE_A_RULES],
			"rules need mode http or tls");
		return -EINVAL;
	}

	err = klb_nl_req_name(nest, tb, KLB_SERVICE_A_POOL, "pool", &cfg->pool,
			      extack);
	if (err)
		return err;
	cfg->pool_attr = tb[KLB_SERVICE_A_POOL];
	if (tb[KLB_SERVICE_A_RULES]) {
		err = klb_nl_rules_build(pools, cfg, tb[KLB_SERVICE_A_RULES],
					 &cfg->rules, extack);
		if (err)
			return err;
	}
	/* Last: nothing after it can fail and leave it to free. */
	err = klb_nl_acl(tb, NULL, &cfg->acl, extack);
	if (err && cfg->rules) {
		klb_rule_set_destroy(cfg->rules);
		cfg->rules = NULL;
	}
	return err;
}
