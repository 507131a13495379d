// SPDX-License-Identifier: GPL-2.0
/*
 * Extended-ack messages with arguments. 6.1's extack has no buffer for a
 * formatted message (6.2+ has one, KLB_EXTACK_MSG_BUF in compat.h): it
 * only points at a string and reads it when the ack is built.
 */
#include <linux/kernel.h>
#include <linux/netlink.h>
#include <linux/string.h>

#include "compat.h"
#include "extack.h"

#ifdef KLB_EXTACK_MSG_BUF
#define KLB_MSG_LEN	NETLINK_MAX_FMTMSG_LEN
#else
/*
 * The kernel has nowhere to keep a formatted message: extack only points
 * at one, and reads it when the ack is built, after the operation returned
 * and dropped the genetlink mutex. Keep messages in a ring written under
 * that mutex; another operation would have to fail this many times in
 * between for a message to be overwritten before it is sent.
 */
#define KLB_MSG_LEN	96
#define KLB_MSG_RING	32
static char klb_msg_ring[KLB_MSG_RING][KLB_MSG_LEN];
static unsigned int klb_msg_next;
#endif

static __printf(2, 0)
void klb_err_set(struct netlink_ext_ack *extack, const char *fmt, va_list ap)
{
	char *buf;

#ifdef KLB_EXTACK_MSG_BUF
	buf = extack->_msg_buf;
#else
	buf = klb_msg_ring[klb_msg_next++ % KLB_MSG_RING];
#endif
	vsnprintf(buf, KLB_MSG_LEN, fmt, ap);
	do_trace_netlink_extack(buf);
	extack->_msg = buf;
}

void klb_err(struct netlink_ext_ack *extack, const struct nlattr *attr,
	     const char *fmt, ...)
{
	va_list ap;

	if (!extack)
		return;
	va_start(ap, fmt);
	klb_err_set(extack, fmt, ap);
	va_end(ap);
	extack->bad_attr = attr;
}

static __printf(2, 3)
void klb_err_fmt(struct netlink_ext_ack *extack, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	klb_err_set(extack, fmt, ap);
	va_end(ap);
}

void klb_err_prefix(struct netlink_ext_ack *extack, const char *fmt, ...)
{
	char msg[KLB_MSG_LEN], prefix[KLB_MSG_LEN];
	va_list ap;

	if (!extack || !extack->_msg)
		return;
	strscpy(msg, extack->_msg, sizeof(msg));
	va_start(ap, fmt);
	vsnprintf(prefix, sizeof(prefix), fmt, ap);
	va_end(ap);
	klb_err_fmt(extack, "%s%s", prefix, msg);
}
