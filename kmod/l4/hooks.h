/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The netfilter hooks (hooks.c): registered while the netns has at least
 * one service (as IPVS does), by the config layer, under kn->lock.
 */
#ifndef _KLB_L4_HOOKS_H
#define _KLB_L4_HOOKS_H

struct klb_net;

int klb_hooks_register(struct klb_net *kn);
void klb_hooks_unregister(struct klb_net *kn);	/* waits for packets */

#endif /* _KLB_L4_HOOKS_H */
