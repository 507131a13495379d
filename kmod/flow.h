/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The flow key: addresses, ports, family and protocol of one direction of a
 * connection, as they appear on the wire. The header walk fills it
 * (l4/pkt.c), the connection table hashes and stores it (l4/conn.c), the
 * schedulers hash it (sched/table.c): one struct, never copied field by
 * field between them.
 */
#ifndef _KLB_FLOW_H
#define _KLB_FLOW_H

#include <linux/netfilter.h>
#include <linux/socket.h>
#include <net/ipv6.h>

struct klb_flow {
	union nf_inet_addr saddr;
	union nf_inet_addr daddr;
	__be16 sport;
	__be16 dport;
	u16 family;		/* AF_INET or AF_INET6 */
	u8 proto;		/* IPPROTO_*; ports are 0 but for TCP and UDP */
};

static inline bool klb_addr_equal(u16 family, const union nf_inet_addr *a,
				  const union nf_inet_addr *b)
{
	if (family == AF_INET)
		return a->ip == b->ip;
	return ipv6_addr_equal(&a->in6, &b->in6);
}

/* The other direction of @f: sources and destinations swapped. */
static inline void klb_flow_reverse(struct klb_flow *r,
				    const struct klb_flow *f)
{
	r->saddr = f->daddr;
	r->daddr = f->saddr;
	r->sport = f->dport;
	r->dport = f->sport;
	r->family = f->family;
	r->proto = f->proto;
}

#endif /* _KLB_FLOW_H */
