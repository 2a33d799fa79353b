// SPDX-License-Identifier: GPL-2.0
/*
 * The check perf inject --aslr makes of its output must find an address of
 * the input wherever it is planted: at each 4-byte offset, in either byte
 * order, in any record, in a header feature, written as text, in an object
 * written for the output; and must let pass the fields that hold numbers,
 * so that it doesn't refuse good files.
 */
#include <byteswap.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kernel.h>
#include <linux/sizes.h>
#include <linux/perf_event.h>
#include "tests.h"
#include "debug.h"
#include "event.h"
#include "evlist.h"
#include "evsel.h"
#include "header.h"
#include "util/aslr-verify.h"
#ifdef HAVE_LIBTRACEEVENT
#include <event-parse.h>
#endif

#define MAP_START	0x7f3a12340000ULL
#define MAP_LEN		0x10000ULL
/* In the mapping, and an address a sample carried out of any mapping. */
#define PLANTED		(MAP_START + 0x1234)
#define CARRIED		0xffff8881deadbe00ULL
/* A heap after the mapping; text a frame pointer walk found, "abcdef". */
#define NEAR		(MAP_START + MAP_LEN + 0x100000)
#define FAR		0x0000666564636261ULL
/* Below 4 GiB, where no value is looked up. */
#define LOW_START	0x400000ULL
/*
 * Low 32 bits zero, as two 32-bit numbers 0 and 0x7f3b read: looked up in
 * address fields only, of user space; of the kernel's direct map, anywhere.
 */
#define PAIR_START	0x7f3b00000000ULL
#define KERNEL_PAIR	0xffff9a4100000000ULL

static void set_name(char *name, const char *s)
{
	memcpy(name, s, strlen(s) + 1);
}

static u64 hits_of(struct aslr_verify *verify, int feat, const void *buf, size_t size)
{
	u64 hits = aslr_verify__hits(verify);

	aslr_verify__feature(verify, feat, buf, size, 0);
	return aslr_verify__hits(verify) - hits;
}

static u64 event_hits(struct aslr_verify *verify, struct evlist *evlist, void *event)
{
	u64 hits = aslr_verify__hits(verify);

	aslr_verify__event(verify, evlist, event, 0);
	return aslr_verify__hits(verify) - hits;
}

static int test__aslr_verify_words(struct test_suite *test __maybe_unused,
				   int subtest __maybe_unused)
{
	struct aslr_verify *verify = aslr_verify__new();
	u64 buf[8], val;
	size_t pos;

	TEST_ASSERT_VAL("new", verify);
	TEST_ASSERT_VAL("range", !aslr_verify__add_range(verify, MAP_START, MAP_LEN));
	TEST_ASSERT_VAL("low range", !aslr_verify__add_range(verify, LOW_START, MAP_LEN));
	TEST_ASSERT_VAL("addr", !aslr_verify__add_addr(verify, CARRIED));
	TEST_ASSERT_VAL("near addr", !aslr_verify__add_addr(verify, NEAR));
	TEST_ASSERT_VAL("far addr", !aslr_verify__add_addr(verify, FAR));
	TEST_ASSERT_VAL("pair range", !aslr_verify__add_range(verify, PAIR_START, MAP_LEN));
	TEST_ASSERT_VAL("kernel pair", !aslr_verify__add_addr(verify, KERNEL_PAIR));

	memset(buf, 0, sizeof(buf));
	TEST_ASSERT_VAL("nothing planted", hits_of(verify, -1, buf, sizeof(buf)) == 0);
	memcpy(buf, "abcdef", 7);
	TEST_ASSERT_VAL("far value looked for", hits_of(verify, -1, buf, sizeof(buf)) == 0);

	for (pos = 0; pos + sizeof(val) <= sizeof(buf); pos += sizeof(u32)) {
		u64 planted[] = { PLANTED, MAP_START, MAP_START + MAP_LEN - 1, CARRIED, NEAR,
				  KERNEL_PAIR };
		size_t i;

		for (i = 0; i < ARRAY_SIZE(planted); i++) {
			memset(buf, 0, sizeof(buf));
			memcpy((void *)buf + pos, &planted[i], sizeof(planted[i]));
			pr_debug("planted %#llx at +%zu\n", (unsigned long long)planted[i], pos);
			TEST_ASSERT_VAL("planted word not found",
					hits_of(verify, -1, buf, sizeof(buf)) >= 1);
		}
		/* Just outside: the end of the mapping, next to the carried one. */
		memset(buf, 0, sizeof(buf));
		val = MAP_START + MAP_LEN;
		memcpy((void *)buf + pos, &val, sizeof(val));
		TEST_ASSERT_VAL("end of mapping found", hits_of(verify, -1, buf, sizeof(buf)) == 0);
		val = CARRIED + 8;
		memcpy((void *)buf + pos, &val, sizeof(val));
		TEST_ASSERT_VAL("neighbour found", hits_of(verify, -1, buf, sizeof(buf)) == 0);
		/* Below 4 GiB, not looked up. */
		val = LOW_START + 0x100;
		memcpy((void *)buf + pos, &val, sizeof(val));
		TEST_ASSERT_VAL("low value found", hits_of(verify, -1, buf, sizeof(buf)) == 0);
		val = PAIR_START;
		memcpy((void *)buf + pos, &val, sizeof(val));
		TEST_ASSERT_VAL("two 32-bit numbers found",
				hits_of(verify, -1, buf, sizeof(buf)) == 0);
		/* In the other byte order, at 8-byte offsets. */
		if (pos % sizeof(u64) == 0) {
			memset(buf, 0, sizeof(buf));
			val = bswap_64(PLANTED);
			memcpy((void *)buf + pos, &val, sizeof(val));
			TEST_ASSERT_VAL("swapped word not found",
					hits_of(verify, -1, buf, sizeof(buf)) >= 1);
		}
	}
	/* The last word of @size bytes, @size a multiple of 4 but not of 8 too. */
	for (pos = 0; pos + sizeof(val) < sizeof(buf); pos += sizeof(u32)) {
		memset(buf, 0, sizeof(buf));
		val = PLANTED;
		memcpy((void *)buf + pos, &val, sizeof(val));
		TEST_ASSERT_VAL("last word not found",
				hits_of(verify, -1, buf, pos + sizeof(val)) >= 1);
	}
	aslr_verify__delete(verify);
	return TEST_OK;
}

/* Found or not at @val, alone in a record of no known field. */
static bool found_at(struct aslr_verify *verify, u64 val)
{
	u64 buf[2] = { val, 0 };

	return hits_of(verify, -1, buf, sizeof(buf)) > 0;
}

#define MANY_BASE	0x550000000000ULL
#define MANY_STEP	0x100000ULL
#define MANY_LEN	0x10000ULL
#define MANY_NR		4099

/*
 * Mappings added in no order, thousands of them as a system wide profile of
 * processes that come and go has: each is found as soon as it is added, and
 * the gaps between them never.
 */
static int test__aslr_verify_many(struct test_suite *test __maybe_unused,
				  int subtest __maybe_unused)
{
	struct aslr_verify *verify = aslr_verify__new();
	u64 i, j, start;

	TEST_ASSERT_VAL("new", verify);
	for (i = 0; i < MANY_NR; i++) {
		/* 1031 is prime to MANY_NR: each slot once, out of order. */
		start = MANY_BASE + (i * 1031 % MANY_NR) * MANY_STEP;

		TEST_ASSERT_VAL("add", !aslr_verify__add_range(verify, start, MANY_LEN));
		if (i % 97 && i != MANY_NR - 1)
			continue;
		for (j = 0; j <= i; j += 1 + j / 8) {
			start = MANY_BASE + (j * 1031 % MANY_NR) * MANY_STEP;
			TEST_ASSERT_VAL("mapping not found",
					found_at(verify, start + MANY_LEN / 2));
			TEST_ASSERT_VAL("gap found", !found_at(verify, start + MANY_LEN));
			TEST_ASSERT_VAL("gap found", !found_at(verify, start - 1));
		}
	}
	/* One across many of them: the gaps it covers are in. */
	start = MANY_BASE + MANY_STEP * 10;
	TEST_ASSERT_VAL("add", !aslr_verify__add_range(verify, start, MANY_STEP * 20));
	for (j = 0; j < 40; j++) {
		u64 gap = MANY_BASE + j * MANY_STEP + MANY_LEN * 2;

		TEST_ASSERT_VAL("covered gap",
				found_at(verify, gap) == (j >= 10 && j < 30));
	}
	aslr_verify__delete(verify);
	return TEST_OK;
}

static int test__aslr_verify_text(struct test_suite *test __maybe_unused,
				  int subtest __maybe_unused)
{
	static const struct {
		const char *text;
		u64 hits;
	} cases[] = {
		{ "perf record -e probe:abs_7f3a12341234 -a", 1 },
		{ "handler=0x7F3A12341234", 1 },
		{ "ffff8881deadbe00", 1 },
		{ "cafe7f3a12341234", 0 },
		{ "0123456789abcdef7f3a12341234", 1 },
		{ "7f3a12341234deadbeefcafe", 1 },
		{ "handler=0xXXXXXXXXXXXX", 0 },
		{ "7f3a12350000 is past the end", 0 },
		{ "sleep 7f3a", 0 },
	};
	struct aslr_verify *verify = aslr_verify__new();
	size_t i;

	TEST_ASSERT_VAL("new", verify);
	TEST_ASSERT_VAL("range", !aslr_verify__add_range(verify, MAP_START, MAP_LEN));
	TEST_ASSERT_VAL("addr", !aslr_verify__add_addr(verify, CARRIED));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		u64 hits = hits_of(verify, HEADER_CMDLINE, cases[i].text, strlen(cases[i].text));

		pr_debug("\"%s\": %llu\n", cases[i].text, (unsigned long long)hits);
		TEST_ASSERT_VAL("text", hits == cases[i].hits);
	}
	aslr_verify__delete(verify);
	return TEST_OK;
}

static int test__aslr_verify_records(struct test_suite *test __maybe_unused,
				     int subtest __maybe_unused)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.size = sizeof(attr),
		.sample_type = PERF_SAMPLE_IP | PERF_SAMPLE_TID | PERF_SAMPLE_TIME |
			       PERF_SAMPLE_CALLCHAIN | PERF_SAMPLE_PERIOD,
		.sample_id_all = 1,
	};
	struct aslr_verify *verify = aslr_verify__new();
	struct evlist *evlist = evlist__new();
	struct evsel *evsel = evsel__new(&attr);
	union {
		union perf_event event;
		u64 words[32];
		char bytes[256];
	} rec;
	u64 *sample = rec.words + 1;
	struct perf_record_header_build_id *bid = (void *)rec.bytes;
	int ret = TEST_FAIL;

	if (!verify || !evlist || !evsel)
		goto out;
	evlist__add(evlist, evsel);
	evsel = NULL;
	evlist__set_id_pos(evlist);
	if (aslr_verify__add_range(verify, MAP_START, MAP_LEN) ||
	    aslr_verify__add_range(verify, LOW_START, MAP_LEN) ||
	    aslr_verify__add_range(verify, PAIR_START, MAP_LEN))
		goto out;

	/* MMAP2: the start and pgoff are looked at, len is a number. */
	memset(&rec, 0, sizeof(rec));
	rec.event.header.type = PERF_RECORD_MMAP2;
	rec.event.header.size = sizeof(rec.event.mmap2) - sizeof(rec.event.mmap2.filename) + 16 +
				evlist__id_hdr_size(evlist);
	set_name(rec.event.mmap2.filename, "/usr/bin/true");
	rec.event.mmap2.len = PLANTED;
	rec.event.mmap2.ino = PLANTED;
	TEST_ASSERT_VAL("mmap2 len or inode found", event_hits(verify, evlist, &rec) == 0);
	rec.event.mmap2.start = PLANTED;
	TEST_ASSERT_VAL("mmap2 start not found", event_hits(verify, evlist, &rec) == 1);
	rec.event.mmap2.start = 0;
	rec.event.mmap2.pgoff = PLANTED;
	TEST_ASSERT_VAL("mmap2 pgoff not found", event_hits(verify, evlist, &rec) == 1);
	rec.event.mmap2.pgoff = 0;
	set_name(rec.event.mmap2.filename, "/tmp/7f3a12341234");
	TEST_ASSERT_VAL("mmap2 name not found", event_hits(verify, evlist, &rec) == 1);
	set_name(rec.event.mmap2.filename, "/usr/bin/true");
	/* Below 4 GiB: in an address field only; a file offset is a number */
	rec.event.mmap2.start = LOW_START;
	TEST_ASSERT_VAL("mmap2 low start not found", event_hits(verify, evlist, &rec) == 1);
	rec.event.mmap2.start = PAIR_START;
	TEST_ASSERT_VAL("mmap2 start, low 32 bits zero, not found",
			event_hits(verify, evlist, &rec) == 1);
	rec.event.mmap2.start = 0;
	rec.event.mmap2.pgoff = LOW_START;
	TEST_ASSERT_VAL("mmap2 low file offset found", event_hits(verify, evlist, &rec) == 0);
	set_name(rec.event.mmap2.filename, "//anon");
	TEST_ASSERT_VAL("mmap2 low anon pgoff not found", event_hits(verify, evlist, &rec) == 1);
	rec.event.mmap2.pgoff = 0;
	set_name(rec.event.mmap2.filename, "/usr/bin/true");
	/* The time of the sample id fields after it */
	rec.words[rec.event.header.size / sizeof(u64) - 1] = PLANTED;
	TEST_ASSERT_VAL("sample id time found", event_hits(verify, evlist, &rec) == 0);

	/*
	 * COMM: across the padding of its name and the pid of its sample id
	 * fields, halves of two values; within the name, looked at.
	 */
	memset(&rec, 0, sizeof(rec));
	rec.event.header.type = PERF_RECORD_COMM;
	rec.event.header.size = sizeof(rec.event.header) + 2 * sizeof(u32) + 16 +
				evlist__id_hdr_size(evlist);
	memcpy(rec.event.comm.comm, "worker-7", 8);
	/* The name is at bytes 16 to 31, the sample id from 32 on. */
	memcpy(rec.bytes + 28, &(u64){ PLANTED }, sizeof(u64));
	TEST_ASSERT_VAL("word across a name and the sample id found",
			event_hits(verify, evlist, &rec) == 0);
	memset(rec.bytes + 28, 0, sizeof(u64));
	memcpy(rec.bytes + 20, &(u64){ PLANTED }, sizeof(u64));
	TEST_ASSERT_VAL("word within a name not found", event_hits(verify, evlist, &rec) == 1);

	/* A sample: ip, pid/tid, time, period, callchain (nr, 2 ips) */
	memset(&rec, 0, sizeof(rec));
	rec.event.header.type = PERF_RECORD_SAMPLE;
	rec.event.header.size = sizeof(rec.event.header) + 7 * sizeof(u64);
	sample[4] = 2;
	TEST_ASSERT_VAL("empty sample", event_hits(verify, evlist, &rec) == 0);
	sample[2] = PLANTED;
	sample[3] = PLANTED;
	/* pid, tid: two numbers next to each other */
	sample[1] = PLANTED;
	TEST_ASSERT_VAL("time, period or pid/tid found", event_hits(verify, evlist, &rec) == 0);
	sample[0] = PLANTED;
	TEST_ASSERT_VAL("ip not found", event_hits(verify, evlist, &rec) == 1);
	sample[0] = LOW_START + 0x100;
	TEST_ASSERT_VAL("low ip not found", event_hits(verify, evlist, &rec) == 1);
	sample[0] = 0;
	sample[3] = LOW_START + 0x100;
	TEST_ASSERT_VAL("low period found", event_hits(verify, evlist, &rec) == 0);
	sample[3] = PLANTED;
	sample[6] = PLANTED;
	TEST_ASSERT_VAL("callchain ip not found", event_hits(verify, evlist, &rec) == 1);
	/* Across pid/tid and time: two fields of numbers. */
	memset(sample, 0, 7 * sizeof(u64));
	sample[4] = 2;
	memcpy((void *)&sample[1] + 4, &(u64){ PLANTED }, sizeof(u64));
	TEST_ASSERT_VAL("word across fields of numbers found",
			event_hits(verify, evlist, &rec) == 0);
	/*
	 * Across two callchain ips, in a sample its fields fill: halves of two
	 * values, each looked at whole (a zeroed ip and a pid after it make
	 * such a word), not a value of the sample.
	 */
	memset(sample, 0, 7 * sizeof(u64));
	sample[4] = 2;
	memcpy((void *)&sample[5] + 4, &(u64){ PLANTED }, sizeof(u64));
	TEST_ASSERT_VAL("word across callchain ips found",
			event_hits(verify, evlist, &rec) == 0);
	/* The same in a sample its fields don't fill: looked at every 4 bytes. */
	rec.event.header.size += sizeof(u64);
	TEST_ASSERT_VAL("word across callchain ips of a sample longer than its fields not found",
			event_hits(verify, evlist, &rec) == 1);
	rec.event.header.size -= sizeof(u64);

	/* A record type with no known layout: all of it is looked at. */
	memset(&rec, 0, sizeof(rec));
	rec.event.header.type = 63;
	rec.event.header.size = 64;
	rec.words[4] = PLANTED;
	TEST_ASSERT_VAL("unknown record not looked at", event_hits(verify, evlist, &rec) == 1);

	/* A build-id record: the build-id is a hash, the name is text. */
	memset(&rec, 0, sizeof(rec));
	bid->header.type = PERF_RECORD_HEADER_BUILD_ID;
	bid->header.size = sizeof(*bid) + 16;
	memcpy(bid->data, &(u64){ PLANTED }, sizeof(u64));
	set_name(bid->filename, "/usr/bin/true");
	TEST_ASSERT_VAL("build-id found", hits_of(verify, HEADER_BUILD_ID, bid,
						  bid->header.size) == 0);
	set_name(bid->filename, "/x/7f3a12341234");
	TEST_ASSERT_VAL("build-id name not found",
			hits_of(verify, HEADER_BUILD_ID, bid, bid->header.size) == 1);

	/* A feature of a pipe. */
	memset(&rec, 0, sizeof(rec));
	rec.event.header.type = PERF_RECORD_HEADER_FEATURE;
	rec.event.header.size = 64;
	rec.event.feat.feat_id = HEADER_CPUDESC;
	rec.words[5] = PLANTED;
	TEST_ASSERT_VAL("feature record not looked at", event_hits(verify, evlist, &rec) == 1);
	ret = TEST_OK;
out:
	evsel__delete(evsel);
	evlist__delete(evlist);
	aslr_verify__delete(verify);
	return ret;
}

#ifdef HAVE_LIBTRACEEVENT
/*
 * A tracepoint whose 8-byte fields are named like numbers: they may hold
 * addresses all the same, the check reads them whatever their name; its
 * fields of 4 bytes hold numbers.
 */
static const char tp_format[] =
	"name: numbers\n"
	"ID: 1000\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:unsigned long flags;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:u64 value;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:long state;\toffset:24;\tsize:8;\tsigned:1;\n"
	"\tfield:int pid;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\tfield:int prio;\toffset:36;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"flags=%lx\", REC->flags\n";

static int test__aslr_verify_tracepoint(struct test_suite *test __maybe_unused,
					int subtest __maybe_unused)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_TRACEPOINT,
		.config = 1000,
		.size = sizeof(attr),
		.sample_type = PERF_SAMPLE_TID | PERF_SAMPLE_TIME | PERF_SAMPLE_RAW,
	};
	struct aslr_verify *verify = aslr_verify__new();
	struct tep_handle *tep = tep_alloc();
	struct evlist *evlist = evlist__new();
	struct evsel *evsel = evsel__new(&attr);
	union {
		union perf_event event;
		u64 words[16];
	} rec;
	/* pid/tid, time, then the size of the raw data and the data */
	void *raw = (void *)&rec.words[3] + sizeof(u32);
	struct tep_event *tp = NULL;
	static const size_t named[] = { 8, 16, 24 };
	int ret = TEST_FAIL;
	size_t i;

	if (!verify || !tep || !evlist || !evsel)
		goto out;
	tep_set_long_size(tep, sizeof(u64));
	if (tep_parse_format(tep, &tp, tp_format, sizeof(tp_format) - 1, "test") || !tp)
		goto out;
	evsel->tp_format = tp;
	evlist__add(evlist, evsel);
	evlist__set_id_pos(evlist);
	if (aslr_verify__add_range(verify, MAP_START, MAP_LEN))
		goto out;

	memset(&rec, 0, sizeof(rec));
	rec.event.header.type = PERF_RECORD_SAMPLE;
	rec.event.header.size = sizeof(rec.event.header) + 3 * sizeof(u64) + 44;
	memcpy(&rec.words[3], &(u32){ 44 }, sizeof(u32));
	TEST_ASSERT_VAL("empty tracepoint sample", event_hits(verify, evlist, &rec) == 0);
	for (i = 0; i < ARRAY_SIZE(named); i++) {
		memcpy(raw + named[i], &(u64){ PLANTED }, sizeof(u64));
		pr_debug("planted at raw data +%zu\n", named[i]);
		TEST_ASSERT_VAL("field named like a number not looked at",
				event_hits(verify, evlist, &rec) == 1);
		memset(raw + named[i], 0, sizeof(u64));
	}
	/* Two fields of 4 bytes: numbers, even read as one value */
	memcpy(raw + 32, &(u64){ PLANTED }, sizeof(u64));
	TEST_ASSERT_VAL("two int fields found", event_hits(verify, evlist, &rec) == 0);
	memset(raw + 32, 0, sizeof(u64));
	/* A pid and the low half of the field after it: two values */
	memcpy(raw + 4, &(u64){ PLANTED }, sizeof(u64));
	TEST_ASSERT_VAL("common_pid and half of flags found",
			event_hits(verify, evlist, &rec) == 0);
	memset(raw + 4, 0, sizeof(u64));
	/* Halves of two 8-byte fields: two values */
	memcpy(raw + 12, &(u64){ PLANTED }, sizeof(u64));
	TEST_ASSERT_VAL("halves of flags and value found",
			event_hits(verify, evlist, &rec) == 0);
	memset(raw + 12, 0, sizeof(u64));
	/* Past the last field, in data of no field: looked at */
	memcpy(raw + 36, &(u64){ PLANTED }, sizeof(u64));
	TEST_ASSERT_VAL("half of prio and what follows not looked at",
			event_hits(verify, evlist, &rec) == 1);
	ret = TEST_OK;
out:
	evlist__delete(evlist);
	if (!evlist)
		evsel__delete(evsel);
	tep_free(tep);
	aslr_verify__delete(verify);
	return ret;
}
#endif

/* Not a divisor of 1 MB: a record of each chunk is cut at its end. */
#define FILE_RECORD	4000
#define FILE_RECORDS	1024

/*
 * A file of 4 MB of records, read in chunks of 1 MB: an address planted in
 * each quarter is found, and one in the record across the end of the first
 * chunk.
 */
static int test__aslr_verify_file(struct test_suite *test __maybe_unused,
				  int subtest __maybe_unused)
{
	size_t size = sizeof(struct perf_file_header) + FILE_RECORD * FILE_RECORDS;
	struct aslr_verify *verify = aslr_verify__new();
	struct evlist *evlist = evlist__new();
	struct perf_file_header *header;
	char path[PATH_MAX];
	void *buf = calloc(1, size);
	int i, fd = -1, err = TEST_FAIL;
	u64 planted = PLANTED;

	if (!verify || !evlist || !buf)
		goto out;
	header = buf;
	memcpy(&header->magic, "PERFILE2", sizeof(header->magic));
	header->size = sizeof(*header);
	header->data.offset = sizeof(*header);
	header->data.size = FILE_RECORD * FILE_RECORDS;
	for (i = 0; i < FILE_RECORDS; i++) {
		struct perf_event_header *rec = buf + sizeof(*header) + i * FILE_RECORD;

		/* Of a type this perf doesn't know: all of it is looked at. */
		rec->type = PERF_RECORD_HEADER_MAX + 10;
		rec->size = FILE_RECORD;
		if (i % (FILE_RECORDS / 4) == FILE_RECORDS / 8 || i == SZ_1M / FILE_RECORD)
			memcpy((void *)rec + FILE_RECORD / 2, &planted, sizeof(planted));
	}
	snprintf(path, sizeof(path), "/tmp/perf-aslr-verify-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		goto out;
	unlink(path);
	if (aslr_verify__add_range(verify, MAP_START, MAP_LEN) ||
	    write(fd, buf, size) != (ssize_t)size)
		goto out;
	if (aslr_verify__file(verify, evlist, fd) == -EADDRINUSE &&
	    aslr_verify__hits(verify) == 5)
		err = TEST_OK;
	else
		pr_debug("planted addresses found: %" PRIu64 " of 5\n", aslr_verify__hits(verify));
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	evlist__delete(evlist);
	aslr_verify__delete(verify);
	return err;
}

/* Write @size bytes to a new file, its path in @path (PATH_MAX). */
static int write_object(char *path, const void *buf, size_t size)
{
	int fd;

	snprintf(path, PATH_MAX, "/tmp/perf-aslr-verify-XXXXXX");
	fd = mkstemp(path);
	if (fd < 0)
		return -1;
	if (write(fd, buf, size) != (ssize_t)size) {
		close(fd);
		unlink(path);
		return -1;
	}
	close(fd);
	return 0;
}

static int object_check(struct aslr_verify *verify, const void *buf, size_t size)
{
	char path[PATH_MAX];
	int ret;

	if (write_object(path, buf, size))
		return -1;
	ret = aslr_verify__object(verify, path);
	unlink(path);
	return ret;
}

static int test__aslr_verify_objects(struct test_suite *test __maybe_unused,
				     int subtest __maybe_unused)
{
	struct aslr_verify *verify = aslr_verify__new();
	char buf[256];
	u64 val = PLANTED;
	size_t pos;

	TEST_ASSERT_VAL("new", verify);
	TEST_ASSERT_VAL("range", !aslr_verify__add_range(verify, MAP_START, MAP_LEN));

	memset(buf, 0, sizeof(buf));
	TEST_ASSERT_VAL("nothing planted", object_check(verify, buf, sizeof(buf)) == 0);
	for (pos = 0; pos + sizeof(val) <= sizeof(buf); pos += sizeof(u32)) {
		memset(buf, 0, sizeof(buf));
		memcpy(buf + pos, &val, sizeof(val));
		TEST_ASSERT_VAL("planted word not found",
				object_check(verify, buf, sizeof(buf)) == -EADDRINUSE);
	}
	memset(buf, 0, sizeof(buf));
	snprintf(buf + 3, sizeof(buf) - 3, "fn_%llx", (unsigned long long)PLANTED);
	TEST_ASSERT_VAL("planted text not found",
			object_check(verify, buf, sizeof(buf)) == -EADDRINUSE);
	TEST_ASSERT_VAL("missing object", aslr_verify__object(verify, "/nonexistent/x") < 0);
	aslr_verify__delete(verify);
	return TEST_OK;
}

static struct test_case tests__aslr_verify[] = {
	TEST_CASE("Every word at every 4-byte offset", aslr_verify_words),
	TEST_CASE("Thousands of mappings in no order", aslr_verify_many),
	TEST_CASE("Numbers written as text", aslr_verify_text),
	TEST_CASE("Fields of records and features", aslr_verify_records),
#ifdef HAVE_LIBTRACEEVENT
	TEST_CASE("Fields of tracepoints, whatever their name", aslr_verify_tracepoint),
#endif
	TEST_CASE("Records of a file, read in chunks", aslr_verify_file),
	TEST_CASE("Objects written for the output", aslr_verify_objects),
	{ .name = NULL, }
};

struct test_suite suite__aslr_verify = {
	.desc = "perf inject --aslr output verifier",
	.test_cases = tests__aslr_verify,
};
