/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Scheduler tables (table.c): what a pool's new connections are picked
 * from. The config layer builds one on every change of a pool; the L4
 * datapath and the L7 engine pick from it. The algorithms are pure code
 * (sched/algo.h) that also builds in userspace.
 */
#ifndef _KLB_SCHED_TABLE_H
#define _KLB_SCHED_TABLE_H

#include <linux/list.h>
#include <linux/siphash.h>

struct klb_backend;
struct klb_flow;
struct klb_net;
struct klb_pool;
struct klb_sched_table;

/*
 * Build the table the datapath picks from: only backends for which
 * klb_backend_usable(be, @ignore_health) holds are eligible. Takes a
 * reference on each listed backend. sh and mh hash what @hash says (enum
 * klb_hash) with @key, the netns's seed, which mh also keys its backends'
 * slot permutations with. Returns a table (possibly with no eligible
 * backend) or ERR_PTR(-ENOMEM). Process context, called under
 * klb_net->lock.
 */
struct klb_sched_table *klb_sched_table_build(u8 sched, u8 hash,
					      const siphash_key_t *key,
					      struct list_head *backends,
					      bool ignore_health);
/*
 * Build @pool's table from its backends with scheduler @sched and swap
 * it in (the old one is freed after a grace period); on error (-ENOMEM,
 * -E2BIG) the pool keeps its table. The pool's all-unhealthy option is
 * applied here: if no backend is usable but some would be without their
 * health, a fail-open pool lists those. Under klb_net->lock: config calls
 * it on every change, health/ after a backend's health changed.
 */
int klb_sched_publish_sched(struct klb_net *kn, struct klb_pool *pool,
			    u8 sched);
/* The same with the pool's own scheduler. */
int klb_sched_publish(struct klb_net *kn, struct klb_pool *pool);
/*
 * The same in two steps, for a change that must fail whole: prepare
 * builds the table (and sets each backend's weight_now, the slow-start
 * weight it uses; @ramp is for commit) and may fail; commit swaps it in
 * and cannot. A prepared table not committed is freed with
 * klb_sched_table_free().
 */
struct klb_sched_table *klb_sched_prepare(struct klb_net *kn,
					  struct klb_pool *pool, u8 sched,
					  bool *ramp);
void klb_sched_commit(struct klb_net *kn, struct klb_pool *pool,
		      struct klb_sched_table *new, bool ramp);
/*
 * seed.c: net.klb.hash_seed. Set @kn's seed (KLB_HASH_SEED_LEN bytes, as
 * the sysctl's hex digits read) and republish every pool, so that sh and
 * mh use it at once; a pool whose republish fails (-ENOMEM) keeps its
 * table until its next change. Under klb_net->lock.
 */
int klb_sched_seed_set(struct klb_net *kn, const u8 *seed);
/* The same with the key itself (a restore transaction's seed). */
int klb_sched_seed_key_set(struct klb_net *kn, const siphash_key_t *key);
/* The key of seed bytes @seed; nothing is republished. */
void klb_sched_seed_key(const u8 *seed, siphash_key_t *key);
/* @kn's seed into @seed (KLB_HASH_SEED_LEN bytes). */
void klb_sched_seed_get(const struct klb_net *kn, u8 *seed);
/* Per netns: a random seed, the sysctl. */
int klb_sched_seed_net_init(struct klb_net *kn);
void klb_sched_seed_net_exit(struct klb_net *kn);
/* Free after an RCU grace period; drops the backend references. */
void klb_sched_table_free(struct klb_sched_table *t);
/*
 * Pick a backend for a new connection of @flow; NULL if none is eligible
 * or all eligible ones are at their maxconn (klb_backend_full(): the
 * scheduler's choice is passed over for the next one in table order that
 * is not full). Caller holds rcu_read_lock (BH context); the result stays
 * valid until rcu_read_unlock(); take a reference with klb_backend_get()
 * to keep it.
 */
struct klb_backend *klb_sched_pick(struct klb_sched_table *t,
				   const struct klb_flow *flow);
/*
 * Does @t (may be NULL) list an eligible backend? After klb_sched_pick()
 * gave NULL: true means they were all at their maxconn.
 */
bool klb_sched_has_backends(const struct klb_sched_table *t);
/*
 * Is @t's pick a function of the flow's headers, the seed and the table
 * alone (sh, mh), so that balancers sharing the seed and the backends pick
 * alike? Not rr, wrr, lc, wlc, p2c: their picks follow a cursor, credits,
 * counts or chance of this balancer's own. @t may be NULL.
 */
bool klb_sched_consistent(const struct klb_sched_table *t);
/*
 * sh, mh (klb_sched_consistent()): the backend the hash of @flow picks,
 * whether or not it is at its maxconn here (an adopted flow is open on it
 * already; another balancer's count is not this one's). NULL: none
 * eligible. Same rules as klb_sched_pick() for the result.
 */
struct klb_backend *klb_sched_pick_hash(struct klb_sched_table *t,
					const struct klb_flow *flow);
/*
 * An eligible backend of @t by its id (klb_sched_backend_id()), or NULL:
 * not in the table, or not eligible (down, drained, weight 0). A binary
 * search over an index built with the table. Same rules as
 * klb_sched_pick() for the result.
 */
struct klb_backend *klb_sched_find(struct klb_sched_table *t, u64 id);
/*
 * An opaque, stable id of @be: a keyed hash (siphash, random key per
 * boot) of its address family, address and port, so the same backend has
 * the same id in every pool and table until the module is reloaded, and
 * the id tells nothing about the address. What http cookies carry.
 */
u64 klb_sched_backend_id(const struct klb_backend *be);
const char *klb_sched_name(u8 sched);

#ifdef DEBUG
/* selftest.c: at load, before anything is registered; false: fail it */
bool klb_sched_selftest(void);
#endif

#endif /* _KLB_SCHED_TABLE_H */
