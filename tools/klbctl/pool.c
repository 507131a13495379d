// SPDX-License-Identifier: GPL-2.0
/* klbctl pool add|set|del|show: the pool's words (its table), its dump. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "klbctl.h"
#include "nl.h"
#include "obj.h"
#include "objects.h"
#include "print.h"

void pool_usage(FILE *f)
{
	fprintf(f,
		"Usage: klbctl pool add NAME [sched SCHED] [hash HASH] [all-unhealthy AU] [PASSIVE] [check CHECK]\n"
		"       klbctl pool set NAME [sched SCHED] [hash HASH] [all-unhealthy AU] [PASSIVE] [check CHECK]\n"
		"       klbctl pool del NAME\n"
		"       klbctl [-j] [-s] pool show [NAME]\n"
		"       klbctl pool zero [NAME]   (the counters of its backends, or of all)\n"
		"SCHED := { rr | wrr | lc | wlc | sh | mh | p2c }   (default wrr)\n"
		"HASH := { src | 5tuple }   (what sh and mh hash: the client address, the default,\n"
		"  or addresses, ports and protocol; keyed by \"klbctl hash-seed\")\n"
		"AU := { refuse | fail-open }   (every backend unhealthy: no backend, or all; default refuse)\n"
		"CHECK := { none | KIND [port P] [interval DUR] [timeout DUR] [rise N] [fall N]\n"
		"           [path /PATH] [host H] [expect { 2xx | STATUS }] [body STRING] [sni NAME] }\n"
		"KIND := { tcp | http | tls }   DUR := { 2s | 1.5s | 500ms }\n"
		"  defaults: port the backend's, interval 2s, timeout 1s (at most the interval),\n"
		"  rise 2, fall 3; http: path /, host the backend's address, expect 2xx.\n"
		"  path, host, expect and body need http; sni needs tls. check comes last.\n"
		"PASSIVE := [passive-fall N] [passive-eject DUR] [passive-5xx { on | off }] [slowstart DUR]\n"
		"  passive-fall: failures in a row of real traffic that eject a backend (0: off,\n"
		"  the default) for passive-eject (default 10s, doubled on each ejection in a row);\n"
		"  passive-5xx on: http 5xx answers count too. slowstart: a backend that becomes\n"
		"  usable ramps from 5%% of its weight to all of it over DUR (0: off, the default).\n");
}

/* ------------------------------------------------------------ the words */

/* Passive health: failures in a row that eject (0: off). */
static int passive_fall_num(const char *s, unsigned int *v)
{
	if (!parse_u32(s, v) || *v > KLB_CHECK_RISE_FALL_MAX)
		return usage_errorf("pool", "passive-fall must be 0..%u, not \"%s\"",
				    KLB_CHECK_RISE_FALL_MAX, s);
	return EXIT_OK;
}

/* (unsigned int is the uint32_t the parsers take) */
static int duration(const char *word, const char *s, unsigned int *ms)
{
	if (!parse_duration_ms(s, ms))
		return usage_errorf("pool", "%s: \"%s\" is not a duration (2s, 1.5s, 500ms)",
				    word, s);
	return EXIT_OK;
}

/* The first ejection period (doubled on each ejection in a row). */
static int passive_eject_num(const char *s, unsigned int *v)
{
	int ret = duration("passive-eject", s, v);

	if (ret)
		return ret;
	if (*v < KLB_PASSIVE_EJECT_MIN_MS || *v > KLB_PASSIVE_EJECT_MAX_MS)
		return usage_errorf("pool", "passive-eject must be %ums..%us",
				    KLB_PASSIVE_EJECT_MIN_MS,
				    KLB_PASSIVE_EJECT_MAX_MS / 1000);
	return EXIT_OK;
}

/* A backend that becomes usable ramps up its weight over it (0: off). */
static int slowstart_num(const char *s, unsigned int *v)
{
	int ret = duration("slowstart", s, v);

	if (ret)
		return ret;
	if (*v > KLB_SLOWSTART_MAX_MS)
		return usage_errorf("pool", "slowstart must be at most %us",
				    KLB_SLOWSTART_MAX_MS / 1000);
	return EXIT_OK;
}

enum {
	P_NAME, P_SCHED, P_HASH, P_ALL_UNHEALTHY, P_PASSIVE_FALL,
	P_PASSIVE_EJECT, P_PASSIVE_5XX, P_SLOWSTART, P_CHECK, P_FIELDS
};

/*
 * Text: what differs from the default, as save writes it; the passive
 * words only while passive health is on (passive-fall). JSON: everything.
 */
static const struct field pool_fields[] = {
	[P_NAME] = {
		.word = "name", .json = "name", .type = &vt_str,
		.off = offsetof(struct pool, name), .attr = KLB_POOL_A_NAME,
		.flags = F_KEY, .meta = "pool NAME",
	},
	[P_SCHED] = {
		.word = "sched", .json = "sched", .type = &vt_word,
		.off = offsetof(struct pool, sched), .attr = KLB_POOL_A_SCHED,
		.flags = F_ADD_DEF | F_ALWAYS, .def = KLB_SCHED_WRR,
		.what = "scheduler", .words = sched_words,
		.nwords = &n_sched_words,
	},
	[P_HASH] = {
		.word = "hash", .json = "hash", .type = &vt_word,
		.off = offsetof(struct pool, hash), .attr = KLB_POOL_A_HASH,
		.flags = F_OMIT | F_JSON_ALL, .def = KLB_HASH_SRC,
		.what = "hash", .words = hash_words,
		.nwords = &n_hash_words,
	},
	[P_ALL_UNHEALTHY] = {
		.word = "all-unhealthy", .json = "all_unhealthy", .type = &vt_word,
		.off = offsetof(struct pool, all_unhealthy),
		.attr = KLB_POOL_A_ALL_UNHEALTHY,
		.flags = F_OMIT | F_JSON_ALL, .def = KLB_ALL_UNHEALTHY_REFUSE,
		.what = "all-unhealthy option", .words = all_unhealthy_words,
		.nwords = &n_all_unhealthy_words,
	},
	[P_PASSIVE_FALL] = {
		.word = "passive-fall", .json = "passive_fall", .type = &vt_u8,
		.off = offsetof(struct pool, passive_fall),
		.attr = KLB_POOL_A_PASSIVE_FALL,
		.flags = F_OMIT | F_JSON_ALL, .def = 0, .num = passive_fall_num,
	},
	[P_PASSIVE_EJECT] = {
		.word = "passive-eject", .json = "passive_eject_ms", .type = &vt_ms,
		.off = offsetof(struct pool, passive_eject_ms),
		.attr = KLB_POOL_A_PASSIVE_EJECT_MS,
		.flags = F_ALWAYS | F_JSON_ALL, .needs = P_PASSIVE_FALL,
		.num = passive_eject_num,
	},
	/* save spells "off" too; show only says "on" */
	[P_PASSIVE_5XX] = {
		.word = "passive-5xx", .json = "passive_5xx", .type = &vt_onoff,
		.off = offsetof(struct pool, passive_5xx),
		.attr = KLB_POOL_A_PASSIVE_5XX,
		.flags = F_ALWAYS | F_OMIT_SHOW | F_JSON_ALL, .def = 0,
		.needs = P_PASSIVE_FALL, .what = "passive-5xx",
	},
	[P_SLOWSTART] = {
		.word = "slowstart", .json = "slowstart_ms", .type = &vt_ms,
		.off = offsetof(struct pool, slowstart_ms),
		.attr = KLB_POOL_A_SLOWSTART_MS,
		.flags = F_OMIT | F_JSON_ALL, .def = 0, .num = slowstart_num,
	},
	/* its words are the rest of the line; show gives it a line */
	[P_CHECK] = {
		.word = "check", .json = "check", .type = &vt_check,
		.off = offsetof(struct pool, check), .attr = KLB_POOL_A_CHECK,
		.flags = F_REST | F_BELOW | F_JSON_NULL,
	},
};

static void pool_title(const void *obj)
{
	const struct pool *p = obj;

	print_string(PRINT_ANY, "name", "pool %s", p->name);
}

const struct obj_desc pool_desc = {
	.name = "pool",
	.f = pool_fields,
	.n = P_FIELDS,
	.size = sizeof(struct pool),
	.given_off = offsetof(struct pool, given),
	.top = KLB_A_POOL,
	.cmd_new = KLB_CMD_POOL_NEW,
	.cmd_set = KLB_CMD_POOL_SET,
	.cmd_del = KLB_CMD_POOL_DEL,
	.nothing = "nothing to change: expected \"sched SCHED\", \"hash HASH\", \"all-unhealthy AU\", PASSIVE or \"check CHECK\"",
	.show_title = pool_title,
};

/* ------------------------------------------------------------- dumping */

static int pool_read(const struct nlattr *nest, struct pool_list *l)
{
	const struct nlattr *tb[KLB_POOL_A_MAX + 1];
	const struct nlattr *a;
	struct pool *p;
	char *name;
	int ret;

	nest_parse(nest, tb, KLB_POOL_A_MAX);
	name = attr_strdup(tb[KLB_POOL_A_NAME]);
	if (!name)
		return -EPROTO;
	/* A big pool comes in several messages: continue the last one. */
	if (l->n && !strcmp(l->p[l->n - 1].name, name)) {
		p = &l->p[l->n - 1];
	} else {
		if (!grow(&l->p, &l->cap, l->n, sizeof(*l->p))) {
			free(name);
			return -ENOMEM;
		}
		p = &l->p[l->n++];
		memset(p, 0, sizeof(*p));
	}
	free(name);
	ret = obj_get(&pool_desc, tb, p);
	if (ret || !tb[KLB_POOL_A_BACKENDS])
		return ret;
	mnl_attr_for_each_nested(a, tb[KLB_POOL_A_BACKENDS]) {
		if (mnl_attr_get_type(a) != KLB_POOL_A_BACKEND)
			continue;
		if (!grow(&p->b, &p->cap, p->n, sizeof(*p->b)))
			return -ENOMEM;
		ret = backend_read(a, &p->b[p->n]);
		if (ret)
			return ret;
		p->n++;
	}
	return 0;
}

static int pool_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a;
	int ret;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) != KLB_A_POOL)
			continue;
		ret = pool_read(a, data);
		if (ret)
			return ret;
	}
	return 0;
}

void pool_list_free(struct pool_list *l)
{
	size_t i, j;

	for (i = 0; i < l->n; i++) {
		for (j = 0; j < l->p[i].n; j++)
			obj_free(&backend_desc, &l->p[i].b[j]);
		free(l->p[i].b);
		obj_free(&pool_desc, &l->p[i]);
	}
	free(l->p);
	memset(l, 0, sizeof(*l));
}

static void pool_list_reset(void *data)
{
	pool_list_free(data);
}

int pool_dump(const char *name, struct pool_list *l)
{
	struct nlattr *nest;
	struct req r;
	int ret;

	memset(l, 0, sizeof(*l));
	/*
	 * Always a dump, filtered by name when one is given: a pool with many
	 * backends spans several messages, which a single reply cannot.
	 */
	ret = req_init(&r, KLB_CMD_POOL_GET, NLM_F_DUMP,
		       MNL_SOCKET_BUFFER_SIZE + (name ? strlen(name) : 0));
	if (ret)
		return ret;
	if (name) {
		nest = req_nest_start(&r, KLB_A_POOL);
		req_put_strz(&r, KLB_POOL_A_NAME, name);
		req_nest_end(&r, nest);
	}
	ret = klb_request(&r, pool_cb, l, pool_list_reset);
	req_free(&r);
	if (ret)
		pool_list_free(l);
	return ret;
}

/* ------------------------------------------------------------- showing */

static void pool_print(const struct pool *p)
{
	size_t i;

	open_json_object(NULL);
	obj_show(&pool_desc, p);
	open_json_array(PRINT_JSON, "backends");
	for (i = 0; i < p->n; i++)
		backend_print(&p->b[i]);
	close_json_array(PRINT_JSON, NULL);
	close_json_object();
}

static int pool_show(int argc, char **argv)
{
	struct pool_list l;
	size_t i;
	int ret;

	if (argc > 1)
		return usage_errorf("pool", "unexpected argument \"%s\"", argv[1]);
	ret = pool_dump(argc ? argv[0] : NULL, &l);
	if (!ret && opt_stats > 1)
		ret = rates_pools(argc ? argv[0] : NULL, &l);
	if (ret)
		return ret;
	new_json_obj(opt_json);
	for (i = 0; i < l.n; i++)
		pool_print(&l.p[i]);
	delete_json_obj();
	pool_list_free(&l);
	return EXIT_OK;
}

static int pool_add(int argc, char **argv)
{
	struct pool p;

	return obj_command(&pool_desc, OBJ_ADD, argc, argv, &p);
}

static int pool_set(int argc, char **argv)
{
	struct pool p;

	return obj_command(&pool_desc, OBJ_SET, argc, argv, &p);
}

static int pool_del(int argc, char **argv)
{
	struct pool p;

	return obj_command(&pool_desc, OBJ_DEL, argc, argv, &p);
}

static int pool_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	pool_usage(stdout);
	return EXIT_OK;
}

static int pool_zero(int argc, char **argv)
{
	if (argc > 1)
		return usage_errorf("pool", "unexpected argument \"%s\"", argv[1]);
	return zero_request(argc ? KLB_A_POOL : 0, argc ? argv[0] : NULL);
}

static const struct cmd pool_cmds[] = {
	{ "add", pool_add },
	{ "set", pool_set },
	{ "del", pool_del },
	{ "delete", pool_del },
	{ "show", pool_show },
	{ "list", pool_show },
	{ "zero", pool_zero },
	{ "help", pool_help },
};

int do_pool(int argc, char **argv)
{
	if (argc < 1)
		return pool_show(0, NULL);
	return dispatch("pool", pool_cmds, ARRAY_SIZE(pool_cmds), argc, argv);
}
