/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every libFuzzer target here shares: CHECK() turns a broken
 * invariant into an abort, which libFuzzer reports with the input.
 */
#ifndef _KLB_FUZZ_CHECK_H
#define _KLB_FUZZ_CHECK_H

#include <stdio.h>
#include <stdlib.h>

#define CHECK(cond)							\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: check failed: %s\n",	\
				__FILE__, __LINE__, #cond);		\
			abort();					\
		}							\
	} while (0)

#endif /* _KLB_FUZZ_CHECK_H */
