/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A backend's own attributes (backend_nla.c), for every message that
 * carries a backend nest: dumps (netlink/dump.c) and events (events.c).
 */
#ifndef _KLB_BACKEND_NLA_H
#define _KLB_BACKEND_NLA_H

#include <net/netlink.h>

struct klb_backend;

/* Room klb_backend_nla_put() needs, without the nest header. */
size_t klb_backend_nla_size(void);
/*
 * Address, port, weight and state of @be (the attributes of enum
 * klb_backend_attr that describe it, not its counters), into an open
 * nest. -EMSGSIZE if @skb is full.
 */
int klb_backend_nla_put(struct sk_buff *skb, const struct klb_backend *be);

#endif /* _KLB_BACKEND_NLA_H */
