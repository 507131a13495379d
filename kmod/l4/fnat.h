/* SPDX-License-Identifier: GPL-2.0 */
/* Full NAT's source side (fnat.c). */
#ifndef _KLB_L4_FNAT_H
#define _KLB_L4_FNAT_H

#include "l4/conn.h"

/*
 * A new connection of fnat service @svc to @be, coming from one of the
 * service's snat addresses (or the route's source towards @be) and a free
 * source port. Caller holds rcu_read_lock with BH disabled. Returns the
 * connection (or another CPU's twin), or: -ENOSPC conn_max reached,
 * -ENOMEM, -EADDRNOTAVAIL no free port, -ENETUNREACH no source address.
 * @pe: as for klb_conn_new().
 */
struct klb_conn *klb_fnat_conn_new(struct klb_net *kn, struct klb_service *svc,
				   struct klb_backend *be,
				   const struct klb_flow *orig,
				   struct klb_persist *pe);

#endif /* _KLB_L4_FNAT_H */
