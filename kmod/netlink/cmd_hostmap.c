// SPDX-License-Identifier: GPL-2.0
/*
 * HOSTMAP_NEW, HOSTMAP_DEL and HOSTMAP_SET: the host map of an http or tls
 * service (config/hostmap.c), one name at a time or all of it at once.
 *
 * A whole map travels as KLB_A_HOSTMAP attributes repeated at the top
 * level of one request, each naming its service, rather than one nest
 * holding them all: an attribute holds at most 64 KiB, a message is only
 * bounded by the sender's socket buffer (klbctl raises it). So a bulk load
 * and a restore's maps are each one request, staged, checked and swapped
 * in one store, with no state kept between requests. The same walk builds
 * SET's one map and a restore's maps, so both refuse the same entries
 * with the same messages.
 */
#include <linux/slab.h>

#include "config/hostmap.h"
#include "config/index.h"
#include "config/pool.h"
#include "config/restore.h"
#include "config/service.h"
#include "netlink/attr.h"
#include "netlink/cmds.h"
#include "netlink/hostmap.h"
#include "netlink/policy.h"

/* An entry's name, prepared (lowercase, no trailing dot) into @buf. */
static int klb_nl_hostmap_name(const struct nlattr *attr, char *buf, u32 *len,
			       struct netlink_ext_ack *extack)
{
	const char *msg;

	/* The policy ensured a NUL and at most KLB_HOSTMAP_NAME_LEN + 1. */
	if (klb_hm_name_prepare(nla_data(attr), strlen(nla_data(attr)), buf,
				len, &msg)) {
		klb_err(extack, attr, "%s", msg);
		return -EINVAL;
	}
	return 0;
}

static int klb_nl_hostmap_l7(struct klb_service *svc, const struct nlattr *attr,
			     struct netlink_ext_ack *extack)
{
	if (klb_mode_l7(svc->mode))
		return 0;
	klb_err(extack, attr, "service %s is not an http or tls service",
		svc->name);
	return -EINVAL;
}

/*
 * The service named in @tb, from @services (@hint first: a bulk request's
 * entries name one service after another), in an L7 mode.
 */
static struct klb_service *klb_nl_hostmap_service(struct list_head *services,
						  const struct klb_index *ix,
						  struct klb_service *hint,
						  const struct nlattr *nest,
						  struct nlattr **tb,
						  struct netlink_ext_ack *extack)
{
	struct klb_service *svc;
	const char *name;
	int err;

	err = klb_nl_req_name(nest, tb, KLB_HOSTMAP_A_SERVICE, "service",
			      &name, extack);
	if (err)
		return ERR_PTR(err);
	if (hint && !strcmp(hint->name, name))
		return hint;
	svc = ix ? klb_index_service(ix, name) :
		   klb_service_find(services, name);
	if (!svc) {
		klb_err(extack, tb[KLB_HOSTMAP_A_SERVICE],
			"service %s does not exist", name);
		return ERR_PTR(-ENOENT);
	}
	err = klb_nl_hostmap_l7(svc, tb[KLB_HOSTMAP_A_SERVICE], extack);
	return err ? ERR_PTR(err) : svc;
}

static struct klb_pool *klb_nl_hostmap_pool(struct list_head *pools,
					    const struct klb_index *ix,
					    struct klb_pool *hint,
					    const struct nlattr *nest,
					    struct nlattr **tb,
					    struct netlink_ext_ack *extack)
{
	struct klb_pool *pool;
	const char *name;
	int err;

	err = klb_nl_req_name(nest, tb, KLB_HOSTMAP_A_POOL, "pool", &name,
			      extack);
	if (err)
		return ERR_PTR(err);
	if (hint && !strcmp(hint->name, name))
		return hint;
	pool = ix ? klb_index_pool(ix, name) : klb_pool_find(pools, name);
	if (!pool) {
		klb_err(extack, tb[KLB_HOSTMAP_A_POOL], "pool %s does not exist",
			name);
		return ERR_PTR(-ENOENT);
	}
	return pool;
}

int klb_nl_hostmap_new(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_nl_net(info);
	struct nlattr *tb[KLB_HOSTMAP_A_MAX + 1];
	const struct nlattr *nest;
	char name[KLB_HM_NAME_MAX];
	struct klb_service *svc;
	struct klb_pool *pool;
	u32 len;
	int err;

	err = klb_nl_nest(info, KLB_A_HOSTMAP, "host map attributes", tb,
			  KLB_HOSTMAP_A_MAX, klb_hostmap_policy);
	if (err)
		return err;
	nest = info->attrs[KLB_A_HOSTMAP];
	svc = klb_nl_hostmap_service(&kn->services, NULL, NULL, nest, tb,
				     info->extack);
	if (IS_ERR(svc))
		return PTR_ERR(svc);
	if (klb_nl_missing(info->extack, nest, tb, KLB_HOSTMAP_A_HOST, "host"))
		return -EINVAL;
	err = klb_nl_hostmap_name(tb[KLB_HOSTMAP_A_HOST], name, &len,
				  info->extack);
	if (err)
		return err;
	pool = klb_nl_hostmap_pool(&kn->pools, NULL, NULL, nest, tb,
				   info->extack);
	if (IS_ERR(pool))
		return PTR_ERR(pool);
	err = klb_hostmap_add(kn, svc, name, len, pool, tb[KLB_HOSTMAP_A_HOST],
			      info->extack);
	if (!err)
		klb_config_changed(kn);
	return err;
}

int klb_nl_hostmap_del(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_nl_net(info);
	struct nlattr *tb[KLB_HOSTMAP_A_MAX + 1];
	const struct nlattr *nest;
	char name[KLB_HM_NAME_MAX];
	struct klb_service *svc;
	u32 len;
	int err;

	err = klb_nl_nest(info, KLB_A_HOSTMAP, "host map attributes", tb,
			  KLB_HOSTMAP_A_MAX, klb_hostmap_policy);
	if (err)
		return err;
	nest = info->attrs[KLB_A_HOSTMAP];
	if (tb[KLB_HOSTMAP_A_POOL]) {
		klb_err(info->extack, tb[KLB_HOSTMAP_A_POOL],
			"a host is deleted by its service and name only");
		return -EINVAL;
	}
	svc = klb_nl_hostmap_service(&kn->services, NULL, NULL, nest, tb,
				     info->extack);
	if (IS_ERR(svc))
		return PTR_ERR(svc);
	if (klb_nl_missing(info->extack, nest, tb, KLB_HOSTMAP_A_HOST, "host"))
		return -EINVAL;
	err = klb_nl_hostmap_name(tb[KLB_HOSTMAP_A_HOST], name, &len,
				  info->extack);
	if (!err)
		err = klb_hostmap_del(kn, svc, name, len,
				      tb[KLB_HOSTMAP_A_HOST], info->extack);
	if (!err)
		klb_config_changed(kn);
	return err;
}

/* One service's map being built from a request. */
struct klb_nl_hm_group {
	struct klb_service *svc;
	u32 n, names;
	struct klb_hostmap *map;
};

/* What a walk over a request's KLB_A_HOSTMAP attributes builds. */
struct klb_nl_hm_build {
	struct list_head *services, *pools;
	/* a restore's staged objects, indexed by name; NULL: walk the lists */
	const struct klb_set_index *ix;
	struct klb_pool *last_pool;	/* names of a pool often come together */
	struct klb_nl_hm_group *g;
	u32 ng, max;
	struct klb_nl_hm_group *last;	/* entries of a service come together */
};

static struct klb_nl_hm_group *klb_nl_hm_group(struct klb_nl_hm_build *b,
					       struct klb_service *svc)
{
	u32 i;

	if (b->last && b->last->svc == svc)
		return b->last;
	for (i = 0; i < b->ng; i++)
		if (b->g[i].svc == svc)
			return b->last = &b->g[i];
	if (b->ng == b->max)
		return NULL;
	b->g[b->ng].svc = svc;
	return b->last = &b->g[b->ng++];
}

/*
 * Pass 1 (@fill false): check the services and count each one's names
 * and bytes. Pass 2: prepare each name, look its pool up and add it to
 * its service's map, allocated to the exact size between the passes.
 */
static int klb_nl_hm_walk(struct klb_nl_hm_build *b, struct genl_info *info,
			  bool fill)
{
	struct netlink_ext_ack *extack = info->extack;
	struct nlattr *tb[KLB_HOSTMAP_A_MAX + 1];
	struct klb_nl_hm_group *g;
	char name[KLB_HM_NAME_MAX];
	struct klb_service *svc;
	struct klb_pool *pool;
	struct nlattr *attr;
	u32 len, dup, k = 0;
	int err, rem;

	nla_for_each_attr(attr, genlmsg_data(info->genlhdr),
			  genlmsg_len(info->genlhdr), rem) {
		if (nla_type(attr) != KLB_A_HOSTMAP)
			continue;
		if (!(++k & 1023))
			cond_resched();
		err = nla_parse_nested(tb, KLB_HOSTMAP_A_MAX, attr,
				       klb_hostmap_policy, extack);
		if (err)
			return err;
		svc = klb_nl_hostmap_service(b->services,
					     b->ix ? &b->ix->services : NULL,
					     b->last ? b->last->svc : NULL,
					     attr, tb, extack);
		if (IS_ERR(svc))
			return PTR_ERR(svc);
		g = klb_nl_hm_group(b, svc);
		if (!g) {
			klb_err(extack, attr, b->max == 1 ?
				"a host map is replaced one service at a time" :
				"host map entries name more services than there are");
			return -EINVAL;
		}
		if (!tb[KLB_HOSTMAP_A_HOST]) {
			/* SET's way to say "this service, no names". */
			if (tb[KLB_HOSTMAP_A_POOL]) {
				klb_err(extack, tb[KLB_HOSTMAP_A_POOL],
					"a pool needs a host");
				return -EINVAL;
			}
			continue;
		}
		if (!fill) {
			if (g->n == KLB_HOSTMAP_MAX) {
				klb_err(extack, attr,
					"service %s: more than %d hosts",
					svc->name, KLB_HOSTMAP_MAX);
				return -ENOSPC;
			}
			g->n++;
			g->names += nla_len(tb[KLB_HOSTMAP_A_HOST]);
			continue;
		}
		err = klb_nl_hostmap_name(tb[KLB_HOSTMAP_A_HOST], name, &len,
					  extack);
		if (err)
			return err;
		pool = klb_nl_hostmap_pool(b->pools,
					   b->ix ? &b->ix->pools : NULL,
					   b->last_pool, attr, tb, extack);
		if (IS_ERR(pool))
			return PTR_ERR(pool);
		b->last_pool = pool;
		err = klb_hm_add(&g->map->hm, name, len, pool, &dup);
		if (err) {
			klb_err(extack, tb[KLB_HOSTMAP_A_HOST],
				"host %.*s is twice in the map of %s",
				(int)len, name, svc->name);
			return WARN_ON_ONCE(err != -1) ? -EINVAL : -EEXIST;
		}
	}
	return 0;
}

/* Build every map the request holds; the caller gives or frees them. */
static int klb_nl_hm_build(struct klb_nl_hm_build *b, struct genl_info *info)
{
	u32 i;
	int err;

	err = klb_nl_hm_walk(b, info, false);
	for (i = 0; !err && i < b->ng; i++) {
		if (!b->g[i].n)
			continue;
		b->g[i].map = klb_hostmap_alloc(b->g[i].n, b->g[i].names);
		if (!b->g[i].map)
			err = -ENOMEM;
	}
	if (!err)
		err = klb_nl_hm_walk(b, info, true);
	return err;
}

static void klb_nl_hm_free(struct klb_nl_hm_build *b)
{
	u32 i;

	for (i = 0; i < b->ng; i++)
		klb_hostmap_destroy(b->g[i].map);
}

int klb_nl_hostmap_set(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_nl_net(info);
	struct klb_nl_hm_group g = { };
	struct klb_nl_hm_build b = {
		.services = &kn->services, .pools = &kn->pools,
		.g = &g, .max = 1,
	};
	int err;

	if (klb_nl_missing(info->extack, NULL, info->attrs, KLB_A_HOSTMAP,
			   "host map"))
		return -EINVAL;
	err = klb_nl_hm_build(&b, info);
	if (err) {
		klb_nl_hm_free(&b);
		return err;
	}
	klb_hostmap_replace(kn, g.svc, g.map);
	klb_config_changed(kn);
	return 0;
}

int klb_nl_hostmap_restore(struct klb_net *kn, struct genl_info *info,
			   struct klb_staged *st)
{
	struct klb_nl_hm_build b = {
		.services = &st->services, .pools = &st->pools, .ix = &st->ix,
	};
	struct klb_service *svc;
	u32 i;
	int err;

	if (!info->attrs[KLB_A_HOSTMAP])
		return 0;
	list_for_each_entry(svc, &st->services, node)
		b.max++;
	b.g = kvcalloc(b.max, sizeof(*b.g), GFP_KERNEL);
	if (!b.g)
		return -ENOMEM;
	err = klb_nl_hm_build(&b, info);
	if (err)
		klb_nl_hm_free(&b);
	for (i = 0; !err && i < b.ng; i++)
		klb_hostmap_replace(kn, b.g[i].svc, b.g[i].map);
	kvfree(b.g);
	return err;
}
