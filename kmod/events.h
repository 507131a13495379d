/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klb's events (events.c): what changed and why, sent to the multicast
 * group "events" of the klb generic netlink family, which `klbctl monitor`
 * listens to. Core code: any layer may report; nothing here blocks, sleeps
 * on the config lock or fails the caller. An event that cannot be built
 * (no memory) is not retried: its listeners are told events were lost
 * (ENOBUFS on their socket, as for a socket that overran).
 *
 * Events cost one test of a bit when nobody listens, and go only to the
 * listeners of the namespace that changed.
 */
#ifndef _KLB_EVENTS_H
#define _KLB_EVENTS_H

#include <linux/gfp.h>
#include <linux/types.h>

struct genl_family;
struct klb_net;
struct klb_pool;
struct klb_backend;

/* The reason of a backend state changed by a command. */
#define KLB_EVENT_REASON_OPERATOR	"operator"

/*
 * One event: @object and @action are enum klb_event_object and
 * klb_event_action; every pointer may be NULL (not said); @sched < 0: not
 * said; @has_counts: @npools, @nservices, @nbackends are said.
 */
struct klb_event {
	u8 object;
	u8 action;
	const char *reason;
	const char *pool;
	const char *service;
	int sched;
	const struct klb_backend *be;
	bool has_counts;
	u32 npools;
	u32 nservices;
	u32 nbackends;
};

/*
 * The netlink layer hands over its family, whose multicast group
 * @group (an index in its mcgrps) is the events group, once registered,
 * and takes it back before unregistering it.
 */
void klb_events_register(const struct genl_family *family,
			 unsigned int group);
void klb_events_unregister(void);

/*
 * Send @ev about @kn's namespace. @gfp: GFP_KERNEL where the caller may
 * sleep (commands), GFP_ATOMIC elsewhere.
 */
void klb_event_send(struct klb_net *kn, const struct klb_event *ev, gfp_t gfp);

/*
 * @be of @pool changed its operator state or its health (the values in
 * @be are the new ones); @reason says why in a few words ("http check:
 * status 503", "operator", "passive: 5 connect failures"). Any context.
 * The action is "state" for KLB_EVENT_REASON_OPERATOR, else "health".
 */
void klb_event_backend(struct klb_net *kn, const struct klb_pool *pool,
		       const struct klb_backend *be, const char *reason);

#endif /* _KLB_EVENTS_H */
