// SPDX-License-Identifier: GPL-2.0
/* klbctl backend add|set|del|show: the backend's words (its table). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>

#include "klbctl.h"
#include "nl.h"
#include "obj.h"
#include "objects.h"
#include "print.h"

void backend_usage(FILE *f)
{
	fprintf(f,
		"Usage: klbctl backend add POOL ADDR:PORT [weight N] [state STATE] [maxconn M]\n"
		"       klbctl backend set POOL ADDR:PORT [weight N] [state STATE] [maxconn M]\n"
		"       klbctl backend del POOL ADDR:PORT\n"
		"       klbctl [-j] [-s] backend show POOL\n"
		"ADDR:PORT := { IPV4:PORT | [IPV6]:PORT }   (numeric only)\n"
		"N := 0..%u   (default 1; 0 takes no new connections)\n"
		"STATE := { up | drain | down }   (default up)\n"
		"M := 0..%u   connections open at once (L4) or requests in progress\n"
		"     (L7); at M the backend takes no new ones (default 0: no cap)\n",
		KLB_WEIGHT_MAX, KLB_MAXCONN_MAX);
}

/* ------------------------------------------------------------ the words */

/* Range is the kernel's call; only non-numbers are ours. */
static int weight_num(const char *s, unsigned int *v)
{
	if (!parse_u32(s, v))
		return usage_errorf("backend", "invalid weight \"%s\": not a decimal number of 32 bits", s);
	return EXIT_OK;
}

static int maxconn_num(const char *s, unsigned int *v)
{
	if (!parse_u32(s, v) || *v > KLB_MAXCONN_MAX)
		return usage_errorf("backend", "invalid maxconn \"%s\": expected 0..%u (0: no cap)",
				    s, KLB_MAXCONN_MAX);
	return EXIT_OK;
}

/* The pool's active check, as it finds the backend (its pool has a check). */
static int health_get(const struct field *f, const struct nlattr *const *tb,
		      void *val)
{
	struct backend_health *h = val;

	if (!tb[f->attr])
		return 0;
	free(h->error);
	h->health = attr_u8(tb[KLB_BACKEND_A_HEALTH], KLB_HEALTH_UNKNOWN);
	h->ok = attr_u64(tb[KLB_BACKEND_A_CHECK_OK], 0);
	h->fail = attr_u64(tb[KLB_BACKEND_A_CHECK_FAIL], 0);
	h->age = attr_u32(tb[KLB_BACKEND_A_HEALTH_AGE], 0);
	h->error = attr_strdup(tb[KLB_BACKEND_A_CHECK_ERROR]);
	return 1;
}

static void health_print(enum output_type t, const struct field *f,
			 const void *val, enum wmode m)
{
	const struct backend_health *h = val;
	char name[32];

	(void)m;
	print_string(t, f->json, " health %s",
		     word_name(health_words, n_health_words, h->health,
			       name, sizeof(name)));
	print_uint(t, "health_age", " for %us", h->age);
	print_u64(t, "check_ok", " checks ok %llu", h->ok);
	print_u64(t, "check_fail", " failed %llu", h->fail);
	if (h->error)
		print_string(t, "check_error", " last error \"%s\"", h->error);
	else
		print_null(t & PRINT_JSON, "check_error", NULL, NULL);
}

static void health_free(void *val)
{
	struct backend_health *h = val;

	free(h->error);
	h->error = NULL;
}

static const struct vtype vt_health = {
	.size = sizeof(struct backend_health),
	.get = health_get,
	.print = health_print,
	.free = health_free,
};

/* Passive health, if its pool has it (or had): ejections, failures. */
static int passive_get(const struct field *f, const struct nlattr *const *tb,
		       void *val)
{
	struct backend_passive *p = val;

	if (!tb[f->attr])
		return 0;
	p->has_ejected = tb[KLB_BACKEND_A_EJECTED_MS];
	p->ejected_ms = attr_u32(tb[KLB_BACKEND_A_EJECTED_MS], 0);
	p->ejections = attr_u32(tb[KLB_BACKEND_A_EJECTIONS], 0);
	p->fail = attr_u64(tb[KLB_BACKEND_A_PASSIVE_FAIL], 0);
	return 1;
}

static void passive_print(enum output_type t, const struct field *f,
			  const void *val, enum wmode m)
{
	const struct backend_passive *p = val;

	(void)f;
	(void)m;
	if (p->has_ejected)
		print_uint(t, "ejected_ms", " ejected for %ums", p->ejected_ms);
	else
		print_null(t & PRINT_JSON, "ejected_ms", NULL, NULL);
	print_uint(t, "ejections", " ejections %u", p->ejections);
	print_u64(t, "passive_fail", " passive failures %llu", p->fail);
}

static const struct vtype vt_passive = {
	.size = sizeof(struct backend_passive),
	.get = passive_get,
	.print = passive_print,
};

enum {
	B_POOL, B_ADDR, B_WEIGHT, B_STATE, B_HEALTH, B_PASSIVE, B_WEIGHT_NOW,
	B_MAXCONN, B_ACTIVE, B_FIELDS
};

/* Show says what the backend is doing too: health, ejections, ramp, load. */
static const struct field backend_fields[] = {
	[B_POOL] = {
		.word = "pool", .type = &vt_str,
		.off = offsetof(struct backend, pool), .attr = KLB_POOL_A_NAME,
		.flags = F_KEY | F_PARENT, .meta = "POOL",
	},
	[B_ADDR] = {
		.word = "address", .json = "addr", .type = &vt_addr,
		.off = offsetof(struct backend, addr), .attr = KLB_BACKEND_A_ADDR4,
		.flags = F_KEY, .meta = "backend ADDR:PORT",
	},
	[B_WEIGHT] = {
		.word = "weight", .json = "weight", .type = &vt_u32,
		.off = offsetof(struct backend, weight), .attr = KLB_BACKEND_A_WEIGHT,
		.flags = F_ADD_DEF | F_ALWAYS, .def = 1, .num = weight_num,
	},
	[B_STATE] = {
		.word = "state", .json = "state", .type = &vt_word,
		.off = offsetof(struct backend, state), .attr = KLB_BACKEND_A_STATE,
		.flags = F_ALWAYS | F_OMIT_SAVE, .def = KLB_BACKEND_UP,
		.what = "state", .words = state_words,
		.nwords = &n_state_words,
	},
	[B_HEALTH] = {
		.json = "health", .type = &vt_health,
		.off = offsetof(struct backend, health), .attr = KLB_BACKEND_A_HEALTH,
		.flags = F_SHOW_ONLY,
	},
	[B_PASSIVE] = {
		.type = &vt_passive,
		.off = offsetof(struct backend, passive),
		.attr = KLB_BACKEND_A_EJECTIONS, .flags = F_SHOW_ONLY,
	},
	[B_WEIGHT_NOW] = {
		.word = "slowstart weight", .json = "weight_now", .type = &vt_u32,
		.off = offsetof(struct backend, weight_now),
		.attr = KLB_BACKEND_A_WEIGHT_NOW, .flags = F_SHOW_ONLY,
	},
	[B_MAXCONN] = {
		.word = "maxconn", .json = "maxconn", .type = &vt_u32,
		.off = offsetof(struct backend, maxconn), .attr = KLB_BACKEND_A_MAXCONN,
		.flags = F_OMIT, .def = 0, .num = maxconn_num,
	},
	/* with a cap, the count it applies to next to it */
	[B_ACTIVE] = {
		.word = "active", .json = "active", .type = &vt_u64,
		.off = offsetof(struct backend, stats.v[KLB_STATS_A_ACTIVE_CONNS]),
		.flags = F_SHOW_ONLY | F_ALWAYS, .needs = B_MAXCONN,
	},
};

static void backend_title(const void *obj)
{
	print_string(PRINT_FP, NULL, "\tbackend", NULL);
	obj_print_field(&backend_desc, obj, B_ADDR, W_BARE);
}

/* pool { name POOL, backend { ... } } */
const struct obj_desc backend_desc = {
	.name = "backend",
	.f = backend_fields,
	.n = B_FIELDS,
	.size = sizeof(struct backend),
	.given_off = offsetof(struct backend, given),
	.top = KLB_A_POOL,
	.inner = KLB_POOL_A_BACKEND,
	.cmd_new = KLB_CMD_BACKEND_NEW,
	.cmd_set = KLB_CMD_BACKEND_SET,
	.cmd_del = KLB_CMD_BACKEND_DEL,
	.nothing = "nothing to change: expected \"weight N\", \"state STATE\" or \"maxconn M\"",
	.show_title = backend_title,
};

/* -------------------------------------------------- read back, shown */

int backend_read(const struct nlattr *nest, struct backend *b)
{
	const struct nlattr *tb[KLB_BACKEND_A_MAX + 1];
	int ret;

	memset(b, 0, sizeof(*b));
	nest_parse(nest, tb, KLB_BACKEND_A_MAX);
	ret = obj_get(&backend_desc, tb, b);
	if (!ret && !obj_given(&backend_desc, b, B_ADDR))
		ret = -EPROTO;
	if (ret) {
		obj_free(&backend_desc, b);
		return ret;
	}
	stats_parse(tb[KLB_BACKEND_A_STATS], &b->stats);
	return 0;
}

void backend_print(const struct backend *b)
{
	open_json_object(NULL);
	obj_show(&backend_desc, b);
	if (opt_stats)
		stats_print(&b->stats, false, b->stats.l7_present ? "http" : NULL);
	close_json_object();
}

/* ------------------------------------------------------------ commands */

static int backend_add(int argc, char **argv)
{
	struct backend b;

	return obj_command(&backend_desc, OBJ_ADD, argc, argv, &b);
}

static int backend_set(int argc, char **argv)
{
	struct backend b;

	return obj_command(&backend_desc, OBJ_SET, argc, argv, &b);
}

static int backend_del(int argc, char **argv)
{
	struct backend b;

	return obj_command(&backend_desc, OBJ_DEL, argc, argv, &b);
}

static int backend_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	backend_usage(stdout);
	return EXIT_OK;
}

/* The backends of one pool: "pool show POOL" without the pool line. */
static int backend_show(int argc, char **argv)
{
	struct pool_list l;
	size_t i;
	int ret;

	if (argc < 1)
		return usage_errorf("backend", "missing POOL");
	if (argc > 1)
		return usage_errorf("backend", "unexpected argument \"%s\"", argv[1]);
	ret = pool_dump(argv[0], &l);
	if (!ret && opt_stats > 1)
		ret = rates_pools(argv[0], &l);
	if (ret)
		return ret;
	new_json_obj(opt_json);
	for (i = 0; i < l.n; i++) {
		size_t j;

		for (j = 0; j < l.p[i].n; j++)
			backend_print(&l.p[i].b[j]);
	}
	delete_json_obj();
	pool_list_free(&l);
	return EXIT_OK;
}

static const struct cmd backend_cmds[] = {
	{ "add", backend_add },
	{ "set", backend_set },
	{ "del", backend_del },
	{ "delete", backend_del },
	{ "show", backend_show },
	{ "list", backend_show },
	{ "help", backend_help },
};

int do_backend(int argc, char **argv)
{
	if (argc < 1)
		return usage_errorf("backend", "missing command");
	return dispatch("backend", backend_cmds, ARRAY_SIZE(backend_cmds),
			argc, argv);
}
