/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The only header the pure scheduler code in kmod/sched/ includes besides
 * algo.h. In the kernel it is <linux/types.h>; built in userspace with
 * -DKLB_USERSPACE (unit tests, libFuzzer) it maps the handful of kernel
 * types to <stdint.h>, so the very same files run under ASan and UBSan.
 * Keep it that small: pure code must not need anything else.
 */
#ifndef _KLB_SCHED_PURE_H
#define _KLB_SCHED_PURE_H

#ifdef KLB_USERSPACE
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef uint8_t u8;
typedef uint16_t u16;
typedef uint32_t u32;
typedef uint64_t u64;
typedef int64_t s64;

#ifndef __always_inline
#define __always_inline inline __attribute__((__always_inline__))
#endif
#else
#include <linux/types.h>
#include <linux/compiler.h>
#endif

#endif /* _KLB_SCHED_PURE_H */
