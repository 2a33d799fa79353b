/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_ASLR_VERIFY_H
#define __PERF_ASLR_VERIFY_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

struct evlist;
struct redact_check;
union perf_event;

/*
 * The check perf inject --aslr makes of its own output before the output is
 * written (see perf-inject.txt): every 8-byte value at every 4-byte offset
 * and every hexadecimal number in text is looked up in the address space of
 * the input, the mappings of its MMAP, MMAP2, KSYMBOL and TEXT_POKE records
 * and the addresses its samples carried outside any mapping. The bytes of
 * the fields that hold numbers by their meaning (times, pids, sizes, ...)
 * are not, a value can be anything there.
 */
struct aslr_verify;

struct aslr_verify *aslr_verify__new(void);
void aslr_verify__delete(struct aslr_verify *verify);

/* The input's address space: a mapping, an address a sample carried. */
int aslr_verify__add_range(struct aslr_verify *verify, u64 start, u64 len);
int aslr_verify__add_addr(struct aslr_verify *verify, u64 addr);

/*
 * Check the record @event, written at @offset of the output, the layout of
 * its samples given by @evlist (may be NULL): 0, or -EADDRINUSE if it holds
 * an address of the input, which is then reported.
 */
int aslr_verify__event(struct aslr_verify *verify, struct evlist *evlist,
		       union perf_event *event, u64 offset);
/* Check @size bytes of header feature @feat (-1: other bytes) at @offset. */
int aslr_verify__feature(struct aslr_verify *verify, int feat, const void *buf,
			 size_t size, u64 offset);
/*
 * Check what is written to a pipe, @size bytes at @buf: records, and the
 * tracing data that follows a PERF_RECORD_HEADER_TRACING_DATA. Offsets are
 * counted from the first record, after the pipe header.
 */
int aslr_verify__stream(struct aslr_verify *verify, struct evlist *evlist,
			const void *buf, size_t size);
/*
 * At the end of a pipe: check its header records again, against all of the
 * address space of the input. They were written before most of it was seen.
 */
int aslr_verify__stream_end(struct aslr_verify *verify, struct evlist *evlist);
/* Check the perf.data file open at @fd, as written, records by @evlist. */
int aslr_verify__file(struct aslr_verify *verify, struct evlist *evlist, int fd);

/*
 * Check the file at @path, an object written for the output (aslr-dso.h):
 * 0, or -EADDRINUSE if it holds an address of the input, which is reported.
 */
int aslr_verify__object(struct aslr_verify *verify, const char *path);

/*
 * Look for the names of @names (redact-check.h) in all that is checked as
 * well: they are found as addresses are.
 */
void aslr_verify__check_names(struct aslr_verify *verify, struct redact_check *names);

/* How many addresses of the input were found, in all that was checked. */
u64 aslr_verify__hits(const struct aslr_verify *verify);
/* How many of them were names of aslr_verify__check_names(). */
u64 aslr_verify__name_hits(const struct aslr_verify *verify);
/* With -v, say what was checked. */
void aslr_verify__print_stats(const struct aslr_verify *verify);

#endif /* __PERF_ASLR_VERIFY_H */
