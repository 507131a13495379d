// SPDX-License-Identifier: GPL-2.0
/*
 * klb's objects: the live count of every type, and the check at unload
 * that all of them went. Every file that allocates counts here, so this
 * file calls nothing of klb's (the releases are in release.c).
 */
#include <linux/bug.h>
#include <linux/moduleparam.h>

#include "klb.h"

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
	[KLB_OBJ_HOSTMAP]	= "host map",
	[KLB_OBJ_TXN]		= "restore transaction",
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
