/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REDACT_H
#define __PERF_REDACT_H

#include <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * What perf inject --redact replaces in a perf.data file besides addresses:
 * names, each by a token of a keyed hash of it, the same in every place it
 * is written; or, where perf needs none, the whole field or header feature.
 */
enum redact_class {
	/* The command names of threads: COMM records, tracepoint comm fields */
	REDACT_COMM,
	/* The command line of perf record (HEADER_CMDLINE) */
	REDACT_CMDLINE,
	/* Hostname, kernel release, CPU, memory and topology of the machine */
	REDACT_HOST,
	/* The device and inode numbers of mappings and namespaces */
	REDACT_DEVINO,
	/* The paths of cgroups (PERF_RECORD_CGROUP) */
	REDACT_CGROUP,
	/* Every string field of tracepoints */
	REDACT_TP_STRINGS,
	/* The directories of files out of the system's (redact__file_path()) */
	REDACT_PATHS,
	REDACT__MAX,
};

#define REDACT_ALL		((1U << REDACT__MAX) - 1)
/* "~" and 12 letters: fits a comm of 16 bytes, never a hexadecimal number */
#define REDACT_TOKEN_LEN	13

struct redact;

/*
 * Parse "CLASS[,CLASS...]" (or "all") into a mask of 1 << enum redact_class:
 * 0, or -EINVAL after saying which class is not known.
 */
int redact__parse_classes(const char *str, unsigned int *classes);

/*
 * Redact @classes with the key in @key_file, or a random one if NULL (two
 * outputs then can't be joined by their tokens), the basenames of paths as
 * well if @basenames: an ERR_PTR() on error.
 */
struct redact *redact__new(unsigned int classes, const char *key_file, bool basenames);
void redact__delete(struct redact *redact);

/* Whether @redact (may be NULL) replaces what @class says. */
bool redact__has(const struct redact *redact, enum redact_class class);

/*
 * The token of the @len bytes of @name (up to a NUL) into @buf, of
 * REDACT_TOKEN_LEN + 1 bytes, counted for @class in records of type @where
 * (PERF_RECORD_*).
 */
void redact__token(struct redact *redact, enum redact_class class, u32 where,
		   const char *name, size_t len, char *buf);
/*
 * The path @path with each of its components a token, into @buf of @size
 * bytes: -ENAMETOOLONG if it doesn't fit.
 */
int redact__path(struct redact *redact, enum redact_class class, u32 where,
		 const char *path, char *buf, size_t size);
/*
 * The names in the file path @path: the components from *@start up to
 * *@end.  What precedes is a directory of the system (/usr, /lib, /bin, ...
 * but /usr/local), what follows the basename, kept unless --redact-basenames;
 * names not a path ("[vdso]", "//anon") have none.
 */
void redact__path_names(const struct redact *redact, const char *path, size_t *start,
			size_t *end);
/*
 * The file path @path with its names (redact__path_names()) tokens, into
 * @buf of @size bytes: -ENAMETOOLONG if it doesn't fit.
 */
int redact__file_path(struct redact *redact, u32 where, const char *path, char *buf,
		      size_t size);
/*
 * The class of @redact that drops the header feature @feat, the command
 * line or what names the machine (its CPU, memory, topology, kernel
 * release), or -1 if it is kept.
 */
int redact__feature_class(const struct redact *redact, int feat);
/* Count a field of @class dropped or zeroed in a record of type @where. */
void redact__count(struct redact *redact, enum redact_class class, u32 where);
/* With -v, say how many names of each class were replaced, and where. */
void redact__print_stats(const struct redact *redact);

#endif /* __PERF_REDACT_H */
