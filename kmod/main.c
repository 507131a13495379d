// SPDX-License-Identifier: GPL-2.0
/*
 * klb: in-kernel L4/L7 load balancer. Module and per-netns init and exit,
 * nothing else.
 */
#include <linux/module.h>
#include <linux/rcupdate.h>
#include <net/genetlink.h>

#include "config.h"

#define KLB_VERSION	"0.1"

unsigned int klb_net_id __read_mostly;
atomic_long_t klb_objects[KLB_OBJ__MAX];

static const char * const klb_obj_names[KLB_OBJ__MAX] = {
	[KLB_OBJ_POOL]		= "pool",
	[KLB_OBJ_BACKEND]	= "backend",
	[KLB_OBJ_SERVICE]	= "service",
	[KLB_OBJ_SCHED_TABLE]	= "scheduler table",
	[KLB_OBJ_CONN]		= "connection",
	[KLB_OBJ_RULE_SET]	= "rule set",
	[KLB_OBJ_L7_LISTENER]	= "L7 listener",
	[KLB_OBJ_L7_SESSION]	= "L7 session",
	[KLB_OBJ_L7_UPSTREAM]	= "L7 backend connection",
};

static int __net_init klb_net_init(struct net *net)
{
	struct klb_net *kn = klb_net(net);
	int err, i;

	kn->net = net;
	mutex_init(&kn->lock);
	INIT_LIST_HEAD(&kn->pools);
	INIT_LIST_HEAD(&kn->services);
	for (i = 0; i < ARRAY_SIZE(kn->svc_hash); i++)
		INIT_HLIST_HEAD(&kn->svc_hash[i]);
	kn->gen = 1;
	klb_sysctl_defaults(&kn->sysctl);

	err = klb_sysctl_net_init(kn);
	if (err)
		goto err_sysctl;
	err = klb_conn_net_init(kn);
	if (err)
		goto err_conn;
	err = klb_l7_net_init(kn);
	if (err)
		goto err_l7;
	return 0;

err_l7:
	klb_conn_net_exit(kn);
err_conn:
	klb_sysctl_net_exit(kn);
err_sysctl:
	return err;
}

static void __net_exit klb_net_exit(struct net *net)
{
	struct klb_net *kn = klb_net(net);

	/*
	 * Hooks first, so that no packet reaches the connection table or the
	 * services while they are being torn down.
	 */
	mutex_lock(&kn->lock);
	if (kn->hooks_registered) {
		klb_hooks_unregister(kn);
		kn->hooks_registered = false;
	}
	klb_conn_net_exit(kn);
	klb_l7_net_exit(kn);
	klb_config_net_exit(kn);
	mutex_unlock(&kn->lock);
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

	err = klb_conn_module_init();
	if (err)
		goto err_conn;
	err = klb_l7_module_init();
	if (err)
		goto err_l7;
	err = register_pernet_subsys(&klb_net_ops);
	if (err)
		goto err_pernet;
	err = klb_genl_init();
	if (err)
		goto err_genl;

	pr_info("klb " KLB_VERSION " loaded\n");
	return 0;

err_genl:
	unregister_pernet_subsys(&klb_net_ops);
err_pernet:
	klb_l7_module_exit();
err_l7:
	rcu_barrier();
	klb_conn_module_exit();
err_conn:
	return err;
}

static void __exit klb_exit(void)
{
	int i;

	klb_genl_exit();
	unregister_pernet_subsys(&klb_net_ops);
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

	for (i = 0; i < KLB_OBJ__MAX; i++) {
		long n = atomic_long_read(&klb_objects[i]);

		WARN(n, "klb: leaked %ld %s objects\n", n, klb_obj_names[i]);
	}
}

module_init(klb_init);
module_exit(klb_exit);
MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("In-kernel L4/L7 load balancer");
MODULE_VERSION(KLB_VERSION);
MODULE_ALIAS_GENL_FAMILY(KLB_GENL_NAME);
