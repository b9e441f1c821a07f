/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  fuzz.h - shared by the fuzz targets: the libFuzzer entry point and an
 *  assertion that survives NDEBUG and reports what it saw.
\*****************************************************************************/

#ifndef LIBRA_FUZZ_H
#define LIBRA_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A contract violation: print and abort, which libFuzzer reports as a
 * crash and saves the input for. */
#define FUZZ_ASSERT(cond, ...)						\
	do {								\
		if (!(cond)) {						\
			fprintf(stderr, "%s:%d: contract violated: %s: ",\
				__FILE__, __LINE__, #cond);		\
			fprintf(stderr, __VA_ARGS__);			\
			fputc('\n', stderr);				\
			abort();					\
		}							\
	} while (0)

/* The input as a NUL-terminated string (embedded NULs cut it short,
 * as they would in a C string from Slurm). */
static inline char *fuzz_text(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		abort();
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* An error buffer must be a terminated string. */
static inline void fuzz_check_err(const char *err, size_t len)
{
	FUZZ_ASSERT(memchr(err, '\0', len) != NULL, "unterminated message");
}

/* Doubles equal bit for bit. */
static inline int fuzz_same(double a, double b)
{
	return memcmp(&a, &b, sizeof(a)) == 0;
}

#endif /* LIBRA_FUZZ_H */
