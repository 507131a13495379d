/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Transmission of the packets klb sends on itself (xmit.c): fnat both
 * ways, dr and tun towards the backend. Each takes a packet in the hooks,
 * chooses an output route and hands it to the output path; the hook then
 * returns NF_STOLEN. On failure (no route, too big) nothing was consumed:
 * the drop is counted on @svc and the hook returns NF_DROP.
 */
#ifndef _KLB_L4_XMIT_H
#define _KLB_L4_XMIT_H

#include <linux/netfilter.h>
#include <linux/skbuff.h>

struct klb_service;
struct klb_backend;

/*
 * fnat in two steps, so that a packet too big is answered before it is
 * translated (the ICMP error must go to its sender and quote what it
 * sent): give @skb its output route to @daddr from @saddr (a local
 * address, unless @anysrc: replies come from the VIP, which need not be
 * local) and check the MTU; false if it was counted and must be dropped.
 * Then translate it and send it with klb_xmit_send() (NF_STOLEN).
 */
bool klb_xmit_route(struct net *net, struct sk_buff *skb,
		    struct klb_service *svc, const union nf_inet_addr *daddr,
		    const union nf_inet_addr *saddr, bool anysrc);
unsigned int klb_xmit_send(struct net *net, struct sk_buff *skb, u16 family);
/* Both at once, for a packet translated already (ICMP errors). */
unsigned int klb_xmit_routed(struct net *net, struct sk_buff *skb,
			     struct klb_service *svc,
			     const union nf_inet_addr *daddr,
			     const union nf_inet_addr *saddr, bool anysrc);
/* @skb unchanged to @be's link-layer address: @be must be on a link. */
/*
 * Module load and unload: a device's unregistration drops the dr routes
 * cached towards it (they would hold it, and its netns, for ever).
 */
int klb_xmit_module_init(void);
void klb_xmit_module_exit(void);

unsigned int klb_xmit_dr(struct net *net, struct sk_buff *skb,
			 struct klb_service *svc, struct klb_backend *be);
/* @skb inside IPIP (IPv4) or IP6IP6 (IPv6) to @be. */
unsigned int klb_xmit_tun(struct net *net, struct sk_buff *skb,
			  struct klb_service *svc,
			  const struct klb_backend *be);

/*
 * The address this netns would send from towards @daddr (fnat's default
 * source). 0 or -ENETUNREACH.
 */
int klb_xmit_source(struct net *net, u16 family,
		    const union nf_inet_addr *daddr, union nf_inet_addr *saddr);

#endif /* _KLB_L4_XMIT_H */
