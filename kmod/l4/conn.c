// SPDX-License-Identifier: GPL-2.0
/*
 * klb connection table.
 *
 * One table per network namespace. Every connection is hashed twice: by
 * the flow key of its original direction (client -> VIP) and by the key of
 * its reply direction (backend -> client), so both directions of the
 * datapath find it with one lookup.
 *
 * Readers (the datapath, dumps) walk chains under RCU only. Writers take
 * the spinlocks of both chains a connection lives in, always in ascending
 * lock order; a connection is unlinked exactly once (KLB_CONN_F_DEAD, set
 * under those locks) and freed after a grace period. Connections never move
 * between chains, so plain RCU hlists suffice (no nulls markers needed: the
 * slab is not SLAB_TYPESAFE_BY_RCU).
 *
 * The references a connection holds on its service and backend are dropped
 * in the RCU callback, so a reader that found the connection may use
 * c->svc and c->be until rcu_read_unlock().
 *
 * Under attack (Documentation/security.md, "Connection table"):
 *  - Chains are placed by SipHash under a random key of the netns, so a
 *    remote client cannot aim its flows at one chain.
 *  - The bucket array is sized from net.klb.conn_max (about two
 *    connections per bucket when full, bounded) when the netns gets its
 *    first service; a lookup walks a few nodes, not thousands. It is not
 *    resized while connections live: they would have to move between
 *    chains under the datapath's feet.
 *  - At conn_max a new connection evicts an entry nothing established
 *    depends on (a handshake in progress, an unreplied UDP flow, a closed
 *    connection), the least recently active of its own chain, else of a
 *    few chains from a random one; only if there is none is it refused.
 *  - Entries that have no reply yet have short timeouts.
 */
#include <linux/log2.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/mm.h>
#include <net/ipv6.h>

#include "health/health.h"
#include "memcg.h"
#include "l4/conn.h"
#include "l4/persist.h"

static unsigned int conn_hash_bits;
module_param(conn_hash_bits, uint, 0444);
MODULE_PARM_DESC(conn_hash_bits,
		 "log2 of the connection hash size of each netns (10..22; default 0: sized from net.klb.conn_max)");

/*
 * Chain locks: a connection's chain lock is hval % t->core.nlocks; a hash
 * never has fewer buckets, so one bucket is always under one lock.
 */
#define KLB_CONN_LOCKS		1024
#define KLB_CONN_HASH_BITS_MIN	10
#define KLB_CONN_HASH_BITS_MAX	22	/* 4M buckets, 32 MiB */
/* Eviction looks at this many nodes at most, over this many chains. */
#define KLB_EVICT_NODES		64
#define KLB_EVICT_CHAINS	8
/* The GC visits the whole table about once per KLB_GC_SLICES periods. */
#define KLB_GC_SLICES		10
#define KLB_GC_PERIOD		(HZ / KLB_GC_SLICES ? : 1)

static struct kmem_cache *klb_conn_cache;

/* The keyed hash of table.c (SipHash: see klb_l4_core.key). */
static u32 klb_flow_hash(const struct klb_conn_table *t,
			 const struct klb_flow *f)
{
	u64 rest = (u64)((__force u32)f->sport << 16 | (__force u32)f->dport) << 8 |
		   f->proto;

	return klb_l4_hash(&t->core, f->family, &f->saddr, &f->daddr, rest);
}

static bool klb_flow_equal(const struct klb_flow *a, const struct klb_flow *b)
{
	if (a->sport != b->sport || a->dport != b->dport ||
	    a->proto != b->proto || a->family != b->family)
		return false;
	return klb_addr_equal(a->family, &a->saddr, &b->saddr) &&
	       klb_addr_equal(a->family, &a->daddr, &b->daddr);
}

static bool klb_hnode_match(const struct klb_conn_hnode *h,
			    const struct klb_flow *f, enum klb_dir dir)
{
	return h->dir == dir && klb_flow_equal(&h->flow, f);
}

static struct hlist_head *klb_conn_chain(struct klb_conn_hash *h, u32 hval)
{
	return &h->buckets[hval & h->mask];
}

struct klb_conn *klb_conn_find(struct klb_conn_table *t,
			       const struct klb_flow *f, enum klb_dir dir)
{
	struct klb_conn_hnode *h;

	hlist_for_each_entry_rcu(h, klb_conn_chain(klb_conn_hash(t),
						   klb_flow_hash(t, f)), node) {
		if (klb_hnode_match(h, f, dir))
			return klb_hnode_conn(h);
	}
	return NULL;
}

/* Same as klb_conn_find(), for a writer holding the chain's lock. */
static struct klb_conn *klb_conn_find_locked(struct klb_conn_table *t,
					     u32 hval,
					     const struct klb_flow *f,
					     enum klb_dir dir)
{
	struct klb_conn_hnode *h;

	hlist_for_each_entry(h, klb_conn_chain(klb_conn_hash(t), hval), node) {
		if (klb_hnode_match(h, f, dir))
			return klb_hnode_conn(h);
	}
	return NULL;
}

static void klb_conn_lock(struct klb_conn_table *t, const struct klb_conn *c)
	__acquires(orig_chain_lock)
	__acquires(reply_chain_lock)
{
	unsigned int l0 = c->hval[KLB_DIR_ORIG] % t->core.nlocks;
	unsigned int l1 = c->hval[KLB_DIR_REPLY] % t->core.nlocks;

	if (l0 > l1)
		swap(l0, l1);
	spin_lock_bh(&t->core.locks[l0]);
	if (l1 != l0)
		spin_lock_nested(&t->core.locks[l1], SINGLE_DEPTH_NESTING);
	else
		__acquire(reply_chain_lock);	/* one lock covers both */
}

static void klb_conn_unlock(struct klb_conn_table *t, const struct klb_conn *c)
	__releases(orig_chain_lock)
	__releases(reply_chain_lock)
{
	unsigned int l0 = c->hval[KLB_DIR_ORIG] % t->core.nlocks;
	unsigned int l1 = c->hval[KLB_DIR_REPLY] % t->core.nlocks;

	if (l0 > l1)
		swap(l0, l1);
	if (l1 != l0)
		spin_unlock(&t->core.locks[l1]);
	else
		__release(reply_chain_lock);
	spin_unlock_bh(&t->core.locks[l0]);
}

static void klb_conn_free_rcu(struct rcu_head *head)
{
	struct klb_conn *c = container_of(head, struct klb_conn, rcu);

	/* Its timeout reads the service: before the service goes. */
	klb_persist_put(c->persist);
	klb_backend_put(c->be);
	klb_service_put(c->svc);
	kmem_cache_free(klb_conn_cache, c);
	klb_obj_dec(KLB_OBJ_CONN);
}

/* Unlink and free after a grace period; false if another did it first. */
static bool klb_conn_unlink(struct klb_conn_table *t, struct klb_conn *c)
{
	bool unlinked = false;

	klb_conn_lock(t, c);
	if (!test_bit(KLB_CONN_F_DEAD, &c->flags)) {
		set_bit(KLB_CONN_F_DEAD, &c->flags);
		hlist_del_rcu(&c->h[KLB_DIR_ORIG].node);
		hlist_del_rcu(&c->h[KLB_DIR_REPLY].node);
		unlinked = true;
	}
	klb_conn_unlock(t, c);
	if (!unlinked)
		return false;

	klb_conn_leave_active(c);
	klb_conn_adopt_done(t, c);
	atomic_dec(&t->core.count);
	call_rcu(&c->rcu, klb_conn_free_rcu);
	return true;
}

void klb_conn_expire(struct klb_conn_table *t, struct klb_conn *c)
{
	klb_conn_unlink(t, c);
}

/*
 * Entries that may go to make room, because nothing established depends
 * on them: a handshake not complete (a spoofed SYN never completes), a
 * UDP flow nobody answered, a connection already closed, a mid-flow
 * packet adopted whose flow has not sent a second (a stray ACK).
 */
static bool klb_conn_evictable(const struct klb_conn *c)
{
	switch (READ_ONCE(c->state)) {
	case KLB_CONN_ADOPTED:
	case KLB_CONN_SYN_SENT:
	case KLB_CONN_SYN_RECV:
	case KLB_CONN_TIME_WAIT:
	case KLB_CONN_CLOSE:
		return true;
	case KLB_CONN_UDP:
		return !test_bit(KLB_CONN_F_CONFIRMED, &c->flags);
	}
	return false;
}

/* When @c last had a packet that moved its timer. */
static unsigned long klb_conn_last_seen(const struct klb_sysctl *s,
					const struct klb_conn *c)
{
	return READ_ONCE(c->expires) -
	       klb_conn_timeout(s, c, READ_ONCE(c->state));
}

/*
 * The least recently active evictable entry of the chain of @hval, or
 * @best if it is less recent; *@budget: nodes left to look at.
 */
static struct klb_conn *klb_conn_evict_pick(const struct klb_sysctl *s,
					    struct klb_conn_hash *h, u32 hval,
					    struct klb_conn *best,
					    unsigned int *budget)
{
	struct klb_conn_hnode *n;

	hlist_for_each_entry_rcu(n, klb_conn_chain(h, hval), node) {
		struct klb_conn *c = klb_hnode_conn(n);

		if (!*budget)
			break;
		(*budget)--;
		if (c == best || test_bit(KLB_CONN_F_DEAD, &c->flags) ||
		    !klb_conn_evictable(c))
			continue;
		if (!best || time_before(klb_conn_last_seen(s, c),
					 klb_conn_last_seen(s, best)))
			best = c;
	}
	return best;
}

/*
 * The table is full: remove one evictable entry, from the chain the new
 * connection @hval goes to if it has one, else from a few chains after a
 * random one. A bounded walk in softirq, whatever the table holds.
 */
static bool klb_conn_evict(struct klb_net *kn, u32 hval)
{
	struct klb_conn_table *t = kn->conns;
	struct klb_conn_hash *h = klb_conn_hash(t);
	unsigned int budget = KLB_EVICT_NODES, i;
	struct klb_conn *victim;
	u32 start;

	victim = klb_conn_evict_pick(&kn->sysctl, h, hval, NULL, &budget);
	if (!victim) {
		start = get_random_u32();
		for (i = 0; i < KLB_EVICT_CHAINS && budget; i++)
			victim = klb_conn_evict_pick(&kn->sysctl, h, start + i,
						     victim, &budget);
	}
	if (!victim || !klb_conn_unlink(t, victim))
		return false;
	atomic_long_inc(&t->evictions);
	return true;
}

/*
 * The reply tuple of a connection to @be: what the backend sends back.
 * nat: from the backend to the client. dr and tun: the backend answers the
 * client from the VIP itself, so the reply is the original reversed (klb
 * only sees it if it routes the client's traffic). fnat: set by the caller
 * to the balancer's source address and port (l4/fnat.c).
 */
static void klb_conn_set_reply(struct klb_conn *c, const struct klb_backend *be,
			       u8 mode)
{
	struct klb_flow *r = &c->h[KLB_DIR_REPLY].flow;

	klb_flow_reverse(r, &c->h[KLB_DIR_ORIG].flow);
	if (mode == KLB_MODE_DR || mode == KLB_MODE_TUN)
		return;
	r->saddr = be->addr;
	r->sport = be->port;
}

void klb_conn_rehash_reply(struct klb_conn_table *t, struct klb_conn *c)
{
	c->hval[KLB_DIR_REPLY] = klb_flow_hash(t, &c->h[KLB_DIR_REPLY].flow);
}

struct klb_conn *klb_conn_alloc(struct klb_net *kn, struct klb_service *svc,
				struct klb_backend *be,
				const struct klb_flow *orig)
{
	struct klb_conn_table *t = kn->conns;
	int max = READ_ONCE(kn->sysctl.conn_max);
	u32 hval = klb_flow_hash(t, orig);
	struct mem_cgroup *old_memcg;
	struct klb_conn *c;

	if (atomic_inc_return(&t->core.count) > max && !klb_conn_evict(kn, hval)) {
		atomic_dec(&t->core.count);
		return ERR_PTR(-ENOSPC);
	}
	/* Softirq: charged to the namespace's cgroup, if any (memcg.h). */
	old_memcg = klb_memcg_enter(kn);
	c = kmem_cache_zalloc(klb_conn_cache, GFP_ATOMIC | __GFP_ACCOUNT);
	klb_memcg_leave(old_memcg);
	if (!c) {
		atomic_dec(&t->core.count);
		return ERR_PTR(-ENOMEM);
	}

	c->h[KLB_DIR_ORIG].flow = *orig;
	c->h[KLB_DIR_ORIG].dir = KLB_DIR_ORIG;
	c->h[KLB_DIR_REPLY].dir = KLB_DIR_REPLY;
	c->hval[KLB_DIR_ORIG] = hval;
	klb_conn_set_reply(c, be, svc->mode);
	klb_conn_rehash_reply(t, c);
	spin_lock_init(&c->lock);
	c->state = orig->proto == IPPROTO_TCP ? KLB_CONN_SYN_SENT :
						KLB_CONN_UDP;
	c->expires = jiffies + klb_conn_timeout(&kn->sysctl, c, c->state);
	c->svc = svc;
	c->be = be;
	return c;
}

void klb_conn_free_unused(struct klb_conn_table *t, struct klb_conn *c)
{
	klb_persist_put(c->persist);
	kmem_cache_free(klb_conn_cache, c);
	atomic_dec(&t->core.count);
}

struct klb_conn *klb_conn_insert(struct klb_conn_table *t, struct klb_conn *c)
{
	struct klb_service *svc = c->svc;
	struct klb_backend *be = c->be;
	struct klb_conn_hash *h;
	struct klb_conn *old;

	klb_conn_lock(t, c);
	old = klb_conn_find_locked(t, c->hval[KLB_DIR_ORIG],
				   &c->h[KLB_DIR_ORIG].flow, KLB_DIR_ORIG);
	if (old)
		goto unlock;
	/*
	 * Two flows may only share a reply tuple if one client address:port
	 * talks to two VIPs that map to the same backend (or, in fnat, if
	 * the source port is taken): replies could not be told apart, so
	 * refuse the newcomer rather than break both.
	 */
	if (klb_conn_find_locked(t, c->hval[KLB_DIR_REPLY],
				 &c->h[KLB_DIR_REPLY].flow, KLB_DIR_REPLY)) {
		old = ERR_PTR(-EADDRINUSE);
		goto unlock;
	}
	c->id = klb_l4_next_id(&t->core);
	__set_bit(KLB_CONN_F_ACTIVE, &c->flags);
	klb_service_get(svc);
	klb_backend_get(be);
	atomic_inc(&svc->active_conns);
	atomic_inc(&be->active_conns);
	klb_obj_inc(KLB_OBJ_CONN);
	h = klb_conn_hash(t);
	hlist_add_head_rcu(&c->h[KLB_DIR_ORIG].node,
			   klb_conn_chain(h, c->hval[KLB_DIR_ORIG]));
	hlist_add_head_rcu(&c->h[KLB_DIR_REPLY].node,
			   klb_conn_chain(h, c->hval[KLB_DIR_REPLY]));
	klb_conn_unlock(t, c);

	klb_stats_conn(svc->stats);
	klb_stats_conn(be->stats);
	klb_l4_gc_kick(&t->core);
	return c;

unlock:
	klb_conn_unlock(t, c);
	return old;
}

/*
 * nat: the reply tuple (backend -> client address and port) is fixed by the
 * client's tuple and the backend, so a client port that comes back to the
 * same backend through another VIP finds it held by its earlier connection.
 * If that one is over, it gives way, as the holder of the original tuple
 * does to a new SYN (l4/hooks.c); refusing the SYN would cost the client a
 * retransmission, a second. A live holder keeps the tuple. Under RCU.
 */
static bool klb_conn_reclaim_reply(struct klb_conn_table *t,
				   const struct klb_conn *c)
{
	struct klb_conn *old;

	old = klb_conn_find(t, &c->h[KLB_DIR_REPLY].flow, KLB_DIR_REPLY);
	if (!old || !klb_conn_done(old))
		return false;
	klb_conn_unlink(t, old);
	return true;
}

struct klb_conn *klb_conn_new(struct klb_net *kn, struct klb_service *svc,
			      struct klb_backend *be,
			      const struct klb_flow *orig,
			      struct klb_persist *pe)
{
	struct klb_conn *c, *ret;

	c = klb_conn_alloc(kn, svc, be, orig);
	if (IS_ERR(c)) {
		klb_persist_put(pe);
		return c;
	}
	c->persist = pe;
	ret = klb_conn_insert(kn->conns, c);
	if (ret == ERR_PTR(-EADDRINUSE) && klb_conn_reclaim_reply(kn->conns, c))
		ret = klb_conn_insert(kn->conns, c);
	if (ret != c)
		klb_conn_free_unused(kn->conns, c);
	return ret;
}

/*
 * Unlink every connection of bucket @b that @match selects. Process
 * context; unlinking under RCU keeps the chain walkable.
 */
static unsigned int klb_conn_remove_bucket(struct klb_conn_table *t,
					   unsigned int b,
					   bool (*match)(const struct klb_conn *c,
							 const void *arg),
					   const void *arg)
{
	struct klb_conn_hnode *h;
	struct klb_conn_hash *hash;
	unsigned int n = 0;

	rcu_read_lock();
	hash = klb_conn_hash(t);
	if (b > hash->mask)	/* the hash was made smaller meanwhile */
		goto out;
	hlist_for_each_entry_rcu(h, &hash->buckets[b], node) {
		struct klb_conn *c;

		if (h->dir != KLB_DIR_ORIG)
			continue;
		c = klb_hnode_conn(h);
		if (match(c, arg)) {
			klb_conn_expire(t, c);
			n++;
		}
	}
out:
	rcu_read_unlock();
	return n;
}

static unsigned int klb_conn_mask(struct klb_conn_table *t)
{
	unsigned int mask;

	rcu_read_lock();
	mask = klb_conn_hash(t)->mask;
	rcu_read_unlock();
	return mask;
}

static void klb_conn_remove_all(struct klb_conn_table *t,
				bool (*match)(const struct klb_conn *c,
					      const void *arg),
				const void *arg)
{
	unsigned int b, mask = klb_conn_mask(t);

	for (b = 0; b <= mask; b++) {
		if (klb_conn_table_empty(t))
			break;
		klb_conn_remove_bucket(t, b, match, arg);
		cond_resched();
	}
}

static bool klb_conn_is_expired(const struct klb_conn *c, const void *arg)
{
	return time_after_eq(jiffies, READ_ONCE(c->expires));
}

/*
 * The GC's match (@arg: the klb_net): expired. A TCP connection that
 * expires with its SYN never answered tells passive health its backend
 * did not answer; dr and tun never see answers, so they cannot tell.
 */
static bool klb_conn_gc_match(const struct klb_conn *c, const void *arg)
{
	if (!klb_conn_is_expired(c, arg))
		return false;
	if (READ_ONCE(c->state) == KLB_CONN_SYN_SENT && !klb_conn_oneway(c))
		klb_health_passive((struct klb_net *)arg, c->be,
				   KLB_PASSIVE_TIMEOUT);
	return true;
}

static bool klb_conn_of_service(const struct klb_conn *c, const void *arg)
{
	return c->svc == arg;
}

static bool klb_conn_of_backend(const struct klb_conn *c, const void *arg)
{
	return c->be == arg;
}

static bool klb_conn_any(const struct klb_conn *c, const void *arg)
{
	return true;
}

/*
 * The GC's visit of @n buckets from @b, in one read-side section: most
 * buckets are empty (the hash has about two per connection at conn_max),
 * and a test of the chain's head is all they cost. Visiting each through
 * klb_conn_remove_bucket() (an RCU section and a call per bucket) made
 * the walk of a 128K-bucket table cost in proportion to the buckets, not
 * to the connections (Documentation/bench/profile.md).
 */
static unsigned int klb_conn_gc_chunk(struct klb_conn_table *t,
				      unsigned int b, unsigned int n)
{
	struct klb_conn_hash *hash;
	unsigned int mask;

	rcu_read_lock();
	hash = klb_conn_hash(t);
	mask = hash->mask;
	/* @b may be an index into the table as it was before a resize. */
	for (b &= mask; n; n--, b = (b + 1) & mask) {
		if (!hlist_empty(&hash->buckets[b]))
			klb_conn_remove_bucket(t, b, klb_conn_gc_match, t->kn);
	}
	rcu_read_unlock();
	return b;
}

#define KLB_GC_CHUNK	256

static void klb_conn_gc(struct work_struct *work)
{
	struct klb_conn_table *t = container_of(to_delayed_work(work),
						struct klb_conn_table,
						core.gc_work);
	unsigned int mask = klb_conn_mask(t);
	unsigned int n = (mask + KLB_GC_SLICES) / KLB_GC_SLICES;
	unsigned int b = t->core.gc_next & mask, chunk;

	if (klb_conn_table_empty(t))
		return;		/* klb_conn_new() re-arms us */

	while (n) {
		chunk = min_t(unsigned int, n, KLB_GC_CHUNK);
		b = klb_conn_gc_chunk(t, b, chunk);
		n -= chunk;
		cond_resched();
	}
	t->core.gc_next = b;
	klb_l4_gc_again(&t->core);
}

void klb_conn_flush_service(struct klb_net *kn, struct klb_service *svc)
{
	if (kn->conns)
		klb_conn_remove_all(kn->conns, klb_conn_of_service, svc);
}

static bool klb_conn_of_dying(const struct klb_conn *c, const void *arg)
{
	return READ_ONCE(c->svc->dying) || READ_ONCE(c->be->dying);
}

void klb_conn_flush_dying(struct klb_net *kn)
{
	if (kn->conns)
		klb_conn_remove_all(kn->conns, klb_conn_of_dying, NULL);
}

void klb_conn_backend_removed(struct klb_net *kn, struct klb_backend *be)
{
	if (kn->conns && READ_ONCE(kn->sysctl.expire_nodest_conn))
		klb_conn_remove_all(kn->conns, klb_conn_of_backend, be);
}

static unsigned int klb_conn_hash_bits(int conn_max)
{
	unsigned int bits = conn_hash_bits;

	/* About two connections per bucket when the table is full. */
	if (!bits)
		bits = order_base_2(max(conn_max / 2, 1));
	return clamp_t(unsigned int, bits, KLB_CONN_HASH_BITS_MIN,
		       KLB_CONN_HASH_BITS_MAX);
}

static struct klb_conn_hash *klb_conn_hash_alloc(unsigned int bits)
{
	struct klb_conn_hash *h;

	h = kvzalloc(struct_size(h, buckets, 1U << bits), GFP_KERNEL_ACCOUNT);
	if (!h)
		return NULL;
	h->mask = (1U << bits) - 1;
	klb_obj_inc(KLB_OBJ_CONN_HASH);
	return h;
}

void klb_conn_table_fit(struct klb_net *kn)
{
	struct klb_conn_table *t = kn->conns;
	struct klb_conn_hash *old, *h;
	unsigned int bits;

	if (!t || !klb_conn_table_empty(t))
		return;
	/*
	 * Empty, and no service publishes a VIP: nothing inserts (a service's
	 * last packets were waited for when it went), only reply lookups
	 * may still walk the old, empty array.
	 */
	old = rcu_dereference_protected(t->hash,
					lockdep_is_held(&kn->lock));
	bits = klb_conn_hash_bits(READ_ONCE(kn->sysctl.conn_max));
	if (old->mask == (1U << bits) - 1)
		return;
	h = klb_conn_hash_alloc(bits);
	if (!h)
		return;
	rcu_assign_pointer(t->hash, h);
	t->core.gc_next = 0;
	klb_obj_dec(KLB_OBJ_CONN_HASH);
	kvfree_rcu(old, rcu);
}

unsigned int klb_conn_buckets(struct klb_net *kn)
{
	return kn->conns ? klb_conn_mask(kn->conns) + 1 : 0;
}

unsigned long klb_conn_evictions(struct klb_net *kn)
{
	return kn->conns ? atomic_long_read(&kn->conns->evictions) : 0;
}

int klb_conn_net_init(struct klb_net *kn)
{
	struct klb_conn_table *t;
	struct klb_conn_hash *h;

	/* Charged to whoever creates the namespace (memcg.h). */
	t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	if (!t)
		return -ENOMEM;
	/* The smallest hash until a service comes (klb_conn_table_fit()). */
	h = klb_conn_hash_alloc(conn_hash_bits ?
				klb_conn_hash_bits(0) : KLB_CONN_HASH_BITS_MIN);
	if (!h || klb_l4_core_init(&t->core, KLB_CONN_LOCKS, KLB_GC_PERIOD,
				   klb_conn_gc)) {
		if (h) {
			kvfree(h);
			klb_obj_dec(KLB_OBJ_CONN_HASH);
		}
		kfree(t);
		return -ENOMEM;
	}
	RCU_INIT_POINTER(t->hash, h);
	atomic_long_set(&t->evictions, 0);
	t->kn = kn;
	kn->conns = t;
	return 0;
}

void klb_conn_net_exit(struct klb_net *kn)
{
	struct klb_conn_table *t = kn->conns;

	if (!t)
		return;
	/* Hooks are gone: nothing adds connections any more. */
	klb_l4_gc_stop(&t->core);
	klb_conn_remove_all(t, klb_conn_any, NULL);
	/*
	 * Let the RCU callbacks drop their service and backend references
	 * now, so that the config teardown that follows frees everything.
	 */
	rcu_barrier();
	kn->conns = NULL;
	kvfree(rcu_dereference_protected(t->hash,
					 lockdep_is_held(&kn->lock)));
	klb_obj_dec(KLB_OBJ_CONN_HASH);
	klb_l4_core_exit(&t->core);
	kfree(t);
}

int klb_conn_module_init(void)
{
	klb_conn_cache = KMEM_CACHE(klb_conn, 0);
	return klb_conn_cache ? 0 : -ENOMEM;
}

void klb_conn_module_exit(void)
{
	kmem_cache_destroy(klb_conn_cache);
}
