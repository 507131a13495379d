// SPDX-License-Identifier: GPL-2.0
/*
 * Full NAT: which local address and source port a new connection to a
 * backend comes from.
 *
 * The reply tuple (backend:port -> local address:port) is the key replies
 * are found by, so it must be unique in the connection table: a port is
 * free for a (local address, backend address, backend port, protocol)
 * exactly when no connection has that reply tuple, which the insertion
 * checks under the chain locks. So ports are allocated per local address
 * and backend, without a bitmap: the table is the allocator.
 *
 * A candidate port is drawn at random in net.klb.fnat_port_min..max and
 * the ports after it are tried in turn, at most KLB_FNAT_TRIES per source
 * address, so that a nearly full range costs a bounded time in softirq;
 * a range up to that size is searched whole. A connection that finds no
 * port is refused and counted (drop no_port), never given a live tuple.
 *
 * The default range (1024..32767) lies below Linux's default
 * ip_local_port_range, so that local sockets (klb's own http and tls
 * backend connections among them) never pick a tuple klb uses.
 */
#include <linux/random.h>

#include "l4/fnat.h"
#include "l4/persist.h"
#include "l4/xmit.h"

#define KLB_FNAT_TRIES	256

struct klb_conn *klb_fnat_conn_new(struct klb_net *kn, struct klb_service *svc,
				   struct klb_backend *be,
				   const struct klb_flow *orig,
				   struct klb_persist *pe)
{
	struct klb_conn_table *t = kn->conns;
	u32 lo = READ_ONCE(kn->sysctl.fnat_port_min);
	u32 hi = READ_ONCE(kn->sysctl.fnat_port_max);
	unsigned int naddr = svc->nsnat ? : 1;
	unsigned int first, a, i, n, tries;
	struct klb_conn *c, *ret;
	struct klb_flow *r;

	if (hi < lo)
		hi = lo;
	n = hi - lo + 1;
	tries = min_t(unsigned int, n, KLB_FNAT_TRIES);

	c = klb_conn_alloc(kn, svc, be, orig);
	if (IS_ERR(c)) {
		klb_persist_put(pe);
		return c;
	}
	c->persist = pe;
	r = &c->h[KLB_DIR_REPLY].flow;
	first = get_random_u32();

	for (a = 0; a < naddr; a++) {
		u32 port = lo + reciprocal_scale(get_random_u32(), n);

		if (svc->nsnat) {
			r->daddr = svc->snat[(first + a) % svc->nsnat];
		} else if (klb_xmit_source(kn->net, be->family,
					   &be->addr, &r->daddr)) {
			ret = ERR_PTR(-ENETUNREACH);
			goto free;
		}
		for (i = 0; i < tries; i++) {
			r->dport = htons(port);
			klb_conn_rehash_reply(t, c);
			ret = klb_conn_insert(t, c);
			if (ret != ERR_PTR(-EADDRINUSE))
				goto out;
			port = port == hi ? lo : port + 1;
		}
	}
	ret = ERR_PTR(-EADDRNOTAVAIL);
free:
	klb_conn_free_unused(t, c);
	return ret;
out:
	if (ret != c)
		klb_conn_free_unused(t, c);
	return ret;
}
