// SPDX-License-Identifier: GPL-2.0
/*
 * Rewrite the addresses in a perf event stream into a synthetic layout.
 *
 * The original layout is tracked in a private 'struct machines', fed with the
 * original MMAP, MMAP2, COMM, FORK, EXIT and KSYMBOL events. Every mapping is
 * given a remapped position when it is first seen. The remap table is keyed by
 * (machine, address space, dso, invariant) where the invariant is
 * start - pgoff, which perf keeps when it splits a map because another one
 * overlaps it, so all the pieces of one VMA resolve to the same delta.
 * Anonymous memory has no file offset, so it is tracked with pgoff 0, which
 * makes the invariant the start of the original region.
 *
 * Remapped positions are handed out per address space (the kernel being one
 * address space shared by all tasks) from a cursor starting at a fixed base.
 * A mapping that was contiguous with the previous one stays contiguous, a
 * mapping inside an existing one keeps its offset in it, anything else is
 * placed one page after the last mapping. So the output keeps the order and
 * the sizes of the mappings, but no distance between unrelated regions.
 */
#include <byteswap.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <internal/lib.h> // page_size
#include <linux/build_bug.h>
#include <linux/err.h>
#include <linux/ctype.h>
#include <linux/hash.h>
#include <linux/kernel.h>
#include <linux/time64.h>
#include <linux/zalloc.h>

#include "addr_location.h"
#include "aslr.h"
#include "aslr-dso.h"
#include "aslr-layout.h"
#include "aslr-verify.h"
#include "redact.h"
#include "redact-check.h"
#include "build-id.h"
#include "copyfile.h"
#include "branch.h"
#include "callchain.h"
#include "data.h"
#include "debug.h"
#include "dso.h"
#include "env.h"
#include "event.h"
#include "evlist.h"
#include "evsel.h"
#include "header.h"
#include "machine.h"
#include "map.h"
#include "maps.h"
#include "sample.h"
#include "session.h"
#include "string2.h"
#include "symbol.h"
#include "symbol_conf.h"
#include "synthetic-events.h"
#include "thread.h"
#include "unwind.h"
#include "util.h"
#include "vdso.h"
#include "pmus.h"
#include "util/hashmap.h"
#ifdef HAVE_LIBTRACEEVENT
#include <traceevent/event-parse.h>
#endif

/*
 * The stand-ins for addresses in no mapping (tracepoint fields) are 16 bytes
 * apart, in the regions of the layout (aslr-layout.c) for them.
 */
#define ASLR_ALIAS_STEP		16
/* KASLR moves the kernel in units of this, keep the offset within it. */
#define ASLR_KERNEL_ALIGN	0x200000ULL

#define aslr__err(file_offset, fmt, ...)				\
	pr_err("--aslr: event at file offset %#llx: " fmt "\n",		\
	       (unsigned long long)(file_offset), ##__VA_ARGS__)

/* Address space id of the kernel. */
#define ASLR_KERNEL_ASID	-1

/*
 * Registers hold addresses (ip, sp, anything in general purpose registers)
 * that can't be told apart from other values: they are cut out of the
 * samples and out of the attributes, and so is the user stack, once
 * unwound (aslr__unwind_sample()).
 */
#define ASLR_CUT_SAMPLE_TYPES						\
	(PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR | PERF_SAMPLE_STACK_USER)

/*
 * The last mappings addresses were found in, for an address space and a
 * cpumode: most addresses of a sample and of the next ones are in the same
 * few mappings (the program, the C library, the kernel), a call graph goes
 * from one to another. Not a reference on the maps, the cache is reset by
 * any event that changes the layout or the threads.
 */
#define ASLR_MAP_CACHE	8
#define ASLR_THREAD_CACHE	4

struct aslr_map_cache {
	/* The maps of the thread, NULL for the kernel ones, shared by all. */
	const struct maps	*maps;
	/* The DSO of the mapping, whether it was told hit (see dso_hit). */
	struct dso		*dso;
	u64			start;
	u64			end;
	u64			delta;
	u8			cpumode;
	bool			hit;
};

/* The last address found in no mapping of an address space and a cpumode. */
struct aslr_map_miss {
	const struct maps	*maps;
	u64			addr;
	u8			cpumode;
	bool			valid;
	/* Told to the check of the output. */
	bool			verified;
};

#define ASLR_STAT_WHYS	4

/* What happened to the records of a type. */
struct aslr_stat {
	u64		kept;
	u64		rewritten;
	u64		dropped;
	/* The first different reasons to drop them. */
	const char	*why[ASLR_STAT_WHYS];
};

struct aslr_key {
	struct machine	*machine;
	struct dso	*dso;
	u64		invariant;
	int		asid;
};

struct aslr_remap {
	struct aslr_key	key;
	/* Added to an original address to get the remapped one. */
	u64		delta;
	/* The next remap of the same address space. */
	struct aslr_remap *next;
};

struct aslr_space {
	struct machine	*machine;
	int		asid;
	bool		used;
	/* Next free remapped address, page aligned. */
	u64		next;
	/* End of the last mapping, original and remapped. */
	u64		last_orig_end;
	u64		last_new_end;
	/*
	 * The process exited: its layout is kept for the samples that come
	 * after its exit (off-CPU samples), until its pid is reused.
	 * Set by the exit of its main thread; without aslr->keep_exited, the
	 * layout also goes with the last of its threads (__aslr__retire()).
	 */
	bool		exited;
	/* The remaps of this address space, also in aslr->remaps. */
	struct aslr_remap *remaps;
};

struct aslr {
	/* The tool the rewritten events are passed to, and its callbacks. */
	const struct perf_tool	*delegate;
	struct perf_tool	out;
	/*
	 * Where the output's mappings go, for the architecture of the input:
	 * of a pipe, found when the first mapping or sample comes.
	 */
	struct aslr_layout	layout;
	bool			is_pipe;
	/* The events of the input: the sample id fields of a record */
	struct evlist		*evlist;
	/* The original layout. */
	struct machines		machines;
	/* struct aslr_key * -> struct aslr_remap * */
	struct hashmap		*remaps;
	/* struct aslr_space * -> struct aslr_space * */
	struct hashmap		*spaces;
	u64			kernel_delta;
	bool			have_kernel_delta;
	union perf_event	*buf;
	struct aslr_stat	stats[PERF_RECORD_HEADER_MAX];
	/*
	 * For kernel and user addresses, the next entry to replace, and the
	 * last address in no mapping: a frame pointer walk that went astray
	 * gives the same value over and over (up to --max-stack).
	 */
	struct aslr_map_cache	map_cache[2][ASLR_MAP_CACHE];
	u8			map_cache_next[2];
	/* The entry that found the last address, tried first (NULL: none). */
	struct aslr_map_cache	*map_last[2];
	struct aslr_map_miss	map_miss[2];
	/*
	 * The threads of the last samples, references, and the next one to
	 * replace: the samples of a few threads come in turns. Reset with the
	 * map cache.
	 */
	struct thread		*threads[ASLR_THREAD_CACHE];
	u8			threads_next;
	/*
	 * Samples that had their registers cut out, physical address zeroed,
	 * the raw data of an event that is not a tracepoint (its layout is not
	 * known) or their AUX area data dropped.
	 */
	u64			regs_stripped;
	u64			phys_zeroed;
	u64			raw_dropped;
	u64			aux_dropped;
	/* Kernel maps cut to the size a kernel image can have */
	u64			kernel_clipped;
	/*
	 * The parts of the sample being written: its callchain, branch stack
	 * and raw data, PERF_SAMPLE_MAX_SIZE bytes each.
	 */
	u64			*chain;
	struct branch_stack	*branches;
	void			*raw;
	/*
	 * Samples whose user stack dump was unwound into the callchain, and
	 * those whose user call graph was lost (it could not be unwound).
	 */
	u64			unwound;
	u64			unwind_lost;
	/*
	 * Tracepoint fields holding addresses: remapped, or given a stand-in
	 * when in no mapping. The address fields of each tracepoint format,
	 * looked up once: struct tep_event * -> struct aslr_tp_fields *.
	 */
	u64			tp_remapped;
	u64			tp_aliased;
	u64			tp_zeroed;
	/* Tracepoint samples with bytes in no field that weren't zero. */
	u64			tp_stale;
	/* Numbers in tracepoint text that could be addresses, masked. */
	u64			tp_masked;
	/* Numbers in event names that could be addresses, replaced. */
	u64			names_renamed;
	struct hashmap		*tp_fields;
	/*
	 * The stand-ins of addresses in no mapping, the n-th address seen
	 * getting the n-th one: u64 * -> struct aslr_alias *.
	 */
	struct hashmap		*aliases;
	u64			nr_aliases[2];
	/* Attributes of a later perf whose fields past ours were zeroed. */
	u64			attr_tails_zeroed;
	/* Records with stale bytes after their name, zeroed */
	u64			name_tails_zeroed;
	/* What else than addresses is replaced (--redact), may be NULL */
	struct redact		*redact;
	/* The names it replaces, for the check of the output */
	struct redact_check	*names;
	/*
	 * The objects written for the output (aslr-dso.h), in dso_dir: their
	 * paths, for the check of the output; the copies of jitted objects,
	 * by the path of the original (char * -> char *).
	 */
	char			*dso_dir;
	char			**dsos;
	size_t			nr_dsos;
	/* The copy of kallsyms written for the output, and its build-id */
	char			*kallsyms;
	struct build_id		kallsyms_bid;
	u64			kallsyms_dropped;
	struct hashmap		*jitted;
	/* The longest symbol of each perf map (dso -> struct aslr_perf_map_span). */
	struct hashmap		*perf_map_spans;
	u64			perf_map_dsos;
	u64			perf_map_syms;
	/*
	 * Keep the threads and the layouts of exited processes to the end:
	 * the input has samples written after the exit of their process.
	 * Else they are dropped in time (struct aslr_exited, in exit order).
	 */
	bool			keep_exited;
	struct list_head	exited;
	/* The time of the recording when the first of them is dropped. */
	u64			retire_at;
	u64			nr_retired;
	/*
	 * The check of the output, fed the address space of the input, but
	 * for the mappings and addresses already in the canonical layout.
	 */
	struct aslr_verify	*verify;
	u64			canonical_inputs;
	/*
	 * Told the first time the ip, the callchain or the unwound frames of
	 * a sample are found in a DSO (whose hit flag, in the original
	 * layout, says it was).
	 */
	aslr_dso_hit_fn		dso_hit;
	/* Told when a thread that exited can go, see aslr__set_retire() */
	aslr_retire_fn		retire;
};

/*
 * What the rewrite of a sample needs, passed along: the original layout and
 * thread of the sample, and the sample to tell the DSOs its addresses are
 * found in (NULL: none to tell, as for data addresses).
 */
struct aslr_sample_ctx {
	struct machine		*machine;
	struct thread		*thread;
	struct perf_sample	*hit_sample;
	/* The address looked up is the sample's ip */
	bool			is_ip;
	/* The first error telling a DSO hit */
	int			err;
};

static void aslr__count(struct aslr *aslr, u32 type, bool rewritten)
{
	if (type >= PERF_RECORD_HEADER_MAX)
		return;
	if (rewritten)
		aslr->stats[type].rewritten++;
	else
		aslr->stats[type].kept++;
}

static void aslr__count_dropped_nr(struct aslr *aslr, u32 type, u64 nr, const char *why)
{
	struct aslr_stat *st;
	int i;

	if (!aslr || !nr || type >= PERF_RECORD_HEADER_MAX)
		return;
	st = &aslr->stats[type];
	st->dropped += nr;
	for (i = 0; i < ASLR_STAT_WHYS; i++) {
		if (!st->why[i])
			st->why[i] = why;
		if (st->why[i] == why)
			break;
	}
}

void aslr__count_dropped(struct aslr *aslr, u32 type, const char *why)
{
	aslr__count_dropped_nr(aslr, type, 1, why);
}

static size_t aslr_key__hash(long key, void *ctx __maybe_unused)
{
	const struct aslr_key *k = (const struct aslr_key *)key;
	size_t h = (size_t)k->machine;

	h = h * 31 + (size_t)RC_CHK_ACCESS(k->dso);
	h = h * 31 + (size_t)k->invariant;
	h = h * 31 + (size_t)k->asid;
	return h;
}

static bool aslr_key__equal(long key1, long key2, void *ctx __maybe_unused)
{
	const struct aslr_key *a = (const struct aslr_key *)key1;
	const struct aslr_key *b = (const struct aslr_key *)key2;

	return a->machine == b->machine && a->asid == b->asid &&
	       a->invariant == b->invariant && RC_CHK_EQUAL(a->dso, b->dso);
}

static size_t aslr_space__hash(long key, void *ctx __maybe_unused)
{
	const struct aslr_space *s = (const struct aslr_space *)key;

	return (size_t)s->machine * 31 + (size_t)s->asid;
}

static bool aslr_space__equal(long key1, long key2, void *ctx __maybe_unused)
{
	const struct aslr_space *a = (const struct aslr_space *)key1;
	const struct aslr_space *b = (const struct aslr_space *)key2;

	return a->machine == b->machine && a->asid == b->asid;
}

static size_t aslr_ptr__hash(long key, void *ctx __maybe_unused)
{
	return key;
}

static size_t aslr_u64__hash(long key, void *ctx __maybe_unused)
{
	return hash_64(*(const u64 *)key, 32);
}

static bool aslr_u64__equal(long key1, long key2, void *ctx __maybe_unused)
{
	return *(const u64 *)key1 == *(const u64 *)key2;
}

static bool aslr_ptr__equal(long key1, long key2, void *ctx __maybe_unused)
{
	return key1 == key2;
}

static size_t aslr_str__hash(long key, void *ctx __maybe_unused)
{
	return str_hash((const char *)key);
}

static bool aslr_str__equal(long key1, long key2, void *ctx __maybe_unused)
{
	return !strcmp((const char *)key1, (const char *)key2);
}

static void aslr__forget_space(struct aslr *aslr, struct machine *machine, int pid);
static void aslr__reset_caches(struct aslr *aslr);
static int aslr__find_layout(struct aslr *aslr);

/* The layout of an address space, NULL if it has none yet. */
static struct aslr_space *aslr__find_space(struct aslr *aslr,
					   struct machine *machine, int asid)
{
	struct aslr_space key = { .machine = machine, .asid = asid };
	struct aslr_space *space;

	return hashmap__find(aslr->spaces, &key, &space) ? space : NULL;
}

/* The layout of a process, a new one if its pid was used by an exited one. */
static struct aslr_space *aslr__findnew_space(struct aslr *aslr,
					      struct machine *machine, int asid)
{
	struct aslr_space key = { .machine = machine, .asid = asid };
	struct aslr_space *space = aslr__find_space(aslr, machine, asid);

	if (space) {
		if (!space->exited)
			return space;
		aslr__forget_space(aslr, machine, asid);
	}

	space = zalloc(sizeof(*space));
	if (!space)
		return NULL;

	*space = key;
	space->next = asid == ASLR_KERNEL_ASID ? aslr->layout.kernel : aslr->layout.user;
	if (hashmap__add(aslr->spaces, space, space)) {
		free(space);
		return NULL;
	}
	return space;
}

static void aslr_remap__delete(struct aslr_remap *remap)
{
	dso__put(remap->key.dso);
	free(remap);
}

static struct aslr_remap *aslr__find_remap(struct aslr *aslr,
					   struct machine *machine, int asid,
					   const struct map *map)
{
	struct aslr_key key = {
		.machine = machine,
		.dso = map__dso(map),
		.invariant = map__start(map) - map__pgoff(map),
		.asid = asid,
	};
	struct aslr_remap *remap;

	if (hashmap__find(aslr->remaps, &key, &remap))
		return remap;
	return NULL;
}

static int aslr__add_remap(struct aslr *aslr, const struct aslr_key *key, u64 delta)
{
	struct aslr_space *space = aslr__findnew_space(aslr, key->machine, key->asid);
	struct aslr_remap *remap;
	int err;

	if (!space)
		return -ENOMEM;
	remap = zalloc(sizeof(*remap));
	if (!remap)
		return -ENOMEM;

	remap->key = *key;
	remap->key.dso = dso__get(key->dso);
	remap->delta = delta;
	err = hashmap__add(aslr->remaps, &remap->key, remap);
	if (err) {
		aslr_remap__delete(remap);
		return err;
	}
	remap->next = space->remaps;
	space->remaps = remap;
	return 0;
}

/*
 * Choose where a new region of @space starting at @start goes, keeping its
 * offset in an @align sized block.
 */
static u64 aslr_space__alloc(struct aslr_space *space, u64 start, u64 align)
{
	u64 base = space->next;

	if (space->used) {
		if (start == space->last_orig_end &&
		    PERF_ALIGN(space->last_new_end, page_size) == space->next)
			return space->last_new_end;
		base += page_size;
	}
	return PERF_ALIGN(base, align) + (start & (align - 1));
}

static void aslr_space__update(struct aslr_space *space, u64 start, u64 new_start, u64 len)
{
	u64 new_end = new_start + len;

	space->used = true;
	space->last_orig_end = start + len;
	space->last_new_end = new_end;
	if (new_end > space->next)
		space->next = PERF_ALIGN(new_end, page_size);
}

static struct maps *aslr__maps(struct machine *machine, int asid, u32 tid,
			       struct thread **threadp)
{
	struct thread *thread;

	*threadp = NULL;
	if (asid == ASLR_KERNEL_ASID)
		return machine__kernel_maps(machine);

	thread = machine__findnew_thread(machine, asid, tid);
	if (!thread)
		return NULL;
	*threadp = thread;
	return thread__maps(thread);
}

/*
 * Find the delta for the mapping [start, start + len) of address space @asid,
 * which was just added to the tracked layout. @overlaid is the delta of the
 * mapping it is entirely inside of, if any.
 */
static int aslr__map_delta(struct aslr *aslr, struct machine *machine, int asid,
			   u32 tid, u64 start, u64 len, u64 align,
			   const u64 *overlaid, u64 *delta)
{
	struct aslr_space *space = aslr__findnew_space(aslr, machine, asid);
	struct aslr_remap *remap;
	struct thread *thread;
	struct maps *maps;
	struct map *map;
	int err = 0;

	if (!space)
		return -ENOMEM;

	maps = aslr__maps(machine, asid, tid, &thread);
	map = maps ? maps__find(maps, start) : NULL;
	if (!map) {
		/* Not tracked (e.g. a zero sized map), so it can't be remapped. */
		thread__put(thread);
		return -ENOENT;
	}

	remap = aslr__find_remap(aslr, machine, asid, map);
	if (remap) {
		*delta = remap->delta;
	} else {
		struct aslr_key key = {
			.machine = machine,
			.dso = map__dso(map),
			.invariant = map__start(map) - map__pgoff(map),
			.asid = asid,
		};

		if (overlaid)
			*delta = *overlaid;
		else
			*delta = aslr_space__alloc(space, start, align) - start;
		err = aslr__add_remap(aslr, &key, *delta);
	}
	if (!err)
		aslr_space__update(space, start, start + *delta, len);

	map__put(map);
	thread__put(thread);
	return err;
}

/* The delta of the mapping that entirely contains [start, start + len), if any. */
static bool aslr__overlaid_delta(struct aslr *aslr, struct machine *machine, int asid,
				 u32 tid, u64 start, u64 len, u64 *delta)
{
	struct aslr_remap *remap = NULL;
	struct thread *thread;
	struct maps *maps;
	struct map *map;

	maps = aslr__maps(machine, asid, tid, &thread);
	map = maps ? maps__find(maps, start) : NULL;
	if (map && map__end(map) >= start + len)
		remap = aslr__find_remap(aslr, machine, asid, map);
	if (remap)
		*delta = remap->delta;
	map__put(map);
	thread__put(thread);
	return remap;
}

/*
 * A mapping moved past the end of the region of the layout for its address
 * space: a length no mapping has (the region is 4 PiB on 64-bit machines,
 * as big as the recording needs in 32 bits).
 */
static int aslr__check_fits(const struct aslr *aslr, bool kernel, u64 new_start, u64 len,
			    u64 file_offset)
{
	u64 end = kernel ? aslr->layout.kernel_alias : aslr->layout.user_alias;

	if (new_start + len >= new_start && new_start + len <= end)
		return 0;
	aslr__err(file_offset,
		  "a mapping of %#llx bytes doesn't fit in the layout for %s, the file is corrupt",
		  (unsigned long long)len, aslr->layout.arch);
	return -ERANGE;
}

static int aslr__machine(struct aslr *aslr, u8 cpumode, u64 file_offset,
			 struct machine **machinep)
{
	if (cpumode == PERF_RECORD_MISC_GUEST_KERNEL ||
	    cpumode == PERF_RECORD_MISC_GUEST_USER) {
		aslr__err(file_offset, "guest address spaces are not supported yet");
		return -EOPNOTSUPP;
	}
	*machinep = &aslr->machines.host;
	return 0;
}

struct machine *aslr__orig_machine(struct aslr *aslr,
				   struct machine *machine __maybe_unused)
{
	/* Guests are refused, see aslr__machine() */
	return &aslr->machines.host;
}

static int aslr__deliver(struct aslr *aslr, union perf_event *event,
			 struct perf_sample *sample, struct machine *machine)
{
	const struct perf_tool *out = &aslr->out;
	const struct perf_tool *delegate = aslr->delegate;

	aslr__count(aslr, event->header.type, event == aslr->buf);
	switch (event->header.type) {
	case PERF_RECORD_MMAP:
		return out->mmap(delegate, event, sample, machine);
	case PERF_RECORD_MMAP2:
		return out->mmap2(delegate, event, sample, machine);
	case PERF_RECORD_COMM:
		return out->comm(delegate, event, sample, machine);
	case PERF_RECORD_FORK:
		return out->fork(delegate, event, sample, machine);
	case PERF_RECORD_EXIT:
		return out->exit(delegate, event, sample, machine);
	case PERF_RECORD_KSYMBOL:
		return out->ksymbol(delegate, event, sample, machine);
	case PERF_RECORD_CGROUP:
		return out->cgroup(delegate, event, sample, machine);
	case PERF_RECORD_NAMESPACES:
		return out->namespaces(delegate, event, sample, machine);
	default:
		return -EINVAL;
	}
}

static union perf_event *aslr__copy_event(struct aslr *aslr, union perf_event *event)
{
	memcpy(aslr->buf, event, event->header.size);
	return aslr->buf;
}

/*
 * Zero what follows the NUL of the name at @name of the record @event up to
 * its sample id fields: kernels of perf before 4.x left in the padding of
 * the file name of a MMAP what their buffer held before, the names of
 * other files and of threads.
 */
static void aslr__zero_name_tail(struct aslr *aslr, union perf_event *event, char *name)
{
	struct evsel *evsel = aslr->evlist ? evlist__event2evsel(aslr->evlist, event) : NULL;
	u16 id_size = evsel && evsel->core.attr.sample_id_all ? evsel__id_hdr_size(evsel) : 0;
	char *end = (void *)event + event->header.size - id_size;
	size_t len;

	if (id_size > event->header.size || name >= end)
		return;
	len = strnlen(name, end - name);
	if (memchr_inv(name + len, 0, end - name - len)) {
		memset(name + len, 0, end - name - len);
		aslr->name_tails_zeroed++;
	}
}

/*
 * An input written by --aslr has its addresses in the canonical layout, no
 * machine's (see above): they aren't looked for in the output, where --aslr
 * puts them again.
 */
static bool aslr__is_canonical(const struct aslr *aslr, u64 start, u64 len)
{
	const struct aslr_layout *l = &aslr->layout;
	u64 end = start + (len ?: 1);

	if (end < start)
		return false;
	return (start >= l->user && end <= l->user_end) ||
	       (start >= l->kernel && end <= l->kernel_end);
}

/* A mapping of the input, for the check of the output. */
static int aslr__verify_range(struct aslr *aslr, u64 start, u64 len)
{
	if (aslr__is_canonical(aslr, start, len)) {
		aslr->canonical_inputs++;
		return 0;
	}
	return aslr_verify__add_range(aslr->verify, start, len);
}

/* An address of the input out of any mapping, for the check of the output. */
static void aslr__verify_addr(struct aslr *aslr, u64 addr)
{
	if (aslr__is_canonical(aslr, addr, 1))
		aslr->canonical_inputs++;
	else
		aslr_verify__add_addr(aslr->verify, addr);
}

/*
 * Whether @filename is the one of a kernel image MMAP: the name of the kernel
 * map followed by the name of the symbol whose address is in its pgoff, the
 * reference perf report relocates the kernel's symbols by (_text, or _stext
 * on kernels without it; any other as well).
 */
static bool aslr__is_kernel_text(const char *filename)
{
	const char *end = strchr(filename, ']');

	return filename[0] == '[' && end && end[1];
}

static u64 aslr__rename(struct aslr *aslr, char *s, size_t len);

/* Where the objects written for the output go, made the first time. */
static const char *aslr__dso_dir(struct aslr *aslr)
{
	if (!aslr->dso_dir) {
		if (asprintf(&aslr->dso_dir, "%s/aslr", buildid_dir) < 0) {
			aslr->dso_dir = NULL;
			return NULL;
		}
		if (mkdir_p(aslr->dso_dir, 0755) && errno != EEXIST) {
			pr_err("--aslr: can't make %s for the objects of the output: %m\n",
			       aslr->dso_dir);
			zfree(&aslr->dso_dir);
		}
	}
	return aslr->dso_dir;
}

/* Keep @path, an object written for the output, for its check. */
static int aslr__add_dso(struct aslr *aslr, char *path)
{
	char **dsos = path ? realloc(aslr->dsos, (aslr->nr_dsos + 1) * sizeof(*dsos)) : NULL;

	if (!dsos) {
		free(path);
		return -ENOMEM;
	}
	aslr->dsos = dsos;
	aslr->dsos[aslr->nr_dsos++] = path;
	return 0;
}

static int aslr__u64_cmp(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* The length of the longest symbol of a perf map, and a reference to it. */
struct aslr_perf_map_span {
	struct dso	*dso;
	u64		len;
};

/*
 * The length of the longest symbol of the perf map @dso, loaded: the
 * symbols a range can have start at most that much before it.  Found once
 * for each, keyed by the dso itself, not by the reference the caller holds
 * (one a get with reference count checking); ~0 if out of memory.
 */
static u64 aslr__perf_map_span(struct aslr *aslr, struct dso *dso)
{
	struct aslr_perf_map_span *span;
	struct symbol *sym;
	u64 len = 0;

	if (hashmap__find(aslr->perf_map_spans, RC_CHK_ACCESS(dso), &span))
		return span->len;
	span = zalloc(sizeof(*span));
	if (!span)
		return ~0ULL;
	for (sym = dso__first_symbol(dso); sym; sym = dso__next_symbol(sym)) {
		u64 sym_len = max(sym->end, sym->start + 1) - sym->start;

		len = max(len, sym_len);
	}
	span->len = len;
	span->dso = dso__get(dso);
	if (hashmap__add(aslr->perf_map_spans, RC_CHK_ACCESS(dso), span)) {
		dso__put(span->dso);
		free(span);
		return ~0ULL;
	}
	return len;
}

/* The first symbol of @dso that starts at @addr or above. */
static struct symbol *aslr__symbol_from(struct dso *dso, u64 addr)
{
	struct rb_node *n = dso__symbols(dso)->rb_root.rb_node;
	struct symbol *first = NULL;

	while (n) {
		struct symbol *sym = rb_entry(n, struct symbol, rb_node);

		if (sym->start >= addr) {
			first = sym;
			n = n->rb_left;
		} else {
			n = n->rb_right;
		}
	}
	return first;
}

/* The symbols of a perf-PID.map in [start, end), as they are found. */
struct aslr_perf_map {
	u64			start;
	u64			end;
	/* Where a symbol starts or ends, sorted */
	u64			*edges;
	size_t			nr_edges;
	struct aslr_dso_sym	*syms;
	size_t			nr_syms;
};

static void aslr_perf_map__exit(struct aslr_perf_map *pm)
{
	size_t i;

	for (i = 0; i < pm->nr_syms; i++)
		free((char *)pm->syms[i].name);
	zfree(&pm->syms);
	zfree(&pm->edges);
}

/* Where the symbols of @dso start and end in @pm, @from on. */
static int aslr_perf_map__edges(struct aslr_perf_map *pm, struct dso *dso, u64 from)
{
	size_t nr = 0;
	struct symbol *sym;

	for (sym = aslr__symbol_from(dso, from); sym && sym->start < pm->end;
	     sym = dso__next_symbol(sym)) {
		if (max(sym->end, sym->start + 1) > pm->start)
			nr += 3;
	}
	if (!nr)
		return 0;
	pm->edges = calloc(nr + 2, sizeof(*pm->edges));
	pm->syms = calloc(nr + 2, sizeof(*pm->syms));
	if (!pm->edges || !pm->syms)
		return -ENOMEM;
	pm->edges[pm->nr_edges++] = pm->start;
	for (sym = aslr__symbol_from(dso, from); sym && sym->start < pm->end;
	     sym = dso__next_symbol(sym)) {
		if (max(sym->end, sym->start + 1) <= pm->start)
			continue;
		pm->edges[pm->nr_edges++] = max(sym->start, pm->start);
		pm->edges[pm->nr_edges++] = min(max(sym->end, pm->start), pm->end);
		/* Empty: found at its start only */
		if (sym->start == sym->end && sym->start + 1 < pm->end)
			pm->edges[pm->nr_edges++] = sym->start + 1;
	}
	qsort(pm->edges, pm->nr_edges, sizeof(*pm->edges), aslr__u64_cmp);
	return 0;
}

/* The symbol perf finds between each two edges of @pm, those of a name merged. */
static int aslr_perf_map__syms(struct aslr_perf_map *pm, struct aslr *aslr, struct dso *dso)
{
	struct aslr_dso_sym *syms = pm->syms;
	size_t i;

	for (i = 0; i < pm->nr_edges; i++) {
		u64 at = pm->edges[i], next = i + 1 < pm->nr_edges ? pm->edges[i + 1] : pm->end;
		struct symbol *sym;

		if (next <= at || at >= pm->end)
			continue;
		sym = dso__find_symbol_nocache(dso, at);
		if (!sym)
			continue;
		if (pm->nr_syms && syms[pm->nr_syms - 1].end == at - pm->start &&
		    !strcmp(syms[pm->nr_syms - 1].name, sym->name)) {
			syms[pm->nr_syms - 1].end = next - pm->start;
			continue;
		}
		syms[pm->nr_syms].start = at - pm->start;
		syms[pm->nr_syms].end = next - pm->start;
		syms[pm->nr_syms].name = strdup(sym->name);
		if (!syms[pm->nr_syms].name)
			return -ENOMEM;
		/* A name may hold an address as well */
		aslr__rename(aslr, (char *)syms[pm->nr_syms].name, strlen(syms[pm->nr_syms].name));
		pm->nr_syms++;
	}
	return 0;
}

/* Write the symbols of @pm, of the process @pid, as an object, its path in *@path. */
static int aslr__write_perf_map(struct aslr *aslr, const struct aslr_perf_map *pm, pid_t pid,
				char **path)
{
	const char *dir = aslr__dso_dir(aslr);
	char *stem;
	int err;

	if (!dir)
		return -EIO;
	if (asprintf(&stem, "perf-map-%d", pid) < 0)
		return -ENOMEM;
	err = aslr_dso__write_symbols(dir, stem, pm->syms, pm->nr_syms, pm->end - pm->start,
				      path);
	free(stem);
	if (!err) {
		aslr->perf_map_dsos++;
		aslr->perf_map_syms += pm->nr_syms;
		err = aslr__add_dso(aslr, strdup(*path));
	}
	if (err)
		zfree(path);
	return err;
}

/*
 * The symbols of the perf-PID.map of @map (of anonymous code) in its
 * [@start, @start + @len), as perf resolves them: the map may list
 * functions over one another (a JIT that reuses an address), perf then
 * finds one of them, the same one for every address between two starts or
 * ends of them.  Written as an object in the remapped layout, its path in
 * *@path; none if the map has none there.
 */
static int aslr__perf_map_dso(struct aslr *aslr, struct map *map, pid_t pid,
			      u64 start, u64 len, char **path)
{
	struct aslr_perf_map pm = { .start = start, .end = start + len, };
	struct dso *dso = map__dso(map);
	u64 span;
	int err;

	if (map__load(map) < 0)
		return 0;
	/* A JIT maps its code piece by piece, the map may be big */
	span = aslr__perf_map_span(aslr, dso);
	err = aslr_perf_map__edges(&pm, dso, start > span ? start - span : 0) ?:
	      aslr_perf_map__syms(&pm, aslr, dso);
	if (!err && pm.nr_syms)
		err = aslr__write_perf_map(aslr, &pm, pid, path);
	aslr_perf_map__exit(&pm);
	return err;
}

static void aslr__rename_dso_string(void *ctx, char *s, size_t len)
{
	aslr__rename(ctx, s, len);
}

/*
 * A copy of the jitted object @dso without what holds the JIT's addresses,
 * made once; its path in *@path.
 */
static int aslr__jitted_dso(struct aslr *aslr, struct dso *dso, char **path)
{
	const char *src = dso__long_name(dso), *dir;
	char *copy, *key;
	int err;

	if (hashmap__find(aslr->jitted, src, &copy)) {
		*path = strdup(copy);
		return *path ? 0 : -ENOMEM;
	}
	dir = aslr__dso_dir(aslr);
	if (!dir)
		return -EIO;
	err = aslr_dso__copy_jitted(src, dir, aslr__rename_dso_string, aslr, &copy);
	if (err)
		return err;
	key = strdup(src);
	if (!key || hashmap__add(aslr->jitted, key, copy)) {
		free(key);
		free(copy);
		return -ENOMEM;
	}
	*path = strdup(copy);
	return *path ? aslr__add_dso(aslr, strdup(copy)) : -ENOMEM;
}

/* A MMAP or MMAP2 record, read and written by its named fields. */
struct aslr_mmap {
	u64		start;
	u64		len;
	u64		pgoff;
	u32		pid;
	u32		tid;
	/* MMAP2: the MAP_* flags */
	u32		flags;
	bool		exec;
	bool		kernel;
	const char	*filename;
};

static void aslr_mmap__read(struct aslr_mmap *m, const union perf_event *event)
{
	u8 cpumode = event->header.misc & PERF_RECORD_MISC_CPUMODE_MASK;

	m->kernel = cpumode == PERF_RECORD_MISC_KERNEL;
	if (event->header.type == PERF_RECORD_MMAP) {
		m->start = event->mmap.start;
		m->len = event->mmap.len;
		m->pgoff = event->mmap.pgoff;
		m->pid = event->mmap.pid;
		m->tid = event->mmap.tid;
		m->flags = 0;
		m->exec = !(event->header.misc & PERF_RECORD_MISC_MMAP_DATA);
		m->filename = event->mmap.filename;
	} else {
		m->start = event->mmap2.start;
		m->len = event->mmap2.len;
		m->pgoff = event->mmap2.pgoff;
		m->pid = event->mmap2.pid;
		m->tid = event->mmap2.tid;
		m->flags = event->mmap2.flags;
		m->exec = event->mmap2.prot & PROT_EXEC;
		m->filename = event->mmap2.filename;
	}
}

/* Write the range and the file offset of @m to the MMAP or MMAP2 @event. */
static void aslr_mmap__write(union perf_event *event, const struct aslr_mmap *m)
{
	if (event->header.type == PERF_RECORD_MMAP) {
		event->mmap.start = m->start;
		event->mmap.len = m->len;
		event->mmap.pgoff = m->pgoff;
	} else {
		event->mmap2.start = m->start;
		event->mmap2.len = m->len;
		event->mmap2.pgoff = m->pgoff;
	}
}

/*
 * Whether the file offset of a user mapping is one: that of a file.  The
 * kernel reports vm_pgoff for every mapping, and that of anonymous memory,
 * of [vdso] and the like on many kernels, is its own address.
 */
static bool aslr_mmap__is_file(const struct aslr_mmap *m)
{
	return m->filename[0] == '/' && !is_anon_memory(m->filename) &&
	       !is_no_dso_memory(m->filename) && !(m->flags & MAP_HUGETLB);
}

/*
 * Cut a kernel map to what a kernel image can be: perf before 4.x wrote the
 * kernel image map from 0 or from _stext to the first module or to the top
 * of the address space, as perf on arm64 still does, and the last module
 * map to the top.  The start of the image is then at most an image below
 * the address of its reference symbol (_text, _stext), its pgoff.  Samples
 * out of what is left are in no map of the output.
 */
static bool aslr__clip_kernel_map(const struct aslr *aslr, struct aslr_mmap *m,
				  bool kernel_text)
{
	u64 max = aslr->layout.kernel_image_max;
	u64 top = aslr->layout.bits == 32 ? BIT_ULL(32) : 0;
	/* 0: the top of the address space, which perf writes as ~0 as well */
	u64 end = m->start + m->len < m->start || m->start + m->len == ~0ULL ? 0 :
		  m->start + m->len;
	u64 start = m->start, old_end = m->start + m->len;

	if (kernel_text && m->pgoff > start && m->pgoff - start > max)
		start = max_t(u64, start, ALIGN_DOWN(m->pgoff, ASLR_KERNEL_ALIGN));
	if (top && (!end || end > top))
		end = top;
	if (!end || (kernel_text && end - start > max))
		end = start + max;
	if (start == m->start && end == old_end)
		return false;
	m->start = start;
	m->len = end - start;
	return true;
}

/*
 * Build @event anew in @dst, with @name as its file name, @pgoff as its
 * file offset and its sample id fields, from @sample, after it.
 */
static int aslr__mmap_renamed(struct aslr *aslr, union perf_event *dst,
			      const union perf_event *event, struct perf_sample *sample,
			      const char *name, u64 pgoff)
{
	struct evsel *evsel = aslr->evlist ? evlist__event2evsel(aslr->evlist,
							       (union perf_event *)event) : NULL;
	size_t len = PERF_ALIGN(strlen(name) + 1, sizeof(u64)), size;
	char *filename;

	if (event->header.type == PERF_RECORD_MMAP) {
		size = offsetof(struct perf_record_mmap, filename);
		memcpy(&dst->mmap, &event->mmap, size);
		dst->mmap.pgoff = pgoff;
		filename = dst->mmap.filename;
	} else {
		size = offsetof(struct perf_record_mmap2, filename);
		memcpy(&dst->mmap2, &event->mmap2, size);
		dst->mmap2.pgoff = pgoff;
		dst->mmap2.flags &= ~MAP_HUGETLB;
		/* The build-id is that of the file, not of the object named */
		if (dst->header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID) {
			dst->header.misc &= ~PERF_RECORD_MISC_MMAP_BUILD_ID;
			memset(dst->mmap2.build_id, 0, sizeof(dst->mmap2.build_id));
			dst->mmap2.build_id_size = 0;
		}
		filename = dst->mmap2.filename;
	}
	/* The sample id fields are 6 u64 at most */
	if (size + len + 6 * sizeof(u64) > PERF_SAMPLE_MAX_SIZE)
		return -ENAMETOOLONG;
	memset(filename, 0, len);
	memcpy(filename, name, strlen(name));
	size += len;
	if (evsel && evsel->core.attr.sample_id_all)
		size += perf_event__synthesize_id_sample((void *)dst + size,
							 evsel->core.attr.sample_type, sample);
	dst->header.size = size;
	return 0;
}

/*
 * The mapping @m of the original layout, of JIT code: code listed in a
 * perf-PID.map (anonymous memory), or an object of perf inject --jit.  The
 * receiver has neither, or not without the JIT's addresses: name in @copy
 * the object written for it.
 */
static int aslr__mmap_dso(struct aslr *aslr, struct machine *machine, union perf_event *copy,
			  struct perf_sample *sample, const struct aslr_mmap *m)
{
	struct thread *thread = machine__find_thread(machine, m->pid, m->tid);
	union perf_event *renamed;
	char *path = NULL;
	struct map *map;
	struct dso *dso;
	u64 pgoff = copy->header.type == PERF_RECORD_MMAP ? copy->mmap.pgoff :
							    copy->mmap2.pgoff;
	int err = 0;

	if (!thread)
		return 0;
	map = maps__find(thread__maps(thread), m->start);
	dso = map ? map__dso(map) : NULL;
	if (!dso || map__start(map) != m->start)
		goto out;
	if (is_perf_pid_map_name(dso__long_name(dso))) {
		/* Its symbols are at their offsets from the start */
		err = aslr__perf_map_dso(aslr, map, m->pid, m->start, m->len, &path);
		pgoff = 0;
	} else if (dso__is_jitted(dso)) {
		err = aslr__jitted_dso(aslr, dso, &path);
	}
	if (err || !path)
		goto out;
	renamed = malloc(PERF_SAMPLE_MAX_SIZE);
	err = renamed ? aslr__mmap_renamed(aslr, renamed, copy, sample, path, pgoff) : -ENOMEM;
	if (!err)
		memcpy(copy, renamed, renamed->header.size);
	free(renamed);
out:
	free(path);
	map__put(map);
	thread__put(thread);
	return err;
}

/*
 * The components of the @len bytes of the path at @path for the check of
 * the output: names of the input to look for, or if @kept words it keeps.
 */
static int aslr__check_components(struct aslr *aslr, const char *path, size_t len, bool kept)
{
	const char *c = path, *stop = path + len;
	size_t n;
	int err;

	for (; c < stop; c += n) {
		c += strspn(c, "/");
		if (c >= stop)
			break;
		n = strcspn(c, "/");
		if (c + n > stop)
			n = stop - c;
		err = kept ? redact_check__keep(aslr->names, c, n) :
			     redact_check__add(aslr->names, "path", c, n, /*component=*/true);
		if (err)
			return err;
	}
	return 0;
}

/*
 * With --redact=paths, the file path @path with its names tokens into @buf
 * of @size bytes, the names then looked for in the output: 1 if it has
 * names, 0 if it is kept as it is.
 */
static int aslr__redact_path(struct aslr *aslr, u32 where, const char *path, char *buf,
			     size_t size)
{
	size_t start, end;
	int err;

	if (!redact__has(aslr->redact, REDACT_PATHS))
		return 0;
	redact__path_names(aslr->redact, path, &start, &end);
	/* The words of what is kept are in the output, whatever names they are too */
	err = aslr__check_components(aslr, path, start, true) ?:
	      aslr__check_components(aslr, path + end, strlen(path + end), true) ?:
	      aslr__check_components(aslr, path + start, end - start, false);
	if (err || start == end)
		return err;
	err = redact__file_path(aslr->redact, where, path, buf, size);
	return err ?: 1;
}

/*
 * With --redact=paths, the MMAP @copy with the names of its file path
 * tokens, the build-id of a MMAP2 kept: 1 if renamed, its name before into
 * @orig (the caller frees it), 0 if not.
 */
static int aslr__redact_mmap(struct aslr *aslr, union perf_event *copy,
			     struct perf_sample *sample, char **orig)
{
	bool mmap2 = copy->header.type == PERF_RECORD_MMAP2;
	char *name = mmap2 ? copy->mmap2.filename : copy->mmap.filename;
	union perf_event *renamed;
	char path[PATH_MAX];
	int err = aslr__redact_path(aslr, copy->header.type, name, path, sizeof(path));

	if (err <= 0)
		return err;
	*orig = strdup(name);
	renamed = malloc(PERF_SAMPLE_MAX_SIZE);
	if (!*orig || !renamed) {
		err = -ENOMEM;
		goto out;
	}
	err = aslr__mmap_renamed(aslr, renamed, copy, sample, path,
				 mmap2 ? copy->mmap2.pgoff : copy->mmap.pgoff);
	if (err)
		goto out;
	if (mmap2 && (copy->header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID)) {
		renamed->header.misc |= PERF_RECORD_MISC_MMAP_BUILD_ID;
		renamed->mmap2.build_id_size = copy->mmap2.build_id_size;
		memcpy(renamed->mmap2.build_id, copy->mmap2.build_id,
		       sizeof(copy->mmap2.build_id));
	}
	memcpy(copy, renamed, renamed->header.size);
	err = 1;
out:
	if (err < 0)
		zfree(orig);
	free(renamed);
	return err;
}

/*
 * The object of the mapping @event delivered with --redact=paths, the path
 * @orig renamed: it is named by the new path (a module found by its short
 * name has the one the input gave it), and has the build-id of @orig, from
 * the input or from @orig on this machine: the receiver finds it by it.
 */
static void aslr__redact_dso(struct machine *machine, const union perf_event *event,
			     const char *orig)
{
	bool kernel = (event->header.misc & PERF_RECORD_MISC_CPUMODE_MASK) ==
		      PERF_RECORD_MISC_KERNEL;
	bool mmap2 = event->header.type == PERF_RECORD_MMAP2;
	const char *name = mmap2 ? event->mmap2.filename : event->mmap.filename;
	struct thread *thread = kernel ? NULL :
		machine__find_thread(machine, mmap2 ? event->mmap2.pid : event->mmap.pid,
				     mmap2 ? event->mmap2.tid : event->mmap.tid);
	struct maps *maps = kernel ? machine__kernel_maps(machine) :
			    thread ? thread__maps(thread) : NULL;
	struct map *map = maps ? maps__find(maps, mmap2 ? event->mmap2.start :
						      event->mmap.start) : NULL;
	struct dso *dso = map ? map__dso(map) : NULL, *from = NULL;
	struct build_id bid;
	char *new_name;

	if (!dso)
		goto out;
	if (strcmp(dso__long_name(dso), name)) {
		new_name = strdup(name);
		if (new_name)
			dso__set_long_name(dso, new_name, /*name_allocated=*/true);
	}
	if (dso__has_build_id(dso))
		goto out;
	from = dsos__find(&machine->dsos, orig, /*cmp_short=*/false);
	if (from && dso__has_build_id(from))
		dso__set_build_id(dso, dso__bid(from));
	else if (filename__read_build_id(orig, &bid) > 0)
		dso__set_build_id(dso, &bid);
out:
	dso__put(from);
	map__put(map);
	thread__put(thread);
}

/*
 * With --redact=devino, the device and inode numbers of a MMAP2 zeroed:
 * perf tells objects apart by them and by name, names alone do it too.
 */
static void aslr__redact_devino(struct aslr *aslr, union perf_event *event)
{
	if (!redact__has(aslr->redact, REDACT_DEVINO) ||
	    event->header.type != PERF_RECORD_MMAP2 ||
	    (event->header.misc & PERF_RECORD_MISC_MMAP_BUILD_ID))
		return;
	event->mmap2.maj = 0;
	event->mmap2.min = 0;
	event->mmap2.ino = 0;
	event->mmap2.ino_generation = 0;
	redact__count(aslr->redact, REDACT_DEVINO, PERF_RECORD_MMAP2);
}

/* The pgoff to write for @m, moved by @delta, with @kernel_text of it. */
static int aslr__mmap_pgoff(struct aslr *aslr, const struct aslr_mmap *m, bool kernel_text,
			    u64 delta, u64 *pgoff)
{
	*pgoff = 0;
	if (kernel_text) {
		/*
		 * The address of the relocation reference symbol (_text)
		 * that perf report relocates kallsyms or vmlinux by moves
		 * with the map.
		 */
		if (m->pgoff)
			*pgoff = m->pgoff + delta;
		aslr->kernel_delta = delta;
		aslr->have_kernel_delta = true;
	} else if (m->kernel && is_entry_trampoline(m->filename)) {
		/* The address of the trampoline in the kernel image. */
		if (!aslr->have_kernel_delta)
			return -ENOENT;
		*pgoff = m->pgoff + aslr->kernel_delta;
	} else if (!m->kernel && aslr_mmap__is_file(m)) {
		*pgoff = m->pgoff;
	}
	/* Module maps have none, what else a kernel map has is not known. */
	return 0;
}

/* Read the mapping of @event into @m, refusing one no kernel writes. */
static int aslr__mmap_read(struct aslr *aslr, union perf_event *event,
			   const struct perf_sample *sample, struct aslr_mmap *m)
{
	void *end = (void *)event + event->header.size;

	aslr_mmap__read(m, event);
	if ((void *)m->filename >= end || !memchr(m->filename, '\0', end - (void *)m->filename)) {
		aslr__err(sample->file_offset,
			  "MMAP file name not NUL terminated, the file is corrupt");
		return -EINVAL;
	}
	if (m->len == 0) {
		aslr__err(sample->file_offset, "MMAP of length 0, the file is corrupt");
		return -EINVAL;
	}
	if (m->kernel && aslr__clip_kernel_map(aslr, m, aslr__is_kernel_text(m->filename)))
		aslr->kernel_clipped++;

	/* The kernel ones have the address of _text or of a trampoline as pgoff. */
	if (aslr__verify_range(aslr, m->start, m->len) ||
	    (m->kernel && m->pgoff &&
	     aslr__verify_range(aslr, m->pgoff, min_t(u64, m->len, ~0ULL - m->pgoff))))
		return -ENOMEM;
	return 0;
}

/*
 * Add the mapping @m of @event to the original layout in @machine, as perf
 * reads it, from @copy, the record to write: its pgoff 0 if it is not a
 * file offset, the invariant start - pgoff then tells the regions of
 * anonymous memory apart.
 */
static int aslr__mmap_orig(struct aslr *aslr, struct machine *machine, union perf_event *copy,
			   struct perf_sample *sample, const struct aslr_mmap *m)
{
	struct aslr_mmap orig = *m;

	aslr__zero_name_tail(aslr, copy, copy->header.type == PERF_RECORD_MMAP ?
					 copy->mmap.filename : copy->mmap2.filename);
	if (!m->kernel && !aslr_mmap__is_file(m))
		orig.pgoff = 0;
	aslr_mmap__write(copy, &orig);
	if (copy->header.type == PERF_RECORD_MMAP)
		return machine__process_mmap_event(machine, copy, sample);
	return machine__process_mmap2_event(machine, copy, sample);
}

/*
 * Write @copy, the record of the mapping @m of the original layout in
 * @machine, moved to its place in the canonical layout.
 */
static int aslr__mmap_write(struct aslr *aslr, union perf_event *copy,
			    struct perf_sample *sample, const struct aslr_mmap *m,
			    struct machine *machine, struct machine *out_machine)
{
	char *orig = NULL;
	int err, renamed;

	if (!m->kernel && m->exec) {
		err = aslr__mmap_dso(aslr, machine, copy, sample, m);
		if (err)
			return err;
	}
	aslr__redact_devino(aslr, copy);
	renamed = aslr__redact_mmap(aslr, copy, sample, &orig);
	if (renamed < 0)
		return renamed;

	err = aslr__deliver(aslr, copy, sample, out_machine);
	if (!err && renamed)
		aslr__redact_dso(out_machine, copy, orig);
	free(orig);
	return err;
}

/*
 * Track the mapping of @event in the original layout, then write it with
 * its place in the canonical one.
 */
static int aslr__mmap_common(struct aslr *aslr, union perf_event *event,
			     struct perf_sample *sample, struct machine *out_machine)
{
	bool kernel_text, is_overlaid = false;
	struct aslr_mmap m, out;
	struct machine *machine;
	union perf_event *copy;
	u64 delta, overlaid;
	int asid, err;

	err = aslr__mmap_read(aslr, event, sample, &m) ?:
	      aslr__machine(aslr, event->header.misc & PERF_RECORD_MISC_CPUMODE_MASK,
			    sample->file_offset, &machine);
	if (err)
		return err;
	asid = m.kernel ? ASLR_KERNEL_ASID : (int)m.pid;
	kernel_text = m.kernel && aslr__is_kernel_text(m.filename);

	/*
	 * A kernel image MMAP without the address of _text makes perf report
	 * recreate the kernel map without the relocation the _text one gave:
	 * harmless where the kernel was, but the remapped kernel would no
	 * longer resolve against kallsyms or vmlinux. It carries nothing else.
	 */
	if (m.kernel && !kernel_text && !m.pgoff && aslr->have_kernel_delta &&
	    !strcmp(m.filename, machine->mmap_name)) {
		pr_debug("--aslr: dropping kernel MMAP without _text address at file offset %#llx\n",
			 (unsigned long long)sample->file_offset);
		return 0;
	}

	/* A user mapping over part of another keeps its offset in it: the kernel's don't. */
	if (!m.kernel)
		is_overlaid = aslr__overlaid_delta(aslr, machine, asid, m.tid, m.start, m.len,
						   &overlaid);

	copy = aslr__copy_event(aslr, event);
	err = aslr__mmap_orig(aslr, machine, copy, sample, &m);
	if (err)
		return err;
	err = aslr__map_delta(aslr, machine, asid, m.tid, m.start, m.len,
			      kernel_text ? ASLR_KERNEL_ALIGN : page_size,
			      is_overlaid ? &overlaid : NULL, &delta);
	if (err == -ENOENT) {
		/* Not a mapping perf tracks: drop it rather than leak it. */
		pr_debug("--aslr: dropping untracked MMAP event at file offset %#llx\n",
			 (unsigned long long)sample->file_offset);
		aslr__count_dropped(aslr, event->header.type, "not a mapping perf tracks");
		return 0;
	}
	out = m;
	if (!err)
		err = aslr__check_fits(aslr, m.kernel, m.start + delta, m.len, sample->file_offset);
	if (!err)
		err = aslr__mmap_pgoff(aslr, &m, kernel_text, delta, &out.pgoff);
	if (err == -ENOENT) {
		aslr__count_dropped(aslr, event->header.type,
				    "entry trampoline before the kernel map");
		return 0;
	}
	if (err)
		return err;

	out.start = m.start + delta;
	aslr_mmap__write(copy, &out);
	return aslr__mmap_write(aslr, copy, sample, &m, machine, out_machine);
}

static int aslr__ksymbol(struct aslr *aslr, union perf_event *event,
			 struct perf_sample *sample, struct machine *machine)
{
	struct machine *host = &aslr->machines.host;
	u64 addr = event->ksymbol.addr, len = event->ksymbol.len, delta;
	union perf_event *copy;
	int err;

	if (event->ksymbol.flags & PERF_RECORD_KSYMBOL_FLAGS_UNREGISTER) {
		if (!aslr__overlaid_delta(aslr, host, ASLR_KERNEL_ASID, 0, addr, 1, &delta)) {
			aslr__count_dropped(aslr, event->header.type,
					    "unregistering an unknown symbol");
			return 0;
		}
		copy = aslr__copy_event(aslr, event);
		copy->ksymbol.addr = addr + delta;
		aslr__zero_name_tail(aslr, copy, copy->ksymbol.name);
		err = machine__process_ksymbol(host, event, sample);
		if (err)
			return err;
		return aslr__deliver(aslr, copy, sample, machine);
	}

	err = machine__process_ksymbol(host, event, sample);
	if (!err)
		err = aslr__verify_range(aslr, addr, len);
	if (err)
		return err;

	err = aslr__map_delta(aslr, host, ASLR_KERNEL_ASID, 0, addr, len ?: 1,
			      page_size, NULL, &delta);
	if (err == -ENOENT) {
		aslr__count_dropped(aslr, event->header.type, "not a mapping perf tracks");
		return 0;
	}
	if (!err)
		err = aslr__check_fits(aslr, true, addr + delta, len, sample->file_offset);
	if (err)
		return err;

	copy = aslr__copy_event(aslr, event);
	copy->ksymbol.addr = addr + delta;
	aslr__zero_name_tail(aslr, copy, copy->ksymbol.name);
	return aslr__deliver(aslr, copy, sample, machine);
}

/* A new process gets the remapped layout of the parent it was forked from. */
static int aslr__fork_space(struct aslr *aslr, struct machine *machine, int ppid, int pid)
{
	struct aslr_space *parent = aslr__find_space(aslr, machine, ppid), *child;
	struct aslr_remap *remap;
	int err;

	if (!parent)
		return 0;

	child = aslr__findnew_space(aslr, machine, pid);
	if (!child)
		return -ENOMEM;
	/* The child already has a layout (its mmaps were synthesized first). */
	if (child->used)
		return 0;

	child->used = parent->used;
	child->next = parent->next;
	child->last_orig_end = parent->last_orig_end;
	child->last_new_end = parent->last_new_end;

	for (remap = parent->remaps; remap; remap = remap->next) {
		struct aslr_key child_key = remap->key;

		child_key.asid = pid;
		err = aslr__add_remap(aslr, &child_key, remap->delta);
		if (err && err != -EEXIST)
			return err;
	}
	return 0;
}

/* Forget the layout of an exited process whose pid is reused. */
static void aslr__forget_space(struct aslr *aslr, struct machine *machine, int pid)
{
	struct aslr_space key = { .machine = machine, .asid = pid };
	struct aslr_space *space;
	struct aslr_remap *remap, *next;

	if (!hashmap__delete(aslr->spaces, &key, NULL, &space))
		return;

	for (remap = space->remaps; remap; remap = next) {
		next = remap->next;
		hashmap__delete(aslr->remaps, &remap->key, NULL, NULL);
		aslr_remap__delete(remap);
	}
	free(space);
}

static int aslr__fork(struct aslr *aslr, union perf_event *event,
		      struct perf_sample *sample, struct machine *machine)
{
	struct machine *host = &aslr->machines.host;
	int err = machine__process_fork_event(host, event, sample);

	if (!err && event->fork.pid != event->fork.ppid)
		err = aslr__fork_space(aslr, host, event->fork.ppid, event->fork.pid);
	if (err)
		return err;

	return aslr__deliver(aslr, event, sample, machine);
}

/*
 * A thread that exited, to be dropped from the original layout, and the
 * delegate told, when the samples that may still come for it have come.
 */
struct aslr_exited {
	struct list_head	node;
	u64			time;
	pid_t			pid;
	pid_t			tid;
	/* A reference, to drop the thread of the exit, not a later one of its tid. */
	struct thread		*orig;
};

/*
 * How long after its exit a thread is dropped, in the time of the
 * recording: a task is sampled, with its user call graph, as it exits after
 * its PERF_RECORD_EXIT; it doesn't take a second to.
 */
#define ASLR_EXIT_GRACE_NS	NSEC_PER_SEC

static void aslr_exited__delete(struct aslr_exited *exited)
{
	list_del(&exited->node);
	thread__put(exited->orig);
	free(exited);
}

static int aslr__thread_of_pid(struct thread *thread, void *data)
{
	return thread__pid(thread) == *(pid_t *)data;
}

/* Drop @thread from @machine, if it is still the thread of its tid there. */
static void aslr__remove_thread(struct machine *machine, struct thread *thread)
{
	struct thread *now;

	if (!thread)
		return;
	now = machine__find_thread(machine, thread__pid(thread), thread__tid(thread));
	if (now && RC_CHK_EQUAL(now, thread))
		machine__remove_thread(machine, thread);
	thread__put(now);
}

/*
 * Drop the threads that exited before @now, less the grace period, and the
 * layout of a process with the last of its threads: without samples written
 * after the exit of their process (off-CPU samples, see aslr__keep_exited()),
 * memory follows the live processes, not all those of the recording.
 */
static void __aslr__retire(struct aslr *aslr, u64 now)
{
	struct machine *host = &aslr->machines.host;
	struct aslr_exited *exited;

	aslr->retire_at = ULLONG_MAX;
	while (!list_empty(&aslr->exited)) {
		struct aslr_space *space;
		pid_t pid;

		exited = list_first_entry(&aslr->exited, struct aslr_exited, node);
		if (exited->time + ASLR_EXIT_GRACE_NS > now) {
			aslr->retire_at = exited->time + ASLR_EXIT_GRACE_NS;
			break;
		}
		aslr__reset_caches(aslr);
		pid = exited->pid;
		aslr__remove_thread(host, exited->orig);
		if (aslr->retire)
			aslr->retire(aslr->delegate, pid, exited->tid);
		aslr_exited__delete(exited);
		aslr->nr_retired++;
		space = aslr__find_space(aslr, host, pid);
		if (space && space->exited &&
		    !machine__for_each_thread(host, aslr__thread_of_pid, &pid))
			aslr__forget_space(aslr, host, pid);
	}
}

static inline void aslr__retire(struct aslr *aslr, u64 now)
{
	if (now >= aslr->retire_at && now != (u64)-1)
		__aslr__retire(aslr, now);
}

static int aslr__exit(struct aslr *aslr, union perf_event *event,
		      struct perf_sample *sample, struct machine *machine)
{
	struct machine *host = &aslr->machines.host;
	pid_t pid = event->fork.pid, tid = event->fork.tid;
	struct aslr_exited *exited;
	int err = machine__process_exit_event(host, event, sample);

	if (err)
		return err;
	if (event->fork.pid == event->fork.tid) {
		struct aslr_space *space = aslr__find_space(aslr, host, event->fork.pid);

		if (space)
			space->exited = true;
	}
	if (!aslr->keep_exited && sample->time && sample->time != (u64)-1) {
		exited = zalloc(sizeof(*exited));
		if (!exited)
			return -ENOMEM;
		exited->time = sample->time;
		exited->pid = pid;
		exited->tid = tid;
		exited->orig = machine__find_thread(host, pid, tid);
		if (list_empty(&aslr->exited))
			aslr->retire_at = exited->time + ASLR_EXIT_GRACE_NS;
		list_add_tail(&exited->node, &aslr->exited);
	}

	return aslr__deliver(aslr, event, sample, machine);
}

/*
 * Write the end of a record rebuilt in aslr->buf, @size bytes of it so far:
 * its sample id fields, from @sample, for the event of @event.
 */
static union perf_event *aslr__end_record(struct aslr *aslr, union perf_event *event,
					  struct perf_sample *sample, size_t size)
{
	struct evsel *evsel = aslr->evlist ? evlist__event2evsel(aslr->evlist, event) : NULL;
	union perf_event *dst = aslr->buf;

	if (evsel && evsel->core.attr.sample_id_all)
		size += perf_event__synthesize_id_sample((void *)dst + size,
							 evsel->core.attr.sample_type, sample);
	dst->header.size = size;
	return dst;
}

static int aslr__comm(struct aslr *aslr, union perf_event *event,
		      struct perf_sample *sample, struct machine *machine)
{
	struct machine *host = &aslr->machines.host;
	size_t size = offsetof(struct perf_record_comm, comm);
	char token[REDACT_TOKEN_LEN + 1];
	union perf_event *dst = aslr->buf;
	int err = machine__process_comm_event(host, event, sample);

	if (err || !redact__has(aslr->redact, REDACT_COMM))
		return err ?: aslr__deliver(aslr, event, sample, machine);

	err = redact_check__add(aslr->names, "comm", event->comm.comm,
				event->header.size - size, false);
	if (err)
		return err;
	redact__token(aslr->redact, REDACT_COMM, PERF_RECORD_COMM, event->comm.comm,
		      event->header.size - size, token);
	memcpy(dst, event, size);
	memset(dst->comm.comm, 0, PERF_ALIGN(sizeof(token), sizeof(u64)));
	memcpy(dst->comm.comm, token, sizeof(token));
	size += PERF_ALIGN(sizeof(token), sizeof(u64));
	return aslr__deliver(aslr, aslr__end_record(aslr, event, sample, size), sample, machine);
}

/* With --redact=cgroup, each component of the path of a cgroup a token. */
static int aslr__cgroup(struct aslr *aslr, union perf_event *event,
			struct perf_sample *sample, struct machine *machine)
{
	size_t size = offsetof(struct perf_record_cgroup, path);
	size_t room = event->header.size - size;
	union perf_event *dst = aslr->buf;
	const char *path = event->cgroup.path, *c;
	int err;

	if (!redact__has(aslr->redact, REDACT_CGROUP))
		return aslr__deliver(aslr, event, sample, machine);
	if (size >= event->header.size || !memchr(path, '\0', room)) {
		aslr__err(sample->file_offset,
			  "CGROUP path not NUL terminated, the file is corrupt");
		return -EINVAL;
	}
	for (c = path; *c; c += strcspn(c, "/")) {
		c += strspn(c, "/");
		err = redact_check__add(aslr->names, "cgroup", c, strcspn(c, "/"), true);
		if (err)
			return err;
	}
	memcpy(dst, event, size);
	/* Room for its padding and sample id fields, its size a u16 */
	err = redact__path(aslr->redact, REDACT_CGROUP, PERF_RECORD_CGROUP, path,
			   dst->cgroup.path, PERF_SAMPLE_MAX_SIZE - size - 8 * sizeof(u64));
	if (err)
		return err;
	room = strlen(dst->cgroup.path) + 1;
	memset(dst->cgroup.path + room, 0, PERF_ALIGN(room, sizeof(u64)) - room);
	size += PERF_ALIGN(room, sizeof(u64));
	return aslr__deliver(aslr, aslr__end_record(aslr, event, sample, size), sample, machine);
}

/* With --redact=devino, the device and inode numbers of namespaces zeroed. */
static int aslr__namespaces(struct aslr *aslr, union perf_event *event,
			    struct perf_sample *sample, struct machine *machine)
{
	size_t room = (event->header.size - sizeof(event->namespaces)) /
		      sizeof(event->namespaces.link_info[0]);
	union perf_event *copy;
	u64 i;

	if (!redact__has(aslr->redact, REDACT_DEVINO) ||
	    event->header.size < sizeof(event->namespaces))
		return aslr__deliver(aslr, event, sample, machine);
	copy = aslr__copy_event(aslr, event);
	for (i = 0; i < copy->namespaces.nr_namespaces && i < room; i++) {
		copy->namespaces.link_info[i].dev = 0;
		copy->namespaces.link_info[i].ino = 0;
		redact__count(aslr->redact, REDACT_DEVINO, PERF_RECORD_NAMESPACES);
	}
	return aslr__deliver(aslr, copy, sample, machine);
}

static void aslr__reset_caches(struct aslr *aslr)
{
	int i;

	memset(aslr->map_cache, 0, sizeof(aslr->map_cache));
	memset(aslr->map_last, 0, sizeof(aslr->map_last));
	memset(aslr->map_miss, 0, sizeof(aslr->map_miss));
	for (i = 0; i < ASLR_THREAD_CACHE; i++)
		thread__zput(aslr->threads[i]);
}

/* The thread of @sample, not a reference: it is held by the cache. */
static struct thread *aslr__sample_thread(struct aslr *aslr, struct machine *host,
					  struct perf_sample *sample)
{
	struct thread **slot;
	int i;

	for (i = 0; i < ASLR_THREAD_CACHE; i++) {
		struct thread *thread = aslr->threads[i];

		if (thread && thread__tid(thread) == (pid_t)sample->tid &&
		    thread__pid(thread) == (pid_t)sample->pid)
			return thread;
	}
	slot = &aslr->threads[aslr->threads_next++ % ASLR_THREAD_CACHE];
	thread__put(*slot);
	*slot = machine__findnew_thread(host, sample->pid, sample->tid);
	return *slot;
}

/*
 * Tell the delegate about the first address of the sample of @ctx in @dso:
 * at @addr in the remapped layout, for @cpumode. An error is kept for the
 * end of the sample.
 */
static void aslr__dso_hit(struct aslr *aslr, struct aslr_sample_ctx *ctx, struct dso *dso,
			  u8 cpumode, u64 addr)
{
	int err;

	/*
	 * The mappings of a perf-PID.map are one DSO in the input, each an
	 * object of its own in the output (aslr__perf_map_dso()).
	 */
	if (dso__hit(dso) && !is_perf_pid_map_name(dso__long_name(dso)))
		return;
	dso__set_hit(dso);
	err = aslr->dso_hit(aslr->delegate, ctx->hit_sample, cpumode, addr, ctx->is_ip);
	if (err && !ctx->err)
		ctx->err = err;
}

/* Remember where @remap of the mapping @map is, for the next lookups. */
static void aslr__cache_map(struct aslr *aslr, struct aslr_sample_ctx *ctx, u8 cpumode,
			    struct map *map, const struct aslr_remap *remap, u64 addr)
{
	bool kernel = cpumode == PERF_RECORD_MISC_KERNEL;
	int i = aslr->map_cache_next[kernel]++ % ASLR_MAP_CACHE;
	struct aslr_map_cache *cache = &aslr->map_cache[kernel][i];

	/* The kernel's maps are those of every thread. */
	cache->maps = kernel ? NULL : thread__maps(ctx->thread);
	cache->cpumode = cpumode;
	cache->dso = map__dso(map);
	cache->start = map__start(map);
	cache->end = map__end(map);
	cache->delta = remap->delta;
	cache->hit = !!ctx->hit_sample;
	aslr->map_last[kernel] = cache;
	if (cache->hit)
		aslr__dso_hit(aslr, ctx, cache->dso, cpumode, addr + remap->delta);
}

/* Does @cache hold @addr of @maps (NULL: the kernel's) and @cpumode? */
static inline bool aslr_map_cache__holds(const struct aslr_map_cache *cache,
					 const struct maps *maps, u8 cpumode, u64 addr)
{
	/* An empty entry has an end of 0: it holds nothing */
	return addr >= cache->start && addr < cache->end && cache->cpumode == cpumode &&
	       cache->maps == maps;
}

/* aslr__remap_addr() of an address not in the mapping of the last one */
static u64 __aslr__remap_addr(struct aslr *aslr, struct aslr_sample_ctx *ctx, u8 cpumode,
			      u64 addr, bool *found)
{
	bool kernel = cpumode == PERF_RECORD_MISC_KERNEL;
	struct aslr_map_cache *cache = aslr->map_cache[kernel];
	const struct maps *maps = kernel ? NULL : thread__maps(ctx->thread);
	struct aslr_remap *remap = NULL;
	struct aslr_map_miss *miss;
	struct addr_location al;
	int i;

	for (i = 0; i < ASLR_MAP_CACHE; i++, cache++) {
		if (!aslr_map_cache__holds(cache, maps, cpumode, addr))
			continue;
		if (found)
			*found = true;
		if (ctx->hit_sample && !cache->hit) {
			aslr__dso_hit(aslr, ctx, cache->dso, cpumode, addr + cache->delta);
			cache->hit = true;
		}
		aslr->map_last[kernel] = cache;
		return addr + cache->delta;
	}
	miss = &aslr->map_miss[kernel];
	if (miss->valid && miss->addr == addr && miss->maps == maps && miss->cpumode == cpumode)
		goto out;

	addr_location__init(&al);
	if (thread__find_map(ctx->thread, cpumode, addr, &al)) {
		int asid = kernel ? ASLR_KERNEL_ASID : thread__pid(ctx->thread);

		remap = aslr__find_remap(aslr, ctx->machine, asid, al.map);
		if (remap)
			aslr__cache_map(aslr, ctx, cpumode, al.map, remap, addr);
	}
	addr_location__exit(&al);
	if (!remap) {
		miss->maps = maps;
		miss->addr = addr;
		miss->cpumode = cpumode;
		miss->valid = true;
		miss->verified = false;
	}
out:
	if (found)
		*found = remap;
	/*
	 * Zeroed, an address of the input all the same: its value must not be
	 * in the output (out of memory is told there). Told once in a row.
	 */
	if (!found && !remap && !miss->verified) {
		aslr__verify_addr(aslr, addr);
		miss->verified = true;
	}
	return remap ? addr + remap->delta : 0;
}

/*
 * The remapped address of @addr, 0 if it is in no known mapping: an unknown
 * address can't be passed through, it would reveal the layout. *@found, if
 * not NULL, says whether it is in one; if NULL, an address in none is told
 * to the check of the output.
 *
 * The frames of a call chain come mostly several in a mapping: the one of
 * the last address is tried first, inline.
 */
static inline u64 aslr__remap_addr(struct aslr *aslr, struct aslr_sample_ctx *ctx,
				   u8 cpumode, u64 addr, bool *found)
{
	bool kernel = cpumode == PERF_RECORD_MISC_KERNEL;
	const struct aslr_map_cache *last = aslr->map_last[kernel];

	if (last && (last->hit || !ctx->hit_sample) &&
	    aslr_map_cache__holds(last, kernel ? NULL : thread__maps(ctx->thread), cpumode, addr)) {
		if (found)
			*found = true;
		return addr + last->delta;
	}
	return __aslr__remap_addr(aslr, ctx, cpumode, addr, found);
}

/*
 * Branch and data addresses don't necessarily share the cpumode of the sample,
 * use the one of the address space they are in. *@found, if not NULL, says
 * whether it is in any.
 */
static u64 aslr__remap_any(struct aslr *aslr, struct aslr_sample_ctx *ctx, u8 cpumode,
			   u64 addr, bool *found)
{
	u8 other = cpumode == PERF_RECORD_MISC_KERNEL ? PERF_RECORD_MISC_USER :
							PERF_RECORD_MISC_KERNEL;
	bool in_mode;
	u64 ret = aslr__remap_addr(aslr, ctx, cpumode, addr, &in_mode);

	if (in_mode) {
		if (found)
			*found = true;
		return ret;
	}
	return aslr__remap_addr(aslr, ctx, other, addr, found);
}

/*
 * Remap the @nr entries of the callchain @ips of a sample of @cpumode into
 * @out. The PERF_CONTEXT_* markers tell the address space of the entries
 * that follow.
 */
static int aslr__remap_callchain(struct aslr *aslr, struct aslr_sample_ctx *ctx, u8 cpumode,
				 const u64 *ips, u64 nr, u64 *out, u64 file_offset)
{
	u64 i;

	for (i = 0; i < nr; i++) {
		u64 ip = ips[i];

		out[i] = ip;
		if (ip < PERF_CONTEXT_MAX) {
			out[i] = aslr__remap_addr(aslr, ctx, cpumode, ip, NULL);
			continue;
		}
		switch (ip) {
		case PERF_CONTEXT_HV:
			cpumode = PERF_RECORD_MISC_HYPERVISOR;
			break;
		case PERF_CONTEXT_KERNEL:
			cpumode = PERF_RECORD_MISC_KERNEL;
			break;
		case PERF_CONTEXT_USER:
			cpumode = PERF_RECORD_MISC_USER;
			break;
		case PERF_CONTEXT_GUEST:
		case PERF_CONTEXT_GUEST_KERNEL:
		case PERF_CONTEXT_GUEST_USER:
			aslr__err(file_offset, "guest callchain contexts are not supported yet");
			return -EOPNOTSUPP;
		default:
			/*
			 * Not a context, the frame pointer chain went astray
			 * (perf report discards the callchain): nothing after
			 * it can be attributed to an address space. The value
			 * itself is in the last page, where nothing is ever
			 * mapped.
			 */
			memset(out + i + 1, 0, (nr - i - 1) * sizeof(*out));
			return 0;
		}
	}
	return 0;
}

/* Where aslr__unwind_entry() puts the frames of a sample. */
struct aslr_unwind {
	struct aslr		*aslr;
	struct aslr_sample_ctx	*ctx;
	u64			*ips;
	u64			nr;
	u64			max;
};

static int aslr__unwind_entry(struct unwind_entry *entry, void *arg)
{
	struct aslr_unwind *uw = arg;

	/* The deepest frames don't fit in a sample. */
	if (uw->nr < uw->max)
		uw->ips[uw->nr++] = aslr__remap_addr(uw->aslr, uw->ctx, PERF_RECORD_MISC_USER,
						     entry->ip, NULL);
	return 0;
}

/*
 * The user stack and registers of a sample (perf record --call-graph dwarf)
 * can't be shared, they are full of addresses, but the call graph perf report
 * would unwind from them can: unwind it here, where the binaries are, and put
 * it, remapped, in the callchain @out of the sample after its kernel part
 * (@out holds its remapped callchain), as the kernel does for frame pointer
 * call graphs.  The registers and the stack are left out of the output.
 */
static void aslr__unwind_sample(struct aslr *aslr, struct aslr_sample_ctx *ctx,
				struct perf_sample *sample, struct perf_sample *out)
{
	struct aslr_unwind uw = { .aslr = aslr, .ctx = ctx, };
	struct ip_callchain *chain = out->callchain;
	u64 kernel_nr = 0;

	/* Keep the kernel part, the user part is the unwound one. */
	while (kernel_nr < chain->nr && chain->ips[kernel_nr] != PERF_CONTEXT_USER)
		kernel_nr++;
	/* As deep as perf report unwinds by default (--max-stack) */
	uw.ips = chain->ips + kernel_nr + 1;
	uw.max = PERF_MAX_STACK_DEPTH;
	/* As perf report does, even with an empty stack dump. */
	unwind__get_entries(aslr__unwind_entry, &uw, ctx->thread, sample, uw.max,
			    /*best_effort=*/true);
	chain->nr = kernel_nr;
	if (uw.nr) {
		chain->ips[kernel_nr] = PERF_CONTEXT_USER;
		chain->nr += 1 + uw.nr;
	}
	/* Without user registers (a kernel thread) there is nothing to unwind. */
	if (uw.nr) {
		aslr->unwound++;
	} else if (sample->user_regs.abi) {
		aslr->unwind_lost++;
#ifndef HAVE_DWARF_UNWIND_SUPPORT
		pr_warning_once("--aslr: no libdw or libunwind to unwind, user call graphs lost\n");
#endif
	}
}

struct aslr_alias {
	u64	addr;
	u64	alias;
};

/*
 * The stand-in of an address in no mapping (a heap object, a stack, memory
 * of another process): the same for each occurrence, so that tools matching
 * them (perf kmem pairs allocations and frees) still can, and telling nothing
 * of the address but whether it is a user or a kernel one. 0 if out of memory.
 */
static u64 aslr__alias(struct aslr *aslr, u64 addr)
{
	const struct aslr_layout *l = &aslr->layout;
	bool kernel = addr >= l->kernel_min;
	u64 base = kernel ? l->kernel_alias : l->user_alias;
	u64 end = kernel ? l->kernel_end : l->user_end;
	struct aslr_alias *alias;

	if (hashmap__find(aslr->aliases, &addr, &alias))
		return alias->alias;
	/* Out of stand-ins (millions): zeroed */
	if ((aslr->nr_aliases[kernel] + 1) * ASLR_ALIAS_STEP >= end - base)
		return 0;
	alias = malloc(sizeof(*alias));
	if (!alias)
		return 0;
	alias->addr = addr;
	alias->alias = base + ++aslr->nr_aliases[kernel] * ASLR_ALIAS_STEP;
	if (hashmap__add(aslr->aliases, &alias->addr, alias)) {
		free(alias);
		return 0;
	}
	return alias->alias;
}

static bool aslr__is_hex(char c)
{
	return isxdigit((unsigned char)c);
}

/*
 * perf probe names a probe made at an address abs_<addr>: in the names of
 * events, each run of hexadecimal digits that could be an address (8 to 16
 * digits, from 4 GiB up, whatever is around it) gets the stand-in of the
 * address, of as many digits, the same for the same address; its digits are
 * masked if the stand-in doesn't fit, as are runs of more than 16 digits.
 * In place, in the @len bytes at @s, up to a NUL. @aslr may be NULL: masked.
 * Returns the number of numbers replaced.
 */
static u64 aslr__rename(struct aslr *aslr, char *s, size_t len)
{
	u64 renamed = 0;
	size_t i = 0;

	while (i < len && s[i]) {
		size_t start = i, digits;
		char buf[17];
		u64 val = 0, alias = 0;

		if (!aslr__is_hex(s[i])) {
			i++;
			continue;
		}
		while (i < len && s[i] && aslr__is_hex(s[i]))
			val = val << 4 | hex(s[i++]);
		digits = i - start;
		if (digits < 8 || (digits <= 16 && val <= UINT32_MAX))
			continue;
		if (aslr && digits <= 16)
			alias = aslr__alias(aslr, val);
		if (alias && (digits == 16 || !(alias >> (4 * digits)))) {
			snprintf(buf, sizeof(buf), "%0*" PRIx64, (int)digits, alias);
			memcpy(s + start, buf, digits);
		} else {
			memset(s + start, 'X', digits);
		}
		renamed++;
	}
	if (aslr)
		aslr->names_renamed += renamed;
	return renamed;
}

#ifdef HAVE_LIBTRACEEVENT
/*
 * What --aslr does with a field of a tracepoint. Nothing is passed through
 * because no list named it: a field is kept as it is only when it can't
 * hold an address (an integer narrower than a long, a number perf's own
 * tools read); every other integer of the size of an address is taken for
 * one, and text has the numbers that could be addresses masked.
 */
enum aslr_tp_kind {
	/* Integers, taken for addresses: see aslr__remap_tp_value(). */
	ASLR_TP_ADDR,
	/* Text: hexadecimal numbers that could be addresses are masked. */
	ASLR_TP_TEXT,
	/* Bytes of unknown layout: the 8-byte words in a mapping are remapped. */
	ASLR_TP_BYTES,
	/* A field kept as it is, noted for where its dynamic data is. */
	ASLR_TP_KEEP,
	/*
	 * A number by its meaning, of the size of an address: kept, but for a
	 * value in a mapping, taken for an address.
	 */
	ASLR_TP_NUMBER,
	/* Bytes in no field: what the kernel left there, zeroed. */
	ASLR_TP_HOLE,
};

/* A field, or the elements of an array field, of a tracepoint. */
struct aslr_tp_field {
	u32	offset;
	/* Of an element; of the __data_loc/__rel_loc word if dynamic. */
	u32	size;
	u32	count;
	u8	kind;
	/* The data is where the __data_loc or __rel_loc word says. */
	bool	dynamic;
	bool	relative;
	/* Text named *comm: the command name of a thread */
	bool	comm;
};

struct aslr_tp_fields {
	/* Where the fields of fixed offset end: dynamic data follows. */
	u32			fixed_end;
	int			nr;
	struct aslr_tp_field	fields[];
};

static bool aslr__name_in(const char *name, const char * const *names, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		if (!strcmp(name, names[i]))
			return true;
	}
	return false;
}

/*
 * Integer fields that hold code or data addresses in the kernel's tracepoints
 * (call sites, instruction pointers, the memory a tracepoint is about), and
 * the probe address of kprobes and uprobes made with perf probe.
 */
static const char * const aslr__tp_addr_names[] = {
	"__probe_func", "__probe_ip", "__probe_ret_ip",
	"addr", "address", "call_site", "caller", "caller_ip", "func", "function",
	"ip", "parent_ip", "ptr", "vm_end", "vm_start",
};

/*
 * Integer fields that hold none of the recording machine's addresses by
 * their meaning: the sizes, times, pids, cpus and states that perf's own
 * tools (sched, kmem, lock, kwork, timechart, trace) read as numbers, and
 * the times of timers. Kept as they are, so that the tables of these tools
 * are the same before and after. So are flags (names ending in "flags").
 */
static const char * const aslr__tp_number_names[] = {
	"bucket_expiry", "bytes_alloc", "bytes_req", "cpu_id", "delay", "dest_cpu",
	"expires", "irq", "next_pid", "next_prio", "node", "now", "order",
	"orig_cpu", "pid", "prev_pid", "prev_prio", "prev_state", "prio", "runtime",
	"softexpires", "state", "target_cpu", "value", "vec", "vruntime",
};

static bool aslr__tp_is_number(const char *name)
{
	size_t len = strlen(name);

	if (len >= 5 && !strcmp(name + len - 5, "flags"))
		return true;
	return aslr__name_in(name, aslr__tp_number_names, ARRAY_SIZE(aslr__tp_number_names));
}

static bool aslr__tp_is_syscall(const struct tep_event *tp)
{
	return tp->system && (!strcmp(tp->system, "syscalls") ||
			      !strcmp(tp->system, "raw_syscalls"));
}

/*
 * The size of an element of @field, 0 if the format doesn't say (a dynamic
 * array of a type libtraceevent doesn't know the size of).
 */
static unsigned int aslr__tp_elem_size(const struct tep_event *tp,
				       const struct tep_format_field *field)
{
	if (!(field->flags & TEP_FIELD_IS_ARRAY))
		return field->size > 0 ? (unsigned int)field->size : 0;
	if (field->elementsize > 0)
		return field->elementsize;
	if (field->flags & TEP_FIELD_IS_LONG)
		return tp->tep ? (unsigned int)tep_get_long_size(tp->tep) : sizeof(long);
	return 0;
}

/*
 * How @field of @tp is written (see perf-inject.txt), false if it is kept as
 * it is: strings are text; pointers, the integers named as addresses above,
 * the long arguments and return values of system calls (mmap, brk, mremap,
 * ... take and return addresses) are addresses; so is any other integer of
 * 8 bytes or of the size of a long of the recording machine, unless perf's
 * tools read it as a number; an array of bytes or of a type not known holds
 * who knows what: its 8-byte words in a mapping are remapped.
 */
static bool aslr__tp_field_kind(const struct tep_event *tp,
				const struct tep_format_field *field,
				unsigned int elem, u8 *kind)
{
	unsigned int long_size = tp->tep ? (unsigned int)tep_get_long_size(tp->tep) :
					   sizeof(long);
	unsigned long flags = field->flags;

	if (flags & TEP_FIELD_IS_STRING) {
		*kind = ASLR_TP_TEXT;
		return true;
	}
	if (elem != sizeof(u64) && elem != sizeof(u32)) {
		/* An array of bytes, of shorts, or of elements of unknown size */
		*kind = ASLR_TP_BYTES;
		return (flags & (TEP_FIELD_IS_ARRAY | TEP_FIELD_IS_DYNAMIC)) &&
		       (elem == 0 || elem < sizeof(u32));
	}
	*kind = ASLR_TP_ADDR;
	if (flags & TEP_FIELD_IS_POINTER)
		return true;
	if ((flags & TEP_FIELD_IS_LONG) && aslr__tp_is_syscall(tp))
		return true;
	if (aslr__name_in(field->name, aslr__tp_addr_names, ARRAY_SIZE(aslr__tp_addr_names)))
		return true;
	if (aslr__tp_is_number(field->name))
		return false;
	/* An unknown integer: an address if it is wide enough to hold one. */
	return elem == sizeof(u64) || ((flags & TEP_FIELD_IS_LONG) && elem == long_size);
}

static const char *aslr__tp_kind_name(u8 kind)
{
	switch (kind) {
	case ASLR_TP_ADDR:
		return "addresses";
	case ASLR_TP_TEXT:
		return "text, numbers that could be addresses masked";
	case ASLR_TP_NUMBER:
		return "a number, remapped in a mapping";
	case ASLR_TP_BYTES:
	default:
		return "bytes, words in a mapping remapped";
	}
}

static int aslr__tp_span_cmp(const void *a, const void *b)
{
	const struct aslr_tp_field *fa = a, *fb = b;

	return fa->offset < fb->offset ? -1 : fa->offset > fb->offset;
}

/*
 * The bytes of the fixed part of @tp that no field holds, as ASLR_TP_HOLE
 * fields in @holes (room for one more than the fields), where the fixed
 * part ends in *@fixed_end. The kernel doesn't clear them (the padding
 * after the system call number of syscalls:sys_enter_*, after the code of
 * signal:signal_deliver): they hold what earlier events left in its
 * buffer, the high half of an address as often as not. Returns how many.
 */
static int aslr__tp_holes(const struct tep_event *tp, struct aslr_tp_field *holes,
			  u32 *fixed_end)
{
	struct tep_format_field *field, *lists[2] = { tp->format.common_fields,
						     tp->format.fields };
	int max = tp->format.nr_common + tp->format.nr_fields;
	struct aslr_tp_field *span = calloc(max ?: 1, sizeof(*span));
	int i, n, nr = 0, nr_holes = 0;
	u32 pos = 0;

	if (!span)
		return -ENOMEM;
	for (n = 0; n < 2; n++) {
		for (field = lists[n]; field && nr < max; field = field->next) {
			if (field->offset < 0 || field->size <= 0)
				continue;
			span[nr].offset = field->offset;
			span[nr++].size = field->size;
		}
	}
	qsort(span, nr, sizeof(*span), aslr__tp_span_cmp);
	for (i = 0; i < nr; i++) {
		if (span[i].offset > pos) {
			holes[nr_holes].offset = pos;
			holes[nr_holes].size = 1;
			holes[nr_holes].count = span[i].offset - pos;
			holes[nr_holes++].kind = ASLR_TP_HOLE;
		}
		pos = max(pos, span[i].offset + span[i].size);
	}
	free(span);
	*fixed_end = pos;
	return nr_holes;
}

/*
 * The fields of the tracepoint @tp that may hold addresses, the dynamic
 * fields kept and the bytes in no field, found once.
 */
static struct aslr_tp_fields *aslr__tp_fields(struct aslr *aslr, struct tep_event *tp)
{
	int max = tp->format.nr_common + tp->format.nr_fields;
	const struct tep_format_field *field;
	struct aslr_tp_fields *fields;
	int nr;

	if (hashmap__find(aslr->tp_fields, tp, &fields))
		return fields;

	fields = zalloc(sizeof(*fields) + (tp->format.nr_fields + max + 1) *
					  sizeof(fields->fields[0]));
	if (!fields)
		return NULL;
	nr = aslr__tp_holes(tp, fields->fields, &fields->fixed_end);
	if (nr < 0) {
		free(fields);
		return NULL;
	}
	for (field = tp->format.fields; field && nr < tp->format.nr_fields + max + 1;
	     field = field->next) {
		struct aslr_tp_field *f = &fields->fields[nr];
		unsigned int elem = aslr__tp_elem_size(tp, field);

		if (field->offset < 0 || field->size <= 0)
			continue;
		if (!aslr__tp_field_kind(tp, field, elem, &f->kind)) {
			pr_debug2("--aslr: %s:%s: %s %s kept\n",
				  tp->system, tp->name, field->type, field->name);
			if (field->flags & TEP_FIELD_IS_DYNAMIC)
				f->kind = ASLR_TP_KEEP;
			else if (elem == sizeof(u64) && !(field->flags & TEP_FIELD_IS_ARRAY))
				f->kind = ASLR_TP_NUMBER;
			else
				continue;
		}
		f->offset = field->offset;
		f->comm = strlen(field->name) >= 4 &&
			  !strcmp(field->name + strlen(field->name) - 4, "comm");
		f->dynamic = field->flags & TEP_FIELD_IS_DYNAMIC;
		f->relative = field->flags & TEP_FIELD_IS_RELATIVE;
		if (f->dynamic) {
			/* The u32 saying where the data is and how long. */
			if (field->size != sizeof(u32))
				continue;
			f->size = f->kind == ASLR_TP_ADDR ? elem : 1;
		} else if (f->kind == ASLR_TP_ADDR || f->kind == ASLR_TP_NUMBER) {
			f->size = elem;
			f->count = field->size / elem;
		} else {
			f->size = 1;
			f->count = field->size;
		}
		pr_debug2("--aslr: %s:%s: %s %s: %s\n", tp->system, tp->name,
			  field->type, field->name, aslr__tp_kind_name(f->kind));
		nr++;
	}
	fields->nr = nr;
	if (hashmap__add(aslr->tp_fields, tp, fields)) {
		free(fields);
		return NULL;
	}
	return fields;
}

/*
 * The value to write for @val, read from an address field of @size bytes:
 * remapped if it is in a known mapping, kept if it can't be an address
 * (nothing is mapped in the first 64 KiB, error codes are stored in
 * pointers, system call arguments hold ints zero extended, -1 often),
 * replaced by a stand-in otherwise (zeroed in 32-bit fields).
 */
static u64 aslr__remap_tp_value(struct aslr *aslr, struct aslr_sample_ctx *ctx,
				u8 cpumode, u64 val, s64 sval, size_t size)
{
	bool found;
	u64 ret;

	if ((sval >= -MAX_ERRNO && sval < 0x10000) ||
	    (val <= UINT32_MAX && (s32)val >= -MAX_ERRNO && (s32)val < 0))
		return val;
	ret = aslr__remap_any(aslr, ctx, cpumode, val, &found);
	if (found) {
		aslr->tp_remapped++;
		return ret;
	}
	aslr__verify_addr(aslr, val);
	/* A stand-in doesn't fit in 32 bits but in a 32-bit layout. */
	ret = size == sizeof(u64) || aslr->layout.bits == 32 ? aslr__alias(aslr, val) : 0;
	if (ret)
		aslr->tp_aliased++;
	else
		aslr->tp_zeroed++;
	return ret;
}

/*
 * Mask, in the @len bytes of text at @s, the hexadecimal numbers that could
 * be addresses: those written with 0x and those of 8 digits or more, of a
 * value from 64 KiB up. Their digits become 'X', the length of the text
 * stays. Returns the number of numbers masked.
 */
static u64 aslr__mask_text(char *s, size_t len)
{
	u64 masked = 0;
	size_t i = 0;

	while (i < len && s[i]) {
		size_t start = i, digits, j;
		bool prefix = false;
		u64 val = 0;

		if (!aslr__is_hex(s[i]) || (i && isalnum((unsigned char)s[i - 1]))) {
			i++;
			continue;
		}
		if (s[i] == '0' && i + 2 < len && (s[i + 1] == 'x' || s[i + 1] == 'X') &&
		    aslr__is_hex(s[i + 2])) {
			prefix = true;
			start = i += 2;
		}
		for (j = start; j < len && s[j] && aslr__is_hex(s[j]); j++)
			val = val << 4 | hex(s[j]);
		digits = j - start;
		i = j;
		if (!prefix && (digits < 8 || (j < len && isalnum((unsigned char)s[j]))))
			continue;
		if (digits <= 16 && val < 0x10000)
			continue;
		memset(s + start, 'X', digits);
		masked++;
	}
	return masked;
}

/*
 * Remap, in @len bytes at @pos, the 8-byte words at every @step bytes whose
 * value is in a mapping of the recording: of bytes of unknown layout at
 * every 4 bytes, of numbers at every 8.
 */
static void aslr__remap_bytes(struct aslr *aslr, struct aslr_sample_ctx *ctx, u8 cpumode,
			      void *pos, u32 len, u32 step)
{
	u32 n;

	for (n = 0; n + sizeof(u64) <= len; n += step) {
		bool found;
		u64 val;

		memcpy(&val, pos + n, sizeof(val));
		if (val < 0x10000)
			continue;
		val = aslr__remap_any(aslr, ctx, cpumode, val, &found);
		if (!found)
			continue;
		memcpy(pos + n, &val, sizeof(val));
		aslr->tp_remapped++;
	}
}

/*
 * Where the data of the field @f is in the @size bytes of raw data at @raw:
 * its offset in *@offset, its length in *@len. -EINVAL if not inside.
 */
static int aslr__tp_field_data(const struct aslr_tp_field *f, void *raw, u32 size,
			       u32 *offset, u32 *len)
{
	u32 loc;

	if (!f->dynamic) {
		*offset = f->offset;
		*len = f->size * f->count;
	} else {
		if ((u64)f->offset + sizeof(loc) > size)
			return -EINVAL;
		memcpy(&loc, raw + f->offset, sizeof(loc));
		*offset = loc & 0xffff;
		*len = loc >> 16;
		/* __rel_loc: from the end of the field */
		if (f->relative)
			*offset += f->offset + sizeof(loc);
	}
	return (u64)*offset + *len > size ? -EINVAL : 0;
}

/* Zero the @len bytes at @pos, true if any wasn't zero. */
static bool aslr__zero(void *pos, u32 len)
{
	bool stale = memchr_inv(pos, 0, len);

	if (stale)
		memset(pos, 0, len);
	return stale;
}

/*
 * Zero what follows the fixed part of the @size bytes of raw data at @raw
 * but the data of its dynamic fields: the padding to 8 bytes, what a
 * malformed record has there. True if any byte wasn't zero.
 */
static bool aslr__tp_zero_tail(const struct aslr_tp_fields *fields, void *raw, u32 size)
{
	u32 pos = fields->fixed_end, offset, len;
	bool stale = false;
	int i;

	while (pos < size) {
		u32 next = size;

		for (i = 0; i < fields->nr; i++) {
			const struct aslr_tp_field *f = &fields->fields[i];

			if (!f->dynamic || aslr__tp_field_data(f, raw, size, &offset, &len) ||
			    !len || offset + len <= pos)
				continue;
			if (offset <= pos) {
				pos = offset + len;
				break;
			}
			next = min(next, offset);
		}
		if (i < fields->nr)
			continue;
		stale |= aslr__zero(raw + pos, next - pos);
		pos = next;
	}
	return stale;
}

/*
 * With --redact=paths, the path in the @len bytes at @pos with its names
 * tokens; if it doesn't fit there, its token (zeroed if the field is too
 * short for one): 1 if it did, 0 if the path is kept.
 */
static int aslr__redact_tp_path(struct aslr *aslr, char *pos, u32 len)
{
	char *path = strndup(pos, len), buf[PATH_MAX];
	int err = path ? aslr__redact_path(aslr, PERF_RECORD_SAMPLE, path, buf, sizeof(buf)) :
			 -ENOMEM;

	if (err <= 0)
		goto out;
	if (strlen(buf) < len) {
		memset(pos, 0, len);
		memcpy(pos, buf, strlen(buf));
	} else if (len > REDACT_TOKEN_LEN) {
		redact__token(aslr->redact, REDACT_PATHS, PERF_RECORD_SAMPLE, path, len, buf);
		memset(pos, 0, len);
		memcpy(pos, buf, REDACT_TOKEN_LEN);
	} else {
		memset(pos, 0, len);
		redact__count(aslr->redact, REDACT_PATHS, PERF_RECORD_SAMPLE);
	}
out:
	free(path);
	return err;
}

/*
 * Replace the text of @len bytes at @pos, of a comm field if @comm, by its
 * token (zeroed if the field is too short for one), if --redact says so and
 * it is not a path: 1 if it did, 0 if not.
 */
static int aslr__redact_text(struct aslr *aslr, bool comm, char *pos, u32 len)
{
	enum redact_class class = comm ? REDACT_COMM : REDACT_TP_STRINGS;
	char token[REDACT_TOKEN_LEN + 1];
	int err;

	/* A path: as in the records of the mappings */
	if (!comm && len && pos[0] == '/')
		return aslr__redact_tp_path(aslr, pos, len);
	if (!redact__has(aslr->redact, class) &&
	    !redact__has(aslr->redact, REDACT_TP_STRINGS))
		return 0;
	if (!len || !pos[0])
		return 1;
	err = redact_check__add(aslr->names, comm ? "comm" : "tracepoint string", pos, len,
				false);
	if (err)
		return err;
	if (len > REDACT_TOKEN_LEN) {
		redact__token(aslr->redact, class, PERF_RECORD_SAMPLE, pos, len, token);
		memset(pos, 0, len);
		memcpy(pos, token, sizeof(token));
	} else {
		memset(pos, 0, len);
		redact__count(aslr->redact, class, PERF_RECORD_SAMPLE);
	}
	return 1;
}

/*
 * Rewrite the fields that may hold addresses of the raw data of a tracepoint
 * sample, @raw in the copy of the sample, and zero the bytes in no field.
 * The format of the tracepoint comes from the tracing data of the file.
 */
static int aslr__remap_raw(struct aslr *aslr, struct aslr_sample_ctx *ctx,
			   struct evsel *evsel, struct perf_sample *sample, void *raw)
{
	struct tep_event *tp = evsel->tp_format;
	struct aslr_tp_fields *fields;
	bool stale;
	int i, err;

	if (!tp) {
		aslr__err(sample->file_offset,
			  "no format for the tracepoint of '%s', is the tracing data missing?",
			  evsel__name(evsel));
		return -EINVAL;
	}
	fields = aslr__tp_fields(aslr, tp);
	if (!fields)
		return -ENOMEM;

	stale = aslr__tp_zero_tail(fields, raw, sample->raw_size);
	for (i = 0; i < fields->nr; i++) {
		const struct aslr_tp_field *f = &fields->fields[i];
		u32 offset, len, n;
		void *pos;

		if (f->kind == ASLR_TP_KEEP)
			continue;
		if (f->kind == ASLR_TP_HOLE) {
			/* A record shorter than its format: no more of it. */
			if (f->offset < sample->raw_size)
				stale |= aslr__zero(raw + f->offset,
						    min(f->count, sample->raw_size - f->offset));
			continue;
		}
		if (aslr__tp_field_data(f, raw, sample->raw_size, &offset, &len)) {
			aslr__err(sample->file_offset,
				  "the raw data of '%s' is shorter than its format, the file is corrupt",
				  evsel__name(evsel));
			return -EINVAL;
		}
		pos = raw + offset;
		if (f->kind == ASLR_TP_TEXT) {
			err = aslr__redact_text(aslr, f->comm, pos, len);
			if (err < 0)
				return err;
			if (!err)
				aslr->tp_masked += aslr__mask_text(pos, len);
			continue;
		}
		if (f->kind == ASLR_TP_BYTES || f->kind == ASLR_TP_NUMBER) {
			aslr__remap_bytes(aslr, ctx, sample->cpumode, pos, len,
					  f->kind == ASLR_TP_BYTES ? sizeof(u32) : sizeof(u64));
			continue;
		}
		/* The raw data is 4-byte aligned, its fields may not be 8-byte aligned. */
		for (n = 0; n + f->size <= len; n += f->size, pos += f->size) {
			u64 val;
			u32 val32;

			if (f->size == sizeof(u64)) {
				memcpy(&val, pos, sizeof(val));
				val = aslr__remap_tp_value(aslr, ctx, sample->cpumode,
							   val, (s64)val, f->size);
				memcpy(pos, &val, sizeof(val));
			} else {
				memcpy(&val32, pos, sizeof(val32));
				val = aslr__remap_tp_value(aslr, ctx, sample->cpumode,
							   val32, (s32)val32, f->size);
				val32 = val;
				memcpy(pos, &val32, sizeof(val32));
			}
		}
	}
	if (stale)
		aslr->tp_stale++;
	return 0;
}
#endif /* HAVE_LIBTRACEEVENT */

/*
 * The sample fields of @attr that --aslr writes: not the registers nor the
 * user stack (unwound into the callchain, see aslr__unwind_sample()), not
 * the AUX area data, and the raw data of tracepoints only, whose layout
 * their format gives: any other event's is not known.
 */
static u64 aslr__out_sample_type(const struct perf_event_attr *attr)
{
	u64 type = attr->sample_type & ~(ASLR_CUT_SAMPLE_TYPES | PERF_SAMPLE_AUX);

#ifdef HAVE_LIBTRACEEVENT
	if (attr->type == PERF_TYPE_TRACEPOINT)
		return type;
#endif
	return type & ~PERF_SAMPLE_RAW;
}

/* The registers of @src, but not their cache: @dst's is empty. */
static void aslr__copy_regs(struct regs_dump *dst, const struct regs_dump *src)
{
	dst->abi = src->abi;
	dst->mask = src->mask;
	dst->regs = src->regs;
	dst->cache_mask = 0;
}

/*
 * A copy of @sample but for the caches of its registers: 1 KB of its
 * 1.4, which nothing reads without a bit of their cache_mask set.
 */
static void aslr__copy_sample(struct perf_sample *out, const struct perf_sample *sample)
{
	size_t regs = offsetof(struct perf_sample, user_regs);
	size_t end = offsetof(struct perf_sample, intr_regs) + sizeof(sample->intr_regs);

	BUILD_BUG_ON(offsetof(struct perf_sample, intr_regs) != regs + sizeof(sample->user_regs));
	memcpy(out, sample, regs);
	memcpy((void *)out + end, (const void *)sample + end, sizeof(*out) - end);
	aslr__copy_regs(&out->user_regs, &sample->user_regs);
	aslr__copy_regs(&out->intr_regs, &sample->intr_regs);
}

/*
 * The sample of the record @event as read, in @out. The session delivers a
 * sample with PERF_SAMPLE_READ as the event of the first value read, with
 * its id and period: the record has the layout of the event it was read
 * as, and its own id and period.
 */
static struct evsel *aslr__sample_record(struct evsel *evsel, union perf_event *event,
					 struct perf_sample *sample, struct perf_sample *out)
{
	struct evsel *layout = evsel;

	aslr__copy_sample(out, sample);
	if (!(evsel->core.attr.sample_type & PERF_SAMPLE_READ))
		return evsel;
	layout = evlist__event2evsel(evsel->evlist, event) ?: evsel;
	if (evsel__parse_sample(layout, event, out)) {
		aslr__err(sample->file_offset, "can't parse the sample again");
		return NULL;
	}
	return layout;
}

/* Remap the callchain of @out into aslr->chain, and the branch stack. */
static int aslr__remap_sample_chains(struct aslr *aslr, struct aslr_sample_ctx *ctx,
				     u64 type, struct perf_sample *out)
{
	struct branch_entry *from, *to;
	u64 i, nr;
	int err;

	if (type & PERF_SAMPLE_CALLCHAIN) {
		/* The DSOs of the call graph are hit, as for perf inject -b. */
		nr = out->callchain->nr;
		err = aslr__remap_callchain(aslr, ctx, out->cpumode, out->callchain->ips, nr,
					    aslr->chain + 1, out->file_offset);
		if (err)
			return err;
		aslr->chain[0] = nr;
		out->callchain = (struct ip_callchain *)aslr->chain;
	}
	/* Not the DSOs of branches or data addresses */
	ctx->hit_sample = NULL;
	if (!(type & PERF_SAMPLE_BRANCH_STACK))
		return 0;
	nr = out->branch_stack->nr;
	from = perf_sample__branch_entries(out);
	aslr->branches->nr = nr;
	aslr->branches->hw_idx = out->no_hw_idx ? -1ULL : out->branch_stack->hw_idx;
	to = aslr->branches->entries;
	for (i = 0; i < nr; i++) {
		to[i] = from[i];
		to[i].from = aslr__remap_any(aslr, ctx, out->cpumode, from[i].from, NULL);
		to[i].to = aslr__remap_any(aslr, ctx, out->cpumode, from[i].to, NULL);
	}
	out->branch_stack = aslr->branches;
	out->no_hw_idx = false;
	return 0;
}

/* No registers, but not their cache: 512 bytes, never read without a mask */
static void aslr__clear_regs(struct regs_dump *regs)
{
	regs->abi = 0;
	regs->mask = 0;
	regs->regs = NULL;
	regs->cache_mask = 0;
}

/*
 * Leave out of @out what --aslr doesn't write (aslr__out_sample_type()),
 * counted; the raw data of a tracepoint rewritten in aslr->raw.
 */
static int aslr__scrub_sample(struct aslr *aslr, struct aslr_sample_ctx *ctx __maybe_unused,
			      struct evsel *layout, struct perf_sample *out)
{
	u64 type = layout->core.attr.sample_type;
	u64 written = aslr__out_sample_type(&layout->core.attr);
	int err = 0;

	if (type & (PERF_SAMPLE_REGS_USER | PERF_SAMPLE_REGS_INTR))
		aslr->regs_stripped++;
	aslr__clear_regs(&out->user_regs);
	aslr__clear_regs(&out->intr_regs);
	memset(&out->user_stack, 0, sizeof(out->user_stack));
	if (type & PERF_SAMPLE_PHYS_ADDR) {
		out->phys_addr = 0;
		aslr->phys_zeroed++;
	}
	if (type & PERF_SAMPLE_AUX) {
		memset(&out->aux_sample, 0, sizeof(out->aux_sample));
		aslr->aux_dropped++;
	}
	if (!(type & PERF_SAMPLE_RAW))
		return 0;
	if (!(written & PERF_SAMPLE_RAW)) {
		out->raw_data = NULL;
		out->raw_size = 0;
		aslr->raw_dropped++;
		return 0;
	}
	/* The kernel pads it: its size and it end on 8 bytes, as the record */
	if ((out->raw_size + sizeof(u32)) % sizeof(u64)) {
		aslr__err(out->file_offset, "raw data of %u bytes, not padded: the file is corrupt",
			  out->raw_size);
		return -EINVAL;
	}
#ifdef HAVE_LIBTRACEEVENT
	memcpy(aslr->raw, out->raw_data, out->raw_size);
	out->raw_data = aslr->raw;
	err = aslr__remap_raw(aslr, ctx, layout, out, aslr->raw);
#endif
	return err;
}

/* Write @out as a sample of @layout, of @misc, into aslr->buf. */
static int aslr__write_sample(struct aslr *aslr, struct evsel *layout, u16 misc,
			      struct perf_sample *out)
{
	const struct perf_event_attr *attr = &layout->core.attr;
	u64 type = aslr__out_sample_type(attr);
	u64 branch_type = attr->branch_sample_type & ~PERF_SAMPLE_BRANCH_COUNTERS;
	size_t size;

	/* Branch counters as read: perf reads them for a group that has them */
	if (out->branch_stack_cntr)
		branch_type |= PERF_SAMPLE_BRANCH_COUNTERS;
	size = perf_event__sample_event_size(out, type, attr->read_format, branch_type);
	if (size > UINT16_MAX) {
		aslr__err(out->file_offset, "the rewritten sample doesn't fit in a record");
		return -E2BIG;
	}
	aslr->buf->header.type = PERF_RECORD_SAMPLE;
	aslr->buf->header.misc = misc;
	aslr->buf->header.size = size;
	return perf_event__synthesize_sample(aslr->buf, type, attr->read_format, branch_type,
					     out);
}

/*
 * A sample is read, its addresses remapped and what can't be remapped left
 * out (see aslr__out_sample_type()), then written anew, for the attr of
 * the output.
 */
static int aslr__sample(struct aslr *aslr, union perf_event *event,
			struct perf_sample *sample, struct evsel *evsel,
			struct machine *machine)
{
	struct aslr_sample_ctx ctx = { .hit_sample = aslr->dso_hit ? sample : NULL, };
	struct perf_sample out;
	struct evsel *layout;
	u64 type;
	int err = aslr__machine(aslr, sample->cpumode, sample->file_offset, &ctx.machine);

	if (err)
		return err;
	aslr__retire(aslr, sample->time);
	ctx.thread = aslr__sample_thread(aslr, ctx.machine, sample);
	if (!ctx.thread)
		return -ENOMEM;
	layout = aslr__sample_record(evsel, event, sample, &out);
	if (!layout)
		return -EINVAL;
	type = layout->core.attr.sample_type;

	/* The DSO of the ip is hit, as for perf inject -b. */
	if (type & PERF_SAMPLE_IP) {
		ctx.is_ip = true;
		out.ip = aslr__remap_addr(aslr, &ctx, out.cpumode, out.ip, NULL);
		ctx.is_ip = false;
	}
	err = aslr__remap_sample_chains(aslr, &ctx, type, &out);
	if (!err && (type & PERF_SAMPLE_STACK_USER) && (type & PERF_SAMPLE_CALLCHAIN)) {
		ctx.hit_sample = aslr->dso_hit ? sample : NULL;
		aslr__unwind_sample(aslr, &ctx, sample, &out);
		ctx.hit_sample = NULL;
	}
	if (type & PERF_SAMPLE_ADDR)
		out.addr = aslr__remap_any(aslr, &ctx, out.cpumode, out.addr, NULL);
	if (!err)
		err = aslr__scrub_sample(aslr, &ctx, layout, &out);
	if (!err)
		err = aslr__write_sample(aslr, layout, event->header.misc, &out);
	if (err || ctx.err)
		return err ?: ctx.err;
	/* The event and the period of the value read, as delivered */
	out.id = sample->id;
	out.period = sample->period;
	aslr__count(aslr, PERF_RECORD_SAMPLE, /*rewritten=*/true);
	return aslr->out.sample(aslr->delegate, aslr->buf, &out, evsel, machine);
}

int aslr__process_event(struct aslr *aslr, union perf_event *event,
			struct perf_sample *sample, struct machine *machine)
{
	if (!aslr->layout.arch && aslr__find_layout(aslr))
		return -EINVAL;
	aslr__retire(aslr, sample->time);
	/* The layout or the threads may change. */
	aslr__reset_caches(aslr);

	switch (event->header.type) {
	case PERF_RECORD_MMAP:
	case PERF_RECORD_MMAP2:
		return aslr__mmap_common(aslr, event, sample, machine);
	case PERF_RECORD_COMM:
		return aslr__comm(aslr, event, sample, machine);
	case PERF_RECORD_FORK:
		return aslr__fork(aslr, event, sample, machine);
	case PERF_RECORD_EXIT:
		return aslr__exit(aslr, event, sample, machine);
	case PERF_RECORD_KSYMBOL:
		return aslr__ksymbol(aslr, event, sample, machine);
	case PERF_RECORD_CGROUP:
		return aslr__cgroup(aslr, event, sample, machine);
	case PERF_RECORD_NAMESPACES:
		return aslr__namespaces(aslr, event, sample, machine);
	case PERF_RECORD_TEXT_POKE:
		/* Only needed to decode instruction traces, which are dropped. */
		if (aslr__verify_range(aslr, event->text_poke.addr,
				       max(event->text_poke.old_len, event->text_poke.new_len)))
			return -ENOMEM;
		aslr__count_dropped(aslr, event->header.type,
				    "instruction patching, not needed without instruction traces");
		return 0;
	default:
		aslr__err(sample->file_offset, "unexpected event type %u", event->header.type);
		return -EINVAL;
	}
}

int aslr__process_sample(struct aslr *aslr, union perf_event *event,
			 struct perf_sample *sample, struct evsel *evsel,
			 struct machine *machine)
{
	if (!aslr->layout.arch && aslr__find_layout(aslr))
		return -EINVAL;
	return aslr__sample(aslr, event, sample, evsel, machine);
}

int aslr__check_evsel(const struct evsel *evsel)
{
	const struct perf_event_attr *attr = &evsel->core.attr;

	/* Bits of a later perf: where their fields are and what they hold is not known */
	if ((attr->sample_type & ~(PERF_SAMPLE_MAX - 1)) ||
	    (attr->read_format & ~(PERF_FORMAT_MAX - 1)) ||
	    ((attr->sample_type & PERF_SAMPLE_BRANCH_STACK) &&
	     (attr->branch_sample_type & ~(PERF_SAMPLE_BRANCH_MAX - 1)))) {
		pr_err("--aslr: event '%s' has bits this perf doesn't know, use a newer perf:\n",
		       evsel__name((struct evsel *)evsel));
		pr_err("  sample_type %#llx, read_format %#llx, branch_sample_type %#llx\n",
		       (unsigned long long)attr->sample_type,
		       (unsigned long long)attr->read_format,
		       (unsigned long long)attr->branch_sample_type);
		return -EOPNOTSUPP;
	}
	return 0;
}

static bool aslr__is_probe_pmu_name(const char *name)
{
	return !strcmp(name, "kprobe") || !strcmp(name, "uprobe");
}

/*
 * Whether @type is the kprobe or uprobe PMU, whose attributes hold the address
 * of the probe (config2) and a pointer into the memory of the process that
 * created it (config1). PMU types are dynamic, use the ones of the machine
 * where the file was recorded, or of this one when the file doesn't say.
 */
static bool aslr__is_probe_pmu(u32 type, struct perf_env *env)
{
	const char *mapping = env ? env->pmu_mappings : NULL;
	struct perf_pmu *pmu;
	int i;

	if (type < PERF_TYPE_MAX)
		return false;

	if (mapping) {
		for (i = 0; i < env->nr_pmu_mappings; i++) {
			char *name;

			if (strtoul(mapping, &name, 10) == type && *name == ':')
				return aslr__is_probe_pmu_name(name + 1);
			mapping += strlen(mapping) + 1;
		}
		return false;
	}

	pmu = perf_pmus__find_by_type(type);
	return pmu && aslr__is_probe_pmu_name(pmu->name);
}

/*
 * Remove from @attr the sample fields --aslr cuts out of the samples and zero
 * the addresses it holds. Returns whether it held addresses.
 */
static bool aslr__scrub_attr(struct perf_event_attr *attr, struct perf_env *env)
{
	bool addrs = false;

	if (attr->sample_type & PERF_SAMPLE_STACK_USER) {
		/* The user stack was unwound into the callchain. */
		attr->sample_stack_user = 0;
		attr->exclude_callchain_user = 0;
	}
	attr->sample_type = aslr__out_sample_type(attr);
	attr->sample_regs_user = 0;
	attr->sample_regs_intr = 0;
	attr->aux_sample_size = 0;

	if (attr->type == PERF_TYPE_BREAKPOINT) {
		attr->bp_addr = 0;
		addrs = true;
	} else if (aslr__is_probe_pmu(attr->type, env)) {
		/* kprobe_func/uprobe_path and kprobe_addr/probe_offset. */
		attr->config1 = 0;
		attr->config2 = 0;
		addrs = true;
	}
	return addrs;
}

static bool aslr__evsel_has_addrs(struct evsel *evsel, struct perf_env *env)
{
	struct perf_event_attr attr = evsel->core.attr;

	return aslr__scrub_attr(&attr, env);
}

/*
 * The name of a breakpoint event is made from its address, that of a probe
 * may hold one (abs_<addr>).
 */
static void aslr__rename_evsel(struct aslr *aslr, struct evsel *evsel)
{
	u64 bp_addr = evsel->core.attr.bp_addr;

	if (evsel->core.attr.type == PERF_TYPE_BREAKPOINT) {
		zfree(&evsel->name);
		evsel->core.attr.bp_addr = 0;
		evsel__name(evsel);
		evsel->core.attr.bp_addr = bp_addr;
		return;
	}
	/* Named now as it would be written, not a constant "unknown". */
	evsel__name(evsel);
	if (evsel->name)
		aslr__rename(aslr, evsel->name, strlen(evsel->name));
}

/* The names of the machine of @env that --redact=host replaces, for the check. */
static void aslr__check_env_names(struct aslr *aslr, struct perf_env *env)
{
	const char * const names[] = {
		env->hostname, env->os_release, env->cpu_desc, env->cpuid,
	};
	size_t i;

	if (!aslr || !redact__has(aslr->redact, REDACT_HOST))
		return;
	for (i = 0; i < ARRAY_SIZE(names); i++) {
		/* Out of memory, the check of the output fails */
		if (names[i])
			redact_check__add(aslr->names, "name of the machine", names[i],
					  strlen(names[i]), false);
	}
}

void aslr__scrub_evlist(struct aslr *aslr, struct evlist *evlist, struct perf_env *env)
{
	struct evsel *evsel;

	aslr__check_env_names(aslr, env);
	evlist__for_each_entry(evlist, evsel) {
		aslr__rename_evsel(aslr, evsel);
		aslr__scrub_attr(&evsel->core.attr, env);
	}
}

/*
 * Rename the events in an event description feature of a pipe (see
 * write_event_desc()): the number of events, the size of an attr, then
 * for each its attr, the number of its ids, its name (u32 length, padded
 * string) and its ids. -EINVAL if it doesn't hold what it says.
 */
static int aslr__rename_event_desc(struct aslr *aslr, union perf_event *event)
{
	void *p = (void *)event + sizeof(event->feat);
	void *end = (void *)event + event->header.size;
	u32 nre, sz, nr_ids, len;

	if (end - p < 2 * (ssize_t)sizeof(u32))
		return -EINVAL;
	memcpy(&nre, p, sizeof(nre));
	memcpy(&sz, p + sizeof(nre), sizeof(sz));
	p += 2 * sizeof(u32);
	while (nre--) {
		if ((size_t)(end - p) < (u64)sz + 2 * sizeof(u32))
			return -EINVAL;
		p += sz;
		memcpy(&nr_ids, p, sizeof(nr_ids));
		memcpy(&len, p + sizeof(nr_ids), sizeof(len));
		p += 2 * sizeof(u32);
		if ((size_t)(end - p) < (u64)len + (u64)nr_ids * sizeof(u64))
			return -EINVAL;
		aslr__rename(aslr, p, len);
		p += len + (size_t)nr_ids * sizeof(u64);
	}
	return 0;
}

static bool aslr__evlist_has_addrs(struct evlist *evlist, struct perf_env *env)
{
	struct evsel *evsel;

	evlist__for_each_entry(evlist, evsel) {
		if (aslr__evsel_has_addrs(evsel, env))
			return true;
	}
	return false;
}

/* The attr of a PERF_RECORD_HEADER_ATTR, scrubbed in place. */
static void aslr__scrub_header_attr(struct aslr *aslr, struct perf_env *env,
				    union perf_event *event)
{
	struct perf_event_attr attr = { .size = 0, };
	size_t size = event->attr.attr.size ?: PERF_ATTR_SIZE_VER0;
	size_t room = event->header.size - offsetof(struct perf_record_header_attr, attr);

	/*
	 * The fields of a later perf past ours: what they hold is not
	 * known, zero them (their default), the ids after them stay.
	 */
	if (size > sizeof(attr) && room > sizeof(attr)) {
		memset((void *)&event->attr.attr + sizeof(attr), 0,
		       min(size, room) - sizeof(attr));
		if (aslr)
			aslr->attr_tails_zeroed++;
	}
	/* The attr may be smaller than ours, don't write past it. */
	size = min(size, sizeof(attr));
	memcpy(&attr, &event->attr.attr, size);
	aslr__scrub_attr(&attr, env);
	memcpy(&event->attr.attr, &attr, size);
}

/* Why a PERF_RECORD_HEADER_FEATURE is dropped, NULL if it is kept. */
static const char *aslr__feature_why(struct aslr *aslr, struct evlist *evlist,
				     struct perf_env *env, union perf_event *event)
{
	int class;

	/*
	 * Of a later perf: what it holds is not known. HEADER_LAST_FEATURE
	 * alone marks the end of the features.
	 */
	if (event->feat.feat_id > HEADER_LAST_FEATURE ||
	    (event->feat.feat_id == HEADER_LAST_FEATURE &&
	     event->header.size != sizeof(event->feat)))
		return "header features this perf doesn't know, may be addresses";
	aslr__check_env_names(aslr, env);
	class = redact__feature_class(aslr ? aslr->redact : NULL, event->feat.feat_id);
	if (class >= 0) {
		redact__count(aslr->redact, class, PERF_RECORD_HEADER_FEATURE);
		return "what names the recording machine or the command (--redact)";
	}
	switch (event->feat.feat_id) {
	case HEADER_EVENT_DESC:
		if (!aslr__evlist_has_addrs(evlist, env)) {
			if (aslr__rename_event_desc(aslr, event))
				return "event descriptions that can't be read";
			return NULL;
		}
		fallthrough;
	case HEADER_BPF_PROG_INFO:
	case HEADER_CMDLINE:
		return "may hold addresses: BPF programs, command line, event descs";
	case HEADER_BPF_BTF:
		return "BPF program types, of no use without the BPF program info";
	case HEADER_COMPRESSED:
		return "compression parameters, the output is written uncompressed";
	default:
		return NULL;
	}
}

/* Why a PERF_RECORD_EVENT_UPDATE is dropped, NULL if it is kept. */
static const char *aslr__event_update_why(struct aslr *aslr, struct evlist *evlist,
					  union perf_event *event)
{
	struct evsel *evsel = evlist__id2evsel(evlist, event->event_update.id);

	if (event->event_update.type == PERF_EVENT_UPDATE__NAME &&
	    evsel && evsel->core.attr.type == PERF_TYPE_BREAKPOINT)
		return "breakpoint event names, they hold the address";
	if (event->event_update.type == PERF_EVENT_UPDATE__NAME)
		aslr__rename(aslr, event->event_update.name,
			     event->header.size - offsetof(struct perf_record_event_update, name));
	/* Of a later perf: what it holds is not known */
	else if (event->event_update.type > PERF_EVENT_UPDATE__CPUS)
		return "of types this perf doesn't know, which may hold addresses";
	return NULL;
}

bool aslr__scrub_header_event(struct aslr *aslr, struct evlist *evlist,
			      struct perf_env *env, union perf_event *event)
{
	const char *why = NULL;

	switch (event->header.type) {
	case PERF_RECORD_HEADER_ATTR:
		aslr__scrub_header_attr(aslr, env, event);
		return true;
	case PERF_RECORD_HEADER_FEATURE:
		why = aslr__feature_why(aslr, evlist, env, event);
		break;
	case PERF_RECORD_EVENT_UPDATE:
		why = aslr__event_update_why(aslr, evlist, event);
		break;
	default:
		break;
	}
	if (why) {
		aslr__count_dropped(aslr, event->header.type, why);
		return false;
	}
	return true;
}

/* Where aslr__scrub_tracing_data() is in the tracing data. */
struct aslr_td_cursor {
	void	*buf;
	size_t	size;
	size_t	pos;
	bool	swap;
};

static void *aslr_td__take(struct aslr_td_cursor *c, u64 len)
{
	void *p = c->buf + c->pos;

	if (len > c->size - c->pos)
		return NULL;
	c->pos += len;
	return p;
}

static int aslr_td__u32(struct aslr_td_cursor *c, u32 *val)
{
	void *p = aslr_td__take(c, sizeof(*val));

	if (!p)
		return -EINVAL;
	memcpy(val, p, sizeof(*val));
	if (c->swap)
		*val = bswap_32(*val);
	return 0;
}

static int aslr_td__u64(struct aslr_td_cursor *c, u64 *val)
{
	void *p = aslr_td__take(c, sizeof(*val));

	if (!p)
		return -EINVAL;
	memcpy(val, p, sizeof(*val));
	if (c->swap)
		*val = bswap_64(*val);
	return 0;
}

/* Skip a NUL terminated string. */
static int aslr_td__skip_string(struct aslr_td_cursor *c)
{
	void *end = memchr(c->buf + c->pos, '\0', c->size - c->pos);

	if (!end)
		return -EINVAL;
	c->pos = end + 1 - c->buf;
	return 0;
}

/* Skip @count files, each a u64 size and its content. */
static int aslr_td__skip_files(struct aslr_td_cursor *c, u32 count)
{
	u64 size;

	while (count--) {
		if (aslr_td__u64(c, &size) || !aslr_td__take(c, size))
			return -EINVAL;
	}
	return 0;
}

/*
 * Skip @count event formats, renaming the events whose name holds what could
 * be an address: the first line of a format, "name: NAME".
 */
static int aslr_td__rename_formats(struct aslr *aslr, struct aslr_td_cursor *c, u32 count)
{
	static const char name[] = "name: ";
	char *p, *nl;
	u64 size;

	while (count--) {
		if (aslr_td__u64(c, &size))
			return -EINVAL;
		p = aslr_td__take(c, size);
		if (!p)
			return -EINVAL;
		if (size < strlen(name) || memcmp(p, name, strlen(name)))
			continue;
		nl = memchr(p, '\n', size);
		aslr__rename(aslr, p + strlen(name), (nl ?: p + size) - p - strlen(name));
	}
	return 0;
}

/* Skip the header file named @name: the name, NUL terminated, then the file. */
static int aslr_td__skip_header(struct aslr_td_cursor *c, const char *name)
{
	size_t len = strlen(name) + 1;
	void *p = aslr_td__take(c, len);

	if (!p || memcmp(p, name, len))
		return -EINVAL;
	return aslr_td__skip_files(c, 1);
}

/* Count the lines of text of @len bytes at @p. */
static u64 aslr__count_lines(const char *p, size_t len)
{
	u64 n = 0;
	size_t i;

	for (i = 0; i < len; i++)
		n += p[i] == '\n';
	return n + (len && p[len - 1] != '\n');
}

/*
 * Tracing data (the formats of the tracepoints, see trace-event-info.c) ends
 * with a copy of /proc/kallsyms (empty since perf 5.x, perf reads none) and
 * the kernel's printk formats, each with the kernel address of the format:
 * empty both in the @size bytes at @buf. The formats of the events and the
 * saved command lines are kept. *@new_size is the size of what is left.
 */
int aslr__scrub_tracing_data(struct aslr *aslr, void *buf, size_t size, size_t *new_size)
{
	static const char magic[] = { 23, 8, 68, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	struct aslr_td_cursor c = { .buf = buf, .size = size, };
	u32 count, systems, kallsyms_size, printk_size;
	size_t kallsyms, printk, rest, end;
	const char *version;
	u8 *endian;

	if (!aslr_td__take(&c, sizeof(magic)) || memcmp(buf, magic, sizeof(magic)))
		goto out_corrupt;
	version = c.buf + c.pos;
	if (aslr_td__skip_string(&c))
		goto out_corrupt;
	endian = aslr_td__take(&c, 2);	/* endianness and size of long */
	if (!endian || !aslr_td__take(&c, sizeof(u32)))	/* page size */
		goto out_corrupt;
	c.swap = !!*endian != host_is_bigendian();

	if (aslr_td__skip_header(&c, "header_page") || aslr_td__skip_header(&c, "header_event"))
		goto out_corrupt;
	/* The ftrace event formats, then those of the tracepoints by system. */
	if (aslr_td__u32(&c, &count) || aslr_td__rename_formats(aslr, &c, count) ||
	    aslr_td__u32(&c, &systems))
		goto out_corrupt;
	while (systems--) {
		if (aslr_td__skip_string(&c) || aslr_td__u32(&c, &count) ||
		    aslr_td__rename_formats(aslr, &c, count))
			goto out_corrupt;
	}

	kallsyms = c.pos;
	if (aslr_td__u32(&c, &kallsyms_size) || !aslr_td__take(&c, kallsyms_size))
		goto out_corrupt;
	printk = c.pos;
	if (aslr_td__u32(&c, &printk_size) || !aslr_td__take(&c, printk_size))
		goto out_corrupt;
	rest = c.pos;
	/* Version 0.6 has the saved command lines. */
	if (strtod(version, NULL) >= 0.6) {
		if (aslr_td__skip_files(&c, 1))
			goto out_corrupt;
	}
	/* What follows is padding. */
	end = c.pos;
	if (end - rest > sizeof(u64) && redact__has(aslr->redact, REDACT_COMM)) {
		/* The names of the threads the tracing buffer saw: an empty file */
		aslr__count_dropped_nr(aslr, PERF_RECORD_HEADER_TRACING_DATA,
				       aslr__count_lines(buf + rest + sizeof(u64),
							 end - rest - sizeof(u64)),
				       "command names of threads (--redact=comm)");
		memset(buf + rest, 0, sizeof(u64));
		end = rest + sizeof(u64);
	}

	aslr__count_dropped_nr(aslr, PERF_RECORD_HEADER_TRACING_DATA,
			       aslr__count_lines(buf + kallsyms + sizeof(u32), kallsyms_size),
			       "kernel symbols, with their addresses");
	aslr__count_dropped_nr(aslr, PERF_RECORD_HEADER_TRACING_DATA,
			       aslr__count_lines(buf + printk + sizeof(u32), printk_size),
			       "printk formats, with their kernel addresses");
	/* Two empty files, then the command lines. */
	memset(buf + kallsyms, 0, 2 * sizeof(u32));
	memmove(buf + kallsyms + 2 * sizeof(u32), buf + rest, end - rest);
	*new_size = kallsyms + 2 * sizeof(u32) + end - rest;
	return 0;

out_corrupt:
	pr_err("--aslr: the tracing data is truncated or corrupt\n");
	return -EINVAL;
}

/* Append ", @count @what" to the @n first characters of @buf, if @count. */
static size_t aslr__print_count(char *buf, size_t size, size_t n, u64 count,
				const char *what)
{
	if (!count)
		return n;
	return n + scnprintf(buf + n, size - n, ", %" PRIu64 " %s", count, what);
}

/* What was done to the records of @type, in a line. */
static void aslr__print_type_stats(const struct aslr *aslr, u32 type)
{
	const struct aslr_stat *st = &aslr->stats[type];
	char buf[512];
	size_t n = 0;

	if (!st->kept && !st->rewritten && !st->dropped)
		return;
	n = aslr__print_count(buf, sizeof(buf), n, st->kept, "kept");
	n = aslr__print_count(buf, sizeof(buf), n, st->rewritten, "rewritten");
	if (type == PERF_RECORD_SAMPLE) {
		n = aslr__print_count(buf, sizeof(buf), n, aslr->regs_stripped,
				      "stripped of their registers");
		n = aslr__print_count(buf, sizeof(buf), n, aslr->unwound,
				      "with their user stack unwound");
		n = aslr__print_count(buf, sizeof(buf), n, aslr->unwind_lost,
				      "whose user stack could not be unwound");
		n = aslr__print_count(buf, sizeof(buf), n, aslr->phys_zeroed,
				      "with their physical address zeroed");
		n = aslr__print_count(buf, sizeof(buf), n, aslr->raw_dropped,
				      "with the raw data of an event that is not a tracepoint dropped");
		n = aslr__print_count(buf, sizeof(buf), n, aslr->aux_dropped,
				      "with their AUX area data dropped");
		n = aslr__print_count(buf, sizeof(buf), n, aslr->tp_remapped,
				      "tracepoint address fields remapped");
		n = aslr__print_count(buf, sizeof(buf), n, aslr->tp_aliased,
				      "tracepoint address fields in no mapping replaced");
		n = aslr__print_count(buf, sizeof(buf), n, aslr->tp_zeroed,
				      "tracepoint address fields zeroed");
		n = aslr__print_count(buf, sizeof(buf), n, aslr->tp_stale,
				      "with tracepoint bytes in no field zeroed");
		n = aslr__print_count(buf, sizeof(buf), n, aslr->tp_masked,
				      "numbers in tracepoint text masked");
	}
	if (st->dropped) {
		int i;

		n += scnprintf(buf + n, sizeof(buf) - n, ", %" PRIu64 " dropped (%s",
			       st->dropped, st->why[0]);
		for (i = 1; i < ASLR_STAT_WHYS && st->why[i]; i++)
			n += scnprintf(buf + n, sizeof(buf) - n, "; %s", st->why[i]);
		n += scnprintf(buf + n, sizeof(buf) - n, ")");
	}
	pr_debug("aslr: %s: %s\n", perf_event__name(type), buf + 2);
}

void aslr__print_stats(const struct aslr *aslr)
{
	u32 type;

	if (!aslr || verbose <= 0)
		return;

	for (type = 0; type < PERF_RECORD_HEADER_MAX; type++)
		aslr__print_type_stats(aslr, type);
	if (aslr->kernel_clipped)
		pr_debug("aslr: kernel maps: %" PRIu64
			 " cut to what a kernel image can be, they reached past it (perf before 4.x, arm64)\n",
			 aslr->kernel_clipped);
	if (aslr->names_renamed)
		pr_debug("aslr: event names: %" PRIu64
			 " numbers that could be addresses replaced\n", aslr->names_renamed);
	if (aslr->attr_tails_zeroed)
		pr_debug("aslr: event attributes: %" PRIu64 " with fields of a later perf zeroed\n",
			 aslr->attr_tails_zeroed);
	if (aslr->name_tails_zeroed)
		pr_debug("aslr: %" PRIu64 " records with stale bytes after their name, zeroed\n",
			 aslr->name_tails_zeroed);
	if (aslr->canonical_inputs)
		pr_debug("aslr: %" PRIu64
			 " input mappings and addresses already canonical (an --aslr output): not looked for\n",
			 aslr->canonical_inputs);
	if (aslr->perf_map_dsos)
		pr_debug("aslr: perf-PID.map: %" PRIu64 " objects of %" PRIu64
			 " symbols written in %s, for the mappings of anonymous code\n",
			 aslr->perf_map_dsos, aslr->perf_map_syms, aslr->dso_dir);
	if (aslr->kallsyms)
		pr_debug("aslr: kallsyms: a copy in the remapped layout written for the build-id cache, %"
			 PRIu64 " symbols in no mapping left out\n", aslr->kallsyms_dropped);
	if (aslr->jitted && hashmap__size(aslr->jitted))
		pr_debug("aslr: jitted objects: %zu copied to %s without their code and unwinding information\n",
			 hashmap__size(aslr->jitted), aslr->dso_dir);
	if (aslr->keep_exited)
		pr_debug("aslr: threads that exited: kept to the end (samples after their exit: off-CPU samples)\n");
	else if (aslr->nr_retired)
		pr_debug("aslr: threads that exited: %" PRIu64
			 " dropped a second after their exit, with their layouts\n",
			 aslr->nr_retired);
	redact__print_stats(aslr->redact);
	redact_check__print_stats(aslr->names);
}

/*
 * The canonical layout for the architecture that recorded the input, as
 * its header says: for a pipe, when its first mapping or sample comes,
 * after the header features.
 */
static int aslr__find_layout(struct aslr *aslr)
{
	struct perf_env *env = aslr->machines.host.env;
	/* perf_env__raw_arch() takes this machine's for a file that doesn't say */
	bool known = env->arch;
	const char *arch = perf_env__raw_arch(env);

	if (aslr_layout__find(arch, &aslr->layout)) {
		pr_err("--aslr: the input was recorded on %s, an architecture --aslr has no layout for: please report it\n",
		       arch);
		return -ENOENT;
	}
	if (!known)
		pr_debug("aslr: the input doesn't say the architecture it was recorded on: laid out for this machine's, %s\n",
			 arch);
	if (aslr->layout.bits == 32 && aslr->is_pipe) {
		pr_err("--aslr: a 32-bit recording is laid out where it has no mappings: write it to a file for perf inject to read them first\n");
		return -EINVAL;
	}
	return 0;
}

struct aslr *aslr__new(const struct perf_tool *delegate, struct perf_session *session)
{
	struct aslr *aslr = zalloc(sizeof(*aslr));
	int err;

	if (!aslr)
		return ERR_PTR(-ENOMEM);

	machines__init(&aslr->machines);
	aslr->machines.host.env = &session->header.env;
	aslr->evlist = session->evlist;
	INIT_LIST_HEAD(&aslr->exited);
	aslr->retire_at = ULLONG_MAX;
	aslr->delegate = delegate;
	aslr->out = *delegate;

	aslr->buf = malloc(PERF_SAMPLE_MAX_SIZE);
	aslr->chain = malloc(PERF_SAMPLE_MAX_SIZE);
	aslr->branches = malloc(PERF_SAMPLE_MAX_SIZE);
	aslr->raw = malloc(PERF_SAMPLE_MAX_SIZE);
	aslr->remaps = hashmap__new(aslr_key__hash, aslr_key__equal, NULL);
	aslr->spaces = hashmap__new(aslr_space__hash, aslr_space__equal, NULL);
	aslr->tp_fields = hashmap__new(aslr_ptr__hash, aslr_ptr__equal, NULL);
	aslr->aliases = hashmap__new(aslr_u64__hash, aslr_u64__equal, NULL);
	aslr->jitted = hashmap__new(aslr_str__hash, aslr_str__equal, NULL);
	aslr->perf_map_spans = hashmap__new(aslr_ptr__hash, aslr_ptr__equal, NULL);
	aslr->verify = aslr_verify__new();
	if (IS_ERR(aslr->jitted))
		aslr->jitted = NULL;
	if (IS_ERR(aslr->perf_map_spans))
		aslr->perf_map_spans = NULL;
	if (IS_ERR(aslr->remaps))
		aslr->remaps = NULL;
	if (IS_ERR(aslr->spaces))
		aslr->spaces = NULL;
	if (IS_ERR(aslr->tp_fields))
		aslr->tp_fields = NULL;
	if (IS_ERR(aslr->aliases))
		aslr->aliases = NULL;
	aslr->is_pipe = perf_data__is_pipe(session->data);
	err = -ENOMEM;
	if (aslr->buf && aslr->chain && aslr->branches && aslr->raw && aslr->remaps &&
	    aslr->spaces && aslr->verify && aslr->jitted && aslr->perf_map_spans &&
	    aslr->tp_fields && aslr->aliases)
		err = aslr->is_pipe ? 0 : aslr__find_layout(aslr);
	if (err) {
		aslr__delete(aslr);
		return ERR_PTR(err);
	}
	return aslr;
}

/* What a 32-bit layout is placed from: the ranges and the room the input needs. */
struct aslr_scan {
	struct perf_tool	tool;
	struct aslr		*aslr;
	struct aslr_range	*ranges;
	size_t			nr;
	size_t			alloc;
	/* pid -> bytes its remapped layout needs (u64 *), and the kernel's */
	struct hashmap		*user;
	u64			kernel;
	u64			kernel_min;
};

/* @pid needs @need bytes more of its remapped layout. */
static int aslr_scan__need(struct aslr_scan *scan, int pid, u64 need)
{
	u64 *sum;

	if (pid == ASLR_KERNEL_ASID) {
		scan->kernel += need;
		return 0;
	}
	if (hashmap__find(scan->user, pid, &sum)) {
		*sum += need;
		return 0;
	}
	sum = malloc(sizeof(*sum));
	if (!sum || hashmap__add(scan->user, pid, sum)) {
		free(sum);
		return -ENOMEM;
	}
	*sum = need;
	return 0;
}

/* A mapping of @pid of the input. */
static int aslr_scan__add(struct aslr_scan *scan, u64 start, u64 len, int pid)
{
	if (scan->nr == scan->alloc) {
		size_t alloc = max_t(size_t, 64, scan->alloc * 2);
		struct aslr_range *ranges = realloc(scan->ranges, alloc * sizeof(*ranges));

		if (!ranges)
			return -ENOMEM;
		scan->ranges = ranges;
		scan->alloc = alloc;
	}
	scan->ranges[scan->nr].start = start;
	scan->ranges[scan->nr++].end = start + len < start ? ~0ULL : start + len;
	if (pid == ASLR_KERNEL_ASID)
		scan->kernel_min = min(scan->kernel_min, start);
	return aslr_scan__need(scan, pid, PERF_ALIGN(len, page_size) + page_size);
}

static int aslr_scan__mmap(const struct perf_tool *tool, union perf_event *event,
			   struct perf_sample *sample __maybe_unused,
			   struct machine *machine __maybe_unused)
{
	struct aslr_scan *scan = container_of(tool, struct aslr_scan, tool);
	struct aslr_mmap m;

	aslr_mmap__read(&m, event);
	if (m.kernel)
		aslr__clip_kernel_map(scan->aslr, &m, aslr__is_kernel_text(m.filename));
	return aslr_scan__add(scan, m.start, m.len, m.kernel ? ASLR_KERNEL_ASID : (int)m.pid);
}

static int aslr_scan__ksymbol(const struct perf_tool *tool, union perf_event *event,
			      struct perf_sample *sample __maybe_unused,
			      struct machine *machine __maybe_unused)
{
	struct aslr_scan *scan = container_of(tool, struct aslr_scan, tool);

	return aslr_scan__add(scan, event->ksymbol.addr, event->ksymbol.len ?: 1,
			      ASLR_KERNEL_ASID);
}

/* A forked process starts with the remapped layout of its parent. */
static int aslr_scan__fork(const struct perf_tool *tool, union perf_event *event,
			   struct perf_sample *sample __maybe_unused,
			   struct machine *machine __maybe_unused)
{
	struct aslr_scan *scan = container_of(tool, struct aslr_scan, tool);
	u64 *parent;

	if (event->fork.pid == event->fork.ppid ||
	    !hashmap__find(scan->user, event->fork.ppid, &parent))
		return 0;
	return aslr_scan__need(scan, event->fork.pid, *parent);
}

static int aslr__range_cmp(const void *a, const void *b)
{
	const struct aslr_range *ra = a, *rb = b;

	return ra->start < rb->start ? -1 : ra->start > rb->start;
}

/* Place the 32-bit layout of @aslr from what @scan found. */
static int aslr_scan__place(struct aslr_scan *scan)
{
	struct aslr_layout *layout = &scan->aslr->layout;
	struct hashmap_entry *cur;
	size_t bkt, i, n = 0;
	u64 user = 0;

	hashmap__for_each_entry(scan->user, cur, bkt)
		user = max(user, *(u64 *)cur->pvalue);
	/* None in a recording without mappings: qsort() of NULL is undefined */
	if (scan->nr)
		qsort(scan->ranges, scan->nr, sizeof(*scan->ranges), aslr__range_cmp);
	for (i = 0; i < scan->nr; i++) {
		if (n && scan->ranges[i].start <= scan->ranges[n - 1].end) {
			scan->ranges[n - 1].end = max(scan->ranges[n - 1].end,
						      scan->ranges[i].end);
			continue;
		}
		scan->ranges[n++] = scan->ranges[i];
	}
	/* The ranges of forked processes were their parents' */
	if (aslr_layout__place(layout, scan->ranges, n, user, scan->kernel + ASLR_KERNEL_ALIGN)) {
		pr_err("--aslr: the 32-bit layout of the input leaves no room for its mappings elsewhere\n");
		return -ENOSPC;
	}
	layout->kernel_min = scan->kernel_min == ~0ULL ? 0xc0000000ULL : scan->kernel_min;
	pr_debug("aslr: %s recording: user mappings at %#" PRIx64 ", kernel ones at %#" PRIx64
		 ", where the input has none\n", layout->arch, layout->user, layout->kernel);

	return 0;
}

int aslr__place(struct aslr *aslr, struct perf_data *data)
{
	struct aslr_scan scan = { .aslr = aslr, .kernel_min = ~0ULL, };
	struct perf_data in = { .path = data->path, .mode = PERF_DATA_MODE_READ, };
	struct perf_session *session;
	struct hashmap_entry *cur;
	size_t bkt;
	int err;

	/* Of a pipe: see aslr__find_layout() */
	if (aslr->layout.bits != 32 || aslr->is_pipe)
		return 0;
	perf_tool__init(&scan.tool, /*ordered_events=*/false);
	scan.tool.mmap = aslr_scan__mmap;
	scan.tool.mmap2 = aslr_scan__mmap;
	scan.tool.ksymbol = aslr_scan__ksymbol;
	scan.tool.fork = aslr_scan__fork;
	scan.user = hashmap__new(aslr_ptr__hash, aslr_ptr__equal, NULL);
	if (IS_ERR(scan.user))
		return PTR_ERR(scan.user);
	session = perf_session__new(&in, &scan.tool);
	if (IS_ERR(session)) {
		err = PTR_ERR(session);
	} else {
		err = perf_session__process_events(session);
		perf_session__delete(session);
	}
	if (!err)
		err = aslr_scan__place(&scan);
	hashmap__for_each_entry(scan.user, cur, bkt)
		free(cur->pvalue);
	hashmap__free(scan.user);
	free(scan.ranges);
	return err;
}

struct aslr_verify *aslr__verify(struct aslr *aslr)
{
	return aslr->verify;
}

/* Add the object at @path to the build-id cache, for perf archive. */
static void aslr__cache_dso(const char *path)
{
	char sbuild_id[SBUILD_ID_SIZE];
	struct build_id bid;

	if (filename__read_build_id(path, &bid) < 0 || build_id__sprintf(&bid, sbuild_id) < 0 ||
	    build_id_cache__add_s(sbuild_id, path, /*nsi=*/NULL, false, false) < 0)
		pr_warning("--aslr: can't add %s to the build-id cache: perf archive won't take it\n",
			   path);
}

/* @addr of the kernel moved as its mapping is: -ENOENT if in none. */
static int aslr__remap_kernel(struct aslr *aslr, u64 addr, u64 *out)
{
	struct machine *machine = &aslr->machines.host;
	struct map *map = maps__find(machine__kernel_maps(machine), addr);
	struct aslr_remap *remap = map ? aslr__find_remap(aslr, machine, ASLR_KERNEL_ASID,
							  map) : NULL;

	map__put(map);
	if (!remap)
		return -ENOENT;
	*out = addr + remap->delta;
	return 0;
}

/*
 * The lines of the kallsyms file @in with their addresses remapped, into
 * *@buf of *@size bytes; those of addresses in no mapping left out.
 */
static int aslr__remap_kallsyms(struct aslr *aslr, FILE *in, char **buf, size_t *size)
{
	FILE *out = open_memstream(buf, size);
	char *line = NULL, *end;
	size_t n = 0;
	u64 addr;

	if (!out)
		return -ENOMEM;
	while (getline(&line, &n, in) > 0) {
		addr = strtoull(line, &end, 16);
		if (end == line || (*end != ' ' && *end != '\t') ||
		    aslr__remap_kernel(aslr, addr, &addr)) {
			aslr->kallsyms_dropped++;
			continue;
		}
		fprintf(out, "%0*" PRIx64 "%s", (int)(end - line), addr, end);
	}
	free(line);
	return fclose(out) ? -ENOMEM : 0;
}

int aslr__kernel_symbols(struct aslr *aslr, struct dso *kernel)
{
	char sbuild_id[SBUILD_ID_SIZE], path[PATH_MAX], *buf = NULL;
	u8 bid[BUILD_ID_SIZE];
	const char *dir;
	size_t size = 0;
	FILE *in;
	int err;

	if (aslr->kallsyms || !dso__has_build_id(kernel))
		return 0;
	build_id__sprintf(dso__bid(kernel), sbuild_id);
	if (!build_id_cache__kallsyms_path(sbuild_id, path, sizeof(path)))
		return 0;
	in = fopen(path, "r");
	if (!in)
		return 0;
	err = aslr__remap_kallsyms(aslr, in, &buf, &size);
	fclose(in);
	dir = aslr__dso_dir(aslr);
	if (!err && !dir)
		err = -ENOMEM;
	if (!err && size)
		err = aslr_dso__write_kallsyms(dir, buf, size, bid, &aslr->kallsyms);
	if (!err && size) {
		build_id__init(&aslr->kallsyms_bid, bid, sizeof(bid));
		dso__set_build_id(kernel, &aslr->kallsyms_bid);
	}
	free(buf);
	return err;
}

/*
 * The copy of kallsyms at @path, by @bid in the build-id cache, as perf record
 * caches one. @bid is a digest of the copy: one cached already is the same.
 */
static void aslr__cache_kallsyms(const char *path, const struct build_id *bid)
{
	char sbuild_id[SBUILD_ID_SIZE], *dir, *file = NULL;

	build_id__sprintf(bid, sbuild_id);
	dir = build_id_cache__cachedir(sbuild_id, DSO__NAME_KALLSYMS, NULL, true, false);
	if (!dir || mkdir_p(dir, 0755) || asprintf(&file, "%s/kallsyms", dir) < 0 ||
	    (access(file, F_OK) && copyfile(path, file)) ||
	    build_id_cache__add_s(sbuild_id, DSO__NAME_KALLSYMS, NULL, true, false) < 0)
		pr_warning("--aslr: can't add %s to the build-id cache: perf archive won't take it\n",
			   path);
	free(file);
	free(dir);
	unlink(path);
}

int aslr__finish_dsos(struct aslr *aslr, bool verify, bool keep)
{
	int err = 0;
	size_t i;

	for (i = 0; keep && verify && i < aslr->nr_dsos; i++) {
		int ret = aslr_verify__object(aslr->verify, aslr->dsos[i]);

		if (ret && (!err || ret != -EADDRINUSE))
			err = ret;
	}
	if (keep && verify && aslr->kallsyms) {
		int ret = aslr_verify__object(aslr->verify, aslr->kallsyms);

		if (ret && (!err || ret != -EADDRINUSE))
			err = ret;
	}
	for (i = 0; i < aslr->nr_dsos; i++) {
		if (keep && !err)
			aslr__cache_dso(aslr->dsos[i]);
		else
			unlink(aslr->dsos[i]);
	}
	if (aslr->kallsyms && keep && !err)
		aslr__cache_kallsyms(aslr->kallsyms, &aslr->kallsyms_bid);
	else if (aslr->kallsyms)
		unlink(aslr->kallsyms);
	return err;
}

void aslr__set_dso_hit(struct aslr *aslr, aslr_dso_hit_fn dso_hit)
{
	aslr->dso_hit = dso_hit;
}

void aslr__set_retire(struct aslr *aslr, aslr_retire_fn retire)
{
	aslr->retire = retire;
}

int aslr__set_redact(struct aslr *aslr, struct redact *redact)
{
	aslr->names = redact_check__new();
	if (!aslr->names)
		return -ENOMEM;
	aslr->redact = redact;
	aslr_verify__check_names(aslr->verify, aslr->names);
	return 0;
}

void aslr__keep_exited(struct aslr *aslr)
{
	aslr->keep_exited = true;
}

void aslr__delete(struct aslr *aslr)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!aslr)
		return;

	while (!list_empty(&aslr->exited))
		aslr_exited__delete(list_first_entry(&aslr->exited, struct aslr_exited, node));
	if (aslr->remaps) {
		hashmap__for_each_entry(aslr->remaps, cur, bkt)
			aslr_remap__delete(cur->pvalue);
		hashmap__free(aslr->remaps);
	}
	if (aslr->spaces) {
		hashmap__for_each_entry(aslr->spaces, cur, bkt)
			free(cur->pvalue);
		hashmap__free(aslr->spaces);
	}
	if (aslr->tp_fields) {
		hashmap__for_each_entry(aslr->tp_fields, cur, bkt)
			free(cur->pvalue);
		hashmap__free(aslr->tp_fields);
	}
	if (aslr->aliases) {
		hashmap__for_each_entry(aslr->aliases, cur, bkt)
			free(cur->pvalue);
		hashmap__free(aslr->aliases);
	}
	if (aslr->jitted) {
		hashmap__for_each_entry(aslr->jitted, cur, bkt) {
			free((char *)cur->pkey);
			free(cur->pvalue);
		}
		hashmap__free(aslr->jitted);
	}
	if (aslr->perf_map_spans) {
		hashmap__for_each_entry(aslr->perf_map_spans, cur, bkt) {
			struct aslr_perf_map_span *span = cur->pvalue;

			dso__put(span->dso);
			free(span);
		}
		hashmap__free(aslr->perf_map_spans);
	}
	while (aslr->nr_dsos)
		free(aslr->dsos[--aslr->nr_dsos]);
	free(aslr->dsos);
	free(aslr->kallsyms);
	free(aslr->dso_dir);
	aslr__reset_caches(aslr);
	machines__exit(&aslr->machines);
	aslr_verify__delete(aslr->verify);
	redact_check__delete(aslr->names);
	free(aslr->buf);
	free(aslr->chain);
	free(aslr->branches);
	free(aslr->raw);
	free(aslr);
}
