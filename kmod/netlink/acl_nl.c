// SPDX-License-Identifier: GPL-2.0
/*
 * A service's KLB_SERVICE_A_ALLOW and _DENY nests: parsed into a new ACL
 * (service add, set, restore) and dumped back.
 */
#include <linux/slab.h>

#include "acl.h"
#include "netlink/acl_nl.h"
#include "netlink/parse.h"

/* One list nest into @out (room for KLB_ACL_PREFIXES_MAX), @n prefixes. */
static int klb_nl_acl_list(const struct nlattr *nest, const char *what,
			   struct klb_acl_prefix *out, u32 *n,
			   struct netlink_ext_ack *extack)
{
	struct klb_acl_prefix p;
	const struct nlattr *a;
	const u8 *d;
	int rem;

	*n = 0;
	nla_for_each_nested(a, nest, rem) {
		if (*n == KLB_ACL_PREFIXES_MAX) {
			klb_err(extack, a, "too many %s prefixes (max %d)",
				what, KLB_ACL_PREFIXES_MAX);
			return -E2BIG;
		}
		d = nla_data(a);
		memset(&p, 0, sizeof(p));
		/* The policy checked the lengths. */
		if (nla_type(a) == KLB_ACL_A_PREFIX4) {
			klb_acl_addr(AF_INET, (const union nf_inet_addr *)d,
				     &p.a);
			p.len = d[4];
		} else {
			union nf_inet_addr addr;

			memcpy(&addr.in6, d, sizeof(addr.in6));
			klb_acl_addr(AF_INET6, &addr, &p.a);
			p.len = d[16];
		}
		if (!klb_acl_prefix_valid(&p)) {
			if (p.a.v6)
				klb_err(extack, a,
					"%s prefix %pI6c/%u: length over 128 or host bits set",
					what, d, p.len);
			else
				klb_err(extack, a,
					"%s prefix %pI4/%u: length over 32 or host bits set",
					what, d, p.len);
			return -EINVAL;
		}
		out[(*n)++] = p;
	}
	return 0;
}

int klb_nl_acl(struct nlattr **tb, const struct klb_acl *old,
	       struct klb_acl **acl, struct netlink_ext_ack *extack)
{
	struct klb_acl_prefix *buf;
	u32 na = 0, nd = 0;
	int err = 0;

	*acl = NULL;
	if (!tb[KLB_SERVICE_A_ALLOW] && !tb[KLB_SERVICE_A_DENY])
		return 0;
	buf = kmalloc_array(2 * KLB_ACL_PREFIXES_MAX, sizeof(*buf),
			    GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	/* A list not given stays as it is. */
	if (old) {
		na = old->nallow;
		nd = old->ndeny;
		memcpy(buf, old->p, na * sizeof(*buf));
		memcpy(buf + KLB_ACL_PREFIXES_MAX, old->p + na,
		       nd * sizeof(*buf));
	}
	if (tb[KLB_SERVICE_A_ALLOW])
		err = klb_nl_acl_list(tb[KLB_SERVICE_A_ALLOW], "allow", buf,
				      &na, extack);
	if (!err && tb[KLB_SERVICE_A_DENY])
		err = klb_nl_acl_list(tb[KLB_SERVICE_A_DENY], "deny",
				      buf + KLB_ACL_PREFIXES_MAX, &nd, extack);
	if (!err) {
		*acl = klb_acl_new(buf, na, buf + KLB_ACL_PREFIXES_MAX, nd);
		if (IS_ERR(*acl)) {
			err = PTR_ERR(*acl);
			*acl = NULL;
		}
	}
	kfree(buf);
	return err;
}

static int klb_nl_put_acl_list(struct sk_buff *skb, int type,
			       const struct klb_acl_prefix *p, u32 n)
{
	struct nlattr *nest;
	u8 d[17];
	u32 i;
	int j;

	if (!n)
		return 0;
	nest = nla_nest_start(skb, type);
	if (!nest)
		return -EMSGSIZE;
	for (i = 0; i < n; i++) {
		if (p[i].a.v6) {
			for (j = 0; j < 8; j++) {
				d[j] = p[i].a.hi >> (56 - 8 * j);
				d[8 + j] = p[i].a.lo >> (56 - 8 * j);
			}
			d[16] = p[i].len;
			if (nla_put(skb, KLB_ACL_A_PREFIX6, 17, d))
				return -EMSGSIZE;
		} else {
			for (j = 0; j < 4; j++)
				d[j] = p[i].a.lo >> (24 - 8 * j);
			d[4] = p[i].len;
			if (nla_put(skb, KLB_ACL_A_PREFIX4, 5, d))
				return -EMSGSIZE;
		}
	}
	nla_nest_end(skb, nest);
	return 0;
}

int klb_nl_put_acl(struct sk_buff *skb, const struct klb_acl *acl)
{
	if (!acl)
		return 0;
	if (klb_nl_put_acl_list(skb, KLB_SERVICE_A_ALLOW, acl->p, acl->nallow) ||
	    klb_nl_put_acl_list(skb, KLB_SERVICE_A_DENY, acl->p + acl->nallow,
				acl->ndeny))
		return -EMSGSIZE;
	return 0;
}

size_t klb_nl_acl_size(void)
{
	return 2 * nla_total_size(0) +
	       2 * KLB_ACL_PREFIXES_MAX * nla_total_size(17);
}
