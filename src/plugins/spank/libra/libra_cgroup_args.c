/* SPDX-License-Identifier: GPL-2.0-or-later */
/*****************************************************************************\
 *  libra_cgroup_args.c - the SPANK plugin's plugstack.conf arguments for
 *  its cgroup code (libra_cgroup.c's header lists them): enforce, pin,
 *  interval, share_min, top_weight, cgroup_root, cgroup_v2_root,
 *  cgroup_prefix.  interval and share_min are the core's
 *  libra_weight_interval and libra_share_min, checked by its parameter
 *  table as slurm.conf's are; an argument not understood is refused, and
 *  logged.
\*****************************************************************************/

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include <slurm/slurm.h>
#include <slurm/spank.h>

#include "libra_cgroup_int.h"
#include "number.h"
#include "params_base.h"

/*
 * A yes/no argument, read as the core reads its yes/no parameters
 * (libra_yes_no_names: yes, on, 1 or no, off, 0).  Anything else is
 * refused (-1, logged): "enforce=maybe" must not quietly switch
 * enforcement off.
 */
static int _yes_no(const char *key, const char *v, bool *out)
{
	char list[LIBRA_NAMES_MAX];
	int b;

	if (libra_value_of(libra_yes_no_names, v, &b)) {
		*out = b;
		return 0;
	}
	slurm_error("libra: plugstack argument %s=%s: say %s", key, v,
		    libra_names_list(libra_yes_no_names, list, sizeof(list)));
	return -1;
}

/*
 * interval and share_min are the core's libra_weight_interval and
 * libra_share_min: parsed and range-checked by its one parameter table
 * (libra_params_set_base(), params_base.h), so plugstack.conf takes what
 * slurm.conf takes and "interval=5x" is refused.  Returns 0, or -1 with
 * the argument (its first len bytes name it) in the log.
 */
static int _set_param(const char *arg, size_t len, const char *key,
		      const char *val, libra_params_t *p)
{
	char msg[160];

	if (!libra_params_set_base(p, key, val, msg, sizeof(msg)))
		return 0;
	slurm_error("libra: plugstack argument %.*s: %s", (int) len, arg, msg);
	return -1;
}

/* top_weight: cpu.shares' own range (v2's cpu.weight is capped at 10000
 * when written, _top_weight()). */
static const libra_range_t top_weight_range = {
	.min = 1, .max = 262144, .whole = true,
};

/*
 * The plugstack arguments into cg and libra_dir.  Returns 0, or -1 at the
 * first argument refused (logged).
 */
extern int libra_cgroup_parse_args(int ac, char **av)
{
	libra_params_t p;

	libra_params_default(&p);
	p.weight_interval = cg.interval;
	p.share_min = cg.share_min;
	for (int i = 0; i < ac; i++) {
		char *eq = strchr(av[i], '=');
		const char *val = eq ? eq + 1 : "";
		size_t klen = eq ? (size_t) (eq - av[i]) : strlen(av[i]);
		char msg[160];
		double w;

		if (!strncmp(av[i], "enforce", klen) && klen == 7) {
			if (_yes_no("enforce", val, &cg.enforce))
				return -1;
		} else if (!strncmp(av[i], "pin", klen) && klen == 3) {
			if (_yes_no("pin", val, &cg.pin))
				return -1;
		} else if (!strncmp(av[i], "interval", klen) && klen == 8) {
			if (_set_param(av[i], klen, "libra_weight_interval",
				       val, &p))
				return -1;
			cg.interval = p.weight_interval;
		} else if (!strncmp(av[i], "share_min", klen) && klen == 9) {
			if (_set_param(av[i], klen, "libra_share_min", val,
				       &p))
				return -1;
			cg.share_min = p.share_min;
		} else if (!strncmp(av[i], "top_weight", klen) && klen == 10) {
			if (libra_parse_number("top_weight", val,
					       &top_weight_range, &w, msg,
					       sizeof(msg))) {
				slurm_error("libra: plugstack argument %s", msg);
				return -1;
			}
			cg.top_weight = (unsigned) w;
		} else if (!strncmp(av[i], "cgroup_root", klen) && klen == 11) {
			snprintf(cg.root, sizeof(cg.root), "%s", val);
		} else if (!strncmp(av[i], "cgroup_v2_root", klen) &&
			   klen == 14) {
			if (val[0] != '/' || strlen(val) >= sizeof(cg.v2root)) {
				slurm_error("libra: cgroup_v2_root=%s: give an absolute path",
					    val);
				return -1;
			}
			snprintf(cg.v2root, sizeof(cg.v2root), "%s", val);
		} else if (!strncmp(av[i], "cgroup_prefix", klen) &&
			   klen == 13) {
			if (!*val || strlen(val) >= sizeof(libra_dir) ||
			    strspn(val, "abcdefghijklmnopqrstuvwxyz"
				   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-.") !=
			    strlen(val) || val[0] == '.') {
				slurm_error("libra: cgroup_prefix=%s: use letters, digits, '_', '-', '.'",
					    val);
				return -1;
			}
			snprintf(libra_dir, sizeof(libra_dir), "%s", val);
		} else {
			slurm_error("libra: unknown plugstack argument '%s' (enforce, interval, share_min, pin, top_weight, cgroup_root, cgroup_v2_root, cgroup_prefix)",
				    av[i]);
			return -1;
		}
	}
	return 0;
}
