// SPDX-License-Identifier: GPL-2.0
/*
 * klbctl stats [show] | metrics | zero [service NAME | pool NAME]
 *
 * show: figures of the whole namespace (KLB_CMD_STATS_GET).
 * metrics: every counter of every service and backend plus those figures,
 * in the Prometheus text exposition format (version 0.0.4, which
 * node-exporter's textfile collector reads). The metric names and labels
 * are part of klbctl's stable interface (klbctl(8), STABILITY).
 * zero: KLB_CMD_ZERO.
 * Also the -s -s rates of service show / pool show / backend show.
 */
#include <inttypes.h>
#include <string.h>
#include <time.h>

#include <libmnl/libmnl.h>

#include "klbctl.h"
#include "nl.h"
#include "objects.h"
#include "print.h"

void stats_usage(FILE *f)
{
	fprintf(f,
		"Usage: klbctl stats [show]\n"
		"       klbctl stats metrics\n"
		"       klbctl stats zero [service NAME | pool NAME]\n"
		"show: connection table entries against conn_max, its hash buckets\n"
		"and the entries evicted to make room at conn_max, L7 sessions and\n"
		"listeners, how many services, pools and backends.\n"
		"metrics: every counter in the Prometheus text format (for\n"
		"node-exporter's textfile collector).\n"
		"zero: counters of a service, of a pool's backends, or of all, start\n"
		"again from 0 (active connections are not counters and stay).\n");
}

/* ------------------------------------------------------ global figures */

struct global {
	uint32_t v[KLB_GLOBAL_A_MAX + 1];
	uint64_t evictions;		/* the one u64 */
};

static int global_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[KLB_A_MAX + 1], *g[KLB_GLOBAL_A_MAX + 1];
	struct global *gl = data;
	unsigned int i;

	msg_parse(nlh, tb, KLB_A_MAX);
	if (!tb[KLB_A_STATS])
		return 0;
	nest_parse(tb[KLB_A_STATS], g, KLB_GLOBAL_A_MAX);
	for (i = 1; i <= KLB_GLOBAL_A_MAX; i++)
		if (i != KLB_GLOBAL_A_CONN_EVICTIONS && i != KLB_GLOBAL_A_PAD)
			gl->v[i] = attr_u32(g[i], 0);
	gl->evictions = attr_u64(g[KLB_GLOBAL_A_CONN_EVICTIONS], 0);
	return 0;
}

static int global_get(struct global *gl)
{
	struct req r;
	int ret;

	memset(gl, 0, sizeof(*gl));
	ret = req_init(&r, KLB_CMD_STATS_GET, 0, MNL_SOCKET_BUFFER_SIZE);
	if (ret)
		return ret;
	ret = klb_request(&r, global_cb, gl, NULL);
	req_free(&r);
	return ret;
}

static int stats_show(int argc, char **argv)
{
	struct global g;
	int ret;

	if (argc > 0)
		return usage_errorf("stats", "unexpected argument \"%s\"", argv[0]);
	ret = global_get(&g);
	if (ret)
		return ret;
	new_json_obj(opt_json);
	open_json_object(NULL);
	open_json_object("conn_table");
	print_uint(PRINT_ANY, "entries", "conn table %u", g.v[KLB_GLOBAL_A_CONNS]);
	print_uint(PRINT_ANY, "max", " of %u", g.v[KLB_GLOBAL_A_CONN_MAX]);
	if (g.v[KLB_GLOBAL_A_CONN_MAX])
		print_uint(PRINT_FP, NULL, " (%u%%)",
			   (unsigned int)((uint64_t)g.v[KLB_GLOBAL_A_CONNS] * 100 /
					  g.v[KLB_GLOBAL_A_CONN_MAX]));
	print_uint(PRINT_ANY, "buckets", " buckets %u", g.v[KLB_GLOBAL_A_CONN_BUCKETS]);
	print_u64(PRINT_ANY, "evictions", " evictions %" PRIu64, g.evictions);
	print_nl();
	close_json_object();
	open_json_object("l7");
	print_uint(PRINT_ANY, "sessions", "l7 sessions %u", g.v[KLB_GLOBAL_A_L7_SESSIONS]);
	print_uint(PRINT_ANY, "listeners", " listeners %u", g.v[KLB_GLOBAL_A_LISTENERS]);
	print_nl();
	close_json_object();
	print_uint(PRINT_ANY, "services", "services %u", g.v[KLB_GLOBAL_A_SERVICES]);
	print_uint(PRINT_ANY, "pools", " pools %u", g.v[KLB_GLOBAL_A_POOLS]);
	print_uint(PRINT_ANY, "backends", " backends %u", g.v[KLB_GLOBAL_A_BACKENDS]);
	print_nl();
	close_json_object();
	delete_json_obj();
	return EXIT_OK;
}

/* ------------------------------------------------------------- metrics */

/*
 * One metric family: its name, type and help, and where its value comes
 * from: a counter by enum klb_stats_attr (v) or enum klb_l7_stats_attr
 * (l7), with an optional extra label.
 */
struct family {
	const char *name;
	const char *type;
	const char *help;
	bool l7;
	const char *label;			/* extra label name, or NULL */
	struct { const char *value; int attr; } s[11];	/* attr 0 ends */
};

static const struct family counter_families[] = {
	{ "connections_total", "counter", "Connections scheduled (L7: client connections accepted).",
	  false, NULL, { { NULL, KLB_STATS_A_CONNS } } },
	{ "active_connections", "gauge", "Connections open now.",
	  false, NULL, { { NULL, KLB_STATS_A_ACTIVE_CONNS } } },
	{ "packets_total", "counter", "Packets, in = client to backend, out = backend to client.",
	  false, "direction", { { "in", KLB_STATS_A_PKTS_IN }, { "out", KLB_STATS_A_PKTS_OUT } } },
	{ "bytes_total", "counter", "Bytes (L3 for nat, payload for http and tls), in = client to backend.",
	  false, "direction", { { "in", KLB_STATS_A_BYTES_IN }, { "out", KLB_STATS_A_BYTES_OUT } } },
	{ "drops_total", "counter", "Packets dropped, by reason (services only).",
	  false, "reason", { { "no_backend", KLB_STATS_A_DROP_NO_BACKEND },
			     { "table_full", KLB_STATS_A_DROP_TABLE_FULL },
			     { "bad_packet", KLB_STATS_A_DROP_BAD_PACKET },
			     { "no_port", KLB_STATS_A_DROP_NO_PORT },
			     { "no_route", KLB_STATS_A_DROP_NO_ROUTE },
			     { "too_big", KLB_STATS_A_DROP_TOO_BIG },
			     { "bad_source", KLB_STATS_A_DROP_BAD_SOURCE },
			     { "acl", KLB_STATS_A_DROP_ACL },
			     { "maxconn", KLB_STATS_A_DROP_MAXCONN },
			     { "adopt_full", KLB_STATS_A_DROP_ADOPT_FULL } } },
	{ "connections_adopted_total", "counter",
	  "dr, tun: connections adopted mid-flow (another balancer scheduled them; services only).",
	  false, NULL, { { NULL, KLB_STATS_A_CONNS_ADOPTED } } },
	{ "persist_full_total", "counter",
	  "New connections scheduled without persistence: net.klb.persist_max was reached (services only).",
	  false, NULL, { { NULL, KLB_STATS_A_PERSIST_FULL } } },
	{ "l7_requests_total", "counter", "HTTP requests routed (tls: connections steered).",
	  true, NULL, { { NULL, KLB_L7_STATS_A_REQUESTS } } },
	{ "l7_responses_total", "counter", "HTTP responses by status class.",
	  true, "class", { { "1xx", KLB_L7_STATS_A_RESP_1XX }, { "2xx", KLB_L7_STATS_A_RESP_2XX },
			   { "3xx", KLB_L7_STATS_A_RESP_3XX }, { "4xx", KLB_L7_STATS_A_RESP_4XX },
			   { "5xx", KLB_L7_STATS_A_RESP_5XX } } },
	{ "l7_errors_total", "counter", "L7 requests or connections that failed, by reason.",
	  true, "reason", { { "connect", KLB_L7_STATS_A_ERR_CONNECT },
			    { "timeout", KLB_L7_STATS_A_ERR_TIMEOUT },
			    { "reset", KLB_L7_STATS_A_ERR_RESET },
			    { "parse", KLB_L7_STATS_A_ERR_PARSE },
			    { "no_backend", KLB_L7_STATS_A_ERR_NO_BACKEND },
			    { "limit", KLB_L7_STATS_A_ERR_LIMIT } } },
};

/* Families that only services have (the kernel reports them on services). */
static bool family_service_only(const struct family *f)
{
	return !strcmp(f->name, "drops_total") ||
	       !strcmp(f->name, "persist_full_total") ||
	       !strcmp(f->name, "connections_adopted_total");
}

static void family_head(const char *obj, const struct family *f)
{
	printf("# HELP klb_%s_%s %s\n", obj, f->name, f->help);
	printf("# TYPE klb_%s_%s %s\n", obj, f->name, f->type);
}

/* @labels: the object's labels, already formatted ("service=\"web\""). */
static void family_samples(const char *obj, const struct family *f,
			   const char *labels, const struct klb_stats *st)
{
	unsigned int i;

	if (!st->present || (f->l7 && !st->l7_present))
		return;
	if (family_service_only(f) && strcmp(obj, "service"))
		return;
	for (i = 0; i < ARRAY_SIZE(f->s) && f->s[i].attr; i++) {
		uint64_t v = f->l7 ? st->l7[f->s[i].attr] : st->v[f->s[i].attr];

		if (f->label)
			printf("klb_%s_%s{%s,%s=\"%s\"} %llu\n", obj, f->name, labels,
			       f->label, f->s[i].value, (unsigned long long)v);
		else
			printf("klb_%s_%s{%s} %llu\n", obj, f->name, labels,
			       (unsigned long long)v);
	}
}

static void gauge(const char *name, const char *help, uint32_t v)
{
	printf("# HELP klb_%s %s\n# TYPE klb_%s gauge\nklb_%s %u\n",
	       name, help, name, name, v);
}

static int stats_metrics(int argc, char **argv)
{
	struct service_list sl;
	struct pool_list pl;
	struct global g;
	char labels[256], addr[ADDRPORT_STRLEN], w1[32], w2[32], w3[32];
	size_t f, i, j;
	int ret;

	if (argc > 0)
		return usage_errorf("stats", "unexpected argument \"%s\"", argv[0]);
	ret = global_get(&g);
	if (ret)
		return ret;
	ret = service_dump(NULL, &sl);
	if (ret)
		return ret;
	ret = pool_dump(NULL, &pl);
	if (ret) {
		service_list_free(&sl);
		return ret;
	}

	printf("# HELP klb_build_info The version of klbctl.\n"
	       "# TYPE klb_build_info gauge\n"
	       "klb_build_info{version=\"%s\"} 1\n", KLBCTL_VERSION);
	gauge("conn_table_entries", "Entries in the connection table.",
	      g.v[KLB_GLOBAL_A_CONNS]);
	gauge("conn_table_max", "The connection table's limit (sysctl net.klb.conn_max).",
	      g.v[KLB_GLOBAL_A_CONN_MAX]);
	gauge("conn_table_buckets", "Buckets of the connection hash.",
	      g.v[KLB_GLOBAL_A_CONN_BUCKETS]);
	printf("# HELP klb_conn_table_evictions_total Entries evicted to make room at conn_max.\n"
	       "# TYPE klb_conn_table_evictions_total counter\n"
	       "klb_conn_table_evictions_total %" PRIu64 "\n", g.evictions);
	gauge("l7_sessions", "L7 client sessions open now.", g.v[KLB_GLOBAL_A_L7_SESSIONS]);
	gauge("l7_listeners", "L7 listening sockets.", g.v[KLB_GLOBAL_A_LISTENERS]);
	gauge("services", "Services configured.", g.v[KLB_GLOBAL_A_SERVICES]);
	gauge("pools", "Pools configured.", g.v[KLB_GLOBAL_A_POOLS]);
	gauge("backends", "Backends in all pools.", g.v[KLB_GLOBAL_A_BACKENDS]);

	printf("# HELP klb_service_info A service: its VIP, protocol, mode and default pool.\n"
	       "# TYPE klb_service_info gauge\n");
	for (i = 0; i < sl.n; i++) {
		const struct service *s = &sl.s[i];

		printf("klb_service_info{service=\"%s\",vip=\"%s\",proto=\"%s\",mode=\"%s\",pool=\"%s\"} 1\n",
		       s->name, addrport_str(&s->vip, addr, sizeof(addr)),
		       word_name(proto_words, n_proto_words, s->proto, w1, sizeof(w1)),
		       word_name(mode_words, n_mode_words, s->mode, w2, sizeof(w2)),
		       s->pool ? s->pool : "");
	}
	for (f = 0; f < ARRAY_SIZE(counter_families); f++) {
		family_head("service", &counter_families[f]);
		for (i = 0; i < sl.n; i++) {
			snprintf(labels, sizeof(labels), "service=\"%s\"", sl.s[i].name);
			family_samples("service", &counter_families[f], labels, &sl.s[i].stats);
		}
	}

	printf("# HELP klb_backend_weight A backend's weight.\n"
	       "# TYPE klb_backend_weight gauge\n");
	for (i = 0; i < pl.n; i++)
		for (j = 0; j < pl.p[i].n; j++)
			printf("klb_backend_weight{pool=\"%s\",backend=\"%s\"} %u\n",
			       pl.p[i].name,
			       addrport_str(&pl.p[i].b[j].addr, addr, sizeof(addr)),
			       pl.p[i].b[j].weight);
	printf("# HELP klb_backend_info A backend: its pool's scheduler and its state (up, drain, down).\n"
	       "# TYPE klb_backend_info gauge\n");
	for (i = 0; i < pl.n; i++)
		for (j = 0; j < pl.p[i].n; j++)
			printf("klb_backend_info{pool=\"%s\",backend=\"%s\",sched=\"%s\",state=\"%s\"} 1\n",
			       pl.p[i].name,
			       addrport_str(&pl.p[i].b[j].addr, addr, sizeof(addr)),
			       word_name(sched_words, n_sched_words, pl.p[i].sched, w3, sizeof(w3)),
			       word_name(state_words, n_state_words, pl.p[i].b[j].state,
					 w1, sizeof(w1)));
	for (f = 0; f < ARRAY_SIZE(counter_families); f++) {
		if (family_service_only(&counter_families[f]))
			continue;
		family_head("backend", &counter_families[f]);
		for (i = 0; i < pl.n; i++) {
			for (j = 0; j < pl.p[i].n; j++) {
				snprintf(labels, sizeof(labels), "pool=\"%s\",backend=\"%s\"",
					 pl.p[i].name,
					 addrport_str(&pl.p[i].b[j].addr, addr, sizeof(addr)));
				family_samples("backend", &counter_families[f], labels,
					       &pl.p[i].b[j].stats);
			}
		}
	}
	service_list_free(&sl);
	pool_list_free(&pl);
	return EXIT_OK;
}

/* ---------------------------------------------------------------- zero */

int zero_request(uint16_t type, const char *name)
{
	struct nlattr *nest;
	struct req r;
	int ret;

	ret = req_init(&r, KLB_CMD_ZERO, 0,
		       MNL_SOCKET_BUFFER_SIZE + (name ? strlen(name) : 0));
	if (ret)
		return ret;
	if (name) {
		nest = req_nest_start(&r, type);
		/* KLB_SERVICE_A_NAME == KLB_POOL_A_NAME */
		req_put_strz(&r, type == KLB_A_POOL ? KLB_POOL_A_NAME : KLB_SERVICE_A_NAME,
			     name);
		req_nest_end(&r, nest);
	}
	ret = klb_request(&r, NULL, NULL, NULL);
	req_free(&r);
	return ret;
}

static int stats_zero(int argc, char **argv)
{
	if (argc == 0)
		return zero_request(0, NULL);
	if (argc == 1)
		return usage_errorf("stats", "missing NAME after \"%s\"", argv[0]);
	if (argc > 2)
		return usage_errorf("stats", "unexpected argument \"%s\"", argv[2]);
	if (!strcmp(argv[0], "service"))
		return zero_request(KLB_A_SERVICE, argv[1]);
	if (!strcmp(argv[0], "pool"))
		return zero_request(KLB_A_POOL, argv[1]);
	return usage_errorf("stats", "unknown argument \"%s\" (service or pool)", argv[0]);
}

static int stats_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	stats_usage(stdout);
	return EXIT_OK;
}

static const struct cmd stats_cmds[] = {
	{ "show", stats_show },
	{ "list", stats_show },
	{ "metrics", stats_metrics },
	{ "zero", stats_zero },
	{ "help", stats_help },
};

int do_stats(int argc, char **argv)
{
	if (argc < 1)
		return stats_show(0, NULL);
	return dispatch("stats", stats_cmds, ARRAY_SIZE(stats_cmds), argc, argv);
}

/* --------------------------------------------------------- -s -s rates */

#define RATE_INTERVAL_NS	1000000000ULL

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000ULL), (long)(ns % 1000000000ULL) };

	while (nanosleep(&ts, &ts))
		;
}

static uint64_t per_second(uint64_t a, uint64_t b, uint64_t ns)
{
	if (b <= a || !ns)
		return 0;	/* zeroed in between, or no change */
	return (uint64_t)((double)(b - a) * 1e9 / (double)ns + 0.5);
}

static void rate_fill(const struct klb_stats *a, struct klb_stats *b, uint64_t ns)
{
	static const int keys[] = {
		KLB_STATS_A_CONNS, KLB_STATS_A_PKTS_IN, KLB_STATS_A_PKTS_OUT,
		KLB_STATS_A_BYTES_IN, KLB_STATS_A_BYTES_OUT,
	};
	size_t i;

	if (!a->present || !b->present)
		return;
	for (i = 0; i < ARRAY_SIZE(keys); i++)
		b->rate[keys[i]] = per_second(a->v[keys[i]], b->v[keys[i]], ns);
	b->rate_requests = per_second(a->l7[KLB_L7_STATS_A_REQUESTS],
				      b->l7[KLB_L7_STATS_A_REQUESTS], ns);
	b->rate_present = true;
}

int rates_services(const char *name, struct service_list *l)
{
	struct service_list l2;
	uint64_t t0, ns;
	size_t i, j;
	int ret;

	t0 = now_ns();
	sleep_ns(RATE_INTERVAL_NS);
	ret = service_dump(name, &l2);
	if (ret)
		return ret;
	ns = now_ns() - t0;
	for (i = 0; i < l2.n; i++)
		for (j = 0; j < l->n; j++)
			if (!strcmp(l2.s[i].name, l->s[j].name))
				rate_fill(&l->s[j].stats, &l2.s[i].stats, ns);
	service_list_free(l);
	*l = l2;
	return EXIT_OK;
}

int rates_pools(const char *name, struct pool_list *l)
{
	struct pool_list l2;
	uint64_t t0, ns;
	size_t i, j, k, m;
	int ret;

	t0 = now_ns();
	sleep_ns(RATE_INTERVAL_NS);
	ret = pool_dump(name, &l2);
	if (ret)
		return ret;
	ns = now_ns() - t0;
	for (i = 0; i < l2.n; i++) {
		for (j = 0; j < l->n; j++) {
			if (strcmp(l2.p[i].name, l->p[j].name))
				continue;
			for (k = 0; k < l2.p[i].n; k++)
				for (m = 0; m < l->p[j].n; m++)
					if (addr_equal(&l2.p[i].b[k].addr, &l->p[j].b[m].addr))
						rate_fill(&l->p[j].b[m].stats,
							  &l2.p[i].b[k].stats, ns);
		}
	}
	pool_list_free(l);
	*l = l2;
	return EXIT_OK;
}
