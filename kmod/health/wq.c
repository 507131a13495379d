// SPDX-License-Identifier: GPL-2.0
/*
 * The health workqueue, shared by the probes (probe.c), the netns's
 * health work (check.c) and passive ejection (passive.c), and the kick
 * that queues the health work. It lives below all three so that none of
 * them calls another to reach it.
 */
#include <linux/workqueue.h>

#include "health/probe.h"

struct workqueue_struct *klb_health_wq;

void klb_health_kick(struct klb_net *kn, unsigned long delay)
{
	/* At once: even if it is pending for later (an ejection's end). */
	if (!delay)
		mod_delayed_work(klb_health_wq, &kn->health_work, 0);
	else
		queue_delayed_work(klb_health_wq, &kn->health_work, delay);
}

int klb_health_module_init(void)
{
	/* Unbound: probes of many backends spread over the CPUs. */
	klb_health_wq = alloc_workqueue("klb_health", WQ_UNBOUND, 0);
	return klb_health_wq ? 0 : -ENOMEM;
}

void klb_health_module_exit(void)
{
	destroy_workqueue(klb_health_wq);
}
