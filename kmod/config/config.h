/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The config layer: pools, backends, services and rules of one network
 * namespace, changed under klb_net->lock only, in process context. Each
 * file's API is in its own header (pool.h, service.h, rule.h, restore.h);
 * this one has what they all share.
 *
 * Objects are built and checked before they become visible, against a set
 * of lists: the live ones in struct klb_net for single commands, or a
 * staged set for a restore, which is swapped in only once all of it is
 * valid. Both paths run the very same checks, so they refuse the same
 * inputs with the same messages. The config layer never parses netlink
 * attributes: it takes the structs below, and reports with klb_err().
 */
#ifndef _KLB_CONFIG_H
#define _KLB_CONFIG_H

#include "klb.h"
#include "health/health.h"
#include "extack.h"

/*
 * Bump the configuration generation after a change: dumps report it as
 * their sequence number, so that a change between two parts of a dump
 * flags it NLM_F_DUMP_INTR. Zero means "no sequence" to netlink: skip it.
 */
static inline void klb_config_changed(struct klb_net *kn)
{
	klb_assert_locked(kn);
	if (!++kn->gen)
		kn->gen = 1;
	/* A backend that became usable ramps: the health work steps it. */
	if (kn->health_ramp) {
		kn->health_ramp = false;
		klb_health_kick(kn, 0);
	}
}

/* The pool of @svc, for the writer side (kn->lock held). */
static inline struct klb_pool *klb_service_pool(struct klb_net *kn,
						struct klb_service *svc)
{
	return rcu_dereference_protected(svc->pool,
					 lockdep_is_held(&kn->lock));
}

/* The rules of @svc, for the writer side (kn->lock held); NULL if none. */
static inline struct klb_rule_set *klb_service_rules(struct klb_net *kn,
						     struct klb_service *svc)
{
	return rcu_dereference_protected(svc->rules,
					 lockdep_is_held(&kn->lock));
}

/* The ACL of @svc, for the writer side (kn->lock held); NULL if none. */
static inline struct klb_acl *klb_service_acl(struct klb_net *kn,
					      struct klb_service *svc)
{
	return rcu_dereference_protected(svc->acl,
					 lockdep_is_held(&kn->lock));
}

#endif /* _KLB_CONFIG_H */
