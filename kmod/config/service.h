/* SPDX-License-Identifier: GPL-2.0 */
/* Services (service.c). Everything under kn->lock. */
#ifndef _KLB_CONFIG_SERVICE_H
#define _KLB_CONFIG_SERVICE_H

#include "config/config.h"

struct klb_service_cfg {
	const char *name;
	union nf_inet_addr addr;
	__be16 port;
	u16 family;
	u8 proto;
	u8 mode;
	u8 proxy_protocol;		/* 0 or 2, checked against mode */
	u8 nsnat;			/* fnat source addresses in snat[] */
	u8 persist_mask;		/* client prefix length */
	u32 persist_timeout;		/* seconds, 0: no persistence */
	bool adopt;			/* dr, tun tcp: adopt mid-flow */
	union nf_inet_addr snat[KLB_SNAT_MAX];
	const char *cookie;		/* http: cookie name, NULL none */
	const char *pool;
	const struct nlattr *pool_attr;	/* for error reports, may be NULL */
	/*
	 * The rules of an http or tls service being created (NULL: none),
	 * checked and with their pools on the same lists as the service's.
	 * klb_service_create() (and so klb_service_add()) takes it over,
	 * whether it succeeds or not.
	 */
	struct klb_rule_set *rules;
	/* Source lists (NULL: none); klb_service_create() takes it over. */
	struct klb_acl *acl;
};

/* The service named @name on @services (live or staged), or NULL. */
struct klb_service *klb_service_find(struct list_head *services,
				     const char *name);
/*
 * Check @cfg against the set it joins (@pools, @services: live or staged;
 * @six: that set's indexes, looked up instead of walking the lists, or
 * NULL) and allocate the service, unlinked; it counts as a user of its
 * pool. Takes @cfg->rules over, success or not.
 */
struct klb_set_index;
struct klb_service *klb_service_create(struct klb_net *kn,
				       struct list_head *pools,
				       struct list_head *services,
				       const struct klb_set_index *six,
				       const struct klb_service_cfg *cfg,
				       struct netlink_ext_ack *extack);
/* Open the listener of an http or tls service (nothing to do for nat). */
int klb_service_start(struct klb_net *kn, struct klb_service *svc,
		      struct netlink_ext_ack *extack);
void klb_service_stop(struct klb_net *kn, struct klb_service *svc);
/* SERVICE_NEW: create, start, hash, link. */
int klb_service_add(struct klb_net *kn, const struct klb_service_cfg *cfg,
		    struct netlink_ext_ack *extack);
int klb_service_set_pool(struct klb_net *kn, struct klb_service *svc,
			 const char *pool, const struct nlattr *pool_attr,
			 struct netlink_ext_ack *extack);
/* Persistence of new connections; existing entries keep their backend. */
void klb_service_set_persist(struct klb_net *kn, struct klb_service *svc,
			     u32 timeout, u8 mask);
/* Adopting mid-flow packets (dr, tun tcp), from the next packet on. */
void klb_service_set_adopt(struct klb_net *kn, struct klb_service *svc,
			   bool adopt);
/* Replace the source lists (@acl may be NULL: none); the old freed. */
void klb_service_set_acl(struct klb_net *kn, struct klb_service *svc,
			 struct klb_acl *acl);
/* Read by each new session of an http service: one store. */
void klb_service_set_proxy_protocol(struct klb_net *kn,
				    struct klb_service *svc, u8 version);
int klb_service_del(struct klb_net *kn, struct klb_service *svc);
/*
 * Remove the services on @services (unlinked by the caller) and drop the
 * configuration's reference on each; @live: packets may still be flowing.
 */
void klb_services_destroy(struct klb_net *kn, struct list_head *services,
			  bool live);
/*
 * The same in steps, as klb_pool_unpublish() and klb_pool_release(), so
 * that a flush or restore waits one grace period and removes the
 * connections of every service and backend in one pass: unpublish returns
 * true if it marked a service dying.
 */
bool klb_services_unpublish(struct klb_net *kn, struct list_head *services);
void klb_services_release(struct klb_net *kn, struct list_head *services);
/* Hooks are registered while the netns has a service (as IPVS does). */
int klb_hooks_sync(struct klb_net *kn, u32 nservices);

#endif /* _KLB_CONFIG_SERVICE_H */
