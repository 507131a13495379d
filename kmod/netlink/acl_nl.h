/* SPDX-License-Identifier: GPL-2.0 */
/* A service's source lists over netlink (acl_nl.c). */
#ifndef _KLB_NETLINK_ACL_NL_H
#define _KLB_NETLINK_ACL_NL_H

#include <net/genetlink.h>

struct klb_acl;

/*
 * The ALLOW and DENY nests of a service's @tb, applied over @old (a list
 * not given stays, an empty nest removes it), into *@acl: NULL if neither
 * is given or both lists end up empty. -EINVAL or -E2BIG with extack for
 * a bad prefix or too many; nothing allocated then.
 */
int klb_nl_acl(struct nlattr **tb, const struct klb_acl *old,
	       struct klb_acl **acl, struct netlink_ext_ack *extack);
/* Both lists of @acl (none if NULL); -EMSGSIZE. */
int klb_nl_put_acl(struct sk_buff *skb, const struct klb_acl *acl);
/* The most that klb_nl_put_acl() adds. */
size_t klb_nl_acl_size(void);

#endif /* _KLB_NETLINK_ACL_NL_H */
