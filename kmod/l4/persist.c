// SPDX-License-Identifier: GPL-2.0
/*
 * klb persistence table (sticky sessions, as IPVS's -p templates).
 *
 * One table per network namespace. An entry maps (service, client address
 * masked to the service's persist_mask) to the backend its first connection
 * was scheduled to, and holds a reference on that backend. Every connection
 * scheduled through an entry holds it (conns); when the last one ends, the
 * entry lives on for the service's persist_timeout, and the GC removes it
 * after that.
 *
 * Readers (new connections, dumps) walk chains under RCU. Writers take the
 * chain's spinlock. conns is also the entry's liveness: -1 means claimed
 * for freeing, and a reader may only take a hold with
 * atomic_inc_unless_negative(), so the GC (which claims an idle entry with
 * cmpxchg 0 -> -1) and a new connection never both win. An entry can also
 * be unlinked while connections hold it (its backend went quiescent, its
 * service was deleted): KLB_PERSIST_F_UNLINKED, and then whichever of the
 * unlinker and the last connection sees conns at 0 second claims and frees
 * it. Memory is freed after a grace period, with the backend reference.
 *
 * The entry points to its service without a reference: a connection that
 * holds the entry holds the service, and an entry nobody holds is unlinked
 * by klb_persist_flush_service() before the configuration lets go of the
 * service, so a reader under RCU may use it until rcu_read_unlock().
 */
#include <linux/inetdevice.h>
#include <linux/slab.h>
#include <linux/workqueue.h>

#include "l4/persist.h"
#include "l4/table.h"
#include "sched/table.h"

#define KLB_PERSIST_HASH_BITS	12
#define KLB_PERSIST_BUCKETS	BIT(KLB_PERSIST_HASH_BITS)
#define KLB_PERSIST_LOCKS	256
/* The GC visits the whole table about once a second, as conn.c's does. */
#define KLB_PERSIST_GC_SLICES	10
#define KLB_PERSIST_GC_PERIOD	(HZ / KLB_PERSIST_GC_SLICES ? : 1)

/* pe->flags bits */
enum {
	KLB_PERSIST_F_UNLINKED,	/* out of the table; freed at conns 0 */
};

struct klb_persist {
	struct hlist_node node;		/* table chain, RCU */
	struct klb_service *svc;	/* no reference (see the top) */
	struct klb_pool *pool;		/* @be's pool when picked; compared only */
	struct klb_backend *be;		/* reference held */
	union nf_inet_addr addr;	/* client address, masked */
	u16 family;
	u8 plen;			/* mask prefix length */
	u32 bucket;
	atomic_t conns;			/* holding connections; -1: claimed */
	unsigned long expires;		/* jiffies; meaningful at conns 0 */
	unsigned long flags;
	unsigned long id;		/* insertion order, for resumable walks */
	struct rcu_head rcu;
};

struct klb_persist_table {
	struct klb_l4_core core;	/* locks, key, count, ids, GC (table.h) */
	struct hlist_head buckets[KLB_PERSIST_BUCKETS];
};

static spinlock_t *klb_persist_lock(struct klb_persist_table *t, u32 b)
{
	return klb_l4_lock(&t->core, b);
}

static void klb_persist_key(u16 family, const union nf_inet_addr *a, u8 plen,
			    union nf_inet_addr *key)
{
	memset(key, 0, sizeof(*key));
	if (family == AF_INET)
		key->ip = a->ip & inet_make_mask(min_t(u8, plen, 32));
	else
		ipv6_addr_prefix(&key->in6, &a->in6, min_t(u8, plen, 128));
}

/* The keyed hash of table.c, the connection table's (SipHash). */
static u32 klb_persist_hash(const struct klb_persist_table *t,
			    const struct klb_service *svc,
			    const union nf_inet_addr *key, u8 plen)
{
	static const union nf_inet_addr none;

	/* Unused words of an IPv4 key are zero (klb_persist_key()). */
	return klb_l4_hash(&t->core, AF_INET6, key, &none,
			   (u64)(unsigned long)svc ^ plen) &
	       (KLB_PERSIST_BUCKETS - 1);
}

static bool klb_persist_match(const struct klb_persist *pe,
			      const struct klb_service *svc, u16 family,
			      const union nf_inet_addr *key, u8 plen)
{
	return pe->svc == svc && pe->plen == plen && pe->family == family &&
	       klb_addr_equal(family, &pe->addr, key);
}

static void klb_persist_free_rcu(struct rcu_head *head)
{
	struct klb_persist *pe = container_of(head, struct klb_persist, rcu);

	klb_backend_put(pe->be);
	kfree(pe);
	klb_obj_dec(KLB_OBJ_PERSIST);
}

/* Free @pe if no connection holds it and nobody else claimed it. */
static void klb_persist_try_free(struct klb_persist *pe)
{
	if (atomic_cmpxchg(&pe->conns, 0, -1) == 0)
		call_rcu(&pe->rcu, klb_persist_free_rcu);
}

/* Under the chain's lock. Its holders, if any, free it when they end. */
static void klb_persist_unlink_locked(struct klb_persist_table *t,
				      struct klb_persist *pe)
{
	if (test_bit(KLB_PERSIST_F_UNLINKED, &pe->flags))
		return;
	hlist_del_rcu(&pe->node);
	set_bit(KLB_PERSIST_F_UNLINKED, &pe->flags);
	atomic_dec(&t->core.count);
	/* Pairs with the barrier of atomic_dec_return() in klb_persist_put(). */
	smp_mb__after_atomic();
}

void klb_persist_put(struct klb_persist *pe)
{
	u32 secs;

	if (!pe)
		return;
	/*
	 * The timeout starts when the last connection ends; store it before
	 * conns can read 0, so that whoever sees 0 sees this expiry.
	 */
	secs = READ_ONCE(pe->svc->persist_timeout);
	WRITE_ONCE(pe->expires, jiffies + (unsigned long)secs * HZ);
	if (atomic_dec_return(&pe->conns))
		return;
	if (test_bit(KLB_PERSIST_F_UNLINKED, &pe->flags))
		klb_persist_try_free(pe);
}

/*
 * May a new connection follow @pe? Not if it left the table, or if its
 * backend left @pool (removed, or the service moved to another pool).
 * Nor if its active check found it unhealthy. A quiescent backend (drain,
 * down, weight 0) keeps its clients unless
 * net.klb.expire_quiescent_template is set, as with IPVS.
 */
static bool klb_persist_usable(struct klb_net *kn, const struct klb_persist *pe,
			       const struct klb_pool *pool)
{
	const struct klb_backend *be = pe->be;

	if (test_bit(KLB_PERSIST_F_UNLINKED, &pe->flags) ||
	    pe->pool != pool || READ_ONCE(be->removed))
		return false;
	/* A failed backend loses its clients: the scheduler finds another. */
	if (READ_ONCE(be->health) == KLB_HEALTH_UNHEALTHY)
		return false;
	if (READ_ONCE(be->state) == KLB_BACKEND_UP && READ_ONCE(be->weight))
		return true;
	return !READ_ONCE(kn->sysctl.expire_quiescent_template);
}

/*
 * Remember @be for the key; or, if another CPU was first, follow its
 * entry. Returns the entry with one hold, or NULL (full, no memory).
 */
static struct klb_persist *
klb_persist_insert(struct klb_net *kn, struct klb_service *svc,
		   struct klb_pool *pool, struct klb_backend *be, u16 family,
		   const union nf_inet_addr *key, u8 plen, u32 b)
{
	struct klb_persist_table *t = kn->persist;
	struct klb_persist *pe, *old, *stale = NULL;
	spinlock_t *lock = klb_persist_lock(t, b);

	if (atomic_inc_return(&t->core.count) > READ_ONCE(kn->sysctl.persist_max)) {
		atomic_dec(&t->core.count);
		klb_stats_drop(svc->stats, KLB_DROP_PERSIST_FULL);
		return NULL;
	}
	pe = kzalloc(sizeof(*pe), GFP_ATOMIC);
	if (!pe) {
		atomic_dec(&t->core.count);
		return NULL;
	}
	pe->svc = svc;
	pe->pool = pool;
	pe->be = be;
	pe->addr = *key;
	pe->family = family;
	pe->plen = plen;
	pe->bucket = b;
	atomic_set(&pe->conns, 1);

	spin_lock_bh(lock);
	hlist_for_each_entry(old, &t->buckets[b], node) {
		if (!klb_persist_match(old, svc, family, key, plen))
			continue;
		/* Under the lock nobody claims a linked entry. */
		if (WARN_ON_ONCE(!atomic_inc_unless_negative(&old->conns)))
			continue;
		if (klb_persist_usable(kn, old, pool)) {
			spin_unlock_bh(lock);
			atomic_dec(&t->core.count);
			kfree(pe);
			return old;
		}
		klb_persist_unlink_locked(t, old);
		stale = old;
		break;
	}
	pe->id = klb_l4_next_id(&t->core);
	klb_backend_get(be);
	klb_obj_inc(KLB_OBJ_PERSIST);
	hlist_add_head_rcu(&pe->node, &t->buckets[b]);
	spin_unlock_bh(lock);

	klb_persist_put(stale);
	klb_l4_gc_kick(&t->core);
	return pe;
}

struct klb_backend *klb_persist_pick(struct klb_net *kn,
				     struct klb_service *svc,
				     struct klb_pool *pool,
				     struct klb_sched_table *table,
				     const struct klb_flow *f,
				     struct klb_persist **ppe)
{
	struct klb_persist_table *t = kn->persist;
	u8 plen = READ_ONCE(svc->persist_mask);
	union nf_inet_addr key;
	struct klb_persist *pe;
	struct klb_backend *be;
	u32 b;

	*ppe = NULL;
	klb_persist_key(f->family, &f->saddr, plen, &key);
	b = klb_persist_hash(t, svc, &key, plen);

	hlist_for_each_entry_rcu(pe, &t->buckets[b], node) {
		if (!klb_persist_match(pe, svc, f->family, &key, plen))
			continue;
		/* Claimed by the GC: as good as gone; insert will see. */
		if (!atomic_inc_unless_negative(&pe->conns))
			break;
		if (klb_persist_usable(kn, pe, pool)) {
			*ppe = pe;
			return pe->be;
		}
		/* Forget it; the client is scheduled afresh below. */
		spin_lock_bh(klb_persist_lock(t, b));
		klb_persist_unlink_locked(t, pe);
		spin_unlock_bh(klb_persist_lock(t, b));
		klb_persist_put(pe);
		break;
	}

	be = table ? klb_sched_pick(table, f) : NULL;
	if (!be || be->family != f->family)
		return be;
	*ppe = klb_persist_insert(kn, svc, pool, be, f->family, &key, plen, b);
	return *ppe ? (*ppe)->be : be;
}

/* Which entries klb_persist_remove_bucket() removes. */
enum klb_persist_sweep {
	KLB_PERSIST_ALL,	/* every one */
	KLB_PERSIST_OF_SVC,	/* @svc's */
	KLB_PERSIST_OF_DYING,	/* those of services marked dying */
	KLB_PERSIST_GC,		/* unheld and expired, or backend removed */
};

static bool klb_persist_swept(const struct klb_persist *pe,
			      enum klb_persist_sweep sweep,
			      const struct klb_service *svc)
{
	switch (sweep) {
	case KLB_PERSIST_OF_SVC:
		return pe->svc == svc;
	case KLB_PERSIST_OF_DYING:
		return READ_ONCE(pe->svc->dying);
	default:
		return true;
	}
}

/* Remove the entries of bucket @b that @sweep selects. Process context. */
static void klb_persist_remove_bucket(struct klb_persist_table *t, u32 b,
				      enum klb_persist_sweep sweep,
				      const struct klb_service *svc)
{
	bool gc = sweep == KLB_PERSIST_GC;

	spinlock_t *lock = klb_persist_lock(t, b);
	struct hlist_node *tmp;
	struct klb_persist *pe;

	spin_lock_bh(lock);
	hlist_for_each_entry_safe(pe, tmp, &t->buckets[b], node) {
		if (!gc) {
			if (!klb_persist_swept(pe, sweep, svc))
				continue;
			klb_persist_unlink_locked(t, pe);
			klb_persist_try_free(pe);
			continue;
		}
		if (atomic_read(&pe->conns) ||
		    (time_before(jiffies, READ_ONCE(pe->expires)) &&
		     !READ_ONCE(pe->be->removed)))
			continue;
		if (atomic_cmpxchg(&pe->conns, 0, -1))
			continue;	/* a new connection took it */
		/*
		 * Claimed. A connection that ended just before set a later
		 * expiry, which the claim's barrier makes visible now.
		 */
		if (time_before(jiffies, READ_ONCE(pe->expires)) &&
		    !READ_ONCE(pe->be->removed)) {
			atomic_set(&pe->conns, 0);
			continue;
		}
		klb_persist_unlink_locked(t, pe);
		call_rcu(&pe->rcu, klb_persist_free_rcu);
	}
	spin_unlock_bh(lock);
}

static void klb_persist_remove_all(struct klb_persist_table *t,
				   enum klb_persist_sweep sweep,
				   const struct klb_service *svc)
{
	u32 b;

	for (b = 0; b < KLB_PERSIST_BUCKETS; b++) {
		if (!atomic_read(&t->core.count))
			break;
		klb_persist_remove_bucket(t, b, sweep, svc);
		if (!(b & 63))
			cond_resched();
	}
}

static void klb_persist_gc(struct work_struct *work)
{
	struct klb_persist_table *t = container_of(to_delayed_work(work),
						   struct klb_persist_table,
						   core.gc_work);
	unsigned int n = KLB_PERSIST_BUCKETS / KLB_PERSIST_GC_SLICES + 1;
	u32 b = t->core.gc_next;

	if (!atomic_read(&t->core.count))
		return;		/* klb_persist_insert() re-arms us */
	while (n--) {
		klb_persist_remove_bucket(t, b, KLB_PERSIST_GC, NULL);
		b = (b + 1) & (KLB_PERSIST_BUCKETS - 1);
	}
	t->core.gc_next = b;
	klb_l4_gc_again(&t->core);
}

void klb_persist_flush_service(struct klb_net *kn, struct klb_service *svc)
{
	if (kn->persist)
		klb_persist_remove_all(kn->persist, KLB_PERSIST_OF_SVC, svc);
}

void klb_persist_flush_dying(struct klb_net *kn)
{
	if (kn->persist)
		klb_persist_remove_all(kn->persist, KLB_PERSIST_OF_DYING, NULL);
}

static void klb_persist_fill_info(const struct klb_persist *pe,
				  struct klb_persist_info *pi)
{
	unsigned long expires = READ_ONCE(pe->expires);
	unsigned long now = jiffies;
	int conns = atomic_read(&pe->conns);

	memset(pi, 0, sizeof(*pi));
	pi->svc = pe->svc;
	pi->family = pe->family;
	pi->plen = pe->plen;
	pi->caddr = pe->addr;
	pi->baddr = pe->be->addr;
	pi->bport = pe->be->port;
	pi->conns = max(conns, 0);
	if (!pi->conns && time_after(expires, now))
		pi->expires_ms = jiffies_to_msecs(expires - now);
}

/* Cursor: as klb_conn_walk()'s (bucket, id of the next entry + 1). */
int klb_persist_walk(struct klb_net *kn, unsigned long pos[2],
		     int (*fn)(const struct klb_persist_info *pi, void *arg),
		     void *arg)
{
	struct klb_persist_table *t = kn->persist;
	struct klb_persist_info pi;
	struct klb_persist *pe;
	int ret = 0;

	if (!t)
		return 0;
	for (; pos[0] < KLB_PERSIST_BUCKETS; pos[0]++, pos[1] = 0) {
		if (hlist_empty(&t->buckets[pos[0]]))
			continue;
		rcu_read_lock();
		hlist_for_each_entry_rcu(pe, &t->buckets[pos[0]], node) {
			if (pos[1] && pe->id >= pos[1])
				continue;
			if (test_bit(KLB_PERSIST_F_UNLINKED, &pe->flags))
				continue;
			klb_persist_fill_info(pe, &pi);
			ret = fn(&pi, arg);
			if (ret) {
				pos[1] = pe->id + 1;
				break;
			}
		}
		rcu_read_unlock();
		if (ret)
			return ret;
		if (!(pos[0] & 63))
			cond_resched();
	}
	return 0;
}

int klb_persist_net_init(struct klb_net *kn)
{
	struct klb_persist_table *t;

	t = kvzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	if (klb_l4_core_init(&t->core, KLB_PERSIST_LOCKS,
			     KLB_PERSIST_GC_PERIOD, klb_persist_gc)) {
		kvfree(t);
		return -ENOMEM;
	}
	kn->persist = t;
	return 0;
}

void klb_persist_net_exit(struct klb_net *kn)
{
	struct klb_persist_table *t = kn->persist;

	if (!t)
		return;
	/* No packet and no connection is left to take or hold an entry. */
	klb_l4_gc_stop(&t->core);
	klb_persist_remove_all(t, KLB_PERSIST_ALL, NULL);
	/* Entries drop their backends now, before the config teardown. */
	rcu_barrier();
	kn->persist = NULL;
	klb_l4_core_exit(&t->core);
	kvfree(t);
}
