/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rules of an http or tls service: which pool a request (or a ClientHello)
 * goes to. The config layer keeps each service's rules as one immutable
 * array (config/rule.c), replaced as a whole under kn->lock and freed after
 * a grace period; the engine routes by it under RCU (route.c). Each
 * entry's pool counts it as a user (pool->users), so it cannot be deleted.
 */
#ifndef _KLB_L7_ROUTE_H
#define _KLB_L7_ROUTE_H

#include <linux/rcupdate.h>

#include "l7/parse/hostmap.h"
#include "l7/parse/rule_match.h"

struct klb_pool;
struct klb_service;

struct klb_rule_entry {
	struct klb_pool *pool;
	struct klb_rule rule;		/* prepared (l7/parse/rule_match.h) */
};

struct klb_rule_set {
	u32 n;
	struct rcu_head rcu;
	struct klb_rule_entry e[];
};

/*
 * A service's host map: exact names -> pools (e[i].val is a struct
 * klb_pool *), one block replaced whole under kn->lock and freed after a
 * grace period (config/hostmap.c), like a rule set. Never empty: a
 * service without names has none.
 */
struct klb_hostmap {
	struct rcu_head rcu;
	struct klb_hm hm;
	/* the table's block (l7/parse/hostmap.h) follows */
};

/*
 * The pool a request (http) or a ClientHello (tls) of @svc goes to: that
 * of the first rule matching @in, else the host map's for its Host (tls:
 * its SNI), else the service's default pool. Under
 * rcu_read_lock; the pool stays valid until rcu_read_unlock().
 */
struct klb_pool *klb_l7_route_rcu(struct klb_service *svc,
				  const struct klb_rule_input *in);

#endif /* _KLB_L7_ROUTE_H */
