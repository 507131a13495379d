// SPDX-License-Identifier: GPL-2.0
/*
 * Routing a request or a ClientHello by its service's rules. The matching
 * itself is pure code (parse/rule_match.c); the rules are one RCU-published
 * array per service, so a request is always routed by one consistent list,
 * without any lock on the request path.
 */
#include "klb.h"
#include "l7/route.h"

/*
 * The engine must not route for a service it saw stopping (svc->stopping)
 * within the same read section: a stopped service's pools may be on their
 * way out.
 */
struct klb_pool *klb_l7_route_rcu(struct klb_service *svc,
				  const struct klb_rule_input *in)
{
	const struct klb_rule_set *set = rcu_dereference(svc->rules);
	u32 i;

	if (set) {
		for (i = 0; i < set->n; i++)
			if (klb_rule_match(&set->e[i].rule, in))
				return set->e[i].pool;
	}
	return rcu_dereference(svc->pool);
}
