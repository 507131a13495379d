/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The L7 engine (http and tls services) as the rest of klb sees it: main.c
 * starts and stops it, the config layer opens and closes a service's
 * listener and tells it about backends that go, and the L4 hooks hand it
 * packets through its one entry point, klb_l7_steer().
 */
#ifndef _KLB_L7_ENGINE_H
#define _KLB_L7_ENGINE_H

struct klb_backend;
struct klb_net;
struct klb_service;
struct netlink_ext_ack;
struct sk_buff;

int klb_l7_module_init(void);	/* the workqueue */
void klb_l7_module_exit(void);	/* after every netns is gone */
int klb_l7_net_init(struct klb_net *kn);
/*
 * pernet pre_exit: close listeners, abort every session (waits for them),
 * close idle backend connections, and let go of the loopback device,
 * which is unregistered before the pernet exit() methods run.
 */
void klb_l7_net_pre_exit(struct klb_net *kn);
void klb_l7_net_exit(struct klb_net *kn);	/* frees; before config exit */
/*
 * Open @svc's listener (SO_REUSEPORT, so a restore can open the new one
 * before the old one closes). Under kn->lock, before @svc is hashed.
 */
int klb_l7_service_start(struct klb_net *kn, struct klb_service *svc,
			 struct netlink_ext_ack *extack);
/*
 * Close @svc's listener; its sessions finish the exchange in progress and
 * close (svc->stopping). Under kn->lock, before @svc is unhashed. Does not
 * wait for the sessions: they hold references, never the lock.
 */
void klb_l7_service_stop(struct klb_net *kn, struct klb_service *svc);
/* @be left its pool: close its idle connections, park no more. */
void klb_l7_backend_removed(struct klb_net *kn, struct klb_backend *be);
/*
 * A backend was added or changed (maxconn raised, up again): requests
 * waiting for a backend under its maxconn try again (l7/queue.c).
 */
void klb_l7_queue_kick_all(struct klb_net *kn);

/*
 * The L4 hooks' way in, PRE_ROUTING: a packet to an http or tls service's
 * VIP:port is delivered locally, to the listener, whether or not the VIP
 * is a local address. BH disabled, under rcu_read_lock.
 */
unsigned int klb_l7_steer(struct klb_net *kn, struct klb_service *svc,
			  struct sk_buff *skb);

#endif /* _KLB_L7_ENGINE_H */
