// SPDX-License-Identifier: GPL-2.0
/*
 * A perf.data, file or pipe layout, through perf inject --aslr, in process:
 * the same code as the command, cmd_inject(), linked from perf's own objects
 * (fuzz-build.sh builds them and renames perf's main()).  The input is
 * written to a memory file read as /proc/self/fd/N, the output goes to a
 * file in a directory of the harness.  Checked: on failure nothing is left
 * under the output name; a file whose data or header sections end past its
 * end (truncated) fails.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "fuzz-perf.h"

static char out_dir[] = "/tmp/perf-fuzz-aslr.XXXXXX";
static char out_path[sizeof(out_dir) + 16];

/*
 * Whether a file layout perf.data says its data or a header section ends
 * past its end. The header: magic, size, attrs, data and event types
 * sections, the bitmap of header features; their sections are listed after
 * the data.  Only the sections of the features this perf knows count (the
 * first HEADER_LAST_FEATURE, 32 in 6.12): the others are neither read nor
 * written.
 */
static bool truncated(const uint8_t *data, size_t size)
{
	uint64_t hdr_size, data_off, data_size, table, bits[4], sec[2];
	int i;

	if (size < 104 || memcmp(data, "PERFILE2", 8))
		return false;
	memcpy(&hdr_size, data + 8, 8);
	if (hdr_size != 104)		/* a pipe, or another layout */
		return false;
	memcpy(&data_off, data + 40, 8);
	memcpy(&data_size, data + 48, 8);
	memcpy(bits, data + 72, sizeof(bits));
	if (data_off > size || data_size > size - data_off)
		return true;
	table = data_off + data_size;
	for (i = 0; i < 256; i++) {
		if (!(bits[i / 64] & (1ULL << (i % 64))))
			continue;
		if (table + sizeof(sec) > size)
			return false;	/* perf says it can't read the table */
		memcpy(sec, data + table, sizeof(sec));
		table += sizeof(sec);
		if (i < 32 && sec[0] && (sec[0] > size || sec[1] > size - sec[0]))
			return true;
	}
	return false;
}

static void cleanup(void)
{
	unlink(out_path);
	rmdir(out_dir);
}

static void setup(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	fuzz_perf__init();
	FUZZ_CHECK(mkdtemp(out_dir));
	snprintf(out_path, sizeof(out_path), "%s/out.data", out_dir);
	atexit(cleanup);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *argv[] = { "inject", "--aslr", "-i", NULL, "-o", out_path, NULL };
	char in_path[64];
	struct stat st;
	int fd, ret;

	setup();
	fd = memfd_create("perf.data", 0);
	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(write(fd, data, size) == (ssize_t)size);
	snprintf(in_path, sizeof(in_path), "/proc/self/fd/%d", fd);
	argv[3] = in_path;

	unlink(out_path);
	ret = cmd_inject(6, argv);
	/* A failure leaves nothing under the output name. */
	FUZZ_CHECK(ret == 0 || stat(out_path, &st) < 0);
	FUZZ_CHECK(ret != 0 || !truncated(data, size));
	close(fd);
	return 0;
}
