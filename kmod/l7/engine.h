/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The L7 engine (http and tls services) as the rest of klb sees it: main.c
 * starts and stops it, the config layer opens and closes a service's
 * listener and tells it about backends that go, and the L4 hooks hand it
 * packets through its one entry point, klb_l7_steer().
 */
#ifndef _KLB_L7_ENGINE_H
#define _KLB_L7_ENGINE_H

#include <linux/netfilter.h>

struct klb_backend;
struct klb_flow;
struct klb_net;
struct klb_service;
struct netlink_ext_ack;
struct sk_buff;

int klb_l7_module_init(void);	/* the workqueue, the buffer cache */
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
 * Mark @svc stopping and close its listener; its sessions finish the
 * exchange in progress and close, or follow the service that took its
 * address over (svc->l7_next). Under kn->lock, before @svc is unhashed.
 * Does not wait for the sessions: they hold references, never the lock.
 */
void klb_l7_service_stop(struct klb_net *kn, struct klb_service *svc);
/* @be left its pool: close its idle connections, park no more. */
void klb_l7_backend_removed(struct klb_net *kn, struct klb_backend *be);
/*
 * A backend was added or changed (maxconn raised, up again): requests
 * waiting for a backend under its maxconn try again (l7/queue.c).
 */
void klb_l7_queue_kick_all(struct klb_net *kn);

/* One L7 session as a conn dump reports it (klb_l7_session_walk()). */
struct klb_l7_session_info {
	const struct klb_service *svc;	/* valid during the callback only */
	const struct klb_flow *flow;	/* client -> VIP, likewise */
	u8 mode;			/* enum klb_mode */
	u8 state;			/* enum klb_l7_state */
	u16 be_family;
	union nf_inet_addr be_addr;
	__be16 be_port;			/* 0: no backend now */
	u32 age_ms;
	u64 bytes_in;
	u64 bytes_out;
};

/*
 * Call @fn for each L7 session of the netns from index *@pos on (0 to
 * start), under a spinlock (@fn must not sleep). If @fn returns non-zero
 * the walk stops with *@pos at that session, for the next call to resume
 * there. *@gen: the generation of the session list (never 0), which
 * changes when a session comes or goes: a dump that resumes under another
 * generation may have missed or repeated one (NLM_F_DUMP_INTR). Returns 0
 * at the end, else what @fn returned.
 */
int klb_l7_session_walk(struct klb_net *kn, unsigned long *pos,
			unsigned int *gen,
			int (*fn)(const struct klb_l7_session_info *si,
				  void *arg),
			void *arg);

/*
 * The L4 hooks' way in, PRE_ROUTING: a packet to an http or tls service's
 * VIP:port is delivered locally, to the listener, whether or not the VIP
 * is a local address. BH disabled, under rcu_read_lock.
 */
unsigned int klb_l7_steer(struct klb_net *kn, struct klb_service *svc,
			  struct sk_buff *skb);

#endif /* _KLB_L7_ENGINE_H */
