// SPDX-License-Identifier: GPL-2.0
/*
 * Replies of the klb family: one pool or service (GET do), all of them
 * or only the one named (GET dump), the rules of a service (RULE_GET dump)
 * and the connection table (CONN_GET dump).
 *
 * Config dumps hold klb_net->lock in each callback and report kn->gen as
 * their sequence, so a change between two callbacks flags the dump
 * NLM_F_DUMP_INTR and userspace retries rather than show a torn view. Their
 * cursor is the position in the list and, for a pool whose backends did
 * not fit in one message, the next backend (struct klb_nl_dump_ctx).
 */
#include "netlink/acl_nl.h"
#include "backend_nla.h"
#include "config/hostmap.h"
#include "config/pool.h"
#include "config/service.h"
#include "l4/conn.h"
#include "l7/engine.h"
#include "l7/route.h"
#include "netlink/check.h"
#include "netlink/cmds.h"
#include "netlink/dump.h"

/*
 * What a dump keeps between its callbacks. It lives in cb->args, which
 * has this room on every supported kernel (cb->ctx is the same memory
 * where it exists).
 */
struct klb_nl_dump_ctx {
	unsigned long pos;	/* next pool, service, rule or L7 session */
	unsigned long idx;	/* next backend of a pool split over messages */
	unsigned long walk[2];	/* connections: klb_conn_walk()'s cursor */
	bool checked;		/* the filter's object was found (first call) */
	bool done;		/* connections: the walk reached the end */
	bool l7_done;		/* connections: the L7 sessions too */
};

static struct klb_nl_dump_ctx *klb_nl_dump_ctx(struct netlink_callback *cb)
{
	BUILD_BUG_ON(sizeof(struct klb_nl_dump_ctx) > sizeof(cb->args));
	return (struct klb_nl_dump_ctx *)cb->args;
}

static size_t klb_nl_stats_size(void)
{
	return nla_total_size(0) +			/* STATS */
	       (6 + KLB_DROP__MAX) *
	       nla_total_size_64bit(sizeof(u64)) +	/* counters, drops */
	       nla_total_size(0) +			/* L7 */
	       KLB_L7__MAX * nla_total_size_64bit(sizeof(u64));
}

static size_t klb_nl_backend_size(void)
{
	return nla_total_size(0) +			/* BACKEND */
	       klb_backend_nla_size() +			/* its attributes */
	       klb_nl_stats_size() +
	       nla_total_size(sizeof(u8)) +		/* HEALTH */
	       2 * nla_total_size_64bit(sizeof(u64)) +	/* CHECK_OK, _FAIL */
	       nla_total_size(sizeof(u32)) +		/* HEALTH_AGE */
	       nla_total_size(64) +			/* CHECK_ERROR */
	       klb_nl_backend_passive_size();
}

/* KLB_POOL_A_CHECK at its largest, ALL_UNHEALTHY and HASH. */
static size_t klb_nl_check_size(void)
{
	return nla_total_size(0) + 4 * nla_total_size(sizeof(u8)) +
	       nla_total_size(sizeof(u16)) * 2 +
	       nla_total_size(sizeof(u32)) * 2 +
	       nla_total_size(KLB_CHECK_PATH_MAX) +
	       nla_total_size(KLB_CHECK_HOST_MAX) * 2 +
	       nla_total_size(KLB_CHECK_BODY_MAX) +
	       nla_total_size(sizeof(u8));
}

/* KLB_STATS_A_L7: the L7 counters, in the same order as enum klb_l7_ctr. */
static int klb_nl_put_l7(struct sk_buff *skb, const struct klb_stats_sum *sum)
{
	struct nlattr *nest;
	int i;

	BUILD_BUG_ON(KLB_L7_STATS_A_REQUESTS + KLB_L7__MAX - 1 !=
		     KLB_L7_STATS_A_MAX);
	BUILD_BUG_ON(KLB_L7_STATS_A_REQUESTS + KLB_L7_ERR_LIMIT !=
		     KLB_L7_STATS_A_ERR_LIMIT);

	nest = nla_nest_start(skb, KLB_STATS_A_L7);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < KLB_L7__MAX; i++) {
		if (nla_put_u64_64bit(skb, KLB_L7_STATS_A_REQUESTS + i,
				      sum->l7[i], KLB_L7_STATS_A_PAD)) {
			nla_nest_cancel(skb, nest);
			return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * @drops: the drop counters (services); @l7: the L7 counters (backends,
 * which any service may use, and http or tls services).
 */
static int klb_nl_put_stats(struct sk_buff *skb, int type,
			    const struct klb_stats_sum *sum, bool drops,
			    bool l7)
{
	struct nlattr *nest;

	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, KLB_STATS_A_CONNS, sum->conns,
			      KLB_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KLB_STATS_A_ACTIVE_CONNS, sum->active_conns,
			      KLB_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KLB_STATS_A_PKTS_IN, sum->pkts_in,
			      KLB_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KLB_STATS_A_PKTS_OUT, sum->pkts_out,
			      KLB_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KLB_STATS_A_BYTES_IN, sum->bytes_in,
			      KLB_STATS_A_PAD) ||
	    nla_put_u64_64bit(skb, KLB_STATS_A_BYTES_OUT, sum->bytes_out,
			      KLB_STATS_A_PAD))
		goto err;
	if (drops &&
	    (nla_put_u64_64bit(skb, KLB_STATS_A_DROP_NO_BACKEND,
			       sum->drops[KLB_DROP_NO_BACKEND],
			       KLB_STATS_A_PAD) ||
	     nla_put_u64_64bit(skb, KLB_STATS_A_DROP_TABLE_FULL,
			       sum->drops[KLB_DROP_TABLE_FULL],
			       KLB_STATS_A_PAD) ||
	     nla_put_u64_64bit(skb, KLB_STATS_A_DROP_BAD_PACKET,
			       sum->drops[KLB_DROP_BAD_PACKET],
			       KLB_STATS_A_PAD) ||
	     nla_put_u64_64bit(skb, KLB_STATS_A_DROP_NO_PORT,
			       sum->drops[KLB_DROP_NO_PORT],
			       KLB_STATS_A_PAD) ||
	     nla_put_u64_64bit(skb, KLB_STATS_A_DROP_NO_ROUTE,
			       sum->drops[KLB_DROP_NO_ROUTE],
			       KLB_STATS_A_PAD) ||
	     nla_put_u64_64bit(skb, KLB_STATS_A_DROP_TOO_BIG,
			       sum->drops[KLB_DROP_TOO_BIG],
			       KLB_STATS_A_PAD) ||
	     nla_put_u64_64bit(skb, KLB_STATS_A_PERSIST_FULL,
			       sum->drops[KLB_DROP_PERSIST_FULL],
			       KLB_STATS_A_PAD) ||
	     nla_put_u64_64bit(skb, KLB_STATS_A_DROP_BAD_SOURCE,
			       sum->drops[KLB_DROP_BAD_SOURCE],
			       KLB_STATS_A_PAD) ||
	     nla_put_u64_64bit(skb, KLB_STATS_A_DROP_ACL,
			       sum->drops[KLB_DROP_ACL],
			       KLB_STATS_A_PAD) ||
	     nla_put_u64_64bit(skb, KLB_STATS_A_DROP_MAXCONN,
			       sum->drops[KLB_DROP_MAXCONN],
			       KLB_STATS_A_PAD) ||
	     nla_put_u64_64bit(skb, KLB_STATS_A_CONNS_ADOPTED, sum->adopted,
			       KLB_STATS_A_PAD) ||
	     nla_put_u64_64bit(skb, KLB_STATS_A_DROP_ADOPT_FULL,
			       sum->drops[KLB_DROP_ADOPT_FULL],
			       KLB_STATS_A_PAD)))
		goto err;
	if (l7 && klb_nl_put_l7(skb, sum))
		goto err;
	nla_nest_end(skb, nest);
	return 0;

err:
	nla_nest_cancel(skb, nest);
	return -EMSGSIZE;
}

int klb_nl_put_addr(struct sk_buff *skb, int type4, int type6, u16 family,
		    const union nf_inet_addr *addr)
{
	if (family == AF_INET)
		return nla_put_in_addr(skb, type4, addr->ip);
	return nla_put_in6_addr(skb, type6, &addr->in6);
}

/* What the pool's check says of @be (nothing without a check). */
static int klb_nl_put_health(struct sk_buff *skb, const struct klb_pool *pool,
			     const struct klb_backend *be)
{
	unsigned long age = jiffies - READ_ONCE(be->health_changed);
	char err[64];

	if (!pool->check)
		return 0;
	klb_health_error(be, pool->check->kind, err, sizeof(err));
	if (nla_put_u8(skb, KLB_BACKEND_A_HEALTH, READ_ONCE(be->health)) ||
	    nla_put_u64_64bit(skb, KLB_BACKEND_A_CHECK_OK,
			      READ_ONCE(be->check_ok), KLB_BACKEND_A_PAD) ||
	    nla_put_u64_64bit(skb, KLB_BACKEND_A_CHECK_FAIL,
			      READ_ONCE(be->check_fail), KLB_BACKEND_A_PAD) ||
	    nla_put_u32(skb, KLB_BACKEND_A_HEALTH_AGE, age / HZ) ||
	    (err[0] && nla_put_string(skb, KLB_BACKEND_A_CHECK_ERROR, err)))
		return -EMSGSIZE;
	return 0;
}

static int klb_nl_put_backend(struct sk_buff *skb,
			      const struct klb_pool *pool,
			      const struct klb_backend *be)
{
	struct klb_stats_sum sum;
	struct nlattr *nest;

	nest = nla_nest_start(skb, KLB_POOL_A_BACKEND);
	if (!nest)
		return -EMSGSIZE;
	klb_stats_read(be->stats, &sum);
	sum.active_conns = atomic_read(&be->active_conns);
	if (klb_backend_nla_put(skb, be) ||
	    klb_nl_put_stats(skb, KLB_BACKEND_A_STATS, &sum, false, true) ||
	    klb_nl_put_health(skb, pool, be) ||
	    klb_nl_put_backend_passive(skb, be)) {
		nla_nest_cancel(skb, nest);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	return 0;
}

/*
 * One message about @pool, with its backends from *@idx on. Returns 0 once
 * the last backend is in; -EMSGSIZE if the skb filled up, with *@idx at the
 * first backend left out (the message, if any, is complete and valid).
 */
static int klb_nl_fill_pool(struct sk_buff *skb, struct klb_pool *pool,
			    struct genl_info *info,
			    struct netlink_callback *cb, unsigned long *idx)
{
	struct nlattr *pnest, *bnest;
	struct klb_backend *be;
	unsigned long i = 0, n = 0;
	bool full = false;
	void *hdr;

	hdr = klb_nl_hdr(skb, info, cb, KLB_CMD_POOL_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);

	pnest = nla_nest_start(skb, KLB_A_POOL);
	if (!pnest ||
	    nla_put_string(skb, KLB_POOL_A_NAME, pool->name) ||
	    nla_put_u8(skb, KLB_POOL_A_SCHED, pool->sched) ||
	    nla_put_u8(skb, KLB_POOL_A_ALL_UNHEALTHY, pool->all_unhealthy) ||
	    nla_put_u8(skb, KLB_POOL_A_HASH, pool->hash) ||
	    klb_nl_put_passive(skb, pool) ||
	    (pool->check && klb_nl_put_check(skb, pool->check)))
		goto err;
	bnest = nla_nest_start(skb, KLB_POOL_A_BACKENDS);
	if (!bnest)
		goto err;
	list_for_each_entry(be, &pool->backends, pool_node) {
		if (i++ < *idx)
			continue;
		if (klb_nl_put_backend(skb, pool, be)) {
			/* Not even one backend: let the next skb carry it all. */
			if (!n)
				goto err;
			full = true;
			break;
		}
		n++;
		(*idx)++;
	}
	/* nla_len is 16 bits: only a do reply can grow that big */
	if (skb_tail_pointer(skb) - (unsigned char *)pnest > U16_MAX)
		goto err;
	nla_nest_end(skb, bnest);
	nla_nest_end(skb, pnest);
	genlmsg_end(skb, hdr);
	return full ? -EMSGSIZE : 0;

err:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

int klb_nl_pool_get_one(struct klb_net *kn, struct klb_pool *pool,
			struct genl_info *info)
{
	unsigned long idx = 0;
	struct sk_buff *msg;
	size_t size;
	int err;

	klb_assert_locked(kn);

	size = nla_total_size(0) + nla_total_size(KLB_NAME_MAX) +
	       nla_total_size(sizeof(u8)) + nla_total_size(0) +
	       klb_nl_check_size() + klb_nl_passive_size() +
	       pool->nbackends * klb_nl_backend_size();
	msg = genlmsg_new(size, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = klb_nl_fill_pool(msg, pool, info, NULL, &idx);
	if (err) {
		nlmsg_free(msg);
		klb_err(info->extack, NULL,
			"pool %s is too large for one reply, dump it",
			pool->name);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/*
 * A dump may be limited to the pool named in KLB_A_POOL: unlike a do
 * request, it can carry a pool of any size.
 */
const char *klb_nl_dump_filter(struct netlink_callback *cb, int type,
			       int name_type)
{
	const struct nlattr *nest = klb_genl_dump_attrs(cb)[type];
	const struct nlattr *name;

	if (!nest)
		return NULL;
	name = nla_find_nested(nest, name_type);
	return name ? nla_data(name) : NULL;
}

int klb_nl_pool_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	const char *name = klb_nl_dump_filter(cb, KLB_A_POOL, KLB_POOL_A_NAME);
	struct klb_nl_dump_ctx *ctx = klb_nl_dump_ctx(cb);
	struct klb_net *kn = klb_net(sock_net(skb->sk));
	unsigned long pos = ctx->pos, idx = ctx->idx, i = 0;
	struct klb_pool *pool;
	int err = 0;

	mutex_lock(&kn->lock);
	cb->seq = kn->gen;
	if (name && !ctx->checked && !klb_pool_find(&kn->pools, name)) {
		mutex_unlock(&kn->lock);
		klb_err(cb->extack, NULL, "pool %s does not exist", name);
		return -ENOENT;
	}
	ctx->checked = true;
	list_for_each_entry(pool, &kn->pools, node) {
		if (i++ < pos)
			continue;
		if (name && strcmp(pool->name, name)) {
			pos++;
			continue;
		}
		err = klb_nl_fill_pool(skb, pool, NULL, cb, &idx);
		if (err)
			break;
		pos++;
		idx = 0;
	}
	mutex_unlock(&kn->lock);

	ctx->pos = pos;
	ctx->idx = idx;
	/* Nothing fit in an empty skb: do not loop forever. */
	if (err && !skb->len)
		return err;
	return skb->len;
}

static int klb_nl_put_snat(struct sk_buff *skb, const struct klb_service *svc)
{
	struct nlattr *nest;
	int i;

	if (!svc->nsnat)
		return 0;
	nest = nla_nest_start(skb, KLB_SERVICE_A_SNAT);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < svc->nsnat; i++)
		if (klb_nl_put_addr(skb, KLB_SNAT_A_ADDR4, KLB_SNAT_A_ADDR6,
				    svc->family, &svc->snat[i]))
			return -EMSGSIZE;	/* the caller cancels the message */
	nla_nest_end(skb, nest);
	return 0;
}

static int klb_nl_fill_service(struct sk_buff *skb, struct klb_net *kn,
			       struct klb_service *svc, struct genl_info *info,
			       struct netlink_callback *cb)
{
	bool l7 = klb_mode_l7(svc->mode);
	struct klb_rule_set *rules;
	struct klb_hostmap *map;
	struct klb_stats_sum sum;
	struct klb_pool *pool;
	struct nlattr *nest;
	void *hdr;

	pool = klb_service_pool(kn, svc);
	rules = klb_service_rules(kn, svc);
	map = klb_service_hostmap(kn, svc);
	klb_stats_read(svc->stats, &sum);
	sum.active_conns = atomic_read(&svc->active_conns);

	hdr = klb_nl_hdr(skb, info, cb, KLB_CMD_SERVICE_GET);
	if (!hdr)
		return -EMSGSIZE;
	if (cb)
		genl_dump_check_consistent(cb, hdr);

	nest = nla_nest_start(skb, KLB_A_SERVICE);
	if (!nest ||
	    nla_put_string(skb, KLB_SERVICE_A_NAME, svc->name) ||
	    klb_nl_put_addr(skb, KLB_SERVICE_A_ADDR4, KLB_SERVICE_A_ADDR6,
			    svc->family, &svc->addr) ||
	    nla_put_u16(skb, KLB_SERVICE_A_PORT, ntohs(svc->port)) ||
	    nla_put_u8(skb, KLB_SERVICE_A_PROTO, svc->proto) ||
	    nla_put_u8(skb, KLB_SERVICE_A_MODE, svc->mode) ||
	    nla_put_string(skb, KLB_SERVICE_A_POOL, pool->name) ||
	    (svc->proxy_protocol &&
	     nla_put_u8(skb, KLB_SERVICE_A_PROXY_PROTOCOL,
			svc->proxy_protocol)) ||
	    (l7 && nla_put_u32(skb, KLB_SERVICE_A_NRULES,
			       rules ? rules->n : 0)) ||
	    (l7 && nla_put_u32(skb, KLB_SERVICE_A_NHOSTS,
			       map ? map->hm.n : 0)) ||
	    klb_nl_put_snat(skb, svc) ||
	    (svc->persist_timeout &&
	     (nla_put_u32(skb, KLB_SERVICE_A_PERSIST, svc->persist_timeout) ||
	      nla_put_u8(skb, KLB_SERVICE_A_PERSIST_MASK, svc->persist_mask))) ||
	    (svc->cookie[0] &&
	     nla_put_string(skb, KLB_SERVICE_A_COOKIE, svc->cookie)) ||
	    ((svc->mode == KLB_MODE_DR || svc->mode == KLB_MODE_TUN) &&
	     svc->proto == IPPROTO_TCP &&
	     nla_put_u8(skb, KLB_SERVICE_A_ADOPT, READ_ONCE(svc->adopt))) ||
	    klb_nl_put_acl(skb, klb_service_acl(kn, svc)) ||
	    klb_nl_put_stats(skb, KLB_SERVICE_A_STATS, &sum, true, l7)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
}

int klb_nl_service_get_one(struct klb_net *kn, struct klb_service *svc,
			   struct genl_info *info)
{
	struct sk_buff *msg;
	int err;

	klb_assert_locked(kn);

	msg = genlmsg_new(NLMSG_GOODSIZE + klb_nl_acl_size(), GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	err = klb_nl_fill_service(msg, kn, svc, info, NULL);
	if (err) {
		nlmsg_free(msg);
		return err;
	}
	return genlmsg_reply(msg, info);
}

/* All services, or, as the pool dump, only the one named in KLB_A_SERVICE. */
int klb_nl_service_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	const char *name = klb_nl_dump_filter(cb, KLB_A_SERVICE,
					      KLB_SERVICE_A_NAME);
	struct klb_nl_dump_ctx *ctx = klb_nl_dump_ctx(cb);
	struct klb_net *kn = klb_net(sock_net(skb->sk));
	unsigned long pos = ctx->pos, i = 0;
	struct klb_service *svc;
	int err = 0;

	mutex_lock(&kn->lock);
	cb->seq = kn->gen;
	if (name && !ctx->checked && !klb_service_find(&kn->services, name)) {
		mutex_unlock(&kn->lock);
		klb_err(cb->extack, NULL, "service %s does not exist", name);
		return -ENOENT;
	}
	ctx->checked = true;
	list_for_each_entry(svc, &kn->services, node) {
		if (i++ < pos)
			continue;
		if (name && strcmp(svc->name, name)) {
			pos++;
			continue;
		}
		err = klb_nl_fill_service(skb, kn, svc, NULL, cb);
		if (err)
			break;
		pos++;
	}
	mutex_unlock(&kn->lock);

	ctx->pos = pos;
	if (err && !skb->len)
		return err;
	return skb->len;
}

/* ---- rules ------------------------------------------------------------- */

/* A rule string (not NUL-terminated in struct klb_rule) as a string. */
static int klb_nl_put_strn(struct sk_buff *skb, int type, const char *s,
			   u16 len)
{
	struct nlattr *attr = nla_reserve(skb, type, len + 1);

	if (!attr)
		return -EMSGSIZE;
	memcpy(nla_data(attr), s, len);
	((char *)nla_data(attr))[len] = '\0';
	return 0;
}

static int klb_nl_fill_rule(struct sk_buff *skb, struct netlink_callback *cb,
			    const struct klb_service *svc, u32 index,
			    const struct klb_rule_entry *e)
{
	const struct klb_rule *r = &e->rule;
	struct nlattr *nest;
	void *hdr;

	hdr = klb_nl_hdr(skb, NULL, cb, KLB_CMD_RULE_GET);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(cb, hdr);

	nest = nla_nest_start(skb, KLB_A_RULE);
	if (!nest ||
	    nla_put_string(skb, KLB_RULE_A_SERVICE, svc->name) ||
	    nla_put_u32(skb, KLB_RULE_A_INDEX, index) ||
	    ((r->match & KLB_RULE_M_HOST) &&
	     klb_nl_put_strn(skb, KLB_RULE_A_HOST, r->host, r->host_len)) ||
	    ((r->match & KLB_RULE_M_PATH) &&
	     klb_nl_put_strn(skb, KLB_RULE_A_PATH, r->path, r->path_len)) ||
	    ((r->match & KLB_RULE_M_HEADER) &&
	     (klb_nl_put_strn(skb, KLB_RULE_A_HEADER_NAME, r->hname,
			      r->hname_len) ||
	      klb_nl_put_strn(skb, KLB_RULE_A_HEADER_VALUE, r->hvalue,
			      r->hvalue_len))) ||
	    ((r->match & KLB_RULE_M_METHOD) &&
	     klb_nl_put_strn(skb, KLB_RULE_A_METHOD, r->method,
			     r->method_len)) ||
	    ((r->match & KLB_RULE_M_SNI) &&
	     klb_nl_put_strn(skb, KLB_RULE_A_SNI, r->sni, r->sni_len)) ||
	    nla_put_string(skb, KLB_RULE_A_POOL, e->pool->name)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * The rules of the service named in KLB_A_RULE{SERVICE}, one message each.
 * A change in between (the service gone, a rule deleted) bumps
 * kn->gen, which flags the rest of the dump and its end NLM_F_DUMP_INTR.
 */
int klb_nl_rule_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	const char *name = klb_nl_dump_filter(cb, KLB_A_RULE,
					      KLB_RULE_A_SERVICE);
	struct klb_nl_dump_ctx *ctx = klb_nl_dump_ctx(cb);
	struct klb_net *kn = klb_net(sock_net(skb->sk));
	unsigned long i = ctx->pos;
	struct klb_rule_set *set;
	struct klb_service *svc;
	int err = 0;

	if (!name) {
		klb_err(cb->extack, NULL,
			"missing rule service: rules are listed per service");
		return -EINVAL;
	}
	mutex_lock(&kn->lock);
	cb->seq = kn->gen;
	svc = klb_service_find(&kn->services, name);
	if (!svc) {
		mutex_unlock(&kn->lock);
		if (ctx->checked)
			return 0;
		klb_err(cb->extack, NULL, "service %s does not exist", name);
		return -ENOENT;
	}
	ctx->checked = true;
	set = klb_service_rules(kn, svc);
	for (; set && i < set->n; i++) {
		err = klb_nl_fill_rule(skb, cb, svc, i, &set->e[i]);
		if (err)
			break;
	}
	mutex_unlock(&kn->lock);

	ctx->pos = i;
	if (err && !skb->len)
		return err;
	return skb->len;
}

/* ---- connections ------------------------------------------------------- */

int klb_nl_dump_service_exists(struct netlink_callback *cb, struct klb_net *kn,
			       const char *name)
{
	bool found;

	mutex_lock(&kn->lock);
	found = klb_service_find(&kn->services, name);
	mutex_unlock(&kn->lock);
	if (found)
		return 0;
	klb_err(cb->extack, NULL, "service %s does not exist", name);
	return -ENOENT;
}

struct klb_conn_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	const char *service;		/* filter, or NULL */
};

/* What an L4 connection and an L7 session both say of their client side. */
struct klb_flow_addrs {
	u16 family;
	const union nf_inet_addr *caddr, *vaddr;
	__be16 cport, vport;
};

/* An address and its port (network order) in the attributes given. */
static int klb_nl_put_endpoint(struct sk_buff *skb, int type4, int type6,
			       int type_port, u16 family,
			       const union nf_inet_addr *addr, __be16 port)
{
	return klb_nl_put_addr(skb, type4, type6, family, addr) ||
	       nla_put_u16(skb, type_port, ntohs(port));
}

/*
 * The message and KLB_A_CONN nest of one connection or session of
 * @service, with the attributes both kinds have: service, protocol,
 * client and VIP. NULL if the message is full (nothing left in @d->skb).
 */
static struct nlattr *klb_nl_conn_begin(struct klb_conn_dump *d,
					const char *service, u8 proto,
					const struct klb_flow_addrs *fa,
					void **hdr)
{
	struct sk_buff *skb = d->skb;
	struct nlattr *nest;

	*hdr = klb_nl_hdr(skb, NULL, d->cb, KLB_CMD_CONN_GET);
	if (!*hdr)
		return NULL;
	nest = nla_nest_start(skb, KLB_A_CONN);
	if (!nest ||
	    nla_put_string(skb, KLB_CONN_A_SERVICE, service) ||
	    nla_put_u8(skb, KLB_CONN_A_PROTO, proto) ||
	    klb_nl_put_endpoint(skb, KLB_CONN_A_CLIENT_ADDR4,
				KLB_CONN_A_CLIENT_ADDR6, KLB_CONN_A_CLIENT_PORT,
				fa->family, fa->caddr, fa->cport) ||
	    klb_nl_put_endpoint(skb, KLB_CONN_A_VIP_ADDR4, KLB_CONN_A_VIP_ADDR6,
				KLB_CONN_A_VIP_PORT, fa->family, fa->vaddr,
				fa->vport)) {
		genlmsg_cancel(skb, *hdr);
		return NULL;
	}
	return nest;
}

static int klb_nl_put_conn(const struct klb_conn_info *ci, void *arg)
{
	const struct klb_flow_addrs fa = {
		.family = ci->family,
		.caddr = &ci->caddr, .cport = ci->cport,
		.vaddr = &ci->vaddr, .vport = ci->vport,
	};
	struct klb_conn_dump *d = arg;
	struct sk_buff *skb = d->skb;
	struct nlattr *nest;
	void *hdr;

	if (d->service && strcmp(ci->svc->name, d->service))
		return 0;

	nest = klb_nl_conn_begin(d, ci->svc->name, ci->proto, &fa, &hdr);
	if (!nest)
		return -EMSGSIZE;
	if (klb_nl_put_endpoint(skb, KLB_CONN_A_BACKEND_ADDR4,
				KLB_CONN_A_BACKEND_ADDR6,
				KLB_CONN_A_BACKEND_PORT, ci->family,
				&ci->baddr, ci->bport) ||
	    nla_put_u8(skb, KLB_CONN_A_STATE, ci->state) ||
	    nla_put_u32(skb, KLB_CONN_A_EXPIRES_MS, ci->expires_ms) ||
	    (ci->lport &&
	     klb_nl_put_endpoint(skb, KLB_CONN_A_LOCAL_ADDR4,
				 KLB_CONN_A_LOCAL_ADDR6, KLB_CONN_A_LOCAL_PORT,
				 ci->family, &ci->laddr, ci->lport))) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
}

/* One L7 session: a KLB_A_CONN with the L7 attributes, no expiry. */
static int klb_nl_put_session(const struct klb_l7_session_info *si, void *arg)
{
	const struct klb_flow *f = si->flow;
	const struct klb_flow_addrs fa = {
		.family = f->family,
		.caddr = &f->saddr, .cport = f->sport,
		.vaddr = &f->daddr, .vport = f->dport,
	};
	struct klb_conn_dump *d = arg;
	struct sk_buff *skb = d->skb;
	struct nlattr *nest;
	void *hdr;

	if (d->service && strcmp(si->svc->name, d->service))
		return 0;

	nest = klb_nl_conn_begin(d, si->svc->name, IPPROTO_TCP, &fa, &hdr);
	if (!nest)
		return -EMSGSIZE;
	/* Sessions come and go without the config lock: flag a torn dump. */
	genl_dump_check_consistent(d->cb, hdr);
	if (nla_put_u8(skb, KLB_CONN_A_MODE, si->mode) ||
	    (si->be_port &&
	     klb_nl_put_endpoint(skb, KLB_CONN_A_BACKEND_ADDR4,
				 KLB_CONN_A_BACKEND_ADDR6,
				 KLB_CONN_A_BACKEND_PORT, si->be_family,
				 &si->be_addr, si->be_port)) ||
	    nla_put_u8(skb, KLB_CONN_A_L7_STATE, si->state) ||
	    nla_put_u32(skb, KLB_CONN_A_AGE_MS, si->age_ms) ||
	    nla_put_u64_64bit(skb, KLB_CONN_A_BYTES_IN, si->bytes_in,
			      KLB_CONN_A_PAD) ||
	    nla_put_u64_64bit(skb, KLB_CONN_A_BYTES_OUT, si->bytes_out,
			      KLB_CONN_A_PAD)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
}

/*
 * L4 connections (best effort under churn, klb_conn_walk()), then L7
 * sessions: those under a generation (cb->seq), so a session list that
 * changed between two parts of the dump flags it NLM_F_DUMP_INTR.
 */
int klb_nl_conn_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct klb_nl_dump_ctx *ctx = klb_nl_dump_ctx(cb);
	struct klb_net *kn = klb_net(sock_net(skb->sk));
	struct klb_conn_dump d = {
		.skb = skb,
		.cb = cb,
		.service = klb_nl_dump_filter(cb, KLB_A_SERVICE,
					      KLB_SERVICE_A_NAME),
	};
	int err;

	if (ctx->l7_done)
		return 0;
	if (d.service && !ctx->checked) {
		err = klb_nl_dump_service_exists(cb, kn, d.service);
		if (err)
			return err;
	}
	ctx->checked = true;
	if (!ctx->done) {
		err = klb_conn_walk(kn, ctx->walk, klb_nl_put_conn, &d);
		if (err)
			goto out;
		ctx->done = true;
	}
	err = klb_l7_session_walk(kn, &ctx->pos, &cb->seq, klb_nl_put_session,
				  &d);
	if (!err)
		ctx->l7_done = true;
out:
	if (err && (err != -EMSGSIZE || !skb->len))
		return err;
	return skb->len;
}
