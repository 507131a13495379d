/* SPDX-License-Identifier: GPL-2.0 */
/* Helpers of dump.c that the other dump files (dump_persist.c) share. */
#ifndef _KLB_NETLINK_DUMP_H
#define _KLB_NETLINK_DUMP_H

#include <net/genetlink.h>

#include "klb.h"
#include "compat.h"

/*
 * The header of a reply: to the dump @cb (NLM_F_MULTI), or, with @cb
 * NULL, to the request @info. The family is the one the core ran the
 * dump for, or the one pre_doit put in @info, so no file below family.c
 * refers to klb_genl_family.
 */
static inline void *klb_nl_hdr(struct sk_buff *skb, struct genl_info *info,
			       struct netlink_callback *cb, u8 cmd)
{
	if (cb)
		return genlmsg_put(skb, NETLINK_CB(cb->skb).portid,
				   cb->nlh->nlmsg_seq, klb_dump_family(cb),
				   NLM_F_MULTI, cmd);
	return genlmsg_put(skb, info->snd_portid, info->snd_seq,
			   info->user_ptr[1], 0, cmd);
}

/* @addr as attribute @type4 or @type6, by @family. */
int klb_nl_put_addr(struct sk_buff *skb, int type4, int type6, u16 family,
		    const union nf_inet_addr *addr);
/* The name (attribute @name_type) in the dump request's nest @type, or NULL. */
const char *klb_nl_dump_filter(struct netlink_callback *cb, int type,
			       int name_type);

/*
 * A dump filtered by service @name (not NULL) refuses a name that names
 * no service rather than dump nothing: 0 or -ENOENT with a message. Called
 * from the dump itself, not .start: 6.1 gives .start no extack.
 */
int klb_nl_dump_service_exists(struct netlink_callback *cb, struct klb_net *kn,
			       const char *name);

#endif /* _KLB_NETLINK_DUMP_H */
