// SPDX-License-Identifier: GPL-2.0
/* klbctl backend add|set|del */
#include <string.h>

#include "klbctl.h"
#include "nl.h"
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

static int backend_parse_head(int argc, char **argv, struct backend_spec *b)
{
	memset(b, 0, sizeof(*b));
	if (argc < 1)
		return usage_errorf("backend", "missing POOL");
	if (argc < 2)
		return usage_errorf("backend", "missing backend ADDR:PORT");
	b->pool = argv[0];
	return addr_parse("backend", argv[1], &b->addr);
}

int backend_parse(int argc, char **argv, bool add, struct backend_spec *b)
{
	unsigned int v;
	int ret;

	ret = backend_parse_head(argc, argv, b);
	if (ret)
		return ret;
	for (argc -= 2, argv += 2; argc > 0; argc -= 2, argv += 2) {
		if (argc < 2 && (!strcmp(argv[0], "weight") || !strcmp(argv[0], "state") ||
				 !strcmp(argv[0], "maxconn")))
			return usage_errorf("backend", "missing value after \"%s\"", argv[0]);
		if (!strcmp(argv[0], "weight")) {
			/* Range is the kernel's call; only non-numbers are ours. */
			if (!parse_u32(argv[1], &b->weight))
				return usage_errorf("backend", "invalid weight \"%s\": not a decimal number of 32 bits", argv[1]);
			b->has_weight = true;
		} else if (!strcmp(argv[0], "state")) {
			ret = parse_word("state", argv[1], state_words,
					 n_state_words, &v);
			if (ret)
				return ret;
			b->state = (uint8_t)v;
			b->has_state = true;
		} else if (!strcmp(argv[0], "maxconn")) {
			if (!parse_u32(argv[1], &b->maxconn) ||
			    b->maxconn > KLB_MAXCONN_MAX)
				return usage_errorf("backend", "invalid maxconn \"%s\": expected 0..%u (0: no cap)",
						    argv[1], KLB_MAXCONN_MAX);
			b->has_maxconn = true;
		} else {
			return usage_errorf("backend", "unknown argument \"%s\"", argv[0]);
		}
	}
	if (add && !b->has_weight) {
		b->has_weight = true;
		b->weight = 1;
	}
	if (!add && !b->has_weight && !b->has_state && !b->has_maxconn)
		return usage_errorf("backend", "nothing to change: expected \"weight N\", \"state STATE\" or \"maxconn M\"");
	return EXIT_OK;
}

void backend_put(struct req *r, const struct backend_spec *b)
{
	addr_put(r, KLB_BACKEND_A_ADDR4, KLB_BACKEND_A_ADDR6,
		 KLB_BACKEND_A_PORT, &b->addr);
	if (b->has_weight)
		req_put_u32(r, KLB_BACKEND_A_WEIGHT, b->weight);
	if (b->has_state)
		req_put_u8(r, KLB_BACKEND_A_STATE, b->state);
	if (b->has_maxconn)
		req_put_u32(r, KLB_BACKEND_A_MAXCONN, b->maxconn);
}

static int backend_send(uint8_t cmd, int argc, char **argv,
			const struct backend_spec *b)
{
	struct nlattr *pool, *be;
	struct req r;
	int ret;

	ret = req_init(&r, cmd, 0, req_size_for(argc, argv));
	if (ret)
		return ret;
	pool = req_nest_start(&r, KLB_A_POOL);
	req_put_strz(&r, KLB_POOL_A_NAME, b->pool);
	be = req_nest_start(&r, KLB_POOL_A_BACKEND);
	backend_put(&r, b);
	req_nest_end(&r, be);
	req_nest_end(&r, pool);
	ret = klb_request(&r, NULL, NULL, NULL);
	req_free(&r);
	return ret;
}

static int backend_add(int argc, char **argv)
{
	struct backend_spec b;
	int ret = backend_parse(argc, argv, true, &b);

	return ret ? ret : backend_send(KLB_CMD_BACKEND_NEW, argc, argv, &b);
}

static int backend_set(int argc, char **argv)
{
	struct backend_spec b;
	int ret = backend_parse(argc, argv, false, &b);

	return ret ? ret : backend_send(KLB_CMD_BACKEND_SET, argc, argv, &b);
}

static int backend_del(int argc, char **argv)
{
	struct backend_spec b;
	int ret = backend_parse_head(argc, argv, &b);

	if (ret)
		return ret;
	if (argc > 2)
		return usage_errorf("backend", "unexpected argument \"%s\"", argv[2]);
	return backend_send(KLB_CMD_BACKEND_DEL, argc, argv, &b);
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
