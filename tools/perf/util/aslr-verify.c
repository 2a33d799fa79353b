// SPDX-License-Identifier: GPL-2.0
/*
 * perf inject --aslr checks its own output before it is written: no value
 * of the address space of the input may be in it, wherever it is. This does
 * not share the knowledge of the rewrite of which field holds what beyond
 * the layouts of the records: what the rewrite misses, this finds.
 */
#include <byteswap.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/bitmap.h>
#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/sizes.h>
#include <linux/zalloc.h>
#include <internal/lib.h>

#include "aslr-verify.h"
#include "branch.h"
#include "debug.h"
#include "event.h"
#include "evlist.h"
#include "evsel.h"
#include "hashmap.h"
#include "header.h"
#include "redact-check.h"
#ifdef HAVE_LIBTRACEEVENT
#include <event-parse.h>
#endif

/*
 * Values below 4 GiB are looked up in the fields that hold addresses only:
 * elsewhere any two neighbouring 32-bit numbers, or text, read as one value
 * there, where 32-bit recordings have all of their mappings and 64-bit ones
 * their executables that are not position independent.  Nothing is mapped
 * below 64 KiB.  Mappings of 1 TiB or more (sanitizer shadow memory) are not
 * looked up: most values would be in them.
 */
#define ASLR_VERIFY_MIN		0x100000000ULL
#define ASLR_VERIFY_LOW		0x10000ULL
#define ASLR_VERIFY_HUGE	BIT_ULL(40)
/*
 * Values of user space whose low 32 bits are zero too: that is what two
 * neighbouring 32-bit numbers, 0 and n, read as, everywhere in headers and
 * features, and the address of a mapping is one by a chance of one in a
 * million (mmap randomizes its bits 12 to 40 and up).  Not in the kernel's
 * half: its direct map is randomized in 1 GiB steps.
 */
#define ASLR_VERIFY_PAIR_END	BIT_ULL(48)
/*
 * An address out of every mapping that a sample carried is looked for if it
 * is in the kernel's half of the address space, or within 1 GiB of a mapping
 * of the user's (a heap after its executable, a stack below the libraries):
 * the others are not addresses but what a frame pointer walk found on a
 * stack (text, numbers), which the output may hold anywhere.
 */
#define ASLR_VERIFY_NEAR	BIT_ULL(30)
#define ASLR_VERIFY_KERNEL	0xff00000000000000ULL
/* Where the upper half of the address space starts */
#define ASLR_VERIFY_HALF	BIT_ULL(63)
/* PERF_CONTEXT_* callchain markers */
#define ASLR_VERIFY_CONTEXT	(~0ULL - 4095)
/* Unsorted ranges looked up one by one before they are sorted in. */
#define ASLR_VERIFY_PENDING	64
#define ASLR_VERIFY_SPANS	128
#define ASLR_VERIFY_REPORTS	10
/* The output is read in chunks of this size (more than a record). */
#define ASLR_VERIFY_CHUNK	SZ_1M
/*
 * A first test of a value against the address space: a bit for each 4 GiB
 * that a range touches, folded into 2^16 bits so that the kernel's top 4 GiB
 * and the user ones fall apart. Most values of a record are in no such 4 GiB
 * (pids side by side, times, remapped addresses); the others are looked up.
 */
#define ASLR_VERIFY_BUCKETS	BIT(16)

struct aslr_verify_range {
	u64	start;
	u64	end;
};

struct aslr_verify_ranges {
	struct aslr_verify_range *range;
	size_t			nr;
	size_t			alloc;
};

/*
 * Bytes of a record: a field that holds a number is not looked at, one that
 * holds addresses is, whatever their value (elements of 8 or 4 bytes).
 */
enum aslr_verify_span_kind {
	SPAN_OTHER,
	SPAN_NUMBER,
	SPAN_ADDR,
	SPAN_ADDR32,
};

struct aslr_verify_span {
	u32		start;
	u32		end;
	const char	*name;
	u8		kind;
};

struct aslr_verify_spans {
	int			nr;
	struct aslr_verify_span	span[ASLR_VERIFY_SPANS];
	/*
	 * Of a sample: up to @slots_end, its fields are whole 8-byte words
	 * (8-byte fields, u32 pairs, arrays of u64), but for the raw data
	 * in [@raw_start, @raw_end), whose fields can be at any 4-byte offset.
	 */
	u32			slots_end;
	u32			raw_start;
	u32			raw_end;
	/* Of another record: where its sample id fields start, or 0. */
	u32			id_start;
	/*
	 * Of a record whose fields are not found yet: they are, at its first
	 * value in the address space of the input (most records have none).
	 */
	struct evlist		*evlist;
	union perf_event	*event;
};

/* The fields of a tracepoint, their offsets in its raw data. */
struct aslr_verify_tp {
	int			nr;
	struct aslr_verify_span	field[];
};

struct aslr_verify_chunk {
	u64	offset;
	u64	size;
	char	data[];
};

struct aslr_verify {
	/*
	 * The address space of the input: two sorted sets of ranges that
	 * don't overlap, the recent one kept small, and those not sorted in
	 * yet.
	 */
	struct aslr_verify_ranges ranges;
	struct aslr_verify_ranges recent;
	struct aslr_verify_range pending[ASLR_VERIFY_PENDING];
	int			nr_pending;
	/* Lowest and highest of its addresses below 2^63 and from it on */
	u64			lowest[2];
	u64			highest[2];
	DECLARE_BITMAP(buckets, ASLR_VERIFY_BUCKETS);
	/* The names of the types of records, found once each */
	const char		*record_names[PERF_RECORD_HEADER_MAX];
	/* The addresses samples carried, not to add them twice: u64 -> NULL */
	struct hashmap		*addrs;
	/* struct tep_event * -> struct aslr_verify_tp * */
	struct hashmap		*tps;
	/*
	 * Of a pipe: the attrs written, in the order of the events of the
	 * input: the layout of the samples written, where the input's events
	 * have that of the samples read.
	 */
	struct perf_event_attr	*attrs;
	int			nr_attrs;
	/* Of a pipe: offset, bytes of tracing data still to come. */
	u64			stream_offset;
	u64			payload;
	/*
	 * Of a pipe: a copy of its header records (features, attributes,
	 * tracing data, ...), written before most of the address space of
	 * the input is known, checked again at the end: struct
	 * aslr_verify_chunk one after the other.
	 */
	void			*header;
	size_t			header_size;
	size_t			header_alloc;
	bool			enomem;
	/* What was seen and checked. */
	u64			nr_maps;
	u64			nr_huge;
	u64			nr_addrs;
	u64			nr_far;
	u64			records;
	/* Objects written for the output, checked as it is (aslr-dso.h) */
	u64			objects;
	u64			bytes;
	u64			in_space;
	u64			numbers;
	u64			text_numbers;
	u64			straddles;
	u64			pairs;
	u64			hits;
	/* The names --redact replaces, looked for as well (may be NULL) */
	struct redact_check	*names;
	u64			name_hits;
};

static size_t aslr_verify__hash(long key, void *ctx __maybe_unused)
{
	return key * 0x9e3779b97f4a7c15ULL >> 17;
}

static bool aslr_verify__equal(long key1, long key2, void *ctx __maybe_unused)
{
	return key1 == key2;
}

struct aslr_verify *aslr_verify__new(void)
{
	struct aslr_verify *verify = zalloc(sizeof(*verify));

	if (!verify)
		return NULL;
	verify->lowest[0] = verify->lowest[1] = ~0ULL;
	verify->addrs = hashmap__new(aslr_verify__hash, aslr_verify__equal, NULL);
	verify->tps = hashmap__new(aslr_verify__hash, aslr_verify__equal, NULL);
	if (IS_ERR(verify->addrs) || IS_ERR(verify->tps)) {
		if (!IS_ERR(verify->addrs))
			hashmap__free(verify->addrs);
		if (!IS_ERR(verify->tps))
			hashmap__free(verify->tps);
		free(verify);
		return NULL;
	}
	return verify;
}

void aslr_verify__delete(struct aslr_verify *verify)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!verify)
		return;
	hashmap__free(verify->addrs);
	hashmap__for_each_entry(verify->tps, cur, bkt)
		free(cur->pvalue);
	hashmap__free(verify->tps);
	free(verify->attrs);
	free(verify->ranges.range);
	free(verify->recent.range);
	free(verify->header);
	free(verify);
}

static int aslr_verify__range_cmp(const void *a, const void *b)
{
	const struct aslr_verify_range *ra = a, *rb = b;

	return ra->start < rb->start ? -1 : ra->start > rb->start;
}

/* Merge the @nr sorted ranges at @src into @dst, joining what overlaps. */
static int aslr_verify_ranges__merge(struct aslr_verify_ranges *dst,
				     const struct aslr_verify_range *src, size_t nr)
{
	size_t i = dst->nr, j = nr, k = dst->nr + nr, n = 0;
	struct aslr_verify_range *r = dst->range;

	if (k > dst->alloc) {
		size_t alloc = max(k, dst->alloc * 2);

		r = realloc(r, alloc * sizeof(*r));
		if (!r)
			return -ENOMEM;
		dst->range = r;
		dst->alloc = alloc;
	}
	/* From the end, into the room after @dst's own. */
	while (j) {
		if (i && r[i - 1].start > src[j - 1].start)
			r[--k] = r[--i];
		else
			r[--k] = src[--j];
	}
	for (i = 0; i < dst->nr + nr; i++) {
		if (n && r[i].start <= r[n - 1].end) {
			r[n - 1].end = max(r[n - 1].end, r[i].end);
			continue;
		}
		r[n++] = r[i];
	}
	dst->nr = n;
	return 0;
}

/*
 * Sort the pending ranges into the recent ones, and those into the others
 * once they are more than the square root of 64 times as many: each range
 * is copied about 2 * sqrt(n / 64) times as n of them are added, where
 * sorting all of them again would take n log n for every 64.
 */
static int aslr_verify__sort(struct aslr_verify *verify)
{
	struct aslr_verify_ranges *recent = &verify->recent;

	if (!verify->nr_pending)
		return 0;
	qsort(verify->pending, verify->nr_pending, sizeof(verify->pending[0]),
	      aslr_verify__range_cmp);
	if (aslr_verify_ranges__merge(recent, verify->pending, verify->nr_pending))
		goto out_enomem;
	verify->nr_pending = 0;
	if (recent->nr > ASLR_VERIFY_PENDING &&
	    recent->nr * recent->nr > ASLR_VERIFY_PENDING * verify->ranges.nr) {
		if (aslr_verify_ranges__merge(&verify->ranges, recent->range, recent->nr))
			goto out_enomem;
		recent->nr = 0;
	}
	return 0;
out_enomem:
	verify->enomem = true;
	return -ENOMEM;
}

/* Does a range of @ranges start at or before @hi and end after @lo? */
static bool aslr_verify_ranges__meet(const struct aslr_verify_ranges *ranges, u64 lo, u64 hi)
{
	size_t first = 0, last = ranges->nr;

	/* They don't overlap: of those starting before, the last ends last. */
	while (first < last) {
		size_t mid = (first + last) / 2;

		if (ranges->range[mid].start <= hi)
			first = mid + 1;
		else
			last = mid;
	}
	return first && ranges->range[first - 1].end > lo;
}

static u32 aslr_verify__bucket(u64 val)
{
	return ((val >> 32) ^ (val >> 48)) & (ASLR_VERIFY_BUCKETS - 1);
}

static int aslr_verify__add(struct aslr_verify *verify, u64 start, u64 end)
{
	u64 b;

	if (end <= start || end <= ASLR_VERIFY_LOW)
		return 0;
	start = max_t(u64, start, ASLR_VERIFY_LOW);
	if (verify->nr_pending == ASLR_VERIFY_PENDING && aslr_verify__sort(verify))
		return -ENOMEM;
	verify->pending[verify->nr_pending].start = start;
	verify->pending[verify->nr_pending++].end = end;
	if (start < ASLR_VERIFY_HALF) {
		verify->lowest[0] = min(verify->lowest[0], start);
		verify->highest[0] = max(verify->highest[0], min_t(u64, end, ASLR_VERIFY_HALF) - 1);
	}
	if (end > ASLR_VERIFY_HALF) {
		verify->lowest[1] = min(verify->lowest[1], max_t(u64, start, ASLR_VERIFY_HALF));
		verify->highest[1] = max(verify->highest[1], end - 1);
	}
	if (((end - 1) >> 32) - (start >> 32) >= ASLR_VERIFY_BUCKETS) {
		bitmap_fill(verify->buckets, ASLR_VERIFY_BUCKETS);
		return 0;
	}
	for (b = start >> 32; b <= (end - 1) >> 32; b++)
		__set_bit(aslr_verify__bucket(b << 32), verify->buckets);
	return 0;
}

int aslr_verify__add_range(struct aslr_verify *verify, u64 start, u64 len)
{
	u64 end = start + len < start ? ~0ULL : start + len;

	if (len >= ASLR_VERIFY_HUGE) {
		verify->nr_huge++;
		return 0;
	}
	verify->nr_maps++;
	return aslr_verify__add(verify, start, end);
}

/* Does a range of the address space of the input meet [@lo, @hi]? */
static bool aslr_verify__meet(const struct aslr_verify *verify, u64 lo, u64 hi)
{
	int i;

	for (i = 0; i < verify->nr_pending; i++) {
		if (verify->pending[i].end > lo && verify->pending[i].start <= hi)
			return true;
	}
	return aslr_verify_ranges__meet(&verify->recent, lo, hi) ||
	       aslr_verify_ranges__meet(&verify->ranges, lo, hi);
}

/* Is @addr within ASLR_VERIFY_NEAR of a mapping? */
static bool aslr_verify__near(struct aslr_verify *verify, u64 addr)
{
	u64 lo = addr > ASLR_VERIFY_NEAR ? addr - ASLR_VERIFY_NEAR : 0;

	/* [lo, addr + 1 GiB] is in one or two 4 GiB buckets: most are empty. */
	if (!test_bit(aslr_verify__bucket(lo), verify->buckets) &&
	    !test_bit(aslr_verify__bucket(addr + ASLR_VERIFY_NEAR), verify->buckets))
		return false;
	return aslr_verify__meet(verify, lo, addr + ASLR_VERIFY_NEAR);
}

int aslr_verify__add_addr(struct aslr_verify *verify, u64 addr)
{
	int err;

	if (addr < ASLR_VERIFY_LOW || addr >= ASLR_VERIFY_CONTEXT ||
	    hashmap__find(verify->addrs, addr, NULL))
		return 0;
	if (addr < ASLR_VERIFY_KERNEL &&
	    (addr >= BIT_ULL(63) || !aslr_verify__near(verify, addr))) {
		verify->nr_far++;
		return 0;
	}
	err = hashmap__add(verify->addrs, addr, NULL);
	if (err == -EEXIST)
		return 0;
	if (err) {
		verify->enomem = true;
		return err;
	}
	verify->nr_addrs++;
	return aslr_verify__add(verify, addr, addr + 1);
}

/*
 * Is @val between the lowest and the highest address of the input in its
 * half of the address space?  User and kernel addresses of a 64-bit input lie
 * in the two halves, far apart: one hull over both would take in most values
 * of the output, those of the remapped layout as well.
 */
static inline bool aslr_verify__hull(const struct aslr_verify *verify, u64 val)
{
	int half = val >> 63;

	return val >= verify->lowest[half] && val <= verify->highest[half];
}

/*
 * The hulls of aslr_verify__hull() from ASLR_VERIFY_MIN on, as a start and a
 * length each, to test a value against both without a branch.  An empty one
 * holds ASLR_VERIFY_MIN alone: a rare value, tested as any other that passes.
 */
struct aslr_verify_hulls {
	u64	start[2];
	u64	len[2];
};

static void aslr_verify__hulls(const struct aslr_verify *verify, struct aslr_verify_hulls *hulls)
{
	int half;

	for (half = 0; half < 2; half++) {
		u64 lo = max_t(u64, verify->lowest[half], ASLR_VERIFY_MIN);
		u64 hi = verify->highest[half];

		hulls->start[half] = lo > hi ? ASLR_VERIFY_MIN : lo;
		hulls->len[half] = lo > hi ? 0 : hi - lo;
	}
}

static inline bool aslr_verify_hulls__hold(const struct aslr_verify_hulls *hulls, u64 val)
{
	return (val - hulls->start[0] <= hulls->len[0]) | (val - hulls->start[1] <= hulls->len[1]);
}

/*
 * Could @val, of no field known to hold addresses, be in the address space of
 * the input? Most values are not.
 */
static inline bool aslr_verify__maybe(const struct aslr_verify *verify, u64 val)
{
	return aslr_verify__hull(verify, val) && val >= ASLR_VERIFY_MIN &&
	       test_bit(aslr_verify__bucket(val), verify->buckets);
}

/* Is @val in the address space of the input? */
static bool aslr_verify__in_space(struct aslr_verify *verify, u64 val)
{
	if (!aslr_verify__hull(verify, val) || val >= ASLR_VERIFY_CONTEXT ||
	    !test_bit(aslr_verify__bucket(val), verify->buckets))
		return false;
	return aslr_verify__meet(verify, val, val);
}

static void spans__add(struct aslr_verify_spans *spans, u32 start, u32 end,
		       const char *name, u8 kind)
{
	if (spans->nr == ASLR_VERIFY_SPANS || end <= start)
		return;
	spans->span[spans->nr].start = start;
	spans->span[spans->nr].end = end;
	spans->span[spans->nr].name = name;
	spans->span[spans->nr++].kind = kind;
}

/* Are the 8 bytes at @pos in a field that holds addresses? */
static bool spans__addr(const struct aslr_verify_spans *spans, u32 pos)
{
	int i;

	for (i = 0; i < spans->nr; i++) {
		if (spans->span[i].kind == SPAN_ADDR && spans->span[i].start <= pos &&
		    pos + sizeof(u64) <= spans->span[i].end)
			return true;
	}
	return false;
}

/* Are the @len bytes at @pos all in fields holding numbers? */
static bool spans__number(const struct aslr_verify_spans *spans, u32 pos, u32 len)
{
	u32 end = pos + len;
	int i;

	while (pos < end) {
		for (i = 0; i < spans->nr; i++) {
			if (spans->span[i].kind == SPAN_NUMBER && spans->span[i].start <= pos &&
			    pos < spans->span[i].end)
				break;
		}
		if (i == spans->nr)
			return false;
		pos = spans->span[i].end;
	}
	return true;
}

static const char *spans__name(const struct aslr_verify_spans *spans, u32 pos)
{
	int i;

	for (i = spans->nr - 1; i >= 0; i--) {
		if (spans->span[i].start <= pos && pos < spans->span[i].end)
			return spans->span[i].name;
	}
	return NULL;
}

/* What the bytes looked at are, at @offset of the output. */
struct aslr_verify_at {
	u64		offset;
	const char	*what;
};

static void aslr_verify__report(struct aslr_verify *verify, u64 val,
				const struct aslr_verify_at *at,
				const struct aslr_verify_spans *spans, u32 pos, const char *how)
{
	const char *field = spans ? spans__name(spans, pos) : NULL;

	if (++verify->hits > ASLR_VERIFY_REPORTS)
		return;
	pr_err("--aslr: %#" PRIx64 ", an address of the input, at file offset %#" PRIx64
	       " of the output: %s (+%#x)%s%s%s\n", val, at->offset + pos, at->what, pos,
	       field ? ", field " : "", field ?: "", how);
}

static void aslr_verify__event_spans(struct aslr_verify *verify, struct evlist *evlist,
				     union perf_event *event,
				     struct aslr_verify_spans *spans);

/*
 * Are the 8 bytes at @pos, not 8-byte aligned, across two words of a sample,
 * or across the end of another record and its sample id fields?  The end is
 * 8-byte aligned (names are padded) and the fields are whole words: halves
 * of two values (the padding of a COMM's name and the pid after it make
 * 0x7f02_00000000 for pid 0x7f02).
 */
static bool spans__straddle(const struct aslr_verify_spans *spans, u32 pos)
{
	if (spans->id_start && pos < spans->id_start && spans->id_start < pos + sizeof(u64))
		return true;
	return pos + sizeof(u64) <= spans->slots_end &&
	       (pos + sizeof(u64) <= spans->raw_start || pos >= spans->raw_end);
}

/*
 * Are the 8 bytes at @pos the end of one field and the start of the next,
 * from past the start of the first or with a number in one of them?  An
 * address is in one field, that of an 8-byte field looked at where the field
 * starts: in raw tracepoint data a pid and the low half of the pfn after it
 * make 0x1a2b_00005f3a, the high half of a call site and the low half of the
 * pointer after it 0x7f50_fe000000.
 */
static bool spans__across_fields(const struct aslr_verify_spans *spans, u32 pos)
{
	u32 end = pos + sizeof(u64);
	int i, j;

	for (i = 0; i < spans->nr; i++) {
		const struct aslr_verify_span *a = &spans->span[i];

		if (a->start > pos || a->end <= pos || a->end >= end)
			continue;
		for (j = 0; j < spans->nr; j++) {
			const struct aslr_verify_span *b = &spans->span[j];

			if (b->start == a->end && b->end >= end &&
			    (a->start < pos || a->kind == SPAN_NUMBER || b->kind == SPAN_NUMBER))
				return true;
		}
	}
	return false;
}

static void aslr_verify__word(struct aslr_verify *verify, u64 val,
			      const struct aslr_verify_at *at,
			      struct aslr_verify_spans *spans, u32 pos, const char *how)
{
	if (!aslr_verify__in_space(verify, val))
		return;
	verify->in_space++;
	if (spans && spans->event) {
		union perf_event *event = spans->event;

		spans->event = NULL;
		aslr_verify__event_spans(verify, spans->evlist, event, spans);
	}
	if (spans && (((pos & 7) && spans__straddle(spans, pos)) ||
		      spans__across_fields(spans, pos))) {
		verify->straddles++;
		return;
	}
	if (spans && spans__number(spans, pos, sizeof(val))) {
		verify->numbers++;
		return;
	}
	if (!(u32)val && val < ASLR_VERIFY_PAIR_END && !(spans && spans__addr(spans, pos))) {
		verify->pairs++;
		return;
	}
	aslr_verify__report(verify, val, at, spans, pos, how);
}

/* isxdigit() without a call for each byte of the output. */
static const bool aslr_verify__xdigit[256] = {
	['0' ... '9'] = true, ['a' ... 'f'] = true, ['A' ... 'F'] = true,
};

static bool aslr_verify__is_hex(char c)
{
	return aslr_verify__xdigit[(unsigned char)c];
}

static u64 aslr_verify__parse_hex(const char *s, size_t len)
{
	u64 val = 0;
	size_t i;

	for (i = 0; i < len; i++) {
		char c = tolower((unsigned char)s[i]);

		val = val << 4 | (isdigit((unsigned char)c) ? c - '0' : c - 'a' + 10);
	}
	return val;
}

/*
 * Hexadecimal numbers in text: those of 9 to 16 digits could be addresses
 * at or above 4 GiB; of a longer run of digits, its first and last 9 to 16
 * digits, an address glued to other digits.
 */
static void aslr_verify__text(struct aslr_verify *verify, const char *buf, size_t size,
			      const struct aslr_verify_at *at)
{
	size_t i = 0, j, start, len, k;
	u64 val;

	/*
	 * No run of digits crosses i - 1; one of 9 digits or more from i on
	 * has a digit at i + 8: most of a record is not looked at.
	 */
	while (i + 9 <= size) {
		if (!aslr_verify__is_hex(buf[i + 8])) {
			i += 9;
			continue;
		}
		for (start = i + 8; start > i && aslr_verify__is_hex(buf[start - 1]); start--)
			;
		for (j = i + 9; j < size && aslr_verify__is_hex(buf[j]); j++)
			;
		len = j - start;
		/* The whole number, or windows of a longer run. */
		for (k = len <= 16 ? len : 9; k >= 9 && k <= min_t(size_t, len, 16); k++) {
			size_t from[2] = { start, j - k };
			int n;

			for (n = 0; n < 2 && (!n || from[1] != from[0]); n++) {
				val = aslr_verify__parse_hex(buf + from[n], k);
				verify->text_numbers++;
				if (aslr_verify__in_space(verify, val))
					aslr_verify__report(verify, val, at, NULL, from[n],
							    ", as text");
			}
		}
		i = j + 1;
	}
}

/*
 * Every 8-byte value at every 4-byte offset of the @size bytes at @buf,
 * in the byte order of this machine, and in the other one at 8-byte
 * offsets (raw tracepoint data of a file from a machine of the other
 * byte order isn't swapped); and the numbers in text.
 */
static void aslr_verify__scan(struct aslr_verify *verify, const void *buf, size_t size,
			      u64 offset, const char *what,
			      struct aslr_verify_spans *spans)
{
	const struct aslr_verify_at at = { .offset = offset, .what = what, };
	struct aslr_verify_hulls hulls;
	u64 hits;
	u32 pos;

	verify->bytes += size;
	if (aslr_verify__sort(verify))
		return;
	aslr_verify__hulls(verify, &hulls);
	for (pos = 0; pos + sizeof(u64) <= size; pos += sizeof(u64)) {
		u64 val, next = 0, swapped;

		memcpy(&val, buf + pos, sizeof(val));
		swapped = bswap_64(val);
		if (pos + sizeof(u64) + sizeof(u32) <= size)
			memcpy(&next, buf + pos + sizeof(u32), sizeof(next));
		/* Most words of a record are in neither hull: one branch for three. */
		if (!(aslr_verify_hulls__hold(&hulls, val) |
		      aslr_verify_hulls__hold(&hulls, swapped) |
		      aslr_verify_hulls__hold(&hulls, next)))
			continue;
		if (aslr_verify__maybe(verify, val))
			aslr_verify__word(verify, val, &at, spans, pos, "");
		if (aslr_verify__maybe(verify, swapped))
			aslr_verify__word(verify, swapped, &at, spans, pos,
					  ", in the other byte order");
		if (next && aslr_verify__maybe(verify, next))
			aslr_verify__word(verify, next, &at, spans, pos + sizeof(u32), "");
	}
	aslr_verify__text(verify, buf, size, &at);
	hits = redact_check__scan(verify->names, buf, size, offset, what);
	verify->name_hits += hits;
	verify->hits += hits;
}

/*
 * The values below 4 GiB of the fields of @spans that hold addresses (8 or
 * 4 bytes each): any in the address space of the input is one.
 */
static void aslr_verify__low(struct aslr_verify *verify, const void *buf, u64 offset,
			     const char *what, const struct aslr_verify_spans *spans)
{
	const struct aslr_verify_at at = { .offset = offset, .what = what, };
	int i;

	for (i = 0; i < spans->nr; i++) {
		const struct aslr_verify_span *span = &spans->span[i];
		u32 elem = span->kind == SPAN_ADDR ? sizeof(u64) : sizeof(u32);
		u32 pos;

		if (span->kind != SPAN_ADDR && span->kind != SPAN_ADDR32)
			continue;
		for (pos = span->start; pos + elem <= span->end; pos += elem) {
			u64 val = 0;

			memcpy(&val, buf + pos, elem);
			if (val < ASLR_VERIFY_LOW || val >= ASLR_VERIFY_MIN ||
			    !aslr_verify__in_space(verify, val))
				continue;
			verify->in_space++;
			aslr_verify__report(verify, val, &at, spans, pos, "");
		}
	}
}

#ifdef HAVE_LIBTRACEEVENT
/*
 * What @field of @tp holds, by its type alone: a pointer or a long of 4 bytes
 * (a 32-bit kernel's) holds addresses, another integer of 4 bytes or less a
 * number.  Its name doesn't tell (a field named flags or value may hold an
 * address), nor do its values: those of an 8-byte field are all looked at.
 */
static u8 aslr_verify__tp_kind(const struct tep_event *tp, const struct tep_format_field *field)
{
	if (field->flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_STRING | TEP_FIELD_IS_DYNAMIC))
		return SPAN_OTHER;
	if (field->size == sizeof(u32) &&
	    ((field->flags & TEP_FIELD_IS_POINTER) ||
	     ((field->flags & TEP_FIELD_IS_LONG) && tp->tep && tep_get_long_size(tp->tep) == 4)))
		return SPAN_ADDR32;
	if (field->flags & TEP_FIELD_IS_POINTER)
		return SPAN_ADDR;
	return field->size <= (int)sizeof(u32) ? SPAN_NUMBER : SPAN_OTHER;
}

/* The fields of @tp, and whether they hold numbers. */
static struct aslr_verify_tp *aslr_verify__tp(struct aslr_verify *verify, struct tep_event *tp)
{
	struct tep_format_field *field, *lists[2] = { tp->format.common_fields, tp->format.fields };
	struct aslr_verify_tp *fields;
	int n, nr = 0;

	if (hashmap__find(verify->tps, tp, &fields))
		return fields;
	fields = zalloc(sizeof(*fields) + (tp->format.nr_common + tp->format.nr_fields) *
					  sizeof(fields->field[0]));
	if (!fields)
		return NULL;
	for (n = 0; n < 2; n++) {
		for (field = lists[n]; field; field = field->next) {
			struct aslr_verify_span *span = &fields->field[nr];

			if (nr == tp->format.nr_common + tp->format.nr_fields)
				break;
			if (field->offset < 0 || field->size <= 0)
				continue;
			span->start = field->offset;
			span->end = field->offset + field->size;
			span->name = field->name;
			span->kind = aslr_verify__tp_kind(tp, field);
			nr++;
		}
	}
	fields->nr = nr;
	if (hashmap__add(verify->tps, tp, fields)) {
		free(fields);
		return NULL;
	}
	return fields;
}
#endif

/* The fields of the raw data at @pos of a tracepoint sample. */
static void aslr_verify__raw_spans(struct aslr_verify *verify __maybe_unused,
				   struct evsel *evsel __maybe_unused,
				   struct aslr_verify_spans *spans, u32 pos, u32 size)
{
#ifdef HAVE_LIBTRACEEVENT
	struct aslr_verify_tp *fields;
	int i;

	if (evsel->core.attr.type != PERF_TYPE_TRACEPOINT || !evsel->tp_format)
		return;
	fields = aslr_verify__tp(verify, evsel->tp_format);
	for (i = 0; fields && i < fields->nr; i++) {
		const struct aslr_verify_span *f = &fields->field[i];

		if (f->end <= size)
			spans__add(spans, pos + f->start, pos + f->end, f->name, f->kind);
	}
#endif
	spans__add(spans, pos, pos + size, "raw data", SPAN_OTHER);
}

/* A u64 field of a sample, the bit of sample_type that says it has it. */
struct aslr_verify_field {
	u64		bit;
	const char	*name;
	u8		kind;
};

/* Up to the read values */
static const struct aslr_verify_field sample_head[] = {
	{ PERF_SAMPLE_IDENTIFIER,	"id",		SPAN_NUMBER, },
	{ PERF_SAMPLE_IP,		"ip",		SPAN_ADDR, },
	{ PERF_SAMPLE_TID,		"pid/tid",	SPAN_NUMBER, },
	{ PERF_SAMPLE_TIME,		"time",		SPAN_NUMBER, },
	{ PERF_SAMPLE_ADDR,		"addr",		SPAN_ADDR, },
	{ PERF_SAMPLE_ID,		"id",		SPAN_NUMBER, },
	{ PERF_SAMPLE_STREAM_ID,	"stream_id",	SPAN_NUMBER, },
	{ PERF_SAMPLE_CPU,		"cpu",		SPAN_NUMBER, },
	{ PERF_SAMPLE_PERIOD,		"period",	SPAN_NUMBER, },
};

/* After the user registers and stack, up to the interrupt registers */
static const struct aslr_verify_field sample_tail[] = {
	{ PERF_SAMPLE_WEIGHT_TYPE,	"weight",	SPAN_NUMBER, },
	{ PERF_SAMPLE_DATA_SRC,		"data_src",	SPAN_NUMBER, },
	{ PERF_SAMPLE_TRANSACTION,	"transaction",	SPAN_NUMBER, },
};

/* After the interrupt registers */
static const struct aslr_verify_field sample_end[] = {
	{ PERF_SAMPLE_PHYS_ADDR,	"phys_addr",	SPAN_ADDR, },
	{ PERF_SAMPLE_CGROUP,		"cgroup",	SPAN_NUMBER, },
	{ PERF_SAMPLE_DATA_PAGE_SIZE,	"data_page_size", SPAN_NUMBER, },
	{ PERF_SAMPLE_CODE_PAGE_SIZE,	"code_page_size", SPAN_NUMBER, },
};

/*
 * The @nr u64 @fields a sample of @type has, from *@pos: false if past its
 * end, @size.
 */
static bool spans__sample_fields(struct aslr_verify_spans *spans, u64 type,
				 const struct aslr_verify_field *fields, size_t nr,
				 u32 *pos, u32 size)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (!(type & fields[i].bit))
			continue;
		if (*pos + sizeof(u64) > size)
			return false;
		spans__add(spans, *pos, *pos + sizeof(u64), fields[i].name, fields[i].kind);
		*pos += sizeof(u64);
	}
	return true;
}

/* The read values of a sample from *@pos: false if past its end, @size. */
static bool spans__read_values(struct aslr_verify_spans *spans, const void *rec, u64 rf,
			       u32 *pos, u32 size)
{
	u64 one = 1 + !!(rf & PERF_FORMAT_ID) + !!(rf & PERF_FORMAT_LOST);
	u64 times = !!(rf & PERF_FORMAT_TOTAL_TIME_ENABLED) +
		    !!(rf & PERF_FORMAT_TOTAL_TIME_RUNNING);
	u64 nr, len;

	if (*pos + sizeof(u64) > size)
		return false;
	memcpy(&nr, rec + *pos, sizeof(nr));
	if (!(rf & PERF_FORMAT_GROUP))
		nr = 1, one += times, times = 0;
	else
		times++;
	if (nr > size / sizeof(u64))
		return false;
	len = (times + nr * one) * sizeof(u64);
	if (*pos + len > size)
		return false;
	spans__add(spans, *pos, *pos + len, "read values", SPAN_NUMBER);
	*pos += len;
	return true;
}

/* The callchain of a sample from *@pos: false if past its end, @size. */
static bool spans__callchain(struct aslr_verify_spans *spans, const void *rec, u32 *pos,
			     u32 size)
{
	u64 nr;

	if (*pos + sizeof(u64) > size)
		return false;
	memcpy(&nr, rec + *pos, sizeof(nr));
	if (nr > size / sizeof(u64) || *pos + (nr + 1) * sizeof(u64) > size)
		return false;
	spans__add(spans, *pos, *pos + sizeof(u64), "callchain nr", SPAN_NUMBER);
	spans__add(spans, *pos + sizeof(u64), *pos + (nr + 1) * sizeof(u64), "callchain",
		   SPAN_ADDR);
	*pos += (nr + 1) * sizeof(u64);
	return true;
}

/* The raw data of a sample of @evsel from *@pos: false if past its end, @size. */
static bool aslr_verify__raw(struct aslr_verify *verify, struct evsel *evsel,
			     struct aslr_verify_spans *spans, const void *rec, u32 *pos, u32 size)
{
	u32 raw_size;

	if (*pos + sizeof(raw_size) > size)
		return false;
	memcpy(&raw_size, rec + *pos, sizeof(raw_size));
	if (*pos + sizeof(raw_size) + raw_size > size)
		return false;
	spans__add(spans, *pos, *pos + sizeof(raw_size), "raw size", SPAN_NUMBER);
	spans->raw_start = *pos;
	spans->raw_end = *pos + sizeof(raw_size) + raw_size;
	aslr_verify__raw_spans(verify, evsel, spans, *pos + sizeof(raw_size), raw_size);
	*pos += sizeof(raw_size) + raw_size;
	return true;
}

/*
 * The branch stack of a sample from *@pos: false if past its end, @size, or
 * if branch counters follow it (the rest of the sample is looked at).
 */
static bool spans__branch_stack(struct aslr_verify_spans *spans, const void *rec,
				u64 branch_type, u32 *pos, u32 size)
{
	u64 i, nr, len, words = 1 + !!(branch_type & PERF_SAMPLE_BRANCH_HW_INDEX);

	if (*pos + sizeof(u64) > size)
		return false;
	memcpy(&nr, rec + *pos, sizeof(nr));
	if (nr > size / sizeof(struct branch_entry))
		return false;
	len = words * sizeof(u64) + nr * sizeof(struct branch_entry);
	if (*pos + len > size)
		return false;
	spans__add(spans, *pos, *pos + words * sizeof(u64), "branch stack nr", SPAN_NUMBER);
	*pos += words * sizeof(u64);
	for (i = 0; i < nr; i++, *pos += sizeof(struct branch_entry)) {
		spans__add(spans, *pos + offsetof(struct branch_entry, from),
			   *pos + offsetof(struct branch_entry, flags), "branch from and to",
			   SPAN_ADDR);
		spans__add(spans, *pos + offsetof(struct branch_entry, flags),
			   *pos + sizeof(struct branch_entry), "branch flags", SPAN_NUMBER);
	}
	return !(branch_type & PERF_SAMPLE_BRANCH_COUNTERS);
}

/*
 * The fields of a sample as --aslr writes it. Those it can't find are
 * looked at as if no field held a number.
 */
static void aslr_verify__sample_fields(struct aslr_verify *verify, struct evlist *evlist,
				       union perf_event *event,
				       struct aslr_verify_spans *spans)
{
	struct evsel *evsel = evlist ? evlist__event2evsel(evlist, event) : NULL;
	u32 size = event->header.size, pos = sizeof(event->header);
	const struct perf_event_attr *attr;
	u64 type;

	if (!evsel)
		return;
	/* The attr written to a pipe, or the one in the header of the file */
	attr = evsel->core.idx < verify->nr_attrs ? &verify->attrs[evsel->core.idx] :
						    &evsel->core.attr;
	type = attr->sample_type;

	if (!spans__sample_fields(spans, type, sample_head, ARRAY_SIZE(sample_head), &pos, size))
		return;
	if ((type & PERF_SAMPLE_READ) &&
	    !spans__read_values(spans, event, attr->read_format, &pos, size))
		return;
	if ((type & PERF_SAMPLE_CALLCHAIN) && !spans__callchain(spans, event, &pos, size))
		return;
	if ((type & PERF_SAMPLE_RAW) && !aslr_verify__raw(verify, evsel, spans, event, &pos, size))
		return;
	if ((type & PERF_SAMPLE_BRANCH_STACK) &&
	    !spans__branch_stack(spans, event, attr->branch_sample_type, &pos, size))
		return;
	/* Registers and user stacks are looked at, as no field holds a number. */
	if (type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_STACK_USER))
		return;
	/* Interrupt registers: as many as the attr says, looked at. */
	if (spans__sample_fields(spans, type, sample_tail, ARRAY_SIZE(sample_tail), &pos, size) &&
	    !(type & PERF_SAMPLE_REGS_INTR))
		spans__sample_fields(spans, type, sample_end, ARRAY_SIZE(sample_end), &pos, size);
}

/*
 * The fields of a sample and, if they are found to fill it exactly, where
 * its 8-byte words end: a value across two of them (the high half of a
 * zeroed ip and the pid after it, 0x5579_00000000 for pid 0x5579) is not a
 * value of the sample, and in a big file some are bound to be in the input's
 * address space; each field within one word, or spanning whole words, is
 * looked at whole, at an 8-byte offset. A sample whose fields are not found
 * to fill it is looked at every 4 bytes.
 */
static void aslr_verify__sample_spans(struct aslr_verify *verify, struct evlist *evlist,
				      union perf_event *event,
				      struct aslr_verify_spans *spans)
{
	u32 end = 0;
	int i;

	aslr_verify__sample_fields(verify, evlist, event, spans);
	/* Out of room for spans: some fields may not be in. */
	if (spans->nr == ASLR_VERIFY_SPANS)
		return;
	for (i = 0; i < spans->nr; i++)
		end = max(end, spans->span[i].end);
	if (end == event->header.size)
		spans->slots_end = end;
}

/*
 * Whether the pgoff of a user MMAP or MMAP2 named @filename is a file offset:
 * that of a file.  That of anonymous memory, of [vdso] and the like is their
 * address on many kernels, and any other not known.
 */
static bool aslr_verify__file_offset(const char *filename)
{
	static const char * const anon[] = { "//anon", "/dev/zero", "/anon_hugepage", };
	size_t i;

	if (filename[0] != '/')
		return false;
	for (i = 0; i < ARRAY_SIZE(anon); i++) {
		if (!strncmp(filename, anon[i], strlen(anon[i])))
			return false;
	}
	return true;
}

/*
 * The fields of a MMAP or MMAP2 record: those up to pgoff are the same in
 * both.  The file offset of a file mapping of user space is looked at as any
 * bytes are, any other pgoff as an address.
 */
static void spans__mmap(struct aslr_verify_spans *spans, const union perf_event *event)
{
	bool mmap2 = event->header.type == PERF_RECORD_MMAP2;
	bool user = (event->header.misc & PERF_RECORD_MISC_CPUMODE_MASK) !=
		    PERF_RECORD_MISC_KERNEL;
	bool file_offset = user && aslr_verify__file_offset(mmap2 ? event->mmap2.filename :
								      event->mmap.filename);

	spans__add(spans, offsetof(struct perf_record_mmap, pid),
		   offsetof(struct perf_record_mmap, start), "pid/tid", SPAN_NUMBER);
	spans__add(spans, offsetof(struct perf_record_mmap, start),
		   offsetof(struct perf_record_mmap, len), "start", SPAN_ADDR);
	spans__add(spans, offsetof(struct perf_record_mmap, len),
		   offsetof(struct perf_record_mmap, pgoff), "len", SPAN_NUMBER);
	spans__add(spans, offsetof(struct perf_record_mmap, pgoff),
		   offsetof(struct perf_record_mmap, filename), "pgoff",
		   file_offset ? SPAN_OTHER : SPAN_ADDR);
	/* maj, min, ino, ino_generation or the build-id, prot, flags */
	if (mmap2)
		spans__add(spans, offsetof(struct perf_record_mmap2, maj),
			   offsetof(struct perf_record_mmap2, filename),
			   "file id, prot and flags", SPAN_NUMBER);
}

/*
 * The fields of a record other than a sample that hold numbers or
 * addresses, by its type: false if no sample id fields follow them.
 */
static bool spans__record(struct aslr_verify_spans *spans, const union perf_event *event)
{
	switch (event->header.type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		spans__mmap(spans, event);
		break;
	case PERF_RECORD_COMM:
	case PERF_RECORD_ITRACE_START:
		spans__add(spans, sizeof(event->header), sizeof(event->header) + 2 * sizeof(u32),
			   "pid/tid", SPAN_NUMBER);
		break;
	case PERF_RECORD_FORK:
	case PERF_RECORD_EXIT:
		spans__add(spans, sizeof(event->header), sizeof(event->fork), "pids and time",
			   SPAN_NUMBER);
		break;
	case PERF_RECORD_LOST:
	case PERF_RECORD_THROTTLE:
	case PERF_RECORD_UNTHROTTLE:
	case PERF_RECORD_READ:
	case PERF_RECORD_LOST_SAMPLES:
	case PERF_RECORD_SWITCH:
	case PERF_RECORD_SWITCH_CPU_WIDE:
	case PERF_RECORD_NAMESPACES:
	case PERF_RECORD_AUX_OUTPUT_HW_ID:
	case PERF_RECORD_HEADER_TRACING_DATA:
	case PERF_RECORD_FINISHED_ROUND:
	case PERF_RECORD_ID_INDEX:
	case PERF_RECORD_THREAD_MAP:
	case PERF_RECORD_CPU_MAP:
	case PERF_RECORD_STAT_CONFIG:
	case PERF_RECORD_STAT:
	case PERF_RECORD_STAT_ROUND:
	case PERF_RECORD_TIME_CONV:
	case PERF_RECORD_FINISHED_INIT:
		/* ids, counts, times, pids and cpus */
		spans__add(spans, sizeof(event->header), event->header.size, "numbers",
			   SPAN_NUMBER);
		return false;
	case PERF_RECORD_KSYMBOL:
		spans__add(spans, offsetof(struct perf_record_ksymbol, addr),
			   offsetof(struct perf_record_ksymbol, len), "addr", SPAN_ADDR);
		spans__add(spans, offsetof(struct perf_record_ksymbol, len),
			   offsetof(struct perf_record_ksymbol, name), "len, type and flags",
			   SPAN_NUMBER);
		break;
	case PERF_RECORD_TEXT_POKE:
		spans__add(spans, offsetof(struct perf_record_text_poke_event, addr),
			   offsetof(struct perf_record_text_poke_event, old_len), "addr",
			   SPAN_ADDR);
		break;
	case PERF_RECORD_BPF_EVENT:
		spans__add(spans, offsetof(struct perf_record_bpf_event, type),
			   offsetof(struct perf_record_bpf_event, tag), "type, flags, id",
			   SPAN_NUMBER);
		spans__add(spans, offsetof(struct perf_record_bpf_event, tag),
			   sizeof(struct perf_record_bpf_event), "tag", SPAN_NUMBER);
		break;
	case PERF_RECORD_CGROUP:
		spans__add(spans, offsetof(struct perf_record_cgroup, id),
			   offsetof(struct perf_record_cgroup, path), "id", SPAN_NUMBER);
		break;
	case PERF_RECORD_HEADER_BUILD_ID:
		spans__add(spans, offsetof(struct perf_record_header_build_id, pid),
			   offsetof(struct perf_record_header_build_id, filename),
			   "pid and build-id", SPAN_NUMBER);
		return false;
	case PERF_RECORD_EVENT_UPDATE:
		spans__add(spans, offsetof(struct perf_record_event_update, type),
			   offsetof(struct perf_record_event_update, name), "type and id",
			   SPAN_NUMBER);
		return false;
	default:
		break;
	}
	return true;
}

/* The fields of a record that hold numbers or addresses, by its type. */
static void aslr_verify__event_spans(struct aslr_verify *verify, struct evlist *evlist,
				     union perf_event *event,
				     struct aslr_verify_spans *spans)
{
	u32 type = event->header.type, size = event->header.size;
	u32 id_size = 0;

	spans__add(spans, 0, sizeof(event->header), "header", SPAN_NUMBER);
	if (type == PERF_RECORD_SAMPLE) {
		aslr_verify__sample_spans(verify, evlist, event, spans);
		return;
	}
	if (!spans__record(spans, event))
		return;
	/* The sample id fields after the record. */
	if (evlist && type < PERF_RECORD_USER_TYPE_START &&
	    evlist__first(evlist)->core.attr.sample_id_all)
		id_size = evlist__id_hdr_size(evlist);
	if (id_size && id_size <= size - sizeof(event->header)) {
		spans__add(spans, size - id_size, size, "sample id", SPAN_NUMBER);
		if (!((size - id_size) & 7))
			spans->id_start = size - id_size;
	}
}

static const char *aslr_verify__record_name(struct aslr_verify *verify, u32 type)
{
	const char *name;

	if (type < ARRAY_SIZE(verify->record_names) && verify->record_names[type])
		return verify->record_names[type];
	name = perf_event__name(type);
	if (!name || !strcmp(name, "UNKNOWN"))
		name = "a record of unknown type";
	if (type < ARRAY_SIZE(verify->record_names))
		verify->record_names[type] = name;
	return name;
}

int aslr_verify__feature(struct aslr_verify *verify, int feat, const void *buf,
			 size_t size, u64 offset)
{
	struct aslr_verify_spans spans = { .nr = 0, };
	u64 hits = verify->hits;
	char name[32] = "the header";

	if (feat >= 0)
		snprintf(name, sizeof(name), "header feature %d", feat);

	switch (feat) {
	case HEADER_BUILD_ID: {
		/* perf_record_header_build_id, one after the other */
		size_t pos = 0;

		while (pos + sizeof(struct perf_event_header) <= size) {
			const struct perf_event_header *hdr = buf + pos;
			size_t len = hdr->size;

			if (len < sizeof(*hdr) || len > size - pos)
				break;
			spans.nr = 0;
			spans__add(&spans, 0, min_t(size_t, len, 36), "header, pid and build-id",
				   SPAN_NUMBER);
			aslr_verify__scan(verify, buf + pos, len, offset + pos, name, &spans);
			pos += len;
		}
		if (pos < size)
			aslr_verify__scan(verify, buf + pos, size - pos, offset + pos, name, NULL);
		return verify->hits > hits ? -EADDRINUSE : 0;
	}
	case HEADER_SAMPLE_TIME:
	case HEADER_CLOCK_DATA:
	case HEADER_CLOCKID:
		/* times */
		spans__add(&spans, 0, size, "times", SPAN_NUMBER);
		break;
	default:
		break;
	}
	aslr_verify__scan(verify, buf, size, offset, name, &spans);
	return verify->hits > hits ? -EADDRINUSE : 0;
}

int aslr_verify__event(struct aslr_verify *verify, struct evlist *evlist,
		       union perf_event *event, u64 offset)
{
	/* Not all of it zeroed for each record: its fields are found as needed. */
	struct aslr_verify_spans spans;
	u64 hits = verify->hits;

	spans.nr = 0;
	spans.slots_end = 0;
	spans.raw_start = 0;
	spans.raw_end = 0;
	spans.id_start = 0;
	spans.evlist = NULL;
	spans.event = NULL;

	verify->records++;
	if (event->header.type == PERF_RECORD_HEADER_FEATURE &&
	    event->header.size >= sizeof(event->feat)) {
		spans__add(&spans, 0, sizeof(event->feat), "header and feature id", SPAN_NUMBER);
		aslr_verify__scan(verify, event, sizeof(event->feat), offset,
				  "PERF_RECORD_HEADER_FEATURE", &spans);
		return aslr_verify__feature(verify, event->feat.feat_id,
					    (void *)event + sizeof(event->feat),
					    event->header.size - sizeof(event->feat),
					    offset + sizeof(event->feat)) ?:
		       (verify->hits > hits ? -EADDRINUSE : 0);
	}
	spans.evlist = evlist;
	spans.event = event;
	/* Fields that hold addresses are looked at below 4 GiB too. */
	if (verify->lowest[0] < ASLR_VERIFY_MIN) {
		spans.event = NULL;
		aslr_verify__event_spans(verify, evlist, event, &spans);
		aslr_verify__low(verify, event, offset,
				 aslr_verify__record_name(verify, event->header.type), &spans);
	}
	aslr_verify__scan(verify, event, event->header.size, offset,
			  aslr_verify__record_name(verify, event->header.type), &spans);
	return verify->hits > hits ? -EADDRINUSE : 0;
}

/* Keep a copy of @size bytes written at @offset of a pipe. */
static void aslr_verify__keep(struct aslr_verify *verify, const void *buf, size_t size,
			      u64 offset)
{
	size_t need = sizeof(struct aslr_verify_chunk) + PERF_ALIGN(size, sizeof(u64));
	struct aslr_verify_chunk *chunk;

	if (verify->header_size + need > verify->header_alloc) {
		size_t alloc = max(verify->header_alloc * 2, verify->header_size + need);
		void *header = realloc(verify->header, alloc);

		if (!header) {
			verify->enomem = true;
			return;
		}
		verify->header = header;
		verify->header_alloc = alloc;
	}
	chunk = verify->header + verify->header_size;
	chunk->offset = offset;
	chunk->size = size;
	memcpy(chunk->data, buf, size);
	verify->header_size += need;
}

/* Note the attr of a PERF_RECORD_HEADER_ATTR written to a pipe. */
static void aslr_verify__attr(struct aslr_verify *verify, const union perf_event *event)
{
	size_t room = event->header.size - offsetof(struct perf_record_header_attr, attr);
	struct perf_event_attr *attrs;

	if (event->header.size < offsetof(struct perf_record_header_attr, attr) +
				 PERF_ATTR_SIZE_VER0)
		return;
	attrs = realloc(verify->attrs, (verify->nr_attrs + 1) * sizeof(*attrs));
	if (!attrs) {
		verify->enomem = true;
		return;
	}
	verify->attrs = attrs;
	attrs += verify->nr_attrs++;
	memset(attrs, 0, sizeof(*attrs));
	room = min(room, (size_t)(event->attr.attr.size ?: PERF_ATTR_SIZE_VER0));
	memcpy(attrs, &event->attr.attr, min(room, sizeof(*attrs)));
}

static int __aslr_verify__stream(struct aslr_verify *verify, struct evlist *evlist,
				 const void *buf, size_t size, u64 offset, bool keep)
{
	const union perf_event *event = buf;
	int err = 0;

	if (verify->payload) {
		size_t len = min_t(u64, size, verify->payload);

		if (keep)
			aslr_verify__keep(verify, buf, len, offset);
		err = aslr_verify__feature(verify, HEADER_TRACING_DATA, buf, len, offset);
		verify->payload -= len;
		buf += len;
		offset += len;
		size -= len;
		if (err || !size)
			return err;
	}
	if (size < sizeof(event->header) || event->header.size != size) {
		/* Not a record: look at all of it. */
		if (keep)
			aslr_verify__keep(verify, buf, size, offset);
		return aslr_verify__feature(verify, -1, buf, size, offset);
	}
	if (keep && event->header.type >= PERF_RECORD_USER_TYPE_START &&
	    event->header.type != PERF_RECORD_FINISHED_ROUND)
		aslr_verify__keep(verify, buf, size, offset);
	if (keep && event->header.type == PERF_RECORD_HEADER_ATTR)
		aslr_verify__attr(verify, event);
	err = aslr_verify__event(verify, evlist, (union perf_event *)buf, offset);
	if (event->header.type == PERF_RECORD_HEADER_TRACING_DATA)
		verify->payload = event->tracing_data.size;
	return err;
}

int aslr_verify__stream(struct aslr_verify *verify, struct evlist *evlist,
			const void *buf, size_t size)
{
	u64 offset = verify->stream_offset;

	verify->stream_offset += size;
	return __aslr_verify__stream(verify, evlist, buf, size, offset, /*keep=*/true);
}

int aslr_verify__stream_end(struct aslr_verify *verify, struct evlist *evlist)
{
	size_t pos = 0;
	u64 hits = verify->hits;

	if (verify->enomem) {
		pr_err("--aslr: not enough memory to verify the output\n");
		return -ENOMEM;
	}
	verify->payload = 0;
	while (pos < verify->header_size) {
		struct aslr_verify_chunk *chunk = verify->header + pos;

		__aslr_verify__stream(verify, evlist, chunk->data, chunk->size, chunk->offset,
				      /*keep=*/false);
		pos += sizeof(*chunk) + PERF_ALIGN(chunk->size, sizeof(u64));
	}
	return verify->hits > hits ? -EADDRINUSE : 0;
}

/*
 * The records of the data section, from @start to @end of the file open at
 * @fd, read rather than mapped: the page faults of a mapping cost more than
 * the copy, and what is checked needn't stay in memory.
 */
static int aslr_verify__data(struct aslr_verify *verify, struct evlist *evlist, int fd,
			     u64 start, u64 end)
{
	size_t have = 0, at = 0, need;
	u64 base = start;
	void *buf = malloc(ASLR_VERIFY_CHUNK);
	int err = -EINVAL;

	if (!buf) {
		pr_err("--aslr: not enough memory to verify the output\n");
		return -ENOMEM;
	}
	while (base + at < end) {
		union perf_event *event = buf + at;
		u64 left = end - (base + at);
		ssize_t n;

		need = sizeof(event->header);
		if (have - at >= need)
			need = event->header.size;
		if (need < sizeof(event->header) || need > left) {
			pr_err("--aslr: the output has a bad record at offset %#" PRIx64
			       ", can't verify it\n", base + at);
			goto out;
		}
		if (have - at < need) {
			/* The rest of the buffer to its start, then more of the file. */
			memmove(buf, buf + at, have - at);
			base += at;
			have -= at;
			at = 0;
			n = preadn(fd, buf + have, min_t(u64, ASLR_VERIFY_CHUNK - have,
							 end - (base + have)), base + have);
			if (n <= 0) {
				pr_err("--aslr: can't read the output to verify it\n");
				goto out;
			}
			have += n;
			continue;
		}
		aslr_verify__event(verify, evlist, event, base + at);
		at += need;
	}
	err = 0;
out:
	free(buf);
	return err;
}

int aslr_verify__file(struct aslr_verify *verify, struct evlist *evlist, int fd)
{
	const struct perf_file_header *header;
	const struct perf_file_section *sec;
	u64 data_end, end, feat_end;
	struct aslr_verify_spans spans = { .nr = 0, };
	struct stat st;
	void *map;
	int feat, err = -EINVAL;

	if (verify->enomem) {
		pr_err("--aslr: not enough memory to verify the output\n");
		return -ENOMEM;
	}
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(*header)) {
		pr_err("--aslr: can't read the output to verify it\n");
		return -EINVAL;
	}
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		pr_err("--aslr: can't map the output to verify it: %m\n");
		return -errno;
	}
	header = map;
	data_end = header->data.offset + header->data.size;
	if (memcmp(&header->magic, "PERFILE2", sizeof(header->magic)) ||
	    header->data.offset < sizeof(*header) ||
	    data_end < header->data.offset || data_end > (u64)st.st_size) {
		pr_err("--aslr: the output isn't a perf.data file this perf wrote, can't verify it\n");
		goto out;
	}

	/* The header: sizes, offsets and feature bits. */
	spans__add(&spans, 0, sizeof(*header), "file header", SPAN_NUMBER);
	aslr_verify__scan(verify, map, sizeof(*header), 0, "the file header", &spans);
	/* The attributes and their ids. */
	aslr_verify__feature(verify, -1, map + sizeof(*header),
			     header->data.offset - sizeof(*header), sizeof(*header));

	if (aslr_verify__data(verify, evlist, fd, header->data.offset, data_end))
		goto out;

	/* The table of the feature sections, then each one. */
	sec = map + data_end;
	feat_end = data_end;
	for_each_set_bit(feat, header->adds_features, HEADER_FEAT_BITS) {
		if ((void *)(sec + 1) > map + st.st_size) {
			pr_err("--aslr: the output's feature table is cut, can't verify it\n");
			goto out;
		}
		end = sec->offset + sec->size;
		if (end < sec->offset || end > (u64)st.st_size) {
			pr_err("--aslr: a feature section of the output is past its end, can't verify it\n");
			goto out;
		}
		aslr_verify__feature(verify, feat, map + sec->offset, sec->size, sec->offset);
		feat_end = max(feat_end, end);
		sec++;
	}
	spans.nr = 0;
	spans__add(&spans, 0, (void *)sec - (map + data_end), "feature table", SPAN_NUMBER);
	aslr_verify__scan(verify, map + data_end, (void *)sec - (map + data_end), data_end,
			  "the feature table", &spans);
	feat_end = max(feat_end, (u64)((void *)sec - map));
	/* Whatever else there is. */
	if (feat_end < (u64)st.st_size)
		aslr_verify__feature(verify, -1, map + feat_end, st.st_size - feat_end, feat_end);
	err = verify->enomem ? -ENOMEM : 0;
out:
	munmap(map, st.st_size);
	if (!err && verify->hits) {
		if (verify->hits > ASLR_VERIFY_REPORTS)
			pr_err("--aslr: ... and %" PRIu64 " more\n",
			       verify->hits - ASLR_VERIFY_REPORTS);
		err = -EADDRINUSE;
	}
	return err;
}

int aslr_verify__object(struct aslr_verify *verify, const char *path)
{
	u64 hits = verify->hits;
	struct stat st;
	char *what;
	void *map;
	int fd, err = 0;

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		err = -errno;
		pr_err("--aslr: can't read %s to verify it: %m\n", path);
		goto out;
	}
	verify->objects++;
	if (!st.st_size)
		goto out;
	map = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (map == MAP_FAILED) {
		err = -errno;
		pr_err("--aslr: can't map %s to verify it: %m\n", path);
		goto out;
	}
	if (asprintf(&what, "%s, an object written for it", path) < 0) {
		err = -ENOMEM;
	} else {
		aslr_verify__scan(verify, map, st.st_size, 0, what, NULL);
		free(what);
	}
	munmap(map, st.st_size);
	if (!err && verify->hits > hits)
		err = -EADDRINUSE;
out:
	if (fd >= 0)
		close(fd);
	return err;
}

void aslr_verify__check_names(struct aslr_verify *verify, struct redact_check *names)
{
	verify->names = names;
}

u64 aslr_verify__hits(const struct aslr_verify *verify)
{
	return verify->hits;
}

u64 aslr_verify__name_hits(const struct aslr_verify *verify)
{
	return verify->name_hits;
}

void aslr_verify__print_stats(const struct aslr_verify *verify)
{
	pr_debug("aslr: verified the output: %" PRIu64 " records, %" PRIu64 " bytes, against %"
		 PRIu64 " mappings of the input and %" PRIu64
		 " addresses its samples carried out of them (not looked for: %"
		 PRIu64 " mappings of 1 TiB or more, %" PRIu64
		 " values samples carried far from any mapping)\n",
		 verify->records, verify->bytes, verify->nr_maps, verify->nr_addrs,
		 verify->nr_huge, verify->nr_far);
	pr_debug("aslr: verified the output: values in that address space: %" PRIu64
		 " in fields that hold numbers, %" PRIu64
		 " across two words or fields of a record (values of no field), %" PRIu64
		 " of user space with their low 32 bits zero out of address fields, %" PRIu64
		 " elsewhere; hexadecimal numbers in text: %" PRIu64 "\n",
		 verify->numbers, verify->straddles, verify->pairs,
		 verify->in_space - verify->numbers - verify->straddles - verify->pairs,
		 verify->text_numbers);
	if (verify->objects)
		pr_debug("aslr: verified the %" PRIu64 " objects written for the output as well\n",
			 verify->objects);
}
