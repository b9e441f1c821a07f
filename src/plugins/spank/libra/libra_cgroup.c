/*****************************************************************************\
 *  libra_cgroup.c - node-side enforcement of deadline shares.
 *
 *  Not yet implemented: see issue "Node-side enforcement".  Until then the
 *  plugin only registers the SLA options.
\*****************************************************************************/

#include "libra_cgroup.h"

extern int libra_cgroup_init(spank_t sp, int ac, char **av)
{
	return 0;
}

extern int libra_cgroup_task(spank_t sp)
{
	return 0;
}

extern int libra_cgroup_exit(spank_t sp)
{
	return 0;
}
