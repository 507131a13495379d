/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The config layer (pool.c, service.c, restore.c): pools, backends and
 * services of one network namespace, changed under klb_net->lock only.
 *
 * Objects are built and checked before they become visible, against a set
 * of lists: the live ones in struct klb_net for single commands, or a staged
 * set for KLB_CMD_RESTORE, which is swapped in only once all of it is valid.
 * Both paths run the very same checks, so they refuse the same inputs with
 * the same messages.
 */
#ifndef _KLB_CONFIG_H
#define _KLB_CONFIG_H

#include <linux/netlink.h>

#include "klb.h"

/* A backend as requested; has_* tell which optional fields were given. */
struct klb_backend_cfg {
	union nf_inet_addr addr;
	__be16 port;
	u16 family;
	u32 weight;
	u8 state;
	bool has_weight;
	bool has_state;
	const struct nlattr *attr;	/* for error reports, may be NULL */
};

struct klb_service_cfg {
	const char *name;
	union nf_inet_addr addr;
	__be16 port;
	u16 family;
	u8 proto;
	u8 mode;
	u8 proxy_protocol;		/* 0 or 2, checked against mode */
	const char *pool;
	const struct nlattr *pool_attr;	/* for error reports, may be NULL */
	const struct nlattr *rules;	/* KLB_SERVICE_A_RULES, or NULL */
};

/* netlink.c: extack message with printf formatting (6.1 has none) */
__printf(3, 4)
void klb_err(struct netlink_ext_ack *extack, const struct nlattr *attr,
	     const char *fmt, ...);
/* Prefix the message already set (if any) with the object at fault. */
__printf(2, 3)
void klb_err_prefix(struct netlink_ext_ack *extack, const char *fmt, ...);

/*
 * Bump the configuration generation after a change: dumps report it as
 * their sequence number, so that a change between two parts of a dump
 * flags it NLM_F_DUMP_INTR. Zero means "no sequence" to netlink: skip it.
 */
static inline void klb_config_changed(struct klb_net *kn)
{
	lockdep_assert_held(&kn->lock);
	if (!++kn->gen)
		kn->gen = 1;
}

/* The pool of @svc, for the writer side (kn->lock held). */
static inline struct klb_pool *klb_service_pool(struct klb_net *kn,
						struct klb_service *svc)
{
	return rcu_dereference_protected(svc->pool,
					 lockdep_is_held(&kn->lock));
}

/* The rules of @svc, for the writer side (kn->lock held); NULL if none. */
static inline struct klb_rule_set *klb_service_rules(struct klb_net *kn,
						     struct klb_service *svc)
{
	return rcu_dereference_protected(svc->rules,
					 lockdep_is_held(&kn->lock));
}

/* pool.c */
struct klb_pool *klb_pool_find(struct list_head *pools, const char *name);
struct klb_pool *klb_pool_create(struct klb_net *kn, const char *name,
				 u8 sched);
int klb_pool_publish(struct klb_net *kn, struct klb_pool *pool);
int klb_pool_set_sched(struct klb_net *kn, struct klb_pool *pool, u8 sched);
int klb_pool_del(struct klb_net *kn, struct klb_pool *pool,
		 struct netlink_ext_ack *extack);
void klb_pool_destroy(struct klb_net *kn, struct klb_pool *pool, bool live);
int klb_backend_append(struct klb_net *kn, struct klb_pool *pool,
		       const struct klb_backend_cfg *cfg,
		       struct netlink_ext_ack *extack);
int klb_backend_add(struct klb_net *kn, struct klb_pool *pool,
		    const struct klb_backend_cfg *cfg,
		    struct netlink_ext_ack *extack);
int klb_backend_set(struct klb_net *kn, struct klb_pool *pool,
		    const struct klb_backend_cfg *cfg,
		    struct netlink_ext_ack *extack);
int klb_backend_del(struct klb_net *kn, struct klb_pool *pool,
		    const struct klb_backend_cfg *cfg,
		    struct netlink_ext_ack *extack);
struct klb_backend *klb_pool_family_mismatch(struct klb_pool *pool,
					     u16 family);
const char *klb_addr_fmt(char *buf, size_t len, u16 family,
			 const union nf_inet_addr *addr, __be16 port);

/* service.c */
struct klb_service *klb_service_find(struct list_head *services,
				     const char *name);
struct klb_service *klb_service_create(struct klb_net *kn,
				       struct list_head *pools,
				       struct list_head *services,
				       const struct klb_service_cfg *cfg,
				       struct netlink_ext_ack *extack);
void klb_service_hash(struct klb_net *kn, struct klb_service *svc);
int klb_service_start(struct klb_net *kn, struct klb_service *svc,
		      struct netlink_ext_ack *extack);
void klb_service_stop(struct klb_net *kn, struct klb_service *svc);
int klb_service_add(struct klb_net *kn, const struct klb_service_cfg *cfg,
		    struct netlink_ext_ack *extack);
int klb_service_set_pool(struct klb_net *kn, struct klb_service *svc,
			 const char *pool, const struct nlattr *pool_attr,
			 struct netlink_ext_ack *extack);
int klb_service_del(struct klb_net *kn, struct klb_service *svc);
void klb_services_destroy(struct klb_net *kn, struct list_head *services,
			  bool live);
int klb_hooks_sync(struct klb_net *kn, u32 nservices);

/* rule.c: rule sets are replaced whole, never changed in place */
struct klb_rule_set *klb_rule_set_alloc(u32 n);
void klb_rule_set_destroy(struct klb_rule_set *set);	/* never published */
void klb_rules_attach(struct klb_net *kn, struct klb_service *svc,
		      struct klb_rule_set *set);
int klb_rule_append(struct klb_net *kn, struct klb_service *svc,
		    const struct klb_rule_entry *ne);
int klb_rule_del(struct klb_net *kn, struct klb_service *svc, u32 index,
		 const struct nlattr *attr, struct netlink_ext_ack *extack);
void klb_rules_clear(struct klb_net *kn, struct klb_service *svc);

/*
 * netlink.c: the rules of a service being created (KLB_SERVICE_A_RULES),
 * their pools looked up in @pools (live or staged); attached to @svc.
 */
int klb_nl_rules_build(struct klb_net *kn, struct list_head *pools,
		       struct klb_service *svc, const struct nlattr *nest,
		       struct netlink_ext_ack *extack);

/* restore.c */
void klb_config_net_exit(struct klb_net *kn);

#endif /* _KLB_CONFIG_H */
