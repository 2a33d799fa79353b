/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the fuzz harnesses share. A harness defines LLVMFuzzerTestOneInput();
 * the fuzz build links it with libFuzzer, the replay build with replay.c.
 */
#ifndef __PERF_FUZZ_H
#define __PERF_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/*
 * A broken promise of the code under test: report it as a crash.  libFuzzer
 * reports the abort as a "deadly signal"; in fork mode, which keeps no log
 * of its jobs, the failed check goes to the file $FUZZ_CHECK_LOG names too.
 */
static inline void __attribute__((noreturn))
fuzz__check_failed(const char *file, int line, const char *cond)
{
	const char *path = getenv("FUZZ_CHECK_LOG");
	FILE *log = path ? fopen(path, "a") : NULL;

	fprintf(stderr, "%s:%d: check failed: %s\n", file, line, cond);
	if (log) {
		fprintf(log, "%d %s:%d: check failed: %s\n", (int)getpid(), file, line, cond);
		fclose(log);
	}
	abort();
}

#define FUZZ_CHECK(cond)							\
	do {									\
		if (!(cond))							\
			fuzz__check_failed(__FILE__, __LINE__, #cond);		\
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * libFuzzer's own mutation, for a harness's LLVMFuzzerCustomMutator(): weak,
 * so that the replay build, without libFuzzer, links (and never calls it).
 */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) __attribute__((weak));

#endif /* __PERF_FUZZ_H */
