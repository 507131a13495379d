/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Hash indexes of pools and services (index.c), for the lookups of a
 * restore: its staged objects by name and VIP, and the live ones by name
 * when the staged set is applied. The lists stay what they are (order,
 * RCU publication); an index only spares a walk of the whole list per
 * object, which made a restore of 10000 services quadratic.
 */
#ifndef _KLB_CONFIG_INDEX_H
#define _KLB_CONFIG_INDEX_H

#include "klb.h"

/*
 * Open addressing over object pointers, grown as it fills; objects are
 * only added (an index lives as long as one restore or one staging).
 */
struct klb_index {
	void **slot;
	u32 mask;		/* slots - 1; no slots yet: 0 and slot NULL */
	u32 n;
	u32 (*hash)(const void *obj);
};

void klb_index_init(struct klb_index *ix, u32 (*hash)(const void *obj));
/* Add @obj; -ENOMEM if the index cannot grow (it is left as it was). */
int klb_index_add(struct klb_index *ix, void *obj);
void klb_index_free(struct klb_index *ix);

/*
 * The indexes of a set of pools and services being staged (by pool name,
 * service name, service VIP), or of the live set being replaced (names).
 */
struct klb_set_index {
	struct klb_index pools;
	struct klb_index services;
	struct klb_index vips;
};

void klb_set_index_init(struct klb_set_index *six);
void klb_set_index_free(struct klb_set_index *six);

/* The hash functions of klb_index_init(). */
u32 klb_index_pool_name(const void *pool);
u32 klb_index_service_name(const void *svc);
u32 klb_index_service_vip(const void *svc);

struct klb_pool *klb_index_pool(const struct klb_index *ix, const char *name);
struct klb_service *klb_index_service(const struct klb_index *ix,
				      const char *name);
/* The service of this VIP (family, address, port, protocol), or NULL. */
struct klb_service *klb_index_vip(const struct klb_index *ix, u16 family,
				  const union nf_inet_addr *addr, __be16 port,
				  u8 proto);

#endif /* _KLB_CONFIG_INDEX_H */
