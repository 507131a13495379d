/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The whole configuration at once (restore.c): flush, a staged
 * configuration swapped in as a whole (restore), and netns teardown.
 */
#ifndef _KLB_CONFIG_RESTORE_H
#define _KLB_CONFIG_RESTORE_H

#include "config/config.h"
#include "config/index.h"

/*
 * A configuration built off to the side. Its pools and services are made
 * with the single-object code (klb_pool_create(), klb_service_create())
 * against these lists instead of the live ones.
 */
struct klb_staged {
	struct list_head pools;
	struct list_head services;
	struct klb_set_index ix;	/* of the staged pools and services */
	struct klb_set_index live;	/* commit: the live ones, by name */
};

void klb_staged_init(struct klb_staged *st);
/*
 * Index @pool (@svc), just added to @st's list: the lookups of the
 * objects staged after it find it there. -ENOMEM: refuse the restore.
 */
int klb_staged_index_pool(struct klb_staged *st, struct klb_pool *pool);
int klb_staged_index_service(struct klb_staged *st, struct klb_service *svc);
/*
 * Open the staged listeners and replace the live configuration with the
 * staged one. On failure nothing live changed and the staged objects are
 * gone (as after klb_staged_abort()).
 */
int klb_staged_commit(struct klb_net *kn, struct klb_staged *st,
		      struct netlink_ext_ack *extack);
/* Free everything staged (a refused restore). */
void klb_staged_abort(struct klb_net *kn, struct klb_staged *st);

/*
 * apply.c: the live service that the staged @staged keeps in place (same
 * name and identity), or NULL: @staged is new.
 */
struct klb_service *klb_staged_keeps(struct klb_net *kn,
				     const struct klb_staged *st,
				     struct klb_service *staged);
/*
 * apply.c: make the live configuration the staged one, keeping what both
 * have (restore.c checked all of it and opened the new listeners first).
 * Cannot fail; empties @st.
 */
void klb_staged_apply(struct klb_net *kn, struct klb_staged *st);

/* Remove every service and pool (FLUSH). */
void klb_config_flush(struct klb_net *kn);
/* The netns is going away: its hooks and connections are already gone. */
void klb_config_net_exit(struct klb_net *kn);

#endif /* _KLB_CONFIG_RESTORE_H */
