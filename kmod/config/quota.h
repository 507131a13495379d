/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Caps on the objects of one network namespace: pools, backends and
 * services allocated for it, configured or staged by a restore (so a
 * restore needs room for the old configuration and the new one while it
 * stages). The caps are net.klb.{pools,backends,services}_max, which only
 * the initial user namespace may change: what bounds a user namespace
 * allowed to configure klb (Documentation/security.md). Rules are bounded
 * per service (KLB_RULES_MAX). Everything under kn->lock.
 */
#ifndef _KLB_CONFIG_QUOTA_H
#define _KLB_CONFIG_QUOTA_H

#include "config/config.h"

/*
 * Take one from @count unless it reached @max; else refuse with a message
 * that names the cap.
 */
static inline int klb_quota_take(struct klb_net *kn, u32 *count, int max,
				 const char *what, const char *sysctl,
				 struct netlink_ext_ack *extack)
{
	klb_assert_locked(kn);
	if (*count >= (u32)max) {
		klb_err(extack, NULL,
			"too many %s in this network namespace (net.klb.%s = %d)",
			what, sysctl, max);
		return -ENOSPC;
	}
	(*count)++;
	return 0;
}

static inline int klb_quota_take_pool(struct klb_net *kn,
				      struct netlink_ext_ack *extack)
{
	return klb_quota_take(kn, &kn->alloc.pools, READ_ONCE(kn->sysctl.pools_max),
			      "pools", "pools_max", extack);
}

static inline int klb_quota_take_backend(struct klb_net *kn,
					 struct netlink_ext_ack *extack)
{
	return klb_quota_take(kn, &kn->alloc.backends, READ_ONCE(kn->sysctl.backends_max),
			      "backends", "backends_max", extack);
}

static inline int klb_quota_take_service(struct klb_net *kn,
					 struct netlink_ext_ack *extack)
{
	return klb_quota_take(kn, &kn->alloc.services, READ_ONCE(kn->sysctl.services_max),
			      "services", "services_max", extack);
}

/* Give back what klb_quota_take_*() took: the object is gone. */
static inline void klb_quota_give(struct klb_net *kn, u32 *count)
{
	klb_assert_locked(kn);
	if (!WARN_ON_ONCE(!*count))
		(*count)--;
}

#endif /* _KLB_CONFIG_QUOTA_H */
