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

/* Matcher words and where rule_parse() keeps them. */
static const char **matcher(struct rule_spec *r, const char *word)
{
	if (!strcmp(word, "host"))
		return &r->host;
	if (!strcmp(word, "path"))
		return &r->path;
	if (!strcmp(word, "header"))
		return &r->header;
	if (!strcmp(word, "method"))
		return &r->method;
	if (!strcmp(word, "sni"))
		return &r->sni;
	if (!strcmp(word, "pool"))
		return &r->pool;
	return NULL;
}

int rule_parse(int argc, char **argv, struct rule_spec *r)
{
	const char **slot, *eq;

	memset(r, 0, sizeof(*r));
	if (argc < 1)
		return usage_errorf("rule", "missing SERVICE");
	r->service = argv[0];
	for (argc--, argv++; argc > 0; argc -= 2, argv += 2) {
		slot = matcher(r, argv[0]);
		if (!slot)
			return usage_errorf("rule", "unknown argument \"%s\"", argv[0]);
		if (argc < 2)
			return usage_errorf("rule", "missing value after \"%s\"", argv[0]);
		if (*slot)
			return usage_errorf("rule", "\"%s\" given twice", argv[0]);
		*slot = argv[1];
	}
	if (r->header) {
		/* NAME is a token (no '='); VALUE may hold any '=' or be empty. */
		eq = strchr(r->header, '=');
		if (!eq)
			return usage_errorf("rule", "invalid header \"%s\": expected NAME=VALUE",
					    r->header);
		r->hname_len = (size_t)(eq - r->header);
	}
	if (!r->pool)
		return usage_errorf("rule", "missing \"pool POOL\"");
	return EXIT_OK;
}

void rule_put(struct req *r, const struct rule_spec *spec)
{
	if (spec->host)
		req_put_strz(r, KLB_RULE_A_HOST, spec->host);
	if (spec->path)
		req_put_strz(r, KLB_RULE_A_PATH, spec->path);
	if (spec->header) {
		req_put_strn(r, KLB_RULE_A_HEADER_NAME, spec->header, spec->hname_len);
		req_put_strz(r, KLB_RULE_A_HEADER_VALUE, spec->header + spec->hname_len + 1);
	}
	if (spec->method)
		req_put_strz(r, KLB_RULE_A_METHOD, spec->method);
	if (spec->sni)
		req_put_strz(r, KLB_RULE_A_SNI, spec->sni);
	req_put_strz(r, KLB_RULE_A_POOL, spec->pool);
}

size_t rule_strings(const struct rule_spec *spec)
{
	const char *const s[] = {
		spec->host, spec->path, spec->header, spec->method, spec->sni,
		spec->pool,
	};
	size_t i, n = 0;

	for (i = 0; i < ARRAY_SIZE(s); i++)
		if (s[i])
			n += strlen(s[i]) + 8;	/* NULs, header split, padding */
	return n;
}

static int rule_add(int argc, char **argv)
{
	struct rule_spec spec;
	struct nlattr *nest;
	struct req r;
	int ret;

	ret = rule_parse(argc, argv, &spec);
	if (ret)
		return ret;
	ret = req_init(&r, KLB_CMD_RULE_NEW, 0, req_size_for(argc, argv));
	if (ret)
		return ret;
	nest = req_nest_start(&r, KLB_A_RULE);
	req_put_strz(&r, KLB_RULE_A_SERVICE, spec.service);
	rule_put(&r, &spec);
	req_nest_end(&r, nest);
	ret = klb_request(&r, NULL, NULL, NULL);
	req_free(&r);
	return ret;
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

static void rule_info_free(struct rule_info *ri)
{
	free(ri->host);
	free(ri->path);
	free(ri->hname);
	free(ri->hvalue);
	free(ri->method);
	free(ri->sni);
	free(ri->pool);
}

/* A copy of an optional string attribute; false only when out of memory. */
static bool dup_opt(const struct nlattr *a, char **s)
{
	*s = attr_strdup(a);
	return !a || *s;
}

static int rule_info_parse(const struct nlattr *nest, struct rule_list *l)
{
	const struct nlattr *tb[KLB_RULE_A_MAX + 1];
	struct rule_info *ri;

	if (!grow(&l->r, &l->cap, l->n, sizeof(*l->r)))
		return -ENOMEM;
	ri = &l->r[l->n];
	memset(ri, 0, sizeof(*ri));
	nest_parse(nest, tb, KLB_RULE_A_MAX);
	if (!tb[KLB_RULE_A_INDEX] || !tb[KLB_RULE_A_POOL])
		return -EPROTO;
	ri->index = attr_u32(tb[KLB_RULE_A_INDEX], 0);
	/* A header is a name and a value; the kernel never sends half. */
	if (!tb[KLB_RULE_A_HEADER_NAME] != !tb[KLB_RULE_A_HEADER_VALUE])
		return -EPROTO;
	if (!dup_opt(tb[KLB_RULE_A_HOST], &ri->host) ||
	    !dup_opt(tb[KLB_RULE_A_PATH], &ri->path) ||
	    !dup_opt(tb[KLB_RULE_A_HEADER_NAME], &ri->hname) ||
	    !dup_opt(tb[KLB_RULE_A_HEADER_VALUE], &ri->hvalue) ||
	    !dup_opt(tb[KLB_RULE_A_METHOD], &ri->method) ||
	    !dup_opt(tb[KLB_RULE_A_SNI], &ri->sni) ||
	    !dup_opt(tb[KLB_RULE_A_POOL], &ri->pool)) {
		rule_info_free(ri);
		return -ENOMEM;
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
		ret = rule_info_parse(a, data);
		if (ret)
			return ret;
	}
	return 0;
}

void rule_list_free(struct rule_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		rule_info_free(&l->r[i]);
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

/* Append " KEY WORD" (WORD quoted if need be) to the string *out. */
static bool words_add(char **out, size_t *len, const char *key, const char *word)
{
	char *q = word_quote(word), *p;
	size_t add;

	if (!q)
		return false;
	add = strlen(key) + strlen(q) + 2;
	p = realloc(*out, *len + add + 1);
	if (!p) {
		free(q);
		return false;
	}
	*out = p;
	*len += (size_t)sprintf(p + *len, "%s%s %s", *len ? " " : "", key, q);
	free(q);
	return true;
}

char *rule_words(const struct rule_info *ri)
{
	char *out = NULL, *header = NULL;
	size_t len = 0;
	bool ok = true;

	if (ri->hname && asprintf(&header, "%s=%s", ri->hname, ri->hvalue) < 0)
		return NULL;
	if (ri->host)
		ok = ok && words_add(&out, &len, "host", ri->host);
	if (ri->path)
		ok = ok && words_add(&out, &len, "path", ri->path);
	if (header)
		ok = ok && words_add(&out, &len, "header", header);
	if (ri->method)
		ok = ok && words_add(&out, &len, "method", ri->method);
	if (ri->sni)
		ok = ok && words_add(&out, &len, "sni", ri->sni);
	ok = ok && words_add(&out, &len, "pool", ri->pool);
	free(header);
	if (!ok) {
		free(out);
		return NULL;
	}
	return out;
}

/* Text: "INDEX: host H path P ... pool POOL"; JSON: absent matchers omitted. */
static int rule_print(const struct rule_info *ri)
{
	char *words = NULL, *header = NULL;

	if (is_json_context()) {
		if (ri->hname && asprintf(&header, "%s=%s", ri->hname, ri->hvalue) < 0)
			return -ENOMEM;
		open_json_object(NULL);
		print_uint(PRINT_JSON, "index", NULL, ri->index);
		if (ri->host)
			print_string(PRINT_JSON, "host", NULL, ri->host);
		if (ri->path)
			print_string(PRINT_JSON, "path", NULL, ri->path);
		if (header)
			print_string(PRINT_JSON, "header", NULL, header);
		if (ri->method)
			print_string(PRINT_JSON, "method", NULL, ri->method);
		if (ri->sni)
			print_string(PRINT_JSON, "sni", NULL, ri->sni);
		print_string(PRINT_JSON, "pool", NULL, ri->pool);
		close_json_object();
		free(header);
		return 0;
	}
	words = rule_words(ri);
	if (!words)
		return -ENOMEM;
	printf("%u: %s\n", ri->index, words);
	free(words);
	return 0;
}

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
	for (i = 0; i < l.n && !ret; i++)
		if (rule_print(&l.r[i]))
			ret = errorf(EXIT_KERNEL, "out of memory");
	delete_json_obj();
	rule_list_free(&l);
	return ret;
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
