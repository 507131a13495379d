// SPDX-License-Identifier: GPL-2.0
/* STUB: being written */
#include "l7.h"

int klb_l7_module_init(void) { return 0; }
void klb_l7_module_exit(void) { }
int klb_l7_net_init(struct klb_net *kn) { return 0; }
void klb_l7_net_exit(struct klb_net *kn) { }
int klb_l7_service_start(struct klb_net *kn, struct klb_service *svc,
			 struct netlink_ext_ack *extack) { return -EOPNOTSUPP; }
void klb_l7_service_stop(struct klb_net *kn, struct klb_service *svc) { }
void klb_l7_backend_removed(struct klb_net *kn, struct klb_backend *be) { }
unsigned int klb_l7_steer(struct klb_net *kn, struct klb_service *svc,
			  struct sk_buff *skb) { return NF_ACCEPT; }
