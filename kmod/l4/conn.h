/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The connection table (conn.c): looked up and filled by the datapath
 * (hooks.c, icmp.c); flushed by the config layer when a service or a
 * backend goes; walked by connection dumps.
 */
#ifndef _KLB_L4_CONN_H
#define _KLB_L4_CONN_H

#include <linux/siphash.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "klb.h"
#include "flow.h"
#include "l4/table.h"
#include "l4/pkt.h"

struct klb_persist;

enum klb_dir {
	KLB_DIR_ORIG,		/* client -> VIP, as the client sent it */
	KLB_DIR_REPLY,		/* backend -> client, as the backend sent it */
	KLB_DIR_MAX
};

/*
 * A connection sits in two hash chains, one per direction. Each node
 * carries everything a lookup compares, so a miss touches one cache line
 * per entry and never the connection itself.
 */
struct klb_conn_hnode {
	struct hlist_node node;
	struct klb_flow flow;
	u8 dir;			/* enum klb_dir: which of conn->h[] this is */
};

/* conn->flags bits */
enum {
	KLB_CONN_F_ACTIVE,	/* counted in svc/be active_conns */
	KLB_CONN_F_DEAD,	/* unlinked; memory freed after a grace period */
	KLB_CONN_F_LOCAL,	/* the client is local (LOCAL_OUT): fnat replies
				 * are delivered, not transmitted
				 */
	KLB_CONN_F_CONFIRMED,	/* UDP: the backend answered (dr, tun: the
				 * client sent a second datagram); until then
				 * the flow has the short unreplied timeout and
				 * may be evicted when the table is full
				 */
	KLB_CONN_F_ORIG_SEEN,	/* dr, tun UDP: a client datagram went by;
				 * adopted TCP: its first packet went by
				 */
	KLB_CONN_F_ADOPTING,	/* counted in the table's adopting (adopt.c) */
};

struct klb_conn {
	struct klb_conn_hnode h[KLB_DIR_MAX];
	unsigned long expires;	/* jiffies; WRITE_ONCE from the datapath */
	unsigned long flags;
	unsigned long id;	/* insertion order, for resumable walks */
	u32 hval[KLB_DIR_MAX];	/* keyed hash of each direction's flow */
	spinlock_t lock;	/* TCP state transitions */
	u8 state;		/* enum klb_conn_state */
	u8 fin_seen;		/* BIT(dir) for each side that sent a FIN */
	struct klb_service *svc;	/* reference held */
	struct klb_backend *be;		/* reference held */
	struct klb_persist *persist;	/* hold on it (l4/persist.c), or NULL */
	struct rcu_head rcu;
};

/* dr and tun: replies go from the backend to the client, not through klb. */
static inline bool klb_conn_oneway(const struct klb_conn *c)
{
	return c->svc->mode == KLB_MODE_DR || c->svc->mode == KLB_MODE_TUN;
}

/*
 * @c's TCP connection is over: closed, both FINs seen, or (dr, tun, which
 * never see the backend's FIN) the client's FIN seen; or it was adopted
 * and never proved live (a stray ACK). A SYN on its tuple starts a new
 * connection, which @c does not own.
 */
static inline bool klb_conn_done(const struct klb_conn *c)
{
	u8 state = READ_ONCE(c->state);

	return state == KLB_CONN_TIME_WAIT || state == KLB_CONN_CLOSE ||
	       state == KLB_CONN_ADOPTED ||
	       (state == KLB_CONN_FIN_WAIT && klb_conn_oneway(c));
}

static inline struct klb_conn *klb_hnode_conn(struct klb_conn_hnode *h)
{
	return container_of(h - h->dir, struct klb_conn, h[0]);
}

/* Caller holds rcu_read_lock. Returns a connection valid until unlock. */
struct klb_conn *klb_conn_find(struct klb_conn_table *t,
			       const struct klb_flow *f, enum klb_dir dir);
/*
 * Insert a connection for @orig (client -> VIP) scheduled to @be.
 * Caller holds rcu_read_lock with BH disabled. If another CPU inserted the
 * same flow first, that connection is returned instead. Errors:
 * -ENOSPC conn_max reached and no entry could be evicted (see
 * klb_conn_alloc()), -ENOMEM, -EADDRINUSE the reply tuple is taken
 * by another connection (same client address:port to another VIP that
 * maps to the same backend). @pe (may be NULL): the persistence entry that
 * chose @be, whose hold this takes over: the new connection keeps it, and
 * it is given back if no connection was inserted.
 */
struct klb_conn *klb_conn_new(struct klb_net *kn, struct klb_service *svc,
			      struct klb_backend *be,
			      const struct klb_flow *orig,
			      struct klb_persist *pe);
/*
 * klb_conn_new() in steps, for a caller that chooses the reply tuple
 * (fnat's source port): allocate a connection with the default reply
 * tuple of its service's mode (-ENOSPC, -ENOMEM; at conn_max an
 * embryonic, unreplied or finished entry is evicted to make room); change
 * h[KLB_DIR_REPLY].flow and rehash it; insert (the connection, another
 * CPU's twin, or ERR_PTR(-EADDRINUSE) if the reply tuple is taken); a
 * connection that was not inserted is freed with klb_conn_free_unused(),
 * which gives back the hold on c->persist (set by the caller, or NULL).
 */
struct klb_conn *klb_conn_alloc(struct klb_net *kn, struct klb_service *svc,
				struct klb_backend *be,
				const struct klb_flow *orig);
void klb_conn_rehash_reply(struct klb_conn_table *t, struct klb_conn *c);
struct klb_conn *klb_conn_insert(struct klb_conn_table *t, struct klb_conn *c);
void klb_conn_free_unused(struct klb_conn_table *t, struct klb_conn *c);
/* Unlink (idempotent) and free after a grace period. Any context. */
void klb_conn_expire(struct klb_conn_table *t, struct klb_conn *c);
/* conn_state.c: a packet of @c went in direction @dir: state, timer. */
void klb_conn_seen(struct klb_net *kn, struct klb_conn *c, enum klb_dir dir,
		   u8 tcpflags);

/*
 * The bucket array, replaced (only while the table is empty) when its
 * size no longer suits conn_max: see klb_conn_table_fit().
 */
struct klb_conn_hash {
	unsigned int mask;	/* buckets - 1 */
	struct rcu_head rcu;
	struct hlist_head buckets[];
};

struct klb_conn_table {
	struct klb_l4_core core;	/* locks, key, count, ids, GC (table.h) */
	struct klb_conn_hash __rcu *hash;
	atomic_long_t evictions;	/* entries evicted to make room */
	atomic_t adopting;		/* adopted, not proved live (adopt.c) */
	struct klb_net *kn;		/* the table's, for passive health */
};

static inline bool klb_conn_table_empty(const struct klb_conn_table *t)
{
	return !atomic_read(&t->core.count);
}

/*
 * Under rcu_read_lock. The hash only changes while the table is empty,
 * under the config lock (klb_conn_table_fit()), which its other users
 * (the netns's setup and teardown) hold or precede.
 */
static inline struct klb_conn_hash *klb_conn_hash(const struct klb_conn_table *t)
{
	return rcu_dereference_check(t->hash, true);
}

/* conn_state.c: how long @c lives in @state without a packet */
unsigned long klb_conn_timeout(const struct klb_sysctl *s,
			       const struct klb_conn *c, u8 state);
/*
 * @c leaves the table's unproved adopted entries (once): proved live,
 * closed, or unlinked. A flag test for the connections never adopted.
 */
static inline void klb_conn_adopt_done(struct klb_conn_table *t,
				       struct klb_conn *c)
{
	if (test_bit(KLB_CONN_F_ADOPTING, &c->flags) &&
	    test_and_clear_bit(KLB_CONN_F_ADOPTING, &c->flags))
		atomic_dec(&t->adopting);
}

/* conn_state.c: @c no longer counts in its service's and backend's active */
void klb_conn_leave_active(struct klb_conn *c);

/* ---- for the rest of klb ------------------------------------------------ */

int klb_conn_module_init(void);	/* global: the conn slab cache */
void klb_conn_module_exit(void);	/* after every netns is gone + rcu_barrier */
int klb_conn_net_init(struct klb_net *kn);
void klb_conn_net_exit(struct klb_net *kn);	/* after hooks are gone */
/*
 * Size the hash for the conn_max in force, if the table is empty (the
 * netns gets its first service). Config lock held, process context;
 * a failed allocation keeps the old size.
 */
void klb_conn_table_fit(struct klb_net *kn);
unsigned int klb_conn_buckets(struct klb_net *kn);
unsigned long klb_conn_evictions(struct klb_net *kn);
/* Remove every connection of @svc (service deletion). Process context. */
void klb_conn_flush_service(struct klb_net *kn, struct klb_service *svc);
/*
 * Remove, in one pass over the table, every connection whose service or
 * backend is marked dying (a flush or restore, after the grace period
 * that follows unpublishing them). Process context.
 */
void klb_conn_flush_dying(struct klb_net *kn);
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
	union nf_inet_addr caddr, vaddr, baddr, laddr;
	__be16 cport, vport, bport, lport;	/* lport 0: not fnat */
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

#endif /* _KLB_L4_CONN_H */
