/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unit tests' runner: a test case is one test_*() function.  CHECK()
 * reports a failed comparison inside it; RUN() counts the case once,
 * passed when none of its comparisons failed.  The last line is
 * "N passed, N failed" in test cases, which tests/unit/Makefile sums.
 */
#ifndef UNIT_H
#define UNIT_H

#include <stdio.h>
#include <stdlib.h>

static unsigned int unit_passed, unit_failed, unit_case_failures;

#define CHECK(cond, ...) do {					\
	if (!(cond)) {						\
		unit_case_failures++;				\
		printf("    %s:%d: ", __func__, __LINE__);	\
		printf(__VA_ARGS__);				\
		printf("\n");					\
	}							\
} while (0)

#define RUN(test) do {						\
	unit_case_failures = 0;					\
	test();							\
	if (unit_case_failures) {				\
		unit_failed++;					\
		printf("FAIL %s (%u comparisons)\n", #test,	\
		       unit_case_failures);			\
	} else {						\
		unit_passed++;					\
		printf("PASS %s\n", #test);			\
	}							\
} while (0)

static inline int unit_report(void)
{
	printf("%u passed, %u failed\n", unit_passed, unit_failed);
	return unit_failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif /* UNIT_H */
