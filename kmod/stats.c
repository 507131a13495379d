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

	/* charged to the configuring task's memory cgroup (memcg.h) */
	stats = alloc_percpu_gfp(struct klb_pcpu_stats, GFP_KERNEL_ACCOUNT);
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

/* One CPU's counters as they are now, not less what was zeroed. */
static void klb_stats_read_cpu(const struct klb_pcpu_stats *s,
			       struct klb_stats_sum *v)
{
	unsigned int start;
	int i;

	do {
		start = u64_stats_fetch_begin(&s->syncp);
		v->conns = u64_stats_read(&s->conns);
		v->adopted = u64_stats_read(&s->adopted);
		v->pkts_in = u64_stats_read(&s->pkts_in);
		v->bytes_in = u64_stats_read(&s->bytes_in);
		v->pkts_out = u64_stats_read(&s->pkts_out);
		v->bytes_out = u64_stats_read(&s->bytes_out);
		for (i = 0; i < KLB_DROP__MAX; i++)
			v->drops[i] = u64_stats_read(&s->drops[i]);
		for (i = 0; i < KLB_L7__MAX; i++)
			v->l7[i] = u64_stats_read(&s->l7[i]);
	} while (u64_stats_fetch_retry(&s->syncp, start));
}

/*
 * Sum every CPU into @sum, less what each CPU held when last zeroed;
 * active_conns is left for the caller to fill.
 */
void klb_stats_read(struct klb_pcpu_stats __percpu *stats,
		    struct klb_stats_sum *sum)
{
	struct klb_stats_sum v;
	int cpu, i;

	memset(sum, 0, sizeof(*sum));
	for_each_possible_cpu(cpu) {
		const struct klb_pcpu_stats *s = per_cpu_ptr(stats, cpu);
		const struct klb_stats_sum *z = &s->zero;

		klb_stats_read_cpu(s, &v);
		sum->conns += v.conns - z->conns;
		sum->adopted += v.adopted - z->adopted;
		sum->pkts_in += v.pkts_in - z->pkts_in;
		sum->bytes_in += v.bytes_in - z->bytes_in;
		sum->pkts_out += v.pkts_out - z->pkts_out;
		sum->bytes_out += v.bytes_out - z->bytes_out;
		for (i = 0; i < KLB_DROP__MAX; i++)
			sum->drops[i] += v.drops[i] - z->drops[i];
		for (i = 0; i < KLB_L7__MAX; i++)
			sum->l7[i] += v.l7[i] - z->l7[i];
	}
}

void klb_stats_zero(struct klb_pcpu_stats __percpu *stats)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct klb_pcpu_stats *s = per_cpu_ptr(stats, cpu);

		klb_stats_read_cpu(s, &s->zero);
	}
}
