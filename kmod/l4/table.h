/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The skeleton the connection table (conn.c) and the persistence table
 * (persist.c) share (table.c): chain locks, one keyed hash for both, the
 * count and the insertion ids of entries, and a GC that runs a slice of
 * the buckets each period and stops while the table is empty. Each
 * table keeps its own buckets and entries.
 */
#ifndef _KLB_L4_TABLE_H
#define _KLB_L4_TABLE_H

#include <linux/siphash.h>
#include <linux/socket.h>
#include <linux/string.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>

#include "klb.h"

struct klb_l4_core {
	spinlock_t *locks;	/* nlocks chain locks: a bucket's is hval % nlocks */
	unsigned int nlocks;
	/*
	 * SipHash under a random key of the table, not jhash with a random
	 * seed: jhash is no PRF, and a client who can watch timing or guess
	 * the seed could still pile its flows into one chain (nf_conntrack
	 * moved to SipHash for the same reason).
	 */
	siphash_key_t key;
	atomic_t count;		/* entries in the table */
	atomic_long_t next_id;	/* insertion order, for resumable walks */
	unsigned int gc_next;	/* the bucket the GC's next slice starts at */
	unsigned long gc_period;	/* jiffies between two slices */
	struct delayed_work gc_work;
};

/* Locks (charged to the caller's memcg), a fresh key, the GC's work. */
int klb_l4_core_init(struct klb_l4_core *c, unsigned int nlocks,
		     unsigned long gc_period, work_func_t gc);
/* The GC stopped first (klb_l4_gc_stop()) and the table empty. */
void klb_l4_core_exit(struct klb_l4_core *c);

static inline spinlock_t *klb_l4_lock(const struct klb_l4_core *c, u32 hval)
{
	return &c->locks[hval % c->nlocks];
}

/*
 * The hash of two addresses of @family and 64 more bits: a flow (source,
 * destination, ports and protocol) or a persistence key (a masked client,
 * nothing, the service and the prefix length). Unused words of an IPv4
 * address are not read.
 */
static inline u32 klb_l4_hash(const struct klb_l4_core *c, u16 family,
			      const union nf_inet_addr *a,
			      const union nf_inet_addr *b, u64 rest)
{
	u64 w[5];

	/* Inline: every packet's lookup hashes (the packet path). */
	if (family == AF_INET)
		return siphash_2u64((u64)(__force u32)a->ip << 32 |
				    (__force u32)b->ip, rest, &c->key);
	memcpy(&w[0], &a->in6, sizeof(struct in6_addr));
	memcpy(&w[2], &b->in6, sizeof(struct in6_addr));
	w[4] = rest;
	return siphash(w, sizeof(w), &c->key);
}

/* The next id, for an entry about to be inserted. */
static inline unsigned long klb_l4_next_id(struct klb_l4_core *c)
{
	return atomic_long_inc_return(&c->next_id);
}

/*
 * An entry was added (count raised before: a full barrier): run the GC
 * if it is not pending. The GC stops re-arming itself when it sees an
 * empty table, and the workqueue clears PENDING with a barrier before the
 * GC reads the count, so either it sees the entry or we see it idle.
 */
void klb_l4_gc_kick(struct klb_l4_core *c);
/* The end of one GC slice: again after a period, unless the table is empty. */
void klb_l4_gc_again(struct klb_l4_core *c);
/* Nothing of the GC runs after this. */
void klb_l4_gc_stop(struct klb_l4_core *c);

#endif /* _KLB_L4_TABLE_H */
