/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One klb event message as `klbctl monitor` prints it (event.c): one line
 * of text, or with -j one JSON object on a line of its own.
 */
#ifndef KLBCTL_EVENT_H
#define KLBCTL_EVENT_H

#include <stdbool.h>

struct nlmsghdr;

/* Which objects to print: a bit per enum klb_event_object. */
#define EVENT_ALL	(~0u)
#define EVENT_BIT(o)	(1u << (o))

/*
 * Print the event in @nlh (a KLB_CMD_EVENT message) if its object is in
 * @filter; config events (flush, restore) concern every object and are
 * always printed. Flushes stdout. Returns false for a message that is not
 * an event or has no object and action (nothing printed).
 */
bool event_print(const struct nlmsghdr *nlh, unsigned int filter);

#endif
