/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  nodemap.h - a number per node as the site writes it (doc/design.md
 *  decision 43): hostlists and their values, ';' between entries, a later
 *  entry winning for a node named twice; nodes named by none keep 1.  Two
 *  SchedulerParameters keys are such maps:
 *
 *	libra_node_speed=n[1-16]:0.5;gpu[1-4]:1.5
 *	libra_node_price=gpu[1-4]:2
 *
 *  the speed of a node's CPU relative to the reference CPU runtime
 *  estimates are given in (ledger.h: a job of RE reference seconds takes
 *  RE / speed of the node's), and the factor of a node's base price
 *  (the thesis' PBase_j: new hardware dearer, price.h).
 *
 *  A hostlist may hold commas inside its brackets (n[1,3-5]); the plugins
 *  expand it with Slurm's own hostlist code, the core only checks its form.
\*****************************************************************************/

#ifndef LIBRA_NODEMAP_H
#define LIBRA_NODEMAP_H

#include <stddef.h>

#define LIBRA_NODE_MAP_MAX 32		/* entries */
#define LIBRA_NODE_MAP_NODES_LEN 128	/* a hostlist, its NUL included */

typedef struct libra_node_map {
	int n;				/* entries; 0: every node at 1 */
	struct {
		char nodes[LIBRA_NODE_MAP_NODES_LEN];	/* a hostlist */
		double value;				/* in (0, max] */
	} e[LIBRA_NODE_MAP_MAX];
} libra_node_map_t;

/*
 * Parse spec: "HOSTLIST:VALUE;HOSTLIST:VALUE;...", or "" or "none" (every
 * node at 1), each value a plain decimal in (0, max].  Returns 0, or -1
 * with "key: 'entry': why" in err and *m unchanged.
 */
extern int libra_node_map_parse(libra_node_map_t *m, const char *key,
				double max, const char *spec, char *err,
				size_t errlen);

/*
 * strtok_r() on ',' but for the commas inside brackets: the next item of
 * a comma-separated list whose items may be hostlists (n[1,3]) in s (the
 * first call) or after *save; NULL at the end.  s is cut, as by strtok_r().
 */
extern char *libra_hostlist_next(char *s, char **save);

/* The map as libra_node_map_parse() reads it ("none" when empty). */
extern void libra_node_map_format(const libra_node_map_t *m, char *buf,
				  size_t len);

#endif /* LIBRA_NODEMAP_H */
