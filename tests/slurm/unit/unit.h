/*
 * The checks of the sched/maui unit tests: each program prints every
 * failed check and ends with "N passed, M failed", exiting 1 on a failure.
 */
#ifndef MAUI_UNIT_H
#define MAUI_UNIT_H

#include <stdio.h>
#include <string.h>

static int u_passed, u_failed;

#define CHECK(cond)                                                             \
	do {                                                                    \
		if (cond) {                                                     \
			u_passed++;                                             \
		} else {                                                        \
			u_failed++;                                             \
			fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__,  \
				__LINE__, #cond);                               \
		}                                                               \
	} while (0)

#define CHECK_STR(got, want)                                                    \
	do {                                                                    \
		const char *g_ = (got), *w_ = (want);                           \
		if ((!g_ && !w_) || (g_ && w_ && !strcmp(g_, w_))) {            \
			u_passed++;                                             \
		} else {                                                        \
			u_failed++;                                             \
			fprintf(stderr, "%s:%d: %s is \"%s\", expected \"%s\"\n", \
				__FILE__, __LINE__, #got, g_ ? g_ : "(null)",   \
				w_ ? w_ : "(null)");                            \
		}                                                               \
	} while (0)

static int finish(void)
{
	printf("%d passed, %d failed\n", u_passed, u_failed);
	return u_failed ? 1 : 0;
}

#endif
