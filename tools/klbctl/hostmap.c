// SPDX-License-Identifier: GPL-2.0
/*
 * klbctl hostmap add|del|show|flush|load: the host map of http and tls
 * services, exact names (Host, or SNI for tls) -> pool, looked up after
 * the rules and before the service's own pool.
 *
 * load replaces a service's whole map from a file of "HOST POOL" lines
 * (haproxy's map file format: # comments, blank lines) in one request,
 * which the kernel swaps in at once or refuses whole: each name is its own
 * top-level attribute, so the request is not bound by the 64 KiB of one
 * attribute. restore sends the maps of a saved file the same way, after
 * the configuration's nest (config.c, hostmap_batch_*()).
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
#include "tokenize.h"

void hostmap_usage(FILE *f)
{
	fprintf(f,
		"Usage: klbctl hostmap add SERVICE HOST pool POOL\n"
		"       klbctl hostmap del SERVICE HOST\n"
		"       klbctl hostmap load SERVICE FILE   (\"-\": standard input)\n"
		"       klbctl hostmap flush SERVICE\n"
		"       klbctl [-j] hostmap show [SERVICE]\n"
		"The host map of an http (by Host) or tls (by SNI) service: exact names,\n"
		"case-insensitive, a port and one trailing dot ignored; tried after the\n"
		"rules, before the service's pool. FILE has one \"HOST POOL\" per line, as\n"
		"a haproxy map file, and replaces the whole map at once. At most %d names.\n",
		KLB_HOSTMAP_MAX);
}

enum { H_SERVICE, H_HOST, H_POOL, H_FIELDS };

static const struct field hostmap_fields[] = {
	[H_SERVICE] = {
		.word = "service", .json = "service", .type = &vt_str,
		.off = offsetof(struct hostmap, service),
		.attr = KLB_HOSTMAP_A_SERVICE, .flags = F_KEY,
		.meta = "SERVICE",
	},
	[H_HOST] = {
		.word = "host", .json = "host", .type = &vt_str,
		.off = offsetof(struct hostmap, host),
		.attr = KLB_HOSTMAP_A_HOST, .flags = F_KEY | F_QUOTE,
		.meta = "HOST",
	},
	[H_POOL] = {
		.word = "pool", .json = "pool", .type = &vt_str,
		.off = offsetof(struct hostmap, pool),
		.attr = KLB_HOSTMAP_A_POOL, .flags = F_QUOTE | F_REQUIRED,
		.meta = "POOL",
	},
};

/* "SERVICE HOST pool POOL" */
static void hostmap_title(const void *obj)
{
	print_string(PRINT_ANY, "service", "%s",
		     ((const struct hostmap *)obj)->service);
	obj_print_field(&hostmap_desc, obj, H_HOST, W_BARE);
}

const struct obj_desc hostmap_desc = {
	.name = "hostmap",
	.f = hostmap_fields,
	.n = H_FIELDS,
	.size = sizeof(struct hostmap),
	.given_off = offsetof(struct hostmap, given),
	.top = KLB_A_HOSTMAP,
	.cmd_new = KLB_CMD_HOSTMAP_NEW,
	.cmd_del = KLB_CMD_HOSTMAP_DEL,
	.once = true,
	.show_title = hostmap_title,
};

/* ------------------------------------------------------ many at once */

/* One name of a batch; the strings point into the caller's text. */
struct hostmap_line {
	const char *service, *host, *pool;
	unsigned int line;
};

bool hostmap_batch_add(struct hostmap_batch *b, const char *service,
		       const char *host, const char *pool, unsigned int line)
{
	if (!grow(&b->e, &b->cap, b->n, sizeof(*b->e)))
		return false;
	b->e[b->n++] = (struct hostmap_line){ service, host, pool, line };
	b->bytes += strlen(service) + strlen(host) + strlen(pool) + 32;
	return true;
}

/* Request bytes of the batch, at most. */
size_t hostmap_batch_wire(const struct hostmap_batch *b)
{
	return b->bytes;
}

/* One top-level KLB_A_HOSTMAP per name, each spanning its line. */
void hostmap_batch_put(const struct hostmap_batch *b, struct req *r)
{
	struct nlattr *nest;
	uint32_t start;
	size_t i;

	for (i = 0; i < b->n; i++) {
		start = req_len(r);
		nest = req_nest_start(r, KLB_A_HOSTMAP);
		req_put_strz(r, KLB_HOSTMAP_A_SERVICE, b->e[i].service);
		req_put_strz(r, KLB_HOSTMAP_A_HOST, b->e[i].host);
		req_put_strz(r, KLB_HOSTMAP_A_POOL, b->e[i].pool);
		req_nest_end(r, nest);
		req_span(r, start, b->e[i].line);
	}
}

void hostmap_batch_free(struct hostmap_batch *b)
{
	free(b->e);
	memset(b, 0, sizeof(*b));
}

/* SET: @service's whole map is the batch (empty: no names). */
static int hostmap_set(const char *service, const struct hostmap_batch *b,
		       const char *file)
{
	struct nlattr *nest;
	struct req r;
	int ret;

	ret = req_init(&r, KLB_CMD_HOSTMAP_SET, 0, MNL_SOCKET_BUFFER_SIZE +
		       strlen(service) + hostmap_batch_wire(b));
	if (ret)
		return ret;
	r.file = file;
	if (b->n) {
		hostmap_batch_put(b, &r);
	} else {
		nest = req_nest_start(&r, KLB_A_HOSTMAP);
		req_put_strz(&r, KLB_HOSTMAP_A_SERVICE, service);
		req_nest_end(&r, nest);
	}
	ret = klb_request(&r, NULL, NULL, NULL);
	req_free(&r);
	return ret;
}

static char *read_file(const char *path, const char **name)
{
	size_t cap = 1 << 16, n = 0, got;
	FILE *f = stdin;
	char *buf, *p;

	*name = "<stdin>";
	if (strcmp(path, "-")) {
		f = fopen(path, "r");
		if (!f)
			return NULL;
		*name = path;
	}
	buf = malloc(cap + 1);
	while (buf && (got = fread(buf + n, 1, cap - n, f)) > 0) {
		n += got;
		if (n < cap)
			continue;
		cap *= 2;
		p = realloc(buf, cap + 1);
		if (!p) {
			free(buf);
			buf = NULL;
		}
		buf = p;
	}
	if (buf && (ferror(f) || memchr(buf, '\0', n))) {
		free(buf);
		buf = NULL;
		errno = EINVAL;
	}
	if (f != stdin)
		fclose(f);
	if (buf)
		buf[n] = '\0';
	return buf;
}

struct load_ctx {
	const char *service;
	struct hostmap_batch b;
};

/* "HOST POOL", as a haproxy map file's "key value". */
static int load_line(void *data, int argc, char **argv, unsigned int line)
{
	struct load_ctx *l = data;

	if (argc != 2)
		return errorf(EXIT_USAGE, "expected \"HOST POOL\", got %d word%s",
			      argc, argc == 1 ? "" : "s");
	if (!hostmap_batch_add(&l->b, l->service, argv[0], argv[1], line))
		return errorf(EXIT_KERNEL, "out of memory");
	return EXIT_OK;
}

static int hostmap_load(int argc, char **argv)
{
	struct load_ctx l = { 0 };
	const char *name;
	char *text;
	int ret;

	if (argc < 1)
		return usage_errorf("hostmap", "missing SERVICE");
	if (argc < 2)
		return usage_errorf("hostmap", "missing FILE");
	if (argc > 2)
		return usage_errorf("hostmap", "unexpected argument \"%s\"", argv[2]);
	text = read_file(argv[1], &name);
	if (!text)
		return errorf(EXIT_USAGE, "cannot read \"%s\": %s", argv[1],
			      strerror(errno));
	l.service = argv[0];
	ret = tokenize_lines(text, name, load_line, &l);
	if (!ret && l.b.n > KLB_HOSTMAP_MAX)
		ret = errorf(EXIT_USAGE, "%s: %zu names, more than %d", name,
			     l.b.n, KLB_HOSTMAP_MAX);
	if (!ret)
		ret = hostmap_set(argv[0], &l.b, name);
	hostmap_batch_free(&l.b);
	free(text);
	return ret;
}

static int hostmap_flush(int argc, char **argv)
{
	struct hostmap_batch b = { 0 };

	if (argc < 1)
		return usage_errorf("hostmap", "missing SERVICE");
	if (argc > 1)
		return usage_errorf("hostmap", "unexpected argument \"%s\"", argv[1]);
	return hostmap_set(argv[0], &b, NULL);
}

/* ------------------------------------------------------------- one */

static int hostmap_add(int argc, char **argv)
{
	struct hostmap h;

	return obj_command(&hostmap_desc, OBJ_ADD, argc, argv, &h);
}

static int hostmap_del(int argc, char **argv)
{
	struct hostmap h;

	return obj_command(&hostmap_desc, OBJ_DEL, argc, argv, &h);
}

/* ------------------------------------------------------------- dumping */

static int hostmap_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[KLB_HOSTMAP_A_MAX + 1];
	struct hostmap_list *l = data;
	const struct nlattr *a;
	struct hostmap *h;
	int ret;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) != KLB_A_HOSTMAP)
			continue;
		if (!grow(&l->h, &l->cap, l->n, sizeof(*l->h)))
			return -ENOMEM;
		h = &l->h[l->n];
		memset(h, 0, sizeof(*h));
		nest_parse(a, tb, KLB_HOSTMAP_A_MAX);
		if (!tb[KLB_HOSTMAP_A_SERVICE] || !tb[KLB_HOSTMAP_A_HOST] ||
		    !tb[KLB_HOSTMAP_A_POOL])
			return -EPROTO;
		ret = obj_get(&hostmap_desc, tb, h);
		if (ret) {
			obj_free(&hostmap_desc, h);
			return ret;
		}
		l->n++;
	}
	return 0;
}

void hostmap_list_free(struct hostmap_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		obj_free(&hostmap_desc, &l->h[i]);
	free(l->h);
	memset(l, 0, sizeof(*l));
}

static void hostmap_list_reset(void *data)
{
	hostmap_list_free(data);
}

int hostmap_dump(const char *service, struct hostmap_list *l)
{
	struct nlattr *nest;
	struct req r;
	int ret;

	memset(l, 0, sizeof(*l));
	ret = req_init(&r, KLB_CMD_HOSTMAP_GET, NLM_F_DUMP,
		       MNL_SOCKET_BUFFER_SIZE + (service ? strlen(service) : 0));
	if (ret)
		return ret;
	if (service) {
		nest = req_nest_start(&r, KLB_A_HOSTMAP);
		req_put_strz(&r, KLB_HOSTMAP_A_SERVICE, service);
		req_nest_end(&r, nest);
	}
	ret = klb_request(&r, hostmap_cb, l, hostmap_list_reset);
	req_free(&r);
	if (ret)
		hostmap_list_free(l);
	return ret;
}

static int hostmap_show(int argc, char **argv)
{
	struct hostmap_list l;
	size_t i;
	int ret;

	if (argc > 1)
		return usage_errorf("hostmap", "unexpected argument \"%s\"", argv[1]);
	ret = hostmap_dump(argc ? argv[0] : NULL, &l);
	if (ret)
		return ret;
	new_json_obj(opt_json);
	for (i = 0; i < l.n; i++) {
		open_json_object(NULL);
		obj_show(&hostmap_desc, &l.h[i]);
		close_json_object();
	}
	delete_json_obj();
	hostmap_list_free(&l);
	return EXIT_OK;
}

static int hostmap_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	hostmap_usage(stdout);
	return EXIT_OK;
}

static const struct cmd hostmap_cmds[] = {
	{ "add", hostmap_add },
	{ "del", hostmap_del },
	{ "delete", hostmap_del },
	{ "load", hostmap_load },
	{ "flush", hostmap_flush },
	{ "show", hostmap_show },
	{ "list", hostmap_show },
	{ "help", hostmap_help },
};

int do_hostmap(int argc, char **argv)
{
	if (argc < 1)
		return usage_errorf("hostmap", "missing command");
	return dispatch("hostmap", hostmap_cmds, ARRAY_SIZE(hostmap_cmds),
			argc, argv);
}
