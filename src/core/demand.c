/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  demand.c - a job's memory and GPUs, from the terms of Slurm's request
 *  (see demand.h).
 *
 *  The TRES grammar read here is the one slurmctld reads (22.05
 *  _get_next_gres(), 24.11 and 26.05 slurm_get_next_tres()): elements
 *  separated by commas; a GRES element is "gres:" (22.05) or "gres/"
 *  (later) followed by NAME, NAME:COUNT, NAME:TYPE, NAME:TYPE:COUNT or,
 *  since 23.02, NAME[:TYPE]=COUNT.  A missing count is one; a zero count
 *  is no request (Slurm drops it).  Counts are whole numbers here: Slurm
 *  also takes a k/m/g suffix, which no one means for GPUs, and which is
 *  refused as a bad count rather than guessed at.
\*****************************************************************************/

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "demand.h"

/* MB per CPU or node beyond which a request is a mistake (admit.c's bound:
 * products with CPU or GPU counts stay within a uint64_t). */
#define MEM_MB_MAX ((uint64_t) 1 << 40)

/* An element longer than this is no TRES anyone wrote. */
#define ELEMENT_MAX 256

/* A whole number of at most max, digits only. */
static bool _count(const char *s, uint64_t max, uint64_t *v)
{
	char *end;
	unsigned long long x;

	if (!*s || strspn(s, "0123456789") != strlen(s))
		return false;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end || x > max)
		return false;
	*v = (uint64_t) x;
	return true;
}

/*
 * One GRES element without its "gres:" or "gres/": its name (in name,
 * cut at the first ':') and count.  Returns 0, or -1 with a message.
 */
static int _element(char *e, const char *whole, const char *option,
		    uint64_t max, char **name, uint64_t *count,
		    char *err, size_t errlen)
{
	char *eq = strrchr(e, '='), *type, *cnt = NULL;

	*name = e;
	*count = 1;
	if (eq) {			/* NAME[:TYPE]=COUNT */
		*eq = '\0';
		cnt = eq + 1;
		if ((type = strchr(e, ':'))) {
			*type++ = '\0';
			if (!*type || strchr(type, ':'))
				goto bad;
		}
	} else if ((type = strchr(e, ':'))) {
		char *third;

		*type++ = '\0';
		if ((third = strchr(type, ':'))) {	/* NAME:TYPE:COUNT */
			*third = '\0';
			cnt = third + 1;
			if (!*type || strchr(cnt, ':'))
				goto bad;
		} else if (!*type) {
			goto bad;			/* "NAME:" */
		} else if (strspn(type, "0123456789") == strlen(type)) {
			cnt = type;			/* NAME:COUNT */
		}				/* else NAME:TYPE, one */
	}
	if (!**name)
		goto bad;
	if (cnt && !_count(cnt, max, count)) {
		snprintf(err, errlen, "%s: bad count '%s' in '%s' (a whole number up to %llu)",
			 option, cnt, whole, (unsigned long long) max);
		return -1;
	}
	return 0;
bad:
	snprintf(err, errlen, "%s: cannot read '%s' (expected gres/NAME[:TYPE][:COUNT])",
		 option, whole);
	return -1;
}

/*
 * Sum the counts of GRES "name" in tres.  others: a GRES of another name
 * is refused (GPU requests: the ledger tracks gpu alone), else skipped.
 */
static int _walk(const char *tres, const char *name, bool others,
		 const char *option, uint64_t max, uint64_t *sum,
		 char *err, size_t errlen)
{
	const char *p = tres;

	*sum = 0;
	while (p && *p) {
		size_t len = strcspn(p, ",;");
		char e[ELEMENT_MAX + 1], whole[ELEMENT_MAX + 1], *gname;
		uint64_t n;

		if (len > ELEMENT_MAX) {
			snprintf(err, errlen, "%s: an element of '%.40s...' is too long",
				 option, tres);
			return -1;
		}
		memcpy(e, p, len);
		e[len] = '\0';
		p += len + (p[len] != '\0');
		if (!len)
			continue;
		/* not a GRES (cpu=2, license/x=1, ...): not ours to count */
		if (strncmp(e, "gres:", 5) && strncmp(e, "gres/", 5))
			continue;
		memcpy(whole, e, len + 1);
		if (_element(e + 5, whole, option, max, &gname, &n, err,
			     errlen))
			return -1;
		if (strcmp(gname, name)) {
			if (!others)
				continue;
			snprintf(err, errlen, "%s: GRES '%s' cannot be admitted (slurm-libra tracks gpu only, so the job could wait for it)",
				 option, gname);
			return -1;
		}
		if (n > max - *sum) {
			snprintf(err, errlen, "%s: more than %llu in '%s'",
				 option, (unsigned long long) max, tres);
			return -1;
		}
		*sum += n;
	}
	return 0;
}

extern int libra_tres_gpus(const char *tres, const char *option, int *gpus,
			   char *err, size_t errlen)
{
	uint64_t n;

	*gpus = 0;
	if (_walk(tres, "gpu", true, option, LIBRA_TRES_GPUS_MAX, &n, err,
		  errlen))
		return -1;
	*gpus = (int) n;
	return 0;
}

extern int libra_tres_count(const char *tres, const char *name,
			    const char *option, uint64_t *value,
			    char *err, size_t errlen)
{
	return _walk(tres, name, false, option, MEM_MB_MAX, value, err,
		     errlen);
}

/* The memory figure that applies: the user's, the partition's, the
 * cluster's (Slurm's order, job_mgr.c _validate_job_desc()). */
static libra_mem_spec_t _mem_spec(const libra_job_ask_t *a)
{
	libra_mem_spec_t none = { .set = true, .per_cpu = false, .mb = 0 };

	if (a->mem.set)
		return a->mem;
	if (a->part_default.set)
		return a->part_default;
	if (a->cluster_default.set)
		return a->cluster_default;
	/* no default at all: Slurm gives the job all of each node */
	return none;
}

/* GPUs per socket or task: the ledger places GPUs per node or per job. */
static int _no_gpus(const char *tres, const char *option, const char *per,
		    char *err, size_t errlen)
{
	int gpus;

	if (libra_tres_gpus(tres, option, &gpus, err, errlen))
		return -1;
	if (!gpus)
		return 0;
	snprintf(err, errlen, "%s: GPUs per %s cannot be admitted; ask --gpus-per-node or --gpus",
		 option, per);
	return -1;
}

static libra_demand_err_t _fail(libra_demand_t *d, libra_demand_err_t e)
{
	memset(d, 0, sizeof(*d));
	return e;
}

extern libra_demand_err_t libra_demand_from_job(const libra_job_ask_t *a,
						libra_demand_t *d, char *err,
						size_t errlen)
{
	int per_node, total;
	uint64_t per_gpu = 0;
	libra_mem_spec_t m;

	memset(d, 0, sizeof(*d));
	if (libra_tres_gpus(a->tres_per_node, "--gres/--gpus-per-node",
			    &per_node, err, errlen) ||
	    libra_tres_gpus(a->tres_per_job, "--gpus", &total, err, errlen))
		return _fail(d, LIBRA_DEMAND_EGPUS);
	if (_no_gpus(a->tres_per_socket, "--gpus-per-socket", "socket", err,
		     errlen) ||
	    _no_gpus(a->tres_per_task, "--gpus-per-task", "task", err, errlen))
		return _fail(d, LIBRA_DEMAND_EGPUS);
	if (per_node && total) {
		snprintf(err, errlen, "--gpus with --gpus-per-node or --gres=gpu: give one of them");
		return _fail(d, LIBRA_DEMAND_EGPUS);
	}
	d->gpus_per_node = per_node;
	d->gpus = total;
	d->tmp_mb = a->tmp_mb;	/* the nodes' TmpDisk say where it counts */

	if (libra_tres_count(a->mem_per_tres, "gpu", "--mem-per-gpu",
			     &per_gpu, err, errlen))
		return _fail(d, LIBRA_DEMAND_EMEM);
	if (per_gpu) {
		if (a->mem.set) {
			snprintf(err, errlen, "--mem-per-gpu with --mem or --mem-per-cpu: give one of them");
			return _fail(d, LIBRA_DEMAND_EMEM);
		}
		if (!per_node) {
			snprintf(err, errlen, "--mem-per-gpu: admitted only with GPUs per node (--gres=gpu:N or --gpus-per-node), which fix the memory of each node");
			return _fail(d, LIBRA_DEMAND_EMEM);
		}
	}
	if (!a->mem_tracked)
		return LIBRA_DEMAND_OK;	/* memory of untracked nodes: none */
	if (per_gpu) {
		if (per_gpu > MEM_MB_MAX / (uint64_t) per_node) {
			snprintf(err, errlen, "--mem-per-gpu: %llu MB x %d GPUs is more memory than any node has",
				 (unsigned long long) per_gpu, per_node);
			return _fail(d, LIBRA_DEMAND_EMEM);
		}
		d->mem_per_node = per_gpu * (uint64_t) per_node;
		return LIBRA_DEMAND_OK;
	}
	m = _mem_spec(a);
	if (m.mb > MEM_MB_MAX) {
		snprintf(err, errlen, "%s: %llu MB is more memory than any node has",
			 a->mem.set ? (m.per_cpu ? "--mem-per-cpu" : "--mem") :
			 "the default memory (DefMemPerCPU/DefMemPerNode)",
			 (unsigned long long) m.mb);
		return _fail(d, LIBRA_DEMAND_EMEM);
	}
	if (!m.mb)		/* --mem=0, --mem-per-cpu=0: all of each node */
		d->mem_whole_node = true;
	else if (m.per_cpu)
		d->mem_per_cpu = m.mb;
	else
		d->mem_per_node = m.mb;
	return LIBRA_DEMAND_OK;
}

/* Is name[0..len) one of the comma-separated features? */
static bool _has_feature(const char *features, const char *name, size_t len)
{
	const char *f = features;

	while (f && *f) {
		size_t n = strcspn(f, ",");

		if (n == len && !strncmp(f, name, len))
			return true;
		f += n;
		if (*f)
			f++;
	}
	return false;
}

bool libra_features_valid(const char *expr)
{
	const char *e = expr;

	if (!expr || expr[strcspn(expr, "[]()*!:")])
		return false;
	for (;;) {
		size_t n = strcspn(e, "&|,");

		if (!n)
			return false;	/* empty, or two operators in a row */
		if (!e[n])
			return true;
		e += n + 1;
	}
}

bool libra_features_match(const char *expr, const char *node_features)
{
	bool result = true;
	char op = '&';

	while (*expr) {
		size_t n = strcspn(expr, "&|,");
		bool has = _has_feature(node_features, expr, n);

		result = (op == '|') ? (result || has) : (result && has);
		expr += n;
		if (!*expr)
			break;
		op = (*expr == '|') ? '|' : '&';
		expr++;
	}
	return result;
}

/* ---- licenses (design.md decision 29) ----------------------------------- */

extern uint32_t libra_license_free(uint32_t total,
				   const libra_license_hold_t *h, int n,
				   double t)
{
	uint64_t held = 0;
	int i;

	for (i = 0; i < n; i++)
		if (h[i].until > t)
			held += h[i].count;
	return held >= total ? 0 : (uint32_t) (total - held);
}

extern double libra_license_free_when(uint32_t total,
				      const libra_license_hold_t *h, int n,
				      uint32_t asked, double t)
{
	double when = t, next;
	int i;

	if (asked > total)
		return INFINITY;
	/* each step moves to the next end of a hold: at most n steps */
	while (libra_license_free(total, h, n, when) < asked) {
		next = INFINITY;
		for (i = 0; i < n; i++)
			if (h[i].until > when && h[i].until < next)
				next = h[i].until;
		if (isinf(next))
			return INFINITY;
		when = next;
	}
	return when;
}

/* Add count of name to a[0..*n), max elements: 0, or -1 when full. */
static int _license_add(libra_license_ask_t *a, int *n, int max,
			const char *name, uint32_t count)
{
	int i;

	for (i = 0; i < *n; i++) {
		if (!strcmp(a[i].name, name)) {
			if (a[i].count > UINT32_MAX - count)
				return -1;
			a[i].count += count;
			return 0;
		}
	}
	if (*n >= max)
		return -1;
	snprintf(a[*n].name, sizeof(a[*n].name), "%s", name);
	a[*n].count = count;
	(*n)++;
	return 0;
}

extern int libra_license_parse(const char *lic, libra_license_ask_t *a,
			       int max)
{
	char buf[ELEMENT_MAX], *colon, *end;
	const char *p = lic, *q;
	unsigned long v;
	size_t len;
	int n = 0;

	if (!lic || !*lic)
		return 0;
	if (strchr(lic, '|'))
		return -1;
	while (*p) {
		q = p + strcspn(p, ",;");
		len = (size_t) (q - p);
		if (len >= sizeof(buf))
			return -1;
		memcpy(buf, p, len);
		buf[len] = '\0';
		p = *q ? q + 1 : q;
		if (!len)	/* Slurm's strtok_r() skips empty elements */
			continue;
		if (strpbrk(buf, " \t\n\r\f\v"))
			return -1;
		v = 1;
		if ((colon = strchr(buf, ':'))) {
			*colon = '\0';
			errno = 0;
			v = strtoul(colon + 1, &end, 10);
			if (errno || end == colon + 1 || *end ||
			    colon[1] == '-' || v > UINT32_MAX)
				return -1;
		}
		if (!buf[0] || strlen(buf) >= LIBRA_LICENSE_NAME_MAX ||
		    _license_add(a, &n, max, buf, (uint32_t) v))
			return -1;
	}
	return n;
}
