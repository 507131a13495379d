// SPDX-License-Identifier: GPL-2.0
/*
 * Rules from requests: matchers checked against the mode of their service
 * and prepared for matching (l7/parse/rule_match.c), pools looked up.
 */
#include "netlink/parse.h"
#include "netlink/policy.h"

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
 * A rule from its parsed attributes @tb (of @nest): matchers checked
 * against the @mode of its service, prepared for matching, and its pool
 * looked up in @pools (live or staged). Fills @e.
 */
int klb_nl_rule_fill(struct nlattr **tb, const struct nlattr *nest, u8 mode,
		     struct list_head *pools, struct klb_rule_entry *e,
		     struct netlink_ext_ack *extack)
{
	struct klb_rule *r = &e->rule;
	const char *name, *msg;
	int err, i;

	BUILD_BUG_ON(KLB_RULE_NAME_LEN > KLB_RULE_HOST_MAX);

	for (i = 0; i < ARRAY_SIZE(klb_rule_http_attrs); i++) {
		const struct nlattr *a = tb[klb_rule_http_attrs[i].type];

		if (a && mode != KLB_MODE_HTTP) {
			klb_err(extack, a, "%s needs an http service",
				klb_rule_http_attrs[i].what);
			return -EINVAL;
		}
	}
	if (tb[KLB_RULE_A_SNI] && mode != KLB_MODE_TLS) {
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

/*
 * The rules of the service @cfg (KLB_SERVICE_A_RULES @nest), their pools
 * looked up in @pools (live or staged): *@set, or NULL for none.
 */
int klb_nl_rules_build(struct list_head *pools,
		       const struct klb_service_cfg *cfg,
		       const struct nlattr *nest, struct klb_rule_set **setp,
		       struct netlink_ext_ack *extack)
{
	struct nlattr *tb[KLB_RULE_A_MAX + 1];
	struct klb_rule_set *set;
	struct nlattr *attr;
	u32 n = 0, i = 0;
	int err, rem;

	*setp = NULL;
	nla_for_each_nested(attr, nest, rem)
		n++;
	if (!n)
		return 0;
	if (!klb_mode_l7(cfg->mode)) {
		klb_err(extack, nest, "service %s is not an http or tls service",
			cfg->name);
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
			err = klb_nl_rule_fill(tb, attr, cfg->mode, pools,
					       &set->e[i], extack);
		if (err) {
			klb_err_prefix(extack, "rule %u: ", i);
			klb_rule_set_destroy(set);
			return err;
		}
		i++;
	}
	*setp = set;
	return 0;
}
