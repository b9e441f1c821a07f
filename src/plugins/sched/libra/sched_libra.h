/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  sched_libra.h - sched/libra's scheduler thread (sched_libra.c), started
 *  and stopped by the plugin glue (sched_libra_wrapper.c).
\*****************************************************************************/

#ifndef _SCHED_LIBRA_H
#define _SCHED_LIBRA_H

#include <time.h>

extern const char plugin_type[];

/* Start the scheduler thread. */
extern int libra_sched_start(void);

/* Stop it and wait for it to end. */
extern void libra_sched_stop(void);

/* sched_libra_power.c: the power plan (decision 24).  libra_power_pass()
 * runs at the end of each pass, under its locks; libra_power_flush()
 * after them writes the power states noted to StateSaveLocation/libra_power;
 * libra_power_fini() frees its tables. */
extern void libra_power_pass(time_t now);
extern void libra_power_flush(void);
extern void libra_power_fini(void);

#endif /* _SCHED_LIBRA_H */
