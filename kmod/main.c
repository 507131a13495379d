// SPDX-License-Identifier: GPL-2.0
/*
 * klb: in-kernel L4/L7 load balancer. Module and per-netns init and exit,
 * in order, nothing else. This is the only file that may call into every
 * layer (tools/layers.py).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/rcupdate.h>
#include <net/genetlink.h>

#include "klb.h"
#include "config/restore.h"
#include "health/health.h"
#include "l4/conn.h"
#include "l4/hooks.h"
#include "l4/persist.h"
#include "l4/xmit.h"
#include "l7/engine.h"
#include "netlink/family.h"
#include "netlink/txn.h"
#include "sched/table.h"
#include "memcg.h"

/* KLB_VERSION comes from the file VERSION at the top (Kbuild). */

static int __net_init klb_net_init(struct net *net)
{
	struct klb_net *kn = klb_net(net);
	int err;

	klb_net_core_init(kn, net);
	klb_health_net_init(kn);

	err = klb_sysctl_net_init(kn);
	if (err)
		goto err_sysctl;
	err = klb_sched_seed_net_init(kn);
	if (err)
		goto err_seed;
	err = klb_conn_net_init(kn);
	if (err)
		goto err_conn;
	err = klb_persist_net_init(kn);
	if (err)
		goto err_persist;
	err = klb_l7_net_init(kn);
	if (err)
		goto err_l7;
	return 0;

err_l7:
	klb_persist_net_exit(kn);
err_persist:
	klb_conn_net_exit(kn);
err_conn:
	klb_sched_seed_net_exit(kn);
err_seed:
	klb_sysctl_net_exit(kn);
err_sysctl:
	return err;
}

static void __net_exit klb_net_exit(struct net *net)
{
	struct klb_net *kn = klb_net(net);

	/* Its writes take the lock: gone before we hold it. */
	klb_sched_seed_net_exit(kn);
	/*
	 * Hooks first, so that no packet reaches the connection table or the
	 * services while they are being torn down.
	 */
	mutex_lock(&kn->lock);
	klb_txn_net_exit(kn);		/* what open transactions staged */
	klb_hooks_unregister(kn);	/* if registered */
	klb_conn_net_exit(kn);
	klb_persist_net_exit(kn);	/* no connection holds an entry now */
	klb_l7_net_exit(kn);
	klb_config_net_exit(kn);	/* stops every probe */
	mutex_unlock(&kn->lock);
	klb_health_net_exit(kn);
	klb_memcg_release(kn);	/* the last connection was freed above */
	klb_sysctl_net_exit(kn);
}

/*
 * Before any device goes: L7 sockets and routes hold the loopback device,
 * whose unregistration (a device exit) waits for them.
 */
static void __net_exit klb_net_pre_exit(struct net *net)
{
	struct klb_net *kn = klb_net(net);

	mutex_lock(&kn->lock);
	klb_l7_net_pre_exit(kn);
	mutex_unlock(&kn->lock);
}

static struct pernet_operations klb_net_ops = {
	.init = klb_net_init,
	.pre_exit = klb_net_pre_exit,
	.exit = klb_net_exit,
	.id = &klb_net_id,
	.size = sizeof(struct klb_net),
};

static int __init klb_init(void)
{
	int err;

	/* DEBUG builds test the pure code first: a failure fails the load. */
#ifdef DEBUG
	if (!klb_sched_selftest())
		return -ENOTRECOVERABLE;
#endif
	err = klb_compat_init();
	if (err)
		goto err_compat;
	err = klb_conn_module_init();
	if (err)
		goto err_conn;
	err = klb_l7_module_init();
	if (err)
		goto err_l7;
	err = klb_health_module_init();
	if (err)
		goto err_health;
	err = register_pernet_subsys(&klb_net_ops);
	if (err)
		goto err_pernet;
	err = klb_xmit_module_init();
	if (err)
		goto err_xmit;
	err = klb_genl_init();
	if (err)
		goto err_genl;

#ifdef DEBUG
	klb_objects_leak_inject();
	pr_info("version " KLB_VERSION " loaded (DEBUG build: self-tests passed)\n");
#else
	pr_info("version " KLB_VERSION " loaded\n");
#endif
	return 0;

err_genl:
	klb_xmit_module_exit();
err_xmit:
	unregister_pernet_subsys(&klb_net_ops);
err_pernet:
	klb_health_module_exit();
err_health:
	klb_l7_module_exit();
err_l7:
	rcu_barrier();
	klb_conn_module_exit();
err_conn:
	klb_compat_exit();
err_compat:
	return err;
}

static void __exit klb_exit(void)
{
	klb_genl_exit();
	klb_xmit_module_exit();
	unregister_pernet_subsys(&klb_net_ops);
	klb_health_module_exit();	/* every probe was freed with its netns */
	/*
	 * RCU callbacks queue RCU callbacks: a table or a connection freed
	 * after a grace period may drop the last reference of a backend or a
	 * service, whose own free waits for another one. Two barriers drain
	 * both generations.
	 */
	klb_l7_module_exit();
	rcu_barrier();
	rcu_barrier();
	klb_conn_module_exit();
	klb_objects_check();
	klb_compat_exit();
}

module_init(klb_init);
module_exit(klb_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("In-kernel L4/L7 load balancer");
MODULE_VERSION(KLB_VERSION);
MODULE_ALIAS_GENL_FAMILY(KLB_GENL_NAME);
/* modprobe loads them first; a bare insmod has klb_compat_init() do it. */
MODULE_SOFTDEP("pre: nf_defrag_ipv4 nf_defrag_ipv6");
