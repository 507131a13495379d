// SPDX-License-Identifier: GPL-2.0
/*
 * Rules of http and tls services: which pool a request (or a ClientHello)
 * goes to. This file keeps the rules of each service; the engine routes by
 * them (l7/route.c) and matching itself is pure code (l7/parse/).
 *
 * A service's rules are one immutable array (struct klb_rule_set) that the
 * engine reads under RCU. A change builds a new array under kn->lock,
 * publishes it with rcu_assign_pointer() and frees the old one after a
 * grace period, so a request is always routed by one consistent list,
 * without any lock on the request path.
 *
 * Each entry counts as a user of its pool (pool->users), like a service
 * does of its default pool, so a pool cannot be deleted while a rule
 * names it. The count moves with the entry: copying a set to a new one
 * keeps it, only adding, deleting or dropping all rules changes it.
 */
#include <linux/overflow.h>
#include <linux/slab.h>

#include "config/rule.h"

struct klb_rule_set *klb_rule_set_alloc(u32 n)
{
	struct klb_rule_set *set;

	/* ~2 KiB per rule: a full set is too big to ask kmalloc for. */
	set = kvzalloc(struct_size(set, e, n), GFP_KERNEL_ACCOUNT);
	if (!set)
		return NULL;
	set->n = n;
	klb_obj_inc(KLB_OBJ_RULE_SET);
	return set;
}

/* A set nobody but its builder ever saw. */
void klb_rule_set_destroy(struct klb_rule_set *set)
{
	kvfree(set);
	klb_obj_dec(KLB_OBJ_RULE_SET);
}

/* RCU callbacks may run in softirq: kvfree() defers a vfree() from there. */
static void klb_rule_set_free_rcu(struct rcu_head *rcu)
{
	klb_rule_set_destroy(container_of(rcu, struct klb_rule_set, rcu));
}

/* Replace the rules of @svc with @set (NULL: none); free the old ones. */
static void klb_rules_publish(struct klb_net *kn, struct klb_service *svc,
			      struct klb_rule_set *set)
{
	struct klb_rule_set *old;

	old = rcu_replace_pointer(svc->rules, set, lockdep_is_held(&kn->lock));
	if (old)
		call_rcu(&old->rcu, klb_rule_set_free_rcu);
}

/*
 * Give a freshly built @set, whose pools all exist, to @svc, which has no
 * rules yet (a service being created): its pools gain a user each.
 */
void klb_rules_attach(struct klb_net *kn, struct klb_service *svc,
		      struct klb_rule_set *set)
{
	u32 i;

	klb_assert_locked(kn);
	WARN_ON_ONCE(klb_service_rules(kn, svc));

	for (i = 0; i < set->n; i++)
		set->e[i].pool->users++;
	klb_rules_publish(kn, svc, set);
}

/* Append a copy of @ne (prepared rule, existing pool) to the rules of @svc. */
int klb_rule_append(struct klb_net *kn, struct klb_service *svc,
		    const struct klb_rule_entry *ne)
{
	struct klb_rule_set *old, *set;
	u32 n;

	klb_assert_locked(kn);

	old = klb_service_rules(kn, svc);
	n = old ? old->n : 0;
	if (WARN_ON_ONCE(n >= KLB_RULES_MAX))	/* the caller checked */
		return -ENOSPC;
	set = klb_rule_set_alloc(n + 1);
	if (!set)
		return -ENOMEM;
	if (n)
		memcpy(set->e, old->e, n * sizeof(set->e[0]));
	set->e[n] = *ne;
	ne->pool->users++;
	klb_rules_publish(kn, svc, set);
	return 0;
}

/* Remove rule @index of @svc; the ones after it move up by one. */
int klb_rule_del(struct klb_net *kn, struct klb_service *svc, u32 index,
		 const struct nlattr *attr, struct netlink_ext_ack *extack)
{
	struct klb_rule_set *old, *set = NULL;
	struct klb_pool *pool;

	klb_assert_locked(kn);

	old = klb_service_rules(kn, svc);
	if (!old || index >= old->n) {
		klb_err(extack, attr, "rule %u does not exist", index);
		return -ENOENT;
	}
	pool = old->e[index].pool;
	/* The last rule goes: no set at all, so the engine skips matching. */
	if (old->n > 1) {
		set = klb_rule_set_alloc(old->n - 1);
		if (!set)
			return -ENOMEM;
		memcpy(set->e, old->e, index * sizeof(set->e[0]));
		memcpy(set->e + index, old->e + index + 1,
		       (old->n - index - 1) * sizeof(set->e[0]));
	}
	klb_rules_publish(kn, svc, set);
	/*
	 * A request routed by the old set may still use the pool until the
	 * grace period ends; a pool is only ever freed after one as well.
	 */
	pool->users--;
	return 0;
}

/* Drop every rule of @svc (the service goes away). */
void klb_rules_clear(struct klb_net *kn, struct klb_service *svc)
{
	struct klb_rule_set *set = klb_service_rules(kn, svc);
	u32 i;

	if (!set)
		return;
	for (i = 0; i < set->n; i++)
		set->e[i].pool->users--;
	klb_rules_publish(kn, svc, NULL);
}

/*
 * A restore keeps @to and gives it the rules of @from, its staged twin,
 * which is never seen by the engine and goes away: one store, so no
 * request is routed without rules in between. The pools of @to's old
 * rules lose a user each; @from's keep theirs, now @to's.
 */
void klb_rules_move(struct klb_net *kn, struct klb_service *to,
		    struct klb_service *from)
{
	struct klb_rule_set *old = klb_service_rules(kn, to);
	u32 i;

	klb_assert_locked(kn);

	for (i = 0; old && i < old->n; i++)
		old->e[i].pool->users--;
	klb_rules_publish(kn, to, klb_service_rules(kn, from));
	RCU_INIT_POINTER(from->rules, NULL);
}
