/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  speed.h - the nodes' speeds as the site writes them (doc/design.md
 *  decision 43): a node's CPU relative to the reference CPU that runtime
 *  estimates are given in (1: it; 2: twice as fast).  A job of RE reference
 *  seconds takes RE / speed of a node's CPU seconds (ledger.h).
 *
 *  Written in SchedulerParameters as hostlists and their speeds, ';'
 *  between entries, a later entry winning for a node named twice; nodes
 *  named by none are of speed 1:
 *
 *	libra_node_speed=n[1-16]:0.5;gpu[1-4]:1.5
 *
 *  A hostlist may hold commas inside its brackets (n[1,3-5]); the plugins
 *  expand it with Slurm's own hostlist code, the core only checks its form.
\*****************************************************************************/

#ifndef LIBRA_SPEED_H
#define LIBRA_SPEED_H

#include <stddef.h>

#define LIBRA_SPEED_MAP_MAX 32		/* entries */
#define LIBRA_SPEED_NODES_LEN 128	/* a hostlist, its NUL included */
/* (ledger.h's LIBRA_SPEED_MAX bounds each speed: 64) */

typedef struct libra_speed_map {
	int n;				/* entries; 0: every node at 1 */
	struct {
		char nodes[LIBRA_SPEED_NODES_LEN];	/* a hostlist */
		double speed;				/* in (0, 64] */
	} e[LIBRA_SPEED_MAP_MAX];
} libra_speed_map_t;

/*
 * Parse spec: "HOSTLIST:SPEED;HOSTLIST:SPEED;...", or "" or "none" (every
 * node at 1).  Returns 0, or -1 with "libra_node_speed: why" in err
 * (naming the entry) and *m unchanged.
 */
extern int libra_speed_map_parse(libra_speed_map_t *m, const char *spec,
				 char *err, size_t errlen);

/* The map as libra_speed_map_parse() reads it ("none" when empty). */
extern void libra_speed_map_format(const libra_speed_map_t *m, char *buf,
				   size_t len);

#endif /* LIBRA_SPEED_H */
