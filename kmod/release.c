// SPDX-License-Identifier: GPL-2.0
/*
 * The release of klb's two refcounted objects, backends and services.
 * They are referenced from every layer (scheduler tables, connections, L7
 * sessions), so the last put may come from any of them, in any context;
 * the release lives here, below them all, and frees after a grace period.
 */
#include <linux/slab.h>

#include "klb.h"
#include "acl.h"

static void klb_backend_free_rcu(struct rcu_head *rcu)
{
	struct klb_backend *be = container_of(rcu, struct klb_backend, rcu);

	/* A grace period has passed: no reader holds the backend. */
	dst_release(rcu_dereference_protected(be->dr_dst, 1));
	klb_stats_free(be->stats);
	kfree(be);
	klb_obj_dec(KLB_OBJ_BACKEND);
}

/*
 * The last reference may be dropped by a table or a connection freed after
 * a grace period; a reader that got the backend without a reference is
 * still given one more before the counters go away.
 */
void klb_backend_release(struct kref *ref)
{
	struct klb_backend *be = container_of(ref, struct klb_backend, ref);

	call_rcu(&be->rcu, klb_backend_free_rcu);
}

static void klb_service_free_rcu(struct rcu_head *rcu)
{
	struct klb_service *svc = container_of(rcu, struct klb_service, rcu);

	if (svc->l7_next)
		klb_service_put(svc->l7_next);
	/* A grace period has passed: no reader sees the service's ACL. */
	klb_acl_destroy(rcu_dereference_protected(svc->acl, 1));
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
