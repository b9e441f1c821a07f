/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  quote.c - the book of binding quotes (see quote.h).
 *
 *  A small array: a user holds at most libra_quote_max quotes, and a quote
 *  leaves the book at the end of its hold, so the book stays short and a
 *  linear search is the simplest correct thing.
\*****************************************************************************/

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quote.h"

struct libra_quotes {
	libra_held_quote_t *q;
	int n, cap;
	uint32_t next_id;
	uint64_t changes;	/* libra_quotes_changes() */
	uint64_t saved;		/* libra_quotes_saved() */
};

static libra_held_quote_t *_lookup(const libra_quotes_t *b, uint32_t id);

extern libra_quotes_t *libra_quotes_create(double now)
{
	libra_quotes_t *b = calloc(1, sizeof(*b));

	if (!b)
		return NULL;
	/*
	 * Numbers from the creation time (100000-999999, then on): a book
	 * made after a restart does not soon give again a number a user may
	 * still hold from before it.
	 */
	b->next_id = 100000u + (uint32_t) fmod(fabs(now), 900000.0);
	return b;
}

static void _free_one(libra_held_quote_t *h)
{
	free(h->place);
	h->place = NULL;
}

extern void libra_quotes_destroy(libra_quotes_t *b)
{
	if (!b)
		return;
	for (int i = 0; i < b->n; i++)
		_free_one(&b->q[i]);
	free(b->q);
	free(b);
}

extern int libra_quotes_held(const libra_quotes_t *b, uint32_t uid,
			     double now)
{
	int n = 0;

	for (int i = 0; i < b->n; i++)
		if (b->q[i].uid == uid && !b->q[i].taken &&
		    now <= b->q[i].until)
			n++;
	return n;
}

extern uint32_t libra_quotes_add(libra_quotes_t *b, const libra_held_quote_t *h)
{
	libra_held_quote_t *dst;

	if (b->n == b->cap) {
		int cap = b->cap ? 2 * b->cap : 8;
		libra_held_quote_t *q = realloc(b->q, (size_t) cap * sizeof(*q));

		if (!q)
			return 0;
		b->q = q;
		b->cap = cap;
	}
	dst = &b->q[b->n];
	*dst = *h;
	dst->place = NULL;
	if (h->nplace > 0) {
		dst->place = malloc((size_t) h->nplace * sizeof(*dst->place));
		if (!dst->place)
			return 0;
		memcpy(dst->place, h->place,
		       (size_t) h->nplace * sizeof(*dst->place));
	}
	/* a number still in the book (after a wrap) is not given again */
	do {
		if (b->next_id > LIBRA_SLA_QUOTE_MAX_ID)
			b->next_id = 100000u;
		dst->id = b->next_id++;
	} while (_lookup(b, dst->id));
	dst->taken = false;
	b->n++;
	b->changes++;
	return dst->id;
}

extern const char *libra_quote_status_name(libra_quote_status_t st)
{
	switch (st) {
	case LIBRA_QUOTE_OK:		return "ok";
	case LIBRA_QUOTE_UNKNOWN:	return "no such quote";
	case LIBRA_QUOTE_NOT_OWNER:	return "another user's quote";
	case LIBRA_QUOTE_EXPIRED:	return "expired";
	case LIBRA_QUOTE_TAKEN:		return "already taken";
	}
	return "?";
}

static libra_held_quote_t *_lookup(const libra_quotes_t *b, uint32_t id)
{
	for (int i = 0; i < b->n; i++)
		if (b->q[i].id == id)
			return &b->q[i];
	return NULL;
}

extern libra_quote_status_t libra_quotes_find(libra_quotes_t *b, uint32_t id,
					      uint32_t uid, double now,
					      libra_held_quote_t **h)
{
	libra_held_quote_t *q = _lookup(b, id);

	*h = q;
	if (!q)
		return LIBRA_QUOTE_UNKNOWN;
	if (q->uid != uid)
		return LIBRA_QUOTE_NOT_OWNER;
	if (q->taken)
		return LIBRA_QUOTE_TAKEN;
	if (now > q->until)
		return LIBRA_QUOTE_EXPIRED;
	return LIBRA_QUOTE_OK;
}

static bool _same_demand(const libra_demand_t *a, const libra_demand_t *b)
{
	return a->mem_per_cpu == b->mem_per_cpu &&
	       a->mem_per_node == b->mem_per_node &&
	       a->mem_whole_node == b->mem_whole_node &&
	       a->gpus_per_node == b->gpus_per_node && a->gpus == b->gpus &&
	       a->tmp_mb == b->tmp_mb;
}

extern const char *libra_quote_shape_differs(const libra_quote_shape_t *q,
					     const libra_quote_shape_t *job)
{
	if (q->cpus != job->cpus || q->cpus_per_task != job->cpus_per_task ||
	    q->cpus_per_node != job->cpus_per_node)
		return "the CPU count";
	if (q->min_nodes != job->min_nodes || q->max_nodes != job->max_nodes)
		return "the node count";
	if (!_same_demand(&q->demand, &job->demand))
		return "the memory, GPUs or scratch disk";
	if (strcmp(q->partition, job->partition))
		return "the partition";
	return NULL;
}

extern void libra_quotes_mark_taken(libra_quotes_t *b, uint32_t id)
{
	libra_held_quote_t *q = _lookup(b, id);

	if (q && !q->taken) {
		q->taken = true;
		b->changes++;
	}
}

extern void libra_quotes_remove(libra_quotes_t *b, uint32_t id)
{
	for (int i = 0; i < b->n; i++) {
		if (b->q[i].id != id)
			continue;
		_free_one(&b->q[i]);
		b->q[i] = b->q[--b->n];
		b->changes++;
		return;
	}
}

extern bool libra_quotes_token_held(const libra_quotes_t *b, uint32_t token,
				    double now)
{
	for (int i = 0; i < b->n; i++)
		if (b->q[i].token == token)
			return !b->q[i].taken && now <= b->q[i].until;
	return false;
}

extern int libra_quotes_expire(libra_quotes_t *b, double now, double grace)
{
	int gone = 0;

	for (int i = 0; i < b->n;) {
		if (now > b->q[i].until + grace) {
			_free_one(&b->q[i]);
			b->q[i] = b->q[--b->n];
			gone++;
			b->changes++;
		} else {
			i++;
		}
	}
	return gone;
}

extern int libra_quotes_count(const libra_quotes_t *b)
{
	return b->n;
}

extern libra_held_quote_t *libra_quotes_at(libra_quotes_t *b, int i)
{
	return i >= 0 && i < b->n ? &b->q[i] : NULL;
}

extern uint64_t libra_quotes_changes(const libra_quotes_t *b)
{
	return b->changes;
}

extern uint64_t libra_quotes_saved(const libra_quotes_t *b)
{
	return b->saved;
}

extern void libra_quotes_set_saved(libra_quotes_t *b, uint64_t changes)
{
	b->saved = changes;
}

/*
 * The saved form (decision 20): every field of a held quote but its
 * placement, which is written by node name ("place=").  A field added to
 * libra_held_quote_t is added here, at the end, and LIBRA_QUOTES_VERSION
 * raised; the fields of an older version are a prefix of the table, so
 * that its books are still read (what it lacked reads as 0).  Version 2
 * added the scratch disk (decision 17): the request's tmp_mb and each
 * place's, "node:CPUs:MB:GPUs:TMP".
 */
#define Q(key, type, member) \
	{ key, LIBRA_FIELD_##type, offsetof(libra_held_quote_t, member), \
	  sizeof(((libra_held_quote_t *) 0)->member) }
static const libra_field_t quote_fields[] = {
	Q("id", U32, id),
	Q("token", U32, token),
	Q("uid", U32, uid),
	Q("issued", DOUBLE, issued),
	Q("until", DOUBLE, until),
	Q("policy", INT, policy),
	Q("taken", BOOL, taken),
	Q("price", DOUBLE, price),
	Q("price_mem", DOUBLE, price_mem),
	Q("price_gpus", DOUBLE, price_gpus),
	Q("rate", DOUBLE, rate),
	Q("sla.set", U32, sla.set),
	Q("sla.runtime", DOUBLE, sla.runtime),
	Q("sla.submit", DOUBLE, sla.submit),
	Q("sla.deadline", DOUBLE, sla.deadline),
	Q("sla.budget", DOUBLE, sla.budget),
	Q("sla.penalty_rate", DOUBLE, sla.penalty_rate),
	Q("sla.penalty_cap", DOUBLE, sla.penalty_cap),
	Q("sla.due_date", DOUBLE, sla.due_date),
	Q("sla.type", INT, sla.type),
	Q("sla.tier", INT, sla.tier),
	Q("sla.quote", U32, sla.quote),
	Q("sla.target", DOUBLE, sla.target),
	Q("cpus", INT, shape.cpus),
	Q("min_nodes", INT, shape.min_nodes),
	Q("max_nodes", INT, shape.max_nodes),
	Q("cpus_per_task", INT, shape.cpus_per_task),
	Q("cpus_per_node", INT, shape.cpus_per_node),
	Q("mem_per_cpu", U64, shape.demand.mem_per_cpu),
	Q("mem_per_node", U64, shape.demand.mem_per_node),
	Q("mem_whole_node", BOOL, shape.demand.mem_whole_node),
	Q("gpus_per_node", INT, shape.demand.gpus_per_node),
	Q("gpus", INT, shape.demand.gpus),
	Q("partition", STR, shape.partition),
	/* version 2 */
	Q("tmp_mb", U64, shape.demand.tmp_mb),
};
#undef Q
#define NQUOTE_FIELDS ((int) (sizeof(quote_fields) / sizeof(quote_fields[0])))
/* the fields of a version 1 book */
#define NQUOTE_FIELDS_V1 (NQUOTE_FIELDS - 1)

/* the enums are written as ints */
_Static_assert(sizeof(libra_deadline_type_t) == sizeof(int) &&
	       sizeof(libra_tier_t) == sizeof(int), "enums are not ints");

/* A piece of a line appended to buf[len] at *pos; false: too short. */
static bool _put(char *buf, size_t len, size_t *pos, int w)
{
	if (w < 0 || (size_t) w >= len - *pos)
		return false;
	*pos += (size_t) w;
	return true;
}

/* One quote's line, appended to buf[len] at *pos: 0, -1 when buf is too
 * short, -2 for a node name that would not read back. */
static int _format_one(const libra_held_quote_t *h, const libra_ledger_t *l,
		       char *buf, size_t len, size_t *pos)
{
	if (!_put(buf, len, pos, snprintf(buf + *pos, len - *pos, "quote")) ||
	    libra_fields_format(quote_fields, NQUOTE_FIELDS, h, buf, len, pos))
		return -1;
	for (int i = 0; i < h->nplace; i++) {
		const libra_place_t *p = &h->place[i];
		const char *name = libra_ledger_node_name(l, p->node);

		if (!name || !*name || name[strcspn(name, " \t\n:,")])
			return -2;
		if (!_put(buf, len, pos,
			  snprintf(buf + *pos, len - *pos, "%s%s:%d:%llu:%d:%llu",
				   i ? "," : " place=", name, p->cpus,
				   (unsigned long long) p->mem_mb, p->gpus,
				   (unsigned long long) p->tmp_mb)))
			return -1;
	}
	return _put(buf, len, pos, snprintf(buf + *pos, len - *pos, "\n")) ?
	       0 : -1;
}

extern char *libra_quotes_format(const libra_quotes_t *b,
				 const libra_ledger_t *l)
{
	size_t len = 256;
	char *buf = NULL;

	for (int i = 0; i < b->n; i++)
		len += 1024 + (size_t) b->q[i].nplace * 96;
	for (;; len *= 2) {	/* again when names are longer than guessed */
		char *grown = realloc(buf, len);
		size_t pos = 0;
		int rc = 0;

		if (!grown)
			break;
		buf = grown;
		if (!_put(buf, len, &pos,
			  snprintf(buf, len, "%s %d\nnext %u\n",
				   LIBRA_QUOTES_MAGIC, LIBRA_QUOTES_VERSION,
				   b->next_id)))
			continue;
		for (int i = 0; i < b->n && !rc; i++)
			rc = _format_one(&b->q[i], l, buf, len, &pos);
		if (!rc)
			return buf;
		if (rc == -2)
			break;
	}
	free(buf);
	return NULL;
}

/* What libra_quotes_parse() hands libra_statefile_read(). */
typedef struct {
	libra_quotes_t *b;
	const libra_ledger_t *l;
	double now, grace;
	uint32_t next;		/* the "next" line's, 0: none */
	uint32_t past;		/* one past the highest number read */
	int kept;
	int version;		/* of the book: 1 or LIBRA_QUOTES_VERSION */
} quotes_parse_t;

/* "node:cpus:mb:gpus:tmp,..." (version 1: "node:cpus:mb:gpus,...") into
 * h's placement (malloc()ed). */
static int _parse_place(const libra_ledger_t *l, char *v, int version,
			libra_held_quote_t *h, char *why, size_t len)
{
	char *save = NULL;
	int n = 1;

	for (const char *c = v; *c; c++)
		n += *c == ',';
	if (!*v || !(h->place = calloc((size_t) n, sizeof(*h->place)))) {
		snprintf(why, len, *v ? "out of memory" : "place: empty");
		return -1;
	}
	h->nplace = 0;
	for (char *w = strtok_r(v, ",", &save); w;
	     w = strtok_r(NULL, ",", &save)) {
		libra_place_t *p = &h->place[h->nplace];
		unsigned long long mb, tmp = 0;
		char name[256], tail;
		bool ok = version == 1 ?
			  sscanf(w, "%255[^:]:%d:%llu:%d%c", name, &p->cpus,
				 &mb, &p->gpus, &tail) == 4 :
			  sscanf(w, "%255[^:]:%d:%llu:%d:%llu%c", name,
				 &p->cpus, &mb, &p->gpus, &tmp, &tail) == 5;

		if (!ok || p->cpus < 1 || p->gpus < 0) {
			snprintf(why, len, "place: \"%.60s\" is not %s", w,
				 version == 1 ? "node:CPUs:MB:GPUs" :
						"node:CPUs:MB:GPUs:TMP");
			return -1;
		}
		p->mem_mb = mb;
		p->tmp_mb = tmp;
		if ((p->node = libra_ledger_find_node(l, name)) < 0) {
			snprintf(why, len,
				 "place: node %.60s is not in the configuration (the capacity it held is gone)",
				 name);
			return -1;
		}
		h->nplace++;
	}
	if (!h->nplace) {
		snprintf(why, len, "place: empty");
		return -1;
	}
	return 0;
}

/* One line of a saved book: "next N" or a quote. */
static int _parse_line(void *arg, char *line, char *why, size_t len)
{
	quotes_parse_t *ps = arg;
	libra_held_quote_t h, *dst;
	char *place, *rest;
	unsigned long next;

	if (!strncmp(line, "next ", 5)) {
		next = strtoul(line + 5, &rest, 10);
		if (*rest || next < 1 || next > LIBRA_SLA_QUOTE_MAX_ID + 1ul) {
			snprintf(why, len, "next: \"%.40s\" is not a quote number",
				 line + 5);
			return -1;
		}
		ps->next = (uint32_t) next;
		return 0;
	}
	if (strncmp(line, "quote ", 6)) {
		snprintf(why, len, "neither \"quote ...\" nor \"next N\"");
		return -1;
	}
	memset(&h, 0, sizeof(h));
	if (libra_fields_parse(quote_fields, ps->version == 1 ?
			       NQUOTE_FIELDS_V1 : NQUOTE_FIELDS, line + 6, &h,
			       "place", &place, why, len))
		return -1;
	if (h.id < 1 || h.id > LIBRA_SLA_QUOTE_MAX_ID) {
		snprintf(why, len, "id: %u is not a quote number", h.id);
		return -1;
	}
	if (!libra_is_token(h.token)) {
		snprintf(why, len, "token: %u is not a ledger token", h.token);
		return -1;
	}
	if (!(h.until >= h.issued) || !isfinite(h.until)) {
		snprintf(why, len, "until: the hold ends before it began");
		return -1;
	}
	for (int i = 0; i < ps->b->n; i++) {
		if (ps->b->q[i].id == h.id || ps->b->q[i].token == h.token) {
			snprintf(why, len, "quote %u or its token %u given twice",
				 h.id, h.token);
			return -1;
		}
	}
	if (h.id >= ps->past)
		ps->past = h.id + 1;
	if (ps->now > h.until + ps->grace)
		return 0;	/* forgotten: read, not kept */
	if (_parse_place(ps->l, place, ps->version, &h, why, len)) {
		free(h.place);
		return -1;
	}
	if (ps->b->n == ps->b->cap) {
		int cap = ps->b->cap ? 2 * ps->b->cap : 8;
		libra_held_quote_t *q = realloc(ps->b->q,
						(size_t) cap * sizeof(*q));

		if (!q) {
			free(h.place);
			snprintf(why, len, "out of memory");
			return -1;
		}
		ps->b->q = q;
		ps->b->cap = cap;
	}
	dst = &ps->b->q[ps->b->n++];
	*dst = h;	/* the placement now the book's */
	ps->kept++;
	return 0;
}

extern int libra_quotes_parse(libra_quotes_t *b, const libra_ledger_t *l,
			      const char *text, const char *name, double now,
			      double grace, libra_report_fn *report,
			      void *arg)
{
	quotes_parse_t ps = { .b = b, .l = l, .now = now, .grace = grace,
			      .version = LIBRA_QUOTES_VERSION };

	/* a book of version 1, written before a restart into this version */
	if (text && !strncmp(text, LIBRA_QUOTES_MAGIC " 1\n",
			     sizeof(LIBRA_QUOTES_MAGIC " 1\n") - 1))
		ps.version = 1;
	if (libra_statefile_read(text, name, LIBRA_QUOTES_MAGIC, ps.version,
				 _parse_line, &ps, report, arg) < 0)
		return -1;
	/* numbers go on past every one read, the forgotten ones too */
	if (ps.next > b->next_id)
		b->next_id = ps.next;
	if (ps.past > b->next_id)
		b->next_id = ps.past;
	b->changes++;
	return ps.kept;
}

extern int libra_probes_waiting(libra_probes_t *p, const libra_ledger_t *l,
				uint32_t uid, double now, double older,
				double keep, int *all)
{
	int kept = 0, waiting = 0, mine = 0;

	for (int i = 0; i < p->n; i++) {
		libra_probe_t *pr = &p->v[i];

		if (!libra_ledger_has_job(l, pr->token) || now - pr->at > keep)
			continue;
		p->v[kept++] = *pr;
		if (pr->uid != uid)
			continue;
		mine++;
		if (now - pr->at >= older)
			waiting++;
	}
	p->n = kept;
	if (all)
		*all = mine;
	return waiting;
}

extern int libra_probes_add(libra_probes_t *p, uint32_t uid, uint32_t token,
			    double now)
{
	if (p->n == p->cap) {
		int cap = p->cap ? 2 * p->cap : 16;
		libra_probe_t *v = realloc(p->v, (size_t) cap * sizeof(*v));

		if (!v)
			return -1;
		p->v = v;
		p->cap = cap;
	}
	p->v[p->n++] = (libra_probe_t) { uid, token, now };
	return 0;
}

extern void libra_probes_free(libra_probes_t *p)
{
	free(p->v);
	memset(p, 0, sizeof(*p));
}
