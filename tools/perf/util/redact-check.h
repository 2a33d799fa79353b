/* SPDX-License-Identifier: GPL-2.0 */
#ifndef __PERF_REDACT_CHECK_H
#define __PERF_REDACT_CHECK_H

#include <linux/types.h>
#include <stddef.h>

/*
 * The check perf inject --redact makes of its own output, beside that of
 * addresses (aslr-verify.h): the names of the input it replaces, looked for
 * as perf writes strings, a run of printable bytes that a NUL ends.  It
 * knows nothing of where the rewrite puts its tokens.
 */
struct redact_check;

struct redact_check *redact_check__new(void);
void redact_check__delete(struct redact_check *check);

/*
 * A name of the input that the output must not hold: @what (a comm, the
 * hostname, ...), its @len bytes at @name (up to a NUL).  Found as the end
 * of a string that is not a path (a path, a '/' in it, as a whole only);
 * as a component of a path as well if @component.  Names of less than 4 bytes
 * are not looked for: binary data is full of them.
 */
int redact_check__add(struct redact_check *check, const char *what, const char *name,
		      size_t len, bool component);
/*
 * A word the output keeps as it is, the @len bytes at @word (a directory
 * of a path of the system): not looked for, whatever name of the input it
 * is as well.
 */
int redact_check__keep(struct redact_check *check, const char *word, size_t len);

/*
 * Look for the names in the @size bytes at @buf, at @offset of the output,
 * in @where: how many were found, each reported.
 */
u64 redact_check__scan(struct redact_check *check, const void *buf, size_t size,
		       u64 offset, const char *where);

/* With -v, say what was looked for. */
void redact_check__print_stats(const struct redact_check *check);

#endif /* __PERF_REDACT_CHECK_H */
