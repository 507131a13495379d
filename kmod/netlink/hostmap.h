/* SPDX-License-Identifier: GPL-2.0 */
/* Host maps from requests (cmd_hostmap.c), for the restore too. */
#ifndef _KLB_NETLINK_HOSTMAP_H
#define _KLB_NETLINK_HOSTMAP_H

#include <net/genetlink.h>

#include "klb.h"

struct klb_staged;

/*
 * The KLB_A_HOSTMAP attributes at the top level of a RESTORE or
 * RESTORE_COMMIT request: the maps of the staged services (pools of @st
 * too, both looked up through its indexes), given to them. On an error
 * they have none of them and extack says which entry.
 */
int klb_nl_hostmap_restore(struct klb_net *kn, struct genl_info *info,
			   struct klb_staged *st);

#endif /* _KLB_NETLINK_HOSTMAP_H */
