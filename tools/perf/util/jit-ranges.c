// SPDX-License-Identifier: GPL-2.0
/*
 * The code ranges that jitdump files load into each process, and when:
 * what perf inject --jit cuts out of the anonymous mappings that would
 * hide the jitted-*.so mappings it injects.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "hashmap.h"
#include "jit-ranges.h"
#include "strlist.h"

struct jit_range {
	u64 start, end, time;
};

struct jit_proc {
	struct jit_range *ranges;
	size_t nr, alloc;
	bool sorted;
	/* The jitdump files already injected for this process */
	struct strlist *markers;
};

struct jit_ranges {
	struct hashmap *procs;	/* pid -> struct jit_proc */
	/* All code loads were noted before the events (jit_prepare()) */
	bool prepared;
};

void jit_ranges__set_prepared(struct jit_ranges *jr)
{
	jr->prepared = true;
}

bool jit_ranges__prepared(const struct jit_ranges *jr)
{
	return jr->prepared;
}

static size_t pid__hash(long key, void *ctx __maybe_unused)
{
	return key;
}

static bool pid__equal(long a, long b, void *ctx __maybe_unused)
{
	return a == b;
}

struct jit_ranges *jit_ranges__new(void)
{
	struct jit_ranges *jr = zalloc(sizeof(*jr));

	if (!jr)
		return NULL;
	jr->procs = hashmap__new(pid__hash, pid__equal, NULL);
	if (IS_ERR(jr->procs)) {
		free(jr);
		return NULL;
	}
	return jr;
}

static void jit_proc__delete(struct jit_proc *proc)
{
	if (!proc)
		return;
	free(proc->ranges);
	strlist__delete(proc->markers);
	free(proc);
}

void jit_ranges__delete(struct jit_ranges *jr)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!jr)
		return;
	hashmap__for_each_entry(jr->procs, cur, bkt)
		jit_proc__delete(cur->pvalue);
	hashmap__free(jr->procs);
	free(jr);
}

static struct jit_proc *jit_ranges__find(struct jit_ranges *jr, pid_t pid)
{
	struct jit_proc *proc;

	return hashmap__find(jr->procs, pid, &proc) ? proc : NULL;
}

/* Whether code was loaded into @pid: only then are its mmaps looked at */
bool jit_ranges__has_code(struct jit_ranges *jr, pid_t pid)
{
	struct jit_proc *proc = jit_ranges__find(jr, pid);

	return proc && proc->nr;
}

static struct jit_proc *jit_ranges__findnew(struct jit_ranges *jr, pid_t pid)
{
	struct jit_proc *proc = jit_ranges__find(jr, pid);

	if (proc)
		return proc;
	proc = zalloc(sizeof(*proc));
	if (!proc)
		return NULL;
	proc->sorted = true;
	if (hashmap__add(jr->procs, pid, proc)) {
		free(proc);
		return NULL;
	}
	return proc;
}

static int jit_proc__add(struct jit_proc *proc, u64 start, u64 end, u64 time)
{
	struct jit_range *r;

	if (proc->nr == proc->alloc) {
		size_t alloc = proc->alloc ? proc->alloc * 2 : 64;

		r = realloc(proc->ranges, alloc * sizeof(*r));
		if (!r)
			return -ENOMEM;
		proc->ranges = r;
		proc->alloc = alloc;
	}
	r = &proc->ranges[proc->nr++];
	r->start = start;
	r->end = end;
	r->time = time;
	proc->sorted = false;
	return 0;
}

/**
 * jit_ranges__add - note code loaded into a process by its JIT
 * @jr: the ranges
 * @pid: the process
 * @start: the start address of the code
 * @size: its size
 * @time: when it was loaded (perf time)
 *
 * Return: 0 or -ENOMEM.
 */
int jit_ranges__add(struct jit_ranges *jr, pid_t pid, u64 start, u64 size,
		    u64 time)
{
	struct jit_proc *proc;

	if (!size || start + size < start)
		return 0;
	proc = jit_ranges__findnew(jr, pid);
	if (!proc)
		return -ENOMEM;
	return jit_proc__add(proc, start, start + size, time);
}

/**
 * jit_ranges__add_marker - note that a process's jitdump file was injected
 * @jr: the ranges
 * @pid: the process
 * @path: the jitdump file
 *
 * Return: 1 if it was new, 0 if it was already injected for @pid, or
 * -ENOMEM.
 */
int jit_ranges__add_marker(struct jit_ranges *jr, pid_t pid, const char *path)
{
	struct jit_proc *proc = jit_ranges__findnew(jr, pid);

	if (!proc)
		return -ENOMEM;
	if (!proc->markers) {
		proc->markers = strlist__new(NULL, NULL);
		if (!proc->markers)
			return -ENOMEM;
	}
	if (strlist__has_entry(proc->markers, path))
		return 0;
	return strlist__add(proc->markers, path) ? -ENOMEM : 1;
}

/**
 * jit_ranges__fork - a process inherits the code its parent had loaded
 * @jr: the ranges
 * @ppid: the parent
 * @pid: the child
 * @time: the time of the fork
 *
 * The child's address space is a copy of its parent's: the code the
 * parent loaded before @time is in it too.
 *
 * Return: 0 or -ENOMEM.
 */
int jit_ranges__fork(struct jit_ranges *jr, pid_t ppid, pid_t pid, u64 time)
{
	struct jit_proc *parent = jit_ranges__find(jr, ppid), *child;
	size_t i;
	int err;

	if (!parent || ppid == pid)
		return 0;
	jit_ranges__forget(jr, pid, time);
	child = jit_ranges__findnew(jr, pid);
	if (!child)
		return -ENOMEM;
	for (i = 0; i < parent->nr; i++) {
		struct jit_range *r = &parent->ranges[i];

		if (r->time > time)
			continue;
		err = jit_proc__add(child, r->start, r->end, r->time);
		if (err)
			return err;
	}
	return 0;
}

/**
 * jit_ranges__forget - a process's address space is gone (exec, exit)
 * @jr: the ranges
 * @pid: the process
 * @time: when
 *
 * The code loaded before @time is gone, and so are the jitdump files
 * injected.  Code loaded later (jit_prepare() noted all code loads) is
 * that of the next address space with this pid: after an exec, or of a
 * new process that reuses the pid.
 */
void jit_ranges__forget(struct jit_ranges *jr, pid_t pid, u64 time)
{
	struct jit_proc *proc = jit_ranges__find(jr, pid);
	size_t i, nr = 0;

	if (!proc)
		return;
	for (i = 0; i < proc->nr; i++) {
		if (proc->ranges[i].time > time)
			proc->ranges[nr++] = proc->ranges[i];
	}
	proc->nr = nr;
	strlist__delete(proc->markers);
	proc->markers = NULL;
	if (!nr && hashmap__delete(jr->procs, pid, NULL, &proc))
		jit_proc__delete(proc);
}

/**
 * jit_ranges__anon_like - whether a mapping may be a JIT's code region
 * @filename: the file name of the mapping
 *
 * Anonymous memory as the kernel names it: private (//anon, named with
 * PR_SET_VMA_ANON_NAME), shared (/dev/zero, shmem), hugepages, memfd and
 * SysV shared memory.
 */
bool jit_ranges__anon_like(const char *filename)
{
	static const char * const prefixes[] = {
		"//anon", "[anon:", "[anon_shmem:", "/memfd:", "/anon_hugepage",
		"/dev/zero", "/SYSV",
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(prefixes); i++) {
		if (!strncmp(filename, prefixes[i], strlen(prefixes[i])))
			return true;
	}
	return false;
}

/**
 * jit_ranges__remove - code was unmapped: another file was mapped over it
 * @jr: the ranges
 * @pid: the process
 * @time: when
 * @start: the start of the new mapping
 * @end: its end
 *
 * The code loaded before @time between @start and @end is gone: a later
 * anonymous mapping there is not to be clipped for it.
 */
void jit_ranges__remove(struct jit_ranges *jr, pid_t pid, u64 time,
			u64 start, u64 end)
{
	struct jit_proc *proc = jit_ranges__find(jr, pid);
	size_t i, nr = 0;

	if (!proc)
		return;
	for (i = 0; i < proc->nr; i++) {
		struct jit_range *r = &proc->ranges[i];

		if (r->time <= time && r->start < end && r->end > start)
			continue;
		proc->ranges[nr++] = *r;
	}
	proc->nr = nr;
}

static int jit_range__cmp(const void *a, const void *b)
{
	const struct jit_range *ra = a, *rb = b;

	if (ra->start != rb->start)
		return ra->start < rb->start ? -1 : 1;
	return 0;
}

/* Appends [start, end) to *pieces; on failure frees them */
static int jit_pieces__append(struct jit_piece **pieces, size_t *nr,
			      u64 start, u64 end)
{
	struct jit_piece *p = realloc(*pieces, (*nr + 1) * sizeof(*p));

	if (!p) {
		zfree(pieces);
		return -ENOMEM;
	}
	p[*nr].start = start;
	p[(*nr)++].end = end;
	*pieces = p;
	return 0;
}

/**
 * jit_ranges__clip - cut the code loaded by a JIT out of a new mapping
 * @jr: the ranges
 * @pid: the process the mapping is made in
 * @time: when it was made
 * @start: its start address
 * @end: its end address
 * @pieces: set to what is left of it, lowest address first (free() it)
 *
 * A JIT's code region grows as it commits pages, and the kernel reports
 * the merged anonymous region in a new mapping, later than the code
 * loads its jitdump describes: that mapping would hide the jitted-*.so
 * mappings of the code.  The code loaded before @time is cut out; the
 * rest, code that only a perf-PID.map or nothing describes, stays.
 *
 * Return: the number of pieces left (0: drop the mapping), or -1 if no
 * code overlaps the mapping (keep it as it is, *@pieces not set), or
 * -ENOMEM.
 */
int jit_ranges__clip(struct jit_ranges *jr, pid_t pid, u64 time,
		     u64 start, u64 end, struct jit_piece **pieces)
{
	struct jit_proc *proc = jit_ranges__find(jr, pid);
	struct jit_piece *out = NULL;
	u64 cursor = start;
	size_t i, nr = 0;
	bool cut = false;

	if (!proc || !proc->nr)
		return -1;
	if (!proc->sorted) {
		qsort(proc->ranges, proc->nr, sizeof(*proc->ranges), jit_range__cmp);
		proc->sorted = true;
	}

	for (i = 0; i < proc->nr && proc->ranges[i].start < end; i++) {
		struct jit_range *r = &proc->ranges[i];

		if (r->end <= cursor || r->time > time)
			continue;
		if (r->start > cursor &&
		    jit_pieces__append(&out, &nr, cursor, r->start))
			return -ENOMEM;
		cut = true;
		cursor = r->end;
		if (cursor >= end)
			break;
	}

	if (!cut)
		return -1;
	if (cursor < end && jit_pieces__append(&out, &nr, cursor, end))
		return -ENOMEM;
	*pieces = out;
	return nr;
}
