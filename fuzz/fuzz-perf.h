/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the harnesses linked with perf itself (their file list in
 * fuzz/harnesses is "perf") share.  They are compiled with the flags of the
 * perf build they are linked with (fuzz-build.sh takes them from that
 * build), so perf's own headers can be included.
 */
#ifndef __PERF_FUZZ_PERF_H
#define __PERF_FUZZ_PERF_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <linux/compiler.h>
#include <perf/core.h>

#include "builtin.h"
#include "util/build-id.h"
#include "util/debug.h"

static inline int fuzz_perf__quiet_print(enum libperf_print_level level __maybe_unused,
					 const char *fmt __maybe_unused,
					 va_list ap __maybe_unused)
{
	return 0;
}

/*
 * Once a process: no messages (as perf -q: not on stderr, libFuzzer's), no
 * build-id cache of the fuzzing machine read, nor added to (that reads the
 * ELF files and probe caches an input names), no debuginfod server asked.
 */
static inline void fuzz_perf__init(void)
{
	libperf_init(fuzz_perf__quiet_print);
	setenv("PERF_BUILDID_DIR", "/nonexistent", 1);
	setenv("DEBUGINFOD_URLS", "", 1);
	set_buildid_dir(NULL);
	disable_buildid_cache();
	verbose = -1;
}

/*
 * The first time a process calls it: fuzz_perf__init(), the harness's
 * directory made from the template @dir, @cleanup registered to remove it
 * at exit; returns true.  Later calls return false.
 */
static inline bool fuzz_perf__setup_once(char *dir, void (*cleanup)(void))
{
	static bool done;

	if (done)
		return false;
	done = true;
	fuzz_perf__init();
	if (!mkdtemp(dir))
		abort();
	atexit(cleanup);
	return true;
}

#endif /* __PERF_FUZZ_PERF_H */
