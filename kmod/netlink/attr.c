// SPDX-License-Identifier: GPL-2.0
/*
 * The attribute helpers every request parser uses: a missing attribute
 * reported with a message, names, the top-level nest. They call nothing
 * else of netlink/, so parse.c, check.c, rules.c and the commands all
 * sit above them.
 */
#include <linux/ctype.h>

#include "extack.h"
#include "netlink/attr.h"

/* Report a missing attribute the way the core does, plus a message. */
bool klb_nl_missing(struct netlink_ext_ack *extack, const struct nlattr *nest,
		    struct nlattr **tb, int type, const char *what)
{
	if (!NL_REQ_ATTR_CHECK(extack, nest, tb, type))
		return false;
	klb_err(extack, NULL, "missing %s", what);
	return true;
}

int klb_nl_name(const struct nlattr *attr, const char *what,
		const char **name, struct netlink_ext_ack *extack)
{
	const char *s = nla_data(attr);
	size_t len = strlen(s);	/* the policy ensured a NUL and the length */
	size_t i;

	if (!len) {
		klb_err(extack, attr, "%s name is empty", what);
		return -EINVAL;
	}
	for (i = 0; i < len; i++) {
		if (!isascii(s[i]) || (!isalnum(s[i]) && !strchr("_.-", s[i]))) {
			klb_err(extack, attr,
				"%s name may only contain A-Z a-z 0-9 _ . -",
				what);
			return -EINVAL;
		}
	}
	*name = s;
	return 0;
}

/* A required name attribute in @tb. */
int klb_nl_req_name(const struct nlattr *nest, struct nlattr **tb, int type,
		    const char *what, const char **name,
		    struct netlink_ext_ack *extack)
{
	char miss[24];

	snprintf(miss, sizeof(miss), "%s name", what);
	if (klb_nl_missing(extack, nest, tb, type, miss))
		return -EINVAL;
	return klb_nl_name(tb[type], what, name, extack);
}

/* Parse the top-level nest @type of a request into @tb. */
int klb_nl_nest(struct genl_info *info, int type, const char *what,
		struct nlattr **tb, int maxtype, const struct nla_policy *policy)
{
	if (klb_nl_missing(info->extack, NULL, info->attrs, type, what))
		return -EINVAL;
	return nla_parse_nested(tb, maxtype, info->attrs[type], policy,
				info->extack);
}
