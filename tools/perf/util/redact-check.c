// SPDX-License-Identifier: GPL-2.0
/*
 * perf inject --redact looks for the names of the input it replaces in its
 * own output before the output is written: see redact-check.h.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <linux/bitmap.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/zalloc.h>

#include "debug.h"
#include "hashmap.h"
#include "redact-check.h"

/* Longer names are looked for by their last bytes. */
#define REDACT_CHECK_MAX_LEN	4096
/*
 * Shorter names are not looked for: binary data holds any two or three
 * letters followed by a NUL.
 */
#define REDACT_CHECK_MIN_LEN	4
#define REDACT_CHECK_REPORTS	10

struct redact_check_key {
	const char	*s;
	size_t		len;
};

struct redact_check_name {
	struct redact_check_key	key;
	const char		*what;
	bool			component;
	/* Kept in the output as well: not looked for */
	bool			kept;
	char			name[];
};

struct redact_check {
	/* struct redact_check_key * -> struct redact_check_name * */
	struct hashmap	*names;
	DECLARE_BITMAP(has_len, REDACT_CHECK_MAX_LEN + 1);
	/* The last two bytes of the names: most strings end otherwise */
	DECLARE_BITMAP(ends, 1 << 16);
	/* And their first two: most ends of strings start otherwise */
	DECLARE_BITMAP(starts, 1 << 16);
	u64		components;
	/* Names kept in the output as well */
	u64		kept;
	u64		strings;
	u64		hits;
	/* Names not looked for, shorter than REDACT_CHECK_MIN_LEN */
	u64		too_short;
	/* A name could not be added: the check fails */
	bool		enomem;
};

/* The last two bytes before @end. */
static inline unsigned int redact_check__end(const char *end)
{
	return (u8)end[-2] << 8 | (u8)end[-1];
}

static inline unsigned int redact_check__start(const char *start)
{
	return (u8)start[0] << 8 | (u8)start[1];
}

static size_t redact_check__hash(long key, void *ctx __maybe_unused)
{
	const struct redact_check_key *k = (const void *)key;
	size_t hash = 2166136261u, i;

	for (i = 0; i < k->len; i++)
		hash = (hash ^ (u8)k->s[i]) * 16777619u;
	return hash;
}

static bool redact_check__equal(long key1, long key2, void *ctx __maybe_unused)
{
	const struct redact_check_key *a = (const void *)key1, *b = (const void *)key2;

	return a->len == b->len && !memcmp(a->s, b->s, a->len);
}

struct redact_check *redact_check__new(void)
{
	struct redact_check *check = zalloc(sizeof(*check));

	if (!check)
		return NULL;
	check->names = hashmap__new(redact_check__hash, redact_check__equal, NULL);
	if (IS_ERR(check->names)) {
		free(check);
		return NULL;
	}
	return check;
}

void redact_check__delete(struct redact_check *check)
{
	struct hashmap_entry *cur;
	size_t bkt;

	if (!check)
		return;
	hashmap__for_each_entry(check->names, cur, bkt)
		free(cur->pvalue);
	hashmap__free(check->names);
	free(check);
}

static int __redact_check__add(struct redact_check *check, const char *what, const char *name,
			       size_t len, bool component, bool kept)
{
	const char *nul = memchr(name, '\0', len);
	struct redact_check_key key = { .s = name, .len = nul ? (size_t)(nul - name) : len, };
	struct redact_check_name *n;

	if (key.len < REDACT_CHECK_MIN_LEN) {
		check->too_short += key.len > 0;
		return 0;
	}
	if (key.len > REDACT_CHECK_MAX_LEN) {
		name += key.len - REDACT_CHECK_MAX_LEN;
		key.s = name;
		key.len = REDACT_CHECK_MAX_LEN;
	}
	if (hashmap__find(check->names, &key, &n)) {
		check->components += component && !n->component;
		n->component |= component;
		check->kept += kept && !n->kept;
		n->kept |= kept;
		return 0;
	}
	n = zalloc(sizeof(*n) + key.len + 1);
	if (!n)
		return -ENOMEM;
	memcpy(n->name, name, key.len);
	n->key.s = n->name;
	n->key.len = key.len;
	n->what = what;
	n->component = component;
	n->kept = kept;
	check->components += component;
	check->kept += kept;
	if (hashmap__add(check->names, &n->key, n)) {
		free(n);
		return -ENOMEM;
	}
	__set_bit(redact_check__end(n->name + key.len), check->ends);
	__set_bit(redact_check__start(n->name), check->starts);
	__set_bit(key.len, check->has_len);
	return 0;
}

int redact_check__add(struct redact_check *check, const char *what, const char *name,
		      size_t len, bool component)
{
	int err = __redact_check__add(check, what, name, len, component, /*kept=*/false);

	if (err)
		check->enomem = true;
	return err;
}

int redact_check__keep(struct redact_check *check, const char *word, size_t len)
{
	int err = __redact_check__add(check, "word", word, len, /*component=*/false,
				      /*kept=*/true);

	if (err)
		check->enomem = true;
	return err;
}

static void redact_check__report(struct redact_check *check, const struct redact_check_name *n,
				 u64 offset, const char *where)
{
	if (++check->hits > REDACT_CHECK_REPORTS)
		return;
	pr_err("--redact: '%s', a %s of the input, at file offset %#" PRIx64 " of the output: %s\n",
	       n->name, n->what, offset, where);
}

static struct redact_check_name *redact_check__find(struct redact_check *check,
						    const char *s, size_t len)
{
	struct redact_check_key key = { .s = s, .len = len, };
	struct redact_check_name *n;

	if (len > REDACT_CHECK_MAX_LEN || !test_bit(len, check->has_len) ||
	    !test_bit(redact_check__start(s), check->starts))
		return NULL;
	return hashmap__find(check->names, &key, &n) && !n->kept ? n : NULL;
}

/* The string of @len bytes at @run, at @offset, a NUL after it. */
static void redact_check__string(struct redact_check *check, const char *run, size_t len,
				 u64 offset, const char *where)
{
	const char *end = run + len, *seg;
	bool path = memchr(run, '/', len);
	struct redact_check_name *n;
	size_t l;

	check->strings++;
	/* The end of a path is the name of a file, kept */
	for_each_set_bit(l, check->has_len, min_t(size_t, len, REDACT_CHECK_MAX_LEN) + 1) {
		if (l < len && path)
			continue;
		n = redact_check__find(check, end - l, l);
		if (n)
			redact_check__report(check, n, offset + len - l, where);
	}
	if (!check->components || !path)
		return;
	for (seg = run; seg < end; seg++) {
		const char *slash = memchr(seg, '/', end - seg) ?: end;

		n = slash - seg < REDACT_CHECK_MIN_LEN ||
		    !test_bit(redact_check__end(slash), check->ends) ? NULL :
		    redact_check__find(check, seg, slash - seg);
		/* The end of the string was looked for above */
		if (n && n->component && slash != end)
			redact_check__report(check, n, offset + (seg - run), where);
		seg = slash;
	}
}

/* Printable ASCII and the bytes of UTF-8 beyond it. */
static inline bool redact_check__is_text(u8 c)
{
	return c >= 0x20 && c != 0x7f;
}

u64 redact_check__scan(struct redact_check *check, const void *buf, size_t size,
		       u64 offset, const char *where)
{
	const char *p = buf;
	u64 hits;
	size_t i;

	if (!check)
		return 0;
	if (check->enomem) {
		if (!check->hits++)
			pr_err("--redact: not enough memory for the names to look for in the output\n");
		return 1;
	}
	if (!hashmap__size(check->names))
		return 0;
	hits = check->hits;
	for (i = REDACT_CHECK_MIN_LEN; i < size; i++) {
		const char *nul = p + i, *start = nul;

		/*
		 * A string that ends as no name does is looked at only for
		 * the components of paths in it.
		 */
		if (*nul || !redact_check__is_text(nul[-1]) ||
		    (!check->components && !test_bit(redact_check__end(nul), check->ends)))
			continue;
		/* All of it: whether it is a path */
		while (start > p && nul - start < REDACT_CHECK_MAX_LEN &&
		       redact_check__is_text(start[-1]))
			start--;
		if (nul - start >= REDACT_CHECK_MIN_LEN)
			redact_check__string(check, start, nul - start, offset + (start - p),
					     where);
	}
	return check->hits - hits;
}

void redact_check__print_stats(const struct redact_check *check)
{
	if (!check)
		return;
	pr_debug("redact: verified the output: %" PRIu64
		 " strings looked at for %zu names of the input (%" PRIu64
		 " found; not looked for: %" PRIu64 " names of less than %d bytes, %" PRIu64
		 " words of paths kept as they are)\n",
		 check->strings, hashmap__size(check->names) - check->kept, check->hits,
		 check->too_short, REDACT_CHECK_MIN_LEN, check->kept);
}
