// SPDX-License-Identifier: GPL-2.0
/* Counters of backends and services: parsing and printing (-s). */
#include <string.h>

#include <libmnl/libmnl.h>

#include "klbctl.h"
#include "nl.h"
#include "objects.h"
#include "print.h"

void stats_parse(const struct nlattr *nest, struct klb_stats *st)
{
	const struct nlattr *tb[KLB_STATS_A_MAX + 1];
	const struct nlattr *l7[KLB_L7_STATS_A_MAX + 1];
	unsigned int i;

	memset(st, 0, sizeof(*st));
	if (!nest)
		return;
	nest_parse(nest, tb, KLB_STATS_A_MAX);
	for (i = KLB_STATS_A_CONNS; i <= KLB_STATS_A_MAX; i++)
		if (i != KLB_STATS_A_L7)
			st->v[i] = attr_u64(tb[i], 0);
	st->present = true;
	if (!tb[KLB_STATS_A_L7])
		return;
	nest_parse(tb[KLB_STATS_A_L7], l7, KLB_L7_STATS_A_MAX);
	for (i = KLB_L7_STATS_A_REQUESTS; i <= KLB_L7_STATS_A_MAX; i++)
		st->l7[i] = attr_u64(l7[i], 0);
	st->l7_present = true;
}

/* "errors": why requests (or tls connections) failed. */
static void l7_errors_print(const struct klb_stats *st)
{
	open_json_object("errors");
	print_u64(PRINT_ANY, "connect", " errors connect %llu",
		  st->l7[KLB_L7_STATS_A_ERR_CONNECT]);
	print_u64(PRINT_ANY, "timeout", " timeout %llu",
		  st->l7[KLB_L7_STATS_A_ERR_TIMEOUT]);
	print_u64(PRINT_ANY, "reset", " reset %llu", st->l7[KLB_L7_STATS_A_ERR_RESET]);
	print_u64(PRINT_ANY, "parse", " parse %llu", st->l7[KLB_L7_STATS_A_ERR_PARSE]);
	print_u64(PRINT_ANY, "no_backend", " no_backend %llu",
		  st->l7[KLB_L7_STATS_A_ERR_NO_BACKEND]);
	print_u64(PRINT_ANY, "limit", " limit %llu", st->l7[KLB_L7_STATS_A_ERR_LIMIT]);
	close_json_object();
}

/*
 * http: "http requests N 1xx N ... 5xx N" and "http errors ..." lines;
 * tls (REQUESTS counts steered connections, no responses): one line.
 */
static void l7_print(const struct klb_stats *st, const char *key, const char *indent)
{
	static const char *const classes[] = { "1xx", "2xx", "3xx", "4xx", "5xx" };
	char fmt[16];
	unsigned int i;

	open_json_object(key);
	print_string(PRINT_FP, NULL, "%s", indent);
	print_string(PRINT_FP, NULL, "%s", key);
	if (strcmp(key, "tls")) {
		print_u64(PRINT_ANY, "requests", " requests %llu",
			  st->l7[KLB_L7_STATS_A_REQUESTS]);
		open_json_object("responses");
		for (i = 0; i < ARRAY_SIZE(classes); i++) {
			snprintf(fmt, sizeof(fmt), " %s %%llu", classes[i]);
			print_u64(PRINT_ANY, classes[i], fmt,
				  st->l7[KLB_L7_STATS_A_RESP_1XX + i]);
		}
		close_json_object();
		print_nl();
		print_string(PRINT_FP, NULL, "%s", indent);
		print_string(PRINT_FP, NULL, "%s", key);
	} else {
		print_u64(PRINT_ANY, "connections", " connections %llu",
			  st->l7[KLB_L7_STATS_A_REQUESTS]);
	}
	l7_errors_print(st);
	print_nl();
	close_json_object();
}

/* Indented below the object line in text; a "stats" object in JSON. */
void stats_print(const struct klb_stats *st, bool service, const char *l7)
{
	const char *indent = service ? "\t" : "\t\t";

	if (!st->present)
		return;
	open_json_object("stats");
	print_string(PRINT_FP, NULL, "%s", indent);
	print_u64(PRINT_ANY, "conns", "conns %llu", st->v[KLB_STATS_A_CONNS]);
	print_u64(PRINT_ANY, "active_conns", " active %llu",
		  st->v[KLB_STATS_A_ACTIVE_CONNS]);
	print_u64(PRINT_ANY, "pkts_in", " pkts in %llu", st->v[KLB_STATS_A_PKTS_IN]);
	print_u64(PRINT_ANY, "pkts_out", " out %llu", st->v[KLB_STATS_A_PKTS_OUT]);
	print_u64(PRINT_ANY, "bytes_in", " bytes in %llu", st->v[KLB_STATS_A_BYTES_IN]);
	print_u64(PRINT_ANY, "bytes_out", " out %llu", st->v[KLB_STATS_A_BYTES_OUT]);
	print_nl();
	if (st->rate_present) {
		open_json_object("rate");
		print_string(PRINT_FP, NULL, "%s", indent);
		print_u64(PRINT_ANY, "conns", "rate conns/s %llu", st->rate[KLB_STATS_A_CONNS]);
		print_u64(PRINT_ANY, "pkts_in", " pkts/s in %llu", st->rate[KLB_STATS_A_PKTS_IN]);
		print_u64(PRINT_ANY, "pkts_out", " out %llu", st->rate[KLB_STATS_A_PKTS_OUT]);
		print_u64(PRINT_ANY, "bytes_in", " bytes/s in %llu", st->rate[KLB_STATS_A_BYTES_IN]);
		print_u64(PRINT_ANY, "bytes_out", " out %llu", st->rate[KLB_STATS_A_BYTES_OUT]);
		if (st->l7_present)
			print_u64(PRINT_ANY, "requests", " requests/s %llu", st->rate_requests);
		print_nl();
		close_json_object();
	}
	if (service) {
		open_json_object("drops");
		print_string(PRINT_FP, NULL, "%s", indent);
		print_u64(PRINT_ANY, "no_backend", "drops no_backend %llu",
			  st->v[KLB_STATS_A_DROP_NO_BACKEND]);
		print_u64(PRINT_ANY, "table_full", " table_full %llu",
			  st->v[KLB_STATS_A_DROP_TABLE_FULL]);
		print_u64(PRINT_ANY, "bad_packet", " bad_packet %llu",
			  st->v[KLB_STATS_A_DROP_BAD_PACKET]);
		print_u64(PRINT_ANY, "no_port", " no_port %llu",
			  st->v[KLB_STATS_A_DROP_NO_PORT]);
		print_u64(PRINT_ANY, "no_route", " no_route %llu",
			  st->v[KLB_STATS_A_DROP_NO_ROUTE]);
		print_u64(PRINT_ANY, "too_big", " too_big %llu",
			  st->v[KLB_STATS_A_DROP_TOO_BIG]);
		print_u64(PRINT_ANY, "bad_source", " bad_source %llu",
			  st->v[KLB_STATS_A_DROP_BAD_SOURCE]);
		print_u64(PRINT_ANY, "acl", " acl %llu",
			  st->v[KLB_STATS_A_DROP_ACL]);
		print_u64(PRINT_ANY, "maxconn", " maxconn %llu",
			  st->v[KLB_STATS_A_DROP_MAXCONN]);
		print_u64(PRINT_ANY, "adopt_full", " adopt_full %llu",
			  st->v[KLB_STATS_A_DROP_ADOPT_FULL]);
		print_nl();
		close_json_object();
		open_json_object("persist");
		print_string(PRINT_FP, NULL, "%s", indent);
		print_u64(PRINT_ANY, "full", "persist full %llu",
			  st->v[KLB_STATS_A_PERSIST_FULL]);
		print_nl();
		close_json_object();
		/* dr, tun: connections another balancer scheduled */
		print_string(PRINT_FP, NULL, "%s", indent);
		print_u64(PRINT_ANY, "adopted", "adopted %llu",
			  st->v[KLB_STATS_A_CONNS_ADOPTED]);
		print_nl();
	}
	if (l7 && st->l7_present)
		l7_print(st, l7, indent);
	close_json_object();
}
