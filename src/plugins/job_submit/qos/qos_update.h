/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  qos_update.h - the owner's updates of an admitted job known to be
 *  harmless (qos_update.c; design.md decision 37).
\*****************************************************************************/

#ifndef LIBRA_QOS_UPDATE_H
#define LIBRA_QOS_UPDATE_H

#include <stdbool.h>
#include <stddef.h>

#include "slurm/slurm.h"

/* Make the empty update to compare with (the plugin's init()). */
extern void libra_update_init(void);
extern void libra_update_fini(void);

/*
 * Does update d change anything not on the list of harmless members?
 * *off: the byte offset in job_desc_msg_t of the first such change, for
 * the log.  True when the empty update could not be made.
 */
extern bool libra_update_unknown(const job_desc_msg_t *d, size_t *off);

#endif /* LIBRA_QOS_UPDATE_H */
