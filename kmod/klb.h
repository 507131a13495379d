/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klb's core: the objects every layer sees (backends, pools, services), the
 * per-netns state that holds them, and their reference counting. Nothing
 * here calls into a layer; each layer's API is in its own header.
 *
 * Layers (Documentation/design.md; tools/layers.py checks the arrows):
 *   netlink/ -> config/ -> l4/ -> l7/ -> sched/ -> core (this directory)
 *
 * Locking and lifetime rules:
 *  - Every change to pools, backends and services happens under
 *    klb_net->lock (a mutex), in process context, via netlink.
 *  - The datapath never takes klb_net->lock. It reads, under RCU:
 *    service hash -> service->pool -> pool->table (scheduler table).
 *  - A scheduler table holds a reference on every backend it lists, and is
 *    freed after a grace period, so a backend returned by klb_sched_pick()
 *    inside an RCU read section may be klb_backend_get()-ed safely.
 *  - A connection holds a reference on its service and on its backend;
 *    deleting either never leaves a dangling pointer in the conn table.
 *  - Pools are freed with kfree_rcu() after being unlinked (no refcount: a
 *    pool in use by a service cannot be deleted).
 */
#ifndef _KLB_H
#define _KLB_H

#include <linux/types.h>
#include <linux/bug.h>
#include <linux/jiffies.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>
#include <linux/netfilter.h>
#include <linux/rcupdate.h>
#include <linux/siphash.h>
#include <net/dst.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <uapi/linux/klb.h>

#include "compat.h"
#include "objects.h"
#include "stats.h"
#include "sysctl.h"

struct klb_conn_table;
struct klb_persist_table;
struct klb_sched_table;
struct klb_rule_set;
struct klb_acl;
struct klb_l7_listener;
struct klb_l7_net;
struct mem_cgroup;
struct klb_check_cfg;
struct klb_probe;

/* ---- objects ----------------------------------------------------------- */

struct klb_backend {
	struct list_head pool_node;	/* pool->backends, under klb_net->lock */
	union nf_inet_addr addr;
	__be16 port;
	u16 family;			/* AF_INET or AF_INET6 */
	u32 weight;			/* 0..KLB_WEIGHT_MAX */
	u8 state;			/* enum klb_backend_state */
	atomic_t active_conns;		/* open connections (lc, wlc, p2c) */
	u32 maxconn;			/* cap of active_conns; 0 none (READ_ONCE) */
	/*
	 * The pool it was added to: an identity only, never dereferenced
	 * (L7 requests queued for a full pool wait for one of its backends).
	 */
	const void *pool;
	struct klb_pcpu_stats __percpu *stats;
	/* L7: idle keep-alive connections to this backend (l7/upstream.c) */
	spinlock_t idle_lock;
	struct list_head idle;		/* struct klb_upstream.idle_node */
	u32 nidle;
	bool removed;			/* out of its pool: park nothing more */
	bool dying;			/* leaving in this change: expire its conns */
	/* dr: the route to this backend's MAC address (l4/xmit.c) */
	spinlock_t dr_lock;		/* replaces dr_dst */
	struct dst_entry __rcu *dr_dst;	/* a reference held; checked per use */
	u32 dr_cookie;			/* IPv6 route cookie for dst_check() */
	/*
	 * Health (health/): written by the backend's probe work only, read
	 * by the table build and by dumps, with single loads and stores.
	 */
	u8 health;			/* enum klb_backend_health */
	u32 check_err;			/* the last failure (health/probe.h) */
	u64 check_ok;
	u64 check_fail;
	unsigned long health_changed;	/* jiffies */
	struct klb_probe *probe;	/* its active check, or NULL */
	/*
	 * Passive health (health/passive.c): reported from any context by
	 * the datapath and the L7 engine. The pool's settings are copied
	 * here (under klb_net->lock) so that a report needs no pool.
	 */
	u8 passive_fall;		/* 0: passive health off */
	bool passive_5xx;
	u32 passive_eject_ms;
	atomic_t passive_fails;		/* failures in a row */
	atomic_long_t passive_total;	/* failures counted */
	unsigned long ejected_until;	/* jiffies; 0: never ejected */
	unsigned long ejected_at;	/* jiffies: the last ejection began */
	u32 ejections;			/* in a row: the period doubles */
	u32 ejected_for_ms;		/* the last ejection's period */
	u8 passive_why;			/* enum klb_passive_result that ejected */
	bool ejected_told;		/* the ejection's event was sent */
	/*
	 * The table publish (sched/publish.c), under klb_net->lock: was the
	 * backend usable at the last publish, since when, and its weight in
	 * that table (less than weight during slow start).
	 */
	bool published;
	unsigned long usable_since;	/* jiffies */
	u32 weight_now;
	struct kref ref;
	struct rcu_head rcu;
};

struct klb_pool {
	struct list_head node;		/* klb_net->pools */
	char name[KLB_NAME_MAX];
	u8 sched;			/* enum klb_sched */
	u8 hash;			/* enum klb_hash: what sh, mh hash */
	struct list_head backends;	/* struct klb_backend.pool_node */
	u32 nbackends;
	u32 users;			/* services using this pool */
	struct klb_sched_table __rcu *table;	/* what the datapath picks from */
	/* Active check (health/), under klb_net->lock; NULL: none. */
	struct klb_check_cfg *check;
	u8 all_unhealthy;		/* enum klb_all_unhealthy */
	bool health_live;		/* linked in: its probes may run */
	unsigned long health_dirty;	/* bit 0: republish the table */
	/* Passive health, copied into each backend; slow start. */
	u8 passive_fall;
	bool passive_5xx;
	u32 passive_eject_ms;
	u32 slowstart_ms;
	unsigned long ramp_until;	/* jiffies: a backend ramps until then */
	struct rcu_head rcu;
};

/* Is @be ejected by passive health now? */
static inline bool klb_backend_ejected(const struct klb_backend *be)
{
	unsigned long until = READ_ONCE(be->ejected_until);

	return until && time_before(jiffies, until);
}

/*
 * May new connections go to @be? The one predicate of the table build:
 * operator up, a weight, not unhealthy and not ejected (@ignore_health:
 * the pool fails open, all its backends being unhealthy or ejected).
 */
static inline bool klb_backend_usable(const struct klb_backend *be,
				      bool ignore_health)
{
	return READ_ONCE(be->state) == KLB_BACKEND_UP &&
	       READ_ONCE(be->weight) > 0 &&
	       (ignore_health ||
		(READ_ONCE(be->health) != KLB_HEALTH_UNHEALTHY &&
		 !klb_backend_ejected(be)));
}

/*
 * Is @be at its maxconn (no new connection may go to it)? A lockless
 * read: the count is raised after the pick, so CPUs picking @be at the
 * same instant may each see it one below the cap and all take it: the
 * cap is exceeded by at most the number of CPUs racing, never more.
 * klb_backend_full_at() is for a caller that has read the count already.
 */
static inline bool klb_backend_full_at(const struct klb_backend *be, int active)
{
	u32 max = READ_ONCE(be->maxconn);

	return max && active >= (int)max;
}

static inline bool klb_backend_full(const struct klb_backend *be)
{
	return klb_backend_full_at(be, atomic_read(&be->active_conns));
}

struct klb_service {
	struct hlist_node vip_node;	/* klb_net->svc_hash (l4/vip.c), RCU */
	struct list_head node;		/* klb_net->services */
	char name[KLB_NAME_MAX];
	union nf_inet_addr addr;	/* VIP */
	__be16 port;
	u16 family;
	u8 proto;			/* IPPROTO_TCP / IPPROTO_UDP */
	u8 mode;			/* enum klb_mode */
	u8 proxy_protocol;		/* 0 or 2 (http mode) */
	u8 nsnat;			/* fnat: entries of snat[]; 0: route's */
	u8 persist_mask;		/* persistence: client prefix length */
	u32 persist_timeout;		/* persistence: seconds; 0 off (READ_ONCE) */
	bool adopt;			/* dr, tun TCP: adopt mid-flow (l4/adopt.c) */
	union nf_inet_addr snat[KLB_SNAT_MAX];	/* fnat sources, fixed */
	char cookie[KLB_COOKIE_NAME_MAX];	/* http: persistence cookie */
	bool stopping;			/* L7: unconfigured, sessions wind down */
	bool dying;			/* leaving in this change: flush its conns */
	struct klb_pool __rcu *pool;
	struct klb_rule_set __rcu *rules;	/* L7 only (l7/route.h); NULL: none */
	struct klb_hostmap __rcu *hostmap;	/* L7 only (l7/route.h); NULL: none */
	struct klb_acl __rcu *acl;	/* source allow/deny lists (acl.h); NULL: none */
	struct klb_l7_listener *listener;	/* L7 only (l7/listener.c) */
	/*
	 * L7: the service whose listener took over this one's address when
	 * it closed (a restore), referenced; its sessions move there.
	 */
	struct klb_service *l7_next;
	atomic_t l7_queued;		/* http requests waiting (l7/queue.c) */
	atomic_t active_conns;
	struct klb_pcpu_stats __percpu *stats;
	struct kref ref;
	struct rcu_head rcu;
};

/* http and tls services terminate TCP in the L7 engine; the rest is L4. */
static inline bool klb_mode_l7(u8 mode)
{
	return mode == KLB_MODE_HTTP || mode == KLB_MODE_TLS;
}

/* objects.c: free after a grace period, from any context */
void klb_backend_release(struct kref *ref);
void klb_service_release(struct kref *ref);

static inline void klb_backend_get(struct klb_backend *be)
{
	kref_get(&be->ref);
}

static inline void klb_backend_put(struct klb_backend *be)
{
	kref_put(&be->ref, klb_backend_release);
}

static inline void klb_service_get(struct klb_service *svc)
{
	kref_get(&svc->ref);
}

static inline void klb_service_put(struct klb_service *svc)
{
	kref_put(&svc->ref, klb_service_release);
}

/* ---- per network namespace -------------------------------------------- */

#define KLB_SVC_HASH_BITS 8

struct klb_net {
	struct net *net;
	struct mutex lock;		/* serialises every config change */
	struct list_head pools;
	struct list_head services;
	u32 npools;
	u32 nservices;
	/*
	 * Objects allocated for this namespace, configured or staged by a
	 * restore: what net.klb.{pools,backends,services}_max cap
	 * (config/quota.h).
	 */
	struct {
		u32 pools;
		u32 backends;
		u32 services;
	} alloc;
	struct mem_cgroup *memcg;	/* memcg.h: charged for softirq allocs */
	/*
	 * netlink/txn.c: the open restore transactions, how many (read
	 * without the lock by the socket-release notifier) and the last id.
	 */
	struct list_head txns;
	u32 ntxns;
	u32 txn_last_id;
	unsigned int gen;		/* bumped on every config change (dumps) */
	struct hlist_head svc_hash[1 << KLB_SVC_HASH_BITS];	/* l4/vip.c, RCU */
	bool hooks_registered;
	struct klb_conn_table *conns;	/* l4/conn.c */
	struct klb_persist_table *persist;	/* l4/persist.c */
	struct klb_l7_net *l7;		/* l7/net.c: sessions, local route */
	struct klb_sysctl sysctl;
	struct ctl_table_header *sysctl_hdr;
	/*
	 * net.klb.hash_seed (sched/seed.c), under lock: the key of the sh
	 * and mh hashes, copied into each table as it is built. Random at
	 * creation; balancers given the same seed pick alike.
	 */
	siphash_key_t hash_seed;
	struct ctl_table_header *seed_hdr;
	/* health/: republishes the tables of pools whose health changed */
	struct delayed_work health_work;
	bool health_ramp;		/* a publish started a slow start */
};

extern unsigned int klb_net_id;	/* netns.c */

static inline struct klb_net *klb_net(const struct net *net)
{
	return net_generic(net, klb_net_id);
}

/* netns.c: the core fields of a new netns's state */
void klb_net_core_init(struct klb_net *kn, struct net *net);

/*
 * @kn's config lock is held. lockdep checks the holder where it is built
 * in; a DEBUG build (make DEBUG=1) also checks that the lock is held at
 * all on kernels without lockdep (Debian's), so the VM tests catch a call
 * without it.
 */
static inline void klb_assert_locked(struct klb_net *kn)
{
	lockdep_assert_held(&kn->lock);
#ifdef DEBUG
	WARN_ON_ONCE(!mutex_is_locked(&kn->lock));
#endif
}

#endif /* _KLB_H */
