/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  statefile.h - the small text files of state the plugins keep in
 *  StateSaveLocation beside slurmctld's (the book of binding quotes,
 *  Libra+$Auto's betas: doc/design.md decisions 9 and 20).
 *
 *  A file is a first line "<magic> <version>", then one record per line;
 *  blank lines and lines starting with '#' are ignored.  A record that does
 *  not read is skipped and reported as "<name>:<line>: <what is wrong>",
 *  and the others are read as if it were not there.  A file whose first
 *  line is not its magic and version is not read at all (a newer version
 *  of the plugins wrote it, or it is not such a file).
 *
 *  Records of key=value fields are read and written from one table per
 *  record (libra_field_t), so that every field written is read back and a
 *  missing, unknown or repeated one is named.
\*****************************************************************************/

#ifndef LIBRA_STATEFILE_H
#define LIBRA_STATEFILE_H

#include <stddef.h>
#include <stdint.h>

/* Where a skipped line is reported (the plugins: error()). */
typedef void libra_report_fn(void *arg, const char *msg);

/*
 * Read one record: line is NUL-terminated, without its newline, and may
 * be written to.  0, or -1 with what is wrong in why[len].
 */
typedef int libra_line_fn(void *arg, char *line, char *why, size_t len);

/*
 * Hand each record of text to fn, reporting the ones it refuses.  Returns
 * the number of records fn read, or -1 when the first line is not
 * "<magic> <version>" (reported; no record is read).
 */
extern int libra_statefile_read(const char *text, const char *name,
				const char *magic, int version,
				libra_line_fn *fn, void *arg,
				libra_report_fn *report, void *rarg);

typedef enum {
	LIBRA_FIELD_U32,
	LIBRA_FIELD_INT,	/* int, and enums (int-sized) */
	LIBRA_FIELD_U64,
	LIBRA_FIELD_DOUBLE,	/* written with 17 digits: read back exact */
	LIBRA_FIELD_BOOL,	/* 0 or 1 */
	LIBRA_FIELD_STR,	/* char[size], no blanks; may be empty */
} libra_field_type_t;

typedef struct libra_field {
	const char *key;
	libra_field_type_t type;
	size_t offset;		/* offsetof() in the record's struct */
	size_t size;		/* LIBRA_FIELD_STR: the array's size */
} libra_field_t;

/* The most fields a table has. */
#define LIBRA_FIELDS_MAX 64

/*
 * Append " key=value" for every field of the table, from rec, to buf[len]
 * at *pos.  0, or -1 when buf is too short.
 */
extern int libra_fields_format(const libra_field_t *f, int n, const void *rec,
			       char *buf, size_t len, size_t *pos);

/*
 * Read the blank-separated key=value words of line into rec: every field
 * of the table exactly once; a word whose key is "extra" (may be NULL) is
 * handed back in *extra_val instead.  0, or -1 with why.
 */
extern int libra_fields_parse(const libra_field_t *f, int n, char *line,
			      void *rec, const char *extra, char **extra_val,
			      char *why, size_t len);

/* Write all of buf to fd, again after EINTR: 0, or -1 with errno set
 * (EIO for a write of nothing).  For the state files' writers. */
extern int libra_write_all(int fd, const char *buf, size_t len);

#endif /* LIBRA_STATEFILE_H */
