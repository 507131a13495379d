// SPDX-License-Identifier: GPL-2.0
/*
 * klb's events. Placeholder of the interface in events.h: the multicast
 * group and the messages come with `klbctl monitor`.
 */
#include "klb.h"
#include "events.h"

void klb_event_backend(struct klb_net *kn, const struct klb_pool *pool,
		       const struct klb_backend *be, const char *reason)
{
}
