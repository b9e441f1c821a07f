/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sched_libra.h - sched/libra's scheduler thread (sched_libra.c), started
 *  and stopped by the plugin glue (sched_libra_wrapper.c).
\*****************************************************************************/

#ifndef _SCHED_LIBRA_H
#define _SCHED_LIBRA_H

extern const char plugin_type[];

/* Start the scheduler thread. */
extern int libra_sched_start(void);

/* Stop it and wait for it to end. */
extern void libra_sched_stop(void);

#endif /* _SCHED_LIBRA_H */
