/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The only header the pure scheduler code in kmod/sched/ includes besides
 * algo.h. In the kernel it is <linux/types.h>. Built in userspace with
 * -DKLB_USERSPACE (unit tests, libFuzzer), the few kernel types it needs
 * come from tools/testing/unit/klb_userspace.h instead (on the include
 * path of those builds only), so the very same files run under ASan and
 * UBSan. Keep it that small: pure code must not need anything else.
 */
#ifndef _KLB_SCHED_PURE_H
#define _KLB_SCHED_PURE_H

#ifdef KLB_USERSPACE
#include <klb_userspace.h>
#else
#include <linux/types.h>
#include <linux/compiler.h>
#endif

#endif /* _KLB_SCHED_PURE_H */
