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
	unsigned int i;

	memset(st, 0, sizeof(*st));
	if (!nest)
		return;
	nest_parse(nest, tb, KLB_STATS_A_MAX);
	for (i = KLB_STATS_A_CONNS; i <= KLB_STATS_A_MAX; i++)
		st->v[i] = attr_u64(tb[i], 0);
	st->present = true;
}

/* Indented below the object line in text; a "stats" object in JSON. */
void stats_print(const struct klb_stats *st, bool service)
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
	if (service) {
		open_json_object("drops");
		print_string(PRINT_FP, NULL, "%s", indent);
		print_u64(PRINT_ANY, "no_backend", "drops no_backend %llu",
			  st->v[KLB_STATS_A_DROP_NO_BACKEND]);
		print_u64(PRINT_ANY, "table_full", " table_full %llu",
			  st->v[KLB_STATS_A_DROP_TABLE_FULL]);
		print_u64(PRINT_ANY, "bad_packet", " bad_packet %llu",
			  st->v[KLB_STATS_A_DROP_BAD_PACKET]);
		print_nl();
		close_json_object();
	}
	close_json_object();
}
