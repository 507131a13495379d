/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The persistence table (persist.c): which backend a client, or a client
 * prefix, of a persistent service goes to. Filled and read by the
 * scheduling of new connections (hooks.c), released by the connections
 * that hold an entry (conn.c), emptied by the config layer when a service
 * goes, walked by dumps.
 */
#ifndef _KLB_L4_PERSIST_H
#define _KLB_L4_PERSIST_H

#include "klb.h"
#include "flow.h"

struct klb_sched_table;
struct klb_persist;

/*
 * The backend for a new connection from @f->saddr to @svc, whose
 * persistence is on: the one of a live entry if it may still be used,
 * else a fresh pick from @table, remembered in a new entry. Caller holds
 * rcu_read_lock with BH disabled; the backend is valid until unlock.
 * *@pe: the entry, with one connection's hold on it that the caller hands
 * to klb_conn_new() or gives back with klb_persist_put(); NULL if there is
 * none (no backend, the table is full, no memory).
 */
struct klb_backend *klb_persist_pick(struct klb_net *kn,
				     struct klb_service *svc,
				     struct klb_pool *pool,
				     struct klb_sched_table *table,
				     const struct klb_flow *f,
				     struct klb_persist **pe);
/*
 * A connection's hold on @pe ends (NULL: nothing to do); the entry's
 * timeout starts when the last one does. Any context, @pe's service still
 * referenced by the caller.
 */
void klb_persist_put(struct klb_persist *pe);

int klb_persist_net_init(struct klb_net *kn);
/* After the connection table is gone: no entry is held any more. */
void klb_persist_net_exit(struct klb_net *kn);
/*
 * Forget every entry of @svc (service deletion, after its connections were
 * flushed and no packet can reach it). Process context.
 */
void klb_persist_flush_service(struct klb_net *kn, struct klb_service *svc);
/* The same for every service marked dying, in one pass (a flush, restore). */
void klb_persist_flush_dying(struct klb_net *kn);

/* A consistent copy of one entry, for dumps. */
struct klb_persist_info {
	struct klb_service *svc;	/* valid during the callback only */
	u16 family;
	u8 plen;			/* prefix length of the client mask */
	union nf_inet_addr caddr;	/* masked client address */
	union nf_inet_addr baddr;
	__be16 bport;
	u32 conns;			/* connections holding it */
	u32 expires_ms;			/* 0 while held */
};

/*
 * Walk the table from cursor @pos (zeroed to start) calling @fn for each
 * entry under rcu_read_lock, as klb_conn_walk() does: a non-zero return
 * stops the walk and the next call resumes with that same entry.
 */
int klb_persist_walk(struct klb_net *kn, unsigned long pos[2],
		     int (*fn)(const struct klb_persist_info *pi, void *arg),
		     void *arg);

#endif /* _KLB_L4_PERSIST_H */
