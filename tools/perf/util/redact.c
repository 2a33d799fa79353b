// SPDX-License-Identifier: GPL-2.0
/*
 * Names of a perf.data file replaced by tokens for perf inject --redact.
 *
 * A token is a keyed hash of the name (SipHash-2-4): the same name gives the
 * same token wherever it is written, so that a profile keeps its threads and
 * objects apart, and without the key the name can't be found back by hashing
 * guesses. The key is random for each output unless --redact-key gives one.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <fcntl.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>
#include <linux/bitops.h>
#include <linux/err.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/zalloc.h>

#include "debug.h"
#include "dso.h"
#include "event.h"
#include "header.h"
#include "redact.h"

struct redact {
	unsigned int	classes;
	/* --redact-basenames: the basenames of paths are names too */
	bool		basenames;
	u64		key[2];
	/* Names replaced and fields dropped, per class and record type */
	u64		tokens[REDACT__MAX][PERF_RECORD_HEADER_MAX];
	u64		dropped[REDACT__MAX][PERF_RECORD_HEADER_MAX];
};

static const char * const redact__names[REDACT__MAX] = {
	[REDACT_COMM]		= "comm",
	[REDACT_CMDLINE]	= "cmdline",
	[REDACT_HOST]		= "host",
	[REDACT_DEVINO]		= "devino",
	[REDACT_CGROUP]		= "cgroup",
	[REDACT_TP_STRINGS]	= "tracepoint-strings",
	[REDACT_PATHS]		= "paths",
};

int redact__parse_classes(const char *str, unsigned int *classes)
{
	char *s = strdup(str), *tok, *saveptr = NULL;
	int i, err = 0;

	if (!s)
		return -ENOMEM;
	*classes = 0;
	for (tok = strtok_r(s, ",", &saveptr); tok; tok = strtok_r(NULL, ",", &saveptr)) {
		if (!strcmp(tok, "all")) {
			*classes |= REDACT_ALL;
			continue;
		}
		for (i = 0; i < REDACT__MAX; i++) {
			if (!strcmp(tok, redact__names[i]))
				break;
		}
		if (i == REDACT__MAX) {
			pr_err("--redact: unknown class '%s', the classes are all, comm, cmdline, host, devino, cgroup, tracepoint-strings and paths\n",
			       tok);
			err = -EINVAL;
			break;
		}
		*classes |= 1U << i;
	}
	free(s);
	if (!err && !*classes) {
		pr_err("--redact: no class given\n");
		err = -EINVAL;
	}
	return err;
}

bool redact__has(const struct redact *redact, enum redact_class class)
{
	return redact && (redact->classes & (1U << class));
}

static inline u64 redact__rol64(u64 word, unsigned int shift)
{
	return (word << shift) | (word >> (64 - shift));
}

static void redact__sipround(u64 v[4])
{
	v[0] += v[1];
	v[1] = redact__rol64(v[1], 13);
	v[1] ^= v[0];
	v[0] = redact__rol64(v[0], 32);
	v[2] += v[3];
	v[3] = redact__rol64(v[3], 16);
	v[3] ^= v[2];
	v[0] += v[3];
	v[3] = redact__rol64(v[3], 21);
	v[3] ^= v[0];
	v[2] += v[1];
	v[1] = redact__rol64(v[1], 17);
	v[1] ^= v[2];
	v[2] = redact__rol64(v[2], 32);
}

/* SipHash-2-4 of the @len bytes at @data with @key. */
static u64 redact__siphash(const u64 key[2], const void *data, size_t len)
{
	u64 v[4] = {
		0x736f6d6570736575ULL ^ key[0], 0x646f72616e646f6dULL ^ key[1],
		0x6c7967656e657261ULL ^ key[0], 0x7465646279746573ULL ^ key[1],
	};
	u64 b = (u64)len << 56, m;
	const u8 *p = data;
	size_t i;

	for (; len >= sizeof(m); len -= sizeof(m), p += sizeof(m)) {
		m = 0;
		for (i = 0; i < sizeof(m); i++)
			m |= (u64)p[i] << (8 * i);
		v[3] ^= m;
		redact__sipround(v);
		redact__sipround(v);
		v[0] ^= m;
	}
	for (i = 0; i < len; i++)
		b |= (u64)p[i] << (8 * i);
	v[3] ^= b;
	redact__sipround(v);
	redact__sipround(v);
	v[0] ^= b;
	v[2] ^= 0xff;
	for (i = 0; i < 4; i++)
		redact__sipround(v);
	return v[0] ^ v[1] ^ v[2] ^ v[3];
}

/* The key: the SipHash of what @path holds, under two fixed keys. */
static int redact__read_key(const char *path, u64 key[2])
{
	static const u64 fixed[2][2] = {
		{ 0x7065726672656461ULL, 0x6374206b65792031ULL },
		{ 0x7065726672656461ULL, 0x6374206b65792032ULL },
	};
	char buf[4096];
	ssize_t n;
	int fd = open(path, O_RDONLY);

	if (fd < 0) {
		int err = -errno;

		pr_err("--redact-key: can't open %s: %m\n", path);
		return err;
	}
	n = read(fd, buf, sizeof(buf));
	close(fd);
	if (n < 16) {
		pr_err("--redact-key: %s holds %s, at least 16 bytes of a secret are needed (head -c 32 /dev/urandom > %s)\n",
		       path, n < 0 ? "nothing readable" : "less", path);
		return -EINVAL;
	}
	key[0] = redact__siphash(fixed[0], buf, n);
	key[1] = redact__siphash(fixed[1], buf, n);
	return 0;
}

struct redact *redact__new(unsigned int classes, const char *key_file, bool basenames)
{
	struct redact *redact = zalloc(sizeof(*redact));
	int err;

	if (!redact)
		return ERR_PTR(-ENOMEM);
	redact->classes = classes;
	redact->basenames = basenames;
	if (key_file) {
		err = redact__read_key(key_file, redact->key);
	} else {
		err = getrandom(redact->key, sizeof(redact->key), 0) == sizeof(redact->key) ?
		      0 : -errno;
		if (err)
			pr_err("--redact: no random key: %m\n");
	}
	if (err) {
		free(redact);
		return ERR_PTR(err);
	}
	return redact;
}

void redact__delete(struct redact *redact)
{
	free(redact);
}

void redact__token(struct redact *redact, enum redact_class class, u32 where,
		   const char *name, size_t len, char *buf)
{
	/* Letters after 'f': a token is never read as a hexadecimal number. */
	static const char letters[] = "ghijklmnopqrstuvwxyz";
	const char *nul = memchr(name, '\0', len);
	u64 hash = redact__siphash(redact->key, name, nul ? (size_t)(nul - name) : len);
	int i;

	buf[0] = '~';
	for (i = 1; i < REDACT_TOKEN_LEN; i++) {
		buf[i] = letters[hash % (sizeof(letters) - 1)];
		hash /= sizeof(letters) - 1;
	}
	buf[REDACT_TOKEN_LEN] = '\0';
	if (where < PERF_RECORD_HEADER_MAX)
		redact->tokens[class][where]++;
}

/*
 * @path with each component a token, into @buf of @size bytes: the length
 * written or -ENAMETOOLONG.
 */
static ssize_t redact__components(struct redact *redact, enum redact_class class, u32 where,
				  const char *path, char *buf, size_t size)
{
	size_t pos = 0;

	while (*path) {
		size_t n = strcspn(path, "/");

		if (!n) {
			if (pos + 1 >= size)
				return -ENAMETOOLONG;
			buf[pos++] = *path++;
			continue;
		}
		if (pos + REDACT_TOKEN_LEN >= size)
			return -ENAMETOOLONG;
		redact__token(redact, class, where, path, n, buf + pos);
		pos += REDACT_TOKEN_LEN;
		path += n;
	}
	if (pos >= size)
		return -ENAMETOOLONG;
	buf[pos] = '\0';
	return pos;
}

int redact__path(struct redact *redact, enum redact_class class, u32 where,
		 const char *path, char *buf, size_t size)
{
	ssize_t n = redact__components(redact, class, where, path, buf, size);

	return n < 0 ? n : 0;
}

/*
 * The directories a distribution installs into: their names are those of
 * every machine of the distribution.  /usr/local, /opt, /home, /srv, /tmp,
 * /var and the roots of containers are the user's.
 */
static size_t redact__system_prefix(const char *path)
{
	static const char * const dirs[] = {
		"/usr/", "/lib/", "/lib32/", "/lib64/", "/libx32/", "/bin/", "/sbin/",
		/* Names perf gives a meaning to: anonymous memory */
		"//anon", "/dev/zero", "/anon_hugepage", "/SYSV",
	};
	size_t i;

	if (strstarts(path, "/usr/local/"))
		return 0;
	if (is_perf_pid_map_name(path))
		return SIZE_MAX;
	/* The kernel release, in the paths of modules, names the machine */
	if (strstarts(path, "/lib/modules/"))
		return strlen("/lib/modules/");
	if (strstarts(path, "/usr/lib/modules/"))
		return strlen("/usr/lib/modules/");
	for (i = 0; i < ARRAY_SIZE(dirs); i++) {
		if (strstarts(path, dirs[i]))
			return SIZE_MAX;
	}
	return 0;
}

void redact__path_names(const struct redact *redact, const char *path, size_t *start,
			size_t *end)
{
	size_t len = strlen(path), prefix = redact__system_prefix(path);
	const char *base = strrchr(path, '/');

	*start = *end = 0;
	if (path[0] != '/' || !base || prefix == SIZE_MAX)
		return;
	*start = prefix;
	if (prefix) {
		/* The release only: the rest is the distribution's */
		*end = prefix + strcspn(path + prefix, "/");
		return;
	}
	*end = redact->basenames ? len : (size_t)(base - path);
}

int redact__file_path(struct redact *redact, u32 where, const char *path, char *buf,
		      size_t size)
{
	size_t start, end, rest;
	char *names;
	ssize_t n;

	redact__path_names(redact, path, &start, &end);
	rest = strlen(path + end);
	if (start + rest >= size)
		return -ENAMETOOLONG;
	names = strndup(path + start, end - start);
	if (!names)
		return -ENOMEM;
	memcpy(buf, path, start);
	n = redact__components(redact, REDACT_PATHS, where, names, buf + start,
			       size - start - rest);
	free(names);
	if (n < 0)
		return n;
	memcpy(buf + start + n, path + end, rest + 1);
	return 0;
}

int redact__feature_class(const struct redact *redact, int feat)
{
	enum redact_class class;

	switch (feat) {
	case HEADER_CMDLINE:
		class = REDACT_CMDLINE;
		break;
	case HEADER_HOSTNAME:
	case HEADER_OSRELEASE:
	/* The kernel release, of a perf built with its kernel */
	case HEADER_VERSION:
	case HEADER_CPUDESC:
	case HEADER_CPUID:
	case HEADER_TOTAL_MEM:
	case HEADER_CPU_TOPOLOGY:
	case HEADER_NUMA_TOPOLOGY:
	case HEADER_MEM_TOPOLOGY:
	case HEADER_CACHE:
	case HEADER_HYBRID_TOPOLOGY:
	case HEADER_CPU_PMU_CAPS:
	case HEADER_PMU_CAPS:
		class = REDACT_HOST;
		break;
	default:
		return -1;
	}
	return redact__has(redact, class) ? (int)class : -1;
}

void redact__count(struct redact *redact, enum redact_class class, u32 where)
{
	if (redact && where < PERF_RECORD_HEADER_MAX)
		redact->dropped[class][where]++;
}

/* "@sep @count @what (in TYPE n, ...)" of the @counts of a class by record type */
static void redact__print_counts(const char *sep, const char *what, const u64 *counts)
{
	char buf[256] = "";
	size_t n = 0;
	u64 total = 0;
	u32 type;

	for (type = 0; type < PERF_RECORD_HEADER_MAX; type++) {
		if (!counts[type])
			continue;
		total += counts[type];
		n += scnprintf(buf + n, sizeof(buf) - n, "%s%s %" PRIu64, n ? ", " : " (in ",
			       perf_event__name(type), counts[type]);
	}
	pr_info("%s %" PRIu64 " %s%s%s", sep, total, what, buf, n ? ")" : "");
}

void redact__print_stats(const struct redact *redact)
{
	int i;

	if (!redact)
		return;
	for (i = 0; i < REDACT__MAX; i++) {
		if (!(redact->classes & (1U << i)))
			continue;
		pr_info("--redact=%s", redact__names[i]);
		redact__print_counts(":", "names replaced by tokens", redact->tokens[i]);
		redact__print_counts(",", "fields dropped or zeroed", redact->dropped[i]);
		pr_info("\n");
	}
}
