// SPDX-License-Identifier: GPL-2.0
/*
 * Adoption of mid-flow TCP packets in dr and tun (Documentation/modes.md,
 * "Several balancers"; cluster-design.md section 2).
 *
 * Behind ECMP, a flow moves to another balancer when the router's
 * next-hop set changes. In dr and tun the replies bypass every balancer,
 * so the new one sees a TCP segment with ACK (no SYN) and has no entry.
 * If the service's pool picks by a hash of the packet's headers alone (sh,
 * mh) and persistence is off, the backend the flow's SYN got on the other
 * balancer is a function of the headers, the seed (net.klb.hash_seed) and
 * the pool's backends: pick it again and give the flow an entry.
 *
 * Bounded against stray ACKs (anyone can send them): an adopted entry is
 * in state ADOPTED until a second packet proves the flow live (a spoofed
 * ACK is one packet); until then it has the short tcp_timeout_adopt, may be
 * evicted at conn_max before anything established, and counts against
 * net.klb.adopt_max: past it, the packet is dropped (drops adopt_full).
 * A RST never gets here (hooks.c), so it never creates an entry.
 *
 * Services that do not adopt never get here: nothing on the packet path
 * of other services changes.
 */
#include "l4/adopt.h"
#include "l4/conn.h"
#include "sched/table.h"

/* The number of unproved adopted entries @kn may hold. */
static int klb_adopt_max(struct klb_net *kn)
{
	int max = READ_ONCE(kn->sysctl.adopt_max);

	return max ?: max(READ_ONCE(kn->sysctl.conn_max) / 8, 1);
}

/*
 * Can the backend of @svc's flows be told from the headers alone? Persistence
 * pins a client to whatever its first connection got on that balancer.
 */
static bool klb_adopt_possible(const struct klb_service *svc,
			       const struct klb_sched_table *table)
{
	return (svc->mode == KLB_MODE_DR || svc->mode == KLB_MODE_TUN) &&
	       !READ_ONCE(svc->persist_timeout) && klb_sched_consistent(table);
}

struct klb_conn *klb_conn_adopt(struct klb_net *kn, struct klb_service *svc,
				struct klb_sched_table *table,
				const struct klb_flow *flow)
{
	struct klb_conn_table *t = kn->conns;
	struct klb_backend *be;
	struct klb_conn *c, *ret;

	if (!klb_adopt_possible(svc, table))
		return ERR_PTR(-EPROTO);
	/*
	 * The backend the SYN got, whatever this balancer counts against
	 * its maxconn: the flow is open on it already.
	 */
	be = klb_sched_pick_hash(table, flow);
	if (!be || be->family != flow->family)
		return ERR_PTR(-ENOENT);
	/* An atomic of the adopting services' miss path only. */
	if (atomic_inc_return(&t->adopting) > klb_adopt_max(kn)) {
		atomic_dec(&t->adopting);
		return ERR_PTR(-EDQUOT);
	}
	c = klb_conn_alloc(kn, svc, be, flow);
	if (IS_ERR(c)) {
		atomic_dec(&t->adopting);
		return c;
	}
	c->state = KLB_CONN_ADOPTED;
	c->expires = jiffies + klb_conn_timeout(&kn->sysctl, c, c->state);
	__set_bit(KLB_CONN_F_ADOPTING, &c->flags);
	ret = klb_conn_insert(t, c);
	if (ret != c) {
		/* Another CPU's entry for it, or its reply tuple is taken. */
		atomic_dec(&t->adopting);
		klb_conn_free_unused(t, c);
		return ret;
	}
	klb_stats_adopted(svc->stats);
	return c;
}
