// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz harness: the code ranges perf inject --jit keeps per process
 * (tools/perf/util/jit-ranges.c), driven by a program of operations read
 * from the input: code loads with wild addresses, sizes and times, forks,
 * exec/exit (forget), files mapped over code (remove), markers, and clips
 * of mappings.
 *
 * Besides "no crash" (ASan, UBSan in the fuzz build), it checks each clip
 * of a mapping against a model kept here: the pieces left of a mapping
 * [start, end) made at time T are exactly [start, end) minus the code of
 * the process loaded at or before T and still there, as maximal
 * intervals, lowest first; -1 when no such code overlaps the mapping.
 * Mappings that end before they start (corrupt) must only not crash.
 */
#include <stdbool.h>
#include <string.h>
#include <linux/types.h>

#include "fuzz.h"
#include "../tools/perf/util/jit-ranges.h"

#define MAX_PIDS	4
#define MAX_CODE	512

struct code {
	u64 start, end, time;
};

struct model {
	struct code code[MAX_PIDS][MAX_CODE];
	unsigned int nr[MAX_PIDS];
	/* jit-ranges.c has an entry for the process (code or markers) */
	bool exists[MAX_PIDS];
};

struct input {
	const uint8_t *data;
	size_t size;
};

static u64 take(struct input *in, size_t bytes)
{
	u64 v = 0;

	while (bytes-- && in->size) {
		v = (v << 8) | *in->data++;
		in->size--;
	}
	return v;
}

/* Addresses: mostly small and close (overlaps), sometimes anywhere. */
static u64 take_addr(struct input *in)
{
	u8 kind = take(in, 1);

	if (kind & 0x80)
		return take(in, 8);
	return take(in, 2) * 16;
}

static void model_keep(struct model *m, int pid,
		       bool (*gone)(const struct code *c, const u64 *arg),
		       const u64 *arg)
{
	unsigned int i, nr = 0;

	for (i = 0; i < m->nr[pid]; i++) {
		if (!gone(&m->code[pid][i], arg))
			m->code[pid][nr++] = m->code[pid][i];
	}
	m->nr[pid] = nr;
}

/* arg: time */
static bool loaded_by(const struct code *c, const u64 *arg)
{
	return c->time <= arg[0];
}

/* arg: time, start, end */
static bool loaded_under(const struct code *c, const u64 *arg)
{
	return c->time <= arg[0] && c->start < arg[2] && c->end > arg[1];
}

/* exec or exit at @time: the code loaded by then is gone */
static void model_forget(struct model *m, int pid, u64 time)
{
	if (!m->exists[pid])
		return;
	model_keep(m, pid, loaded_by, &time);
	if (!m->nr[pid])
		m->exists[pid] = false;
}

/* The expected pieces of [start, end) at @time; -1 if no code overlaps it. */
static int model_clip(const struct model *m, int pid, u64 time, u64 start,
		      u64 end, struct jit_piece *out, size_t max)
{
	u64 cursor = start;
	bool cut = false;
	size_t nr = 0;

	/* Walk up: each round, the lowest code that reaches past the cursor. */
	for (;;) {
		const struct code *next = NULL;
		unsigned int i;

		for (i = 0; i < m->nr[pid]; i++) {
			const struct code *c = &m->code[pid][i];

			if (c->time > time || c->end <= cursor || c->start >= end)
				continue;
			if (!next || c->start < next->start ||
			    (c->start == next->start && c->end > next->end))
				next = c;
		}
		if (!next)
			break;
		cut = true;
		if (next->start > cursor) {
			FUZZ_CHECK(nr < max);
			out[nr].start = cursor;
			out[nr++].end = next->start;
		}
		cursor = next->end;
		if (cursor >= end)
			break;
	}
	if (!cut)
		return -1;
	if (cursor < end) {
		FUZZ_CHECK(nr < max);
		out[nr].start = cursor;
		out[nr++].end = end;
	}
	return nr;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct model m;
	static struct jit_piece want[MAX_CODE + 1];
	struct input in = { data, size };
	struct jit_ranges *jr = jit_ranges__new();
	char path[16];

	memset(&m, 0, sizeof(m));
	FUZZ_CHECK(jr);
	while (in.size) {
		u8 op = take(&in, 1);
		int pid = op >> 4 & (MAX_PIDS - 1), other = op >> 6;
		u64 time = take(&in, 2), start, end, arg[3];
		struct jit_piece *pieces = NULL;
		int nr, i;

		switch (op & 7) {
		case 0:
		case 1:	/* a code load */
			start = take_addr(&in);
			end = take(&in, 1) * 8;
			if (!end || start + end < start) {
				/* nothing loaded */
				FUZZ_CHECK(jit_ranges__add(jr, pid, start, end, time) == 0);
				break;
			}
			if (m.nr[pid] == MAX_CODE)
				goto out;
			FUZZ_CHECK(jit_ranges__add(jr, pid, start, end, time) == 0);
			m.code[pid][m.nr[pid]++] = (struct code){ start, start + end, time };
			m.exists[pid] = true;
			break;
		case 2:	/* fork */
			FUZZ_CHECK(jit_ranges__fork(jr, other, pid, time) == 0);
			if (pid == other || !m.exists[other])
				break;
			/* the child's earlier address space is gone */
			model_forget(&m, pid, time);
			m.exists[pid] = true;
			for (i = 0; i < (int)m.nr[other]; i++) {
				if (m.code[other][i].time > time)
					continue;
				if (m.nr[pid] == MAX_CODE)
					goto out;
				m.code[pid][m.nr[pid]++] = m.code[other][i];
			}
			break;
		case 3:	/* exec or exit */
			jit_ranges__forget(jr, pid, time);
			model_forget(&m, pid, time);
			break;
		case 4:	/* a file mapped over code */
			start = take_addr(&in);
			end = start + take(&in, 2) * 16;
			jit_ranges__remove(jr, pid, time, start, end);
			arg[0] = time;
			arg[1] = start;
			arg[2] = end;
			model_keep(&m, pid, loaded_under, arg);
			break;
		case 5:	/* a marker */
			snprintf(path, sizeof(path), "jit-%u.dump", (unsigned int)take(&in, 1) & 3);
			FUZZ_CHECK(jit_ranges__add_marker(jr, pid, path) >= 0);
			m.exists[pid] = true;
			break;
		default: /* a mapping, clipped */
			start = take_addr(&in);
			end = start + take(&in, 2) * 16;
			FUZZ_CHECK(jit_ranges__has_code(jr, pid) == (m.nr[pid] != 0));
			nr = jit_ranges__clip(jr, pid, time, start, end, &pieces);
			if (end <= start) {
				/* A corrupt mapping: no crash, no leak is all */
				FUZZ_CHECK(nr >= -1);
				if (nr >= 0)
					free(pieces);
				break;
			}
			FUZZ_CHECK(nr == model_clip(&m, pid, time, start, end, want,
						    MAX_CODE + 1));
			for (i = 0; i < nr; i++) {
				FUZZ_CHECK(pieces[i].start == want[i].start);
				FUZZ_CHECK(pieces[i].end == want[i].end);
			}
			free(pieces);
			break;
		}
	}
out:
	jit_ranges__delete(jr);
	return 0;
}
