// SPDX-License-Identifier: GPL-2.0
/*
 * Scheduler glue: turns a pool's backend list into an immutable table the
 * datapath picks from, and runs the pure algorithms of sched/ on it.
 *
 * A table is built in process context under klb_net->lock whenever the
 * pool's scheduler or backend set, weights or states change, published with
 * rcu_assign_pointer() by klb_sched_publish(), and freed after a grace period. Everything
 * the algorithms need is snapshotted at build time (eligible backends,
 * weights, cumulative weights, the Maglev lookup table), so a pick never
 * looks at the pool and never takes klb_net->lock. The only state a pick
 * writes is the rr/lc cursor (an atomic) and the wrr credits (a spinlock:
 * smooth wrr needs a consistent view of all credits); both sit in their own
 * cache line, away from the read-mostly fields every CPU reads.
 */
#include <linux/err.h>
#include <linux/mm.h>
#include <linux/moduleparam.h>
#include <linux/random.h>
#include <linux/siphash.h>
#include <linux/slab.h>
#include <linux/sort.h>
#include <linux/spinlock.h>
#include <linux/string.h>

#include "klb.h"
#include "flow.h"
#include "sched/algo.h"
#include "sched/table.h"

/* A backend's id and its index in the table, sorted by id. */
struct klb_sched_byid {
	u64 id;
	u32 i;
};

struct klb_sched_table {
	/* Read-mostly, set at build time. */
	u8 sched;			/* enum klb_sched */
	u8 hash;			/* enum klb_hash */
	siphash_key_t key;		/* the netns's hash seed, then */
	u32 n;				/* eligible backends, referenced */
	struct klb_backend **be;	/* [n] */
	u32 *weights;			/* [n] snapshot of be[i]->weight */
	struct klb_sched_byid *byid;	/* [n] by klb_sched_backend_id() */
	union {
		void *algo;		/* kvmalloc()ed, whichever it is */
		s64 *wrr_credit;	/* wrr: [n], under lock */
		u32 *cum;		/* sh, p2c: [n] cumulative weights */
		u32 *mh;		/* mh: [KLB_MH_SIZE] backend indices */
	};
	struct rcu_head rcu;

	/* Written by picks on every CPU. */
	atomic_t cursor ____cacheline_aligned_in_smp;	/* rr, lc, wlc */
	spinlock_t lock;		/* wrr credits */
};

/*
 * Per-boot key of backend ids (klb_sched_backend_id()), apart from the
 * one above: ids are shown to clients (http cookies), and must say
 * nothing about the hashes the schedulers use.
 */
static siphash_key_t klb_sched_id_key __read_mostly;

static const char * const klb_sched_names[] = {
	[KLB_SCHED_RR] = "rr",
	[KLB_SCHED_WRR] = "wrr",
	[KLB_SCHED_LC] = "lc",
	[KLB_SCHED_WLC] = "wlc",
	[KLB_SCHED_SH] = "sh",
	[KLB_SCHED_MH] = "mh",
	[KLB_SCHED_P2C] = "p2c",
};

static_assert(ARRAY_SIZE(klb_sched_names) == __KLB_SCHED_MAX);

const char *klb_sched_name(u8 sched)
{
	return sched < ARRAY_SIZE(klb_sched_names) ? klb_sched_names[sched] :
						     "unknown";
}

/* Two words of an address in network order, as a number. */
static u64 klb_sched_be64(const __be32 *w)
{
	return (u64)ntohl(w[0]) << 32 | ntohl(w[1]);
}

/*
 * Stable identity of a backend for Maglev: where it is, not list order or
 * pointer, keyed by the seed, so two balancers with the same seed and
 * backends build the same table.
 */
static u32 klb_sched_backend_key(const struct klb_sched_table *t,
				 const struct klb_backend *be)
{
	u64 hi = 0, lo;

	if (be->family == AF_INET6) {
		hi = klb_sched_be64(&be->addr.in6.s6_addr32[0]);
		lo = klb_sched_be64(&be->addr.in6.s6_addr32[2]);
	} else {
		lo = ntohl(be->addr.ip);
	}
	return (u32)siphash_3u64(hi, lo,
				 (u64)be->family << 16 | ntohs(be->port),
				 &t->key);
}

u64 klb_sched_backend_id(const struct klb_backend *be)
{
	u64 addr[2] = { 0, 0 };

	get_random_once(&klb_sched_id_key, sizeof(klb_sched_id_key));
	if (be->family == AF_INET6)
		memcpy(addr, &be->addr.in6, sizeof(addr));
	else
		memcpy(addr, &be->addr.ip, sizeof(be->addr.ip));
	return siphash_3u64(addr[0], addr[1],
			    (u64)be->family << 16 | (__force u16)be->port,
			    &klb_sched_id_key);
}

static int klb_sched_byid_cmp(const void *a, const void *b)
{
	const struct klb_sched_byid *x = a, *y = b;

	if (x->id != y->id)
		return x->id < y->id ? -1 : 1;
	return 0;
}

/* The id index, for klb_sched_find(); @t->be is filled. */
static int klb_sched_build_byid(struct klb_sched_table *t)
{
	u32 i;

	t->byid = kvmalloc_array(t->n, sizeof(*t->byid), GFP_KERNEL_ACCOUNT);
	if (!t->byid)
		return -ENOMEM;
	for (i = 0; i < t->n; i++) {
		t->byid[i].id = klb_sched_backend_id(t->be[i]);
		t->byid[i].i = i;
	}
	sort(t->byid, t->n, sizeof(*t->byid), klb_sched_byid_cmp, NULL);
	return 0;
}

/*
 * The hash sh and mh pick by, keyed by the seed (a secret: without it a
 * client could choose sources that all land on one backend). Fields in
 * host order, so that balancers of either endianness agree.
 */
static u32 klb_sched_flow_hash(const struct klb_sched_table *t,
			       const struct klb_flow *flow)
{
	const __be32 *s = flow->saddr.in6.s6_addr32;
	const __be32 *d = flow->daddr.in6.s6_addr32;
	u64 ports;

	if (t->hash != KLB_HASH_5TUPLE) {
		if (flow->family == AF_INET6)
			return (u32)siphash_2u64(klb_sched_be64(s),
						 klb_sched_be64(s + 2),
						 &t->key);
		return (u32)siphash_1u32(ntohl(flow->saddr.ip), &t->key);
	}
	ports = (u64)flow->proto << 32 | (u32)ntohs(flow->sport) << 16 |
		ntohs(flow->dport);
	if (flow->family == AF_INET)
		return (u32)siphash_2u64((u64)ntohl(flow->saddr.ip) << 32 |
					 ntohl(flow->daddr.ip), ports, &t->key);
	/* The ports fold into the last word of the destination. */
	return (u32)siphash_4u64(klb_sched_be64(s),
				 klb_sched_be64(s + 2),
				 klb_sched_be64(d),
				 klb_sched_be64(d + 2) ^ ports, &t->key);
}

static int klb_sched_build_mh(struct klb_sched_table *t)
{
	u32 *keys, *scratch, i;
	int err = -ENOMEM;

	keys = kvmalloc_array(t->n, sizeof(*keys), GFP_KERNEL_ACCOUNT);
	scratch = kvmalloc_array(klb_mh_scratch_len(t->n), sizeof(*scratch),
				 GFP_KERNEL_ACCOUNT);
	t->mh = kvmalloc_array(KLB_MH_SIZE, sizeof(*t->mh), GFP_KERNEL_ACCOUNT);
	if (keys && scratch && t->mh) {
		for (i = 0; i < t->n; i++)
			keys[i] = klb_sched_backend_key(t, t->be[i]);
		/* Weights are all > 0 here, so every slot gets filled. */
		klb_mh_build(t->mh, KLB_MH_SIZE, keys, t->weights, t->n,
			     scratch);
		err = 0;
	}
	kvfree(scratch);
	kvfree(keys);
	return err;
}

/* Per-algorithm data; @t->be and @t->weights are filled. */
static int klb_sched_build_algo(struct klb_sched_table *t)
{
	switch (t->sched) {
	case KLB_SCHED_WRR:
		t->wrr_credit = kvcalloc(t->n, sizeof(*t->wrr_credit),
					 GFP_KERNEL_ACCOUNT);
		return t->wrr_credit ? 0 : -ENOMEM;
	case KLB_SCHED_SH:
	case KLB_SCHED_P2C:
		t->cum = kvmalloc_array(t->n, sizeof(*t->cum), GFP_KERNEL_ACCOUNT);
		if (!t->cum)
			return -ENOMEM;
		klb_cum_build(t->weights, t->n, t->cum);
		return 0;
	case KLB_SCHED_MH:
		return klb_sched_build_mh(t);
	default:
		return 0;
	}
}

#ifdef DEBUG
/*
 * A table build is the step of a configuration change that may fail
 * after others were made; nothing but an allocation failure makes it
 * fail, which Debian's kernels cannot inject. This one can, so a test
 * shows that a change refused there leaves nothing behind (debug.sh).
 */
static atomic_t fail_table_build = ATOMIC_INIT(0);

static int klb_fail_table_build_set(const char *val,
				    const struct kernel_param *kp)
{
	int n, err = kstrtoint(val, 0, &n);

	if (err || n < 0)
		return -EINVAL;
	atomic_set(&fail_table_build, n);
	return 0;
}

static int klb_fail_table_build_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&fail_table_build));
}

static const struct kernel_param_ops klb_fail_table_build_ops = {
	.set = klb_fail_table_build_set,
	.get = klb_fail_table_build_get,
};
module_param_cb(fail_table_build, &klb_fail_table_build_ops, NULL, 0644);
MODULE_PARM_DESC(fail_table_build,
		 "DEBUG builds: the Nth scheduler table build from now fails with ENOMEM (0: none)");

static bool klb_sched_build_fails(void)
{
	int n = atomic_read(&fail_table_build);

	while (n > 0) {
		int old = atomic_cmpxchg(&fail_table_build, n, n - 1);

		if (old == n)
			return n == 1;
		n = old;
	}
	return false;
}
#else
static bool klb_sched_build_fails(void)
{
	return false;
}
#endif

/* Frees @t and drops the references on its t->n backends. */
static void klb_sched_table_destroy(struct klb_sched_table *t)
{
	u32 i;

	for (i = 0; i < t->n; i++)
		klb_backend_put(t->be[i]);
	kvfree(t->algo);
	kvfree(t->byid);
	kvfree(t->weights);
	kvfree(t->be);
	kfree(t);
}

struct klb_sched_table *klb_sched_table_build(u8 sched, u8 hash,
					      const siphash_key_t *key,
					      struct list_head *backends,
					      bool ignore_health)
{
	struct klb_sched_table *t;
	struct klb_backend *be;
	u32 cap = 0, i = 0;
	int err = -ENOMEM;

	if (sched > KLB_SCHED_MAX)
		return ERR_PTR(-EINVAL);
	if (klb_sched_build_fails())
		return ERR_PTR(-ENOMEM);
	/* The list cannot change: the caller holds klb_net->lock. */
	list_for_each_entry(be, backends, pool_node)
		cap++;

	t = kzalloc(sizeof(*t), GFP_KERNEL_ACCOUNT);
	if (!t)
		return ERR_PTR(-ENOMEM);
	t->sched = sched;
	t->hash = hash;
	t->key = *key;
	atomic_set(&t->cursor, 0);
	spin_lock_init(&t->lock);
	if (!cap)
		goto out;

	t->be = kvmalloc_array(cap, sizeof(*t->be), GFP_KERNEL_ACCOUNT);
	t->weights = kvmalloc_array(cap, sizeof(*t->weights), GFP_KERNEL_ACCOUNT);
	if (!t->be || !t->weights)
		goto err;
	/*
	 * Usability is read once per backend, in this one pass: health
	 * probes change it without klb_net->lock and an ejection ends with
	 * time, so a count taken in an earlier pass may not match this one.
	 */
	list_for_each_entry(be, backends, pool_node) {
		if (!klb_backend_usable(be, ignore_health))
			continue;
		t->be[i] = be;
		/* Netlink caps it; the clamp keeps the sums in a u32. */
		t->weights[i] = min_t(u32, be->weight_now ?: be->weight,
				      KLB_WEIGHT_MAX);
		klb_backend_get(be);
		t->n = ++i;
	}
	/* Keeps sums of weights within a u32 for the pure code. */
	err = -E2BIG;
	if (t->n > KLB_SCHED_BACKENDS_MAX)
		goto err;
	if (t->n) {
		err = klb_sched_build_algo(t);
		if (!err)
			err = klb_sched_build_byid(t);
		if (err)
			goto err;
	}
out:
	klb_obj_inc(KLB_OBJ_SCHED_TABLE);
	return t;

err:
	klb_sched_table_destroy(t);
	return ERR_PTR(err);
}

static void klb_sched_table_free_rcu(struct rcu_head *rcu)
{
	struct klb_sched_table *t = container_of(rcu, struct klb_sched_table,
						 rcu);

	klb_sched_table_destroy(t);
	klb_obj_dec(KLB_OBJ_SCHED_TABLE);
}

void klb_sched_table_free(struct klb_sched_table *t)
{
	if (!IS_ERR_OR_NULL(t))
		call_rcu(&t->rcu, klb_sched_table_free_rcu);
}

/*
 * Active connections of backend i, read without a lock: a count that is
 * off by a connection in flight on another CPU only shifts one choice.
 * A backend at its maxconn weighs as much as can be, so lc, wlc and p2c
 * choose it only when nothing else is left (and then the pick passes it
 * over: klb_sched_not_full()).
 */
static u32 klb_sched_load(const void *ctx, u32 i)
{
	const struct klb_sched_table *t = ctx;
	int active = atomic_read(&t->be[i]->active_conns);

	if (klb_backend_full_at(t->be[i], active))
		return U32_MAX;
	return active > 0 ? active : 0;
}

/*
 * Backend @i, or if it is at its maxconn the next one in table order that
 * is not (wrapping around), or KLB_PICK_NONE if all are. Deterministic,
 * so sh and mh send a client whose backend is full to the same other
 * backend every time, while the load lasts.
 */
static u32 klb_sched_not_full(const struct klb_sched_table *t, u32 i)
{
	u32 k;

	for (k = 0; k < t->n; k++, i = (i + 1 == t->n) ? 0 : i + 1)
		if (!klb_backend_full(t->be[i]))
			return i;
	return KLB_PICK_NONE;
}

bool klb_sched_has_backends(const struct klb_sched_table *t)
{
	return t && t->n;
}

bool klb_sched_consistent(const struct klb_sched_table *t)
{
	return t && (t->sched == KLB_SCHED_SH || t->sched == KLB_SCHED_MH);
}

struct klb_backend *klb_sched_pick_hash(struct klb_sched_table *t,
					const struct klb_flow *flow)
{
	u32 h, i;

	if (!klb_sched_consistent(t) || !t->n)
		return NULL;
	h = klb_sched_flow_hash(t, flow);
	if (t->sched == KLB_SCHED_SH)
		i = klb_sh_pick(t->cum, t->n, h);
	else
		i = klb_mh_pick(t->mh, KLB_MH_SIZE, h);
	return i < t->n ? t->be[i] : NULL;
}

struct klb_backend *klb_sched_pick(struct klb_sched_table *t,
				   const struct klb_flow *flow)
{
	u32 i;
	u64 r;

	if (!t || !t->n)
		return NULL;

	switch (t->sched) {
	case KLB_SCHED_RR:
		i = klb_rr_pick(t->n, atomic_fetch_inc(&t->cursor));
		break;
	case KLB_SCHED_WRR:
		/* _bh: locally originated packets get here in process context. */
		spin_lock_bh(&t->lock);
		i = klb_wrr_pick(t->weights, t->wrr_credit, t->n);
		spin_unlock_bh(&t->lock);
		break;
	case KLB_SCHED_LC:
		i = klb_least_pick(t->n, atomic_fetch_inc(&t->cursor), NULL,
				   klb_sched_load, t);
		break;
	case KLB_SCHED_WLC:
		i = klb_least_pick(t->n, atomic_fetch_inc(&t->cursor),
				   t->weights, klb_sched_load, t);
		break;
	case KLB_SCHED_SH:
		i = klb_sh_pick(t->cum, t->n, klb_sched_flow_hash(t, flow));
		break;
	case KLB_SCHED_MH:
		i = klb_mh_pick(t->mh, KLB_MH_SIZE,
				klb_sched_flow_hash(t, flow));
		break;
	case KLB_SCHED_P2C:
		r = get_random_u64();
		i = klb_p2c_pick_core(t->cum, t->weights, t->n, (u32)r,
				      (u32)(r >> 32), klb_sched_load, t);
		break;
	default:
		i = KLB_PICK_NONE;
		break;
	}
	if (i < t->n)
		i = klb_sched_not_full(t, i);
	return i < t->n ? t->be[i] : NULL;
}

struct klb_backend *klb_sched_find(struct klb_sched_table *t, u64 id)
{
	u32 lo = 0, hi, mid;

	if (!t)
		return NULL;
	/* Binary search: a few steps even over thousands of backends. */
	hi = t->n;
	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (t->byid[mid].id == id)
			return t->be[t->byid[mid].i];
		if (t->byid[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}
