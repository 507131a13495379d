// SPDX-License-Identifier: GPL-2.0
/*
 * klbctl rule add|del|show: request steering rules of http and tls
 * services. Rules are kept in order; the first whose matchers all match
 * picks the pool, else the service's own pool is used.
 */
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

void rule_usage(FILE *f)
{
	fprintf(f,
		"Usage: klbctl rule add SERVICE [host HOST] [path PREFIX] [header NAME=VALUE]\n"
		"                       [method METHOD] [sni HOST] pool POOL\n"
		"       klbctl rule del SERVICE INDEX\n"
		"       klbctl [-j] rule show SERVICE\n"
		"host, path, header and method match requests of http services, sni the\n"
		"TLS ClientHello of tls services. HOST is a name or *.domain (any depth),\n"
		"PREFIX starts with /, INDEX counts from 0 as \"rule show\" lists them.\n"
		"Rules are tried in order: the first whose matchers all match picks the pool.\n");
}

/* ------------------------------------------------------------ the words */

/* Kept as given: rule_check() splits it once every word is read. */
static int header_parse(const struct field *f, const char *obj, int argc,
			char **argv, void *val)
{
	(void)f;
	(void)obj;
	(void)argc;
	((struct rule_header *)val)->text = argv[0];
	return EXIT_OK;
}

/* "NAME=VALUE": sent as two attributes, @attr and @attr + 1. */
static void header_put(struct req *r, const struct field *f, const void *val)
{
	const struct rule_header *h = val;

	req_put_strn(r, f->attr, h->text, h->name_len);
	req_put_strz(r, f->attr + 1, h->text + h->name_len + 1);
}

/* A header is a name and a value; the kernel never sends half. */
static int header_get(const struct field *f, const struct nlattr *const *tb,
		      void *val)
{
	const struct nlattr *name = tb[f->attr], *value = tb[f->attr + 1];
	struct rule_header *h = val;
	char *n, *v;
	int ret;

	if (!name != !value)
		return -EPROTO;
	if (!name)
		return 0;
	n = attr_strdup(name);
	v = attr_strdup(value);
	ret = n && v && asprintf(&h->text, "%s=%s", n, v) >= 0 ? 1 : -ENOMEM;
	if (ret > 0)
		h->name_len = strlen(n);
	free(n);
	free(v);
	return ret;
}

static void header_print(enum output_type t, const struct field *f,
			 const void *val, enum wmode m)
{
	print_keyword(t, f, m);
	print_str_value(t, f, ((const struct rule_header *)val)->text);
}

static void header_free(void *val)
{
	struct rule_header *h = val;

	free(h->text);
	h->text = NULL;
}

static size_t header_wire(const void *val)
{
	return strlen(((const struct rule_header *)val)->text) + 16;
}

static const struct vtype vt_header = {
	.size = sizeof(struct rule_header),
	.parse = header_parse,
	.put = header_put,
	.get = header_get,
	.print = header_print,
	.free = header_free,
	.wire = header_wire,
};

enum {
	R_SERVICE, R_HOST, R_PATH, R_HEADER, R_METHOD, R_SNI, R_POOL, R_FIELDS
};

/* Words are quoted in show as in save: "rule show" lines are save's words. */
static const struct field rule_fields[] = {
	[R_SERVICE] = {
		.word = "service", .type = &vt_str,
		.off = offsetof(struct rule, service), .attr = KLB_RULE_A_SERVICE,
		.flags = F_KEY | F_PARENT, .meta = "SERVICE",
	},
	[R_HOST] = {
		.word = "host", .json = "host", .type = &vt_str,
		.off = offsetof(struct rule, host), .attr = KLB_RULE_A_HOST,
		.flags = F_QUOTE,
	},
	[R_PATH] = {
		.word = "path", .json = "path", .type = &vt_str,
		.off = offsetof(struct rule, path), .attr = KLB_RULE_A_PATH,
		.flags = F_QUOTE,
	},
	[R_HEADER] = {
		.word = "header", .json = "header", .type = &vt_header,
		.off = offsetof(struct rule, header),
		.attr = KLB_RULE_A_HEADER_NAME, .flags = F_QUOTE,
	},
	[R_METHOD] = {
		.word = "method", .json = "method", .type = &vt_str,
		.off = offsetof(struct rule, method), .attr = KLB_RULE_A_METHOD,
		.flags = F_QUOTE,
	},
	[R_SNI] = {
		.word = "sni", .json = "sni", .type = &vt_str,
		.off = offsetof(struct rule, sni), .attr = KLB_RULE_A_SNI,
		.flags = F_QUOTE,
	},
	[R_POOL] = {
		.word = "pool", .json = "pool", .type = &vt_str,
		.off = offsetof(struct rule, pool), .attr = KLB_RULE_A_POOL,
		.flags = F_QUOTE | F_REQUIRED, .meta = "POOL",
	},
};

/* NAME is a token (no '='); VALUE may hold any '=' or be empty. */
static int rule_check(void *obj)
{
	struct rule_header *h = &((struct rule *)obj)->header;
	const char *eq;

	if (!obj_given(&rule_desc, obj, R_HEADER))
		return EXIT_OK;
	eq = strchr(h->text, '=');
	if (!eq)
		return usage_errorf("rule", "invalid header \"%s\": expected NAME=VALUE",
				    h->text);
	h->name_len = (size_t)(eq - h->text);
	return EXIT_OK;
}

/* "INDEX: host H ... pool POOL" */
static void rule_title(const void *obj)
{
	print_uint(PRINT_ANY, "index", "%u:", ((const struct rule *)obj)->index);
}

/* rule { service SERVICE, the matchers, pool POOL } */
const struct obj_desc rule_desc = {
	.name = "rule",
	.f = rule_fields,
	.n = R_FIELDS,
	.size = sizeof(struct rule),
	.given_off = offsetof(struct rule, given),
	.top = KLB_A_RULE,
	.cmd_new = KLB_CMD_RULE_NEW,
	.once = true,
	.check = rule_check,
	.show_title = rule_title,
};

/* ------------------------------------------------------------ commands */

static int rule_add(int argc, char **argv)
{
	struct rule r;

	return obj_command(&rule_desc, OBJ_ADD, argc, argv, &r);
}

static int rule_del(int argc, char **argv)
{
	struct nlattr *nest;
	uint32_t index;
	struct req r;
	int ret;

	if (argc < 1)
		return usage_errorf("rule", "missing SERVICE");
	if (argc < 2)
		return usage_errorf("rule", "missing rule INDEX");
	if (argc > 2)
		return usage_errorf("rule", "unexpected argument \"%s\"", argv[2]);
	if (!parse_u32(argv[1], &index))
		return usage_errorf("rule", "invalid index \"%s\": not a decimal number of 32 bits",
				    argv[1]);
	ret = req_init(&r, KLB_CMD_RULE_DEL, 0, req_size_for(argc, argv));
	if (ret)
		return ret;
	nest = req_nest_start(&r, KLB_A_RULE);
	req_put_strz(&r, KLB_RULE_A_SERVICE, argv[0]);
	req_put_u32(&r, KLB_RULE_A_INDEX, index);
	req_nest_end(&r, nest);
	ret = klb_request(&r, NULL, NULL, NULL);
	req_free(&r);
	return ret;
}

/* ------------------------------------------------------------- dumping */

static int rule_read(const struct nlattr *nest, struct rule_list *l)
{
	const struct nlattr *tb[KLB_RULE_A_MAX + 1];
	struct rule *r;
	int ret;

	if (!grow(&l->r, &l->cap, l->n, sizeof(*l->r)))
		return -ENOMEM;
	r = &l->r[l->n];
	memset(r, 0, sizeof(*r));
	nest_parse(nest, tb, KLB_RULE_A_MAX);
	if (!tb[KLB_RULE_A_INDEX] || !tb[KLB_RULE_A_POOL])
		return -EPROTO;
	r->index = attr_u32(tb[KLB_RULE_A_INDEX], 0);
	ret = obj_get(&rule_desc, tb, r);
	if (ret) {
		obj_free(&rule_desc, r);
		return ret;
	}
	l->n++;
	return 0;
}

static int rule_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a;
	int ret;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) != KLB_A_RULE)
			continue;
		ret = rule_read(a, data);
		if (ret)
			return ret;
	}
	return 0;
}

void rule_list_free(struct rule_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		obj_free(&rule_desc, &l->r[i]);
	free(l->r);
	memset(l, 0, sizeof(*l));
}

static void rule_list_reset(void *data)
{
	rule_list_free(data);
}

int rule_dump(const char *service, struct rule_list *l)
{
	struct nlattr *nest;
	struct req r;
	int ret;

	memset(l, 0, sizeof(*l));
	ret = req_init(&r, KLB_CMD_RULE_GET, NLM_F_DUMP,
		       MNL_SOCKET_BUFFER_SIZE + strlen(service));
	if (ret)
		return ret;
	nest = req_nest_start(&r, KLB_A_RULE);
	req_put_strz(&r, KLB_RULE_A_SERVICE, service);
	req_nest_end(&r, nest);
	ret = klb_request(&r, rule_cb, l, rule_list_reset);
	req_free(&r);
	if (ret)
		rule_list_free(l);
	return ret;
}

/* ------------------------------------------------------------- showing */

static int rule_show(int argc, char **argv)
{
	struct rule_list l;
	size_t i;
	int ret;

	if (argc < 1)
		return usage_errorf("rule", "missing SERVICE");
	if (argc > 1)
		return usage_errorf("rule", "unexpected argument \"%s\"", argv[1]);
	ret = rule_dump(argv[0], &l);
	if (ret)
		return ret;
	new_json_obj(opt_json);
	for (i = 0; i < l.n; i++) {
		open_json_object(NULL);
		obj_show(&rule_desc, &l.r[i]);
		close_json_object();
	}
	delete_json_obj();
	rule_list_free(&l);
	return EXIT_OK;
}

static int rule_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	rule_usage(stdout);
	return EXIT_OK;
}

static const struct cmd rule_cmds[] = {
	{ "add", rule_add },
	{ "del", rule_del },
	{ "delete", rule_del },
	{ "show", rule_show },
	{ "list", rule_show },
	{ "help", rule_help },
};

int do_rule(int argc, char **argv)
{
	if (argc < 1)
		return usage_errorf("rule", "missing command");
	return dispatch("rule", rule_cmds, ARRAY_SIZE(rule_cmds), argc, argv);
}
