// SPDX-License-Identifier: GPL-2.0
/*
 * klb's own transmit paths, for the modes whose packets cannot simply go
 * on through the stack after the hook:
 *
 *  - fnat: the request's new source is a local address, which the input
 *    route would drop as a martian, and the reply's new source is the VIP
 *    (maybe local too). Both are routed as output, like locally sent
 *    packets, and leave through dst_output (POST_ROUTING still runs).
 *  - dr: the IP packet is unchanged (destination: the VIP) but must reach
 *    the backend's MAC. A route looked up with FLOWI_FLAG_KNOWN_NH names
 *    the backend as the next hop whatever the packet's destination, and
 *    the neighbour code resolves the backend's address.
 *  - tun: the packet gets an outer header to the backend and leaves as a
 *    locally generated one (LOCAL_OUT runs; klb's hooks ignore IPIP).
 *
 * Each path checks the path MTU first (with the tunnel header for tun):
 * a packet that may not be fragmented and does not fit is answered with
 * ICMP "fragmentation needed" / "packet too big" towards its sender, so
 * that path MTU discovery works through the balancer, and dropped.
 *
 * klb forwards without decrementing the TTL in these modes, as IPVS does
 * for dr and tun: the balancer is one logical hop with the backends.
 */
#include <linux/icmp.h>
#include <linux/icmpv6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <net/addrconf.h>
#include <net/dsfield.h>
#include <net/dst.h>
#include <net/icmp.h>
#include <net/ip.h>
#include <net/ip6_route.h>
#include <net/ip_tunnels.h>
#include <net/ipv6.h>
#include <net/route.h>

#include "klb.h"
#include "l4/xmit.h"

/* An output route to @daddr; NULL if there is none, or it is local. */
static struct dst_entry *klb_route4(struct net *net, __be32 daddr,
				    __be32 saddr, u8 flags, __be32 *src)
{
	struct flowi4 fl4 = {
		.daddr = daddr,
		.saddr = saddr,
		.flowi4_flags = flags,
	};
	struct rtable *rt;

	rt = ip_route_output_key(net, &fl4);
	if (IS_ERR(rt))
		return NULL;
	if (rt->rt_type != RTN_UNICAST) {
		ip_rt_put(rt);
		return NULL;
	}
	if (src)
		*src = fl4.saddr;
	return &rt->dst;
}

static struct dst_entry *klb_route6(struct net *net,
				    const struct in6_addr *daddr,
				    const struct in6_addr *saddr, u8 flags)
{
	struct flowi6 fl6 = {
		.daddr = *daddr,
		.flowi6_flags = flags,
	};
	struct dst_entry *dst;

	if (saddr)
		fl6.saddr = *saddr;
	dst = ip6_route_output(net, NULL, &fl6);
	if (dst->error || (dst->dev->flags & IFF_LOOPBACK)) {
		dst_release(dst);
		return NULL;
	}
	return dst;
}

static struct dst_entry *klb_route(struct net *net, u16 family,
				   const union nf_inet_addr *daddr,
				   const union nf_inet_addr *saddr, u8 flags)
{
	if (family == AF_INET)
		return klb_route4(net, daddr->ip, saddr ? saddr->ip : 0, flags,
				  NULL);
	return klb_route6(net, &daddr->in6, saddr ? &saddr->in6 : NULL, flags);
}

int klb_xmit_source(struct net *net, u16 family,
		    const union nf_inet_addr *daddr, union nf_inet_addr *saddr)
{
	struct dst_entry *dst;
	int err = 0;

	memset(saddr, 0, sizeof(*saddr));
	if (family == AF_INET) {
		dst = klb_route4(net, daddr->ip, 0, 0, &saddr->ip);
		if (!dst)
			return -ENETUNREACH;
		dst_release(dst);
		return 0;
	}
	dst = klb_route6(net, &daddr->in6, NULL, 0);
	if (!dst)
		return -ENETUNREACH;
	if (ipv6_dev_get_saddr(net, dst->dev, &daddr->in6, 0, &saddr->in6))
		err = -ENETUNREACH;
	dst_release(dst);
	return err;
}

/*
 * Does @skb (L3 at skb->data) exceed @mtu where it may not be fragmented?
 * The same test as forwarding's: a reassembled packet counts by its
 * largest fragment, a GSO packet by its segments.
 */
static bool klb_too_big(const struct sk_buff *skb, u16 family,
			unsigned int mtu)
{
	if (skb->len <= mtu)
		return false;
	if (family == AF_INET) {
		if (!(ip_hdr(skb)->frag_off & htons(IP_DF)))
			return false;
		if (IPCB(skb)->frag_max_size > mtu)
			return true;
	} else {
		if (IP6CB(skb)->frag_max_size > mtu)
			return true;
	}
	if (skb->ignore_df)
		return false;
	return !(skb_is_gso(skb) && skb_gso_validate_network_len(skb, mtu));
}

/*
 * Answer a packet that does not fit with ICMP towards its sender. IPv4's
 * icmp_send() wants a route on the packet: the output route @skb carries
 * by now serves (its source address is chosen by routing to the sender).
 */
static void klb_send_too_big(struct sk_buff *skb, u16 family,
			     unsigned int mtu)
{
	if (family == AF_INET)
		icmp_send(skb, ICMP_DEST_UNREACH, ICMP_FRAG_NEEDED, htonl(mtu));
	else
		icmpv6_send(skb, ICMPV6_PKT_TOOBIG, 0, mtu);
}

/* @skb takes @dst over; false (counted) if it does not fit @mtu. */
static bool klb_xmit_prepare(struct sk_buff *skb, struct klb_service *svc,
			     struct dst_entry *dst, unsigned int mtu)
{
	skb_dst_drop(skb);
	skb_dst_set(skb, dst);
	if (klb_too_big(skb, svc->family, mtu)) {
		klb_send_too_big(skb, svc->family, mtu);
		klb_stats_drop(svc->stats, KLB_DROP_TOO_BIG);
		return false;
	}
	return true;
}

/* Hand a forwarded packet, with its output route, to the output path. */
static unsigned int klb_xmit_out(struct net *net, struct sk_buff *skb,
				 u16 family)
{
	if (family == AF_INET)
		IPCB(skb)->flags |= IPSKB_FORWARDED;
	else
		IP6CB(skb)->flags |= IP6SKB_FORWARDED;
	skb_forward_csum(skb);
	klb_skb_clear_tstamp(skb);
	nf_reset_ct(skb);
	/* LOCAL_IN (fnat replies): early demux may have attached a socket. */
	skb_orphan(skb);
	dst_output(net, NULL, skb);
	return NF_STOLEN;
}

static unsigned int klb_xmit_no_route(struct klb_service *svc)
{
	klb_stats_drop(svc->stats, KLB_DROP_NO_ROUTE);
	return NF_DROP;
}

bool klb_xmit_route(struct net *net, struct sk_buff *skb,
		    struct klb_service *svc, const union nf_inet_addr *daddr,
		    const union nf_inet_addr *saddr, bool anysrc)
{
	struct dst_entry *dst;

	dst = klb_route(net, svc->family, daddr, saddr,
			anysrc ? FLOWI_FLAG_ANYSRC : 0);
	if (!dst) {
		klb_xmit_no_route(svc);
		return false;
	}
	/* An IPv6 route does not check the source: it must be ours. */
	if (saddr && !anysrc && svc->family == AF_INET6 &&
	    !ipv6_chk_addr(net, &saddr->in6, NULL, 0)) {
		dst_release(dst);
		klb_xmit_no_route(svc);
		return false;
	}
	return klb_xmit_prepare(skb, svc, dst, dst_mtu(dst));
}

unsigned int klb_xmit_send(struct net *net, struct sk_buff *skb, u16 family)
{
	return klb_xmit_out(net, skb, family);
}

unsigned int klb_xmit_routed(struct net *net, struct sk_buff *skb,
			     struct klb_service *svc,
			     const union nf_inet_addr *daddr,
			     const union nf_inet_addr *saddr, bool anysrc)
{
	if (!klb_xmit_route(net, skb, svc, daddr, saddr, anysrc))
		return NF_DROP;
	return klb_xmit_out(net, skb, svc->family);
}

/*
 * The dr route of @be, with a reference, or NULL. A route looked up with
 * FLOWI_FLAG_KNOWN_NH towards an on-link address is not cached by the FIB
 * (it is allocated per lookup), so each backend keeps its own, as IPVS
 * does, and checks it per use: a route or device change invalidates it.
 */
static struct dst_entry *klb_dr_route(struct net *net, struct klb_backend *be)
{
	struct dst_entry *dst, *old;

	dst = rcu_dereference(be->dr_dst);
	if (dst && dst_check(dst, READ_ONCE(be->dr_cookie)) &&
	    dst_hold_safe(dst))
		return dst;

	dst = klb_route(net, be->family, &be->addr, NULL, FLOWI_FLAG_KNOWN_NH);
	if (!dst)
		return NULL;
	/*
	 * Through a gateway the frame would go to the gateway, which would
	 * route it by its destination, the VIP: the backend must be on-link.
	 */
	if ((be->family == AF_INET &&
	     container_of(dst, struct rtable, dst)->rt_uses_gateway) ||
	    (be->family == AF_INET6 &&
	     (container_of(dst, struct rt6_info, dst)->rt6i_flags &
	      RTF_GATEWAY))) {
		dst_release(dst);
		return NULL;
	}
	spin_lock_bh(&be->dr_lock);
	old = rcu_dereference_protected(be->dr_dst,
					lockdep_is_held(&be->dr_lock));
	if (be->family == AF_INET6)
		WRITE_ONCE(be->dr_cookie,
			   rt6_get_cookie(container_of(dst, struct rt6_info,
						       dst)));
	rcu_assign_pointer(be->dr_dst, dst_clone(dst));
	spin_unlock_bh(&be->dr_lock);
	/* Freed after a grace period: readers fail dst_hold_safe() on it. */
	dst_release(old);
	return dst;
}

/*
 * A device of @net is being unregistered: drop every backend's cached dr
 * route there. The route holds its device (and, IPv6, the device's
 * inet6_dev), and the unregistration, a netns's deletion included, waits
 * for them: an IPv6 dr route kept across it hung the deletion for ever
 * ("unregister_netdevice: waiting for br0 to become free", seen with
 * selftests/reuse.sh). Drop them all rather than look at which device
 * each holds: it is rare, and the next packet looks the route up again.
 * Backends out of every pool but still held by their connections keep
 * theirs until the last connection goes (klb_backend_free_rcu()).
 */
static void klb_dr_route_forget(struct klb_backend *be)
{
	struct dst_entry *dst;

	spin_lock_bh(&be->dr_lock);
	dst = rcu_replace_pointer(be->dr_dst, NULL,
				  lockdep_is_held(&be->dr_lock));
	spin_unlock_bh(&be->dr_lock);
	/* Freed after a grace period: readers fail dst_hold_safe() on it. */
	dst_release(dst);
}

static int klb_dr_netdev_event(struct notifier_block *nb,
			       unsigned long event, void *ptr)
{
	struct net_device *dev = netdev_notifier_info_to_dev(ptr);
	struct klb_net *kn = klb_net(dev_net(dev));
	struct klb_backend *be;
	struct klb_pool *pool;

	if (event != NETDEV_UNREGISTER)
		return NOTIFY_DONE;
	/* RTNL, then the config lock: klb never takes RTNL holding it. */
	mutex_lock(&kn->lock);
	list_for_each_entry(pool, &kn->pools, node)
		list_for_each_entry(be, &pool->backends, pool_node)
			klb_dr_route_forget(be);
	mutex_unlock(&kn->lock);
	return NOTIFY_DONE;
}

static struct notifier_block klb_dr_netdev_notifier = {
	.notifier_call = klb_dr_netdev_event,
};

int klb_xmit_module_init(void)
{
	return register_netdevice_notifier(&klb_dr_netdev_notifier);
}

void klb_xmit_module_exit(void)
{
	unregister_netdevice_notifier(&klb_dr_netdev_notifier);
}

unsigned int klb_xmit_dr(struct net *net, struct sk_buff *skb,
			 struct klb_service *svc, struct klb_backend *be)
{
	struct dst_entry *dst;

	dst = klb_dr_route(net, be);
	if (!dst)
		return klb_xmit_no_route(svc);
	if (!klb_xmit_prepare(skb, svc, dst, dst_mtu(dst)))
		return NF_DROP;
	return klb_xmit_out(net, skb, be->family);
}

/* Push the outer IPv4 header of an IPIP packet and send it. */
static void klb_tun_push4(struct net *net, struct sk_buff *skb, __be32 src,
			  __be32 dst, u8 dsfield, __be16 df)
{
	struct iphdr *iph;

	memset(IPCB(skb), 0, sizeof(*IPCB(skb)));
	skb_push(skb, sizeof(*iph));
	skb_reset_network_header(skb);
	iph = ip_hdr(skb);
	iph->version = 4;
	iph->ihl = sizeof(*iph) >> 2;
	iph->tos = dsfield;
	iph->frag_off = df;
	iph->ttl = ip4_dst_hoplimit(skb_dst(skb));
	iph->protocol = IPPROTO_IPIP;
	iph->saddr = src;
	iph->daddr = dst;
	/* ip_local_out() fills tot_len and the checksum. */
	__ip_select_ident(net, iph, skb_shinfo(skb)->gso_segs ?: 1);
	skb->protocol = htons(ETH_P_IP);
	ip_local_out(net, NULL, skb);
}

static void klb_tun_push6(struct net *net, struct sk_buff *skb,
			  const struct in6_addr *src,
			  const struct in6_addr *dst, u8 dsfield)
{
	struct ipv6hdr *ip6h;

	memset(IP6CB(skb), 0, sizeof(*IP6CB(skb)));
	skb_push(skb, sizeof(*ip6h));
	skb_reset_network_header(skb);
	ip6h = ipv6_hdr(skb);
	ip6_flow_hdr(ip6h, dsfield, 0);
	ip6h->nexthdr = IPPROTO_IPV6;
	ip6h->hop_limit = ip6_dst_hoplimit(skb_dst(skb));
	ip6h->saddr = *src;
	ip6h->daddr = *dst;
	/* ip6_local_out() fills payload_len. */
	skb->protocol = htons(ETH_P_IPV6);
	ip6_local_out(net, NULL, skb);
}

unsigned int klb_xmit_tun(struct net *net, struct sk_buff *skb,
			  struct klb_service *svc,
			  const struct klb_backend *be)
{
	unsigned int hlen = be->family == AF_INET ? sizeof(struct iphdr) :
						    sizeof(struct ipv6hdr);
	union nf_inet_addr src = {};
	struct dst_entry *dst;
	__be16 df = 0;
	u8 dsfield;

	if (be->family == AF_INET) {
		dst = klb_route4(net, be->addr.ip, 0, 0, &src.ip);
	} else {
		dst = klb_route6(net, &be->addr.in6, NULL, 0);
		if (dst && ipv6_dev_get_saddr(net, dst->dev, &be->addr.in6, 0,
					      &src.in6)) {
			dst_release(dst);
			dst = NULL;
		}
	}
	if (!dst)
		return klb_xmit_no_route(svc);
	if (!klb_xmit_prepare(skb, svc, dst, dst_mtu(dst) - hlen))
		return NF_DROP;

	if (be->family == AF_INET) {
		dsfield = ipv4_get_dsfield(ip_hdr(skb));
		df = ip_hdr(skb)->frag_off & htons(IP_DF);
	} else {
		dsfield = ipv6_get_dsfield(ipv6_hdr(skb));
	}
	if (iptunnel_handle_offloads(skb, be->family == AF_INET ?
				     SKB_GSO_IPXIP4 : SKB_GSO_IPXIP6) ||
	    skb_cow_head(skb, LL_RESERVED_SPACE(dst->dev) + hlen)) {
		klb_stats_drop(svc->stats, KLB_DROP_NO_ROUTE);
		return NF_DROP;
	}
	skb_set_inner_ipproto(skb, be->family == AF_INET ? IPPROTO_IPIP :
							    IPPROTO_IPV6);
	skb_forward_csum(skb);
	klb_skb_clear_tstamp(skb);
	nf_reset_ct(skb);
	if (be->family == AF_INET)
		klb_tun_push4(net, skb, src.ip, be->addr.ip, dsfield, df);
	else
		klb_tun_push6(net, skb, &src.in6, &be->addr.in6, dsfield);
	return NF_STOLEN;
}
