/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one header klb's pure code includes for its types: the schedulers
 * (kmod/sched/), the L7 parsers (kmod/l7/parse/) and the ACL matcher
 * (kmod/acl_match.c). In the kernel it is <linux/types.h> and friends.
 * Built in userspace with -DKLB_USERSPACE (tools/testing/unit, the
 * libFuzzer targets of tools/testing/fuzz), the few kernel types and
 * attributes that code uses are defined here instead, so the very same
 * files run under ASan, UBSan and the fuzzer.
 *
 * Types and nothing else: pure code allocates nothing, takes no lock and
 * calls no library. If it needs more than this, it is probably not pure.
 */
#ifndef _KLB_PURE_H
#define _KLB_PURE_H

#ifdef KLB_USERSPACE
#include <stdbool.h>
#include <stddef.h>

/* The compiler's own fixed-size types: no <stdint.h> needed. */
typedef __UINT8_TYPE__ u8;
typedef __UINT16_TYPE__ u16;
typedef __UINT32_TYPE__ u32;
typedef __UINT64_TYPE__ u64;
typedef __INT64_TYPE__ s64;

/* Forced inlining is the kernel's concern; a hint is enough here. */
#ifndef __always_inline
#define __always_inline inline
#endif

#define BIT(n)		(1UL << (n))
#else
#include <linux/types.h>
#include <linux/compiler.h>
#include <linux/bits.h>
#endif

#endif /* _KLB_PURE_H */
