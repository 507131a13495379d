// SPDX-License-Identifier: GPL-2.0
/*
 * net.klb.* sysctls, one set per network namespace (Documentation/sysctl.rst).
 * Every entry has a range, so an out-of-range write fails with EINVAL and
 * leaves the old value. The datapath reads them with READ_ONCE().
 */
#include <linux/capability.h>
#include <linux/slab.h>
#include <linux/sysctl.h>

#include "klb.h"

static int klb_conn_max_max = 16 * 1024 * 1024;
static int klb_timeout_max = 7 * 24 * 3600;	/* a week, in seconds */
/* A request head must hold a request line and a few fields, and fit 64K. */
static int klb_header_size_min = 512;
static int klb_header_size_max = 65536;
static int klb_headers_max = 1000;
static int klb_idle_max_max = 65536;
static int klb_port_max = 65535;
static int klb_mem_max_kb_max = 64 * 1024 * 1024;	/* 64 GiB */

static int klb_objects_max = 1024 * 1024;

/*
 * Sizes that decide how much kernel memory a namespace may take (tables,
 * buffers, object counts) may be changed only with CAP_NET_ADMIN in the
 * initial user namespace: in a namespace owned by another user namespace
 * (Documentation/security.md, allow_userns) they are read-only, even for
 * its root. Timeouts and switches stay the namespace owner's.
 */
static int klb_sysctl_sizing(klb_proc_table *table, int write,
			     void *buffer, size_t *lenp, loff_t *ppos)
{
	if (write && !capable(CAP_NET_ADMIN))
		return -EPERM;
	return proc_dointvec_minmax(table, write, buffer, lenp, ppos);
}

/*
 * .data holds the offset of the field in struct klb_sysctl; each netns
 * gets a copy of the table pointing into its own klb_net.
 */
#define KLB_SYSCTL(field, min, max) {				\
	.procname	= #field,				\
	.data		= (void *)offsetof(struct klb_sysctl, field), \
	.maxlen		= sizeof(int),				\
	.mode		= 0644,					\
	.proc_handler	= proc_dointvec_minmax,			\
	.extra1		= (min),				\
	.extra2		= (max),				\
}

/* A size: writable only from the initial user namespace (above). */
#define KLB_SYSCTL_SIZE(field, min, max) {			\
	.procname	= #field,				\
	.data		= (void *)offsetof(struct klb_sysctl, field), \
	.maxlen		= sizeof(int),				\
	.mode		= 0644,					\
	.proc_handler	= klb_sysctl_sizing,			\
	.extra1		= (min),				\
	.extra2		= (max),				\
}

static const struct ctl_table klb_sysctl_template[] = {
	KLB_SYSCTL_SIZE(conn_max, SYSCTL_ONE, &klb_conn_max_max),
	KLB_SYSCTL(tcp_timeout_syn, SYSCTL_ONE, &klb_timeout_max),
	KLB_SYSCTL(tcp_timeout_established, SYSCTL_ONE, &klb_timeout_max),
	KLB_SYSCTL(tcp_timeout_fin, SYSCTL_ONE, &klb_timeout_max),
	KLB_SYSCTL(tcp_timeout_time_wait, SYSCTL_ONE, &klb_timeout_max),
	KLB_SYSCTL(tcp_timeout_close, SYSCTL_ONE, &klb_timeout_max),
	KLB_SYSCTL(udp_timeout, SYSCTL_ONE, &klb_timeout_max),
	KLB_SYSCTL(expire_nodest_conn, SYSCTL_ZERO, SYSCTL_ONE),
	KLB_SYSCTL(fnat_port_min, SYSCTL_ONE, &klb_port_max),
	KLB_SYSCTL(fnat_port_max, SYSCTL_ONE, &klb_port_max),
	KLB_SYSCTL_SIZE(persist_max, SYSCTL_ZERO, &klb_conn_max_max),
	KLB_SYSCTL(expire_quiescent_template, SYSCTL_ZERO, SYSCTL_ONE),
	KLB_SYSCTL_SIZE(http_max_header_size, &klb_header_size_min,
			&klb_header_size_max),
	KLB_SYSCTL_SIZE(http_max_headers, SYSCTL_ONE, &klb_headers_max),
	KLB_SYSCTL(http_header_timeout, SYSCTL_ONE, &klb_timeout_max),
	KLB_SYSCTL(http_keepalive_timeout, SYSCTL_ONE, &klb_timeout_max),
	KLB_SYSCTL(http_response_timeout, SYSCTL_ONE, &klb_timeout_max),
	KLB_SYSCTL(l7_connect_timeout, SYSCTL_ONE, &klb_timeout_max),
	KLB_SYSCTL(l7_idle_timeout, SYSCTL_ONE, &klb_timeout_max),
	KLB_SYSCTL_SIZE(l7_max_conns, SYSCTL_ONE, &klb_conn_max_max),
	/* 0: every backend connection closes after its exchange */
	KLB_SYSCTL_SIZE(l7_backend_idle_max, SYSCTL_ZERO, &klb_idle_max_max),
	KLB_SYSCTL(l7_backend_idle_timeout, SYSCTL_ONE, &klb_timeout_max),
	KLB_SYSCTL_SIZE(l7_max_sessions, SYSCTL_ONE, &klb_conn_max_max),
	KLB_SYSCTL_SIZE(l7_mem_max_kb, SYSCTL_ONE, &klb_mem_max_kb_max),
	KLB_SYSCTL(tls_hello_timeout, SYSCTL_ONE, &klb_timeout_max),
	KLB_SYSCTL(udp_timeout_unreplied, SYSCTL_ONE, &klb_timeout_max),
	KLB_SYSCTL_SIZE(pools_max, SYSCTL_ZERO, &klb_objects_max),
	KLB_SYSCTL_SIZE(backends_max, SYSCTL_ZERO, &klb_objects_max),
	KLB_SYSCTL_SIZE(services_max, SYSCTL_ZERO, &klb_objects_max),
	/* 0: no queue, a request finding every backend full gets 503 */
	KLB_SYSCTL_SIZE(http_queue_max, SYSCTL_ZERO, &klb_conn_max_max),
	KLB_SYSCTL(http_queue_timeout, SYSCTL_ONE, &klb_timeout_max),
	KLB_SYSCTL(tcp_timeout_adopt, SYSCTL_ONE, &klb_timeout_max),
	/* 0: conn_max / 8, whatever conn_max is (l4/adopt.c) */
	KLB_SYSCTL(adopt_max, SYSCTL_ZERO, &klb_conn_max_max),
	{ }
};

void klb_sysctl_defaults(struct klb_sysctl *s)
{
	s->conn_max = 262144;
	/* Until the handshake completes: short, a spoofed SYN never does. */
	s->tcp_timeout_syn = 10;
	s->tcp_timeout_established = 900;
	s->tcp_timeout_fin = 120;
	s->tcp_timeout_time_wait = 120;
	s->tcp_timeout_close = 10;
	s->udp_timeout = 300;
	s->udp_timeout_unreplied = 30;
	s->expire_nodest_conn = 0;
	/* Below Linux's default ip_local_port_range: no local socket's. */
	s->fnat_port_min = 1024;
	s->fnat_port_max = 32767;
	s->persist_max = 65536;
	s->expire_quiescent_template = 0;
	/* A mid-flow packet another balancer scheduled: proved by a second. */
	s->tcp_timeout_adopt = 10;
	s->adopt_max = 0;
	s->http_max_header_size = 8192;
	s->http_max_headers = 100;
	s->http_header_timeout = 10;
	s->http_keepalive_timeout = 60;
	s->http_response_timeout = 60;
	s->l7_connect_timeout = 5;
	s->l7_idle_timeout = 300;
	s->l7_max_conns = 65536;
	s->l7_backend_idle_max = 64;
	/* Below the 5 s keep-alive of Apache, Node.js and uvicorn. */
	s->l7_backend_idle_timeout = 4;
	s->l7_max_sessions = 262144;
	/* ~6000 requests in progress at once with the default head sizes */
	s->l7_mem_max_kb = 256 * 1024;
	s->tls_hello_timeout = 10;
	s->pools_max = 65536;
	s->backends_max = 262144;
	s->services_max = 65536;
	s->http_queue_max = 1024;
	s->http_queue_timeout = 5;
}

int klb_sysctl_net_init(struct klb_net *kn)
{
	struct ctl_table *table;
	size_t i, n;

	table = kmemdup(klb_sysctl_template, sizeof(klb_sysctl_template),
			GFP_KERNEL);
	if (!table)
		return -ENOMEM;
	n = ARRAY_SIZE(klb_sysctl_template) - 1;	/* not the sentinel */
	for (i = 0; i < n; i++)
		table[i].data = (char *)&kn->sysctl + (uintptr_t)table[i].data;

	kn->sysctl_hdr = klb_register_net_sysctl(kn->net, "net/klb", table, n);
	if (!kn->sysctl_hdr) {
		kfree(table);
		return -ENOMEM;
	}
	return 0;
}

void klb_sysctl_net_exit(struct klb_net *kn)
{
	const struct ctl_table *table = kn->sysctl_hdr->ctl_table_arg;

	unregister_net_sysctl_table(kn->sysctl_hdr);
	kfree(table);
}
