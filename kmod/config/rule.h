/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rules of http and tls services (rule.c): sets are replaced whole, never
 * changed in place (struct klb_rule_set in l7/route.h). Under kn->lock.
 */
#ifndef _KLB_CONFIG_RULE_H
#define _KLB_CONFIG_RULE_H

#include "config/config.h"
#include "l7/route.h"

struct klb_rule_set *klb_rule_set_alloc(u32 n);
void klb_rule_set_destroy(struct klb_rule_set *set);	/* never published */
/* Give a built @set to @svc, which has no rules yet; its pools gain users. */
void klb_rules_attach(struct klb_net *kn, struct klb_service *svc,
		      struct klb_rule_set *set);
/* Append a copy of @ne (prepared rule, existing pool) to the rules of @svc. */
int klb_rule_append(struct klb_net *kn, struct klb_service *svc,
		    const struct klb_rule_entry *ne);
int klb_rule_del(struct klb_net *kn, struct klb_service *svc, u32 index,
		 const struct nlattr *attr, struct netlink_ext_ack *extack);
void klb_rules_clear(struct klb_net *kn, struct klb_service *svc);
/* A restore: @to takes the rules of @from, its staged twin, in one store. */
void klb_rules_move(struct klb_net *kn, struct klb_service *to,
		    struct klb_service *from);

#endif /* _KLB_CONFIG_RULE_H */
