// SPDX-License-Identifier: GPL-2.0
/*
 * Per-CPU counters of services and backends. The datapath and the L7
 * engine bump their own CPU's copy (klb.h); readers sum all CPUs, retrying
 * a CPU whose copy was being written (only matters on 32-bit, where a u64
 * is two stores).
 */
#include <linux/percpu.h>
#include <linux/string.h>

#include "klb.h"

struct klb_pcpu_stats __percpu *klb_stats_alloc(void)
{
	struct klb_pcpu_stats __percpu *stats;
	int cpu;

	stats = alloc_percpu(struct klb_pcpu_stats);
	if (!stats)
		return NULL;
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(stats, cpu)->syncp);
	return stats;
}

void klb_stats_free(struct klb_pcpu_stats __percpu *stats)
{
	free_percpu(stats);
}

/* Sum every CPU into @sum; active_conns is left for the caller to fill. */
void klb_stats_read(struct klb_pcpu_stats __percpu *stats,
		    struct klb_stats_sum *sum)
{
	u64 conns, pkts_in, bytes_in, pkts_out, bytes_out;
	u64 drops[KLB_DROP__MAX];
	u64 l7[KLB_L7__MAX];
	unsigned int start;
	int cpu, i;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct klb_pcpu_stats *s = per_cpu_ptr(stats, cpu);

		do {
			start = u64_stats_fetch_begin(&s->syncp);
			conns = u64_stats_read(&s->conns);
			pkts_in = u64_stats_read(&s->pkts_in);
			bytes_in = u64_stats_read(&s->bytes_in);
			pkts_out = u64_stats_read(&s->pkts_out);
			bytes_out = u64_stats_read(&s->bytes_out);
			for (i = 0; i < KLB_DROP__MAX; i++)
				drops[i] = u64_stats_read(&s->drops[i]);
			for (i = 0; i < KLB_L7__MAX; i++)
				l7[i] = u64_stats_read(&s->l7[i]);
		} while (u64_stats_fetch_retry(&s->syncp, start));

		sum->conns += conns;
		sum->pkts_in += pkts_in;
		sum->bytes_in += bytes_in;
		sum->pkts_out += pkts_out;
		sum->bytes_out += bytes_out;
		for (i = 0; i < KLB_DROP__MAX; i++)
			sum->drops[i] += drops[i];
		for (i = 0; i < KLB_L7__MAX; i++)
			sum->l7[i] += l7[i];
	}
}
