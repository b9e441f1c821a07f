/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  statefile.c - small text files of state (see statefile.h).
\*****************************************************************************/

#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "statefile.h"

extern int libra_statefile_read(const char *text, const char *name,
				const char *magic, int version,
				libra_line_fn *fn, void *arg,
				libra_report_fn *report, void *rarg)
{
	char head[64], why[256], msg[512], *line = NULL;
	size_t cap = 0;
	int lineno = 0, read = 0;
	bool headed = false;

	snprintf(head, sizeof(head), "%s %d", magic, version);
	while (*text) {
		const char *eol = strchr(text, '\n');
		size_t n = eol ? (size_t) (eol - text) : strlen(text);

		lineno++;
		if (n + 1 > cap) {
			char *grown = realloc(line, n + 1);

			if (!grown) {
				snprintf(msg, sizeof(msg),
					 "%s:%d: out of memory; the rest is not read",
					 name, lineno);
				report(rarg, msg);
				break;
			}
			line = grown;
			cap = n + 1;
		}
		memcpy(line, text, n);
		line[n] = '\0';
		text += eol ? n + 1 : n;
		if (!headed) {
			if (strcmp(line, head)) {
				snprintf(msg, sizeof(msg),
					 "%s:%d: not \"%s\" (another version's file, or not such a file); nothing read from it",
					 name, lineno, head);
				report(rarg, msg);
				free(line);
				return -1;
			}
			headed = true;
			continue;
		}
		if (!line[strspn(line, " \t")] || line[0] == '#')
			continue;
		why[0] = '\0';
		if (fn(arg, line, why, sizeof(why))) {
			snprintf(msg, sizeof(msg), "%s:%d: %s; line skipped",
				 name, lineno, why);
			report(rarg, msg);
		} else {
			read++;
		}
	}
	free(line);
	if (!headed) {
		snprintf(msg, sizeof(msg), "%s: empty, not \"%s\"; nothing read",
			 name, head);
		report(rarg, msg);
		return -1;
	}
	return read;
}

extern int libra_fields_format(const libra_field_t *f, int n, const void *rec,
			       char *buf, size_t len, size_t *pos)
{
	for (int i = 0; i < n; i++) {
		const char *p = (const char *) rec + f[i].offset;
		size_t left = *pos < len ? len - *pos : 0;
		int w = 0;

		switch (f[i].type) {
		case LIBRA_FIELD_U32:
			w = snprintf(buf + *pos, left, " %s=%" PRIu32, f[i].key,
				     *(const uint32_t *) p);
			break;
		case LIBRA_FIELD_INT:
			w = snprintf(buf + *pos, left, " %s=%d", f[i].key,
				     *(const int *) p);
			break;
		case LIBRA_FIELD_U64:
			w = snprintf(buf + *pos, left, " %s=%" PRIu64, f[i].key,
				     *(const uint64_t *) p);
			break;
		case LIBRA_FIELD_DOUBLE:
			w = snprintf(buf + *pos, left, " %s=%.17g", f[i].key,
				     *(const double *) p);
			break;
		case LIBRA_FIELD_BOOL:
			w = snprintf(buf + *pos, left, " %s=%d", f[i].key,
				     *(const bool *) p ? 1 : 0);
			break;
		case LIBRA_FIELD_STR:
			if (p[strcspn(p, " \t\n")])
				return -1;	/* would not read back */
			w = snprintf(buf + *pos, left, " %s=%s", f[i].key, p);
			break;
		}
		if (w < 0 || (size_t) w >= left)
			return -1;
		*pos += (size_t) w;
	}
	return 0;
}

/* One value into its field; false when it does not read. */
static bool _field_value(const libra_field_t *f, const char *v, void *rec)
{
	char *p = (char *) rec + f->offset, *end;
	unsigned long long u;
	long long s;

	errno = 0;
	switch (f->type) {
	case LIBRA_FIELD_U32:
	case LIBRA_FIELD_U64:
		if (*v == '-' || *v == '+')
			return false;
		u = strtoull(v, &end, 10);
		if (errno || end == v || *end ||
		    (f->type == LIBRA_FIELD_U32 && u > UINT32_MAX))
			return false;
		if (f->type == LIBRA_FIELD_U32)
			*(uint32_t *) p = (uint32_t) u;
		else
			*(uint64_t *) p = (uint64_t) u;
		return true;
	case LIBRA_FIELD_INT:
		s = strtoll(v, &end, 10);
		if (errno || end == v || *end || s < -2147483647LL - 1 ||
		    s > 2147483647LL)
			return false;
		*(int *) p = (int) s;
		return true;
	case LIBRA_FIELD_DOUBLE:
		*(double *) p = strtod(v, &end);
		return !errno && end != v && !*end;
	case LIBRA_FIELD_BOOL:
		if (strcmp(v, "0") && strcmp(v, "1"))
			return false;
		*(bool *) p = *v == '1';
		return true;
	case LIBRA_FIELD_STR:
		if (strlen(v) >= f->size)
			return false;
		strcpy(p, v);
		return true;
	}
	return false;
}

extern int libra_fields_parse(const libra_field_t *f, int n, char *line,
			      void *rec, const char *extra, char **extra_val,
			      char *why, size_t len)
{
	bool seen[LIBRA_FIELDS_MAX] = { false }, extra_seen = false;
	char *save = NULL;

	if (n > LIBRA_FIELDS_MAX) {
		snprintf(why, len, "internal error: %d fields", n);
		return -1;
	}
	if (extra_val)
		*extra_val = NULL;
	for (char *w = strtok_r(line, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		char *eq = strchr(w, '=');
		int i;

		if (!eq) {
			snprintf(why, len, "\"%.40s\" is not key=value", w);
			return -1;
		}
		*eq = '\0';
		if (extra && !strcmp(w, extra)) {
			if (extra_seen) {
				snprintf(why, len, "%s given twice", w);
				return -1;
			}
			extra_seen = true;
			*extra_val = eq + 1;
			continue;
		}
		for (i = 0; i < n && strcmp(f[i].key, w); i++)
			;
		if (i == n) {
			snprintf(why, len, "unknown key %.40s", w);
			return -1;
		}
		if (seen[i]) {
			snprintf(why, len, "%s given twice", w);
			return -1;
		}
		if (!_field_value(&f[i], eq + 1, rec)) {
			snprintf(why, len, "%s: \"%.40s\" does not read", w,
				 eq + 1);
			return -1;
		}
		seen[i] = true;
	}
	for (int i = 0; i < n; i++) {
		if (!seen[i]) {
			snprintf(why, len, "%s missing", f[i].key);
			return -1;
		}
	}
	if (extra && !extra_seen) {
		snprintf(why, len, "%s missing", extra);
		return -1;
	}
	return 0;
}

extern int libra_write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t n = write(fd, buf, len);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!n)
				errno = EIO;
			return -1;
		}
		buf += n;
		len -= (size_t) n;
	}
	return 0;
}
