/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sla.c - the SLA record and the --comment grammar (see sla.h).
 *
 *  Parsing happens on a private copy and into a private record; the caller's
 *  record is written only when everything parsed and checked, and zeroed
 *  otherwise.  Every message starts with the key it is about, so that a user
 *  reading "budget: '12x' is not a number" knows what to fix.  Merging
 *  and completing a parsed SLA are in sla_finish.c.
\*****************************************************************************/

#include <ctype.h>
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "number.h"
#include "sla.h"
#include "sla_int.h"

const libra_name_t libra_deadline_type_names[] = {
	{ LIBRA_DEADLINE_HARD,	"hard" },
	{ LIBRA_DEADLINE_SOFT,	"soft" },
	{ 0, NULL }
};

const libra_name_t libra_tier_names[] = {
	{ LIBRA_TIER_NONE,	"none" },	/* no tier: not a value of tier= */
	{ LIBRA_TIER_VALUE,	"value" },
	{ LIBRA_TIER_STANDARD,	"standard" },
	{ LIBRA_TIER_PREMIUM,	"premium" },
	{ 0, NULL }
};

const libra_name_t libra_opt_names[] = {
	{ LIBRA_OPT_COST,	"cost" },
	{ LIBRA_OPT_TIME,	"time" },
	{ 0, NULL }
};

/* A LIBRA_SLA_VAL_WORD field is written as an int. */
_Static_assert(sizeof(libra_deadline_type_t) == sizeof(int) &&
	       sizeof(libra_tier_t) == sizeof(int) &&
	       sizeof(libra_opt_t) == sizeof(int), "enums are ints");
_Static_assert(sizeof(((libra_sla_t *) 0)->quote) == sizeof(uint32_t),
	       "a quote's number is a uint32_t");

/*
 * The keys of the grammar, each with its field and the SPANK option that
 * sets it; an alias right after its key.  "quote" is "hold", or the number
 * of a quote to take: that quote carries the SLA, so no other key may be
 * given with it (libra_sla_check_quote()).  The SPANK options keep this
 * order in sbatch --help.
 */
#define OFF(f) offsetof(libra_sla_t, f)
const libra_sla_key_t sla_keys[] = {
	{ .key = "runtime", .bit = LIBRA_SLA_RUNTIME, .term = true,
	  .val = LIBRA_SLA_VAL_DURATION, .off = OFF(runtime),
	  .option = "runtime", .arginfo = "DURATION",
	  .help = "slurm-libra: CPU time per CPU the job needs at full speed "
		  "(e.g. 30m, 2h)" },
	{ .key = "deadline", .bit = LIBRA_SLA_DEADLINE, .term = true,
	  .val = LIBRA_SLA_VAL_WHEN, .off = OFF(deadline) },
	{ .key = "budget", .bit = LIBRA_SLA_BUDGET, .term = true,
	  .val = LIBRA_SLA_VAL_MONEY, .off = OFF(budget),
	  .option = "budget", .arginfo = "AMOUNT",
	  .help = "slurm-libra: the most you will pay for the job" },
	{ .key = "penalty", .bit = LIBRA_SLA_PENALTY, .term = true,
	  .val = LIBRA_SLA_VAL_MONEY, .off = OFF(penalty_rate),
	  .option = "penalty", .arginfo = "RATE",
	  .help = "slurm-libra: paid back to you per hour past the deadline" },
	{ .key = "penalty_cap", .bit = LIBRA_SLA_PENALTY_CAP, .term = true,
	  .val = LIBRA_SLA_VAL_MONEY, .off = OFF(penalty_cap),
	  .option = "penalty-cap", .arginfo = "AMOUNT",
	  .help = "slurm-libra: bound on the total penalty" },
	{ .key = "type", .bit = LIBRA_SLA_TYPE, .term = true,
	  .val = LIBRA_SLA_VAL_WORD, .off = OFF(type),
	  .words = libra_deadline_type_names,
	  .option = "deadline-type", .arginfo = "hard|soft",
	  .help = "slurm-libra: hard (end the job at the deadline) or soft "
		  "(run late, penalty accrues)",
	  .sbatch_checks = true },
	{ .key = "duedate", .bit = LIBRA_SLA_DUEDATE, .term = true,
	  .val = LIBRA_SLA_VAL_WHEN, .off = OFF(due_date),
	  .option = "duedate", .arginfo = "WHEN",
	  .help = "slurm-libra: soft target before the deadline: full price "
		  "by then, less up to the deadline" },
	{ .key = "due", .bit = LIBRA_SLA_DUEDATE,	/* duedate, shorter */
	  .val = LIBRA_SLA_VAL_WHEN, .off = OFF(due_date) },
	{ .key = "tier", .bit = LIBRA_SLA_TIER, .term = true,
	  .val = LIBRA_SLA_VAL_WORD, .off = OFF(tier),
	  .words = libra_tier_names + 1,
	  .option = "tier", .arginfo = "value|standard|premium",
	  .help = "slurm-libra: mark-up tier of the price" },
	{ .key = "quote", .bit = LIBRA_SLA_QUOTE,
	  .val = LIBRA_SLA_VAL_QUOTE, .off = OFF(quote) },
	{ .key = "opt", .bit = LIBRA_SLA_OPT,
	  .val = LIBRA_SLA_VAL_WORD, .off = OFF(opt),
	  .words = libra_opt_names,
	  .option = "optimize", .arginfo = "cost|time",
	  .help = "slurm-libra: the cheapest finish by the deadline (cost, the "
		  "default) or the earliest (time, priced higher)",
	  .sbatch_checks = true },
};
#undef OFF
#define SLA_NKEYS (sizeof(sla_keys) / sizeof(sla_keys[0]))
_Static_assert(SLA_NKEYS == LIBRA_SLA_NKEYS, "LIBRA_SLA_NKEYS is the table's");

extern const libra_sla_key_t *libra_sla_key_at(size_t i)
{
	return i < SLA_NKEYS ? &sla_keys[i] : NULL;
}

extern const libra_sla_key_t *libra_sla_key_of_env(const char *name,
						   size_t len)
{
	for (size_t k = 0; k < SLA_NKEYS; k++) {
		const char *o = sla_keys[k].option;
		size_t i = 0;

		if (!o || strlen(o) != len)
			continue;
		while (i < len && name[i] == (o[i] == '-' ? '_' : o[i]))
			i++;
		if (i == len)
			return &sla_keys[k];
	}
	return NULL;
}

/* "runtime, deadline, ..., duedate (due), ...": an alias in parentheses
 * after its key. */
static const char *_known_keys(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < SLA_NKEYS && used < len; k++) {
		bool alias = k && sla_keys[k].bit == sla_keys[k - 1].bit;

		used += (size_t) snprintf(buf + used, len - used,
					  alias ? " (%s)" : k ? ", %s" : "%s",
					  sla_keys[k].key);
	}
	return buf;
}

extern const char *libra_sla_term(size_t i, uint32_t *bit)
{
	for (size_t k = 0; k < SLA_NKEYS; k++)
		if (sla_keys[k].term && !i--) {
			*bit = sla_keys[k].bit;
			return sla_keys[k].key;
		}
	return NULL;
}

extern uint32_t libra_sla_term_bit(const char *key)
{
	for (size_t k = 0; k < SLA_NKEYS; k++)
		if (sla_keys[k].term && !strcmp(sla_keys[k].key, key))
			return sla_keys[k].bit;
	return 0;
}

extern libra_sla_err_t sla_fail(char *err, size_t errlen, libra_sla_err_t code,
				const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return code;
}

extern const char *libra_sla_strerror(libra_sla_err_t err)
{
	switch (err) {
	case LIBRA_SLA_OK:		return "ok";
	case LIBRA_SLA_ESYNTAX:		return "syntax error";
	case LIBRA_SLA_EKEY:		return "unknown key";
	case LIBRA_SLA_EDUP:		return "duplicate or conflicting key";
	case LIBRA_SLA_EVALUE:		return "invalid value";
	case LIBRA_SLA_ERANGE:		return "value out of range";
	case LIBRA_SLA_EDEADLINE:	return "deadline not after runtime";
	case LIBRA_SLA_EMISSING:	return "missing field";
	case LIBRA_SLA_ETOOLONG:	return "too long";
	}
	return "unknown error";
}

static const char *_skip_space(const char *s)
{
	while (*s == ' ' || *s == '\t')
		s++;
	return s;
}

/* The key named key[0..len), or NULL. */
static const libra_sla_key_t *_key(const char *key, size_t len)
{
	for (size_t i = 0; i < SLA_NKEYS; i++) {
		if (strlen(sla_keys[i].key) == len &&
		    !strncmp(sla_keys[i].key, key, len))
			return &sla_keys[i];
	}
	return NULL;
}

static uint32_t _key_bit(const char *key, size_t len)
{
	const libra_sla_key_t *k = _key(key, len);

	return k ? k->bit : 0;
}

extern uint32_t libra_sla_err_field(const char *err, const char **why)
{
	size_t len = strcspn(err, ":");
	uint32_t bit = err[len] == ':' ? _key_bit(err, len) : 0;

	if (why) {
		*why = err;
		if (bit)
			for (*why += len + 1; **why == ' '; (*why)++)
				;
	}
	return bit;
}

/*
 * Edit distance of a and b, letters compared without case, an adjacent
 * transposition counting as one edit (optimal string alignment).  Only
 * short keys are compared: longer ones are far from every SLA key.
 */
#define SLA_KEY_CMP_MAX 16
static int _distance(const char *a, size_t la, const char *b, size_t lb)
{
	int d[SLA_KEY_CMP_MAX + 1][SLA_KEY_CMP_MAX + 1];

	if (la > SLA_KEY_CMP_MAX || lb > SLA_KEY_CMP_MAX)
		return SLA_KEY_CMP_MAX;
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int) i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int) j;
	for (size_t i = 1; i <= la; i++) {
		for (size_t j = 1; j <= lb; j++) {
			int cost = tolower((unsigned char) a[i - 1]) !=
				   tolower((unsigned char) b[j - 1]);
			int v = d[i - 1][j - 1] + cost;

			if (d[i - 1][j] + 1 < v)
				v = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < v)
				v = d[i][j - 1] + 1;
			if (i > 1 && j > 1 &&
			    tolower((unsigned char) a[i - 1]) ==
			    tolower((unsigned char) b[j - 2]) &&
			    tolower((unsigned char) a[i - 2]) ==
			    tolower((unsigned char) b[j - 1]) &&
			    d[i - 2][j - 2] + 1 < v)
				v = d[i - 2][j - 2] + 1;
			d[i][j] = v;
		}
	}
	return d[la][lb];
}

extern const char *libra_sla_key_suggest(const char *key, size_t len)
{
	const char *best = NULL;
	int best_d = 3;

	if (_key_bit(key, len))
		return NULL;
	for (size_t i = 0; i < SLA_NKEYS; i++) {
		size_t kl = strlen(sla_keys[i].key);
		int d = _distance(key, len, sla_keys[i].key, kl);

		/* two edits of a long key, one of a short one */
		if (d > (kl >= LIBRA_SLA_LONG_KEY ? 2 : 1) || d >= best_d)
			continue;
		best = sla_keys[i].key;
		best_d = d;
	}
	return best;
}

/*
 * The key of one comma-separated field "key=value": its start and length
 * (blanks around it trimmed), false when the field has no '=' or nothing
 * before it.
 */
static bool _text_key(const char *field, size_t flen, const char **key,
		      size_t *klen)
{
	const char *eq = memchr(field, '=', flen);
	const char *end;

	if (!eq)
		return false;
	field = _skip_space(field);
	for (end = eq; end > field && (end[-1] == ' ' || end[-1] == '\t');
	     end--)
		;
	if (end <= field)
		return false;
	*key = field;
	*klen = (size_t) (end - field);
	return true;
}

/*
 * Does field "key=value" (key klen bytes at its start) make a comment an
 * SLA?  A long key does ("runtime=...", "budjet=..."); a short one
 * ("type", "tier", "quote", "due", "opt": common words) only with a value it
 * takes ("type=soft", not "type=analysis").
 */
static bool _field_is_sla(const char *key, size_t klen, const char *field,
			  size_t flen)
{
	char val[LIBRA_SLA_MAX_TEXT + 1];
	const char *near, *v = memchr(field, '=', flen);
	const libra_sla_key_t *k = _key(key, klen);
	libra_sla_t tmp;
	size_t vlen;

	if (!k) {
		near = libra_sla_key_suggest(key, klen);
		return near && strlen(near) >= LIBRA_SLA_LONG_KEY;
	}
	if (klen >= LIBRA_SLA_LONG_KEY)
		return true;
	v = _skip_space(v + 1);
	vlen = flen - (size_t) (v - field);
	while (vlen && (v[vlen - 1] == ' ' || v[vlen - 1] == '\t'))
		vlen--;
	/* "quote=0", "quote=-1": a quote number, however wrong */
	if (k->val == LIBRA_SLA_VAL_QUOTE && vlen &&
	    strspn(v, "+-0123456789") >= vlen)
		return true;
	snprintf(val, sizeof(val), "%.*s", (int) vlen, v);
	memset(&tmp, 0, sizeof(tmp));
	return sla_parse_value(k, val, (double) time(NULL), &tmp, NULL, 0) ==
	       LIBRA_SLA_OK;
}

extern bool libra_sla_text_is_sla(const char *text)
{
	const char *p, *key;
	size_t len, klen;

	if (!text)
		return false;
	/* a bare SLA key first: "runtime", "runtime:5s", "budget,..."
	 * (strchr() finds the terminating NUL too: the key alone) */
	p = _skip_space(text);
	len = strcspn(p, " \t,:=");
	if (len && _key_bit(p, len) && strchr(",:", p[len]))
		return true;
	/* a field whose key is an SLA key or a near miss of a long one */
	for (p = text; ; p += len + 1) {
		len = strcspn(p, ",");
		if (_text_key(p, len, &key, &klen) &&
		    _field_is_sla(key, klen, p, len))
			return true;
		if (!p[len])
			return false;
	}
}

/*
 * The key of the comma-separated field that holds position pos, into key
 * (empty when the field has no '=' before pos).
 */
static void _field_key(const char *s, size_t pos, char *key, size_t len)
{
	size_t start = pos, end;

	while (start > 0 && s[start - 1] != ',')
		start--;
	while (s[start] == ' ' || s[start] == '\t')
		start++;
	end = start;
	while (end < pos && s[end] != '=')
		end++;
	key[0] = '\0';
	if (end < pos && s[end] == '=') {
		while (end > start && (s[end - 1] == ' ' || s[end - 1] == '\t'))
			end--;
		if (end - start < len)
			snprintf(key, len, "%.*s", (int) (end - start),
				 s + start);
	}
}

/* Bytes must be printable ASCII: no controls, no 8-bit.  The message
 * names the key whose value holds the byte, when there is one. */
static libra_sla_err_t _check_bytes(const char *what, const char *s,
				    char *err, size_t errlen)
{
	char key[32];

	for (size_t i = 0; s[i]; i++) {
		unsigned char c = (unsigned char) s[i];

		if (c >= 0x20 && c <= 0x7e)
			continue;
		_field_key(s, i, key, sizeof(key));
		for (char *k = key; *k; k++)
			if ((unsigned char) *k < 0x20 ||
			    (unsigned char) *k > 0x7e)
				*k = '?';
		return sla_fail(err, errlen, LIBRA_SLA_ESYNTAX,
				"%s: byte 0x%02x at position %zu is not printable ASCII",
				key[0] ? key : what, c, i + 1);
	}
	return LIBRA_SLA_OK;
}

/* A key not in the grammar: the key it is a near miss of, else them all. */
static libra_sla_err_t _unknown_key(const char *key, char *err,
				    size_t errlen)
{
	const char *near = libra_sla_key_suggest(key, strlen(key));
	char known[256];

	if (near)
		return sla_fail(err, errlen, LIBRA_SLA_EKEY,
				"%.40s: unknown key, did you mean %s?", key,
				near);
	return sla_fail(err, errlen, LIBRA_SLA_EKEY,
			"%.40s: unknown key (known: %s)", key,
			_known_keys(known, sizeof(known)));
}

extern libra_sla_err_t libra_sla_parse_field(const char *key,
					     const char *value, double now,
					     libra_sla_t *sla,
					     char *err, size_t errlen)
{
	const libra_sla_key_t *k = _key(key, strlen(key));
	libra_sla_t tmp = *sla;
	libra_sla_err_t rc;

	if (!k)
		return _unknown_key(key, err, errlen);
	if (strlen(value) > LIBRA_SLA_MAX_TEXT)
		return sla_fail(err, errlen, LIBRA_SLA_ETOOLONG,
				"%s: value longer than %d bytes", key,
				LIBRA_SLA_MAX_TEXT);
	if ((rc = _check_bytes(key, value, err, errlen)))
		return rc;
	if (tmp.set & k->bit)
		return sla_fail(err, errlen, LIBRA_SLA_EDUP,
				"%s: given twice", key);
	if (!*value)
		return sla_fail(err, errlen, LIBRA_SLA_EVALUE,
				"%s: empty value", key);
	if (tmp.submit == 0.0)
		tmp.submit = now;
	if ((rc = sla_parse_value(k, value, now, &tmp, err, errlen)))
		return rc;
	tmp.set |= k->bit;
	*sla = tmp;
	return LIBRA_SLA_OK;
}

/* Blanks and tabs at the end of s cut off. */
static void _trim_end(char *s)
{
	char *end = s + strlen(s);

	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	*end = '\0';
}

extern libra_sla_err_t libra_sla_parse(const char *text, double now,
				       libra_sla_t *sla,
				       char *err, size_t errlen)
{
	char buf[LIBRA_SLA_MAX_TEXT + 1];
	libra_sla_err_t rc = LIBRA_SLA_OK;
	libra_sla_t tmp;
	size_t len, pos = 0;
	char *p, *comma;

	memset(sla, 0, sizeof(*sla));
	memset(&tmp, 0, sizeof(tmp));
	tmp.submit = now;
	if (!text)
		return sla_fail(err, errlen, LIBRA_SLA_ESYNTAX,
				"comment: no SLA text");
	len = strlen(text);
	if (len > LIBRA_SLA_MAX_TEXT)
		return sla_fail(err, errlen, LIBRA_SLA_ETOOLONG,
				"comment: %zu bytes, at most %d allowed",
				len, LIBRA_SLA_MAX_TEXT);
	if ((rc = _check_bytes("comment", text, err, errlen)))
		return rc;
	memcpy(buf, text, len + 1);

	for (p = buf; ; p = comma + 1) {
		char *eq, *key, *val;

		comma = strchr(p, ',');
		if (comma)
			*comma = '\0';
		pos++;
		key = (char *) _skip_space(p);
		if (!*key) {
			rc = sla_fail(err, errlen, LIBRA_SLA_ESYNTAX,
				      "comment: field %zu is empty (stray comma?)",
				      pos);
			break;
		}
		eq = strchr(key, '=');
		if (!eq) {
			rc = sla_fail(err, errlen, LIBRA_SLA_ESYNTAX,
				      "comment: '%.40s' is not key=value", key);
			break;
		}
		*eq = '\0';
		_trim_end(key);
		if (!*key) {
			rc = sla_fail(err, errlen, LIBRA_SLA_ESYNTAX,
				      "comment: field %zu has no key before '='",
				      pos);
			break;
		}
		val = (char *) _skip_space(eq + 1);
		_trim_end(val);
		if ((rc = libra_sla_parse_field(key, val, now, &tmp, err,
						errlen)) || !comma)
			break;
	}
	if (rc == LIBRA_SLA_OK)
		rc = libra_sla_check_quote(&tmp, err, errlen);
	if (rc == LIBRA_SLA_OK)
		*sla = tmp;
	return rc;
}

extern libra_sla_err_t libra_sla_check_quote(const libra_sla_t *sla,
					     char *err, size_t errlen)
{
	bool release = libra_sla_releases_quote(sla);

	if (!libra_sla_takes_quote(sla) && !release)
		return LIBRA_SLA_OK;
	for (size_t i = 0; i < SLA_NKEYS; i++) {
		if (sla_keys[i].bit == LIBRA_SLA_QUOTE ||
		    !(sla->set & sla_keys[i].bit))
			continue;
		if (release)
			return sla_fail(err, errlen, LIBRA_SLA_EDUP,
					"quote: release:%u gives a quote back and makes no job; give no %s with it",
					libra_sla_quote_id(sla),
					sla_keys[i].key);
		return sla_fail(err, errlen, LIBRA_SLA_EDUP,
				"quote: quote %u carries its own SLA; give no %s with it",
				sla->quote, sla_keys[i].key);
	}
	return LIBRA_SLA_OK;
}

extern const char *libra_tier_name(libra_tier_t tier)
{
	return libra_name_of(libra_tier_names, (int) tier);
}

extern bool libra_tier_from_name(const char *name, libra_tier_t *tier)
{
	int v;

	if (!libra_value_of(libra_tier_names, name, &v))
		return false;
	*tier = (libra_tier_t) v;
	return true;
}

extern void libra_sla_replanned(const libra_sla_t *sla, double runtime,
				double end, libra_sla_t *out)
{
	*out = *sla;
	out->runtime = runtime;
	if (sla->set & LIBRA_SLA_DUEDATE)
		return;
	out->set &= ~LIBRA_SLA_TARGET;
	out->target = 0.0;
	if (end < sla->deadline && end > sla->submit) {
		out->target = end;
		out->set |= LIBRA_SLA_TARGET;
	}
}
