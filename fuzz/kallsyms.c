// SPDX-License-Identifier: GPL-2.0
/*
 * Fuzz harness: /proc/kallsyms and /proc/kallmodsyms lines through the
 * parser of tools/lib/symbol/kallsyms.c (kallsyms__parse_entries() and
 * kallsyms__parse() on top of it).
 *
 * Besides "no crash" (ASan, UBSan in the fuzz build), it checks what the
 * parser promises its callers: names are NUL terminated and at most
 * KSYM_NAME_LEN long, the annotation is inside the line and well formed when
 * it is given, and kallsyms__parse() passes the same symbols, in the same
 * order, as kallsyms__parse_entries().
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <symbol/kallsyms.h>

#include "fuzz.h"

#define MAX_SYMS 4096

struct seen {
	unsigned int nr;
	unsigned int overflow;
	u64 start[MAX_SYMS];
	char type[MAX_SYMS];
};

static int check_entry(void *arg, const struct kallsyms_entry *entry)
{
	struct seen *seen = arg;
	size_t name_len = strnlen(entry->name, KSYM_NAME_LEN + 1);
	size_t line_len = strlen(entry->line);

	FUZZ_CHECK(name_len <= KSYM_NAME_LEN);
	FUZZ_CHECK(!strncmp(entry->name, entry->line, name_len));
	if (entry->annotation) {
		FUZZ_CHECK(!entry->bad_annotation);
		FUZZ_CHECK(entry->annotation > entry->line &&
			   entry->annotation <= entry->line + line_len);
		FUZZ_CHECK(entry->annotation[-1] == '\t');
		FUZZ_CHECK(strlen(entry->annotation) <= KALLSYMS_ANNOTATION_LEN);
		FUZZ_CHECK(entry->nr_mods || entry->has_obj);
		/* "[mod]", "{obj.o}" or a list of them, nothing after */
		FUZZ_CHECK(strchr("]}", entry->annotation[strlen(entry->annotation) - 1]));
		FUZZ_CHECK(entry->nr_mods <= KALLSYMS_ANNOTATION_LEN / 3);
	} else {
		FUZZ_CHECK(!entry->nr_mods && !entry->has_obj);
	}
	if (!entry->has_size)
		FUZZ_CHECK(entry->size == 0);

	if (seen->nr < MAX_SYMS) {
		seen->start[seen->nr] = entry->start;
		seen->type[seen->nr] = entry->type;
	} else {
		seen->overflow++;
	}
	seen->nr++;
	return 0;
}

struct replayed {
	const struct seen *seen;
	unsigned int nr;
};

static int check_symbol(void *arg, const char *name, char type, u64 start)
{
	struct replayed *r = arg;

	FUZZ_CHECK(strnlen(name, KSYM_NAME_LEN + 1) <= KSYM_NAME_LEN);
	FUZZ_CHECK(r->nr < r->seen->nr);
	if (r->nr < MAX_SYMS) {
		FUZZ_CHECK(r->seen->start[r->nr] == start);
		FUZZ_CHECK(r->seen->type[r->nr] == type);
	}
	r->nr++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct seen seen;
	struct replayed replayed = { .seen = &seen, };
	char path[64];
	int fd = memfd_create("kallsyms", 0);

	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(write(fd, data, size) == (ssize_t)size);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);

	memset(&seen, 0, offsetof(struct seen, start));
	FUZZ_CHECK(kallsyms__parse_entries(path, &seen, check_entry) == 0);
	FUZZ_CHECK(kallsyms__parse(path, &replayed, check_symbol) == 0);
	FUZZ_CHECK(replayed.nr == seen.nr);

	close(fd);
	return 0;
}
