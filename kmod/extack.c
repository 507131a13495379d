// SPDX-License-Identifier: GPL-2.0
/*
 * Extended-ack messages with arguments. Since 6.2 extack has a buffer for
 * a formatted message (KLB_EXTACK_MSG_BUF in compat.h). Before, it only
 * points at a string, which netlink reads when it builds the ack: after
 * the operation returned and dropped every lock, while other requests (in
 * this namespace or another: the family runs with parallel_ops) are
 * failing too. So each message gets a buffer of its own, allocated when
 * it is set and freed by task work when the task that sent the request
 * returns to user space, which is after netlink built the ack (the request
 * of a kernel socket is handled synchronously, in the sender's task).
 * Where no task work will run (a kernel thread, an io_uring worker) or the
 * allocation fails, the message is the format string itself: static, so
 * never torn nor another request's, only without its arguments.
 */
#include <linux/kernel.h>
#include <linux/module.h>
#include <linux/netlink.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/task_work.h>

#include "compat.h"
#include "extack.h"
#include "objects.h"

#ifdef KLB_EXTACK_MSG_BUF
#define KLB_MSG_LEN	NETLINK_MAX_FMTMSG_LEN

static char *klb_msg_buf(struct netlink_ext_ack *extack)
{
	return extack->_msg_buf;
}
#else
#define KLB_MSG_LEN	96

struct klb_msg {
	struct callback_head work;
	char text[KLB_MSG_LEN];
};

/*
 * Task work: runs in klb's text, so each pending message holds a
 * reference on the module, dropped last.
 */
static void klb_msg_free(struct callback_head *work)
{
	kfree(container_of(work, struct klb_msg, work));
	klb_obj_dec(KLB_OBJ_EXTACK_MSG);
	module_put(THIS_MODULE);
}

/* A buffer that lives until the ack is sent, or NULL. */
static char *klb_msg_buf(struct netlink_ext_ack *extack)
{
	struct klb_msg *m;

	if (current->flags & (PF_KTHREAD | PF_IO_WORKER))
		return NULL;
	m = kmalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return NULL;
	init_task_work(&m->work, klb_msg_free);
	__module_get(THIS_MODULE);	/* we run in a request: it is live */
	if (task_work_add(current, &m->work, TWA_RESUME)) {
		module_put(THIS_MODULE);
		kfree(m);	/* the task is exiting: nobody reads it */
		return NULL;
	}
	klb_obj_inc(KLB_OBJ_EXTACK_MSG);
	return m->text;
}
#endif

static __printf(2, 0)
void klb_err_set(struct netlink_ext_ack *extack, const char *fmt, va_list ap)
{
	char *buf = klb_msg_buf(extack);

	if (!buf) {
		extack->_msg = fmt;
		return;
	}
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

void klb_err_suffix(struct netlink_ext_ack *extack, const char *fmt, ...)
{
	char msg[KLB_MSG_LEN], suffix[KLB_MSG_LEN];
	va_list ap;

	if (!extack || !extack->_msg)
		return;
	strscpy(msg, extack->_msg, sizeof(msg));
	va_start(ap, fmt);
	vsnprintf(suffix, sizeof(suffix), fmt, ap);
	va_end(ap);
	klb_err_fmt(extack, "%s%s", msg, suffix);
}
