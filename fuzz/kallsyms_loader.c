// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel symbols of a machine from its kallsyms, in process: perf's
 * loader (util/symbol.c), not only the line parser the kallsyms harness
 * drives.  The input is three files of a fake root, separated by NUL bytes:
 * proc/kallsyms (kallsyms or kallmodsyms, types A and B), the
 * lib/modules/RELEASE/modules.builtin.ranges of the running kernel's
 * release and proc/modules; machine__create_kernel_maps() and
 * machine__load_kallsyms() read them as for the host, which splits the
 * symbols into the maps of the kernel and its modules, resolves the
 * built-in module annotations and annotates kallsyms with the ranges.
 * Checked, for the symbols of every kernel map: sorted, none ending before
 * it starts, no name with the tab that separates an annotation, an
 * annotation in square brackets or braces and after the name, where
 * namelen says.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <linux/compiler.h>
#include <linux/rbtree.h>

#include "fuzz.h"
#include "fuzz-perf.h"
#include "util/dso.h"
#include "util/machine.h"
#include "util/map.h"
#include "util/maps.h"
#include "util/symbol.h"

#define NR_FILES	3

static char root[] = "/tmp/perf-fuzz-kallsyms.XXXXXX";
/* Relative to the root, in input order; the ranges' directory made by setup() */
static char files[NR_FILES][sizeof(root) + 256];
static char dirs[4][sizeof(root) + 128];

static void cleanup(void)
{
	int i;

	for (i = 0; i < NR_FILES; i++)
		unlink(files[i]);
	for (i = ARRAY_SIZE(dirs) - 1; i >= 0; i--)
		rmdir(dirs[i]);
	rmdir(root);
}

static void setup(void)
{
	struct utsname uts;
	size_t i;

	if (!fuzz_perf__setup_once(root, cleanup))
		return;
	FUZZ_CHECK(symbol__init(NULL) == 0);
	FUZZ_CHECK(uname(&uts) == 0);
	snprintf(dirs[0], sizeof(dirs[0]), "%s/proc", root);
	snprintf(dirs[1], sizeof(dirs[1]), "%s/lib", root);
	snprintf(dirs[2], sizeof(dirs[2]), "%s/lib/modules", root);
	snprintf(dirs[3], sizeof(dirs[3]), "%s/lib/modules/%.64s", root, uts.release);
	for (i = 0; i < ARRAY_SIZE(dirs); i++)
		FUZZ_CHECK(mkdir(dirs[i], 0700) == 0);
	snprintf(files[0], sizeof(files[0]), "%s/proc/kallsyms", root);
	snprintf(files[1], sizeof(files[1]), "%s/modules.builtin.ranges", dirs[3]);
	snprintf(files[2], sizeof(files[2]), "%s/proc/modules", root);
}

/* Write the NUL separated parts of the input to the files (missing: empty). */
static void write_files(const uint8_t *data, size_t size)
{
	int i;

	for (i = 0; i < NR_FILES; i++) {
		const uint8_t *end = i < NR_FILES - 1 ? memchr(data, 0, size) : NULL;
		size_t len = end ? (size_t)(end - data) : size;
		FILE *f = fopen(files[i], "w");

		FUZZ_CHECK(f);
		FUZZ_CHECK(fwrite(data, 1, len, f) == len);
		FUZZ_CHECK(fclose(f) == 0);
		data += end ? len + 1 : len;
		size -= end ? len + 1 : len;
	}
}

static int check_symbols(struct map *map, void *data __maybe_unused)
{
	struct rb_node *nd;
	u64 prev = 0;

	for (nd = rb_first_cached(dso__symbols(map__dso(map))); nd; nd = rb_next(nd)) {
		struct symbol *sym = rb_entry(nd, struct symbol, rb_node);
		const char *annotation = symbol__kmod_annotation(sym);

		FUZZ_CHECK(sym->start <= sym->end);
		FUZZ_CHECK(sym->start >= prev);
		prev = sym->start;
		FUZZ_CHECK(!strchr(sym->name, '\t'));
		if (!annotation)
			continue;
		FUZZ_CHECK(strlen(sym->name) == sym->namelen);
		FUZZ_CHECK(annotation[0] == '[' || annotation[0] == '{');
		FUZZ_CHECK(strlen(annotation) >= 2);
		FUZZ_CHECK(strchr("]}", annotation[strlen(annotation) - 1]));
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct machine machine;

	setup();
	write_files(data, size);

	FUZZ_CHECK(machine__init(&machine, root, HOST_KERNEL_ID) == 0);
	if (machine__create_kernel_maps(&machine) >= 0 &&
	    machine__load_kallsyms(&machine, files[0]) > 0)
		maps__for_each_map(machine__kernel_maps(&machine), check_symbols, NULL);
	machine__exit(&machine);
	return 0;
}
