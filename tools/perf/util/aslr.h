/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_ASLR_H
#define __PERF_ASLR_H

#include "tool.h"

struct aslr_verify;
struct dso;
struct evlist;
struct evsel;
struct perf_data;
struct perf_env;
struct perf_session;
struct redact;
struct tep_event;
struct tep_format_field;

/*
 * A perf_tool that rewrites every address in the event stream into a
 * synthetic, canonical layout so that perf.data files can be shared without
 * revealing the address space layout (user ASLR, KASLR, module and BPF
 * placement) of the machine where they were recorded.
 *
 * Events are tracked in an internal copy of the original layout and the
 * rewritten events are handed to the delegate tool.
 */
struct aslr;

/*
 * The aslr tool for the input of @session, laid out for the architecture
 * that recorded it: an ERR_PTR() if it has no layout.
 */
struct aslr *aslr__new(const struct perf_tool *delegate, struct perf_session *session);
void aslr__delete(struct aslr *aslr);
/*
 * Place the canonical layout of a 32-bit recording where it has no mapping:
 * read all of @data (a file) for them first. Nothing to do for a 64-bit one.
 */
int aslr__place(struct aslr *aslr, struct perf_data *data);
/*
 * Called the first time the ip, the callchain or the unwound call graph of a
 * sample is found in a DSO, with @addr, in the remapped layout, found for
 * @cpumode; @is_ip if it is the sample's ip. As perf inject -b looks the
 * addresses of the samples up to find the DSOs hit, without a second lookup.
 */
typedef int (*aslr_dso_hit_fn)(const struct perf_tool *delegate,
			       struct perf_sample *sample, u8 cpumode, u64 addr,
			       bool is_ip);
void aslr__set_dso_hit(struct aslr *aslr, aslr_dso_hit_fn dso_hit);
/*
 * Called when the thread @tid of @pid exited a while ago, in the time of
 * the recording: the samples that may come after its exit have come, the
 * delegate can drop it (unless aslr__keep_exited()).
 */
typedef void (*aslr_retire_fn)(const struct perf_tool *delegate, pid_t pid, pid_t tid);
void aslr__set_retire(struct aslr *aslr, aslr_retire_fn retire);
/*
 * Replace names as well (perf inject --redact, see redact.h), and look for
 * those of the input in the output: @redact is the caller's.
 */
int aslr__set_redact(struct aslr *aslr, struct redact *redact);
/*
 * The input has samples written after the exit of their process (off-CPU
 * samples): keep the threads and layouts of exited processes to the end.
 */
void aslr__keep_exited(struct aslr *aslr);

/*
 * Refuse an event with sample fields this perf doesn't know, whose layout
 * and content are not known. Before the events of the evsel.
 */
int aslr__check_evsel(const struct evsel *evsel);

/*
 * Zero the addresses of breakpoints and probes in the attributes, drop the
 * sample fields cut out of the samples, replace what could be addresses in
 * the event names: for the attributes and names in the file header.
 */
void aslr__scrub_evlist(struct aslr *aslr, struct evlist *evlist, struct perf_env *env);
/*
 * Scrub a pipe mode header event (attribute, feature, event update) in place,
 * returns false if it must be dropped. @aslr may be NULL.
 */
bool aslr__scrub_header_event(struct aslr *aslr, struct evlist *evlist,
			      struct perf_env *env, union perf_event *event);

/*
 * Write a copy of the kallsyms that perf record cached for @kernel, the
 * kernel of the output, in the layout remapped so far, under a build-id of
 * its own that @kernel gets: perf archive would pack the cached one, with
 * the addresses of the recording.  Nothing if there is none.
 */
int aslr__kernel_symbols(struct aslr *aslr, struct dso *kernel);

/*
 * Empty the kernel symbols and printk formats of the @size bytes of tracing
 * data at @buf (HEADER_TRACING_DATA), in place: they hold kernel addresses.
 * Replace what could be addresses in the names of the events, as in
 * aslr__scrub_evlist(). *@new_size is the size left. @aslr may be NULL.
 */
int aslr__scrub_tracing_data(struct aslr *aslr, void *buf, size_t size, size_t *new_size);

/*
 * The check of the output (aslr-verify.h), which knows the address space
 * of the input as the events are processed.
 */
struct aslr_verify *aslr__verify(struct aslr *aslr);
/*
 * The objects written for the output (aslr-dso.h), once it is written
 * (@keep) or not: checked like the output if @verify, then added to the
 * build-id cache; removed if the output is not written or one of them holds
 * an address of the input (-EADDRINUSE).
 */
int aslr__finish_dsos(struct aslr *aslr, bool verify, bool keep);
/* Count a record that was dropped because it can't be remapped. */
void aslr__count_dropped(struct aslr *aslr, u32 type, const char *why);
/* With -v, say what was kept, rewritten and dropped. */
void aslr__print_stats(const struct aslr *aslr);

/*
 * The machine holding the original layout of @machine's address spaces,
 * as it was before the event being handed to the aslr tool.
 */
struct machine *aslr__orig_machine(struct aslr *aslr, struct machine *machine);

/* Entry points for the wrapped tool's mmap, mmap2, comm, fork, ... callbacks. */
int aslr__process_event(struct aslr *aslr, union perf_event *event,
			struct perf_sample *sample, struct machine *machine);
int aslr__process_sample(struct aslr *aslr, union perf_event *event,
			 struct perf_sample *sample, struct evsel *evsel,
			 struct machine *machine);

#endif /* __PERF_ASLR_H */
