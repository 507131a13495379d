// SPDX-License-Identifier: GPL-2.0
/*
 * A pool's KLB_POOL_A_CHECK nest, in (a struct klb_check_cfg for the
 * health layer) and out (dumps). The policy checked types and ranges; what
 * needs several attributes at once is checked here, before anything
 * changes.
 */
#include "netlink/check.h"
#include "netlink/policy.h"

static int klb_nl_check_str(struct nlattr **tb, int type, char *dst,
			    size_t len)
{
	if (tb[type])
		nla_strscpy(dst, tb[type], len);
	return 0;
}

/* An attribute of @tb that @kind does not take: say which. */
static int klb_nl_check_foreign(struct nlattr **tb, u8 kind,
				struct netlink_ext_ack *extack)
{
	static const struct {
		int type;
		u8 kind;
		const char *name;
	} only[] = {
		{ KLB_CHECK_A_PATH, KLB_CHECK_HTTP, "path" },
		{ KLB_CHECK_A_HOST, KLB_CHECK_HTTP, "host" },
		{ KLB_CHECK_A_EXPECT, KLB_CHECK_HTTP, "expect" },
		{ KLB_CHECK_A_BODY, KLB_CHECK_HTTP, "body" },
		{ KLB_CHECK_A_SNI, KLB_CHECK_TLS, "sni" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(only); i++) {
		if (tb[only[i].type] && kind != only[i].kind) {
			klb_err(extack, tb[only[i].type],
				"check %s needs check kind %s", only[i].name,
				klb_check_kind_name(only[i].kind));
			return -EINVAL;
		}
	}
	return 0;
}

int klb_nl_parse_check(const struct nlattr *nest, struct klb_check_cfg *cfg,
		       bool *none, struct netlink_ext_ack *extack)
{
	struct nlattr *tb[KLB_CHECK_A_MAX + 1];
	u16 expect;
	u8 kind;
	int err;

	err = nla_parse_nested(tb, KLB_CHECK_A_MAX, nest, klb_check_policy,
			       extack);
	if (err)
		return err;
	if (klb_nl_missing(extack, nest, tb, KLB_CHECK_A_KIND, "check kind"))
		return -EINVAL;
	kind = nla_get_u8(tb[KLB_CHECK_A_KIND]);
	*none = kind == KLB_CHECK_NONE;
	if (*none) {
		if (nla_len(nest) > nla_total_size(sizeof(u8))) {
			klb_err(extack, nest, "check none takes no parameters");
			return -EINVAL;
		}
		return 0;
	}
	err = klb_nl_check_foreign(tb, kind, extack);
	if (err)
		return err;

	klb_check_defaults(cfg, kind);
	if (tb[KLB_CHECK_A_PORT])
		cfg->port = nla_get_u16(tb[KLB_CHECK_A_PORT]);
	if (tb[KLB_CHECK_A_INTERVAL_MS]) {
		cfg->interval_ms = nla_get_u32(tb[KLB_CHECK_A_INTERVAL_MS]);
		cfg->timeout_ms = min(cfg->timeout_ms, cfg->interval_ms);
	}
	if (tb[KLB_CHECK_A_TIMEOUT_MS])
		cfg->timeout_ms = nla_get_u32(tb[KLB_CHECK_A_TIMEOUT_MS]);
	if (cfg->timeout_ms > cfg->interval_ms) {
		klb_err(extack, tb[KLB_CHECK_A_TIMEOUT_MS],
			"check timeout %ums is longer than the interval %ums",
			cfg->timeout_ms, cfg->interval_ms);
		return -EINVAL;
	}
	if (tb[KLB_CHECK_A_RISE])
		cfg->rise = nla_get_u8(tb[KLB_CHECK_A_RISE]);
	if (tb[KLB_CHECK_A_FALL])
		cfg->fall = nla_get_u8(tb[KLB_CHECK_A_FALL]);
	if (tb[KLB_CHECK_A_EXPECT]) {
		expect = nla_get_u16(tb[KLB_CHECK_A_EXPECT]);
		if (expect > 5 && expect < 100) {
			klb_err(extack, tb[KLB_CHECK_A_EXPECT],
				"check expect must be a status class 1..5 or a status 100..599");
			return -EINVAL;
		}
		cfg->expect = expect;
	}
	klb_nl_check_str(tb, KLB_CHECK_A_PATH, cfg->path, sizeof(cfg->path));
	if (cfg->path[0] != '/') {
		klb_err(extack, tb[KLB_CHECK_A_PATH],
			"check path must start with '/'");
		return -EINVAL;
	}
	klb_nl_check_str(tb, KLB_CHECK_A_HOST, cfg->host, sizeof(cfg->host));
	klb_nl_check_str(tb, KLB_CHECK_A_BODY, cfg->body, sizeof(cfg->body));
	klb_nl_check_str(tb, KLB_CHECK_A_SNI, cfg->sni, sizeof(cfg->sni));
	/* They go into a request line, a header, a ClientHello: printable. */
	if (!klb_nl_check_printable(cfg->path) ||
	    !klb_nl_check_printable(cfg->host) ||
	    !klb_nl_check_printable(cfg->sni)) {
		klb_err(extack, nest,
			"check path, host and sni may not contain spaces or control characters");
		return -EINVAL;
	}
	return 0;
}

int klb_nl_put_check(struct sk_buff *skb, const struct klb_check_cfg *cfg)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, KLB_POOL_A_CHECK);
	if (!nest ||
	    nla_put_u8(skb, KLB_CHECK_A_KIND, cfg->kind) ||
	    (cfg->port && nla_put_u16(skb, KLB_CHECK_A_PORT, cfg->port)) ||
	    nla_put_u32(skb, KLB_CHECK_A_INTERVAL_MS, cfg->interval_ms) ||
	    nla_put_u32(skb, KLB_CHECK_A_TIMEOUT_MS, cfg->timeout_ms) ||
	    nla_put_u8(skb, KLB_CHECK_A_RISE, cfg->rise) ||
	    nla_put_u8(skb, KLB_CHECK_A_FALL, cfg->fall))
		goto err;
	if (cfg->kind == KLB_CHECK_HTTP &&
	    (nla_put_string(skb, KLB_CHECK_A_PATH, cfg->path) ||
	     (cfg->host[0] && nla_put_string(skb, KLB_CHECK_A_HOST, cfg->host)) ||
	     nla_put_u16(skb, KLB_CHECK_A_EXPECT, cfg->expect) ||
	     (cfg->body[0] && nla_put_string(skb, KLB_CHECK_A_BODY, cfg->body))))
		goto err;
	if (cfg->sni[0] && nla_put_string(skb, KLB_CHECK_A_SNI, cfg->sni))
		goto err;
	nla_nest_end(skb, nest);
	return 0;
err:
	if (nest)
		nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

bool klb_nl_parse_passive(struct nlattr **tb, struct klb_passive_cfg *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	/* The policy checked the ranges. */
	if (tb[KLB_POOL_A_PASSIVE_FALL]) {
		cfg->has_fall = true;
		cfg->fall = nla_get_u8(tb[KLB_POOL_A_PASSIVE_FALL]);
	}
	if (tb[KLB_POOL_A_PASSIVE_EJECT_MS]) {
		cfg->has_eject = true;
		cfg->eject_ms = nla_get_u32(tb[KLB_POOL_A_PASSIVE_EJECT_MS]);
	}
	if (tb[KLB_POOL_A_PASSIVE_5XX]) {
		cfg->has_5xx = true;
		cfg->errors_5xx = nla_get_u8(tb[KLB_POOL_A_PASSIVE_5XX]);
	}
	if (tb[KLB_POOL_A_SLOWSTART_MS]) {
		cfg->has_slowstart = true;
		cfg->slowstart_ms = nla_get_u32(tb[KLB_POOL_A_SLOWSTART_MS]);
	}
	return cfg->has_fall || cfg->has_eject || cfg->has_5xx ||
	       cfg->has_slowstart;
}

int klb_nl_put_passive(struct sk_buff *skb, const struct klb_pool *pool)
{
	if (nla_put_u8(skb, KLB_POOL_A_PASSIVE_FALL, pool->passive_fall) ||
	    nla_put_u32(skb, KLB_POOL_A_PASSIVE_EJECT_MS,
			pool->passive_eject_ms) ||
	    nla_put_u8(skb, KLB_POOL_A_PASSIVE_5XX, pool->passive_5xx) ||
	    nla_put_u32(skb, KLB_POOL_A_SLOWSTART_MS, pool->slowstart_ms))
		return -EMSGSIZE;
	return 0;
}

size_t klb_nl_passive_size(void)
{
	return 2 * nla_total_size(sizeof(u8)) + 2 * nla_total_size(sizeof(u32));
}

int klb_nl_put_backend_passive(struct sk_buff *skb,
			       const struct klb_backend *be)
{
	unsigned long until = READ_ONCE(be->ejected_until);

	if (!READ_ONCE(be->passive_fall) && !until)
		goto weight;
	if (klb_backend_ejected(be) &&
	    nla_put_u32(skb, KLB_BACKEND_A_EJECTED_MS,
			jiffies_to_msecs(until - jiffies)))
		return -EMSGSIZE;
	if (nla_put_u32(skb, KLB_BACKEND_A_EJECTIONS, READ_ONCE(be->ejections)) ||
	    nla_put_u64_64bit(skb, KLB_BACKEND_A_PASSIVE_FAIL,
			      atomic_long_read(&be->passive_total),
			      KLB_BACKEND_A_PAD))
		return -EMSGSIZE;
weight:
	/* Under the lock (dumps): the weight of the published table. */
	if (be->published && be->weight_now != be->weight &&
	    nla_put_u32(skb, KLB_BACKEND_A_WEIGHT_NOW, be->weight_now))
		return -EMSGSIZE;
	return 0;
}

size_t klb_nl_backend_passive_size(void)
{
	return 3 * nla_total_size(sizeof(u32)) + nla_total_size_64bit(sizeof(u64));
}
