/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Restore transactions (txn.c): a configuration too large for one netlink
 * attribute (64 KiB) staged over several messages of one socket, then
 * committed as one restore.
 */
#ifndef _KLB_NETLINK_TXN_H
#define _KLB_NETLINK_TXN_H

#include <net/genetlink.h>
#include <linux/siphash.h>

#include "config/restore.h"

/* Open transactions per network namespace; BEGIN past it is -EBUSY. */
#define KLB_TXN_MAX	4

/*
 * One open transaction, on kn->txns, under kn->lock. Its staged objects
 * count against the namespace's caps as a one-message restore's do.
 */
struct klb_txn {
	struct list_head node;
	u32 portid;		/* the socket that began it: only it may use it */
	u32 id;
	struct klb_staged st;
	/*
	 * The seed the staged tables are built with: the namespace's at
	 * BEGIN, or the HASH_SEED a STAGE gave before any pool.
	 */
	siphash_key_t seed;
	bool has_seed;		/* a STAGE gave HASH_SEED */
	u32 nstaged;		/* STAGE messages taken */
	/*
	 * A STAGE was refused (its number): the staged objects are gone and
	 * only ABORT (or COMMIT, refused) ends it.
	 */
	u32 failed_at;
};

/* BEGIN: a new transaction of @portid, or an ERR_PTR (-EBUSY, -ENOMEM). */
struct klb_txn *klb_txn_begin(struct klb_net *kn, u32 portid,
			      struct netlink_ext_ack *extack);
/*
 * The transaction of the request's KLB_A_TXN: -ENOENT if there is none
 * with that id, -EPERM if another socket began it.
 */
struct klb_txn *klb_txn_find(struct klb_net *kn, struct genl_info *info);
/* Free what @txn staged, keep it as failed (a STAGE was refused). */
void klb_txn_fail(struct klb_net *kn, struct klb_txn *txn);
/* End @txn: its staged objects (if any are left) are freed. */
void klb_txn_end(struct klb_net *kn, struct klb_txn *txn);

/* The netns goes: end every transaction of it. */
void klb_txn_net_exit(struct klb_net *kn);
/* Drop the transactions of sockets that close (module init and exit). */
int klb_txn_module_init(void);
void klb_txn_module_exit(void);

#endif /* _KLB_NETLINK_TXN_H */
