/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sla.h - the service level agreement of one job, and how users write it.
 *
 *  The SLA is what a user asks of the cluster for one job (Yeo thesis
 *  sections 3.3 and 4.2): a runtime estimate RE, a deadline TD, a
 *  budget B, a penalty rate PR, a deadline type (hard or soft) and, from
 *  ISQoS (Kavanagh & Djemame 2014), a due date and a penalty cap.
 *
 *  Users write it as comma-separated key=value pairs in sbatch --comment:
 *
 *	runtime=30m,deadline=3h,budget=40,type=soft,penalty=0.1
 *
 *  The keys, how each value is read and the SPANK option that sets it
 *  are one table, sla_keys[] in sla.c (libra_sla_key_at() below).
 *  Durations: "90s", "45m", "2h", "1.5h", "3d", "1h30m" (units falling),
 *  Slurm's "[D-]HH:MM:SS",
 *  "MM:SS", "D-HH", "D-HH:MM", or a bare number of minutes (as --time).
 *  Deadlines and due dates are a duration from submission or an absolute
 *  local time "YYYY-MM-DDTHH:MM[:SS]" (a trailing "Z" means UTC).
 *
 *  The parser is strict: unknown keys, duplicate keys, empty values, bad
 *  units, numbers that are negative, not finite or too large, and bytes that
 *  are not printable ASCII are all errors, and the message names the key.
 *  On error the output record is left zeroed: nothing half-parsed escapes.
 *
 *  Times are seconds since the epoch (or since the start of a simulation),
 *  held in doubles so that the simulator and the plugins share one type.
\*****************************************************************************/

#ifndef LIBRA_SLA_H
#define LIBRA_SLA_H

#include <math.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "number.h"

/* Which fields the user gave (libra_sla_t.set). */
#define LIBRA_SLA_RUNTIME	(1u << 0)
#define LIBRA_SLA_DEADLINE	(1u << 1)
#define LIBRA_SLA_BUDGET	(1u << 2)
#define LIBRA_SLA_PENALTY	(1u << 3)
#define LIBRA_SLA_TYPE		(1u << 4)
#define LIBRA_SLA_DUEDATE	(1u << 5)
#define LIBRA_SLA_PENALTY_CAP	(1u << 6)
#define LIBRA_SLA_TIER		(1u << 7)
/* Not a key: set by libra_sla_accept() when a quote aims the job's share at
 * a time before its deadline (a due date). */
#define LIBRA_SLA_TARGET	(1u << 8)
/* "quote=hold" asks for a binding quote; "quote=ID" takes one (quote.h).
 * Not part of the agreed SLA: job_submit/qos clears it before recording. */
#define LIBRA_SLA_QUOTE		(1u << 9)
#define LIBRA_SLA_QUOTE_MAX_ID	999999999u
/* "opt=time" asks for the earliest finish, "opt=cost" (the default) for
 * the cheapest finish by the deadline: how the job is admitted, not a term
 * of the agreement (the target and the price it gives are); job_submit/qos
 * clears it before recording. */
#define LIBRA_SLA_OPT		(1u << 10)

/* Limits that make absurd input an error instead of an overflow. */
#define LIBRA_SLA_MAX_TEXT	1024		/* bytes of SLA text */
#define LIBRA_SLA_MAX_DURATION	(3650.0 * 86400.0) /* ten years */
#define LIBRA_SLA_MAX_MONEY	1e15		/* budget, penalty, cap */

typedef enum {
	LIBRA_DEADLINE_HARD = 0,	/* finish by TD or be ended at TD */
	LIBRA_DEADLINE_SOFT = 1,	/* may run late; penalty accrues */
} libra_deadline_type_t;

/*
 * ISQoS mark-up tiers (Kavanagh & Djemame 2014, section 4.1): the user
 * picks one; the site sets each tier's mark-up (libra_markup_* in
 * params.h).  No tier: libra_markup.
 */
typedef enum {
	LIBRA_TIER_NONE = 0,
	LIBRA_TIER_VALUE,
	LIBRA_TIER_STANDARD,
	LIBRA_TIER_PREMIUM,
	LIBRA_TIER_COUNT
} libra_tier_t;

/* What admission optimises for the job (the thesis' QoSOptimization). */
typedef enum {
	LIBRA_OPT_COST = 0,	/* the deadline-paced share: the cheapest */
	LIBRA_OPT_TIME,		/* the largest share capacity and budget allow:
				 * the earliest finish */
} libra_opt_t;

/* Names of the deadline types ("hard", "soft"), the tiers ("none",
 * "value", "standard", "premium": a job picks one of libra_tier_names + 1)
 * and opt's values ("cost", "time"): number.h's libra_name_t. */
extern const libra_name_t libra_deadline_type_names[];
extern const libra_name_t libra_tier_names[];
extern const libra_name_t libra_opt_names[];

typedef struct libra_sla {
	uint32_t set;		/* LIBRA_SLA_* bits: what the user gave */
	double runtime;		/* RE: CPU seconds per allocated CPU */
	double submit;		/* TSU: submission time [s] */
	double deadline;	/* TD: absolute deadline [s]; D = TD - TSU */
	double budget;		/* B; meaningful only with LIBRA_SLA_BUDGET */
	double penalty_rate;	/* PR: currency per hour of delay */
	double penalty_cap;	/* bound on the penalty (LIBRA_SLA_PENALTY_CAP) */
	double due_date;	/* soft target (LIBRA_SLA_DUEDATE) [s] */
	libra_deadline_type_t type;
	libra_tier_t tier;	/* LIBRA_SLA_TIER, else LIBRA_TIER_NONE */
	uint32_t quote;		/* LIBRA_SLA_QUOTE: 0 "hold", else the id of
				 * the quote to take, or to give back with
				 * LIBRA_SLA_QUOTE_RELEASE */
	libra_opt_t opt;	/* LIBRA_SLA_OPT, else LIBRA_OPT_COST */
	double target;		/* LIBRA_SLA_TARGET: when the admitted share
				 * finishes the estimate [s]: the due date or
				 * the earliest time after it that admission
				 * found (admit.h); else the deadline */
} libra_sla_t;

/* How an SLA key's value is read, and the type of its field. */
typedef enum {
	LIBRA_SLA_VAL_DURATION,	/* libra_parse_duration(): a double */
	LIBRA_SLA_VAL_WHEN,	/* a duration from submission or a date:
				 * an absolute time, a double */
	LIBRA_SLA_VAL_MONEY,	/* libra_parse_money(): a double */
	LIBRA_SLA_VAL_WORD,	/* one of the key's words: an enum */
	LIBRA_SLA_VAL_QUOTE,	/* "hold" (0) or a quote's number: a uint32_t */
} libra_sla_val_t;

/*
 * One key of the grammar: the one table of them (sla.c) is what the
 * parser reads, what job_submit/qos maps the SPANK options by, and what
 * the SPANK plugin registers its options and their help from.
 */
typedef struct libra_sla_key {
	const char *key;	/* in --comment */
	uint32_t bit;		/* LIBRA_SLA_*; an alias shares its key's */
	bool term;		/* a term of the agreement under its own name,
				 * as the job record lists the terms given (an
				 * alias, or "quote", which names a quote to
				 * take, is none) */
	libra_sla_val_t val;	/* how its value is read */
	size_t off;		/* its field in libra_sla_t */
	const libra_name_t *words;	/* LIBRA_SLA_VAL_WORD: the values */
	const char *option;	/* the SPANK option that sets it (without
				 * "--"), or NULL */
	const char *arginfo;	/* the option's argument and ... */
	const char *help;	/* ... help, as sbatch --help shows them */
	bool sbatch_checks;	/* the SPANK plugin checks the value in sbatch
				 * too, before slurmctld does */
} libra_sla_key_t;

/* The entries of the table (aliases included). */
#define LIBRA_SLA_NKEYS 11

/* The table's i-th key, NULL past the last. */
extern const libra_sla_key_t *libra_sla_key_at(size_t i);

/*
 * The key whose SPANK option name (len bytes) is as Slurm writes it in
 * the job's SPANK environment (_SLURM_SPANK_OPTION_libra_<name>: a '-' of
 * the option written '_'), or NULL.
 */
extern const libra_sla_key_t *libra_sla_key_of_env(const char *name,
						   size_t len);

/* Error classes; the message buffer says which key and why. */
typedef enum {
	LIBRA_SLA_OK = 0,
	LIBRA_SLA_ESYNTAX,	/* not key=value, empty pair, bad bytes */
	LIBRA_SLA_EKEY,		/* unknown key */
	LIBRA_SLA_EDUP,		/* key given twice, or conflicting sources */
	LIBRA_SLA_EVALUE,	/* value does not parse (unit, number, enum) */
	LIBRA_SLA_ERANGE,	/* negative, not finite, zero, too large */
	LIBRA_SLA_EDEADLINE,	/* deadline not after submission + runtime */
	LIBRA_SLA_EMISSING,	/* a required field is absent */
	LIBRA_SLA_ETOOLONG,	/* text longer than LIBRA_SLA_MAX_TEXT */
} libra_sla_err_t;

/* Short name of an error class, e.g. "unknown key". */
extern const char *libra_sla_strerror(libra_sla_err_t err);

/* The fields that are times (a bad one is a bad time value). */
#define LIBRA_SLA_TIMES \
	(LIBRA_SLA_RUNTIME | LIBRA_SLA_DEADLINE | LIBRA_SLA_DUEDATE)

/*
 * The field an error message of this module is about.  Every message
 * starts with the key it concerns ("budget: ...") or with what it read as
 * a whole ("comment: ...").  Returns the key's LIBRA_SLA_* bit, or 0 when
 * the message is about no one field; *why (may be NULL) is set to the
 * reason, past "key: " when the bit is not 0, else the whole message.
 */
extern uint32_t libra_sla_err_field(const char *err, const char **why);

/*
 * Does this comment read as an SLA (doc/design.md decision 29)?
 * True when one of its comma-separated fields is "key=value" with an SLA
 * key, or a near miss of a long one (libra_sla_key_suggest() of at least
 * LIBRA_SLA_LONG_KEY letters: "dedline=2h"), or when it starts with a bare
 * SLA key followed by ',', ':', '=' or its end ("runtime").  Any other
 * comment ("run=42", "workflow:step3", free text) is not an SLA and is left
 * alone, as under stock Slurm.
 */
extern bool libra_sla_text_is_sla(const char *text);

/* Keys of this many letters or more are "long": two edits are a near
 * miss of them, and a near miss alone makes a comment an SLA. */
#define LIBRA_SLA_LONG_KEY 6

/*
 * The SLA key that key (len bytes, not an SLA key itself) is a near miss
 * of: within two edits of a long key, one of a shorter one, letters
 * compared without case ("dedline", "budjet", "Budget"); the nearest,
 * first in the grammar on a tie.  NULL when none is.
 */
extern const char *libra_sla_key_suggest(const char *key, size_t len);

/*
 * The terms of an agreement by name, from the one table of SLA keys, for
 * the job record's list of the terms the user gave: the i-th term's key
 * (aliases such as "due" and "quote", which names a quote to take and is
 * no term, left out), its bit in *bit; NULL past the last.
 */
extern const char *libra_sla_term(size_t i, uint32_t *bit);

/* The bit of the term named key (no alias), or 0. */
extern uint32_t libra_sla_term_bit(const char *key);

/*
 * Parse SLA text (the --comment grammar above).  "now" is the submission
 * time: relative deadlines are converted to absolute ones from it, and it is
 * stored in sla->submit.  Only fields present in the text are set (see
 * sla->set); defaults are applied by libra_sla_finish().
 * Returns LIBRA_SLA_OK, or an error with a message in err (may be NULL).
 */
extern libra_sla_err_t libra_sla_parse(const char *text, double now,
				       libra_sla_t *sla,
				       char *err, size_t errlen);

/* "quote=release:ID" gives quote ID back: the number with this bit. */
#define LIBRA_SLA_QUOTE_RELEASE 0x80000000u
_Static_assert(LIBRA_SLA_QUOTE_MAX_ID < LIBRA_SLA_QUOTE_RELEASE,
	       "a quote's number leaves the release bit free");

/* Does the SLA take a quote ("quote=ID")?  It then holds nothing else. */
static inline bool libra_sla_takes_quote(const libra_sla_t *sla)
{
	return (sla->set & LIBRA_SLA_QUOTE) && sla->quote &&
	       !(sla->quote & LIBRA_SLA_QUOTE_RELEASE);
}

/* Does it give a quote back ("quote=release:ID")?  Nothing else either. */
static inline bool libra_sla_releases_quote(const libra_sla_t *sla)
{
	return (sla->set & LIBRA_SLA_QUOTE) &&
	       (sla->quote & LIBRA_SLA_QUOTE_RELEASE);
}

/* The number of the quote taken or given back (0: quote=hold). */
static inline uint32_t libra_sla_quote_id(const libra_sla_t *sla)
{
	return sla->quote & ~LIBRA_SLA_QUOTE_RELEASE;
}

/*
 * "quote=ID" or "quote=release:ID" with any other field is an error (the
 * quote carries the SLA; a release makes no job): LIBRA_SLA_EDUP with a
 * message naming the first other key, else OK.
 */
extern libra_sla_err_t libra_sla_check_quote(const libra_sla_t *sla,
					     char *err, size_t errlen);

/*
 * Parse one value for one key into sla: each field of libra_sla_parse(),
 * and the SPANK options, which carry one field each.  Same rules and
 * messages as libra_sla_parse().
 */
extern libra_sla_err_t libra_sla_parse_field(const char *key,
					     const char *value, double now,
					     libra_sla_t *sla,
					     char *err, size_t errlen);

/*
 * Merge src into dst: fields set only in src are copied; a field set in both
 * with different values is LIBRA_SLA_EDUP naming the key and both sources.
 */
extern libra_sla_err_t libra_sla_merge(libra_sla_t *dst, const char *dst_name,
				       const libra_sla_t *src,
				       const char *src_name,
				       char *err, size_t errlen);

/*
 * Complete an SLA with what Slurm itself knows and check the rules:
 *   time_limit	 --time in seconds (0: none); the runtime estimate when no
 *		 runtime= was given.
 *   slurm_deadline  --deadline as absolute time (0: none); the deadline when
 *		 no deadline= was given; both given and different is an error.
 * Rules: runtime and deadline must be known; runtime > 0; deadline after
 * submit + runtime (else LIBRA_SLA_EDEADLINE); the due date, if any, after
 * submit + runtime and not after the deadline (the two comparisons with
 * the runtime left to the caller with LIBRA_SLA_RUNTIME_LATER).  Unset budget means "no limit", unset penalty 0,
 * unset type hard.
 */
extern libra_sla_err_t libra_sla_finish(libra_sla_t *sla, double time_limit,
					double slurm_deadline, unsigned flags,
					char *err, size_t errlen);

/* libra_sla_finish()'s flags: the runtime is held against the deadline
 * (and the due date) later, by libra_sla_check_runtime(), once a
 * prediction may have replaced it (libra_predict, decision 23). */
#define LIBRA_SLA_RUNTIME_LATER 0x1

/* Does the runtime fit before the deadline and the due date, from
 * submission?  LIBRA_SLA_OK, or LIBRA_SLA_EDEADLINE with the message. */
extern libra_sla_err_t libra_sla_check_runtime(const libra_sla_t *sla,
					       char *err, size_t errlen);

/*
 * The site's bounds on an admission's terms (decision 37): a runtime
 * estimate of at least runtime_min seconds, a deadline at most window_max
 * seconds from submission (0: no bound) and a penalty rate of at most
 * rate_max per hour (0: no bound).  Returns LIBRA_SLA_ERANGE with the key
 * and the site's parameter named when one is not met.
 */
extern libra_sla_err_t libra_sla_check_site(const libra_sla_t *sla,
					    double runtime_min,
					    double window_max,
					    double rate_max, char *err,
					    size_t errlen);

/* "value", "standard", "premium" ("none" for LIBRA_TIER_NONE), from
 * libra_tier_names. */
extern const char *libra_tier_name(libra_tier_t tier);
extern bool libra_tier_from_name(const char *name, libra_tier_t *tier);

/* When the job's committed share is to finish its estimate: the target an
 * admission set, else the deadline. */
static inline double libra_sla_target(const libra_sla_t *sla)
{
	return (sla->set & LIBRA_SLA_TARGET) ? sla->target : sla->deadline;
}

/*
 * The SLA a re-planned job commits (doc/design.md decision 34): sla with
 * the new plan as its runtime and its share aimed at end, the paced end
 * (libra_replan()); a due date keeps its own target, and an end at or
 * past the deadline leaves the deadline.
 */
extern void libra_sla_replanned(const libra_sla_t *sla, double runtime,
				double end, libra_sla_t *out);

/* True when the user gave a budget; otherwise any price is acceptable. */
static inline bool libra_sla_has_budget(const libra_sla_t *sla)
{
	return (sla->set & LIBRA_SLA_BUDGET) != 0;
}

/* The most the penalty can be (ISQoS's cap; settle.h): the SLA's
 * penalty_cap, INFINITY without one. */
static inline double libra_sla_penalty_cap(const libra_sla_t *sla)
{
	return (sla->set & LIBRA_SLA_PENALTY_CAP) ? sla->penalty_cap :
						    INFINITY;
}

/*
 * Parse a duration ("90s", "2h", "1-12:00:00", "30" = minutes) into seconds.
 * Returns LIBRA_SLA_OK, LIBRA_SLA_EVALUE or LIBRA_SLA_ERANGE; the message
 * names "what" (a key or option name).
 */
extern libra_sla_err_t libra_parse_duration(const char *what, const char *s,
					    double *secs,
					    char *err, size_t errlen);

/*
 * Parse a non-negative finite decimal number ("12", "0.5", "1e3"); hex,
 * "inf", "nan", signs and trailing garbage are refused.
 */
extern libra_sla_err_t libra_parse_money(const char *what, const char *s,
					 double *val, char *err, size_t errlen);

/* Format whole seconds as a duration the parser reads back exactly
 * ("2h", "1h30m", "45s", "3d4h5m"). */
extern void libra_format_duration(double secs, char *buf, size_t len);

#endif /* LIBRA_SLA_H */
