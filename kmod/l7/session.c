// SPDX-License-Identifier: GPL-2.0
/*
 * What a session's protocol (http_session.c, tls_session.c) asks of the
 * engine while it runs: its timer, its share of the memory limit, the
 * service that took over its address (restore), what the conn dump shows
 * of it, the source ACL and the choice of a backend. Nothing here knows a
 * protocol or ends a session (net.c does).
 */
#include "acl.h"
#include "l7/l7.h"
#include "l7/route.h"
#include "sched/table.h"

/* ---- timer ---------------------------------------------------------------- */

void klb_l7_session_set_timeout(struct klb_l7_session *s, unsigned int secs)
{
	if (!secs) {
		s->timer_set = false;
		del_timer(&s->timer);
		return;
	}
	s->deadline = jiffies + secs * HZ;
	s->timer_set = true;
	mod_timer(&s->timer, s->deadline);
}

bool klb_l7_session_expired(const struct klb_l7_session *s)
{
	return s->timer_set && time_after_eq(jiffies, s->deadline);
}

void klb_l7_session_linger(struct klb_l7_session *s)
{
	s->lingering = true;
}

/* ---- memory and the service's successor ---------------------------------- */

int klb_l7_mem_charge(struct klb_l7_session *s, size_t bytes)
{
	long max = (long)READ_ONCE(s->kn->sysctl.l7_mem_max_kb) * 1024;
	atomic_long_t *mem = &s->kn->l7->mem;

	if (atomic_long_add_return(bytes, mem) > max) {
		atomic_long_sub(bytes, mem);
		klb_stats_l7(s->svc->stats, KLB_L7_ERR_LIMIT);
		return -ENOBUFS;
	}
	return 0;
}

void klb_l7_mem_uncharge(struct klb_l7_session *s, size_t bytes)
{
	atomic_long_sub(bytes, &s->kn->l7->mem);
}

bool klb_l7_session_follow(struct klb_l7_session *s)
{
	struct klb_service *old = s->svc, *next = old;
	int hops;

	/* Restores in a row: each service names the one after it. */
	/* Acquire: pairs with klb_l7_service_stop()'s release. */
	for (hops = 0; hops < 8 && smp_load_acquire(&next->stopping); hops++) {
		next = READ_ONCE(next->l7_next);
		if (!next || next->mode != old->mode)
			return false;
	}
	if (next == old || READ_ONCE(next->stopping))
		return false;
	klb_service_get(next);
	atomic_inc(&next->active_conns);
	/* klb_l7_sessions_kick() reads it under the lock. */
	spin_lock_bh(&s->kn->l7->lock);
	s->svc = next;
	spin_unlock_bh(&s->kn->l7->lock);
	atomic_dec(&old->active_conns);
	klb_service_put(old);
	return true;
}

/* ---- conn dumps ------------------------------------------------------------- */

void klb_l7_session_set_backend(struct klb_l7_session *s,
				const struct klb_backend *be)
{
	spin_lock(&s->info_lock);
	if (be) {
		s->be_family = be->family;
		s->be_addr = be->addr;
		s->be_port = be->port;
	} else {
		s->be_port = 0;
	}
	spin_unlock(&s->info_lock);
}

void klb_l7_session_add_bytes(struct klb_l7_session *s, u64 in, u64 out)
{
	spin_lock(&s->info_lock);
	s->bytes_in += in;
	s->bytes_out += out;
	spin_unlock(&s->info_lock);
}

/* ---- backend choice ------------------------------------------------------ */

bool klb_l7_source_allowed(struct klb_l7_session *s)
{
	bool ok;

	rcu_read_lock();
	ok = klb_acl_allows_flow(rcu_dereference(s->svc->acl), &s->flow);
	rcu_read_unlock();
	if (!ok) {
		local_bh_disable();	/* per-CPU counters, as the datapath's */
		klb_stats_drop(s->svc->stats, KLB_DROP_ACL);
		local_bh_enable();
	}
	return ok;
}

struct klb_backend *klb_l7_pick(struct klb_l7_session *s,
				const struct klb_rule_input *in,
				struct klb_backend *avoid, const u64 *want,
				const void **full)
{
	struct klb_backend *be = NULL;
	struct klb_sched_table *table;
	struct klb_pool *pool;
	struct klb_flow flow = s->flow;
	int i;

	if (full)
		*full = NULL;
	rcu_read_lock();
	local_bh_disable();	/* schedulers keep per-CPU state */
	/*
	 * Checked inside the read section: a service is marked stopping
	 * before the grace period that precedes freeing its pools and rules.
	 */
	if (READ_ONCE(s->svc->stopping))
		goto out;
	pool = klb_l7_route_rcu(s->svc, in);
	table = pool ? rcu_dereference(pool->table) : NULL;
	/* The backend the client asked for, if it is still eligible. */
	if (want && table) {
		be = klb_sched_find(table, *want);
		/* A full one: served elsewhere (and given a new cookie). */
		if (be && be != avoid && !klb_backend_full(be))
			goto found;
		be = NULL;
	}
	for (i = 0; table && i < 4; i++) {
		be = klb_sched_pick(table, &flow);
		if (!be || be != avoid)
			break;
		/* Hashing schedulers need another flow to pick another one. */
		flow.sport = (__force __be16)((__force u16)flow.sport + 1);
	}
	if (!be && full && klb_sched_has_backends(table))
		*full = pool;
found:
	if (be)
		klb_backend_get(be);
out:
	local_bh_enable();
	rcu_read_unlock();
	return be;
}
