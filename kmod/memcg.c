// SPDX-License-Identifier: GPL-2.0
/*
 * The memory cgroup a namespace's softirq allocations are charged to
 * (memcg.h): that of the first task that configured klb in it. Set once
 * and kept until the namespace goes, so a connection entry's charge and
 * its uncharge always meet the same cgroup.
 *
 * Only for a namespace that a user namespace owns (klb.allow_userns): the
 * host's own namespaces are sized by their administrator, and their
 * connections are charged to nobody, as before (the unit that ran
 * `klbctl restore` at boot may be long gone).
 */
#include <linux/user_namespace.h>

#include "memcg.h"

void klb_memcg_adopt(struct klb_net *kn)
{
	klb_assert_locked(kn);
	if (kn->memcg || !current->mm || kn->net->user_ns == &init_user_ns)
		return;
	WRITE_ONCE(kn->memcg, get_mem_cgroup_from_mm(current->mm));
}

void klb_memcg_release(struct klb_net *kn)
{
	mem_cgroup_put(kn->memcg);
	kn->memcg = NULL;
}
