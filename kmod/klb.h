/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klb internal interfaces: the objects shared by the config layer
 * (pool.c, service.c, netlink.c), the scheduler glue (sched.c) and the
 * datapath (hooks.c, conn.c, nat.c).
 *
 * Locking and lifetime rules (see Documentation/design.md):
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
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/netfilter.h>
#include <linux/percpu.h>
#include <linux/rcupdate.h>
#include <linux/u64_stats_sync.h>
#include <net/net_namespace.h>
#include <net/netns/generic.h>
#include <uapi/linux/klb.h>

#include "compat.h"
#include "l7/rule_match.h"

struct sk_buff;
struct netlink_callback;
struct genl_family;
struct klb_conn_table;
struct klb_sched_table;
struct klb_l7_listener;
struct klb_l7_net;
struct netlink_ext_ack;

/* ---- counters ---------------------------------------------------------- */

enum klb_drop_reason {
	KLB_DROP_NO_BACKEND,
	KLB_DROP_TABLE_FULL,
	KLB_DROP_BAD_PACKET,
	KLB_DROP__MAX
};

/* L7 counters (http, tls services and their backends); uapi order. */
enum klb_l7_ctr {
	KLB_L7_REQUESTS,
	KLB_L7_RESP_1XX,	/* + (status / 100 - 1) for the other classes */
	KLB_L7_RESP_2XX,
	KLB_L7_RESP_3XX,
	KLB_L7_RESP_4XX,
	KLB_L7_RESP_5XX,
	KLB_L7_ERR_CONNECT,
	KLB_L7_ERR_TIMEOUT,
	KLB_L7_ERR_RESET,
	KLB_L7_ERR_PARSE,
	KLB_L7_ERR_NO_BACKEND,
	KLB_L7_ERR_LIMIT,
	KLB_L7__MAX
};

/* Per-CPU counters of a service or a backend; summed on read (stats.c). */
struct klb_pcpu_stats {
	u64_stats_t conns;
	u64_stats_t pkts_in;
	u64_stats_t bytes_in;
	u64_stats_t pkts_out;
	u64_stats_t bytes_out;
	u64_stats_t drops[KLB_DROP__MAX];
	u64_stats_t l7[KLB_L7__MAX];
	struct u64_stats_sync syncp;
};

struct klb_stats_sum {
	u64 conns;
	u64 active_conns;
	u64 pkts_in;
	u64 bytes_in;
	u64 pkts_out;
	u64 bytes_out;
	u64 drops[KLB_DROP__MAX];
	u64 l7[KLB_L7__MAX];
};

/* stats.c */
struct klb_pcpu_stats __percpu *klb_stats_alloc(void);
void klb_stats_free(struct klb_pcpu_stats __percpu *stats);
void klb_stats_read(struct klb_pcpu_stats __percpu *stats, struct klb_stats_sum *sum);

/* Datapath helpers: called in softirq or with BH disabled. */
static inline void klb_stats_packet(struct klb_pcpu_stats __percpu *stats,
				    bool reply, unsigned int len)
{
	struct klb_pcpu_stats *s = this_cpu_ptr(stats);

	u64_stats_update_begin(&s->syncp);
	if (reply) {
		u64_stats_inc(&s->pkts_out);
		u64_stats_add(&s->bytes_out, len);
	} else {
		u64_stats_inc(&s->pkts_in);
		u64_stats_add(&s->bytes_in, len);
	}
	u64_stats_update_end(&s->syncp);
}

static inline void klb_stats_conn(struct klb_pcpu_stats __percpu *stats)
{
	struct klb_pcpu_stats *s = this_cpu_ptr(stats);

	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->conns);
	u64_stats_update_end(&s->syncp);
}

static inline void klb_stats_drop(struct klb_pcpu_stats __percpu *stats,
				  enum klb_drop_reason why)
{
	struct klb_pcpu_stats *s = this_cpu_ptr(stats);

	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->drops[why]);
	u64_stats_update_end(&s->syncp);
}

/*
 * L7 helpers: called from work items (process context). A backend's
 * counters may also be bumped by the L4 datapath in softirq on this CPU,
 * so BH is disabled around the update.
 */
static inline void klb_stats_l7(struct klb_pcpu_stats __percpu *stats,
				enum klb_l7_ctr ctr)
{
	struct klb_pcpu_stats *s;

	local_bh_disable();
	s = this_cpu_ptr(stats);
	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->l7[ctr]);
	u64_stats_update_end(&s->syncp);
	local_bh_enable();
}

/* A client connection accepted by an L7 service (conns counter). */
static inline void klb_stats_l7_conn(struct klb_pcpu_stats __percpu *stats)
{
	local_bh_disable();
	klb_stats_conn(stats);
	local_bh_enable();
}

/* Payload bytes relayed: @in client -> backend, @out backend -> client. */
static inline void klb_stats_l7_bytes(struct klb_pcpu_stats __percpu *stats,
				      u64 in, u64 out)
{
	struct klb_pcpu_stats *s;

	local_bh_disable();
	s = this_cpu_ptr(stats);
	u64_stats_update_begin(&s->syncp);
	u64_stats_add(&s->bytes_in, in);
	u64_stats_add(&s->bytes_out, out);
	u64_stats_update_end(&s->syncp);
	local_bh_enable();
}

/* ---- live object accounting -------------------------------------------- */

/*
 * Every object klb allocates is counted while it lives, so that module
 * unload can prove nothing leaked (main.c WARNs if a count is not zero after
 * the last RCU callback ran). Debian's kernels have no kmemleak.
 */
enum klb_obj {
	KLB_OBJ_POOL,
	KLB_OBJ_BACKEND,
	KLB_OBJ_SERVICE,
	KLB_OBJ_SCHED_TABLE,
	KLB_OBJ_CONN,
	KLB_OBJ_RULE_SET,
	KLB_OBJ_L7_LISTENER,
	KLB_OBJ_L7_SESSION,
	KLB_OBJ_L7_UPSTREAM,
	KLB_OBJ__MAX
};

extern atomic_long_t klb_objects[KLB_OBJ__MAX];	/* main.c */

static inline void klb_obj_inc(enum klb_obj o)
{
	atomic_long_inc(&klb_objects[o]);
}

static inline void klb_obj_dec(enum klb_obj o)
{
	atomic_long_dec(&klb_objects[o]);
}

/* ---- objects ----------------------------------------------------------- */

struct klb_backend {
	struct list_head pool_node;	/* pool->backends, under klb_net->lock */
	union nf_inet_addr addr;
	__be16 port;
	u16 family;			/* AF_INET or AF_INET6 */
	u32 weight;			/* 0..KLB_WEIGHT_MAX */
	u8 state;			/* enum klb_backend_state */
	atomic_t active_conns;		/* open connections (lc, wlc, p2c) */
	struct klb_pcpu_stats __percpu *stats;
	/* L7: idle keep-alive connections to this backend (l7/upstream.c) */
	spinlock_t idle_lock;
	struct list_head idle;		/* struct klb_upstream.idle_node */
	u32 nidle;
	bool removed;			/* out of its pool: park nothing more */
	struct kref ref;
	struct rcu_head rcu;
};

struct klb_pool {
	struct list_head node;		/* klb_net->pools */
	char name[KLB_NAME_MAX];
	u8 sched;			/* enum klb_sched */
	struct list_head backends;	/* struct klb_backend.pool_node */
	u32 nbackends;
	u32 users;			/* services using this pool */
	struct klb_sched_table __rcu *table;	/* what the datapath picks from */
	struct rcu_head rcu;
};

struct klb_service {
	struct hlist_node vip_node;	/* klb_net->svc_hash, RCU */
	struct list_head node;		/* klb_net->services */
	char name[KLB_NAME_MAX];
	union nf_inet_addr addr;	/* VIP */
	__be16 port;
	u16 family;
	u8 proto;			/* IPPROTO_TCP / IPPROTO_UDP */
	u8 mode;			/* enum klb_mode */
	u8 proxy_protocol;		/* 0 or 2 (http mode) */
	bool stopping;			/* L7: unconfigured, sessions wind down */
	struct klb_pool __rcu *pool;
	struct klb_rule_set __rcu *rules;	/* L7 only; NULL: none */
	struct klb_l7_listener *listener;	/* L7 only (l7/listener.c) */
	atomic_t active_conns;
	struct klb_pcpu_stats __percpu *stats;
	struct kref ref;
	struct rcu_head rcu;
};

/*
 * Rules of an http or tls service (rule.c): an immutable array, replaced
 * as a whole under kn->lock and freed after a grace period. Each entry's
 * pool counts it as a user (pool->users), so it cannot be deleted.
 */
struct klb_rule_entry {
	struct klb_pool *pool;
	struct klb_rule rule;		/* prepared (l7/rule_match.h) */
};

struct klb_rule_set {
	u32 n;
	struct rcu_head rcu;
	struct klb_rule_entry e[];
};

void klb_backend_release(struct kref *ref);	/* pool.c */
void klb_service_release(struct kref *ref);	/* service.c */

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

/* net.klb.* sysctls; timeouts in seconds. */
struct klb_sysctl {
	int conn_max;
	int tcp_timeout_syn;
	int tcp_timeout_established;
	int tcp_timeout_fin;
	int tcp_timeout_time_wait;
	int tcp_timeout_close;
	int udp_timeout;
	int expire_nodest_conn;
	/* L7 (http, tls modes); sizes in bytes, times in seconds */
	int http_max_header_size;	/* request head over it: 431 */
	int http_max_headers;		/* field lines over it: 431 */
	int http_header_timeout;	/* head not complete in time: 408 */
	int http_keepalive_timeout;	/* idle client between requests */
	int http_response_timeout;	/* no response head in time: 504 */
	int l7_connect_timeout;		/* backend connect */
	int l7_idle_timeout;		/* no byte either way mid-message/relay */
	int l7_max_conns;		/* client connections per service */
	int l7_backend_idle_max;	/* idle keep-alive conns per backend */
	int tls_hello_timeout;		/* ClientHello not complete in time */
};

struct klb_net {
	struct net *net;
	struct mutex lock;		/* serialises every config change */
	struct list_head pools;
	struct list_head services;
	u32 npools;
	u32 nservices;
	unsigned int gen;		/* bumped on every config change (dumps) */
	struct hlist_head svc_hash[1 << KLB_SVC_HASH_BITS];	/* RCU */
	bool hooks_registered;
	struct klb_conn_table *conns;	/* conn.c */
	struct klb_l7_net *l7;		/* l7/: sessions, local route */
	struct klb_sysctl sysctl;
	struct ctl_table_header *sysctl_hdr;
};

extern unsigned int klb_net_id;

static inline struct klb_net *klb_net(const struct net *net)
{
	return net_generic(net, klb_net_id);
}

/* service.c: datapath lookup of a service by VIP; caller holds rcu_read_lock */
struct klb_service *klb_service_lookup_rcu(struct klb_net *kn, u16 family,
					   u8 proto,
					   const union nf_inet_addr *addr,
					   __be16 port);

/* ---- schedulers (sched.c, pure algorithms in sched/) --------------------- */

/* What a scheduler may look at to pick a backend for a new connection. */
struct klb_flow {
	union nf_inet_addr saddr;	/* client */
	union nf_inet_addr daddr;	/* VIP */
	__be16 sport;
	__be16 dport;
	u16 family;
	u8 proto;
};

/*
 * Build the table the datapath picks from: only backends that are up and
 * have weight > 0 are eligible. Takes a reference on each listed backend.
 * Returns a table (possibly with no eligible backend) or ERR_PTR(-ENOMEM).
 * Process context, called under klb_net->lock.
 */
struct klb_sched_table *klb_sched_table_build(u8 sched,
					      struct list_head *backends);
/* Free after an RCU grace period; drops the backend references. */
void klb_sched_table_free(struct klb_sched_table *t);
/*
 * Pick a backend for a new connection; NULL if none is eligible. Caller
 * holds rcu_read_lock (BH context); the result stays valid until
 * rcu_read_unlock(); take a reference with klb_backend_get() to keep it.
 */
struct klb_backend *klb_sched_pick(struct klb_sched_table *t,
				   const struct klb_flow *flow);
const char *klb_sched_name(u8 sched);
#ifdef DEBUG
bool klb_sched_selftest(void);	/* at load, before anything is registered */
#endif

/* ---- datapath (hooks.c, conn.c, nat.c, conn_dump.c) ------------------ */

/* Hooks are registered while the netns has at least one service. */
int klb_hooks_register(struct klb_net *kn);	/* under kn->lock */
void klb_hooks_unregister(struct klb_net *kn);	/* under kn->lock */

int klb_conn_module_init(void);	/* global: the conn slab cache */
void klb_conn_module_exit(void);	/* after every netns is gone + rcu_barrier */
int klb_conn_net_init(struct klb_net *kn);
void klb_conn_net_exit(struct klb_net *kn);	/* after hooks are gone */
/* Remove every connection of @svc (service deletion). Process context. */
void klb_conn_flush_service(struct klb_net *kn, struct klb_service *svc);
/*
 * @be was removed from its pool: if net.klb.expire_nodest_conn is set,
 * remove its connections now; otherwise they live until they end.
 */
void klb_conn_backend_removed(struct klb_net *kn, struct klb_backend *be);

/* A consistent copy of one connection, for dumps. */
struct klb_conn_info {
	struct klb_service *svc;	/* valid during the callback only */
	u16 family;
	u8 proto;
	u8 state;			/* enum klb_conn_state */
	union nf_inet_addr caddr, vaddr, baddr;
	__be16 cport, vport, bport;
	u32 expires_ms;
};

/*
 * Walk the connection table from cursor @pos (zeroed to start), calling
 * @fn for each connection under rcu_read_lock. If @fn returns non-zero the
 * walk stops and @pos is left so that the next call resumes with that same
 * connection (a dump whose skb is full). Returns 0 at the end of the table,
 * else what @fn returned. Best effort under churn: a connection added or
 * removed during the walk may be missed, none is reported twice.
 */
int klb_conn_walk(struct klb_net *kn, unsigned long pos[2],
		  int (*fn)(const struct klb_conn_info *ci, void *arg),
		  void *arg);

/* ---- L7 engine (kmod/l7/): the config layer's entry points -------------- */

int klb_l7_module_init(void);	/* the workqueue */
void klb_l7_module_exit(void);	/* after every netns is gone */
int klb_l7_net_init(struct klb_net *kn);
/*
 * pernet pre_exit: close listeners, abort every session (waits for them),
 * close idle backend connections, and let go of the loopback device,
 * which is unregistered before the pernet exit() methods run.
 */
void klb_l7_net_pre_exit(struct klb_net *kn);
void klb_l7_net_exit(struct klb_net *kn);	/* frees; before config exit */
/*
 * Open @svc's listener (SO_REUSEPORT, so a restore can open the new one
 * before the old one closes). Under kn->lock, before @svc is hashed.
 */
int klb_l7_service_start(struct klb_net *kn, struct klb_service *svc,
			 struct netlink_ext_ack *extack);
/*
 * Close @svc's listener; its sessions finish the exchange in progress and
 * close (svc->stopping). Under kn->lock, before @svc is unhashed. Does not
 * wait for the sessions: they hold references, never the lock.
 */
void klb_l7_service_stop(struct klb_net *kn, struct klb_service *svc);
/*
 * hooks.c, PRE_ROUTING: a packet to an http or tls service's VIP:port is
 * delivered locally, to the listener, whether or not the VIP is a local
 * address. BH disabled, under rcu_read_lock.
 */
unsigned int klb_l7_steer(struct klb_net *kn, struct klb_service *svc,
			  struct sk_buff *skb);
/* @be left its pool: close its idle connections, park no more. */
void klb_l7_backend_removed(struct klb_net *kn, struct klb_backend *be);

/* rule.c: the pool for a request or a ClientHello; under rcu_read_lock. */
struct klb_pool *klb_l7_route_rcu(struct klb_service *svc,
				  const struct klb_rule_input *in);

/* ---- sysctl.c ---------------------------------------------------------- */
void klb_sysctl_defaults(struct klb_sysctl *s);
int klb_sysctl_net_init(struct klb_net *kn);
void klb_sysctl_net_exit(struct klb_net *kn);

/* ---- netlink.c --------------------------------------------------------- */
extern struct genl_family klb_genl_family;
int klb_genl_init(void);
void klb_genl_exit(void);

#endif /* _KLB_H */
