/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Extended-ack messages with printf formatting (extack.c). Every layer that
 * refuses a request explains why with these: the config layer (a pool in
 * use), the L7 engine (a listener that cannot open), netlink (a bad value).
 */
#ifndef _KLB_EXTACK_H
#define _KLB_EXTACK_H

#include <linux/compiler.h>

struct netlink_ext_ack;
struct nlattr;

/* Set the message, and the attribute it is about (@attr may be NULL). */
__printf(3, 4)
void klb_err(struct netlink_ext_ack *extack, const struct nlattr *attr,
	     const char *fmt, ...);
/* Prefix the message already set (if any) with the object at fault. */
__printf(2, 3)
void klb_err_prefix(struct netlink_ext_ack *extack, const char *fmt, ...);
/* Append to the message already set (if any): what the refusal did. */
__printf(2, 3)
void klb_err_suffix(struct netlink_ext_ack *extack, const char *fmt, ...);

#endif /* _KLB_EXTACK_H */
