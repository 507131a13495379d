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

u32 klb_l4_hash(const struct klb_l4_core *c, u16 family,
		const union nf_inet_addr *a, const union nf_inet_addr *b,
		u64 rest)
{
	u64 w[5];

	if (family == AF_INET)
		return siphash_2u64((u64)(__force u32)a->ip << 32 |
				    (__force u32)b->ip, rest, &c->key);
	memcpy(&w[0], &a->in6, sizeof(struct in6_addr));
	memcpy(&w[2], &b->in6, sizeof(struct in6_addr));
	w[4] = rest;
	return siphash(w, sizeof(w), &c->key);
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
