/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Per-CPU counters of services and backends (stats.c): the datapath and the
 * L7 engine bump their own CPU's copy, readers sum all CPUs.
 */
#ifndef _KLB_STATS_H
#define _KLB_STATS_H

#include <linux/bottom_half.h>
#include <linux/percpu.h>
#include <linux/u64_stats_sync.h>

enum klb_drop_reason {
	KLB_DROP_NO_BACKEND,
	KLB_DROP_TABLE_FULL,
	KLB_DROP_BAD_PACKET,
	KLB_DROP_NO_PORT,	/* fnat: no free source port towards the backend */
	KLB_DROP_NO_ROUTE,	/* no usable path to the backend */
	KLB_DROP_TOO_BIG,	/* over the path MTU with DF: ICMP sent back */
	KLB_DROP_PERSIST_FULL,	/* not dropped: scheduled without persistence */
	KLB_DROP_BAD_SOURCE,	/* L7: loopback, multicast, broadcast, our own */
	KLB_DROP_ACL,		/* source refused by the service's allow/deny */
	KLB_DROP_MAXCONN,	/* every usable backend at its maxconn */
	KLB_DROP_ADOPT_FULL,	/* dr, tun: net.klb.adopt_max unproved entries */
	KLB_DROP__MAX
};

/* L7 counters (http, tls services and their backends); uapi order. */
enum klb_l7_ctr {
	KLB_L7_REQUESTS,
	KLB_L7_RESP_1XX,	/* + (status / 100 - 1) for the other classes */
	KLB_L7_RESP_2XX,
	KLB_L7_RESP_3XX,
	KLB_L7_RESP_4XX,
	KLB_L7_RESP_5XX,
	KLB_L7_ERR_CONNECT,
	KLB_L7_ERR_TIMEOUT,
	KLB_L7_ERR_RESET,
	KLB_L7_ERR_PARSE,
	KLB_L7_ERR_NO_BACKEND,
	KLB_L7_ERR_LIMIT,
	KLB_L7__MAX
};

struct klb_stats_sum {
	u64 conns;
	u64 adopted;		/* of conns: mid-flow, scheduled by another */
	u64 active_conns;
	u64 pkts_in;
	u64 bytes_in;
	u64 pkts_out;
	u64 bytes_out;
	u64 drops[KLB_DROP__MAX];
	u64 l7[KLB_L7__MAX];
};

/*
 * Per-CPU counters of a service or a backend; summed on read (stats.c).
 * @zero is what this CPU's counters held when they were last zeroed
 * (KLB_CMD_ZERO): readers subtract it. Only the zeroing writes it and only
 * readers read it, both under the namespace's config lock, so the datapath
 * never has to see a counter change under it (as IPVS's zero does).
 */
struct klb_pcpu_stats {
	u64_stats_t conns;
	u64_stats_t adopted;
	u64_stats_t pkts_in;
	u64_stats_t bytes_in;
	u64_stats_t pkts_out;
	u64_stats_t bytes_out;
	u64_stats_t drops[KLB_DROP__MAX];
	u64_stats_t l7[KLB_L7__MAX];
	struct u64_stats_sync syncp;
	struct klb_stats_sum zero;
};

struct klb_pcpu_stats __percpu *klb_stats_alloc(void);
void klb_stats_free(struct klb_pcpu_stats __percpu *stats);
void klb_stats_read(struct klb_pcpu_stats __percpu *stats, struct klb_stats_sum *sum);
/* Counters read as 0 from now on (config lock held, like the readers). */
void klb_stats_zero(struct klb_pcpu_stats __percpu *stats);

/* Datapath helpers: called in softirq or with BH disabled. */
static inline void klb_stats_packet(struct klb_pcpu_stats __percpu *stats,
				    bool reply, unsigned int len)
{
	struct klb_pcpu_stats *s = this_cpu_ptr(stats);

	u64_stats_update_begin(&s->syncp);
	if (reply) {
		u64_stats_inc(&s->pkts_out);
		u64_stats_add(&s->bytes_out, len);
	} else {
		u64_stats_inc(&s->pkts_in);
		u64_stats_add(&s->bytes_in, len);
	}
	u64_stats_update_end(&s->syncp);
}

static inline void klb_stats_conn(struct klb_pcpu_stats __percpu *stats)
{
	struct klb_pcpu_stats *s = this_cpu_ptr(stats);

	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->conns);
	u64_stats_update_end(&s->syncp);
}

/* A mid-flow connection adopted (l4/adopt.c), besides klb_stats_conn(). */
static inline void klb_stats_adopted(struct klb_pcpu_stats __percpu *stats)
{
	struct klb_pcpu_stats *s = this_cpu_ptr(stats);

	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->adopted);
	u64_stats_update_end(&s->syncp);
}

static inline void klb_stats_drop(struct klb_pcpu_stats __percpu *stats,
				  enum klb_drop_reason why)
{
	struct klb_pcpu_stats *s = this_cpu_ptr(stats);

	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->drops[why]);
	u64_stats_update_end(&s->syncp);
}

/*
 * L7 helpers: called from work items (process context). A backend's
 * counters may also be bumped by the L4 datapath in softirq on this CPU,
 * so BH is disabled around the update.
 */
static inline void klb_stats_l7(struct klb_pcpu_stats __percpu *stats,
				enum klb_l7_ctr ctr)
{
	struct klb_pcpu_stats *s;

	local_bh_disable();
	s = this_cpu_ptr(stats);
	u64_stats_update_begin(&s->syncp);
	u64_stats_inc(&s->l7[ctr]);
	u64_stats_update_end(&s->syncp);
	local_bh_enable();
}

/* A client connection accepted by an L7 service (conns counter). */
static inline void klb_stats_l7_conn(struct klb_pcpu_stats __percpu *stats)
{
	local_bh_disable();
	klb_stats_conn(stats);
	local_bh_enable();
}

/* Payload bytes relayed: @in client -> backend, @out backend -> client. */
static inline void klb_stats_l7_bytes(struct klb_pcpu_stats __percpu *stats,
				      u64 in, u64 out)
{
	struct klb_pcpu_stats *s;

	local_bh_disable();
	s = this_cpu_ptr(stats);
	u64_stats_update_begin(&s->syncp);
	u64_stats_add(&s->bytes_in, in);
	u64_stats_add(&s->bytes_out, out);
	u64_stats_update_end(&s->syncp);
	local_bh_enable();
}

#endif /* _KLB_STATS_H */
