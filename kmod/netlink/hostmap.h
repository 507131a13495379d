/* SPDX-License-Identifier: GPL-2.0 */
/* Host maps from requests (cmd_hostmap.c), for the restore too. */
#ifndef _KLB_NETLINK_HOSTMAP_H
#define _KLB_NETLINK_HOSTMAP_H

#include <net/genetlink.h>

#include "klb.h"

/*
 * The KLB_A_HOSTMAP attributes at the top level of a RESTORE request: the
 * maps of the staged @services (pools from @pools), given to them. On an
 * error they have none of them and extack says which entry.
 */
int klb_nl_hostmap_restore(struct klb_net *kn, struct genl_info *info,
			   struct list_head *services, struct list_head *pools);

#endif /* _KLB_NETLINK_HOSTMAP_H */
