/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  driver.c - a plain main() for the fuzz targets, so that they are built
 *  and exercised with any compiler (gcc, valgrind) when libFuzzer is not
 *  available: every file named, and every file in every directory named,
 *  is fed once to LLVMFuzzerTestOneInput().
\*****************************************************************************/

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz.h"

static int _run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	uint8_t *buf = NULL;
	size_t len = 0, cap = 0, n;

	if (!f) {
		perror(path);
		return -1;
	}
	for (;;) {
		if (len == cap) {
			uint8_t *nb;

			cap = cap ? 2 * cap : 4096;
			if (!(nb = realloc(buf, cap))) {
				free(buf);
				fclose(f);
				return -1;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len, f);
		if (!n)
			break;
		len += n;
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int _run(const char *path, int *count)
{
	struct stat st;
	struct dirent **names;
	int n, rc = 0;

	if (stat(path, &st) < 0) {
		perror(path);
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		if (_run_file(path))
			return -1;
		(*count)++;
		return 0;
	}
	if ((n = scandir(path, &names, NULL, alphasort)) < 0) {
		perror(path);
		return -1;
	}
	for (int i = 0; i < n; i++) {
		char sub[4096];

		if (names[i]->d_name[0] != '.' &&
		    strcmp(names[i]->d_name, "README.md")) {
			snprintf(sub, sizeof(sub), "%s/%s", path,
				 names[i]->d_name);
			if (_run(sub, count))
				rc = -1;
		}
		free(names[i]);
	}
	free(names);
	return rc;
}

int main(int argc, char **argv)
{
	int count = 0, rc = 0;

	for (int i = 1; i < argc; i++)
		if (_run(argv[i], &count))
			rc = 1;
	printf("%s: %d inputs, no finding\n", argv[0], count);
	return rc;
}
