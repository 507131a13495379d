// SPDX-License-Identifier: GPL-2.0
/* SERVICE_*: one service. */
#include "acl.h"
#include "netlink/acl_nl.h"
#include "events.h"
#include "netlink/cmds.h"
#include "netlink/parse.h"
#include "netlink/policy.h"

/* Tell the events group what a successful command did to a service. */
static void klb_nl_service_event(struct klb_net *kn, u8 action,
				 const char *name, const char *pool)
{
	struct klb_event ev = {
		.object = KLB_EVENT_SERVICE,
		.action = action,
		.service = name,
		.pool = pool,
		.sched = -1,
	};

	klb_event_send(kn, &ev, GFP_KERNEL);
}

/* Parse KLB_A_SERVICE into @tb and find the service it names. */
static struct klb_service *klb_nl_service_req(struct klb_net *kn,
					      struct genl_info *info,
					      struct nlattr **tb)
{
	struct klb_service *svc;
	const char *name;
	int err;

	err = klb_nl_nest(info, KLB_A_SERVICE, "service attributes", tb,
			  KLB_SERVICE_A_MAX, klb_service_policy);
	if (err)
		return ERR_PTR(err);
	err = klb_nl_req_name(info->attrs[KLB_A_SERVICE], tb,
			      KLB_SERVICE_A_NAME, "service", &name,
			      info->extack);
	if (err)
		return ERR_PTR(err);
	svc = klb_service_find(&kn->services, name);
	if (!svc) {
		klb_err(info->extack, tb[KLB_SERVICE_A_NAME],
			"service %s does not exist", name);
		return ERR_PTR(-ENOENT);
	}
	return svc;
}

int klb_nl_service_new(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_nl_net(info);
	struct klb_service_cfg cfg;
	int err;

	if (klb_nl_missing(info->extack, NULL, info->attrs, KLB_A_SERVICE,
			   "service attributes"))
		return -EINVAL;
	err = klb_nl_parse_service(&kn->pools, info->attrs[KLB_A_SERVICE],
				   &cfg, info->extack);
	if (err)
		return err;
	err = klb_service_add(kn, &cfg, info->extack);
	if (err)
		return err;
	klb_config_changed(kn);
	klb_nl_service_event(kn, KLB_EVENT_NEW, cfg.name, cfg.pool);
	return 0;
}

/*
 * Only the pool, the PROXY protocol and persistence of a service can
 * change; anything else makes a new service (and, for http and tls, a new
 * listener; for fnat, new source addresses under live connections).
 */
static const int klb_service_fixed[] = {
	KLB_SERVICE_A_ADDR4, KLB_SERVICE_A_ADDR6, KLB_SERVICE_A_PORT,
	KLB_SERVICE_A_PROTO, KLB_SERVICE_A_MODE, KLB_SERVICE_A_SNAT,
	KLB_SERVICE_A_COOKIE,
};

int klb_nl_service_set(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_nl_net(info);
	struct nlattr *tb[KLB_SERVICE_A_MAX + 1];
	const struct nlattr *pp_attr;
	struct klb_acl *acl = NULL;
	struct klb_service *svc;
	bool persist, has_acl, adopt;
	const char *pool;
	u32 timeout;
	int err, i;
	u8 pp = 0;
	u8 mask;

	err = klb_nl_nest(info, KLB_A_SERVICE, "service attributes", tb,
			  KLB_SERVICE_A_MAX, klb_service_policy);
	if (err)
		return err;
	for (i = 0; i < ARRAY_SIZE(klb_service_fixed); i++) {
		if (tb[klb_service_fixed[i]]) {
			klb_err(info->extack, tb[klb_service_fixed[i]],
				"only the pool, proxy protocol, persistence, source lists and adopt of a service can be changed");
			return -EOPNOTSUPP;
		}
	}
	if (tb[KLB_SERVICE_A_RULES]) {
		klb_err(info->extack, tb[KLB_SERVICE_A_RULES],
			"rules are changed by RULE_NEW and RULE_DEL");
		return -EOPNOTSUPP;
	}
	pp_attr = tb[KLB_SERVICE_A_PROXY_PROTOCOL];

	svc = klb_nl_service_req(kn, info, tb);
	if (IS_ERR(svc))
		return PTR_ERR(svc);
	/* Check everything before changing anything. */
	persist = tb[KLB_SERVICE_A_PERSIST] || tb[KLB_SERVICE_A_PERSIST_MASK];
	timeout = svc->persist_timeout;
	mask = svc->persist_mask;
	err = klb_nl_persist(tb, svc->family, svc->mode, &timeout, &mask,
			     info->extack);
	if (err)
		return err;
	adopt = svc->adopt;
	err = klb_nl_adopt(tb, svc->mode, svc->proto, &adopt, info->extack);
	if (err)
		return err;
	if (pp_attr) {
		err = klb_nl_proxy_protocol(pp_attr, svc->mode, &pp,
					    info->extack);
		if (err)
			return err;
	}
	has_acl = tb[KLB_SERVICE_A_ALLOW] || tb[KLB_SERVICE_A_DENY];
	err = klb_nl_acl(tb, klb_service_acl(kn, svc), &acl, info->extack);
	if (err)
		return err;
	if (tb[KLB_SERVICE_A_POOL]) {
		err = klb_nl_name(tb[KLB_SERVICE_A_POOL], "pool", &pool,
				  info->extack);
		if (!err)
			err = klb_service_set_pool(kn, svc, pool,
						   tb[KLB_SERVICE_A_POOL],
						   info->extack);
		if (err) {
			klb_acl_destroy(acl);
			return err;
		}
	}
	if (pp_attr)
		klb_service_set_proxy_protocol(kn, svc, pp);
	if (persist)
		klb_service_set_persist(kn, svc, timeout, mask);
	if (has_acl)
		klb_service_set_acl(kn, svc, acl);
	if (tb[KLB_SERVICE_A_ADOPT])
		klb_service_set_adopt(kn, svc, adopt);
	if (!pp_attr && !persist && !tb[KLB_SERVICE_A_POOL] && !has_acl &&
	    !tb[KLB_SERVICE_A_ADOPT])
		return 0;	/* nothing asked, nothing changed, nothing told */
	klb_config_changed(kn);
	klb_nl_service_event(kn, KLB_EVENT_SET, svc->name,
			     klb_service_pool(kn, svc)->name);
	return 0;
}

int klb_nl_service_del(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_nl_net(info);
	struct nlattr *tb[KLB_SERVICE_A_MAX + 1];
	char name[KLB_NAME_MAX];
	struct klb_service *svc;
	int err;

	svc = klb_nl_service_req(kn, info, tb);
	if (IS_ERR(svc))
		return PTR_ERR(svc);
	strscpy(name, svc->name, sizeof(name));	/* @svc goes */
	err = klb_service_del(kn, svc);
	if (err)
		return err;
	klb_config_changed(kn);
	klb_nl_service_event(kn, KLB_EVENT_DEL, name, NULL);
	return 0;
}

int klb_nl_service_get(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_nl_net(info);
	struct nlattr *tb[KLB_SERVICE_A_MAX + 1];
	struct klb_service *svc;

	svc = klb_nl_service_req(kn, info, tb);
	if (IS_ERR(svc))
		return PTR_ERR(svc);
	return klb_nl_service_get_one(kn, svc, info);
}
