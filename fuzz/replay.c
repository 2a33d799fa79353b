// SPDX-License-Identifier: GPL-2.0
/*
 * Run a fuzz harness once on each file given, without libFuzzer: the corpus
 * replayed by the normal build. Exits non-zero if a file can't be read; a
 * harness check that fails aborts.
 */
#include <errno.h>
#include <string.h>

#include "fuzz.h"

static int replay(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *data = NULL;
	size_t size = 0, alloc = 0, n;

	if (!f) {
		fprintf(stderr, "%s: %s\n", path, strerror(errno));
		return -1;
	}
	do {
		if (size == alloc) {
			alloc = alloc ? alloc * 2 : 4096;
			data = realloc(data, alloc);
			if (!data) {
				fclose(f);
				fprintf(stderr, "%s: out of memory\n", path);
				return -1;
			}
		}
		n = fread(data + size, 1, alloc - size, f);
		size += n;
	} while (n);
	fclose(f);

	LLVMFuzzerTestOneInput(data, size);
	free(data);
	return 0;
}

int main(int argc, char **argv)
{
	int i, err = 0;

	for (i = 1; i < argc; i++) {
		if (replay(argv[i]))
			err = 1;
	}
	printf("%d input(s) replayed\n", argc - 1);
	return err;
}
