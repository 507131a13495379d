/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Attribute helpers of every request parser (attr.c): they say what is
 * wrong with klb_err() and change no state.
 */
#ifndef _KLB_NETLINK_ATTR_H
#define _KLB_NETLINK_ATTR_H

#include <net/genetlink.h>

#include "klb.h"

/* @type is missing from @tb (of @nest, NULL: top level): say so. */
bool klb_nl_missing(struct netlink_ext_ack *extack, const struct nlattr *nest,
		    struct nlattr **tb, int type, const char *what);
/* A name (of a @what: "pool", "service"): non-empty, [A-Za-z0-9_.-]. */
int klb_nl_name(const struct nlattr *attr, const char *what,
		const char **name, struct netlink_ext_ack *extack);
int klb_nl_req_name(const struct nlattr *nest, struct nlattr **tb, int type,
		    const char *what, const char **name,
		    struct netlink_ext_ack *extack);
/* The top-level nest @type of a request, parsed into @tb. */
int klb_nl_nest(struct genl_info *info, int type, const char *what,
		struct nlattr **tb, int maxtype, const struct nla_policy *policy);

#endif /* _KLB_NETLINK_ATTR_H */
