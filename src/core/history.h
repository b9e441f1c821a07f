/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  history.h - the file of finished jobs the runtime predictor reads
 *  (StateSaveLocation/libra_history; doc/design.md decision 23).
 *
 *  One finished job a line, as libra_predict_format_line() writes it,
 *  appended by one writer (jobcomp/libra) and read whole into a predictor
 *  when the predictor is made.  The predictor holds the last
 *  LIBRA_PREDICT_DEPTH jobs of each key only, so the file is compacted to
 *  the lines that some key still holds (libra_predictor_needs_line()):
 *  a predictor read from the compacted file predicts as one read from
 *  every line ever appended.
 *
 *  When: an append answers 1 once the file has grown past twice its
 *  length after the last compaction plus a slack (LIBRA_HISTORY_SLACK by
 *  default), so compacting costs O(1) reads and writes per line appended
 *  and the file stays within twice the lines its keys hold, plus the
 *  slack.  A writer that starts knows no compaction, so its first append
 *  to a file longer than the slack compacts it (a file grown by a release
 *  without compaction is compacted at the first job that ends).
 *
 *  Crash safety: libra_history_compact() writes the lines it keeps to
 *  "<path>.new" in the same directory, flushes it to disk, and renames it
 *  over the file.  Until the rename the file is as it was (a crash leaves
 *  at most a stale "<path>.new", truncated by the next compaction); after
 *  it, the new file holds every line the predictor needs.
 *
 *  Concurrency: appends and compaction take the history's own mutex, and
 *  compaction holds it only to note the file's length at its start and
 *  to finish: it reads and writes the lines outside it, then, holding it,
 *  copies the lines appended meanwhile to the end of the new file,
 *  flushes them and renames it.  So an append waits at most for that copy
 *  and the rename, and compaction may run in a thread of its own while
 *  appends go on.
 *  One compaction at a time.
\*****************************************************************************/

#ifndef LIBRA_HISTORY_H
#define LIBRA_HISTORY_H

#include <stddef.h>
#include <stdint.h>

#include "predict.h"

/* Growth past twice the compacted length before compacting again [bytes]:
 * about 1,300 lines. */
#define LIBRA_HISTORY_SLACK 65536

typedef struct libra_history libra_history_t;

/* What a compaction did. */
typedef struct libra_history_stats {
	uint64_t lines;		/* lines read (those there when it began) */
	uint64_t kept;		/* of them, written to the new file */
	uint64_t skipped;	/* of them, lines that do not read (dropped,
				 * as the reader skips them) */
	uint64_t appended;	/* bytes appended meanwhile, copied after */
	uint64_t before;	/* the file's length when it began [bytes] */
	uint64_t after;		/* the new file's length [bytes] */
} libra_history_stats_t;

/*
 * The history file at path (which need not exist yet), compacted once it
 * grows past twice its compacted length plus slack bytes (0: the
 * default).  No file is touched.  NULL out of memory.
 */
extern libra_history_t *libra_history_create(const char *path, size_t slack);
extern void libra_history_destroy(libra_history_t *h);
extern const char *libra_history_path(const libra_history_t *h);

/*
 * Append one line (len bytes, with its newline) in one write; the file is
 * created (mode 0600) if absent.  A last line that a crash left without
 * its newline gets one first, so that it does not swallow this one.
 * Returns 0; 1 when, besides, the file is due for compaction: the caller
 * then calls libra_history_compact(), from any thread (no append answers
 * 1 again before it has); -1 with errno set when the line could not be
 * appended (a short write may leave a torn line, which the reader skips).
 */
extern int libra_history_append(libra_history_t *h, const char *line,
				size_t len);

/*
 * Compact the file: keep, in their order, the lines the predictor needs
 * (libra_predictor_needs_line()), then the lines appended since it began.
 * Returns 0 (also when there is no file), filling *st; -1 with errno set
 * when it could not (the file stays as it was; EBUSY: another compaction
 * is running; ESTALE: the file was replaced meanwhile).  Needs memory for
 * a predictor of the file's keys.
 */
extern int libra_history_compact(libra_history_t *h,
				 libra_history_stats_t *st);

/*
 * Record every line of the history file at path into pred
 * (libra_predictor_record_line()); *read lines recorded, *skipped lines
 * that do not read.  Returns 0, or -1 with errno set when the file cannot
 * be opened (ENOENT: there is no history yet) or read.
 */
extern int libra_history_load(const char *path, libra_predictor_t *pred,
			      uint64_t *read, uint64_t *skipped);

#endif /* LIBRA_HISTORY_H */
