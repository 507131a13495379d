// SPDX-License-Identifier: GPL-2.0
/* klbctl pool add|set|del|show */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "klbctl.h"
#include "nl.h"
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

int pool_parse(int argc, char **argv, bool add, struct pool_spec *p)
{
	unsigned int v;
	int ret;

	memset(p, 0, sizeof(*p));
	if (argc < 1)
		return usage_errorf("pool", "missing pool NAME");
	p->name = argv[0];
	for (argc--, argv++; argc > 0; argc -= 2, argv += 2) {
		if (!strcmp(argv[0], "check")) {
			/* The check's words are the rest of the line. */
			ret = check_parse(argc - 1, argv + 1, &p->check);
			if (ret)
				return ret;
			p->has_check = true;
			break;
		}
		if (strcmp(argv[0], "sched") && strcmp(argv[0], "all-unhealthy") &&
		    strcmp(argv[0], "hash") &&
		    strcmp(argv[0], "passive-fall") &&
		    strcmp(argv[0], "passive-eject") &&
		    strcmp(argv[0], "passive-5xx") && strcmp(argv[0], "slowstart"))
			return usage_errorf("pool", "unknown argument \"%s\"", argv[0]);
		if (argc < 2)
			return usage_errorf("pool", "missing value after \"%s\"", argv[0]);
		if (!strncmp(argv[0], "passive-", 8) ||
		    !strcmp(argv[0], "slowstart")) {
			ret = passive_parse_word(argv[0], argv[1], &p->passive);
			if (ret)
				return ret;
			continue;
		}
		if (!strcmp(argv[0], "hash")) {
			ret = parse_word("hash", argv[1], hash_words,
					 n_hash_words, &v);
			if (ret)
				return ret;
			p->has_hash = true;
			p->hash = (uint8_t)v;
			continue;
		}
		if (!strcmp(argv[0], "all-unhealthy")) {
			ret = parse_word("all-unhealthy option", argv[1],
					 all_unhealthy_words,
					 n_all_unhealthy_words, &v);
			if (ret)
				return ret;
			p->has_all_unhealthy = true;
			p->all_unhealthy = (uint8_t)v;
			continue;
		}
		ret = parse_word("scheduler", argv[1], sched_words,
				 n_sched_words, &v);
		if (ret)
			return ret;
		p->has_sched = true;
		p->sched = (uint8_t)v;
	}
	if (add && !p->has_sched) {
		p->has_sched = true;
		p->sched = KLB_SCHED_WRR;
	}
	if (!add && !p->has_sched && !p->has_check && !p->has_all_unhealthy &&
	    !p->has_hash && !passive_given(&p->passive))
		return usage_errorf("pool", "nothing to change: expected \"sched SCHED\", \"hash HASH\", \"all-unhealthy AU\", PASSIVE or \"check CHECK\"");
	return EXIT_OK;
}

static int pool_send(uint8_t cmd, int argc, char **argv, const struct pool_spec *p)
{
	struct nlattr *nest;
	struct req r;
	int ret;

	ret = req_init(&r, cmd, 0, req_size_for(argc, argv));
	if (ret)
		return ret;
	nest = req_nest_start(&r, KLB_A_POOL);
	req_put_strz(&r, KLB_POOL_A_NAME, p->name);
	if (p->has_sched)
		req_put_u8(&r, KLB_POOL_A_SCHED, p->sched);
	if (p->has_hash)
		req_put_u8(&r, KLB_POOL_A_HASH, p->hash);
	if (p->has_all_unhealthy)
		req_put_u8(&r, KLB_POOL_A_ALL_UNHEALTHY, p->all_unhealthy);
	passive_put(&r, &p->passive);
	if (p->has_check)
		check_put(&r, &p->check);
	req_nest_end(&r, nest);
	ret = klb_request(&r, NULL, NULL, NULL);
	req_free(&r);
	return ret;
}

static int pool_add(int argc, char **argv)
{
	struct pool_spec p;
	int ret = pool_parse(argc, argv, true, &p);

	return ret ? ret : pool_send(KLB_CMD_POOL_NEW, argc, argv, &p);
}

static int pool_set(int argc, char **argv)
{
	struct pool_spec p;
	int ret = pool_parse(argc, argv, false, &p);

	return ret ? ret : pool_send(KLB_CMD_POOL_SET, argc, argv, &p);
}

static int pool_del(int argc, char **argv)
{
	struct pool_spec p = { 0 };

	if (argc < 1)
		return usage_errorf("pool", "missing pool NAME");
	if (argc > 1)
		return usage_errorf("pool", "unexpected argument \"%s\"", argv[1]);
	p.name = argv[0];
	return pool_send(KLB_CMD_POOL_DEL, argc, argv, &p);
}

/* ------------------------------------------------------------- dumping */

static int backend_info_parse(const struct nlattr *nest, struct backend_info *b)
{
	const struct nlattr *tb[KLB_BACKEND_A_MAX + 1];

	nest_parse(nest, tb, KLB_BACKEND_A_MAX);
	if (!addr_get(tb[KLB_BACKEND_A_ADDR4], tb[KLB_BACKEND_A_ADDR6],
		      tb[KLB_BACKEND_A_PORT], &b->addr))
		return -EPROTO;
	b->weight = attr_u32(tb[KLB_BACKEND_A_WEIGHT], 0);
	b->state = attr_u8(tb[KLB_BACKEND_A_STATE], KLB_BACKEND_UP);
	stats_parse(tb[KLB_BACKEND_A_STATS], &b->stats);
	b->has_health = tb[KLB_BACKEND_A_HEALTH];
	b->health = attr_u8(tb[KLB_BACKEND_A_HEALTH], KLB_HEALTH_UNKNOWN);
	b->check_ok = attr_u64(tb[KLB_BACKEND_A_CHECK_OK], 0);
	b->check_fail = attr_u64(tb[KLB_BACKEND_A_CHECK_FAIL], 0);
	b->health_age = attr_u32(tb[KLB_BACKEND_A_HEALTH_AGE], 0);
	b->check_error = attr_strdup(tb[KLB_BACKEND_A_CHECK_ERROR]);
	b->has_passive = tb[KLB_BACKEND_A_EJECTIONS];
	b->has_ejected = tb[KLB_BACKEND_A_EJECTED_MS];
	b->ejected_ms = attr_u32(tb[KLB_BACKEND_A_EJECTED_MS], 0);
	b->ejections = attr_u32(tb[KLB_BACKEND_A_EJECTIONS], 0);
	b->passive_fail = tb[KLB_BACKEND_A_PASSIVE_FAIL] ?
			  mnl_attr_get_u64(tb[KLB_BACKEND_A_PASSIVE_FAIL]) : 0;
	b->has_weight_now = tb[KLB_BACKEND_A_WEIGHT_NOW];
	b->weight_now = attr_u32(tb[KLB_BACKEND_A_WEIGHT_NOW], 0);
	b->maxconn = attr_u32(tb[KLB_BACKEND_A_MAXCONN], 0);
	return 0;
}

static int pool_info_parse(const struct nlattr *nest, struct pool_list *l)
{
	const struct nlattr *tb[KLB_POOL_A_MAX + 1];
	const struct nlattr *a;
	struct pool_info *p;
	char *name;

	nest_parse(nest, tb, KLB_POOL_A_MAX);
	name = attr_strdup(tb[KLB_POOL_A_NAME]);
	if (!name)
		return -EPROTO;
	/* A big pool comes in several messages: continue the last one. */
	if (l->n && !strcmp(l->p[l->n - 1].name, name)) {
		free(name);
		p = &l->p[l->n - 1];
	} else {
		if (!grow(&l->p, &l->cap, l->n, sizeof(*l->p))) {
			free(name);
			return -ENOMEM;
		}
		p = &l->p[l->n++];
		memset(p, 0, sizeof(*p));
		p->name = name;
	}
	if (tb[KLB_POOL_A_SCHED])
		p->sched = attr_u8(tb[KLB_POOL_A_SCHED], 0);
	if (tb[KLB_POOL_A_ALL_UNHEALTHY])
		p->all_unhealthy = attr_u8(tb[KLB_POOL_A_ALL_UNHEALTHY], 0);
	if (tb[KLB_POOL_A_HASH])
		p->hash = attr_u8(tb[KLB_POOL_A_HASH], 0);
	if (tb[KLB_POOL_A_PASSIVE_FALL])
		p->passive_fall = attr_u8(tb[KLB_POOL_A_PASSIVE_FALL], 0);
	if (tb[KLB_POOL_A_PASSIVE_EJECT_MS])
		p->passive_eject_ms = attr_u32(tb[KLB_POOL_A_PASSIVE_EJECT_MS], 0);
	if (tb[KLB_POOL_A_PASSIVE_5XX])
		p->passive_5xx = attr_u8(tb[KLB_POOL_A_PASSIVE_5XX], 0);
	if (tb[KLB_POOL_A_SLOWSTART_MS])
		p->slowstart_ms = attr_u32(tb[KLB_POOL_A_SLOWSTART_MS], 0);
	if (tb[KLB_POOL_A_CHECK] && !p->has_check) {
		check_info_parse(tb[KLB_POOL_A_CHECK], &p->check);
		p->has_check = true;
	}
	if (!tb[KLB_POOL_A_BACKENDS])
		return 0;
	mnl_attr_for_each_nested(a, tb[KLB_POOL_A_BACKENDS]) {
		int ret;

		if (mnl_attr_get_type(a) != KLB_POOL_A_BACKEND)
			continue;
		if (!grow(&p->b, &p->cap, p->n, sizeof(*p->b)))
			return -ENOMEM;
		ret = backend_info_parse(a, &p->b[p->n]);
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
		ret = pool_info_parse(a, data);
		if (ret)
			return ret;
	}
	return 0;
}

void pool_list_free(struct pool_list *l)
{
	size_t i;

	size_t j;

	for (i = 0; i < l->n; i++) {
		free(l->p[i].name);
		for (j = 0; j < l->p[i].n; j++)
			free(l->p[i].b[j].check_error);
		free(l->p[i].b);
		check_spec_free(&l->p[i].check);
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

void backend_print(const struct backend_info *b)
{
	char buf[ADDRPORT_STRLEN], name[32];

	open_json_object(NULL);
	print_string(PRINT_FP, NULL, "\tbackend %s",
		     addrport_str(&b->addr, buf, sizeof(buf)));
	print_string(PRINT_JSON, "addr", NULL, addr_str(&b->addr, buf, sizeof(buf)));
	print_uint(PRINT_JSON, "port", NULL, b->addr.port);
	print_uint(PRINT_ANY, "weight", " weight %u", b->weight);
	print_string(PRINT_ANY, "state", " state %s",
		     word_name(state_words, n_state_words, b->state, name, sizeof(name)));
	if (b->has_health) {
		print_string(PRINT_ANY, "health", " health %s",
			     word_name(health_words, n_health_words, b->health,
				       name, sizeof(name)));
		print_uint(PRINT_ANY, "health_age", " for %us", b->health_age);
		print_u64(PRINT_ANY, "check_ok", " checks ok %llu",
			  b->check_ok);
		print_u64(PRINT_ANY, "check_fail", " failed %llu",
			  b->check_fail);
		if (b->check_error)
			print_string(PRINT_ANY, "check_error",
				     " last error \"%s\"", b->check_error);
		else
			print_null(PRINT_JSON, "check_error", NULL, NULL);
	}
	if (b->has_passive) {
		if (b->has_ejected)
			print_uint(PRINT_ANY, "ejected_ms", " ejected for %ums",
				   b->ejected_ms);
		else
			print_null(PRINT_JSON, "ejected_ms", NULL, NULL);
		print_uint(PRINT_ANY, "ejections", " ejections %u", b->ejections);
		print_u64(PRINT_ANY, "passive_fail", " passive failures %llu",
			  b->passive_fail);
	}
	if (b->has_weight_now)
		print_uint(PRINT_ANY, "weight_now", " slowstart weight %u",
			   b->weight_now);
	/* With a cap, the count it applies to next to it. */
	if (b->maxconn) {
		print_uint(PRINT_ANY, "maxconn", " maxconn %u", b->maxconn);
		print_u64(PRINT_ANY, "active", " active %llu",
			  b->stats.v[KLB_STATS_A_ACTIVE_CONNS]);
	}
	print_nl();
	if (opt_stats)
		stats_print(&b->stats, false, b->stats.l7_present ? "http" : NULL);
	close_json_object();
}

static void pool_print(const struct pool_info *p)
{
	char name[32];
	size_t i;

	open_json_object(NULL);
	print_string(PRINT_ANY, "name", "pool %s", p->name);
	print_string(PRINT_ANY, "sched", " sched %s",
		     word_name(sched_words, n_sched_words, p->sched, name, sizeof(name)));
	/* Text: only what differs from the default, as save writes it. */
	print_string(p->hash == KLB_HASH_SRC ? PRINT_JSON : PRINT_ANY, "hash",
		     " hash %s",
		     word_name(hash_words, n_hash_words, p->hash, name,
			       sizeof(name)));
	print_string(p->all_unhealthy == KLB_ALL_UNHEALTHY_REFUSE ?
		     PRINT_JSON : PRINT_ANY, "all_unhealthy",
		     " all-unhealthy %s",
		     word_name(all_unhealthy_words, n_all_unhealthy_words,
			       p->all_unhealthy, name, sizeof(name)));
	/* Text: only what is on; JSON: always, in milliseconds. */
	print_uint(p->passive_fall ? PRINT_ANY : PRINT_JSON, "passive_fall",
		   " passive-fall %u", p->passive_fall);
	print_uint(p->passive_fall ? PRINT_ANY : PRINT_JSON, "passive_eject_ms",
		   " passive-eject %ums", p->passive_eject_ms);
	print_bool(p->passive_fall && p->passive_5xx ? PRINT_ANY : PRINT_JSON,
		   "passive_5xx", " passive-5xx on", p->passive_5xx);
	print_uint(p->slowstart_ms ? PRINT_ANY : PRINT_JSON, "slowstart_ms",
		   " slowstart %ums", p->slowstart_ms);
	print_nl();
	if (p->has_check)
		check_print(&p->check);
	else
		print_null(PRINT_JSON, "check", NULL, NULL);
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
