// SPDX-License-Identifier: GPL-2.0
/* Rules of http and tls services: STUB, replaced by the config-layer work. */
#include "klb.h"

struct klb_pool *klb_l7_route_rcu(struct klb_service *svc,
				  const struct klb_rule_input *in)
{
	return rcu_dereference(svc->pool);
}
