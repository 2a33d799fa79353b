/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_ASLR_DSO_H
#define __PERF_ASLR_DSO_H

#include <linux/types.h>
#include <stddef.h>

/*
 * The objects perf inject --aslr writes for the receiver of its output, who
 * has no other copy of them: the symbols a JIT lists in /tmp/perf-PID.map,
 * which holds the layout --aslr hides, and copies of the objects perf
 * inject --jit writes for jitted code (jitted-PID-N.so) without what holds
 * the JIT's addresses.  Once checked, they go to the build-id cache, where
 * perf archive takes them with the other DSOs of the output.
 */

/* A symbol of an object of aslr_dso__write_symbols(): [start, end), from 0 */
struct aslr_dso_sym {
	u64		start;
	u64		end;
	const char	*name;
};

/*
 * Write an ELF object of @size bytes of code, none of it in the file, with
 * the @nr symbols @syms: a mapping of it at file offset 0 resolves an
 * address to the symbol at its offset in the mapping.  It is written as
 * @dir/@stem-BUILDID.so, its path in *@path.
 */
int aslr_dso__write_symbols(const char *dir, const char *stem, const struct aslr_dso_sym *syms,
			    size_t nr, u64 size, char **path);
/* Replace what could be an address in the @len bytes of the string @s. */
typedef void (*aslr_dso_rename_fn)(void *ctx, char *s, size_t len);
/*
 * Copy the jitted object @src into @dir without its code and unwinding
 * information (zeroed), which hold the JIT's addresses, its symbol names
 * passed to @rename, its build-id made from what is left (the one perf
 * inject --jit gives it is a digest of the code and its address).  The
 * copy is @dir/jitted-PID-N-BUILDID.so, its path in *@path.
 */
int aslr_dso__copy_jitted(const char *src, const char *dir, aslr_dso_rename_fn rename,
			  void *ctx, char **path);

/*
 * Write the @len bytes of kallsyms text at @buf as @dir/kallsyms-BUILDID.so,
 * its path in *@path, its build-id (a digest of it, BUILD_ID_SIZE bytes)
 * into @bid.
 */
int aslr_dso__write_kallsyms(const char *dir, const char *buf, size_t len, u8 *bid,
			     char **path);

#endif /* __PERF_ASLR_DSO_H */
