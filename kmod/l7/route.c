// SPDX-License-Identifier: GPL-2.0
/*
 * Routing a request or a ClientHello: by its service's rules, then by its
 * host map, then to the default pool. The matching itself is pure code
 * (parse/rule_match.c, parse/hostmap.c); the rules and the map are each
 * one RCU-published block per service, so a request is always routed by
 * one consistent view of each, without any lock on the request path.
 *
 * Rules come first: they are the few ordered exceptions an operator
 * writes by hand (a path for every host, a canary header), the host map
 * is the bulk of names (haproxy's map file, nginx's server_name list),
 * and as with haproxy's use_backend lines written above the map's, an
 * exception must be able to override any name of the map.
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
	const struct klb_hostmap *map = rcu_dereference(svc->hostmap);
	const struct klb_hm_entry *e;
	u32 i;

	if (set) {
		for (i = 0; i < set->n; i++)
			if (klb_rule_match(&set->e[i].rule, in))
				return set->e[i].pool;
	}
	if (map) {
		/* http has a Host (or none), tls an SNI (or none). */
		if (in->host)
			e = klb_hm_lookup(&map->hm, in->host, in->host_len);
		else if (in->sni)
			e = klb_hm_lookup(&map->hm, in->sni, in->sni_len);
		else
			e = NULL;
		if (e)
			return READ_ONCE(e->val);
	}
	return rcu_dereference(svc->pool);
}
