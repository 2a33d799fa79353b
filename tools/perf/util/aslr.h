/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_ASLR_H
#define __PERF_ASLR_H

#include "tool.h"

struct evlist;
struct evsel;
struct perf_env;

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

struct aslr *aslr__new(const struct perf_tool *delegate, struct perf_env *env);
void aslr__delete(struct aslr *aslr);

/* Refuse attributes with fields that would leak addresses. */
int aslr__check_evsel(const struct evsel *evsel);
int aslr__check_evlist(struct evlist *evlist);

/* Entry points for the wrapped tool's mmap, mmap2, comm, fork, ... callbacks. */
int aslr__process_event(struct aslr *aslr, union perf_event *event,
			struct perf_sample *sample, struct machine *machine);
int aslr__process_sample(struct aslr *aslr, union perf_event *event,
			 struct perf_sample *sample, struct evsel *evsel,
			 struct machine *machine);

#endif /* __PERF_ASLR_H */
