/* SPDX-License-Identifier: GPL-2.0 */
/* The check nest of a pool (check.c): parsed into, and put from, a cfg. */
#ifndef _KLB_NETLINK_CHECK_H
#define _KLB_NETLINK_CHECK_H

#include <linux/ctype.h>

#include "health/health.h"
#include "netlink/parse.h"

/*
 * A KLB_POOL_A_CHECK nest into @cfg (defaults filled in), or *@none: kind
 * none, the pool's check is to go. Refusals say what is wrong.
 */
int klb_nl_parse_check(const struct nlattr *nest, struct klb_check_cfg *cfg,
		       bool *none, struct netlink_ext_ack *extack);
int klb_nl_put_check(struct sk_buff *skb, const struct klb_check_cfg *cfg);

static inline bool klb_nl_check_printable(const char *s)
{
	for (; *s; s++)
		if (!isgraph(*s))
			return false;
	return true;
}

/*
 * The pool's PASSIVE_* and SLOWSTART_MS attributes of @tb into @cfg;
 * false: none given.
 */
bool klb_nl_parse_passive(struct nlattr **tb, struct klb_passive_cfg *cfg);
int klb_nl_put_passive(struct sk_buff *skb, const struct klb_pool *pool);
size_t klb_nl_passive_size(void);
/* A backend's ejection, its counts and its slow start weight, if any. */
int klb_nl_put_backend_passive(struct sk_buff *skb,
			       const struct klb_backend *be);
size_t klb_nl_backend_passive_size(void);

#endif /* _KLB_NETLINK_CHECK_H */
