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
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/compiler.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/perf_event.h>
#include <linux/zalloc.h>

#include "fuzz.h"
#include "fuzz-perf.h"
#include "util/branch.h"
#include "util/data.h"
#include "util/event.h"
#include "util/evlist.h"
#include "util/map.h"
#include "util/sample.h"
#include "util/session.h"
#include "util/tool.h"

/*
 * libtraceevent 1.7.1 (Debian 12) loses a token of a malformed event format
 * on the error path of tep_parse_event(): no pointer to it ever reaches perf,
 * which can't free it (fuzz/open/README).  Only leaks under that call are
 * suppressed: a tep handle perf forgets to free still reports.
 */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:tep_parse_event\n";
}

static char out_dir[] = "/tmp/perf-fuzz-aslr.XXXXXX";
static char out_path[sizeof(out_dir) + 16];
/* The key of --redact: the same tokens for an input each time it is run */
static char key_path[sizeof(out_dir) + 16];

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
			       u64 start, u64 len, u64 pgoff, const char *filename)
{
	u8 cpumode = event->header.misc & PERF_RECORD_MISC_CPUMODE_MASK;

	audit->ranges = audit__grow(audit->ranges, audit->nr_ranges, sizeof(*audit->ranges));
	audit->ranges[audit->nr_ranges++] = (struct range){ start, start + len };
	audit__add_value(audit, start);
	if (len)
		audit__add_value(audit, start + len - 1);
	/*
	 * The pgoff of the kernel text map is the address of its text, of an
	 * entry trampoline the trampoline's address, a file offset else.
	 */
	if ((cpumode == PERF_RECORD_MISC_KERNEL || cpumode == PERF_RECORD_MISC_GUEST_KERNEL) &&
	    (strstr(filename, "]_text") || is_entry_trampoline(filename)))
		audit__add_value(audit, pgoff);
}

static int audit__mmap(const struct perf_tool *tool, union perf_event *event,
		       struct perf_sample *sample __maybe_unused,
		       struct machine *machine __maybe_unused)
{
	audit__add_mapping(container_of(tool, struct audit, tool), event,
			   event->mmap.start, event->mmap.len, event->mmap.pgoff,
			   event->mmap.filename);
	return 0;
}

static int audit__mmap2(const struct perf_tool *tool, union perf_event *event,
			struct perf_sample *sample __maybe_unused,
			struct machine *machine __maybe_unused)
{
	audit__add_mapping(container_of(tool, struct audit, tool), event,
			   event->mmap2.start, event->mmap2.len, event->mmap2.pgoff,
			   event->mmap2.filename);
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

	/* In time order, as perf report: a pipe may hold events before the attr */
	perf_tool__init(&audit->tool, /*ordered_events=*/true);
	audit->tool.mmap = audit__mmap;
	audit->tool.mmap2 = audit__mmap2;
	audit->tool.sample = audit__sample;
	/* The events of a pipe, as perf report reads them */
	audit->tool.attr = perf_event__process_attr;
	audit->tool.event_update = perf_event__process_event_update;
	audit->tool.id_index = perf_event__process_id_index;
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

/* Whether the output, a file, has data: its data section size, at 48. */
static bool output_has_data(void)
{
	FILE *f = fopen(out_path, "r");
	u64 size = 0;

	FUZZ_CHECK(f);
	FUZZ_CHECK(fseek(f, 48, SEEK_SET) == 0);
	FUZZ_CHECK(fread(&size, sizeof(size), 1, f) == 1);
	fclose(f);
	return size != 0;
}

/* The output of perf inject --aslr of @in_path holds none of its addresses. */
static void check_no_original_address(const char *in_path)
{
	struct audit orig = { .nr_ranges = 0, }, out = { .nr_ranges = 0, };
	size_t i;

	/* What perf inject could read, this reads too */
	FUZZ_CHECK(audit__read(&orig, in_path) == 0);
	/*
	 * A file of no events can't be read (nor can perf inject's output of
	 * it), nor one of no data (a pipe of nothing but attrs and what --aslr
	 * drops gives one).
	 */
	if (orig.nr_events && output_has_data())
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
	if (fuzz_perf__setup_once(out_dir, cleanup)) {
		int fd;

		snprintf(out_path, sizeof(out_path), "%s/out.data", out_dir);
		snprintf(key_path, sizeof(key_path), "%s/redact.key", out_dir);
		fd = open(key_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		FUZZ_CHECK(fd >= 0);
		FUZZ_CHECK(write(fd, "a key of the fuzz harness", 25) == 25);
		close(fd);
	}
}

/*
 * A structure-aware mutator: random bytes rarely get past the header, so
 * half of the mutations are of the records themselves, found as perf reads
 * them (a pipe's after its 16 byte header, a file's in its data section).
 * One of: a bit of an attr's sample_type, read_format or flags flipped
 * (what the layout of every sample depends on), a record's size or type
 * changed, a field of a record set to a value that counts, sizes and
 * addresses are checked against or moved by a little, two neighbouring
 * records swapped, and in a pipe a record repeated or removed.  The other
 * half, and inputs that are no perf.data, get libFuzzer's mutations.
 */
#define MUT_MAX_RECORDS	4096
#define MUT_MAX_ATTRS	64

struct mut {
	uint8_t *data;
	size_t size, max_size;
	bool pipe;
	size_t attrs, attr_size, nr_attrs;	/* the file's attrs section */
	size_t rec[MUT_MAX_RECORDS], nr;	/* the offsets of the records */
	uint64_t rand;
};

static const uint64_t mut__values[] = {
	0, 1, 2, 7, 8, 0x7f, 0x80, 0xff, 0x100, 0xfff, 0x1000, 0xffff, 0x10000,
	0x7fffffff, 0x80000000, 0xffffffff, 0x100000000ULL, 0x400000,
	0x7f0000000000ULL, 0xffffffff81000000ULL, PERF_CONTEXT_KERNEL,
	PERF_CONTEXT_USER, 0x7fffffffffffffffULL, ~0ULL - 1, ~0ULL,
};

static size_t mut__below(struct mut *m, size_t n)
{
	/* xorshift64 */
	m->rand ^= m->rand << 13;
	m->rand ^= m->rand >> 7;
	m->rand ^= m->rand << 17;
	return n ? m->rand % n : 0;
}

/* The little endian value of @len bytes at @off (perf.data of this host) */
static uint64_t mut__get(const struct mut *m, size_t off, size_t len)
{
	uint64_t v = 0;

	memcpy(&v, m->data + off, len);
	return v;
}

static void mut__put(struct mut *m, size_t off, uint64_t v, size_t len)
{
	memcpy(m->data + off, &v, len);
}

static size_t mut__rec_size(const struct mut *m, size_t off)
{
	return mut__get(m, off + 6, 2);
}

/* Find the attrs and the records; false if it is no perf.data. */
static bool mut__parse(struct mut *m)
{
	uint64_t hdr_size, off, len;
	size_t pos, end, size;

	if (m->size < 16 || memcmp(m->data, "PERFILE2", 8))
		return false;
	hdr_size = mut__get(m, 8, 8);
	if (hdr_size == 16) {
		m->pipe = true;
		pos = 16;
		end = m->size;
	} else if (hdr_size == 104 && m->size >= 104) {
		m->attr_size = mut__get(m, 16, 8);
		off = mut__get(m, 24, 8);
		len = mut__get(m, 32, 8);
		if (m->attr_size >= PERF_ATTR_SIZE_VER0 && m->attr_size < m->size &&
		    off <= m->size && len <= m->size - off) {
			m->attrs = off;
			m->nr_attrs = len / m->attr_size;
		}
		off = mut__get(m, 40, 8);
		len = mut__get(m, 48, 8);
		if (off > m->size)
			return false;
		pos = off;
		end = off + (len < m->size - off ? len : m->size - off);
	} else {
		return false;
	}
	while (m->nr < MUT_MAX_RECORDS && end - pos >= sizeof(struct perf_event_header)) {
		size = mut__rec_size(m, pos);
		if (size < sizeof(struct perf_event_header) || size > end - pos)
			break;
		m->rec[m->nr++] = pos;
		pos += size;
	}
	return true;
}

/* The offset of a perf_event_attr of the input, 0 if it has none. */
static size_t mut__attr(struct mut *m)
{
	size_t attrs[MUT_MAX_ATTRS], nr = 0, i;

	if (!m->pipe)
		return m->nr_attrs ? m->attrs + mut__below(m, m->nr_attrs) * m->attr_size : 0;
	for (i = 0; i < m->nr && nr < MUT_MAX_ATTRS; i++) {
		if (mut__get(m, m->rec[i], 4) == PERF_RECORD_HEADER_ATTR &&
		    mut__rec_size(m, m->rec[i]) >= 8 + PERF_ATTR_SIZE_VER0)
			attrs[nr++] = m->rec[i] + 8;
	}
	return nr ? attrs[mut__below(m, nr)] : 0;
}

/* One mutation of the records, false if the input has nothing for it. */
static bool mut__records(struct mut *m)
{
	static uint8_t tmp[1 << 16];
	size_t off, size, next_size, i;
	uint64_t v;

	if (!m->nr)
		return false;
	i = mut__below(m, m->nr);
	off = m->rec[i];
	size = mut__rec_size(m, off);

	switch (mut__below(m, 7)) {
	case 0:	/* sample_type, read_format or the flags of an attr */
		off = mut__attr(m);
		if (!off)
			return false;
		off += offsetof(struct perf_event_attr, sample_type) + 8 * mut__below(m, 3);
		mut__put(m, off, mut__get(m, off, 8) ^ (1ULL << mut__below(m, 32)), 8);
		return true;
	case 1:	/* the size of a record */
		v = mut__below(m, 2) ? size + 8 * mut__below(m, 3) - 8 :
				       mut__values[mut__below(m, 14)];
		mut__put(m, off + 6, v, 2);
		return true;
	case 2:	/* the type of a record: a kernel or a user record type */
		v = mut__below(m, 2) ? 1 + mut__below(m, PERF_RECORD_MAX - 1) :
				       PERF_RECORD_USER_TYPE_START +
				       mut__below(m, PERF_RECORD_HEADER_MAX - PERF_RECORD_USER_TYPE_START);
		mut__put(m, off, v, 4);
		return true;
	case 3:	/* a field of a record */
		if (size < 16)
			return false;
		off += 8 + 8 * mut__below(m, (size - 8) / 8);
		v = mut__get(m, off, 8);
		if (mut__below(m, 2))
			v = mut__values[mut__below(m, ARRAY_SIZE(mut__values))];
		else
			v += mut__below(m, 2) ? 1 + mut__below(m, 16) : -(1 + mut__below(m, 16));
		mut__put(m, off, v, 8);
		return true;
	case 4:	/* swap a record and the next one */
		if (i + 1 == m->nr)
			return false;
		next_size = mut__rec_size(m, m->rec[i + 1]);
		memcpy(tmp, m->data + off, size);
		memmove(m->data + off, m->data + off + size, next_size);
		memcpy(m->data + off + next_size, tmp, size);
		return true;
	case 5:	/* a pipe: a record twice */
		if (!m->pipe || size > m->max_size - m->size)
			return false;
		memmove(m->data + off + size, m->data + off, m->size - off);
		m->size += size;
		return true;
	default: /* a pipe: a record less */
		if (!m->pipe)
			return false;
		memmove(m->data + off, m->data + off + size, m->size - off - size);
		m->size -= size;
		return true;
	}
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed);

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size,
			       unsigned int seed)
{
	static struct mut m;

	memset(&m, 0, sizeof(m));
	m.data = data;
	m.size = size;
	m.max_size = max_size;
	m.rand = (seed + 1ULL) * 0x9e3779b97f4a7c15ULL;
	if (mut__below(&m, 2) && mut__parse(&m) && mut__records(&m))
		return m.size;
	return LLVMFuzzerMutate(data, size, max_size);
}

/*
 * An input of odd size goes through --redact=all as well: its rewrite of
 * names and its check of the output; one of size 3 modulo 4 with
 * --redact-basenames.
 */
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char key_opt[sizeof(key_path) + 16];
	const char *argv[] = { "inject", "--aslr", "-i", NULL, "-o", out_path,
			       "--redact=all", key_opt, "--redact-basenames", NULL };
	int argc = size & 1 ? 8 + ((size & 3) == 3) : 6;
	char in_path[64];
	struct stat st;
	int fd, ret;

	setup();
	fd = memfd_create("perf.data", 0);
	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(write(fd, data, size) == (ssize_t)size);
	snprintf(in_path, sizeof(in_path), "/proc/self/fd/%d", fd);
	argv[3] = in_path;
	snprintf(key_opt, sizeof(key_opt), "--redact-key=%s", key_path);
	argv[argc] = NULL;

	unlink(out_path);
	ret = cmd_inject(argc, argv);
	/* A failure leaves nothing under the output name. */
	FUZZ_CHECK(ret == 0 || stat(out_path, &st) < 0);
	FUZZ_CHECK(ret != 0 || !truncated(data, size));
	if (!ret)
		check_no_original_address(in_path);
	close(fd);
	return 0;
}
