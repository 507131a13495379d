// SPDX-License-Identifier: GPL-2.0
/*
 * Restore transactions: the open ones of each namespace (kn->txns, under
 * kn->lock), who owns them, and their end.
 *
 * A transaction belongs to the netlink socket that began it (its port id):
 * a STAGE, COMMIT or ABORT from another socket is refused, and the
 * transaction is dropped when its socket closes, so a klbctl killed in the
 * middle of a restore leaves nothing staged behind. The close is seen
 * through the netlink notifier (NETLINK_URELEASE), which netlink_release()
 * calls from a blocking chain in the closing task: it may sleep, so it
 * takes the config lock itself rather than deferring to a work item. The
 * namespace's exit (and so rmmod) ends whatever is left.
 *
 * A port id is free again once its socket is unhashed, a moment before
 * the notifier runs: a new socket that got the same id and began a
 * transaction in that moment would lose it too (its STAGE gets ENOENT).
 * Nothing is ever applied that its owner did not commit.
 */
#include <linux/netlink.h>
#include <linux/notifier.h>
#include <linux/slab.h>

#include "extack.h"
#include "objects.h"
#include "netlink/txn.h"

struct klb_txn *klb_txn_begin(struct klb_net *kn, u32 portid,
			      struct netlink_ext_ack *extack)
{
	struct klb_txn *txn;

	klb_assert_locked(kn);
	if (kn->ntxns >= KLB_TXN_MAX) {
		txn = list_first_entry(&kn->txns, struct klb_txn, node);
		klb_err(extack, NULL,
			"%u restore transactions are open here, the most allowed (oldest: %u, port id %u)",
			kn->ntxns, txn->id, txn->portid);
		return ERR_PTR(-EBUSY);
	}
	/* Charged to the configuring task's cgroup, as what it stages. */
	txn = kzalloc(sizeof(*txn), GFP_KERNEL_ACCOUNT);
	if (!txn)
		return ERR_PTR(-ENOMEM);
	klb_obj_inc(KLB_OBJ_TXN);
	txn->portid = portid;
	/* Ids are not reused soon: a late ABORT never ends a newer one. */
	if (!++kn->txn_last_id)
		++kn->txn_last_id;
	txn->id = kn->txn_last_id;
	txn->seed = kn->hash_seed;
	klb_staged_init(&txn->st);
	list_add_tail(&txn->node, &kn->txns);
	WRITE_ONCE(kn->ntxns, kn->ntxns + 1);
	return txn;
}

struct klb_txn *klb_txn_find(struct klb_net *kn, struct genl_info *info)
{
	struct nlattr *attr = info->attrs[KLB_A_TXN];
	struct klb_txn *txn;
	u32 id;

	klb_assert_locked(kn);
	if (!attr) {
		klb_err(info->extack, NULL,
			"missing restore transaction id (from RESTORE_BEGIN)");
		return ERR_PTR(-EINVAL);
	}
	id = nla_get_u32(attr);
	list_for_each_entry(txn, &kn->txns, node) {
		if (txn->id != id)
			continue;
		if (txn->portid != info->snd_portid) {
			klb_err(info->extack, attr,
				"restore transaction %u belongs to another socket (port id %u)",
				id, txn->portid);
			return ERR_PTR(-EPERM);
		}
		return txn;
	}
	klb_err(info->extack, attr,
		"no restore transaction %u here (never begun, ended, or its socket closed)",
		id);
	return ERR_PTR(-ENOENT);
}

void klb_txn_fail(struct klb_net *kn, struct klb_txn *txn)
{
	klb_staged_abort(kn, &txn->st);
	klb_staged_init(&txn->st);
	txn->failed_at = txn->nstaged;
}

void klb_txn_end(struct klb_net *kn, struct klb_txn *txn)
{
	klb_assert_locked(kn);
	if (!txn->failed_at)
		klb_staged_abort(kn, &txn->st);
	list_del(&txn->node);
	WRITE_ONCE(kn->ntxns, kn->ntxns - 1);
	memzero_explicit(&txn->seed, sizeof(txn->seed));
	kfree(txn);
	klb_obj_dec(KLB_OBJ_TXN);
}

void klb_txn_net_exit(struct klb_net *kn)
{
	struct klb_txn *txn, *tmp;

	list_for_each_entry_safe(txn, tmp, &kn->txns, node)
		klb_txn_end(kn, txn);
}

static int klb_txn_sock_event(struct notifier_block *nb, unsigned long event,
			      void *ptr)
{
	struct netlink_notify *n = ptr;
	struct klb_txn *txn, *tmp;
	struct klb_net *kn;

	if (event != NETLINK_URELEASE || n->protocol != NETLINK_GENERIC)
		return NOTIFY_DONE;
	kn = klb_net(n->net);
	/* Most sockets that close never began one: no lock for them. */
	if (!READ_ONCE(kn->ntxns))
		return NOTIFY_DONE;
	mutex_lock(&kn->lock);
	list_for_each_entry_safe(txn, tmp, &kn->txns, node)
		if (txn->portid == n->portid)
			klb_txn_end(kn, txn);
	mutex_unlock(&kn->lock);
	return NOTIFY_DONE;
}

static struct notifier_block klb_txn_notifier = {
	.notifier_call = klb_txn_sock_event,
};

int klb_txn_module_init(void)
{
	return netlink_register_notifier(&klb_txn_notifier);
}

void klb_txn_module_exit(void)
{
	netlink_unregister_notifier(&klb_txn_notifier);
}
