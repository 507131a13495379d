// SPDX-License-Identifier: GPL-2.0
/*
 * A few spare relay buffers per CPU.
 *
 * A routed request takes two or three buffers of 8-16 KiB (bin, hout and,
 * with a body, cin) and frees them when its exchange ends. Each is an
 * order-2 page allocation, and Debian's kernels zero every page they hand
 * out (init_on_alloc=1): in the connection-rate profile that zeroing alone
 * was 1.4% of all samples, about a tenth of the L7 workers' time
 * (Documentation/bench/profile.md, issue 20). Buffers freed into a short
 * per-CPU list are taken again without it. A session's work runs on the
 * CPU its socket event came from (klb_l7_wq is per-CPU), so what one
 * request frees the next one there takes.
 *
 * Which sizes: more than half of KLB_L7_BUF_SIZE and up to it, the ones
 * that cost an order-2 page anyway. Every spare is KLB_L7_BUF_SIZE bytes,
 * so any of them serves any such request. Smaller (a head's first 1 KiB)
 * and larger (http_max_header_size raised past 16 KiB) go to kvmalloc.
 *
 * Bounded: KLB_L7_SPARES per CPU, 64 KiB, not charged to any netns's
 * l7_mem_max_kb because no session holds them (what a session holds is
 * charged by the size it asked for). Freed at module exit; a CPU taken
 * offline keeps its spares until then.
 *
 * Not zeroed on reuse: every reader of these buffers reads only the bytes
 * that were written into them (each buffer has its length), and they
 * never leave the kernel except as those bytes.
 *
 * Process context only (the sessions' work items), so disabling
 * preemption makes the list this CPU's alone.
 */
#include <linux/mm.h>
#include <linux/percpu.h>
#include <linux/slab.h>

#include "l7/bufs.h"
#include "l7/l7.h"

#define KLB_L7_SPARES	4

struct klb_l7_spares {
	unsigned int n;
	void *buf[KLB_L7_SPARES];
};

static DEFINE_PER_CPU(struct klb_l7_spares, klb_l7_spares);

static bool klb_l7_buf_pooled(size_t size)
{
	return size > KLB_L7_BUF_SIZE / 2 && size <= KLB_L7_BUF_SIZE;
}

void *klb_l7_buf_alloc(size_t size)
{
	struct klb_l7_spares *sp;
	void *buf = NULL;

	if (!klb_l7_buf_pooled(size))
		return kvmalloc(size, GFP_KERNEL);
	sp = get_cpu_ptr(&klb_l7_spares);
	if (sp->n)
		buf = sp->buf[--sp->n];
	put_cpu_ptr(&klb_l7_spares);
	return buf ?: kvmalloc(KLB_L7_BUF_SIZE, GFP_KERNEL);
}

void klb_l7_buf_free(void *buf, size_t size)
{
	struct klb_l7_spares *sp;

	if (!buf)
		return;
	if (klb_l7_buf_pooled(size)) {
		sp = get_cpu_ptr(&klb_l7_spares);
		if (sp->n < KLB_L7_SPARES) {
			sp->buf[sp->n++] = buf;
			buf = NULL;
		}
		put_cpu_ptr(&klb_l7_spares);
	}
	kvfree(buf);
}

void klb_l7_bufs_drain(void)
{
	int cpu;

	for_each_possible_cpu(cpu) {
		struct klb_l7_spares *sp = per_cpu_ptr(&klb_l7_spares, cpu);

		while (sp->n)
			kvfree(sp->buf[--sp->n]);
	}
}
