/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  nodemap.c - a number per node as the site writes it (see nodemap.h).
\*****************************************************************************/

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "number.h"
#include "nodemap.h"

static int _fail(char *err, size_t errlen, const char *key,
		 const char *entry, const char *why)
{
	if (err && errlen)
		snprintf(err, errlen, "%s: '%.60s': %s", key, entry, why);
	return -1;
}

/* A hostlist's form: names of letters, digits, '-', '_' and '.', with
 * bracketed ranges ("n[1-4,7]") not nested; no ':' or ';'. */
static bool _hostlist_ok(const char *s, size_t len)
{
	bool in = false;

	if (!len)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == '[') {
			if (in)
				return false;
			in = true;
		} else if (c == ']') {
			if (!in)
				return false;
			in = false;
		} else if (c == ',' && !in) {
			/* a comma between names would end the whole
			 * SchedulerParameters key */
			return false;
		} else if (!((c >= 'a' && c <= 'z') ||
			     (c >= 'A' && c <= 'Z') ||
			     (c >= '0' && c <= '9') || c == '-' ||
			     c == '_' || c == '.' || (in && c == ','))) {
			return false;
		}
	}
	return !in;
}

extern int libra_node_map_parse(libra_node_map_t *m, const char *key,
				double max, const char *spec, char *err,
				size_t errlen)
{
	const libra_range_t range = { .min = 0.0, .min_open = true,
				      .max = max };
	libra_node_map_t tmp;
	const char *s = spec;

	memset(&tmp, 0, sizeof(tmp));
	if (!spec || !*spec || !strcmp(spec, "none")) {
		*m = tmp;
		return 0;
	}
	while (*s) {
		const char *end = strchr(s, ';'), *colon;
		size_t len = end ? (size_t) (end - s) : strlen(s), hl;
		char entry[LIBRA_NODE_MAP_NODES_LEN + 64], num[64], why[160];
		double v;

		snprintf(entry, sizeof(entry), "%.*s", (int) len, s);
		if (!len)
			return _fail(err, errlen, key, spec,
				     "an empty entry (entries are HOSTLIST:VALUE, ';' between them)");
		if (tmp.n == LIBRA_NODE_MAP_MAX)
			return _fail(err, errlen, key, entry,
				     "more than 32 entries");
		colon = memchr(s, ':', len);
		if (!colon)
			return _fail(err, errlen, key, entry,
				     "expected HOSTLIST:VALUE, e.g. n[1-16]:0.5");
		hl = (size_t) (colon - s);
		if (hl >= LIBRA_NODE_MAP_NODES_LEN)
			return _fail(err, errlen, key, entry,
				     "the hostlist is longer than 127 characters");
		if (!_hostlist_ok(s, hl))
			return _fail(err, errlen, key, entry,
				     "not a hostlist (names, and ranges in brackets such as n[1-4,7])");
		snprintf(num, sizeof(num), "%.*s", (int) (len - hl - 1),
			 colon + 1);
		if (libra_parse_number("value", num, &range, &v, why,
				       sizeof(why)))
			return _fail(err, errlen, key, entry, why);
		memcpy(tmp.e[tmp.n].nodes, s, hl);
		tmp.e[tmp.n].nodes[hl] = '\0';
		tmp.e[tmp.n].value = v;
		tmp.n++;
		s += len;
		if (*s == ';' && !*++s)
			return _fail(err, errlen, key, spec,
				     "ends with ';' (entries are HOSTLIST:VALUE, ';' between them)");
	}
	*m = tmp;
	return 0;
}

extern char *libra_hostlist_next(char *s, char **save)
{
	char *tok, *c;
	int depth = 0;

	if (s)
		*save = s;
	for (tok = *save; tok && *tok == ','; tok++)
		;
	if (!tok || !*tok)
		return NULL;
	for (c = tok; *c && (*c != ',' || depth > 0); c++) {
		if (*c == '[')
			depth++;
		else if (*c == ']' && depth > 0)
			depth--;
	}
	if (*c)
		*c++ = '\0';
	*save = c;
	return tok;
}

extern void libra_node_map_format(const libra_node_map_t *m, char *buf,
				   size_t len)
{
	size_t used = 0;

	if (!len)
		return;
	buf[0] = '\0';
	if (!m->n) {
		snprintf(buf, len, "none");
		return;
	}
	for (int i = 0; i < m->n && used < len; i++)
		used += (size_t) snprintf(buf + used, len - used, "%s%s:%.15g",
					  i ? ";" : "", m->e[i].nodes,
					  m->e[i].value);
}
