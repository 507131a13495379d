// SPDX-License-Identifier: GPL-2.0
/*
 * net.klb.hash_seed: the key of the sh and mh hashes of a network
 * namespace (Documentation/sysctl.rst). Random when the namespace is
 * created, so an outsider cannot choose client addresses that all land on
 * one backend; an operator copies it to other balancers (or into a saved
 * configuration: KLB_CONFIG_A_HASH_SEED) so that they all send a client
 * to the same backend, before and after a reboot.
 *
 * Its text is 32 hex digits: the 16 bytes in order, the first 8 the key's
 * first word read big-endian, so any architecture reads a seed alike. It
 * is a secret: the file is 0600 (readable by the namespace's root only),
 * and writing needs CAP_NET_ADMIN over the namespace, like the config
 * itself. Its own table, registered under net/klb beside sysctl.c's,
 * because a write republishes the pools, which the core cannot.
 */
#include <linux/capability.h>
#include <linux/ctype.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/slab.h>
#include <linux/sysctl.h>

#include "klb.h"
#include "sched/table.h"

#define KLB_SEED_HEX	(2 * KLB_HASH_SEED_LEN)

static u64 klb_seed_word(const u8 *b)
{
	u64 w = 0;
	int i;

	for (i = 0; i < 8; i++)
		w = w << 8 | b[i];
	return w;
}

static void klb_seed_bytes(u64 w, u8 *b)
{
	int i;

	for (i = 7; i >= 0; i--, w >>= 8)
		b[i] = (u8)w;
}

void klb_sched_seed_get(const struct klb_net *kn, u8 *seed)
{
	klb_seed_bytes(kn->hash_seed.key[0], seed);
	klb_seed_bytes(kn->hash_seed.key[1], seed + 8);
}

void klb_sched_seed_key(const u8 *seed, siphash_key_t *key)
{
	key->key[0] = klb_seed_word(seed);
	key->key[1] = klb_seed_word(seed + 8);
}

int klb_sched_seed_set(struct klb_net *kn, const u8 *seed)
{
	siphash_key_t key;
	int err;

	klb_sched_seed_key(seed, &key);
	err = klb_sched_seed_key_set(kn, &key);
	memzero_explicit(&key, sizeof(key));
	return err;
}

int klb_sched_seed_key_set(struct klb_net *kn, const siphash_key_t *key)
{
	struct klb_pool *pool;
	int err = 0, e;

	klb_assert_locked(kn);
	kn->hash_seed = *key;
	list_for_each_entry(pool, &kn->pools, node) {
		e = klb_sched_publish(kn, pool);
		if (e && !err)
			err = e;
	}
	return err;
}

/* Exactly 32 hex digits, then at most a newline; else -EINVAL. */
static int klb_seed_parse(const char *s, u8 *seed)
{
	size_t n = strlen(s);
	int i;

	if (n && s[n - 1] == '\n')
		n--;
	if (n != KLB_SEED_HEX)
		return -EINVAL;
	for (i = 0; i < KLB_SEED_HEX; i++)
		if (!isxdigit(s[i]))
			return -EINVAL;
	return hex2bin(seed, s, KLB_HASH_SEED_LEN);
}

static int klb_seed_sysctl(klb_proc_table *table, int write, void *buffer,
			   size_t *lenp, loff_t *ppos)
{
	struct klb_net *kn = table->data;
	/* Room for more than a seed: a longer write is refused, not cut. */
	char text[KLB_SEED_HEX + 8] = "";
	struct ctl_table tmp = {
		.data = text,
		.maxlen = sizeof(text),
	};
	u8 seed[KLB_HASH_SEED_LEN];
	int err;

	if (write && !ns_capable(kn->net->user_ns, CAP_NET_ADMIN))
		return -EPERM;
	if (!write) {
		mutex_lock(&kn->lock);
		klb_sched_seed_get(kn, seed);
		mutex_unlock(&kn->lock);
		bin2hex(text, seed, sizeof(seed));
		return proc_dostring(&tmp, 0, buffer, lenp, ppos);
	}
	if (*ppos)
		return -EINVAL;	/* the whole seed in one write */
	if (*lenp >= sizeof(text) - 1)
		return -EINVAL;
	err = proc_dostring(&tmp, 1, buffer, lenp, ppos);
	if (err)
		return err;
	err = klb_seed_parse(text, seed);
	if (err)
		return err;
	mutex_lock(&kn->lock);
	err = klb_sched_seed_set(kn, seed);
	mutex_unlock(&kn->lock);
	memzero_explicit(seed, sizeof(seed));
	return err;
}

static const struct ctl_table klb_seed_template[] = {
	{
		.procname	= "hash_seed",
		.maxlen		= KLB_SEED_HEX + 1,
		.mode		= 0600,
		.proc_handler	= klb_seed_sysctl,
	},
	{ }
};

int klb_sched_seed_net_init(struct klb_net *kn)
{
	struct ctl_table *table;

	get_random_bytes(&kn->hash_seed, sizeof(kn->hash_seed));
	table = kmemdup(klb_seed_template, sizeof(klb_seed_template),
			GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	table[0].data = kn;
	kn->seed_hdr = klb_register_net_sysctl(kn->net, "net/klb", table, 1);
	if (!kn->seed_hdr) {
		kfree(table);
		return -ENOMEM;
	}
	return 0;
}

void klb_sched_seed_net_exit(struct klb_net *kn)
{
	const struct ctl_table *table = kn->seed_hdr->ctl_table_arg;

	unregister_net_sysctl_table(kn->seed_hdr);
	kfree(table);
}
