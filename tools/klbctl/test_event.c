// SPDX-License-Identifier: GPL-2.0
/*
 * Prints made-up klb event messages through event.c, as `klbctl monitor`
 * would ("json" argument: as with -j); test.sh checks the lines.
 */
#include <arpa/inet.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/klb.h>

#include "klbctl.h"
#include "event.h"

bool opt_json;
int opt_stats;

static char buf[8192] __attribute__((aligned(NLMSG_ALIGNTO)));

static struct nlmsghdr *msg(uint8_t cmd)
{
	struct nlmsghdr *nlh = mnl_nlmsg_put_header(buf);
	struct genlmsghdr *genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));

	nlh->nlmsg_type = 0x20;
	genl->cmd = cmd;
	genl->version = KLB_GENL_VERSION;
	return nlh;
}

/* 2026-12-05T12:00:00.123456 UTC */
#define T ((uint64_t)1796472000 * 1000000000 + 123456789)

static struct nlattr *event(struct nlmsghdr *nlh, uint8_t object, uint8_t action)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, KLB_A_EVENT);

	mnl_attr_put_u8(nlh, KLB_EVENT_A_OBJECT, object);
	mnl_attr_put_u8(nlh, KLB_EVENT_A_ACTION, action);
	mnl_attr_put_u64(nlh, KLB_EVENT_A_TIME, T);
	return nest;
}

static void backend(struct nlmsghdr *nlh, int family, const char *addr,
		    uint16_t port, uint32_t weight, uint8_t state)
{
	struct nlattr *nest = mnl_attr_nest_start(nlh, KLB_EVENT_A_BACKEND);
	unsigned char a[16];

	inet_pton(family, addr, a);
	if (family == AF_INET)
		mnl_attr_put(nlh, KLB_BACKEND_A_ADDR4, 4, a);
	else
		mnl_attr_put(nlh, KLB_BACKEND_A_ADDR6, 16, a);
	mnl_attr_put_u16(nlh, KLB_BACKEND_A_PORT, port);
	mnl_attr_put_u32(nlh, KLB_BACKEND_A_WEIGHT, weight);
	mnl_attr_put_u8(nlh, KLB_BACKEND_A_STATE, state);
	mnl_attr_nest_end(nlh, nest);
}

int main(int argc, char **argv)
{
	struct nlmsghdr *nlh;
	struct nlattr *nest;

	opt_json = argc > 1 && !strcmp(argv[1], "json");

	nlh = msg(KLB_CMD_EVENT);
	nest = event(nlh, KLB_EVENT_POOL, KLB_EVENT_NEW);
	mnl_attr_put_strz(nlh, KLB_EVENT_A_POOL, "web");
	mnl_attr_put_u8(nlh, KLB_EVENT_A_SCHED, KLB_SCHED_MH);
	mnl_attr_nest_end(nlh, nest);
	event_print(nlh, EVENT_ALL);

	nlh = msg(KLB_CMD_EVENT);
	nest = event(nlh, KLB_EVENT_BACKEND, KLB_EVENT_STATE);
	mnl_attr_put_strz(nlh, KLB_EVENT_A_POOL, "web");
	backend(nlh, AF_INET, "10.0.1.1", 80, 2, KLB_BACKEND_DRAIN);
	mnl_attr_put_strz(nlh, KLB_EVENT_A_REASON, "operator");
	mnl_attr_nest_end(nlh, nest);
	event_print(nlh, EVENT_ALL);

	nlh = msg(KLB_CMD_EVENT);
	nest = event(nlh, KLB_EVENT_BACKEND, KLB_EVENT_HEALTH);
	mnl_attr_put_strz(nlh, KLB_EVENT_A_POOL, "six");
	backend(nlh, AF_INET6, "fd00::1", 8080, 1, KLB_BACKEND_UP);
	mnl_attr_put_strz(nlh, KLB_EVENT_A_REASON, "http check: \"status\" 503");
	mnl_attr_nest_end(nlh, nest);
	event_print(nlh, EVENT_ALL);

	/* filtered out: a service event when only backends are asked for */
	nlh = msg(KLB_CMD_EVENT);
	nest = event(nlh, KLB_EVENT_SERVICE, KLB_EVENT_DEL);
	mnl_attr_put_strz(nlh, KLB_EVENT_A_SERVICE, "hidden");
	mnl_attr_nest_end(nlh, nest);
	event_print(nlh, EVENT_BIT(KLB_EVENT_BACKEND));

	nlh = msg(KLB_CMD_EVENT);
	nest = event(nlh, KLB_EVENT_SERVICE, KLB_EVENT_NEW);
	mnl_attr_put_strz(nlh, KLB_EVENT_A_SERVICE, "www");
	mnl_attr_put_strz(nlh, KLB_EVENT_A_POOL, "web");
	mnl_attr_nest_end(nlh, nest);
	event_print(nlh, EVENT_ALL);

	/* config events pass every filter; unknown values are named */
	nlh = msg(KLB_CMD_EVENT);
	nest = event(nlh, KLB_EVENT_CONFIG, KLB_EVENT_FLUSH);
	mnl_attr_put_u32(nlh, KLB_EVENT_A_POOLS, 2);
	mnl_attr_put_u32(nlh, KLB_EVENT_A_SERVICES, 1);
	mnl_attr_put_u32(nlh, KLB_EVENT_A_BACKENDS, 3);
	mnl_attr_nest_end(nlh, nest);
	event_print(nlh, EVENT_BIT(KLB_EVENT_POOL));

	nlh = msg(KLB_CMD_EVENT);
	nest = event(nlh, KLB_EVENT_POOL, 200);
	mnl_attr_put_strz(nlh, KLB_EVENT_A_POOL, "web");
	mnl_attr_nest_end(nlh, nest);
	event_print(nlh, EVENT_ALL);

	/* not an event: nothing */
	nlh = msg(KLB_CMD_POOL_GET);
	event_print(nlh, EVENT_ALL);
	return 0;
}
