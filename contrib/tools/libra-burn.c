/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra-burn - burn exactly the given CPU time, then exit.
 *
 *  usage: libra-burn SECONDS [REPORT_FILE]
 *
 *  A CPU-bound test job whose runtime estimate is exact: it spins until its
 *  own CPU time (CLOCK_PROCESS_CPUTIME_ID) reaches SECONDS, however the CPU
 *  is shared, and prints "burned S cpu in W wall from T" (to REPORT_FILE if
 *  given), T the wall-clock time it began (seconds since the epoch): on a
 *  loaded machine a task can begin seconds after its step was launched.
 *  Used by the integration tests and the demonstration workload.
\*****************************************************************************/

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double _now(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	volatile unsigned long spin = 0;
	double target, start, began;
	char *end;
	FILE *out = stdout;

	if (argc < 2 || argc > 3) {
		fprintf(stderr, "usage: libra-burn SECONDS [REPORT_FILE]\n");
		return 2;
	}
	errno = 0;
	target = strtod(argv[1], &end);
	if (*end || errno || !(target >= 0.0) || target > 1e6) {
		fprintf(stderr, "libra-burn: '%s' is not a number of seconds\n",
			argv[1]);
		return 2;
	}
	start = _now(CLOCK_MONOTONIC);
	began = _now(CLOCK_REALTIME);
	while (_now(CLOCK_PROCESS_CPUTIME_ID) < target)
		for (int i = 0; i < 100000; i++)
			spin++;
	if (argc == 3 && !(out = fopen(argv[2], "a"))) {
		perror(argv[2]);
		return 1;
	}
	fprintf(out, "burned %.2f cpu in %.2f wall from %.3f\n",
		_now(CLOCK_PROCESS_CPUTIME_ID), _now(CLOCK_MONOTONIC) - start,
		began);
	return out == stdout ? 0 : fclose(out) != 0;
}
