// SPDX-License-Identifier: GPL-2.0
/*
 * Load /proc/kallsyms and /proc/kallmodsyms like files from a fake root.
 *
 * kallmodsyms annotates the symbols of built-in modules with "[module]",
 * several if the object is shared, and ambiguous symbols with "{obj.o}". As
 * shipped by UEK lines also have a size: "ADDR SIZE TYPE NAME".
 *
 * With kallsyms, lib/modules/RELEASE/modules.builtin.ranges gives the
 * "[module]" annotations.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <inttypes.h>
#include <linux/compiler.h>
#include <linux/string.h>
#include <symbol/kallsyms.h>
#include "debug.h"
#include "dso.h"
#include "event.h"
#include "machine.h"
#include "map.h"
#include "maps.h"
#include "symbol.h"
#include "tests.h"

#define KSTART	0xffffffff81000000ULL
#define K(off)	(KSTART + (off))
/* The dso of the kernel map */
#define KERNEL	NULL
#define MSTART	0xffffffffc0000000ULL
#define M(off)	(MSTART + (off))

static const char plain_kallsyms[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T start_kernel\n"
	"ffffffff81001100 t event_show\n"
	"ffffffff81001200 t helper\n"
	"ffffffff81001300 t mod_fn\n"
	"ffffffff81001400 t shared_fn\n"
	"ffffffff81001480 t obj_fn\n"
	"ffffffff81001500 t event_show\n"
	"ffffffff81001900 t mod_last\n"
	"ffffffff81001a00 T last_core\n"
	"ffffffff81002000 T _etext\n"
	"ffffffffc0000000 t loadfn\t[loadmod]\n"
	"ffffffffc0000100 T loadfn2\t[loadmod]\n"
	"ffffffffc0003000 t ghost_fn\t[ghostmod]\n"
	"ffffffffc0004000 t bpf_prog_x\t[bpf]\n";

/* Format posted upstream, the 500 character annotation is added at runtime. */
static const char kallmodsyms_a[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81001000 T start_kernel\n"
	"ffffffff81001100 t event_show\t{core.o}\n"
	"ffffffff81001200 t helper\n"
	"ffffffff81001300 t mod_fn\t[builtin_a]\n"
	"ffffffff81001400 t shared_fn\t[liquidio] [liquidio_vf]\n"
	"ffffffff81001480 t obj_fn\t[snd] {core.o}\n"
	"ffffffff81001500 t event_show\t{uncore.o}\n"
	"ffffffff81001600 t bad_unterminated\t[unterminated\n"
	"ffffffff81001700 t bad_brace\t{\n"
	"ffffffff81001780 t bad_space\t[builtin_x] \n"
	"ffffffff81001900 t mod_last\t[builtin_z]\n"
	"ffffffff81001a00 T last_core\n"
	"ffffffff81002000 T _etext\n"
	"ffffffffc0000000 t loadfn\t[loadmod]\n"
	"ffffffffc0000100 T loadfn2\t[loadmod]\n"
	"ffffffffc0004000 t bpf_prog_x\t[bpf]\n";

/* Format shipped by UEK, with sizes. */
static const char kallmodsyms_b[] =
	"ffffffff81000000 0 T _text\n"
	"ffffffff81000000 1000 T _stext\n"
	"ffffffff81001000 80 T start_kernel\n"
	"ffffffff81001100 40 t event_show\t[builtin_a]\n"
	"ffffffff81001200 0 t helper\n"
	"ffffffff81001300 20 t mod_fn\t[builtin_b]\n"
	"ffffffff81001a00 a T last_core\n"
	"ffffffff81002000 0 T _etext\n"
	"ffffffffc0000000 t loadfn\t[loadmod]\n";

/*
 * Symbols in the last page of the address space: the end of the last one, not
 * known, and one whose size goes past it are the end of the address space.
 */
static const char kallsyms_top[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81001000 T start_kernel\n"
	"fffffffffffff800 t top_fn\n";

static const char kallmodsyms_top[] =
	"ffffffff81000000 0 T _text\n"
	"ffffffff81001000 80 T start_kernel\n"
	"fffffffffffff000 1000 t top_sized\n";

/* A symbol of loadmod before its start in modules: the two disagree. */
static const char kallsyms_early[] =
	"ffffffff81000000 T _text\n"
	"ffffffff81001000 T start_kernel\n"
	"ffffffff81002000 T _etext\n"
	"ffffffffbffff000 t early_fn\t[loadmod]\n"
	"ffffffffc0000000 t loadfn\t[loadmod]\n";

/*
 * The kallsyms of the root whose _etext, the end of the kernel map, comes
 * before _text, its start: it is ignored.
 */
static const char kallsyms_etext_first[] =
	"ffffffff81001000 T _etext\n"
	"ffffffff81002000 T _text\n"
	"ffffffff81003000 T start_kernel\n";

/* wrapmod ends past the end of the address space: it is ignored. */
static const char modules[] =
	"emptymod 0 0 - Live 0xffffffffc0100000\n"	/* empty: ignored too */
	"wrapmod 8192 0 - Live 0xffffffffffffffff\n"
	"loadmod 8192 0 - Live 0xffffffffc0000000\n";

/*
 * Offsets from the anchor of the section. .init.text has an anchor that isn't
 * in kallsyms, .data none at all: their ranges are ignored, as are lines that
 * can't be parsed.
 */
static const char builtin_ranges[] =
	".text 00000000-00000000 = _text\n"
	".text 00001200-00001300 helper_mod\n"
	".text 00001300-00001400 builtin_a\n"
	".text 00001400-00001480 liquidio liquidio_vf\n"
	".init.text 00000000-00000000 = no_such_anchor\n"
	".init.text 00001100-00001200 ghost\n"
	".data 00001900-00001a00 unanchored\n"
	"garbage\n"
	".text 00001a00-zzz broken\n";

struct expected_sym {
	u64		addr;
	const char	*name;		/* NULL: no symbol expected at addr */
	u64		end;
	const char	*dso;		/* short name of the dso of the map, or KERNEL */
	const char	*annotation;
};

/*
 * What stock perf gives for plain_kallsyms: the last symbol of the kernel and
 * of each module ends at the next page boundary, symbols of modules without a
 * map and pseudo modules are dropped.
 */
static const struct expected_sym plain_expected[] = {
	{ K(0x1000), "start_kernel", K(0x1100),     KERNEL, NULL },
	{ K(0x1100), "event_show",   K(0x1200),     KERNEL, NULL },
	{ K(0x1200), "helper",       K(0x1300),     KERNEL, NULL },
	{ K(0x1300), "mod_fn",       K(0x1400),     KERNEL, NULL },
	{ K(0x1400), "shared_fn",    K(0x1480),     KERNEL, NULL },
	{ K(0x1480), "obj_fn",       K(0x1500),     KERNEL, NULL },
	{ K(0x1500), "event_show",   K(0x1900),     KERNEL, NULL },
	{ K(0x1900), "mod_last",     K(0x1a00),     KERNEL, NULL },
	{ K(0x1a00), "last_core",    K(0x2000),     KERNEL, NULL },
	{ M(0x0000), "loadfn",       M(0x0100),     "[loadmod]", NULL },
	{ M(0x0100), "loadfn2",      M(0x2000),     "[loadmod]", NULL },
	{ M(0x3000), NULL,           0,             NULL, NULL },
	{ M(0x4000), NULL,           0,             NULL, NULL },
};

static const struct expected_sym a_expected[] = {
	{ K(0x1000), "start_kernel", K(0x1100), KERNEL, NULL },
	{ K(0x1100), "event_show",   K(0x1200), KERNEL, "{core.o}" },
	/* Not rounded up to a page because the next one is built in */
	{ K(0x1200), "helper",       K(0x1300), KERNEL, NULL },
	{ K(0x1300), "mod_fn",       K(0x1400), KERNEL, "[builtin_a]" },
	{ K(0x1400), "shared_fn",    K(0x1480), KERNEL,
	  "[liquidio] [liquidio_vf]" },
	{ K(0x1480), "obj_fn",       K(0x1500), KERNEL, "[snd] {core.o}" },
	{ K(0x1500), "event_show",   K(0x1600), KERNEL, "{uncore.o}" },
	/* Malformed annotations: the symbol stays, the annotation goes */
	{ K(0x1600), "bad_unterminated", K(0x1700), KERNEL, NULL },
	{ K(0x1700), "bad_brace",    K(0x1780), KERNEL, NULL },
	{ K(0x1780), "bad_space",    K(0x1800), KERNEL, NULL },
	{ K(0x1800), "bad_long",     K(0x1900), KERNEL, NULL },
	{ K(0x1900), "mod_last",     K(0x1a00), KERNEL, "[builtin_z]" },
	{ K(0x1a00), "last_core",    K(0x2000), KERNEL, NULL },
	{ M(0x0000), "loadfn",       M(0x0100), "[loadmod]", NULL },
	{ M(0x0100), "loadfn2",      M(0x2000), "[loadmod]", NULL },
	{ M(0x4000), NULL,           0,         NULL, NULL },
};

/* plain_kallsyms with builtin_ranges: the ends are those of plain_kallsyms */
static const struct expected_sym ranges_expected[] = {
	{ K(0x1000), "start_kernel", K(0x1100),     KERNEL, NULL },
	{ K(0x1100), "event_show",   K(0x1200),     KERNEL, NULL },
	{ K(0x1200), "helper",       K(0x1300),     KERNEL, "[helper_mod]" },
	{ K(0x1300), "mod_fn",       K(0x1400),     KERNEL, "[builtin_a]" },
	{ K(0x1400), "shared_fn",    K(0x1480),     KERNEL,
	  "[liquidio] [liquidio_vf]" },
	{ K(0x1480), "obj_fn",       K(0x1500),     KERNEL, NULL },
	{ K(0x1500), "event_show",   K(0x1900),     KERNEL, NULL },
	{ K(0x1900), "mod_last",     K(0x1a00),     KERNEL, NULL },
	{ K(0x1a00), "last_core",    K(0x2000),     KERNEL, NULL },
	{ M(0x0000), "loadfn",       M(0x0100),     "[loadmod]", NULL },
	{ M(0x0100), "loadfn2",      M(0x2000),     "[loadmod]", NULL },
};

static const struct expected_sym b_expected[] = {
	{ K(0x1000), "start_kernel", K(0x1080), KERNEL, NULL },
	{ K(0x1100), "event_show",   K(0x1140), KERNEL, "[builtin_a]" },
	{ K(0x1200), "helper",       K(0x1300), KERNEL, NULL },
	{ K(0x1300), "mod_fn",       K(0x1320), KERNEL, "[builtin_b]" },
	{ K(0x1a00), "last_core",    K(0x1a0a), KERNEL, NULL },
	{ M(0x0000), "loadfn",       M(0x1000), "[loadmod]", NULL },
};

static int write_file(const char *dir, const char *name, const char *text,
		      const char *extra)
{
	char path[PATH_MAX];
	FILE *fp;
	int err = 0;

	scnprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	if (!fp)
		return -errno;
	if (fputs(text, fp) < 0 || (extra && fputs(extra, fp) < 0))
		err = -EIO;
	if (fclose(fp))
		err = -errno;
	return err;
}

static void remove_fake_root(const char *root)
{
	static const char * const files[] = {
		"proc/kallsyms", "proc/kallmodsyms", "proc/kallmodsyms.uek",
		"proc/kallsyms.top", "proc/kallmodsyms.top",
		"proc/kallsyms.early",
		"proc/modules", "proc", "lib/modules/%s/modules.builtin.ranges",
		"lib/modules/%s", "lib/modules", "lib",
	};
	char path[PATH_MAX], file[PATH_MAX];
	struct utsname uts;
	const char *release = uname(&uts) ? "none" : uts.release;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(files); i++) {
		scnprintf(file, sizeof(file), files[i], release);
		scnprintf(path, sizeof(path), "%s/%s", root, file);
		remove(path);
	}
	rmdir(root);
}

/* The modules.builtin.ranges of the running kernel, in the root */
static int make_builtin_ranges(const char *root)
{
	char path[PATH_MAX];
	struct utsname uts;

	if (uname(&uts))
		return -errno;
	scnprintf(path, sizeof(path), "%s/lib", root);
	if (mkdir(path, 0700))
		return -errno;
	scnprintf(path, sizeof(path), "%s/lib/modules", root);
	if (mkdir(path, 0700))
		return -errno;
	scnprintf(path, sizeof(path), "%s/lib/modules/%s", root, uts.release);
	if (mkdir(path, 0700))
		return -errno;
	return write_file(path, "modules.builtin.ranges", builtin_ranges, NULL);
}

static int make_fake_root(char *root)
{
	char proc[PATH_MAX], bad_long[600];
	int n;

	if (!mkdtemp(root))
		return -errno;
	scnprintf(proc, sizeof(proc), "%s/proc", root);
	if (mkdir(proc, 0700))
		return -errno;

	/* An annotation of 500 characters, more than kallmodsyms would have */
	n = scnprintf(bad_long, sizeof(bad_long), "ffffffff81001800 t bad_long\t[");
	memset(bad_long + n, 'x', 498);
	memcpy(bad_long + n + 498, "]\n", 3);

	if (write_file(proc, "kallsyms", plain_kallsyms, NULL) ||
	    write_file(proc, "kallmodsyms", kallmodsyms_a, bad_long) ||
	    write_file(proc, "kallmodsyms.uek", kallmodsyms_b, NULL) ||
	    write_file(proc, "kallsyms.top", kallsyms_top, NULL) ||
	    write_file(proc, "kallmodsyms.top", kallmodsyms_top, NULL) ||
	    write_file(proc, "kallsyms.early", kallsyms_early, NULL) ||
	    write_file(proc, "modules", modules, NULL))
		return -EIO;
	return 0;
}

static bool bad_char_in_names(struct dso *dso)
{
	struct rb_node *nd;

	for (nd = rb_first_cached(dso__symbols(dso)); nd; nd = rb_next(nd)) {
		struct symbol *sym = rb_entry(nd, struct symbol, rb_node);

		/* The annotation is after the name, where namelen says */
		if (strpbrk(sym->name, "\t[{") ||
		    (sym->kmod_annotated && strlen(sym->name) != sym->namelen)) {
			pr_debug("bad symbol name \"%s\" in %s\n",
				 sym->name, dso__short_name(dso));
			return true;
		}
	}
	return false;
}

static int check_names_cb(struct map *map, void *data)
{
	int *err = data;

	if (bad_char_in_names(map__dso(map)))
		*err = TEST_FAIL;
	return 0;
}

static int check_expected(struct machine *machine,
			  const struct expected_sym *exp, size_t nr)
{
	int err = TEST_OK;
	size_t i;

	for (i = 0; i < nr; i++) {
		struct map *map = maps__find(machine__kernel_maps(machine), exp[i].addr);
		struct symbol *sym = NULL;
		const char *annot;

		if (map)
			sym = dso__find_symbol(map__dso(map), map__map_ip(map, exp[i].addr));

		if (!exp[i].name) {
			if (sym) {
				pr_debug("%#" PRIx64 ": unexpected symbol %s\n",
					 exp[i].addr, sym->name);
				err = TEST_FAIL;
			}
			map__put(map);
			continue;
		}

		if (!sym || strcmp(sym->name, exp[i].name) ||
		    map__unmap_ip(map, sym->start) != exp[i].addr) {
			pr_debug("%#" PRIx64 ": expected %s, got %s\n", exp[i].addr,
				 exp[i].name, sym ? sym->name : "nothing");
			err = TEST_FAIL;
			map__put(map);
			continue;
		}
		if (map__unmap_ip(map, sym->end) != exp[i].end) {
			pr_debug("%s: end %#" PRIx64 " instead of %#" PRIx64 "\n",
				 sym->name, map__unmap_ip(map, sym->end), exp[i].end);
			err = TEST_FAIL;
		}
		if (exp[i].dso ? strcmp(dso__short_name(map__dso(map)), exp[i].dso) :
		    !RC_CHK_EQUAL(map, machine__kernel_map(machine))) {
			pr_debug("%s: in %s instead of %s\n", sym->name,
				 dso__short_name(map__dso(map)), exp[i].dso ?: "the kernel");
			err = TEST_FAIL;
		}
		annot = symbol__kmod_annotation(sym);
		if (!annot != !exp[i].annotation ||
		    (annot && strcmp(annot, exp[i].annotation))) {
			pr_debug("%s: annotation \"%s\" instead of \"%s\"\n", sym->name,
				 annot ?: "", exp[i].annotation ?: "");
			err = TEST_FAIL;
		}
		map__put(map);
	}

	maps__for_each_map(machine__kernel_maps(machine), check_names_cb, &err);
	return err;
}

static int load(struct machine *machine, const char *root, const char *file)
{
	char path[PATH_MAX];
	int ret;

	if (machine__init(machine, root, HOST_KERNEL_ID))
		return -ENOMEM;
	if (machine__create_kernel_maps(machine) < 0) {
		pr_debug("machine__create_kernel_maps failed\n");
		return -EINVAL;
	}
	scnprintf(path, sizeof(path), "%s/proc/%s", root, file);
	ret = machine__load_kallsyms(machine, path);
	if (ret <= 0) {
		pr_debug("loading %s failed: %d\n", path, ret);
		return -EINVAL;
	}
	pr_debug("%s: %d symbols\n", path, ret);
	return 0;
}

/*
 * Symbol @name of the kernel's DSO starts at @start, ends at the end of the
 * address space and is found there (past the kernel map, which ends at
 * _etext of the root's kallsyms).
 */
static int check_top(struct machine *machine, const char *name, u64 start)
{
	struct dso *dso = map__dso(machine__kernel_map(machine));
	struct symbol *sym;

	dso__sort_by_name(dso);
	sym = dso__find_symbol_by_name(dso, name, NULL);
	if (!sym || sym->start != start || sym->end != ULLONG_MAX) {
		pr_debug("%s: %#" PRIx64 "-%#" PRIx64 " instead of %#" PRIx64 "-%#llx\n",
			 name, sym ? sym->start : 0, sym ? sym->end : 0, start, ULLONG_MAX);
		return TEST_FAIL;
	}
	if (dso__find_symbol(dso, ULLONG_MAX - 1) != sym) {
		pr_debug("%s: not found at %#llx\n", name, ULLONG_MAX - 1);
		return TEST_FAIL;
	}
	return TEST_OK;
}

/* The symbols of map @module: none ending before it starts, none named @absent. */
static int check_module_symbols(struct machine *machine, const char *module,
				const char *absent)
{
	struct map *map = maps__find_by_name(machine__kernel_maps(machine), module);
	int err = TEST_OK;
	struct rb_node *nd;

	if (!map) {
		pr_debug("no map %s\n", module);
		return TEST_FAIL;
	}
	for (nd = rb_first_cached(dso__symbols(map__dso(map))); nd; nd = rb_next(nd)) {
		struct symbol *sym = rb_entry(nd, struct symbol, rb_node);

		if (sym->start > sym->end || !strcmp(sym->name, absent)) {
			pr_debug("%s: %s %#" PRIx64 "-%#" PRIx64 "\n", module,
				 sym->name, sym->start, sym->end);
			err = TEST_FAIL;
		}
	}
	map__put(map);
	return err;
}

/* Both event_show, with their object files, and lookups by name */
static int check_by_name(struct machine *machine)
{
	struct dso *dso = map__dso(machine__kernel_map(machine));
	struct symbol *sym, *other;
	size_t idx;
	int err = TEST_OK;

	dso__sort_by_name(dso);
	sym = dso__find_symbol_by_name(dso, "event_show", &idx);
	other = sym ? dso__next_symbol_by_name(dso, &idx) : NULL;
	if (!sym || !other || strcmp(other->name, "event_show") ||
	    sym->start == other->start ||
	    !symbol__kmod_annotation(sym) || !symbol__kmod_annotation(other) ||
	    !strcmp(symbol__kmod_annotation(sym), symbol__kmod_annotation(other))) {
		pr_debug("the two event_show aren't told apart\n");
		err = TEST_FAIL;
	}

	sym = dso__find_symbol_by_name(dso, "shared_fn", &idx);
	if (!sym || sym->start != K(0x1400)) {
		pr_debug("shared_fn not found by name\n");
		err = TEST_FAIL;
	}
	return err;
}

/*
 * Callers of kallsyms__parse() get the names without the annotations only
 * kallmodsyms has, "[module]" alone being as for loadable modules.
 */
static int check_get_function_start(const char *root, const char *file,
				    const char *name, u64 start)
{
	char path[PATH_MAX];
	u64 addr = 0;

	scnprintf(path, sizeof(path), "%s/proc/%s", root, file);
	if (kallsyms__get_function_start(path, name, &addr) || addr != start ||
	    kallsyms__get_function_start(path, "_stext", &addr) ||
	    addr != KSTART) {
		pr_debug("kallsyms__get_function_start failed on %s\n", path);
		return TEST_FAIL;
	}
	return TEST_OK;
}

static int test__kallmodsyms(struct test_suite *test __maybe_unused,
			     int subtest __maybe_unused)
{
	char root[] = "/tmp/perf-test-kallmodsyms.XXXXXX";
	char path[PATH_MAX];
	struct machine machine;
	struct map *map;
	int ret = TEST_OK, err;

	if (!symbol_conf.use_modules) {
		pr_debug("modules disabled\n");
		return TEST_SKIP;
	}

	err = make_fake_root(root);
	if (err) {
		pr_debug("Cannot create a fake root in %s: %s\n", root, strerror(-err));
		remove_fake_root(root);
		return TEST_FAIL;
	}

	pr_debug("plain kallsyms\n");
	err = load(&machine, root, "kallsyms");
	if (err || check_expected(&machine, plain_expected, ARRAY_SIZE(plain_expected)))
		ret = TEST_FAIL;
	machine__exit(&machine);

	pr_debug("kallmodsyms as posted upstream\n");
	err = load(&machine, root, "kallmodsyms");
	if (err || check_expected(&machine, a_expected, ARRAY_SIZE(a_expected)) ||
	    check_by_name(&machine) ||
	    check_get_function_start(root, "kallmodsyms", "shared_fn", K(0x1400)))
		ret = TEST_FAIL;
	machine__exit(&machine);

	pr_debug("kallmodsyms as in UEK\n");
	err = load(&machine, root, "kallmodsyms.uek");
	if (err || check_expected(&machine, b_expected, ARRAY_SIZE(b_expected)) ||
	    check_get_function_start(root, "kallmodsyms.uek", "mod_fn", K(0x1300)))
		ret = TEST_FAIL;
	machine__exit(&machine);

	pr_debug("kallsyms up to the end of the address space\n");
	err = load(&machine, root, "kallsyms.top");
	if (err || check_top(&machine, "top_fn", 0xfffffffffffff800ULL))
		ret = TEST_FAIL;
	machine__exit(&machine);

	err = load(&machine, root, "kallmodsyms.top");
	if (err || check_top(&machine, "top_sized", 0xfffffffffffff000ULL))
		ret = TEST_FAIL;
	machine__exit(&machine);

	pr_debug("kallsyms with a symbol before the start of its module\n");
	err = load(&machine, root, "kallsyms.early");
	if (err || check_module_symbols(&machine, "[loadmod]", "early_fn"))
		ret = TEST_FAIL;
	/* Modules that would end before they start, or be empty */
	for (size_t i = 0; i < 2; i++) {
		const char *name = i ? "[emptymod]" : "[wrapmod]";

		map = maps__find_by_name(machine__kernel_maps(&machine), name);
		if (map) {
			pr_debug("%s has a map: %#" PRIx64 "-%#" PRIx64 "\n",
				 name, map__start(map), map__end(map));
			map__put(map);
			ret = TEST_FAIL;
		}
	}
	machine__exit(&machine);

	err = make_builtin_ranges(root);
	if (err) {
		pr_debug("Cannot write modules.builtin.ranges in %s: %s\n", root,
			 strerror(-err));
		ret = TEST_FAIL;
		goto out;
	}

	pr_debug("kallsyms with modules.builtin.ranges\n");
	err = load(&machine, root, "kallsyms");
	if (err || check_expected(&machine, ranges_expected, ARRAY_SIZE(ranges_expected)))
		ret = TEST_FAIL;
	machine__exit(&machine);

	/* kallmodsyms has more than modules.builtin.ranges, which is not used */
	pr_debug("kallmodsyms with modules.builtin.ranges\n");
	err = load(&machine, root, "kallmodsyms");
	if (err || check_expected(&machine, a_expected, ARRAY_SIZE(a_expected)))
		ret = TEST_FAIL;
	machine__exit(&machine);

	/* Last: the root's kallsyms is replaced */
	pr_debug("kallsyms with _etext before _text\n");
	scnprintf(path, sizeof(path), "%s/proc", root);
	err = write_file(path, "kallsyms", kallsyms_etext_first, NULL);
	if (!err)
		err = load(&machine, root, "kallsyms");
	map = err ? NULL : machine__kernel_map(&machine);
	if (!map || (map__end(map) && map__end(map) < map__start(map))) {
		pr_debug("kernel map %#" PRIx64 "-%#" PRIx64 "\n",
			 map ? map__start(map) : 0, map ? map__end(map) : 0);
		ret = TEST_FAIL;
	}
	if (!err)
		machine__exit(&machine);
out:
	remove_fake_root(root);
	return ret;
}

DEFINE_SUITE("kallmodsyms parsing", kallmodsyms);
