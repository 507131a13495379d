// SPDX-License-Identifier: GPL-2.0
/*
 * PERSIST_GET: the persistence entries, optionally of one service. Like
 * the connection dump, a best-effort walk of a table the datapath changes
 * under it, resumed from a cursor in the table (l4/persist.c).
 */
#include "l4/persist.h"
#include "netlink/cmds.h"
#include "netlink/dump.h"

/* What the dump keeps between its callbacks, in cb->args. */
struct klb_nl_persist_ctx {
	unsigned long walk[2];	/* klb_persist_walk()'s cursor */
	bool checked;		/* the filter's service was found */
	bool done;		/* the walk reached the end */
};

struct klb_persist_dump {
	struct sk_buff *skb;
	struct netlink_callback *cb;
	const char *service;		/* filter, or NULL */
};

static int klb_nl_put_persist(const struct klb_persist_info *pi, void *arg)
{
	struct klb_persist_dump *d = arg;
	struct sk_buff *skb = d->skb;
	struct nlattr *nest;
	void *hdr;

	if (d->service && strcmp(pi->svc->name, d->service))
		return 0;

	hdr = klb_nl_hdr(skb, NULL, d->cb, KLB_CMD_PERSIST_GET);
	if (!hdr)
		return -EMSGSIZE;
	nest = nla_nest_start(skb, KLB_A_PERSIST);
	if (!nest ||
	    nla_put_string(skb, KLB_PERSIST_A_SERVICE, pi->svc->name) ||
	    klb_nl_put_addr(skb, KLB_PERSIST_A_CLIENT_ADDR4,
			    KLB_PERSIST_A_CLIENT_ADDR6, pi->family, &pi->caddr) ||
	    nla_put_u8(skb, KLB_PERSIST_A_CLIENT_PREFIX, pi->plen) ||
	    klb_nl_put_addr(skb, KLB_PERSIST_A_BACKEND_ADDR4,
			    KLB_PERSIST_A_BACKEND_ADDR6, pi->family, &pi->baddr) ||
	    nla_put_u16(skb, KLB_PERSIST_A_BACKEND_PORT, ntohs(pi->bport)) ||
	    nla_put_u32(skb, KLB_PERSIST_A_CONNS, pi->conns) ||
	    nla_put_u32(skb, KLB_PERSIST_A_EXPIRES_MS, pi->expires_ms)) {
		genlmsg_cancel(skb, hdr);
		return -EMSGSIZE;
	}
	nla_nest_end(skb, nest);
	genlmsg_end(skb, hdr);
	return 0;
}

int klb_nl_persist_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct klb_nl_persist_ctx *ctx = (struct klb_nl_persist_ctx *)cb->args;
	struct klb_net *kn = klb_net(sock_net(skb->sk));
	struct klb_persist_dump d = {
		.skb = skb,
		.cb = cb,
		.service = klb_nl_dump_filter(cb, KLB_A_SERVICE,
					      KLB_SERVICE_A_NAME),
	};
	int err;

	BUILD_BUG_ON(sizeof(*ctx) > sizeof(cb->args));
	if (ctx->done)
		return 0;
	if (d.service && !ctx->checked) {
		err = klb_nl_dump_service_exists(cb, kn, d.service);
		if (err)
			return err;
	}
	ctx->checked = true;
	err = klb_persist_walk(kn, ctx->walk, klb_nl_put_persist, &d);
	if (!err)
		ctx->done = true;
	else if (err != -EMSGSIZE || !skb->len)
		return err;
	return skb->len;
}
