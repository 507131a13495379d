// SPDX-License-Identifier: GPL-2.0
/*
 * klb's objects: live counts of every type, and the release of the two
 * refcounted ones (backends and services). Those are referenced from every
 * layer (scheduler tables, connections, L7 sessions), so the last put may
 * come from any of them, in any context; the release lives here, below
 * them all, and frees after a grace period.
 */
#include <linux/bug.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>

#include "klb.h"
#include "acl.h"

DEFINE_PER_CPU(struct klb_obj_counts, klb_objects);

static const char * const klb_obj_names[KLB_OBJ__MAX] = {
	[KLB_OBJ_POOL]		= "pool",
	[KLB_OBJ_BACKEND]	= "backend",
	[KLB_OBJ_SERVICE]	= "service",
	[KLB_OBJ_SCHED_TABLE]	= "scheduler table",
	[KLB_OBJ_CONN]		= "connection",
	[KLB_OBJ_RULE_SET]	= "rule set",
	[KLB_OBJ_L7_LISTENER]	= "L7 listener",
	[KLB_OBJ_L7_SESSION]	= "L7 session",
	[KLB_OBJ_L7_UPSTREAM]	= "L7 backend connection",
	[KLB_OBJ_PERSIST]	= "persistence entry",
	[KLB_OBJ_CHECK]		= "health check config",
	[KLB_OBJ_PROBE]		= "health probe",
	[KLB_OBJ_CONN_HASH]	= "connection hash array",
	[KLB_OBJ_EXTACK_MSG]	= "extack message",
	[KLB_OBJ_ACL]		= "source ACL",
	[KLB_OBJ_L7_BUF]	= "L7 session buffer",
};

#ifdef DEBUG
/*
 * Nothing else proves that klb_objects_check() still fires: a check that
 * cannot fail looks the same as one that passes (selftests/debug.sh).
 */
static bool leak_inject;
module_param(leak_inject, bool, 0444);
MODULE_PARM_DESC(leak_inject,
		 "DEBUG builds: count one connection that is never freed, so that unload reports a leak (tests the check)");

void klb_objects_leak_inject(void)
{
	if (leak_inject)
		klb_obj_inc(KLB_OBJ_CONN);
}
#endif

void klb_objects_check(void)
{
	int i;

	for (i = 0; i < KLB_OBJ__MAX; i++) {
		long n = 0;
		int cpu;

		for_each_possible_cpu(cpu)
			n += per_cpu(klb_objects.n[i], cpu);

		WARN(n, KBUILD_MODNAME ": leaked %ld %s objects\n", n,
		     klb_obj_names[i]);
	}
}

static void klb_backend_free_rcu(struct rcu_head *rcu)
{
	struct klb_backend *be = container_of(rcu, struct klb_backend, rcu);

	/* A grace period has passed: no reader holds the backend. */
	dst_release(rcu_dereference_protected(be->dr_dst, 1));
	klb_stats_free(be->stats);
	kfree(be);
	klb_obj_dec(KLB_OBJ_BACKEND);
}

/*
 * The last reference may be dropped by a table or a connection freed after
 * a grace period; a reader that got the backend without a reference is
 * still given one more before the counters go away.
 */
void klb_backend_release(struct kref *ref)
{
	struct klb_backend *be = container_of(ref, struct klb_backend, ref);

	call_rcu(&be->rcu, klb_backend_free_rcu);
}

static void klb_service_free_rcu(struct rcu_head *rcu)
{
	struct klb_service *svc = container_of(rcu, struct klb_service, rcu);

	if (svc->l7_next)
		klb_service_put(svc->l7_next);
	/* A grace period has passed: no reader sees the service's ACL. */
	klb_acl_destroy(rcu_dereference_protected(svc->acl, 1));
	klb_stats_free(svc->stats);
	kfree(svc);
	klb_obj_dec(KLB_OBJ_SERVICE);
}

/* Connections hold references: the last one may go in softirq. */
void klb_service_release(struct kref *ref)
{
	struct klb_service *svc = container_of(ref, struct klb_service, ref);

	call_rcu(&svc->rcu, klb_service_free_rcu);
}
