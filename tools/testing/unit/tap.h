/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Minimal TAP producer for klb's userspace unit tests. Every check prints
 * "ok N - what" or "not ok N - what" followed by "# " diagnostics; tap_done()
 * prints the plan and the "N passed, N failed" summary line that make and
 * CI grep for, and returns the exit status.
 */
#ifndef _KLB_TAP_H
#define _KLB_TAP_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

/*
 * Deterministic test inputs: splitmix64, tiny and reproducible. Each test
 * seeds rng_state itself (fixed, or from the environment).
 */
static uint64_t rng_state;

static inline uint32_t rnd(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (uint32_t)((z ^ (z >> 31)) >> 32);
}

static unsigned int tap_passed, tap_failed;

__attribute__((format(printf, 2, 3)))
static inline bool tap_ok(bool cond, const char *fmt, ...)
{
	va_list ap;

	printf("%sok %u - ", cond ? "" : "not ", tap_passed + tap_failed + 1);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	if (cond)
		tap_passed++;
	else
		tap_failed++;
	fflush(stdout);
	return cond;
}

#define tap_diag(...)					\
	do {						\
		printf("# ");				\
		printf(__VA_ARGS__);			\
		putchar('\n');				\
	} while (0)

static inline int tap_done(void)
{
	printf("1..%u\n", tap_passed + tap_failed);
	printf("%u passed, %u failed\n", tap_passed, tap_failed);
	return tap_failed ? 1 : 0;
}

#endif /* _KLB_TAP_H */
