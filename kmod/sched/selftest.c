// SPDX-License-Identifier: GPL-2.0
/*
 * Load-time self-test of the scheduler glue (WireGuard style), built with
 * DEBUG only (make DEBUG=1) and run by main.c before anything is
 * registered: a failure fails the module load.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/err.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "klb.h"
#include "flow.h"
#include "sched/table.h"

/*
 * Builds real tables from fake backends and checks eligibility, spread,
 * stickiness and the backend references. The algorithms themselves are
 * tested far more thoroughly in userspace (tools/testing/unit); this
 * proves the kernel build of them is wired up right.
 */
#define KLB_ST_N 5

/* Proves that a failing self-test fails the load (selftests/debug.sh). */
static bool selftest_fail_inject;
module_param(selftest_fail_inject, bool, 0444);
MODULE_PARM_DESC(selftest_fail_inject,
		 "DEBUG builds: make the scheduler self-test fail (tests the test)");

/* Any key: the checks hold for every one. */
static const siphash_key_t klb_st_key = { { 1, 2 } };

static bool __init klb_sched_selftest_one(u8 sched, struct list_head *list,
					  struct klb_backend *be)
{
	static const u8 expect_wrr[KLB_ST_N] = { 1, 2, 3, 0, 0 };
	struct klb_sched_table *t;
	struct klb_flow flow = { .family = AF_INET };
	struct klb_backend *p, *first;
	u32 cnt[KLB_ST_N] = { 0 }, i, j;
	bool ok = true;

	t = klb_sched_table_build(sched, KLB_HASH_SRC, &klb_st_key, list,
				  false);
	if (IS_ERR(t))
		return false;
	rcu_read_lock();
	for (i = 0; i < 600; i++) {
		flow.saddr.ip = htonl(0x0a000000 + i % 50);
		p = klb_sched_pick(t, &flow);
		/* Only up backends with weight > 0 (indices 0..2). */
		if (!p || p - be >= 3 || p < be) {
			ok = false;
			break;
		}
		cnt[p - be]++;
		if (sched == KLB_SCHED_SH || sched == KLB_SCHED_MH) {
			first = p;
			for (j = 0; j < 3; j++)
				ok &= klb_sched_pick(t, &flow) == first;
			/* Adoption (l4/adopt.c) picks what the SYN got. */
			ok &= klb_sched_pick_hash(t, &flow) == first;
		}
	}
	/* Only sh and mh pick from the headers alone. */
	ok &= klb_sched_consistent(t) ==
	      (sched == KLB_SCHED_SH || sched == KLB_SCHED_MH);
	if (!klb_sched_consistent(t))
		ok &= !klb_sched_pick_hash(t, &flow);
	/* By id (http cookies): only the eligible ones, 0..2, are found. */
	for (i = 0; i < KLB_ST_N; i++)
		ok &= klb_sched_find(t, klb_sched_backend_id(&be[i])) ==
		      (i < 3 ? &be[i] : NULL);
	ok &= !klb_sched_find(t, klb_sched_backend_id(&be[0]) ^ 1);
	rcu_read_unlock();
	if (sched == KLB_SCHED_WRR)
		for (i = 0; i < KLB_ST_N; i++)
			ok &= cnt[i] == 100 * expect_wrr[i];
	if (sched == KLB_SCHED_RR)
		for (i = 0; i < 3; i++)
			ok &= cnt[i] == 200 + selftest_fail_inject;
	/* lc: backend 1 has the fewest active connections, stays the least. */
	if (sched == KLB_SCHED_LC)
		ok &= cnt[1] == 600;
	klb_sched_table_free(t);
	return ok;
}

bool __init klb_sched_selftest(void)
{
	static const u32 weights[KLB_ST_N] = { 1, 2, 3, 0, 4 };
	struct klb_backend *be;
	struct klb_sched_table *t;
	LIST_HEAD(list);
	bool ok = true;
	u8 sched;
	u32 i;

	be = kcalloc(KLB_ST_N, sizeof(*be), GFP_KERNEL);
	if (!be)
		return false;
	for (i = 0; i < KLB_ST_N; i++) {
		be[i].family = AF_INET;
		be[i].addr.ip = htonl(0xc0a80001 + i);
		be[i].port = htons(80);
		be[i].weight = weights[i];
		/* The last one has a weight but is drained: not eligible. */
		be[i].state = i == KLB_ST_N - 1 ? KLB_BACKEND_DRAIN :
						  KLB_BACKEND_UP;
		atomic_set(&be[i].active_conns, i == 1 ? 0 : 10);
		/* Two references: one put too many is caught, not a free. */
		kref_init(&be[i].ref);
		kref_get(&be[i].ref);
		list_add_tail(&be[i].pool_node, &list);
	}
	for (sched = 0; sched <= KLB_SCHED_MAX; sched++) {
		if (!klb_sched_selftest_one(sched, &list, be)) {
			pr_err("sched self-test %s: FAIL\n",
			       klb_sched_name(sched));
			ok = false;
		}
	}

	/* No eligible backend: a table that picks nothing. */
	INIT_LIST_HEAD(&list);
	t = klb_sched_table_build(KLB_SCHED_MH, KLB_HASH_SRC, &klb_st_key,
				  &list, false);
	ok &= !IS_ERR(t) && !klb_sched_pick(t, NULL);
	klb_sched_table_free(t);

	/* Every table dropped its references once its grace period ended. */
	rcu_barrier();
	for (i = 0; i < KLB_ST_N; i++)
		ok &= kref_read(&be[i].ref) == 2;
	kfree(be);
	pr_info("sched self-tests: %s\n", ok ? "pass" : "FAIL");
	return ok;
}
