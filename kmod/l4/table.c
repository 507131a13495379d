// SPDX-License-Identifier: GPL-2.0
/*
 * The skeleton of klb's two L4 tables (table.h): locks, hashing, counts
 * and the GC's rhythm, written once for the connection table and the
 * persistence table.
 */
#include <linux/mm.h>
#include <linux/random.h>
#include <linux/slab.h>

#include "l4/table.h"

int klb_l4_core_init(struct klb_l4_core *c, unsigned int nlocks,
		     unsigned long gc_period, work_func_t gc)
{
	unsigned int i;

	c->locks = kvmalloc_array(nlocks, sizeof(*c->locks),
				  GFP_KERNEL_ACCOUNT);
	if (!c->locks)
		return -ENOMEM;
	for (i = 0; i < nlocks; i++)
		spin_lock_init(&c->locks[i]);
	c->nlocks = nlocks;
	get_random_bytes(&c->key, sizeof(c->key));
	atomic_set(&c->count, 0);
	atomic_long_set(&c->next_id, 0);
	c->gc_next = 0;
	c->gc_period = gc_period;
	INIT_DELAYED_WORK(&c->gc_work, gc);
	return 0;
}

void klb_l4_core_exit(struct klb_l4_core *c)
{
	WARN_ON_ONCE(atomic_read(&c->count));
	kvfree(c->locks);
	c->locks = NULL;
}

void klb_l4_gc_kick(struct klb_l4_core *c)
{
	if (!delayed_work_pending(&c->gc_work))
		queue_delayed_work(system_power_efficient_wq, &c->gc_work,
				   c->gc_period);
}

void klb_l4_gc_again(struct klb_l4_core *c)
{
	if (atomic_read(&c->count))
		queue_delayed_work(system_power_efficient_wq, &c->gc_work,
				   c->gc_period);
}

void klb_l4_gc_stop(struct klb_l4_core *c)
{
	cancel_delayed_work_sync(&c->gc_work);
}
