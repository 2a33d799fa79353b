/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_JIT_RANGES_H
#define __PERF_JIT_RANGES_H

#include <stdbool.h>
#include <sys/types.h>
#include <linux/types.h>

struct jit_ranges;

/* What is left of a mapping once JIT code is cut out: [start, end) */
struct jit_piece {
	u64 start, end;
};

struct jit_ranges *jit_ranges__new(void);
void jit_ranges__delete(struct jit_ranges *jr);
void jit_ranges__set_prepared(struct jit_ranges *jr);
bool jit_ranges__prepared(const struct jit_ranges *jr);
int jit_ranges__add(struct jit_ranges *jr, pid_t pid, u64 start, u64 size,
		    u64 time);
int jit_ranges__add_marker(struct jit_ranges *jr, pid_t pid, const char *path);
int jit_ranges__fork(struct jit_ranges *jr, pid_t ppid, pid_t pid, u64 time);
void jit_ranges__forget(struct jit_ranges *jr, pid_t pid, u64 time);
void jit_ranges__remove(struct jit_ranges *jr, pid_t pid, u64 time,
			u64 start, u64 end);
bool jit_ranges__has_code(struct jit_ranges *jr, pid_t pid);
bool jit_ranges__anon_like(const char *filename);
int jit_ranges__clip(struct jit_ranges *jr, pid_t pid, u64 time,
		     u64 start, u64 end, struct jit_piece **pieces);

#endif /* __PERF_JIT_RANGES_H */
