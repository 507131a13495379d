/* SPDX-License-Identifier: GPL-2.0 */
/* ICMP errors that belong to a connection (icmp.c); called by the hooks. */
#ifndef _KLB_L4_ICMP_H
#define _KLB_L4_ICMP_H

#include "l4/pkt.h"

struct klb_net;

/*
 * An error to a VIP (request hooks), about a packet the VIP sent; @local:
 * in LOCAL_OUT. NF_ACCEPT (translated or not ours), NF_STOLEN (sent on by
 * klb: fnat, dr, tun) or NF_DROP.
 */
unsigned int klb_icmp_request(struct klb_net *kn, struct sk_buff *skb,
			      const struct klb_pkt *p, bool local);
/* An error from a backend's side (reply hooks, @hook), about a packet to it. */
unsigned int klb_icmp_reply(struct klb_net *kn, struct sk_buff *skb,
			    const struct klb_pkt *p, unsigned int hook);

#endif /* _KLB_L4_ICMP_H */
