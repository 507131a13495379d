// SPDX-License-Identifier: GPL-2.0
/*
 * Services: a virtual address, port and protocol steering to a pool.
 *
 * The datapath finds a service by VIP in kn->svc_hash under RCU. Removing a
 * service unhashes it, waits for a grace period so that no packet can still
 * be creating a connection to it, then flushes its connections.
 *
 * An http or tls service also has a listener of the L7 engine (l7/), opened
 * by klb_service_start() before the service is hashed and closed by
 * klb_service_stop() before it is unhashed. svc->stopping doubles as "not
 * started": it is set until the listener opens and again once it closes,
 * so stopping a list of services stops exactly those that were started.
 */
#include <linux/jhash.h>
#include <linux/hash.h>
#include <linux/slab.h>
#include <net/ipv6.h>

#include "config.h"

static u32 klb_svc_seed __read_mostly;

static u32 klb_svc_hashfn(u16 family, u8 proto,
			  const union nf_inet_addr *addr, __be16 port)
{
	u32 h;

	net_get_random_once(&klb_svc_seed, sizeof(klb_svc_seed));
	if (family == AF_INET)
		h = (__force u32)addr->ip;
	else
		h = jhash2((const u32 *)addr->ip6, 4, klb_svc_seed);
	h = jhash_3words(h, (__force u32)port, proto, klb_svc_seed);
	return hash_32(h, KLB_SVC_HASH_BITS);
}

static bool klb_addr_equal(u16 family, const union nf_inet_addr *a,
			   const union nf_inet_addr *b)
{
	if (family == AF_INET)
		return a->ip == b->ip;
	return ipv6_addr_equal(&a->in6, &b->in6);
}

struct klb_service *klb_service_lookup_rcu(struct klb_net *kn, u16 family,
					   u8 proto,
					   const union nf_inet_addr *addr,
					   __be16 port)
{
	u32 h = klb_svc_hashfn(family, proto, addr, port);
	struct klb_service *svc;

	hlist_for_each_entry_rcu(svc, &kn->svc_hash[h], vip_node)
		if (svc->port == port && svc->proto == proto &&
		    svc->family == family &&
		    klb_addr_equal(family, &svc->addr, addr))
			return svc;
	return NULL;
}

struct klb_service *klb_service_find(struct list_head *services,
				     const char *name)
{
	struct klb_service *svc;

	list_for_each_entry(svc, services, node)
		if (!strcmp(svc->name, name))
			return svc;
	return NULL;
}

static struct klb_service *
klb_service_find_vip(struct list_head *services,
		     const struct klb_service_cfg *cfg)
{
	struct klb_service *svc;

	list_for_each_entry(svc, services, node)
		if (svc->port == cfg->port && svc->proto == cfg->proto &&
		    svc->family == cfg->family &&
		    klb_addr_equal(cfg->family, &svc->addr, &cfg->addr))
			return svc;
	return NULL;
}

static void klb_service_free_rcu(struct rcu_head *rcu)
{
	struct klb_service *svc = container_of(rcu, struct klb_service, rcu);

	klb_stats_free(svc->stats);
	kfree(svc);
	klb_obj_dec(KLB_OBJ_SERVICE);
}

/* Connections hold references: the last one may go in softirq. */
void klb_service_release(struct kref *ref)
{
	struct klb_service *svc = container_of(ref, struct klb_service, ref);

	call_rcu(&svc->rcu, klb_service_free_rcu);
}

static int klb_service_check_pool(struct klb_pool *pool, u16 family, u8 mode,
				  const struct nlattr *attr,
				  struct netlink_ext_ack *extack)
{
	if (mode == KLB_MODE_NAT && klb_pool_family_mismatch(pool, family)) {
		klb_err(extack, attr,
			"pool %s has backends of another address family",
			pool->name);
		return -EINVAL;
	}
	return 0;
}

/*
 * Check @cfg against the set it joins (@pools, @services: live or staged)
 * and allocate the service, unlinked; it counts as a user of its pool.
 */
struct klb_service *klb_service_create(struct klb_net *kn,
				       struct list_head *pools,
				       struct list_head *services,
				       const struct klb_service_cfg *cfg,
				       struct netlink_ext_ack *extack)
{
	struct klb_service *svc;
	struct klb_pool *pool;
	int err;

	lockdep_assert_held(&kn->lock);

	if (klb_service_find(services, cfg->name)) {
		klb_err(extack, NULL, "service %s already exists", cfg->name);
		return ERR_PTR(-EEXIST);
	}
	svc = klb_service_find_vip(services, cfg);
	if (svc) {
		klb_err(extack, NULL,
			"address, port and protocol already used by service %s",
			svc->name);
		return ERR_PTR(-EEXIST);
	}
	pool = klb_pool_find(pools, cfg->pool);
	if (!pool) {
		klb_err(extack, cfg->pool_attr, "pool %s does not exist",
			cfg->pool);
		return ERR_PTR(-ENOENT);
	}
	err = klb_service_check_pool(pool, cfg->family, cfg->mode,
				     cfg->pool_attr, extack);
	if (err)
		return ERR_PTR(err);

	svc = kzalloc(sizeof(*svc), GFP_KERNEL);
	if (!svc)
		return ERR_PTR(-ENOMEM);
	svc->stats = klb_stats_alloc();
	if (!svc->stats) {
		kfree(svc);
		return ERR_PTR(-ENOMEM);
	}
	klb_obj_inc(KLB_OBJ_SERVICE);
	kref_init(&svc->ref);
	INIT_HLIST_NODE(&svc->vip_node);
	INIT_LIST_HEAD(&svc->node);
	strscpy(svc->name, cfg->name, sizeof(svc->name));
	svc->family = cfg->family;
	svc->addr = cfg->addr;
	svc->port = cfg->port;
	svc->proto = cfg->proto;
	svc->mode = cfg->mode;
	svc->proxy_protocol = cfg->proxy_protocol;
	svc->stopping = cfg->mode != KLB_MODE_NAT;	/* not started yet */
	atomic_set(&svc->active_conns, 0);
	RCU_INIT_POINTER(svc->pool, pool);
	pool->users++;

	if (cfg->rules) {
		err = klb_nl_rules_build(kn, pools, svc, cfg->rules, extack);
		if (err) {
			pool->users--;
			klb_service_put(svc);
			return ERR_PTR(err);
		}
	}
	return svc;
}

/* Undo klb_service_create(): drop the configuration's hold on @svc. */
static void klb_service_unconfigure(struct klb_net *kn,
				    struct klb_service *svc)
{
	klb_rules_clear(kn, svc);
	klb_service_pool(kn, svc)->users--;
	klb_service_put(svc);
}

/* Open the listener of an http or tls service; nothing to do for nat. */
int klb_service_start(struct klb_net *kn, struct klb_service *svc,
		      struct netlink_ext_ack *extack)
{
	int err;

	lockdep_assert_held(&kn->lock);

	if (svc->mode == KLB_MODE_NAT)
		return 0;
	/* Before the listener opens: its first session must see it running. */
	WRITE_ONCE(svc->stopping, false);
	err = klb_l7_service_start(kn, svc, extack);
	if (err) {
		WRITE_ONCE(svc->stopping, true);
		if (extack && !extack->_msg)
			klb_err(extack, NULL,
				"cannot open the listener of service %s (%d)",
				svc->name, err);
	}
	return err;
}

/*
 * Close the listener of a started http or tls service; its sessions see
 * svc->stopping, finish the exchange in progress and close.
 */
void klb_service_stop(struct klb_net *kn, struct klb_service *svc)
{
	lockdep_assert_held(&kn->lock);

	if (svc->mode == KLB_MODE_NAT || svc->stopping)
		return;
	WRITE_ONCE(svc->stopping, true);
	klb_l7_service_stop(kn, svc);
}

/* Make @svc visible to the datapath, ahead of any older twin (restore). */
void klb_service_hash(struct klb_net *kn, struct klb_service *svc)
{
	u32 h = klb_svc_hashfn(svc->family, svc->proto, &svc->addr, svc->port);

	lockdep_assert_held(&kn->lock);
	hlist_add_head_rcu(&svc->vip_node, &kn->svc_hash[h]);
}

/* Hooks are registered only while the netns has a service (as IPVS does). */
int klb_hooks_sync(struct klb_net *kn, u32 nservices)
{
	int err;

	lockdep_assert_held(&kn->lock);

	if (nservices && !kn->hooks_registered) {
		err = klb_hooks_register(kn);
		if (err)
			return err;
		kn->hooks_registered = true;
	} else if (!nservices && kn->hooks_registered) {
		klb_hooks_unregister(kn);
		kn->hooks_registered = false;
	}
	return 0;
}

/*
 * Remove the services on @services (unlinked from kn->services by the
 * caller) and drop the configuration's reference on each. @live: packets
 * may still be flowing, so wait for them and flush the connections; when
 * the netns is dismantled the hooks and the connections are already gone.
 * Started http and tls services are stopped either way (the engine of a
 * dismantled netns is already gone, and stopping is then harmless).
 */
void klb_services_destroy(struct klb_net *kn, struct list_head *services,
			  bool live)
{
	struct klb_service *svc, *tmp;

	lockdep_assert_held(&kn->lock);

	/* Listeners close first, while their VIP still steers to them. */
	list_for_each_entry(svc, services, node) {
		klb_service_stop(kn, svc);
		hlist_del_init_rcu(&svc->vip_node);
	}
	if (live && !list_empty(services))
		synchronize_rcu();

	list_for_each_entry_safe(svc, tmp, services, node) {
		list_del(&svc->node);
		if (live)
			klb_conn_flush_service(kn, svc);
		klb_service_unconfigure(kn, svc);
	}
}

int klb_service_add(struct klb_net *kn, const struct klb_service_cfg *cfg,
		    struct netlink_ext_ack *extack)
{
	struct klb_service *svc;
	int err;

	svc = klb_service_create(kn, &kn->pools, &kn->services, cfg, extack);
	if (IS_ERR(svc))
		return PTR_ERR(svc);

	err = klb_service_start(kn, svc, extack);
	if (err)
		goto err_svc;
	err = klb_hooks_sync(kn, kn->nservices + 1);
	if (err) {
		klb_err(extack, NULL, "cannot register netfilter hooks");
		klb_service_stop(kn, svc);
		goto err_svc;
	}
	klb_service_hash(kn, svc);
	list_add_tail(&svc->node, &kn->services);
	kn->nservices++;
	return 0;

err_svc:
	klb_service_unconfigure(kn, svc);
	return err;
}

int klb_service_set_pool(struct klb_net *kn, struct klb_service *svc,
			 const char *name, const struct nlattr *pool_attr,
			 struct netlink_ext_ack *extack)
{
	struct klb_pool *pool, *old;
	int err;

	lockdep_assert_held(&kn->lock);

	pool = klb_pool_find(&kn->pools, name);
	if (!pool) {
		klb_err(extack, pool_attr, "pool %s does not exist", name);
		return -ENOENT;
	}
	old = klb_service_pool(kn, svc);
	if (pool == old)
		return 0;
	err = klb_service_check_pool(pool, svc->family, svc->mode, pool_attr,
				     extack);
	if (err)
		return err;

	/* Existing connections keep their backend; new ones use @pool. */
	rcu_assign_pointer(svc->pool, pool);
	old->users--;
	pool->users++;
	return 0;
}

int klb_service_del(struct klb_net *kn, struct klb_service *svc)
{
	LIST_HEAD(victim);

	lockdep_assert_held(&kn->lock);

	list_move(&svc->node, &victim);
	kn->nservices--;
	klb_services_destroy(kn, &victim, true);
	/* Unregistering cannot fail. */
	return klb_hooks_sync(kn, kn->nservices);
}
