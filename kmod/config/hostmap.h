/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Host maps of http and tls services (hostmap.c): each map is one block,
 * replaced whole, never changed in place (struct klb_hostmap in
 * l7/route.h). Every name counts as a user of its pool. Under kn->lock.
 */
#ifndef _KLB_CONFIG_HOSTMAP_H
#define _KLB_CONFIG_HOSTMAP_H

#include "config/config.h"
#include "l7/route.h"

/* The map of @svc, for the writer side (kn->lock held); NULL if none. */
static inline struct klb_hostmap *klb_service_hostmap(struct klb_net *kn,
						      struct klb_service *svc)
{
	return rcu_dereference_protected(svc->hostmap,
					 lockdep_is_held(&kn->lock));
}

static inline struct klb_pool *klb_hostmap_pool(const struct klb_hostmap *m,
						u32 i)
{
	return m->hm.e[i].val;
}

/* An empty map with room for @cap names of @names_cap bytes in all. */
struct klb_hostmap *klb_hostmap_alloc(u32 cap, u32 names_cap);
void klb_hostmap_destroy(struct klb_hostmap *map);	/* never published */
/* @svc's map becomes @map (NULL or empty: none); pools' users follow. */
void klb_hostmap_replace(struct klb_net *kn, struct klb_service *svc,
			 struct klb_hostmap *map);
/* Add one prepared name; refusals (duplicate, full) with a message. */
int klb_hostmap_add(struct klb_net *kn, struct klb_service *svc,
		    const char *name, u32 len, struct klb_pool *pool,
		    const struct nlattr *attr, struct netlink_ext_ack *extack);
int klb_hostmap_del(struct klb_net *kn, struct klb_service *svc,
		    const char *name, u32 len, const struct nlattr *attr,
		    struct netlink_ext_ack *extack);
/* Does a name of @svc's map route to @pool? Then say so in @extack. */
bool klb_hostmap_uses(struct klb_net *kn, struct klb_service *svc,
		      const struct klb_pool *pool, struct netlink_ext_ack *extack);
/* A restore: @to takes the map of @from, its staged twin, in one store. */
void klb_hostmap_move(struct klb_net *kn, struct klb_service *to,
		      struct klb_service *from);

#endif /* _KLB_CONFIG_HOSTMAP_H */
