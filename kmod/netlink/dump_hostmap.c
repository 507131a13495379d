// SPDX-License-Identifier: GPL-2.0
/*
 * HOSTMAP_GET: the names of every service's host map, or of the one the
 * request names, one message per name, in the order they were added.
 * As the other config dumps: kn->lock per callback, kn->gen as the
 * sequence, so a change between two callbacks flags NLM_F_DUMP_INTR and
 * klbctl starts again rather than show half of an old map and half of a
 * new one.
 */
#include "config/hostmap.h"
#include "config/service.h"
#include "netlink/cmds.h"
#include "netlink/dump.h"

/* Between callbacks (cb->args): the next service and name, the filter. */
enum { KLB_HMD_SVC, KLB_HMD_NAME, KLB_HMD_CHECKED };

/* A name that is not NUL-terminated where it is kept. */
static int klb_nl_put_name(struct sk_buff *skb, int type, const char *s,
			   u32 len)
{
	struct nlattr *a = nla_reserve(skb, type, len + 1);

	if (!a)
		return -EMSGSIZE;
	memcpy(nla_data(a), s, len);
	((char *)nla_data(a))[len] = '\0';
	return 0;
}

static int klb_nl_fill_host(struct sk_buff *skb, struct netlink_callback *cb,
			    const struct klb_service *svc,
			    const struct klb_hostmap *map, u32 i)
{
	const struct klb_pool *pool = klb_hostmap_pool(map, i);
	struct nlattr *nest;
	void *hdr;

	hdr = klb_nl_hdr(skb, NULL, cb, KLB_CMD_HOSTMAP_GET);
	if (!hdr)
		return -EMSGSIZE;
	genl_dump_check_consistent(cb, hdr);
	nest = nla_nest_start(skb, KLB_A_HOSTMAP);
	if (!nest ||
	    nla_put_string(skb, KLB_HOSTMAP_A_SERVICE, svc->name) ||
	    klb_nl_put_name(skb, KLB_HOSTMAP_A_HOST, klb_hm_name(&map->hm, i),
			    map->hm.e[i].len) ||
	    nla_put_string(skb, KLB_HOSTMAP_A_POOL, pool->name)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
}

int klb_nl_hostmap_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	const char *name = klb_nl_dump_filter(cb, KLB_A_HOSTMAP,
					      KLB_HOSTMAP_A_SERVICE);
	struct klb_net *kn = klb_net(sock_net(skb->sk));
	unsigned long s = 0, i = cb->args[KLB_HMD_NAME];
	struct klb_hostmap *map;
	struct klb_service *svc;
	int err = 0;

	mutex_lock(&kn->lock);
	cb->seq = kn->gen;
	if (name && !cb->args[KLB_HMD_CHECKED]) {
		svc = klb_service_find(&kn->services, name);
		if (!svc) {
			mutex_unlock(&kn->lock);
			klb_err(cb->extack, NULL, "service %s does not exist",
				name);
			return -ENOENT;
		}
		cb->args[KLB_HMD_CHECKED] = 1;
	}
	list_for_each_entry(svc, &kn->services, node) {
		if (s++ < cb->args[KLB_HMD_SVC])
			continue;
		if (name && strcmp(svc->name, name)) {
			cb->args[KLB_HMD_SVC] = s;
			continue;
		}
		map = klb_service_hostmap(kn, svc);
		for (; map && i < map->hm.n; i++) {
			err = klb_nl_fill_host(skb, cb, svc, map, i);
			if (err)
				break;
		}
		if (err)
			break;
		cb->args[KLB_HMD_SVC] = s;
		i = 0;
	}
	mutex_unlock(&kn->lock);

	cb->args[KLB_HMD_NAME] = i;
	if (err && !skb->len)
		return err;
	return skb->len;
}
