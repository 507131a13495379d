// SPDX-License-Identifier: GPL-2.0
/*
 * A klb event, printed the way `ip monitor` prints a change: one line per
 * event, in text
 *
 *   [2026-12-05T12:51:00.123456] backend state web 10.0.1.1:80 weight 1 state drain reason operator
 *
 * and with -j one JSON object per line, flushed at once, so that
 * `klbctl -j monitor | while read -r l; do ...; done` sees each event as it
 * happens. The timestamp is the kernel's (when it changed), in local time,
 * as `ip monitor -ts` prints its own.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/klb.h>

#include "klbctl.h"
#include "event.h"
#include "nl.h"
#include "objects.h"
#include "print.h"

static const struct word object_words[] = {
	{ "pool", KLB_EVENT_POOL },
	{ "backend", KLB_EVENT_BACKEND },
	{ "service", KLB_EVENT_SERVICE },
	{ "config", KLB_EVENT_CONFIG },
};

static const struct word action_words[] = {
	{ "new", KLB_EVENT_NEW },
	{ "set", KLB_EVENT_SET },
	{ "del", KLB_EVENT_DEL },
	{ "state", KLB_EVENT_STATE },
	{ "health", KLB_EVENT_HEALTH },
	{ "flush", KLB_EVENT_FLUSH },
	{ "restore", KLB_EVENT_RESTORE },
};

/* "2026-12-05T12:51:00.123456", local time, as ip monitor -ts. */
static const char *event_time(uint64_t ns, char *buf, size_t len)
{
	time_t sec = (time_t)(ns / 1000000000u);
	size_t n;
	struct tm tm;

	if (!localtime_r(&sec, &tm) ||
	    !(n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm)))
		return "?";
	snprintf(buf + n, len - n, ".%06u",
		 (unsigned int)(ns % 1000000000u / 1000u));
	return buf;
}

/* A name or reason: as it is, or quoted as save quotes words. */
static void event_string(const char *key, const char *text_fmt,
			 const struct nlattr *a)
{
	char *s = attr_strdup(a), *q;

	if (!s)
		return;
	q = is_json_context() ? NULL : word_quote(s);
	print_string(PRINT_ANY, key, text_fmt, q ? q : s);
	free(q);
	free(s);
}

static void event_backend(const struct nlattr *nest)
{
	const struct nlattr *tb[KLB_BACKEND_A_MAX + 1];
	char buf[ADDRPORT_STRLEN], name[32];
	struct klb_addr addr;

	nest_parse(nest, tb, KLB_BACKEND_A_MAX);
	if (!addr_get(tb[KLB_BACKEND_A_ADDR4], tb[KLB_BACKEND_A_ADDR6],
		      tb[KLB_BACKEND_A_PORT], &addr))
		return;
	open_json_object("backend");
	print_string(PRINT_FP, NULL, " %s", addrport_str(&addr, buf, sizeof(buf)));
	print_string(PRINT_JSON, "addr", NULL, addr_str(&addr, buf, sizeof(buf)));
	print_uint(PRINT_JSON, "port", NULL, addr.port);
	if (tb[KLB_BACKEND_A_WEIGHT])
		print_uint(PRINT_ANY, "weight", " weight %u",
			   attr_u32(tb[KLB_BACKEND_A_WEIGHT], 0));
	if (tb[KLB_BACKEND_A_STATE])
		print_string(PRINT_ANY, "state", " state %s",
			     word_name(state_words, n_state_words,
				       attr_u8(tb[KLB_BACKEND_A_STATE], 0),
				       name, sizeof(name)));
	if (tb[KLB_BACKEND_A_HEALTH])
		print_string(PRINT_ANY, "health", " health %s",
			     word_name(health_words, n_health_words,
				       attr_u8(tb[KLB_BACKEND_A_HEALTH], 0),
				       name, sizeof(name)));
	if (tb[KLB_BACKEND_A_EJECTED_MS])
		print_uint(PRINT_ANY, "ejected_ms", " ejected for %ums",
			   attr_u32(tb[KLB_BACKEND_A_EJECTED_MS], 0));
	close_json_object();
}

static void event_counts(const struct nlattr **tb)
{
	static const struct {
		int type;
		const char *key, *fmt;
	} counts[] = {
		{ KLB_EVENT_A_POOLS, "pools", " pools %u" },
		{ KLB_EVENT_A_SERVICES, "services", " services %u" },
		{ KLB_EVENT_A_BACKENDS, "backends", " backends %u" },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(counts); i++)
		if (tb[counts[i].type])
			print_uint(PRINT_ANY, counts[i].key, counts[i].fmt,
				   attr_u32(tb[counts[i].type], 0));
}

bool event_print(const struct nlmsghdr *nlh, unsigned int filter)
{
	const struct genlmsghdr *genl = mnl_nlmsg_get_payload(nlh);
	const struct nlattr *top[KLB_A_MAX + 1];
	const struct nlattr *tb[KLB_EVENT_A_MAX + 1];
	char tbuf[64], name[32];
	unsigned int object;
	uint64_t ns;

	if (genl->cmd != KLB_CMD_EVENT)
		return false;
	msg_parse(nlh, top, KLB_A_MAX);
	if (!top[KLB_A_EVENT])
		return false;
	nest_parse(top[KLB_A_EVENT], tb, KLB_EVENT_A_MAX);
	if (!tb[KLB_EVENT_A_OBJECT] || !tb[KLB_EVENT_A_ACTION])
		return false;
	object = attr_u8(tb[KLB_EVENT_A_OBJECT], 0);
	if (object != KLB_EVENT_CONFIG && object < 32 &&
	    !(filter & EVENT_BIT(object)))
		return true;
	ns = attr_u64(tb[KLB_EVENT_A_TIME], 0);

	new_json_obj_plain(opt_json);
	open_json_object(NULL);
	print_string(PRINT_ANY, "time", "[%s]", event_time(ns, tbuf, sizeof(tbuf)));
	print_u64(PRINT_JSON, "time_ns", NULL, ns);
	print_string(PRINT_ANY, "object", " %s",
		     word_name(object_words, ARRAY_SIZE(object_words), object,
			       name, sizeof(name)));
	print_string(PRINT_ANY, "action", " %s",
		     word_name(action_words, ARRAY_SIZE(action_words),
			       attr_u8(tb[KLB_EVENT_A_ACTION], 0),
			       name, sizeof(name)));
	/* The object's own name first: "service www pool web". */
	if (object == KLB_EVENT_SERVICE) {
		event_string("service", " %s", tb[KLB_EVENT_A_SERVICE]);
		event_string("pool", " pool %s", tb[KLB_EVENT_A_POOL]);
	} else {
		event_string("pool", " %s", tb[KLB_EVENT_A_POOL]);
		event_string("service", " service %s", tb[KLB_EVENT_A_SERVICE]);
	}
	if (tb[KLB_EVENT_A_SCHED])
		print_string(PRINT_ANY, "sched", " sched %s",
			     word_name(sched_words, n_sched_words,
				       attr_u8(tb[KLB_EVENT_A_SCHED], 0),
				       name, sizeof(name)));
	if (tb[KLB_EVENT_A_BACKEND])
		event_backend(tb[KLB_EVENT_A_BACKEND]);
	event_counts(tb);
	event_string("reason", " reason %s", tb[KLB_EVENT_A_REASON]);
	print_nl();
	close_json_object();
	delete_json_obj();
	return true;
}
