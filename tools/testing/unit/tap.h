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
#include <stdio.h>

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
