/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klb's events (events.c): what changed and why, sent to the multicast
 * group "events" of the klb generic netlink family, which `klbctl monitor`
 * listens to. Core code: any layer may report; nothing here blocks, sleeps
 * on the config lock or fails the caller (an event that cannot be built is
 * counted lost, never retried).
 */
#ifndef _KLB_EVENTS_H
#define _KLB_EVENTS_H

struct klb_net;
struct klb_pool;
struct klb_backend;

/*
 * @be of @pool changed its operator state or its health (the values in
 * @be are the new ones); @reason says why in a few words ("http check:
 * status 503", "operator", "passive: 5 connect failures"). Any context.
 */
void klb_event_backend(struct klb_net *kn, const struct klb_pool *pool,
		       const struct klb_backend *be, const char *reason);

#endif /* _KLB_EVENTS_H */
