// SPDX-License-Identifier: GPL-2.0
/*
 * The connection dump's walk over the table: a cursor that survives the
 * chains changing between two calls, under RCU only.
 */
#include <linux/sched.h>

#include "l4/conn.h"

static void klb_conn_fill_info(const struct klb_conn *c,
			       struct klb_conn_info *ci)
{
	const struct klb_flow *o = &c->h[KLB_DIR_ORIG].flow;
	const struct klb_flow *r = &c->h[KLB_DIR_REPLY].flow;
	unsigned long expires = READ_ONCE(c->expires);
	unsigned long now = jiffies;

	memset(ci, 0, sizeof(*ci));
	ci->svc = c->svc;
	ci->family = o->family;
	ci->proto = o->proto;
	ci->state = READ_ONCE(c->state);
	ci->caddr = o->saddr;
	ci->cport = o->sport;
	ci->vaddr = o->daddr;
	ci->vport = o->dport;
	/* dr, tun: the reply tuple has the VIP, not the backend. */
	ci->baddr = c->be->addr;
	ci->bport = c->be->port;
	if (c->svc->mode == KLB_MODE_FNAT) {
		ci->laddr = r->daddr;
		ci->lport = r->dport;
	}
	ci->expires_ms = time_after(expires, now) ?
			 jiffies_to_msecs(expires - now) : 0;
}

/*
 * Cursor: pos[0] is the bucket, pos[1] the id of the connection to resume
 * with plus one (0: start of the bucket). New connections are added at
 * the head of a chain with increasing ids under the chain's lock, so ids
 * decrease along a chain and "id < pos[1]" skips exactly what was already
 * reported (and anything added since, which a best-effort walk may miss).
 */
int klb_conn_walk(struct klb_net *kn, unsigned long pos[2],
		  int (*fn)(const struct klb_conn_info *ci, void *arg),
		  void *arg)
{
	struct klb_conn_table *t = kn->conns;
	struct klb_conn_info ci;
	int ret = 0;

	if (!t)
		return 0;
	for (;; pos[0]++, pos[1] = 0) {
		struct klb_conn_hnode *h;
		struct klb_conn_hash *hash;

		rcu_read_lock();
		hash = klb_conn_hash(t);
		if (pos[0] > hash->mask) {
			rcu_read_unlock();
			break;
		}
		hlist_for_each_entry_rcu(h, &hash->buckets[pos[0]], node) {
			struct klb_conn *c;

			if (h->dir != KLB_DIR_ORIG)
				continue;
			c = klb_hnode_conn(h);
			if (pos[1] && c->id >= pos[1])
				continue;
			if (test_bit(KLB_CONN_F_DEAD, &c->flags))
				continue;
			klb_conn_fill_info(c, &ci);
			ret = fn(&ci, arg);
			if (ret) {
				pos[1] = c->id + 1;
				break;
			}
		}
		rcu_read_unlock();
		if (ret)
			return ret;
		cond_resched();
	}
	return 0;
}
