// SPDX-License-Identifier: GPL-2.0
/*
 * The copy perf inject --aslr makes of a jitted object (jitted-PID-N.so of
 * perf inject --jit, tools/perf/util/aslr-dso.c): the input is the object,
 * aslr_dso__copy_jitted() reads it with its own ELF reader (no libelf) and
 * writes the copy.  The seeds are objects perf inject --jit wrote.
 *
 * Checked besides "no crash": each string passed to the rename callback is
 * inside the copy and has no NUL in it; a copy is written as big as the
 * object, with a build-id of at most BUILD_ID_SIZE bytes in its name; a
 * refused object leaves no file.
 */
#include <dirent.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz.h"
#include "fuzz-perf.h"
#include "util/aslr-dso.h"

static char dir[] = "/tmp/perf-fuzz-aslr-dso.XXXXXX";
static char src[sizeof(dir) + 32], out[sizeof(dir) + 8];

static void cleanup(void)
{
	unlink(src);
	rmdir(out);
	rmdir(dir);
}

static void setup(void)
{
	if (!fuzz_perf__setup_once(dir, cleanup))
		return;
	snprintf(src, sizeof(src), "%s/jitted-1-2.so", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	FUZZ_CHECK(mkdir(out, 0755) == 0);
}

/* The rename callback: the string is readable and writable (ASan). */
static void rename_string(void *ctx __maybe_unused, char *s, size_t len)
{
	size_t i;

	FUZZ_CHECK(len > 0);
	for (i = 0; i < len; i++) {
		FUZZ_CHECK(s[i] != '\0');
		s[i] = s[i] == '7' ? 'X' : s[i];
	}
}

/* The files in out/: none, or the copy, removed. */
static int files_out(const char *copy)
{
	struct dirent *d;
	DIR *dh = opendir(out);
	int n = 0;

	FUZZ_CHECK(dh);
	while ((d = readdir(dh))) {
		char path[sizeof(out) + 256];

		if (d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s", out, d->d_name);
		FUZZ_CHECK(copy && !strcmp(path, copy));
		unlink(path);
		n++;
	}
	closedir(dh);
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *copy = NULL;
	struct stat st;
	int fd, err;

	setup();
	fd = open(src, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	FUZZ_CHECK(fd >= 0);
	FUZZ_CHECK(write(fd, data, size) == (ssize_t)size);
	close(fd);

	err = aslr_dso__copy_jitted(src, out, rename_string, NULL, &copy);
	if (err) {
		FUZZ_CHECK(!copy);
		FUZZ_CHECK(files_out(NULL) == 0);
		return 0;
	}
	FUZZ_CHECK(copy);
	/* jitted-1-2-BUILDID.so: at most 16 hex digits of it in the name */
	FUZZ_CHECK(strlen(copy) <= strlen(out) + strlen("/jitted-1-2-") + 16 + 3);
	FUZZ_CHECK(stat(copy, &st) == 0 && (size_t)st.st_size == size);
	FUZZ_CHECK(files_out(copy) == 1);
	free(copy);
	return 0;
}
