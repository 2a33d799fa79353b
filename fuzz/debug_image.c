// SPDX-License-Identifier: GPL-2.0
/*
 * An ELF image through perf's symbol loading, in process: the image is the
 * file of a DSO that a process maps, perf loads its symbols for the first
 * of its mappings (dso__load() through map__find_symbol()) and looks up
 * addresses of each mapping.  The seeds are separated debug images
 * (objcopy --only-keep-debug of ET_EXEC, PIE and shared objects, one with a
 * code segment of its own) and stripped images with MiniDebugInfo
 * (.gnu_debugdata): with only the debug image at hand, it is the DSO's own
 * file, so this is the debug-only path of util/symbol-elf.c
 * (debug_image__bias(), debug_image__place_segments()) and its
 * MiniDebugInfo reader (symsrc__init_gnu_debugdata()).
 *
 * The input starts with the mappings, NR_MAPPINGS of struct mapping (a
 * mapping of 0 pages is none), the ELF image follows.  Checked: no symbol
 * ends before it starts, a symbol found at an address holds it (or is the
 * empty one at it), the symbols of the DSO are sorted by start.
 */
#include <fcntl.h>
#include <stdbool.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/compiler.h>
#include <linux/rbtree.h>

#include "fuzz.h"
#include "fuzz-perf.h"
#include "util/dso.h"
#include "util/machine.h"
#include "util/map.h"
#include "util/symbol.h"
#include "util/thread.h"

#define NR_MAPPINGS	4
#define FUZZ_PAGE	4096ULL

/* Start (page aligned by the harness), pages (0: none), file offset in pages. */
struct mapping {
	uint64_t start;
	uint32_t pages;
	uint32_t pgoff;
};

static char dir[] = "/tmp/perf-fuzz-elf.XXXXXX";
static char image[sizeof(dir) + 16];

static void cleanup(void)
{
	unlink(image);
	rmdir(dir);
}

static void setup(void)
{
	if (!fuzz_perf__setup_once(dir, cleanup))
		return;
	FUZZ_CHECK(symbol__init(NULL) == 0);
	snprintf(image, sizeof(image), "%s/image", dir);
}

/* The symbols of @dso: sorted, none ending before it starts. */
static void check_symbols(struct dso *dso)
{
	struct rb_node *nd;
	u64 prev = 0;

	for (nd = rb_first_cached(dso__symbols(dso)); nd; nd = rb_next(nd)) {
		struct symbol *sym = rb_entry(nd, struct symbol, rb_node);

		FUZZ_CHECK(sym->start <= sym->end);
		FUZZ_CHECK(sym->start >= prev);
		prev = sym->start;
	}
}

/* Look up the first, middle and last address of @map. */
static void lookup(struct map *map)
{
	u64 addrs[] = {
		map__start(map),
		map__start(map) + map__size(map) / 2,
		map__end(map) - 1,
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(addrs); i++) {
		u64 addr = map__map_ip(map, addrs[i]);
		struct symbol *sym = map__find_symbol(map, addr);

		if (sym)
			FUZZ_CHECK(sym->start <= addr &&
				   (addr < sym->end || sym->start == sym->end));
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct mapping mappings[NR_MAPPINGS];
	struct map *maps[NR_MAPPINGS] = { NULL };
	struct dso_id id = { .maj = 0, };
	struct machine machine;
	struct thread *thread;
	int fd, i, nr = 0;

	setup();
	if (size < sizeof(mappings))
		return 0;
	memcpy(mappings, data, sizeof(mappings));
	fd = open(image, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(write(fd, data + sizeof(mappings), size - sizeof(mappings)) ==
		   (ssize_t)(size - sizeof(mappings)));
	FUZZ_CHECK(close(fd) == 0);

	FUZZ_CHECK(machine__init(&machine, "", HOST_KERNEL_ID) == 0);
	thread = machine__findnew_thread(&machine, 1, 1);
	FUZZ_CHECK(thread);
	/* As the MMAP2 records of the process: one DSO, mapped NR times. */
	for (i = 0; i < NR_MAPPINGS; i++) {
		u64 start = mappings[i].start & ~(FUZZ_PAGE - 1);
		u64 len = mappings[i].pages * FUZZ_PAGE;

		/* perf refuses a mapping that wraps around (maps__insert()) */
		if (!len || start + len < start)
			continue;
		maps[nr] = map__new(&machine, start, len,
				    mappings[i].pgoff * FUZZ_PAGE, &id,
				    PROT_READ | PROT_EXEC, MAP_PRIVATE, NULL,
				    image, thread);
		FUZZ_CHECK(maps[nr]);
		nr++;
	}
	for (i = 0; i < nr; i++)
		lookup(maps[i]);
	if (nr)
		check_symbols(map__dso(maps[0]));

	for (i = 0; i < nr; i++)
		map__put(maps[i]);
	thread__put(thread);
	machine__exit(&machine);
	return 0;
}
