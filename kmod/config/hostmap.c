// SPDX-License-Identifier: GPL-2.0
/*
 * Host maps of http and tls services: exact names -> pools, looked up by
 * the engine after the rules (l7/route.c). The table is pure code
 * (l7/parse/hostmap.c); this file keeps each service's map and its pools.
 *
 * A map is one block that the engine reads under RCU. Every change builds
 * a new block under kn->lock, publishes it with rcu_replace_pointer() and
 * frees the old one after a grace period, as a rule set: a request sees
 * the whole old map or the whole new one, and a bulk load (a whole map in
 * one request, netlink/cmd_hostmap.c) is one store. A single add or del
 * copies the map: O(names), a few milliseconds at 100,000 names, which is
 * what keeps the lookup free of locks and of per-entry frees.
 *
 * Each name counts as a user of its pool (pool->users), like a rule, so a
 * pool cannot be deleted while a name routes to it. The count moves with
 * the entry: copying keeps it, adding, deleting and replacing change it.
 */
#include <linux/random.h>
#include <linux/slab.h>

#include "config/hostmap.h"

/* With @src's key (a copy), else a new random one. */
static struct klb_hostmap *klb_hostmap_new(u32 cap, u32 names_cap,
					   const struct klb_hm *src)
{
	struct klb_hostmap *map;
	u64 key[2];

	if (WARN_ON_ONCE(cap > KLB_HOSTMAP_MAX))
		return NULL;
	/* Charged to the caller's memory cgroup, as the rest of the config. */
	map = kvzalloc(sizeof(*map) + klb_hm_mem_size(cap, names_cap),
		       GFP_KERNEL_ACCOUNT);
	if (!map)
		return NULL;
	/* A key per map: nobody outside can aim names at one chain. */
	if (src) {
		key[0] = src->k0;
		key[1] = src->k1;
	} else {
		get_random_bytes(key, sizeof(key));
	}
	klb_hm_init(&map->hm, map + 1, cap, names_cap, key[0], key[1]);
	klb_obj_inc(KLB_OBJ_HOSTMAP);
	return map;
}

struct klb_hostmap *klb_hostmap_alloc(u32 cap, u32 names_cap)
{
	return klb_hostmap_new(cap, names_cap, NULL);
}

void klb_hostmap_destroy(struct klb_hostmap *map)
{
	if (!map)
		return;
	kvfree(map);
	klb_obj_dec(KLB_OBJ_HOSTMAP);
}

/* RCU callbacks may run in softirq: kvfree() defers a vfree() from there. */
static void klb_hostmap_free_rcu(struct rcu_head *rcu)
{
	klb_hostmap_destroy(container_of(rcu, struct klb_hostmap, rcu));
}

static void klb_hostmap_users(struct klb_hostmap *map, int delta)
{
	u32 i;

	for (i = 0; map && i < map->hm.n; i++)
		klb_hostmap_pool(map, i)->users += delta;
}

/* Publish @map (NULL: none) for @svc; the old one goes after a grace period. */
static void klb_hostmap_publish(struct klb_net *kn, struct klb_service *svc,
				struct klb_hostmap *map)
{
	struct klb_hostmap *old;

	/* An empty map is none: the engine then skips the lookup. */
	if (map && !map->hm.n) {
		klb_hostmap_destroy(map);
		map = NULL;
	}
	old = rcu_replace_pointer(svc->hostmap, map,
				  lockdep_is_held(&kn->lock));
	if (old)
		call_rcu(&old->rcu, klb_hostmap_free_rcu);
}

void klb_hostmap_replace(struct klb_net *kn, struct klb_service *svc,
			 struct klb_hostmap *map)
{
	klb_assert_locked(kn);

	klb_hostmap_users(map, 1);
	/*
	 * A request routed by the old map may still use its pools until the
	 * grace period ends; a pool is only ever freed after one as well.
	 */
	klb_hostmap_users(klb_service_hostmap(kn, svc), -1);
	klb_hostmap_publish(kn, svc, map);
}

/*
 * A copy of @old (NULL: none) with room for @more names of @more_names
 * bytes, without entry @skip (U32_MAX: none). Pools' users unchanged.
 * Same key, so the names are not hashed again: a copy of 100,000 names
 * is a few memcpy()s and a pass over the entries.
 */
static struct klb_hostmap *klb_hostmap_copy(const struct klb_hostmap *old,
					    u32 more, u32 more_names, u32 skip)
{
	u32 n = old ? old->hm.n : 0, names = old ? old->hm.names_len : 0;
	struct klb_hostmap *map;

	map = klb_hostmap_new(n + more, names + more_names,
			      old ? &old->hm : NULL);
	if (map && old)
		klb_hm_copy(&map->hm, &old->hm, skip);
	return map;
}

int klb_hostmap_add(struct klb_net *kn, struct klb_service *svc,
		    const char *name, u32 len, struct klb_pool *pool,
		    const struct nlattr *attr, struct netlink_ext_ack *extack)
{
	struct klb_hostmap *old = klb_service_hostmap(kn, svc), *map;
	u32 dup;

	klb_assert_locked(kn);

	if (old && klb_hm_find(&old->hm, (const u8 *)name, len) >= 0) {
		klb_err(extack, attr, "host %.*s is already in the map of %s",
			(int)len, name, svc->name);
		return -EEXIST;
	}
	if (old && old->hm.n >= KLB_HOSTMAP_MAX) {
		klb_err(extack, attr, "service %s has the maximum of %d hosts",
			svc->name, KLB_HOSTMAP_MAX);
		return -ENOSPC;
	}
	map = klb_hostmap_copy(old, 1, len, U32_MAX);
	if (!map)
		return -ENOMEM;
	if (WARN_ON_ONCE(klb_hm_add(&map->hm, name, len, pool, &dup))) {
		klb_hostmap_destroy(map);
		return -EINVAL;
	}
	pool->users++;
	klb_hostmap_publish(kn, svc, map);
	return 0;
}

int klb_hostmap_del(struct klb_net *kn, struct klb_service *svc,
		    const char *name, u32 len, const struct nlattr *attr,
		    struct netlink_ext_ack *extack)
{
	struct klb_hostmap *old = klb_service_hostmap(kn, svc), *map = NULL;
	struct klb_pool *pool;
	int i;

	klb_assert_locked(kn);

	i = old ? klb_hm_find(&old->hm, (const u8 *)name, len) : -1;
	if (i < 0) {
		klb_err(extack, attr, "host %.*s is not in the map of %s",
			(int)len, name, svc->name);
		return -ENOENT;
	}
	pool = klb_hostmap_pool(old, i);
	if (old->hm.n > 1) {
		map = klb_hostmap_copy(old, 0, 0, i);
		if (!map)
			return -ENOMEM;
	}
	klb_hostmap_publish(kn, svc, map);
	pool->users--;
	return 0;
}

bool klb_hostmap_uses(struct klb_net *kn, struct klb_service *svc,
		      const struct klb_pool *pool, struct netlink_ext_ack *extack)
{
	struct klb_hostmap *map = klb_service_hostmap(kn, svc);
	u32 i;

	for (i = 0; map && i < map->hm.n; i++) {
		if (klb_hostmap_pool(map, i) == pool) {
			klb_err(extack, NULL,
				"pool %s is used by host %.*s of service %s",
				pool->name, (int)map->hm.e[i].len,
				klb_hm_name(&map->hm, i), svc->name);
			return true;
		}
	}
	return false;
}

/*
 * A restore keeps @to and gives it the map of @from, its staged twin,
 * which the engine never routed by and which goes away: one store. The
 * pools of @to's old names lose a user each; @from's keep theirs.
 */
void klb_hostmap_move(struct klb_net *kn, struct klb_service *to,
		      struct klb_service *from)
{
	klb_assert_locked(kn);

	klb_hostmap_users(klb_service_hostmap(kn, to), -1);
	klb_hostmap_publish(kn, to, klb_service_hostmap(kn, from));
	RCU_INIT_POINTER(from->hostmap, NULL);
}
