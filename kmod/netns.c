// SPDX-License-Identifier: GPL-2.0
/*
 * struct klb_net: where each network namespace keeps klb's state
 * (net_generic() under klb_net_id), and the setup of its core fields. The
 * layers set up their own parts (main.c calls them in order).
 */
#include <linux/list.h>
#include <linux/mutex.h>

#include "klb.h"

unsigned int klb_net_id __read_mostly;

void klb_net_core_init(struct klb_net *kn, struct net *net)
{
	int i;

	kn->net = net;
	mutex_init(&kn->lock);
	INIT_LIST_HEAD(&kn->pools);
	INIT_LIST_HEAD(&kn->services);
	INIT_LIST_HEAD(&kn->txns);
	for (i = 0; i < ARRAY_SIZE(kn->svc_hash); i++)
		INIT_HLIST_HEAD(&kn->svc_hash[i]);
	kn->gen = 1;
	klb_sysctl_defaults(&kn->sysctl);
}
