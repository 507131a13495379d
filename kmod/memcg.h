/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Charging a namespace's kernel memory to a memory cgroup (memcg.c).
 *
 * Objects allocated in process context while configuring (pools, backends,
 * services, rule sets, scheduler tables, counters) are allocated with
 * GFP_KERNEL_ACCOUNT and so charged to the configuring task's cgroup.
 * Connection entries are allocated in softirq, where the kernel cannot
 * tell whom to charge: in a namespace that a user namespace owns, they are
 * charged to the cgroup of the namespace's first configurer, remembered
 * here (kn->memcg), so that a user namespace allowed to configure klb
 * (allow_userns) pays for the table it fills.
 */
#ifndef _KLB_MEMCG_H
#define _KLB_MEMCG_H

#include <linux/memcontrol.h>
#include <linux/sched/mm.h>

#include "klb.h"

/* Under kn->lock, from a configuring request: remember its cgroup. */
void klb_memcg_adopt(struct klb_net *kn);
/* netns exit: let go of it. */
void klb_memcg_release(struct klb_net *kn);

/*
 * Around an allocation with __GFP_ACCOUNT in any context: charge it to
 * the namespace's cgroup (none yet: the allocation is not charged).
 */
static inline struct mem_cgroup *klb_memcg_enter(struct klb_net *kn)
{
	return set_active_memcg(READ_ONCE(kn->memcg));
}

static inline void klb_memcg_leave(struct mem_cgroup *old)
{
	set_active_memcg(old);
}

#endif /* _KLB_MEMCG_H */
