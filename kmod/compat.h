/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Everything that depends on the kernel version lives here, as small
 * helpers, so the rest of klb reads like current upstream code.
 * Supported: Linux 5.15 .. 6.12+.
 */
#ifndef _KLB_COMPAT_H
#define _KLB_COMPAT_H

#include <linux/version.h>
#include <linux/netfilter_ipv4.h>
#include <linux/netfilter_ipv6.h>
#include <net/genetlink.h>
#include <net/route.h>
#include <net/netfilter/ipv4/nf_defrag_ipv4.h>
#include <net/netfilter/ipv6/nf_defrag_ipv6.h>
/* 6.5 moved skb_gso_validate_network_len() and friends to their own header. */
#if KERNEL_VERSION(6, 5, 0) <= LINUX_VERSION_CODE
#include <net/gso.h>
#endif

/*
 * Re-route a locally generated packet whose destination was rewritten.
 * Both functions take the originating socket since 5.10; 5.15 is our floor,
 * so one spelling covers every supported kernel. Kept here so a future
 * signature change touches one place.
 */
static inline int klb_route_me_harder4(struct net *net, struct sock *sk,
				       struct sk_buff *skb)
{
	return ip_route_me_harder(net, sk, skb, RTN_UNSPEC);
}

static inline int klb_route_me_harder6(struct net *net, struct sock *sk,
				       struct sk_buff *skb)
{
	return nf_ip6_route_me_harder(net, sk, skb);
}

/*
 * Per-netns defragmentation hooks (refcounted by the defrag modules).
 * The matching _disable() exists since 5.13, so 5.15+ always pairs them.
 * klb does not link against nf_defrag_ipv4/6 (then a bare insmod would fail
 * with "Unknown symbol"): compat.c looks the four functions up at module
 * init, loading the modules if needed, and holds them until module exit.
 */
struct klb_defrag_ops {
	int (*v4_enable)(struct net *net);
	void (*v4_disable)(struct net *net);
	int (*v6_enable)(struct net *net);
	void (*v6_disable)(struct net *net);
};

extern struct klb_defrag_ops klb_defrag;

int klb_compat_init(void);
void klb_compat_exit(void);

static inline int klb_defrag_enable(struct net *net)
{
	int err;

	err = klb_defrag.v4_enable(net);
	if (err)
		return err;
	err = klb_defrag.v6_enable(net);
	if (err)
		klb_defrag.v4_disable(net);
	return err;
}

static inline void klb_defrag_disable(struct net *net)
{
	klb_defrag.v6_disable(net);
	klb_defrag.v4_disable(net);
}

/*
 * A packet klb forwards leaves with no receive timestamp (qdiscs such as
 * fq read it as a departure time). 5.18 gave the field a helper.
 */
static inline void klb_skb_clear_tstamp(struct sk_buff *skb)
{
#if KERNEL_VERSION(5, 18, 0) <= LINUX_VERSION_CODE
	skb_clear_tstamp(skb);
#else
	skb->tstamp = 0;
#endif
}

/*
 * Is @skb being bridged between two ports of a bridge, not routed?
 * br_netfilter (built into some kernels, loaded on Kubernetes nodes) runs
 * the IP hooks for such frames too, and its FORWARD step names the out
 * port; a frame that came in on a bridge and is routed has none.
 */
#include <linux/netfilter_bridge.h>

static inline bool klb_skb_bridged(const struct sk_buff *skb)
{
#if IS_ENABLED(CONFIG_BRIDGE_NETFILTER)
	return nf_bridge_get_physoutdev(skb);
#else
	return false;
#endif
}

/* ---- sysctl.c, netlink/ ------------------------------------------------ */
#include <linux/netlink.h>
#include <net/net_namespace.h>

/*
 * 6.6 takes the table size (tables lose their sentinel); earlier kernels
 * stop at the empty sentinel entry, which klb's tables still carry.
 */
static inline struct ctl_table_header *
klb_register_net_sysctl(struct net *net, const char *path,
			struct ctl_table *table, size_t n)
{
#if KERNEL_VERSION(6, 6, 0) <= LINUX_VERSION_CODE
	return register_net_sysctl_sz(net, path, table, n);
#else
	return register_net_sysctl(net, path, table);
#endif
}

/* proc handlers see a const table since 6.11. */
#if KERNEL_VERSION(6, 11, 0) <= LINUX_VERSION_CODE
#define klb_proc_table	const struct ctl_table
#else
#define klb_proc_table	struct ctl_table
#endif

/* Missing-attribute reporting (NLMSGERR_ATTR_MISS_*) exists since 6.0. */
#ifndef NL_REQ_ATTR_CHECK
#define NL_REQ_ATTR_CHECK(extack, nest, tb, type)	(!(tb)[(type)])
#define NL_SET_ERR_ATTR_MISS(extack, nest, type)	do { } while (0)
#endif

/* The parsed request of a dump moved into a struct genl_info in 6.6. */
#if KERNEL_VERSION(6, 6, 0) <= LINUX_VERSION_CODE
#define klb_genl_dump_attrs(cb)	(genl_info_dump(cb)->attrs)
#else
#define klb_genl_dump_attrs(cb)	(genl_dumpit_info(cb)->attrs)
#endif

/*
 * Since 6.2 extack carries a buffer for a formatted message
 * (NL_SET_ERR_MSG_FMT); before, it can only point at a string.
 */
#ifdef NETLINK_MAX_FMTMSG_LEN
#define KLB_EXTACK_MSG_BUF	1
#endif

/* pre_doit and post_doit see the split form of an op since 6.2. */
#if KERNEL_VERSION(6, 2, 0) <= LINUX_VERSION_CODE
#define klb_genl_doit_ops	genl_split_ops
#else
#define klb_genl_doit_ops	genl_ops
#endif

/* ---- L7 engine (kmod/l7/) --------------------------------------------- */
#include <net/inet_sock.h>

/* A route to hand locally delivered packets; 5.18 dropped "nopolicy". */
static inline struct rtable *klb_rt_dst_alloc(struct net_device *dev,
					      unsigned int flags, u16 type)
{
#if KERNEL_VERSION(5, 18, 0) <= LINUX_VERSION_CODE
	return rt_dst_alloc(dev, flags, type, true);
#else
	return rt_dst_alloc(dev, flags, type, false, true);
#endif
}

/* IP_TRANSPARENT (and IPV6_TRANSPARENT) on a kernel socket. */
static inline void klb_sock_set_transparent(struct sock *sk)
{
#if KERNEL_VERSION(6, 6, 0) <= LINUX_VERSION_CODE
	inet_set_bit(TRANSPARENT, sk);
#else
	lock_sock(sk);
	inet_sk(sk)->transparent = 1;
	release_sock(sk);
#endif
}

/*
 * The netns refcount tracker of a kernel socket that now holds the netns
 * (klb_sock_hold_net()): __sk_destruct() frees the tracker of a refcounted
 * socket from net->refcnt_tracker. Since 6.2 sk_alloc() gives a kernel
 * socket a tracker in net->notrefcnt_tracker: free that one first, or it
 * leaks and the tracker reports it when the netns goes (as 6.14's
 * sk_net_refcnt_upgrade() does). Before 5.17 there is no tracker.
 */
static inline void klb_sock_track_net(struct sock *sk, struct net *net)
{
#if KERNEL_VERSION(6, 2, 0) <= LINUX_VERSION_CODE
	__netns_tracker_free(net, &sk->ns_tracker, false);
#endif
#if KERNEL_VERSION(5, 17, 0) <= LINUX_VERSION_CODE
	netns_tracker_alloc(net, &sk->ns_tracker, GFP_KERNEL);
#endif
}

/*
 * A kernel socket holds no reference on its netns. One we close gracefully
 * lives on (FIN_WAIT, LAST_ACK) after we let go of it: make it hold the
 * netns as a user socket does, so the netns cannot be freed under it.
 * (6.14 has sk_net_refcnt_upgrade() for this.) False if the netns is
 * already being dismantled: then the caller must reset the socket instead.
 */
static inline bool klb_sock_hold_net(struct sock *sk)
{
	struct net *net = sock_net(sk);

	if (sk->sk_net_refcnt)
		return true;
	if (!maybe_get_net(net))
		return false;
	klb_sock_track_net(sk, net);
	sk->sk_net_refcnt = 1;
	sock_inuse_add(net, 1);
	return true;
}

/*
 * Queue @len bytes of @page from @off on a locked TCP socket by reference
 * (no copy), with more to come: TCP fills whole segments before it sends,
 * instead of pushing a short one for each page. Bytes taken, or -errno
 * (-EAGAIN when the send buffer is full). 6.5 replaced sendpage with
 * MSG_SPLICE_PAGES, and MSG_SENDPAGE_NOTLAST with MSG_MORE.
 */
#if KERNEL_VERSION(6, 5, 0) <= LINUX_VERSION_CODE
#include <linux/bvec.h>
#include <net/tcp.h>

static inline int klb_tcp_send_page_more(struct sock *sk, struct page *page,
					 int off, size_t len)
{
	struct msghdr msg = {
		.msg_flags = MSG_SPLICE_PAGES | MSG_DONTWAIT | MSG_MORE,
	};
	struct bio_vec bvec;

	bvec_set_page(&bvec, page, len, off);
	iov_iter_bvec(&msg.msg_iter, ITER_SOURCE, &bvec, 1, len);
	return tcp_sendmsg_locked(sk, &msg, len);
}
#else
static inline int klb_tcp_send_page_more(struct sock *sk, struct page *page,
					 int off, size_t len)
{
	return kernel_sendpage_locked(sk, page, off, len, MSG_DONTWAIT |
				      MSG_MORE | MSG_SENDPAGE_NOTLAST);
}
#endif

/*
 * A random number below @ceil. get_random_u32_below() is 6.2; before,
 * prandom_u32_max() did the same (and is gone since 6.2).
 */
#include <linux/random.h>
#if KERNEL_VERSION(6, 2, 0) <= LINUX_VERSION_CODE
static inline u32 klb_random_below(u32 ceil)
{
	return get_random_u32_below(ceil);
}
#else
static inline u32 klb_random_below(u32 ceil)
{
	return prandom_u32_max(ceil);
}
#endif

/*
 * The family a dump runs for, as the genetlink core records it: a reply
 * built from it needs no pointer to klb's own family struct, whose ops
 * table refers to every command (netlink/family.c is the top of its
 * layer). 6.7 moved it into a struct genl_info of the dump.
 */
static inline const struct genl_family *
klb_dump_family(struct netlink_callback *cb)
{
#if KERNEL_VERSION(6, 7, 0) <= LINUX_VERSION_CODE
	return genl_info_dump(cb)->family;
#else
	return genl_dumpit_info(cb)->family;
#endif
}

#endif /* _KLB_COMPAT_H */
