/* SPDX-License-Identifier: GPL-2.0 */
/* The klb generic netlink family (family.c), for main.c. */
#ifndef _KLB_NETLINK_FAMILY_H
#define _KLB_NETLINK_FAMILY_H

int klb_genl_init(void);
void klb_genl_exit(void);

#endif /* _KLB_NETLINK_FAMILY_H */
