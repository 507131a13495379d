// SPDX-License-Identifier: GPL-2.0
/*
 * RESTORE_BEGIN, _STAGE, _COMMIT, _ABORT: a restore too large for one
 * netlink attribute (whose length is 16 bits), sent as a transaction.
 * Each STAGE's config nest is staged with RESTORE's own code
 * (klb_nl_restore_stage()) into the transaction's staged configuration,
 * so a service may name a pool of its own or of an earlier STAGE; COMMIT
 * swaps the whole in as RESTORE does (config/restore.c): all or nothing,
 * hitless for what stays, with the host maps its message carries. Any
 * refused STAGE frees what was staged and
 * leaves the transaction failed, so that no COMMIT can apply a part.
 *
 * The hash seed: staged pools build their tables with the transaction's
 * seed (the namespace's at BEGIN, or a STAGE's HASH_SEED, which must come
 * before the first pool), put in kn->hash_seed only while a STAGE runs
 * under the lock, so the namespace's seed never changes between messages;
 * COMMIT sets it and republishes what was built with another.
 */
#include "extack.h"
#include "netlink/attr.h"
#include "netlink/cmds.h"
#include "netlink/dump.h"
#include "netlink/hostmap.h"
#include "netlink/txn.h"
#include "sched/table.h"

int klb_nl_restore_begin(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_nl_net(info);
	struct sk_buff *msg;
	struct klb_txn *txn;
	void *hdr;

	txn = klb_txn_begin(kn, info->snd_portid, info->extack);
	if (IS_ERR(txn))
		return PTR_ERR(txn);
	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		goto err;
	hdr = klb_nl_hdr(msg, info, NULL, KLB_CMD_RESTORE_BEGIN);
	if (!hdr || nla_put_u32(msg, KLB_A_TXN, txn->id)) {
		nlmsg_free(msg);
		goto err;
	}
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

err:
	klb_txn_end(kn, txn);
	return -ENOMEM;
}

/* A refused STAGE: the transaction is dead, and the message says so. */
static int klb_txn_refuse(struct klb_net *kn, struct klb_txn *txn, int err,
			  struct netlink_ext_ack *extack)
{
	klb_txn_fail(kn, txn);
	klb_err_suffix(extack, " (restore aborted)");
	return err;
}

/* A failed transaction takes nothing but ABORT. */
static bool klb_txn_dead(struct klb_txn *txn, struct netlink_ext_ack *extack)
{
	if (!txn->failed_at)
		return false;
	klb_err(extack, NULL,
		"restore transaction %u was aborted: its STAGE message %u was refused",
		txn->id, txn->failed_at);
	return true;
}

int klb_nl_restore_stage_msg(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_nl_net(info);
	const struct nlattr *config, *seed;
	struct klb_txn *txn;
	siphash_key_t ns_seed;
	int err;

	txn = klb_txn_find(kn, info);
	if (IS_ERR(txn))
		return PTR_ERR(txn);
	if (klb_txn_dead(txn, info->extack))
		return -EINVAL;
	txn->nstaged++;
	config = info->attrs[KLB_A_CONFIG];
	if (klb_nl_missing(info->extack, NULL, info->attrs, KLB_A_CONFIG,
			   "config"))
		return klb_txn_refuse(kn, txn, -EINVAL, info->extack);
	seed = nla_find_nested(config, KLB_CONFIG_A_HASH_SEED);
	if (seed && !list_empty(&txn->st.pools)) {
		klb_err(info->extack, seed,
			"hash seed after a pool: it must come first in a restore transaction");
		return klb_txn_refuse(kn, txn, -EINVAL, info->extack);
	}
	if (seed) {
		klb_sched_seed_key(nla_data(seed), &txn->seed);
		txn->has_seed = true;
	}
	ns_seed = kn->hash_seed;
	kn->hash_seed = txn->seed;
	err = klb_nl_restore_stage(kn, config, &txn->st, info->extack);
	kn->hash_seed = ns_seed;
	if (err)
		return klb_txn_refuse(kn, txn, err, info->extack);
	return 0;
}

int klb_nl_restore_commit(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_nl_net(info);
	siphash_key_t old = kn->hash_seed;
	struct klb_txn *txn;
	int err;

	txn = klb_txn_find(kn, info);
	if (IS_ERR(txn))
		return PTR_ERR(txn);
	if (klb_txn_dead(txn, info->extack)) {
		klb_txn_end(kn, txn);
		return -EINVAL;
	}
	/*
	 * The host maps come with the COMMIT (each name its own attribute, so
	 * no nest limits them), built onto the staged services; refused, they
	 * end the transaction with the rest of what it staged.
	 */
	err = klb_nl_hostmap_restore(kn, info, &txn->st);
	if (err) {
		klb_err_suffix(info->extack, " (restore aborted)");
		klb_txn_end(kn, txn);
		return err;
	}
	/* What the staged tables were built with, as RESTORE does. */
	kn->hash_seed = txn->seed;
	err = klb_staged_commit(kn, &txn->st, info->extack);
	/* Staged objects: applied, or freed by the failed commit. */
	klb_staged_init(&txn->st);
	if (err) {
		kn->hash_seed = old;
		klb_txn_end(kn, txn);
		return err;
	}
	/*
	 * Kept pools still hash with the old seed; without a HASH_SEED the
	 * old one stays, and the new pools (built with the seed of BEGIN,
	 * which the sysctl may have changed since) follow it.
	 */
	if (memcmp(&old, &txn->seed, sizeof(old)))
		klb_sched_seed_key_set(kn, txn->has_seed ? &txn->seed : &old);
	memzero_explicit(&old, sizeof(old));
	klb_txn_end(kn, txn);
	klb_nl_restored(kn);
	return 0;
}

int klb_nl_restore_abort(struct sk_buff *skb, struct genl_info *info)
{
	struct klb_net *kn = klb_nl_net(info);
	struct klb_txn *txn;

	txn = klb_txn_find(kn, info);
	if (IS_ERR(txn))
		return PTR_ERR(txn);
	klb_txn_end(kn, txn);
	return 0;
}
