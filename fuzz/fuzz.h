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

/* A broken promise of the code under test: report it as a crash. */
#define FUZZ_CHECK(cond)							\
	do {									\
		if (!(cond)) {							\
			fprintf(stderr, "%s:%d: check failed: %s\n",		\
				__FILE__, __LINE__, #cond);			\
			abort();						\
		}								\
	} while (0)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/*
 * libFuzzer's own mutation, for a harness's LLVMFuzzerCustomMutator(): weak,
 * so that the replay build, without libFuzzer, links (and never calls it).
 */
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) __attribute__((weak));

#endif /* __PERF_FUZZ_H */
