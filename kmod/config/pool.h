/* SPDX-License-Identifier: GPL-2.0 */
/* Pools and their backends (pool.c). Everything under kn->lock. */
#ifndef _KLB_CONFIG_POOL_H
#define _KLB_CONFIG_POOL_H

#include "config/config.h"

/* A backend as requested; has_* tell which optional fields were given. */
struct klb_backend_cfg {
	union nf_inet_addr addr;
	__be16 port;
	u16 family;
	u32 weight;
	u8 state;
	u32 maxconn;
	bool has_weight;
	bool has_state;
	bool has_maxconn;
	const struct nlattr *attr;	/* for error reports, may be NULL */
};

/* The pool named @name on @pools (live or staged), or NULL. */
struct klb_pool *klb_pool_find(struct list_head *pools, const char *name);
/*
 * A new, empty, unlinked pool (with an empty table), or ERR_PTR (with a
 * message if the namespace has net.klb.pools_max pools).
 */
struct klb_pool *klb_pool_create(struct klb_net *kn, const char *name,
				 u8 sched, struct netlink_ext_ack *extack);
/* Link a pool built by klb_pool_create() into the live configuration. */
void klb_pool_add(struct klb_net *kn, struct klb_pool *pool);
/* What a POOL_SET changes: each part only if given. */
struct klb_pool_change {
	bool has_sched, has_hash, has_all_unhealthy, has_check;
	u8 sched;			/* enum klb_sched */
	u8 hash;			/* enum klb_hash: what sh and mh hash */
	u8 all_unhealthy;		/* enum klb_all_unhealthy */
	const struct klb_check_cfg *check;	/* has_check: NULL is none */
	const struct klb_passive_cfg *passive;	/* NULL: unchanged */
};

/*
 * pool_set.c: make @chg on @pool, all of it or nothing (-ENOMEM, with a
 * message): the configuration, the backends' health and the table stay
 * as they were.
 */
int klb_pool_set(struct klb_net *kn, struct klb_pool *pool,
		 const struct klb_pool_change *chg,
		 struct netlink_ext_ack *extack);
/* Unlink and free @pool, refused (-EBUSY, with a message) while in use. */
int klb_pool_del(struct klb_net *kn, struct klb_pool *pool,
		 struct netlink_ext_ack *extack);
/* Free an unlinked pool nobody uses; @live: the netns is running. */
void klb_pool_destroy(struct klb_net *kn, struct klb_pool *pool, bool live);
/*
 * The same in steps, for many pools at once (pool.c): unpublish each,
 * then one grace period and one pass over the connections if any
 * unpublish returned true, then release each.
 */
bool klb_pool_unpublish(struct klb_net *kn, struct klb_pool *pool,
			bool expire);
void klb_pool_release(struct klb_net *kn, struct klb_pool *pool, bool live);

/* Check and add a backend without publishing (klb_sched_publish does). */
int klb_backend_append(struct klb_net *kn, struct klb_pool *pool,
		       const struct klb_backend_cfg *cfg,
		       struct netlink_ext_ack *extack);
/* The single-backend commands: each publishes a new table, or changes nothing. */
int klb_backend_add(struct klb_net *kn, struct klb_pool *pool,
		    const struct klb_backend_cfg *cfg,
		    struct netlink_ext_ack *extack);
int klb_backend_set(struct klb_net *kn, struct klb_pool *pool,
		    const struct klb_backend_cfg *cfg,
		    struct netlink_ext_ack *extack);
int klb_backend_del(struct klb_net *kn, struct klb_pool *pool,
		    const struct klb_backend_cfg *cfg,
		    struct netlink_ext_ack *extack);
/* The backend of @pool at @cfg's address and port, or NULL. */
struct klb_backend *klb_backend_find(struct klb_pool *pool,
				     const struct klb_backend_cfg *cfg);
/* A backend of @pool whose family is not @family, if any. */
struct klb_backend *klb_pool_family_mismatch(struct klb_pool *pool,
					     u16 family);
/* "addr:port" or "[addr6]:port", for messages. */
const char *klb_addr_fmt(char *buf, size_t len, u16 family,
			 const union nf_inet_addr *addr, __be16 port);

#endif /* _KLB_CONFIG_POOL_H */
