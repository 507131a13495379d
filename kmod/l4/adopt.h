/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Adopting mid-flow TCP packets of dr and tun services (adopt.c), for
 * hooks.c: a flow that another balancer scheduled gets an entry here.
 */
#ifndef _KLB_L4_ADOPT_H
#define _KLB_L4_ADOPT_H

#include "klb.h"
#include "flow.h"
#include "l4/pkt.h"

struct klb_conn;
struct klb_sched_table;

/*
 * Does @svc want a segment with flags @f that found no entry adopted? An
 * ACK without SYN and RST (data, a pure ACK, or a FIN: the flow's end
 * must reach its backend too). One load and test for a service without
 * adoption (nat, fnat, udp, adopt off).
 */
static inline bool klb_adopt_wanted(const struct klb_service *svc, u8 f)
{
	return READ_ONCE(svc->adopt) &&
	       (f & (KLB_TCP_SYN | KLB_TCP_ACK | KLB_TCP_RST)) == KLB_TCP_ACK;
}

/*
 * An entry for the flow of @flow as its SYN would have been scheduled
 * (@table: the service's pool's, under RCU), in state ADOPTED. Caller
 * holds rcu_read_lock with BH disabled. Errors: -EPROTO the pick cannot
 * be told from the headers (the pool's scheduler is not sh or mh, or the
 * service is persistent), -ENOENT no backend, -EDQUOT net.klb.adopt_max
 * reached, and those of klb_conn_new().
 */
struct klb_conn *klb_conn_adopt(struct klb_net *kn, struct klb_service *svc,
				struct klb_sched_table *table,
				const struct klb_flow *flow);

#endif /* _KLB_L4_ADOPT_H */
