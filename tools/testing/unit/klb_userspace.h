/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-ins for the kernel types and attributes the pure code in
 * kmod/sched/ uses (see kmod/sched/pure.h). Types and nothing else: if pure
 * code needs more, it is probably not pure.
 */
#ifndef _KLB_USERSPACE_H
#define _KLB_USERSPACE_H

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

#define BIT(n)		(1UL << (n))

#endif /* _KLB_USERSPACE_H */
