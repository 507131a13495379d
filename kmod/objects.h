/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Live object accounting (objects.c). Every object klb allocates is counted
 * while it lives, so that module unload can prove nothing leaked: Debian's
 * kernels have no kmemleak.
 */
#ifndef _KLB_OBJECTS_H
#define _KLB_OBJECTS_H

#include <linux/percpu.h>

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
	KLB_OBJ_PERSIST,
	KLB_OBJ_CHECK,
	KLB_OBJ_PROBE,
	KLB_OBJ_CONN_HASH,
	KLB_OBJ_EXTACK_MSG,	/* extack.c, before 6.2 */
	KLB_OBJ_ACL,		/* acl.c: a service's source lists */
	KLB_OBJ_L7_BUF,		/* l7/bufs.c: kvmalloc'd session buffers */
	KLB_OBJ_HOSTMAP,	/* config/hostmap.c: a service's host map */
	KLB_OBJ_TXN,		/* netlink/txn.c: open restore transactions */
	KLB_OBJ__MAX
};

/*
 * Per CPU, so that the counts of connections, sessions and buffers, made
 * and freed per connection or request, cost no shared cache line: an
 * object may be freed on another CPU than it was made on, so one CPU's
 * count may go negative; only the sum over all CPUs means anything.
 */
struct klb_obj_counts {
	long n[KLB_OBJ__MAX];
};
DECLARE_PER_CPU(struct klb_obj_counts, klb_objects);

static inline void klb_obj_inc(enum klb_obj o)
{
	this_cpu_inc(klb_objects.n[o]);
}

static inline void klb_obj_dec(enum klb_obj o)
{
	this_cpu_dec(klb_objects.n[o]);
}

/* After the last RCU callback ran: WARN for each type still counted. */
void klb_objects_check(void);

#ifdef DEBUG
/* DEBUG builds, leak_inject=1: count one connection that was never made. */
void klb_objects_leak_inject(void);
#endif

#endif /* _KLB_OBJECTS_H */
