/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klb connection table: private interface between conn.c (the table),
 * hooks.c and icmp.c (the datapath that looks connections up).
 */
#ifndef _KLB_CONN_H
#define _KLB_CONN_H

#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <net/ipv6.h>
#include "klb.h"

enum klb_dir {
	KLB_DIR_ORIG,		/* client -> VIP, as the client sent it */
	KLB_DIR_REPLY,		/* backend -> client, as the backend sent it */
	KLB_DIR_MAX
};

/* Addresses and ports of one direction, as they appear on the wire. */
struct klb_tuple {
	union nf_inet_addr saddr;
	union nf_inet_addr daddr;
	__be16 sport;
	__be16 dport;
};

/*
 * A connection sits in two hash chains, one per direction. Each node
 * carries everything a lookup compares, so a miss touches one cache line
 * per entry and never the connection itself.
 */
struct klb_conn_hnode {
	struct hlist_node node;
	struct klb_tuple tuple;
	u16 family;
	u8 proto;
	u8 dir;			/* enum klb_dir: which of conn->h[] this is */
};

/* TCP flags the state machine looks at (struct klb_pkt.tcpflags). */
#define KLB_TCP_FIN	BIT(0)
#define KLB_TCP_SYN	BIT(1)
#define KLB_TCP_RST	BIT(2)
#define KLB_TCP_ACK	BIT(3)

/* conn->flags bits */
enum {
	KLB_CONN_F_ACTIVE,	/* counted in svc/be active_conns */
	KLB_CONN_F_DEAD,	/* unlinked; memory freed after a grace period */
};

struct klb_conn {
	struct klb_conn_hnode h[KLB_DIR_MAX];
	unsigned long expires;	/* jiffies; WRITE_ONCE from the datapath */
	unsigned long flags;
	unsigned long id;	/* insertion order, for resumable walks */
	u32 bucket[KLB_DIR_MAX];
	spinlock_t lock;	/* TCP state transitions */
	u8 state;		/* enum klb_conn_state */
	u8 fin_seen;		/* BIT(dir) for each side that sent a FIN */
	struct klb_service *svc;	/* reference held */
	struct klb_backend *be;		/* reference held */
	struct rcu_head rcu;
};

static inline bool klb_addr_equal(u16 family, const union nf_inet_addr *a,
				  const union nf_inet_addr *b)
{
	if (family == AF_INET)
		return a->ip == b->ip;
	return ipv6_addr_equal(&a->in6, &b->in6);
}

static inline struct klb_conn *klb_hnode_conn(struct klb_conn_hnode *h)
{
	return container_of(h - h->dir, struct klb_conn, h[0]);
}

/* Caller holds rcu_read_lock. Returns a connection valid until unlock. */
struct klb_conn *klb_conn_find(struct klb_conn_table *t, u16 family, u8 proto,
			       const struct klb_tuple *tp, enum klb_dir dir);
/*
 * Insert a connection for @orig (client -> VIP) scheduled to @be.
 * Caller holds rcu_read_lock with BH disabled. If another CPU inserted the
 * same flow first, that connection is returned instead. Errors:
 * -ENOSPC conn_max reached, -ENOMEM, -EADDRINUSE the reply tuple is taken
 * by another connection (same client address:port to another VIP that
 * maps to the same backend).
 */
struct klb_conn *klb_conn_new(struct klb_net *kn, struct klb_service *svc,
			      struct klb_backend *be, u16 family, u8 proto,
			      const struct klb_tuple *orig);
/* Unlink (idempotent) and free after a grace period. Any context. */
void klb_conn_expire(struct klb_conn_table *t, struct klb_conn *c);
/* A packet of @c went through in direction @dir: advance state, timer. */
void klb_conn_seen(struct klb_net *kn, struct klb_conn *c, enum klb_dir dir,
		   u8 tcpflags);

struct klb_conn_table {
	struct hlist_head *buckets;
	spinlock_t *locks;	/* chain locks, shared by bucket & lock_mask */
	unsigned int mask;	/* buckets - 1 */
	unsigned int lock_mask;	/* locks - 1 */
	u32 seed;
	atomic_t count;
	atomic_long_t next_id;
	unsigned int gc_next;	/* next bucket the GC looks at */
	struct delayed_work gc_work;
};

static inline bool klb_conn_table_empty(const struct klb_conn_table *t)
{
	return !atomic_read(&t->count);
}

#endif /* _KLB_CONN_H */
