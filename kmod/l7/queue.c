// SPDX-License-Identifier: GPL-2.0
/*
 * The wait queue of http requests whose pool has every usable backend at
 * its maxconn (HAProxy's queue): one FIFO per netns, each waiter tagged
 * with the pool it waits for, so a slot freed in one pool wakes the
 * oldest request of that pool only.
 *
 * Ordering: only the first waiter of a pool may take a slot of it, and a
 * new request whose pool has waiters queues behind them even if a slot is
 * free, so requests of a pool are served in arrival order. A freed slot
 * wakes the first waiter of its pool (klb_l7_queue_kick()); a waiter that
 * leaves the queue, served or not, wakes the next one, so two slots freed
 * at once serve two waiters.
 *
 * Cost: nothing unless a backend has a maxconn and requests wait: the
 * lock is taken only when klb_l7_net.nqueued says there are waiters.
 * Bounds: net.klb.http_queue_max waiters per service, each for at most
 * net.klb.http_queue_timeout seconds.
 */
#include "l7/engine.h"
#include "l7/l7.h"

int klb_l7_queue_add(struct klb_l7_session *s, struct klb_l7_waiter *w,
		     const void *pool)
{
	struct klb_l7_net *l7 = s->kn->l7;
	int max = READ_ONCE(s->kn->sysctl.http_queue_max);

	if (atomic_inc_return(&s->svc->l7_queued) > max) {
		atomic_dec(&s->svc->l7_queued);
		return -ENOSPC;
	}
	w->pool = pool;
	w->s = s;
	w->svc = s->svc;
	w->since = jiffies;
	spin_lock_bh(&l7->qlock);
	list_add_tail(&w->node, &l7->queue);
	WRITE_ONCE(l7->nqueued, l7->nqueued + 1);
	spin_unlock_bh(&l7->qlock);
	return 0;
}

/* The first waiter for @pool (under qlock), or NULL. */
static struct klb_l7_waiter *klb_l7_queue_first(struct klb_l7_net *l7,
						const void *pool)
{
	struct klb_l7_waiter *w;

	list_for_each_entry(w, &l7->queue, node)
		if (w->pool == pool)
			return w;
	return NULL;
}

void klb_l7_queue_del(struct klb_l7_session *s, struct klb_l7_waiter *w)
{
	struct klb_l7_net *l7 = s->kn->l7;
	struct klb_l7_waiter *next;

	if (!w->s)
		return;
	spin_lock_bh(&l7->qlock);
	list_del(&w->node);
	WRITE_ONCE(l7->nqueued, l7->nqueued - 1);
	/* Its turn passes to the next one of the pool, if a slot is left. */
	next = klb_l7_queue_first(l7, w->pool);
	if (next)
		queue_work(klb_l7_wq, &next->s->work);
	spin_unlock_bh(&l7->qlock);
	atomic_dec(&w->svc->l7_queued);
	w->s = NULL;
	w->svc = NULL;
}

bool klb_l7_queue_ahead(struct klb_net *kn, const void *pool,
			const struct klb_l7_waiter *self)
{
	struct klb_l7_net *l7 = kn->l7;
	struct klb_l7_waiter *first;

	if (!READ_ONCE(l7->nqueued))
		return false;
	spin_lock_bh(&l7->qlock);
	first = klb_l7_queue_first(l7, pool);
	spin_unlock_bh(&l7->qlock);
	return first && first != self;
}

void klb_l7_queue_kick(struct klb_net *kn, const void *pool)
{
	struct klb_l7_net *l7 = kn->l7;
	struct klb_l7_waiter *w;

	if (!l7 || !READ_ONCE(l7->nqueued))
		return;
	spin_lock_bh(&l7->qlock);
	w = klb_l7_queue_first(l7, pool);
	if (w)
		queue_work(klb_l7_wq, &w->s->work);
	spin_unlock_bh(&l7->qlock);
}

void klb_l7_queue_kick_all(struct klb_net *kn)
{
	struct klb_l7_net *l7 = kn->l7;
	struct klb_l7_waiter *w;

	if (!l7 || !READ_ONCE(l7->nqueued))
		return;
	spin_lock_bh(&l7->qlock);
	list_for_each_entry(w, &l7->queue, node)
		queue_work(klb_l7_wq, &w->s->work);
	spin_unlock_bh(&l7->qlock);
}

void klb_l7_backend_done(struct klb_net *kn, struct klb_backend *be)
{
	atomic_dec(&be->active_conns);
	if (READ_ONCE(be->maxconn))
		klb_l7_queue_kick(kn, be->pool);
}
