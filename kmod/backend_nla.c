// SPDX-License-Identifier: GPL-2.0
/*
 * A backend's own attributes: one function, so that a dump and an event
 * describe a backend the same way. Its counters are the dump's business
 * (netlink/dump.c).
 */
#include "klb.h"
#include "backend_nla.h"

size_t klb_backend_nla_size(void)
{
	return nla_total_size(sizeof(struct in6_addr)) +	/* ADDR4|6 */
	       nla_total_size(sizeof(u16)) +			/* PORT */
	       nla_total_size(sizeof(u32)) +			/* WEIGHT */
	       nla_total_size(sizeof(u8)) +			/* STATE */
	       nla_total_size(sizeof(u32));			/* MAXCONN */
}

int klb_backend_nla_put(struct sk_buff *skb, const struct klb_backend *be)
{
	int err;

	if (be->family == AF_INET)
		err = nla_put_in_addr(skb, KLB_BACKEND_A_ADDR4, be->addr.ip);
	else
		err = nla_put_in6_addr(skb, KLB_BACKEND_A_ADDR6, &be->addr.in6);
	if (err ||
	    nla_put_u16(skb, KLB_BACKEND_A_PORT, ntohs(be->port)) ||
	    nla_put_u32(skb, KLB_BACKEND_A_WEIGHT, READ_ONCE(be->weight)) ||
	    nla_put_u8(skb, KLB_BACKEND_A_STATE, READ_ONCE(be->state)))
		return -EMSGSIZE;
	/* Absent: no cap, as in requests (and older kernels). */
	if (READ_ONCE(be->maxconn) &&
	    nla_put_u32(skb, KLB_BACKEND_A_MAXCONN, READ_ONCE(be->maxconn)))
		return -EMSGSIZE;
	return 0;
}
