// SPDX-License-Identifier: GPL-2.0
/*
 * Hash indexes of pools and services for a restore (index.h): linear
 * probing over a power-of-two array of object pointers, at most half
 * full, grown by doubling. Lookups compare the objects themselves, so an
 * index never holds a copy of a name.
 */
#include <linux/jhash.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "config/index.h"
#include "flow.h"

void klb_index_init(struct klb_index *ix, u32 (*hash)(const void *obj))
{
	ix->slot = NULL;
	ix->mask = 0;
	ix->n = 0;
	ix->hash = hash;
}

static void klb_index_put(void **slot, u32 mask, u32 hash, void *obj)
{
	u32 i = hash & mask;

	while (slot[i])
		i = (i + 1) & mask;
	slot[i] = obj;
}

static int klb_index_grow(struct klb_index *ix)
{
	u32 size = ix->slot ? 2 * (ix->mask + 1) : 64;
	void **slot;
	u32 i;

	/* Charged like the objects it indexes. */
	slot = kvcalloc(size, sizeof(*slot), GFP_KERNEL_ACCOUNT);
	if (!slot)
		return -ENOMEM;
	for (i = 0; ix->slot && i <= ix->mask; i++)
		if (ix->slot[i])
			klb_index_put(slot, size - 1, ix->hash(ix->slot[i]),
				      ix->slot[i]);
	kvfree(ix->slot);
	ix->slot = slot;
	ix->mask = size - 1;
	return 0;
}

int klb_index_add(struct klb_index *ix, void *obj)
{
	int err;

	if (!ix->slot || 2 * (ix->n + 1) > ix->mask + 1) {
		err = klb_index_grow(ix);
		if (err)
			return err;
	}
	klb_index_put(ix->slot, ix->mask, ix->hash(obj), obj);
	ix->n++;
	return 0;
}

void klb_index_free(struct klb_index *ix)
{
	kvfree(ix->slot);
	klb_index_init(ix, ix->hash);
}

void klb_set_index_init(struct klb_set_index *six)
{
	klb_index_init(&six->pools, klb_index_pool_name);
	klb_index_init(&six->services, klb_index_service_name);
	klb_index_init(&six->vips, klb_index_service_vip);
}

void klb_set_index_free(struct klb_set_index *six)
{
	klb_index_free(&six->pools);
	klb_index_free(&six->services);
	klb_index_free(&six->vips);
}

static u32 klb_index_name(const char *name)
{
	return jhash(name, strlen(name), 0);
}

u32 klb_index_pool_name(const void *pool)
{
	return klb_index_name(((const struct klb_pool *)pool)->name);
}

u32 klb_index_service_name(const void *svc)
{
	return klb_index_name(((const struct klb_service *)svc)->name);
}

static u32 klb_index_vip_key(u16 family, const union nf_inet_addr *addr,
			     __be16 port, u8 proto)
{
	u32 h = jhash_3words((__force u32)port, proto, family, 0);

	if (family == AF_INET)
		return jhash_1word((__force u32)addr->ip, h);
	return jhash(&addr->in6, sizeof(addr->in6), h);
}

u32 klb_index_service_vip(const void *obj)
{
	const struct klb_service *svc = obj;

	return klb_index_vip_key(svc->family, &svc->addr, svc->port,
				 svc->proto);
}

struct klb_pool *klb_index_pool(const struct klb_index *ix, const char *name)
{
	struct klb_pool *pool;
	u32 i;

	if (!ix->slot)
		return NULL;
	for (i = klb_index_name(name) & ix->mask; (pool = ix->slot[i]);
	     i = (i + 1) & ix->mask)
		if (!strcmp(pool->name, name))
			return pool;
	return NULL;
}

struct klb_service *klb_index_service(const struct klb_index *ix,
				      const char *name)
{
	struct klb_service *svc;
	u32 i;

	if (!ix->slot)
		return NULL;
	for (i = klb_index_name(name) & ix->mask; (svc = ix->slot[i]);
	     i = (i + 1) & ix->mask)
		if (!strcmp(svc->name, name))
			return svc;
	return NULL;
}

struct klb_service *klb_index_vip(const struct klb_index *ix, u16 family,
				  const union nf_inet_addr *addr, __be16 port,
				  u8 proto)
{
	struct klb_service *svc;
	u32 i;

	if (!ix->slot)
		return NULL;
	for (i = klb_index_vip_key(family, addr, port, proto) & ix->mask;
	     (svc = ix->slot[i]); i = (i + 1) & ix->mask)
		if (svc->family == family && svc->port == port &&
		    svc->proto == proto && klb_addr_equal(family, &svc->addr, addr))
			return svc;
	return NULL;
}
