// SPDX-License-Identifier: GPL-2.0
/*
 * klbctl restore [-f FILE] | flush, and the help of save (save.c)
 *
 * save prints the configuration as klbctl command lines without the
 * "klbctl" word; restore reads such lines with the very parser the
 * commands use (obj_parse() and the objects' tables), and sends the whole
 * configuration in one restore transaction (RESTORE_BEGIN, STAGE...,
 * COMMIT) so the kernel can replace it atomically, whatever its size: a
 * file is either applied entirely or not at all, and a file with a local
 * error is never sent.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>

#include "klbctl.h"
#include "nl.h"
#include "obj.h"
#include "objects.h"
#include "tokenize.h"

void config_usage(FILE *f)
{
	fprintf(f,
		"Usage: klbctl save\n"
		"       klbctl restore [-f FILE]   (standard input without -f, or with -f -)\n"
		"       klbctl flush\n"
		"A saved file holds one command per line, without the \"klbctl\" word:\n"
		"  pool add NAME sched SCHED [hash HASH] [all-unhealthy fail-open] [PASSIVE]\n"
		"              [check KIND ...]   (klbctl pool help: HASH, PASSIVE, CHECK)\n"
		"  backend add POOL ADDR:PORT weight N [state STATE] [maxconn N]\n"
		"  service add NAME vip ADDR:PORT proto PROTO mode MODE pool POOL [proxy-protocol v2]\n"
		"              [snat ADDR[,ADDR...]] [persist SECONDS mask LEN] [cookie NAME]\n"
		"              [allow LIST] [deny LIST]   (klbctl service help: LIST)\n"
		"  rule add SERVICE [host H] [path P] [header N=V] [method M] [sni H] pool POOL\n"
		"  hostmap add SERVICE HOST pool POOL   (after the services)\n"
		"  hash-seed set HEX   (first: net.klb.hash_seed, when save could read it)\n"
		"Rules follow their service, in order. restore also takes \"pool set\",\n"
		"\"backend set\" and \"service set\" lines for objects defined above them, blank\n"
		"lines and # comments. A word with blanks, quotes or a leading # is written\n"
		"in double quotes, with \\\" and \\\\ inside.\n");
}

static int config_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	config_usage(stdout);
	return EXIT_OK;
}

/* --------------------------------------------------------------- flush */

int do_flush(int argc, char **argv)
{
	struct req r;
	int ret;

	if (argc > 0 && is_help(argv[0]))
		return config_help(argc, argv);
	if (argc > 0)
		return usage_errorf("flush", "unexpected argument \"%s\"", argv[0]);
	ret = req_init(&r, KLB_CMD_FLUSH, 0, MNL_SOCKET_BUFFER_SIZE);
	if (ret)
		return ret;
	ret = klb_request(&r, NULL, NULL, NULL);
	req_free(&r);
	return ret;
}

/* ------------------------------------------------------------- restore */

struct cfg_backend {
	struct backend b;
	unsigned int line;
};

struct cfg_pool {
	struct pool p;
	unsigned int line;
	struct cfg_backend *b;
	size_t n, cap;
};

struct cfg_rule {
	struct rule r;
	unsigned int line;
};

struct cfg_service {
	struct service s;
	unsigned int line;
	struct cfg_rule *rules;
	size_t nr, rcap;
};

/* The configuration read from the file; strings point into the file text. */
struct config {
	struct cfg_pool *pools;
	size_t np, pcap;
	struct cfg_service *svcs;
	size_t ns, scap;
	size_t nrules;
	size_t strings;		/* bytes of names, to size the request */
	bool has_seed;
	uint8_t seed[KLB_HASH_SEED_LEN];
	struct hostmap_batch hm;	/* after the services, naming them */
};

static void config_free(struct config *c)
{
	size_t i;

	for (i = 0; i < c->np; i++)
		free(c->pools[i].b);
	free(c->pools);
	for (i = 0; i < c->ns; i++)
		free(c->svcs[i].rules);
	free(c->svcs);
	hostmap_batch_free(&c->hm);
}

/* Later definitions win, as the kernel would see them in order. */
static struct cfg_pool *find_pool(struct config *c, const char *name)
{
	size_t i;

	for (i = c->np; i-- > 0;)
		if (!strcmp(c->pools[i].p.name, name))
			return &c->pools[i];
	return NULL;
}

static struct cfg_service *find_service(struct config *c, const char *name)
{
	size_t i;

	for (i = c->ns; i-- > 0;)
		if (!strcmp(c->svcs[i].s.name, name))
			return &c->svcs[i];
	return NULL;
}

static int no_memory(void)
{
	return errorf(EXIT_KERNEL, "out of memory");
}

static enum obj_cmd add_or_set(bool add)
{
	return add ? OBJ_ADD : OBJ_SET;
}

/* set: its words over the pool's; add: a new pool. */
static int line_pool(struct config *c, bool add, int argc, char **argv,
		     unsigned int line)
{
	struct pool p;
	struct cfg_pool *cp;
	int ret;

	ret = obj_parse(&pool_desc, argc, argv, add_or_set(add), &p);
	if (ret)
		return ret;
	c->strings += obj_wire(&pool_desc, &p);
	if (!add) {
		cp = find_pool(c, p.name);
		if (!cp)
			return errorf(EXIT_USAGE, "pool \"%s\" is not defined above", p.name);
		obj_merge(&pool_desc, &cp->p, &p);
		return EXIT_OK;
	}
	if (!grow(&c->pools, &c->pcap, c->np, sizeof(*c->pools)))
		return no_memory();
	cp = &c->pools[c->np++];
	memset(cp, 0, sizeof(*cp));
	cp->p = p;
	cp->line = line;
	return EXIT_OK;
}

static int line_backend(struct config *c, bool add, int argc, char **argv,
			unsigned int line)
{
	struct backend b;
	struct cfg_pool *cp;
	size_t i;
	int ret;

	ret = obj_parse(&backend_desc, argc, argv, add_or_set(add), &b);
	if (ret)
		return ret;
	cp = find_pool(c, b.pool);
	if (!cp)
		return errorf(EXIT_USAGE, "pool \"%s\" is not defined above", b.pool);
	c->strings += obj_wire(&backend_desc, &b);
	if (add) {
		/* Duplicates are sent as they are: refusing them is the kernel's job. */
		if (!grow(&cp->b, &cp->cap, cp->n, sizeof(*cp->b)))
			return no_memory();
		cp->b[cp->n].b = b;
		cp->b[cp->n++].line = line;
		return EXIT_OK;
	}
	for (i = cp->n; i-- > 0;) {
		if (addr_equal(&cp->b[i].b.addr, &b.addr)) {
			obj_merge(&backend_desc, &cp->b[i].b, &b);
			return EXIT_OK;
		}
	}
	return errorf(EXIT_USAGE, "backend %s is not defined above in pool \"%s\"",
		      argv[1], b.pool);
}

static int line_service(struct config *c, bool add, int argc, char **argv,
			unsigned int line)
{
	struct service s;
	struct cfg_service *cs;
	int ret;

	ret = obj_parse(&service_desc, argc, argv, add_or_set(add), &s);
	if (ret)
		return ret;
	c->strings += obj_wire(&service_desc, &s);
	if (!add) {
		cs = find_service(c, s.name);
		if (!cs)
			return errorf(EXIT_USAGE, "service \"%s\" is not defined above", s.name);
		obj_merge(&service_desc, &cs->s, &s);
		return EXIT_OK;
	}
	if (!grow(&c->svcs, &c->scap, c->ns, sizeof(*c->svcs)))
		return no_memory();
	cs = &c->svcs[c->ns++];
	memset(cs, 0, sizeof(*cs));
	cs->s = s;
	cs->line = line;
	return EXIT_OK;
}

/* A rule joins the service defined above it, after its earlier rules. */
static int line_rule(struct config *c, int argc, char **argv, unsigned int line)
{
	struct cfg_service *cs;
	struct rule r;
	int ret;

	ret = obj_parse(&rule_desc, argc, argv, OBJ_ADD, &r);
	if (ret)
		return ret;
	cs = find_service(c, r.service);
	if (!cs)
		return errorf(EXIT_USAGE, "service \"%s\" is not defined above", r.service);
	if (!grow(&cs->rules, &cs->rcap, cs->nr, sizeof(*cs->rules)))
		return no_memory();
	cs->rules[cs->nr].r = r;
	cs->rules[cs->nr++].line = line;
	c->nrules++;
	c->strings += obj_wire(&rule_desc, &r);
	return EXIT_OK;
}

static const char *const objects[] = { "pool", "backend", "service", "rule" };

/* "hostmap add SERVICE HOST pool POOL": a name of a service defined above. */
static int line_hostmap(struct config *c, int argc, char **argv,
			unsigned int line)
{
	struct hostmap h;
	int ret;

	if (argc < 2 || strcmp(argv[1], "add"))
		return errorf(EXIT_USAGE, "only \"hostmap add\" lines are allowed in a restore file");
	ret = obj_parse(&hostmap_desc, argc - 2, argv + 2, OBJ_ADD, &h);
	if (ret)
		return ret;
	if (!find_service(c, h.service))
		return errorf(EXIT_USAGE, "service \"%s\" is not defined above", h.service);
	if (!hostmap_batch_add(&c->hm, h.service, h.host, h.pool, line))
		return no_memory();
	return EXIT_OK;
}

/* "hash-seed set HEX": sent with the configuration. */
static int line_seed(struct config *c, int argc, char **argv)
{
	if (argc < 2 || strcmp(argv[1], "set"))
		return errorf(EXIT_USAGE, "expected \"hash-seed set HEX\"");
	if (argc != 3)
		return errorf(EXIT_USAGE, "expected one seed after \"hash-seed set\"");
	c->has_seed = true;
	return seed_parse(argv[2], c->seed);
}

/* One tokenized line: OBJECT COMMAND ARGS. */
static int restore_line(struct config *c, int argc, char **argv,
			unsigned int line)
{
	size_t obj;
	bool add;

	if (!strcmp(argv[0], "hash-seed"))
		return line_seed(c, argc, argv);
	if (!strcmp(argv[0], "hostmap"))
		return line_hostmap(c, argc, argv, line);
	for (obj = 0; obj < ARRAY_SIZE(objects); obj++)
		if (!strcmp(argv[0], objects[obj]))
			break;
	if (obj == ARRAY_SIZE(objects))
		return errorf(EXIT_USAGE, "unknown object \"%s\" (pool, backend, service or rule)",
			      argv[0]);
	if (argc < 2)
		return errorf(EXIT_USAGE, "missing command after \"%s\" (add or set)",
			      argv[0]);
	if (!strcmp(argv[1], "add"))
		add = true;
	else if (!strcmp(argv[1], "set") && obj != 3)
		add = false;
	else
		return errorf(EXIT_USAGE, "\"%s %s\" is not allowed in a restore file (only add%s)",
			      argv[0], argv[1], obj == 3 ? "" : " and set");

	switch (obj) {
	case 0:
		return line_pool(c, add, argc - 2, argv + 2, line);
	case 1:
		return line_backend(c, add, argc - 2, argv + 2, line);
	case 2:
		return line_service(c, add, argc - 2, argv + 2, line);
	default:
		return line_rule(c, argc - 2, argv + 2, line);
	}
}

static char *read_all(FILE *f, size_t *len)
{
	size_t cap = 64 * 1024, n = 0, got;
	char *buf = malloc(cap + 1), *p;

	while (buf) {
		got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
		if (n == cap) {
			cap *= 2;
			p = realloc(buf, cap + 1);
			if (!p) {
				free(buf);
				return NULL;
			}
			buf = p;
		}
	}
	if (!buf || ferror(f)) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	*len = n;
	return buf;
}

static int restore_line_fn(void *ctx, int argc, char **argv, unsigned int line)
{
	return restore_line(ctx, argc, argv, line);
}

static int restore_parse(struct config *c, char *text, const char *file)
{
	return tokenize_lines(text, file, restore_line_fn, c);
}

/*
 * A restore goes as a transaction: BEGIN, as many STAGE messages as the
 * configuration needs, COMMIT. A config nest's length is 16 bits, so each
 * STAGE carries objects up to STAGE_LIMIT bytes of nest (a margin under
 * 64 KiB); an object that would cross it starts the next message. Pools
 * go first, so a service's pool was always staged before it. The kernel
 * applies the whole at COMMIT or nothing; a refused STAGE ends the
 * transaction there.
 */
#define STAGE_LIMIT	(48 * 1024)
/* Room for the limit plus one object of up to a whole nest. */
#define STAGE_BUF	(MNL_SOCKET_BUFFER_SIZE + STAGE_LIMIT + 64 * 1024)

struct stage {
	struct req r;
	struct nlattr *config;
	uint32_t config_start;
	size_t nobj;		/* objects in the message being built */
	uint32_t txn;
	const char *file;
};

static int begin_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[KLB_A_MAX + 1];

	msg_parse(nlh, tb, KLB_A_MAX);
	*(uint32_t *)data = attr_u32(tb[KLB_A_TXN], 0);
	return 0;
}

static int txn_simple(uint8_t cmd, uint32_t txn, klb_cb_t cb, void *data)
{
	struct req r;
	int ret;

	ret = req_init(&r, cmd, 0, MNL_SOCKET_BUFFER_SIZE);
	if (ret)
		return ret;
	if (cmd != KLB_CMD_RESTORE_BEGIN)
		req_put_u32(&r, KLB_A_TXN, txn);
	ret = klb_request(&r, cb, data, NULL);
	req_free(&r);
	return ret;
}

static int stage_open(struct stage *st)
{
	int ret = req_init(&st->r, KLB_CMD_RESTORE_STAGE, 0, STAGE_BUF);

	if (ret)
		return ret;
	st->r.file = st->file;
	req_put_u32(&st->r, KLB_A_TXN, st->txn);
	st->config_start = req_len(&st->r);
	st->config = req_nest_start(&st->r, KLB_A_CONFIG);
	st->nobj = 0;
	return EXIT_OK;
}

static int stage_send(struct stage *st)
{
	int ret;

	req_nest_end(&st->r, st->config);
	ret = klb_request(&st->r, NULL, NULL, NULL);
	req_free(&st->r);
	return ret;
}

/*
 * The object just put after @mark: if it took the message past the limit,
 * send the message without it and start the next one, where put() puts
 * it again.
 */
static int stage_fit(struct stage *st, uint32_t mark,
		     void (*put)(struct req *r, const void *obj), const void *obj)
{
	int ret;

	if (req_len(&st->r) - st->config_start <= STAGE_LIMIT || !st->nobj) {
		st->nobj++;
		return EXIT_OK;
	}
	req_truncate(&st->r, mark);
	ret = stage_send(st);
	if (!ret)
		ret = stage_open(st);
	if (ret)
		return ret;
	put(&st->r, obj);
	st->nobj++;
	return EXIT_OK;
}

static void put_pool(struct req *r, const void *obj)
{
	const struct cfg_pool *p = obj;
	struct nlattr *nest, *backends, *be;
	uint32_t start, bstart;
	size_t j;

	start = req_len(r);
	nest = req_nest_start(r, KLB_CONFIG_A_POOL);
	obj_put(&pool_desc, r, &p->p);
	backends = req_nest_start(r, KLB_POOL_A_BACKENDS);
	for (j = 0; j < p->n; j++) {
		bstart = req_len(r);
		be = req_nest_start(r, KLB_POOL_A_BACKEND);
		obj_put(&backend_desc, r, &p->b[j].b);
		req_nest_end(r, be);
		req_span(r, bstart, p->b[j].line);
	}
	req_nest_end(r, backends);
	req_nest_end(r, nest);
	req_span(r, start, p->line);
}

static void put_service(struct req *r, const void *obj)
{
	const struct cfg_service *cs = obj;
	struct nlattr *nest, *rules, *rule;
	uint32_t start, bstart;
	size_t j;

	start = req_len(r);
	nest = req_nest_start(r, KLB_CONFIG_A_SERVICE);
	obj_put(&service_desc, r, &cs->s);
	if (cs->nr) {
		rules = req_nest_start(r, KLB_SERVICE_A_RULES);
		for (j = 0; j < cs->nr; j++) {
			bstart = req_len(r);
			rule = req_nest_start(r, KLB_RULES_A_RULE);
			obj_put(&rule_desc, r, &cs->rules[j].r);
			req_nest_end(r, rule);
			req_span(r, bstart, cs->rules[j].line);
		}
		req_nest_end(r, rules);
	}
	req_nest_end(r, nest);
	req_span(r, start, cs->line);
}

static int stage_all(const struct config *c, struct stage *st)
{
	uint32_t mark;
	size_t i;
	int ret;

	ret = stage_open(st);
	if (ret)
		return ret;
	/* The seed first: the kernel takes it only before any pool. */
	if (c->has_seed)
		req_put(&st->r, KLB_CONFIG_A_HASH_SEED, sizeof(c->seed), c->seed);
	for (i = 0; i < c->np && !ret; i++) {
		mark = req_len(&st->r);
		put_pool(&st->r, &c->pools[i]);
		ret = stage_fit(st, mark, put_pool, &c->pools[i]);
	}
	for (i = 0; i < c->ns && !ret; i++) {
		mark = req_len(&st->r);
		put_service(&st->r, &c->svcs[i]);
		ret = stage_fit(st, mark, put_service, &c->svcs[i]);
	}
	if (ret) {
		req_free(&st->r);
		return ret;
	}
	return stage_send(st);
}

/*
 * COMMIT, with the host maps: each name is its own top-level attribute
 * (no 64 KiB nest to fit), so all of them go in this one message, checked
 * and applied with the staged services or not at all.
 */
static int commit_send(const struct config *c, struct stage *st)
{
	struct req r;
	int ret;

	ret = req_init(&r, KLB_CMD_RESTORE_COMMIT, 0,
		       MNL_SOCKET_BUFFER_SIZE + hostmap_batch_wire(&c->hm));
	if (ret)
		return ret;
	r.file = st->file;
	req_put_u32(&r, KLB_A_TXN, st->txn);
	hostmap_batch_put(&c->hm, &r);
	ret = klb_request(&r, NULL, NULL, NULL);
	req_free(&r);
	return ret;
}

static int restore_send(const struct config *c, const char *file)
{
	struct stage st = { .file = file };
	int ret;

	ret = nl_need_cmd(KLB_CMD_RESTORE_BEGIN, "restore transactions (RESTORE_BEGIN)");
	if (ret)
		return ret;
	ret = txn_simple(KLB_CMD_RESTORE_BEGIN, 0, begin_cb, &st.txn);
	if (ret)
		return ret;
	ret = stage_all(c, &st);
	if (!ret)
		return commit_send(c, &st);
	/*
	 * A refused STAGE already ended it in the kernel, which keeps it for
	 * this ABORT (closing the socket would drop it too).
	 */
	txn_simple(KLB_CMD_RESTORE_ABORT, st.txn, NULL, NULL);
	return ret;
}

/* The text of path ("-" or NULL: standard input), or NULL after an error. */
static char *read_input(const char *path, const char **name, int *ret)
{
	FILE *f = stdin;
	size_t len;
	char *text;

	*name = "<stdin>";
	if (path && strcmp(path, "-")) {
		f = fopen(path, "r");
		if (!f) {
			*ret = errorf(EXIT_USAGE, "cannot open \"%s\": %s", path, strerror(errno));
			return NULL;
		}
		*name = path;
	}
	text = read_all(f, &len);
	if (f != stdin)
		fclose(f);
	if (!text) {
		*ret = errorf(EXIT_USAGE, "cannot read %s: %s", *name,
			      errno ? strerror(errno) : "read error");
		return NULL;
	}
	if (memchr(text, '\0', len)) {
		free(text);
		*ret = errorf(EXIT_USAGE, "%s: binary data in a configuration file", *name);
		return NULL;
	}
	return text;
}

static int batch_line_fn(void *ctx, int argc, char **argv, unsigned int line)
{
	int (*run)(int argc, char **argv) = *(int (**)(int, char **))ctx;

	(void)line;
	return run(argc, argv);
}

int batch_run(const char *path, int (*run)(int argc, char **argv))
{
	const char *name;
	char *text;
	int ret = EXIT_OK;

	text = read_input(path, &name, &ret);
	if (!text)
		return ret;
	ret = tokenize_lines(text, name, batch_line_fn, &run);
	free(text);
	return ret;
}

int do_restore(int argc, char **argv)
{
	const char *path = NULL, *name;
	struct config c = { 0 };
	char *text;
	int ret = EXIT_OK;

	if (argc > 0 && is_help(argv[0]))
		return config_help(argc, argv);
	for (; argc > 0; argc -= 2, argv += 2) {
		if (strcmp(argv[0], "-f") && strcmp(argv[0], "--file"))
			return usage_errorf("restore", "unexpected argument \"%s\"", argv[0]);
		if (argc < 2)
			return usage_errorf("restore", "missing FILE after \"%s\"", argv[0]);
		path = argv[1];
	}
	text = read_input(path, &name, &ret);
	if (!text)
		return ret;
	ret = restore_parse(&c, text, name);
	if (!ret)
		ret = restore_send(&c, name);
	config_free(&c);
	free(text);
	return ret;
}
