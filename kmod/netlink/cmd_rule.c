// SPDX-License-Identifier: GPL-2.0
/* RULE_NEW and RULE_DEL: one rule of an http or tls service. */
#include <linux/slab.h>

#include "netlink/cmds.h"
#include "netlink/parse.h"
#include "netlink/policy.h"

/* Parse KLB_A_RULE into @tb and find the http or tls service it names. */
static struct klb_service *klb_nl_rule_req(struct klb_net *kn,
					   struct genl_info *info,
					   struct nlattr **tb)
{
	struct klb_service *svc;
	const char *name;
	int err;

	err = klb_nl_nest(info, KLB_A_RULE, "rule attributes", tb,
			  KLB_RULE_A_MAX, klb_rule_policy);
	if (err)
		return ERR_PTR(err);
	err = klb_nl_req_name(info->attrs[KLB_A_RULE], tb, KLB_RULE_A_SERVICE,
			      "service", &name, info->extack);
	if (err)
		return ERR_PTR(err);
	svc = klb_service_find(&kn->services, name);
	if (!svc) {
		klb_err(info->extack, tb[KLB_RULE_A_SERVICE],
			"service %s does not exist", name);
		return ERR_PTR(-ENOENT);
	}
	if (!klb_mode_l7(svc->mode)) {
		klb_err(info->extack, tb[KLB_RULE_A_SERVICE],
			"service %s is not an http or tls service", name);
		return ERR_PTR(-EINVAL);
	}
	return svc;
}

int klb_nl_rule_new(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_nl_net(info);
	struct nlattr *tb[KLB_RULE_A_MAX + 1];
	struct klb_rule_entry *e;
	struct klb_rule_set *set;
	struct klb_service *svc;
	int err;

	svc = klb_nl_rule_req(kn, info, tb);
	if (IS_ERR(svc))
		return PTR_ERR(svc);
	if (tb[KLB_RULE_A_INDEX]) {
		klb_err(info->extack, tb[KLB_RULE_A_INDEX],
			"a new rule is appended: no index");
		return -EINVAL;
	}
	set = klb_service_rules(kn, svc);
	if (set && set->n >= KLB_RULES_MAX) {
		klb_err(info->extack, tb[KLB_RULE_A_SERVICE],
			"service %s has the maximum of %d rules", svc->name,
			KLB_RULES_MAX);
		return -ENOSPC;
	}
	/* ~2 KiB: not for the stack */
	e = kzalloc(sizeof(*e), GFP_KERNEL);
	if (!e)
		return -ENOMEM;
	err = klb_nl_rule_fill(tb, info->attrs[KLB_A_RULE], svc->mode,
			       &kn->pools, e, info->extack);
	if (!err)
		err = klb_rule_append(kn, svc, e);
	if (!err)
		klb_config_changed(kn);
	kfree(e);
	return err;
}

/* A rule is deleted by its position; matchers and pool are not compared. */
static const int klb_rule_del_refused[] = {
	KLB_RULE_A_HOST, KLB_RULE_A_PATH, KLB_RULE_A_HEADER_NAME,
	KLB_RULE_A_HEADER_VALUE, KLB_RULE_A_METHOD, KLB_RULE_A_SNI,
	KLB_RULE_A_POOL,
};

int klb_nl_rule_del(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_nl_net(info);
	struct nlattr *tb[KLB_RULE_A_MAX + 1];
	struct klb_service *svc;
	int err, i;

	err = klb_nl_nest(info, KLB_A_RULE, "rule attributes", tb,
			  KLB_RULE_A_MAX, klb_rule_policy);
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(klb_rule_del_refused); i++) {
		if (tb[klb_rule_del_refused[i]]) {
			klb_err(info->extack, tb[klb_rule_del_refused[i]],
				"a rule is deleted by its service and index only");
			return -EINVAL;
		}
	}
	if (klb_nl_missing(info->extack, info->attrs[KLB_A_RULE], tb,
			   KLB_RULE_A_INDEX, "rule index"))
		return -EINVAL;

	svc = klb_nl_rule_req(kn, info, tb);
	if (IS_ERR(svc))
		return PTR_ERR(svc);
	err = klb_rule_del(kn, svc, nla_get_u32(tb[KLB_RULE_A_INDEX]),
			   tb[KLB_RULE_A_INDEX], info->extack);
	if (!err)
		klb_config_changed(kn);
	return err;
}
