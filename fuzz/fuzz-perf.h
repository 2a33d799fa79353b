/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the harnesses linked with perf itself (their file list in
 * fuzz/harnesses is "perf") share: the perf functions they call, and
 * quieting perf down for a run of cmd_*() in process.  perf's own headers
 * can't be included: the harness is built with the fuzzer's flags, not
 * perf's.
 */
#ifndef __PERF_FUZZ_PERF_H
#define __PERF_FUZZ_PERF_H

#include <stdarg.h>
#include <stdlib.h>

/* From perf's objects. */
int cmd_inject(int argc, const char **argv);
void libperf_init(int (*print_fn)(int level, const char *fmt, va_list ap));
void set_buildid_dir(const char *dir);
void disable_buildid_cache(void);
extern int verbose;

static inline int fuzz_perf__quiet_print(int level __attribute__((unused)),
					 const char *fmt __attribute__((unused)),
					 va_list ap __attribute__((unused)))
{
	return 0;
}

/*
 * Once a process: no messages (as perf -q: not on stderr, libFuzzer's), no
 * build-id cache of the fuzzing machine read, nor added to (that reads the
 * ELF files and probe caches an input names).
 */
static inline void fuzz_perf__init(void)
{
	libperf_init(fuzz_perf__quiet_print);
	setenv("PERF_BUILDID_DIR", "/nonexistent", 1);
	set_buildid_dir(NULL);
	disable_buildid_cache();
	verbose = -1;
}

#endif /* __PERF_FUZZ_PERF_H */
