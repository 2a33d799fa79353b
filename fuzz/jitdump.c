// SPDX-License-Identifier: GPL-2.0
/*
 * A jitdump file through perf inject --jit, in process: cmd_inject(), perf's
 * own objects linked in (fuzz-build.sh builds them and renames perf's
 * main()).  The input is written to DIR/jit-1.dump; the harness makes, once,
 * a pipe layout perf.data whose one event uses CLOCK_MONOTONIC (as perf
 * record -k 1) and whose one MMAP2 maps that dump (pid 0, as system-wide, so
 * the pid in the name is not checked); perf inject --jit then reads the dump
 * (util/jitdump.c), writes an ELF image of each code load into DIR and an
 * MMAP2 of it to the output.  Checked: nothing but the dump, the images and
 * the output is written into DIR, and a failure leaves no output.
 */
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>

#include "fuzz.h"
#include "fuzz-perf.h"

/* perf's own record type (util/event.h), not the kernel's. */
#define PERF_RECORD_HEADER_ATTR 64

static char dir[] = "/tmp/perf-fuzz-jit.XXXXXX";
static char dump[sizeof(dir) + 16];
static char in_path[sizeof(dir) + 16];
static char out_path[sizeof(dir) + 16];

/*
 * Remove the images and the output from DIR: with @all, the dump, the
 * perf.data and DIR too.  Anything else in DIR is a broken promise.
 */
static void clean_dir(bool all)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char path[sizeof(dir) + 300];

	FUZZ_CHECK(d);
	while ((de = readdir(d))) {
		const char *n = de->d_name;

		if (!strcmp(n, ".") || !strcmp(n, ".."))
			continue;
		if (!all && (!strcmp(n, "jit-1.dump") || !strcmp(n, "in.data")))
			continue;
		FUZZ_CHECK(all || !strncmp(n, "jitted-", 7) || !strcmp(n, "out.data"));
		snprintf(path, sizeof(path), "%s/%s", dir, n);
		FUZZ_CHECK(unlink(path) == 0);
	}
	closedir(d);
	if (all)
		rmdir(dir);
}

static void cleanup(void)
{
	clean_dir(true);
}

/* The sample id of the records: sample_type TID and TIME. */
struct sample_id {
	__u32 pid, tid;
	__u64 time;
};

/*
 * The perf.data perf inject reads: the pipe header, the attr of a cpu-clock
 * event on CLOCK_MONOTONIC with its id, the MMAP2 of the dump.
 */
static void write_perf_data(void)
{
	struct {
		struct perf_event_header header;
		struct perf_event_attr attr;
		__u64 id;
	} attr = {
		.header = { .type = PERF_RECORD_HEADER_ATTR, .size = sizeof(attr) },
		.attr = {
			.type = PERF_TYPE_SOFTWARE,
			.size = sizeof(attr.attr),
			.config = PERF_COUNT_SW_CPU_CLOCK,
			.sample_period = 100000,
			.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
				       PERF_SAMPLE_PERIOD,
			.sample_id_all = 1,
			.use_clockid = 1,
			.clockid = CLOCK_MONOTONIC,
		},
		.id = 1,
	};
	struct {
		struct perf_event_header header;
		__u32 pid, tid;
		__u64 addr, len, pgoff;
		__u32 maj, min;
		__u64 ino, ino_generation;
		__u32 prot, flags;
		char filename[sizeof(dump) + 8];
		struct sample_id id;
	} mmap2 = {
		.header = { .type = PERF_RECORD_MMAP2, .size = sizeof(mmap2) },
		.addr = 0x7f0000000000,
		.len = 4096,
		.prot = 1,	/* PROT_READ */
		.flags = 2,	/* MAP_PRIVATE */
		.id = { .time = 1 },
	};
	FILE *f = fopen(in_path, "w");

	FUZZ_CHECK(f);
	FUZZ_CHECK(sizeof(mmap2) % 8 == 0);
	strcpy(mmap2.filename, dump);
	FUZZ_CHECK(fwrite("PERFILE2\x10\0\0\0\0\0\0\0", 16, 1, f) == 1);
	FUZZ_CHECK(fwrite(&attr, sizeof(attr), 1, f) == 1);
	FUZZ_CHECK(fwrite(&mmap2, sizeof(mmap2), 1, f) == 1);
	FUZZ_CHECK(fclose(f) == 0);
}

static void setup(void)
{
	if (!fuzz_perf__setup_once(dir, cleanup))
		return;
	snprintf(dump, sizeof(dump), "%s/jit-1.dump", dir);
	snprintf(in_path, sizeof(in_path), "%s/in.data", dir);
	snprintf(out_path, sizeof(out_path), "%s/out.data", dir);
	write_perf_data();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *argv[] = { "inject", "--jit", "-i", in_path, "-o", out_path, NULL };
	struct stat st;
	FILE *f;
	int ret;

	setup();
	f = fopen(dump, "w");
	FUZZ_CHECK(f);
	FUZZ_CHECK(fwrite(data, 1, size, f) == size);
	FUZZ_CHECK(fclose(f) == 0);

	ret = cmd_inject(6, argv);
	/* A failure leaves nothing under the output name. */
	FUZZ_CHECK(ret == 0 || stat(out_path, &st) < 0);
	clean_dir(false);
	return 0;
}
