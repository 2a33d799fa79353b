// SPDX-License-Identifier: GPL-2.0
/*
 * A perf.data, file or pipe layout, through perf inject --aslr, in process:
 * the same code as the command, cmd_inject(), linked from perf's own objects
 * (fuzz-build.sh builds them and renames perf's main()).  The input is
 * written to a memory file read as /proc/self/fd/N, the output goes to a
 * file in a directory of the harness.  Checked: on failure nothing is left
 * under the output name; a file whose data or header sections end past its
 * end, or a pipe that ends within a record (truncated), fails; the output of
 * a success with events (perf can't read a file of none) can be read and
 * holds no
 * original address: no address of its samples (ip, addr, callchain, branch
 * stack) and mappings (start, end, the kernel's pgoff) lies in a mapping of
 * the input (MMAP and MMAP2 records) unless it lies in one of the output's
 * (where the canonical layout overlaps the original one they can't be told
 * apart), as aslr_audit.py of the tests, for the records perf parses.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/perf_event.h>
#include <linux/zalloc.h>

#include "fuzz.h"
#include "fuzz-perf.h"
#include "util/branch.h"
#include "util/data.h"
#include "util/event.h"
#include "util/evlist.h"
#include "util/sample.h"
#include "util/session.h"
#include "util/tool.h"

static char out_dir[] = "/tmp/perf-fuzz-aslr.XXXXXX";
static char out_path[sizeof(out_dir) + 16];

/*
 * Whether a pipe layout perf.data ends within a record (perf stops at a
 * record too small for its header; the data that follows a tracing data or
 * AUX area record is not walked here).
 */
static bool pipe_truncated(const uint8_t *data, size_t size)
{
	struct perf_event_header header;
	size_t pos = 16;

	while (pos < size) {
		if (size - pos < sizeof(header))
			return true;
		memcpy(&header, data + pos, sizeof(header));
		if (header.size < sizeof(header) ||
		    header.type == PERF_RECORD_HEADER_TRACING_DATA ||
		    header.type == PERF_RECORD_AUXTRACE)
			return false;
		if (header.size > size - pos)
			return true;
		pos += header.size;
	}
	return false;
}

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

	if (size < 16 || memcmp(data, "PERFILE2", 8))
		return false;
	memcpy(&hdr_size, data + 8, 8);
	if (hdr_size == 16)
		return pipe_truncated(data, size);
	if (hdr_size != 104 || size < 104)	/* another layout */
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

/*
 * The mappings of a perf.data file and, for the output, the addresses it
 * holds.  Not addresses: values below 0x10000 (nothing is mapped there,
 * sizes and counts are), the callchain context markers, the vsyscall page
 * (at the same place on every machine); nor can be told from data: what lies
 * in a mapping of 1 TiB or more (ASan's shadow memory).
 */
struct audit {
	struct perf_tool tool;
	struct range {
		u64 start, end;
	} *ranges;
	size_t nr_ranges;
	u64 *values;
	size_t nr_values;
	int nr_events;
};

#define AUDIT_MIN_ADDR	0x10000ULL
#define AUDIT_VSYSCALL	0xffffffffff600000ULL
#define AUDIT_HUGE	(1ULL << 40)

/* Room for element @nr of @array, grown by doubling (at 0, 1, 2, 4, ...). */
static void *audit__grow(void *array, size_t nr, size_t size)
{
	if (nr & (nr - 1))
		return array;
	array = reallocarray(array, nr ? nr * 2 : 1, size);
	FUZZ_CHECK(array);
	return array;
}

static void audit__add_value(struct audit *audit, u64 value)
{
	if (value < AUDIT_MIN_ADDR || value >= PERF_CONTEXT_MAX ||
	    (value & ~0xfffULL) == AUDIT_VSYSCALL)
		return;
	audit->values = audit__grow(audit->values, audit->nr_values, sizeof(u64));
	audit->values[audit->nr_values++] = value;
}

static void audit__add_mapping(struct audit *audit, union perf_event *event,
			       u64 start, u64 len, u64 pgoff)
{
	u8 cpumode = event->header.misc & PERF_RECORD_MISC_CPUMODE_MASK;

	audit->ranges = audit__grow(audit->ranges, audit->nr_ranges, sizeof(*audit->ranges));
	audit->ranges[audit->nr_ranges++] = (struct range){ start, start + len };
	audit__add_value(audit, start);
	if (len)
		audit__add_value(audit, start + len - 1);
	/* A kernel map's pgoff is the address of its text, a file offset else */
	if (cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL)
		audit__add_value(audit, pgoff);
}

static int audit__mmap(const struct perf_tool *tool, union perf_event *event,
		       struct perf_sample *sample __maybe_unused,
		       struct machine *machine __maybe_unused)
{
	audit__add_mapping(container_of(tool, struct audit, tool), event,
			   event->mmap.start, event->mmap.len, event->mmap.pgoff);
	return 0;
}

static int audit__mmap2(const struct perf_tool *tool, union perf_event *event,
			struct perf_sample *sample __maybe_unused,
			struct machine *machine __maybe_unused)
{
	audit__add_mapping(container_of(tool, struct audit, tool), event,
			   event->mmap2.start, event->mmap2.len, event->mmap2.pgoff);
	return 0;
}

static int audit__sample(const struct perf_tool *tool,
			 union perf_event *event __maybe_unused,
			 struct perf_sample *sample, struct evsel *evsel __maybe_unused,
			 struct machine *machine __maybe_unused)
{
	struct audit *audit = container_of(tool, struct audit, tool);
	u64 i;

	audit__add_value(audit, sample->ip);
	audit__add_value(audit, sample->addr);
	for (i = 0; sample->callchain && i < sample->callchain->nr; i++)
		audit__add_value(audit, sample->callchain->ips[i]);
	for (i = 0; sample->branch_stack && i < sample->branch_stack->nr; i++) {
		audit__add_value(audit, sample->branch_stack->entries[i].from);
		audit__add_value(audit, sample->branch_stack->entries[i].to);
	}
	return 0;
}

/* Read the records of @path into @audit, 0 or a negative error. */
static int audit__read(struct audit *audit, const char *path)
{
	struct perf_data data = { .path = path, .mode = PERF_DATA_MODE_READ, };
	struct perf_session *session;
	int err;

	perf_tool__init(&audit->tool, /*ordered_events=*/false);
	audit->tool.mmap = audit__mmap;
	audit->tool.mmap2 = audit__mmap2;
	audit->tool.sample = audit__sample;
	session = perf_session__new(&data, &audit->tool);
	if (IS_ERR(session))
		return PTR_ERR(session);
	err = perf_session__process_events(session);
	audit->nr_events = session->evlist->core.nr_entries;
	perf_session__delete(session);
	return err;
}

static bool audit__in(const struct audit *audit, u64 value, bool huge)
{
	size_t i;

	for (i = 0; i < audit->nr_ranges; i++) {
		const struct range *r = &audit->ranges[i];

		if (value >= r->start && value < r->end &&
		    (huge || r->end - r->start < AUDIT_HUGE))
			return true;
	}
	return false;
}

static void audit__exit(struct audit *audit)
{
	zfree(&audit->ranges);
	zfree(&audit->values);
}

/* The output of perf inject --aslr of @in_path holds none of its addresses. */
static void check_no_original_address(const char *in_path)
{
	struct audit orig = { .nr_ranges = 0, }, out = { .nr_ranges = 0, };
	size_t i;

	/* What perf inject could read, this reads too */
	FUZZ_CHECK(audit__read(&orig, in_path) == 0);
	/* A file of no events can't be read (nor can perf inject's output of it) */
	if (orig.nr_events)
		FUZZ_CHECK(audit__read(&out, out_path) == 0);
	for (i = 0; i < out.nr_values; i++) {
		u64 value = out.values[i];

		if (audit__in(&orig, value, false) && !audit__in(&out, value, true)) {
			fprintf(stderr, "original address %#llx in the output\n",
				(unsigned long long)value);
			FUZZ_CHECK(!"an original address in the output");
		}
	}
	audit__exit(&orig);
	audit__exit(&out);
}

static void cleanup(void)
{
	unlink(out_path);
	rmdir(out_dir);
}

static void setup(void)
{
	if (fuzz_perf__setup_once(out_dir, cleanup))
		snprintf(out_path, sizeof(out_path), "%s/out.data", out_dir);
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
	if (!ret)
		check_no_original_address(in_path);
	close(fd);
	return 0;
}
