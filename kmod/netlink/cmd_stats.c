// SPDX-License-Identifier: GPL-2.0
/*
 * STATS_GET: figures of the whole namespace. ZERO: counters of a service,
 * of a pool's backends, or of everything, read as 0 from now on
 * (klb_stats_zero(): a baseline the readers subtract; the datapath's
 * per-CPU counters are never written by anyone else).
 */
#include "l4/conn.h"
#include "l7/l7.h"
#include "netlink/cmds.h"
#include "netlink/dump.h"
#include "netlink/parse.h"
#include "netlink/policy.h"

struct klb_global {
	u32 conns, conn_max, l7_sessions, listeners;
	u32 services, pools, backends;
	u32 conn_buckets;
	u64 conn_evictions;
};

static void klb_global_read(struct klb_net *kn, struct klb_global *g)
{
	struct klb_service *svc;
	struct klb_pool *pool;

	memset(g, 0, sizeof(*g));
	if (kn->conns)
		g->conns = atomic_read(&kn->conns->core.count);
	g->conn_max = READ_ONCE(kn->sysctl.conn_max);
	g->conn_buckets = klb_conn_buckets(kn);
	g->conn_evictions = klb_conn_evictions(kn);
	if (kn->l7)
		g->l7_sessions = READ_ONCE(kn->l7->nsessions);
	list_for_each_entry(svc, &kn->services, node) {
		g->services++;
		if (svc->listener)
			g->listeners++;
	}
	list_for_each_entry(pool, &kn->pools, node) {
		g->pools++;
		g->backends += pool->nbackends;
	}
}

int klb_nl_stats_get(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_nl_net(info);
	struct klb_global g;
	struct sk_buff *msg;
	struct nlattr *nest;
	void *hdr;

	klb_global_read(kn, &g);
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;
	hdr = klb_nl_hdr(msg, info, NULL, KLB_CMD_STATS_GET);
	if (!hdr)
		goto err;
	nest = nla_nest_start(msg, KLB_A_STATS);
	if (!nest ||
	    nla_put_u32(msg, KLB_GLOBAL_A_CONNS, g.conns) ||
	    nla_put_u32(msg, KLB_GLOBAL_A_CONN_MAX, g.conn_max) ||
	    nla_put_u32(msg, KLB_GLOBAL_A_L7_SESSIONS, g.l7_sessions) ||
	    nla_put_u32(msg, KLB_GLOBAL_A_LISTENERS, g.listeners) ||
	    nla_put_u32(msg, KLB_GLOBAL_A_SERVICES, g.services) ||
	    nla_put_u32(msg, KLB_GLOBAL_A_POOLS, g.pools) ||
	    nla_put_u32(msg, KLB_GLOBAL_A_BACKENDS, g.backends) ||
	    nla_put_u32(msg, KLB_GLOBAL_A_CONN_BUCKETS, g.conn_buckets) ||
	    nla_put_u64_64bit(msg, KLB_GLOBAL_A_CONN_EVICTIONS,
			      g.conn_evictions, KLB_GLOBAL_A_PAD))
		goto err;
	nla_nest_end(msg, nest);
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static void klb_zero_pool(struct klb_pool *pool)
{
	struct klb_backend *be;

	list_for_each_entry(be, &pool->backends, pool_node)
		klb_stats_zero(be->stats);
}

/* The nest @type holds a name and nothing else: the object's name. */
static int klb_zero_name(struct genl_info *info, int type, int name_type,
			 int maxtype, const struct nla_policy *policy,
			 const char *what, const char **name)
{
	struct nlattr *tb[KLB_SERVICE_A_MAX + 1];
	int err, i;

	BUILD_BUG_ON(KLB_POOL_A_MAX > KLB_SERVICE_A_MAX);
	err = klb_nl_nest(info, type, what, tb, maxtype, policy);
	if (err)
		return err;
	for (i = 1; i <= maxtype; i++) {
		if (tb[i] && i != name_type) {
			klb_err(info->extack, tb[i], "zero takes only a %s name",
				what);
			return -EINVAL;
		}
	}
	return klb_nl_req_name(info->attrs[type], tb, name_type, what, name,
			       info->extack);
}

int klb_nl_zero(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_nl_net(info);
	struct nlattr *svc_attr = info->attrs[KLB_A_SERVICE];
	struct nlattr *pool_attr = info->attrs[KLB_A_POOL];
	struct klb_service *svc;
	struct klb_pool *pool;
	const char *name;
	int err;

	if (svc_attr && pool_attr) {
		klb_err(info->extack, pool_attr,
			"zero takes a service or a pool, not both");
		return -EINVAL;
	}
	if (svc_attr) {
		err = klb_zero_name(info, KLB_A_SERVICE, KLB_SERVICE_A_NAME,
				    KLB_SERVICE_A_MAX, klb_service_policy,
				    "service", &name);
		if (err)
			return err;
		svc = klb_service_find(&kn->services, name);
		if (!svc) {
			klb_err(info->extack, svc_attr,
				"service %s does not exist", name);
			return -ENOENT;
		}
		klb_stats_zero(svc->stats);
		return 0;
	}
	if (pool_attr) {
		err = klb_zero_name(info, KLB_A_POOL, KLB_POOL_A_NAME,
				    KLB_POOL_A_MAX, klb_pool_policy, "pool",
				    &name);
		if (err)
			return err;
		pool = klb_pool_find(&kn->pools, name);
		if (!pool) {
			klb_err(info->extack, pool_attr,
				"pool %s does not exist", name);
			return -ENOENT;
		}
		klb_zero_pool(pool);
		return 0;
	}
	list_for_each_entry(svc, &kn->services, node)
		klb_stats_zero(svc->stats);
	list_for_each_entry(pool, &kn->pools, node)
		klb_zero_pool(pool);
	return 0;
}
