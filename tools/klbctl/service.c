// SPDX-License-Identifier: GPL-2.0
/* klbctl service add|set|del|show: the service's words (its table), its dump. */
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

void service_usage(FILE *f)
{
	fprintf(f,
		"Usage: klbctl service add NAME vip ADDR:PORT proto PROTO mode MODE pool POOL\n"
		"                          [proxy-protocol PP] [snat ADDR[,ADDR...]]\n"
		"                          [persist SECONDS [mask LEN]] [cookie NAME]\n"
		"                          [allow LIST] [deny LIST] [adopt on|off]\n"
		"       klbctl service set NAME [pool POOL] [proxy-protocol PP]\n"
		"                          [persist SECONDS] [mask LEN] [allow LIST] [deny LIST]\n"
		"                          [adopt on|off]\n"
		"LIST := { PREFIX[,PREFIX...] | none }   PREFIX := ADDR[/LEN]\n"
		"       klbctl service del NAME\n"
		"       klbctl [-j] [-s] service show [NAME]\n"
		"ADDR:PORT := { IPV4:PORT | [IPV6]:PORT }   (numeric only)\n"
		"PROTO := { tcp | udp }\n"
		"MODE := { nat | fnat | dr | tun | http | tls }\n"
		"        (default nat; http and tls need tcp; Documentation/deploy.md)\n"
		"PP := { v2 | none }   (PROXY protocol header to backends, mode http or tls)\n"
		"snat: fnat source addresses (default: the route's, towards each backend)\n"
		"persist: L4 modes; a client (or its /LEN prefix) keeps its backend until\n"
		"         SECONDS after its last connection ends (0: off)\n"
		"cookie: mode http; a cookie NAME that pins a client to a backend\n"
		"allow, deny: source prefixes (ADDR[/LEN], at most 64 a list; \"none\": no list).\n"
		"  A new connection from a denied source, or (with an allow list) from one not\n"
		"  allowed, is refused: dropped (L4), 403 (http), closed (tls); deny wins\n"
		"adopt: dr and tun over tcp (default on): a mid-flow packet without an entry\n"
		"  (another balancer scheduled its flow) is scheduled as its SYN was, when the\n"
		"  pool's scheduler is sh or mh and persist is off\n"
		"Rules of http and tls services: klbctl rule help\n");
}

/* ------------------------------------------------------------ the words */

/* "A[,A...]": the fnat source addresses. */
static int snat_parse(const struct field *f, const char *obj, int argc,
		      char **argv, void *val)
{
	char *copy = strdup(argv[0]), *tok, *save = NULL;
	struct snat_list *s = val;
	int ret = EXIT_OK;

	(void)f;
	(void)obj;
	(void)argc;
	if (!copy)
		return errorf(EXIT_KERNEL, "out of memory");
	s->n = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (s->n == KLB_SNAT_MAX) {
			ret = usage_errorf("service", "too many snat addresses (max %d)",
					   KLB_SNAT_MAX);
			break;
		}
		ret = addr_parse_bare("service", tok, &s->a[s->n]);
		if (ret)
			break;
		s->n++;
	}
	if (!ret && !s->n)
		ret = usage_errorf("service", "empty snat address list");
	free(copy);
	return ret;
}

static void snat_put(struct req *r, const struct field *f, const void *val)
{
	const struct snat_list *s = val;
	struct nlattr *nest = req_nest_start(r, f->attr);
	unsigned int i;

	for (i = 0; i < s->n; i++) {
		const struct klb_addr *a = &s->a[i];

		if (a->family == AF_INET)
			req_put(r, KLB_SNAT_A_ADDR4, sizeof(a->u.in), &a->u.in);
		else
			req_put(r, KLB_SNAT_A_ADDR6, sizeof(a->u.in6), &a->u.in6);
	}
	req_nest_end(r, nest);
}

static int snat_get(const struct field *f, const struct nlattr *const *tb,
		    void *val)
{
	struct snat_list *s = val;
	const struct nlattr *a;

	if (!tb[f->attr])
		return 0;
	s->n = 0;
	mnl_attr_for_each_nested(a, tb[f->attr]) {
		unsigned int type = mnl_attr_get_type(a);

		if (s->n < KLB_SNAT_MAX &&
		    addr_get(type == KLB_SNAT_A_ADDR4 ? a : NULL,
			     type == KLB_SNAT_A_ADDR6 ? a : NULL, NULL, &s->a[s->n]))
			s->n++;
	}
	return 1;
}

static bool snat_is_default(const struct field *f, const void *val)
{
	(void)f;
	return !((const struct snat_list *)val)->n;
}

/* " snat A,B" in text, "snat": ["A", "B"] in JSON */
static void snat_print(enum output_type t, const struct field *f,
		       const void *val, enum wmode m)
{
	const struct snat_list *s = val;
	char buf[ADDRPORT_STRLEN];
	unsigned int i;

	(void)m;
	print_list_start(t, f);
	for (i = 0; i < s->n; i++)
		print_list_item(t, i, addr_str(&s->a[i], buf, sizeof(buf)));
	print_list_end(t);
}

static size_t snat_wire(const void *val)
{
	return 4 + 20 * ((const struct snat_list *)val)->n;
}

static const struct vtype vt_snat = {
	.size = sizeof(struct snat_list),
	.parse = snat_parse,
	.put = snat_put,
	.get = snat_get,
	.is_default = snat_is_default,
	.print = snat_print,
	.wire = snat_wire,
};

static int persist_num(const char *s, unsigned int *v)
{
	uint64_t n;

	if (!parse_u64_max(s, KLB_PERSIST_TIMEOUT_MAX, &n))
		return usage_errorf("service", "invalid persist \"%s\" (0..%u seconds)",
				    s, KLB_PERSIST_TIMEOUT_MAX);
	*v = (unsigned int)n;
	return EXIT_OK;
}

static int mask_num(const char *s, unsigned int *v)
{
	uint64_t n;

	if (!parse_u64_max(s, 128, &n) || !n)
		return usage_errorf("service", "invalid mask \"%s\" (1..32 or 1..128)", s);
	*v = (unsigned int)n;
	return EXIT_OK;
}

enum {
	S_NAME, S_VIP, S_PROTO, S_MODE, S_POOL, S_PP, S_RULES, S_HOSTS, S_SNAT,
	S_PERSIST, S_MASK, S_COOKIE, S_ALLOW, S_DENY, S_ADOPT, S_FIELDS
};

/*
 * A service's address, protocol, mode and snat are for good (add only).
 * Show starts with "service NAME PROTO ADDR:PORT"; save spells them out.
 */
static const struct field service_fields[] = {
	[S_NAME] = {
		.word = "name", .json = "name", .type = &vt_str,
		.off = offsetof(struct service, name), .attr = KLB_SERVICE_A_NAME,
		.flags = F_KEY, .meta = "service NAME",
	},
	[S_VIP] = {
		.word = "vip", .json = "vip", .type = &vt_addr,
		.off = offsetof(struct service, vip), .attr = KLB_SERVICE_A_ADDR4,
		.flags = F_ADD_ONLY | F_REQUIRED | F_TITLE | F_ALWAYS,
		.meta = "ADDR:PORT",
	},
	[S_PROTO] = {
		.word = "proto", .json = "proto", .type = &vt_word,
		.off = offsetof(struct service, proto), .attr = KLB_SERVICE_A_PROTO,
		.flags = F_ADD_ONLY | F_REQUIRED | F_TITLE | F_ALWAYS,
		.meta = "PROTO", .what = "protocol", .words = proto_words,
		.nwords = &n_proto_words,
	},
	[S_MODE] = {
		.word = "mode", .json = "mode", .type = &vt_word,
		.off = offsetof(struct service, mode), .attr = KLB_SERVICE_A_MODE,
		.flags = F_ADD_ONLY | F_ADD_DEF | F_ALWAYS, .def = KLB_MODE_NAT,
		.what = "mode", .words = mode_words,
		.nwords = &n_mode_words,
	},
	[S_POOL] = {
		.word = "pool", .json = "pool", .type = &vt_str,
		.off = offsetof(struct service, pool), .attr = KLB_SERVICE_A_POOL,
		.flags = F_REQUIRED | F_JSON_NULL, .meta = "POOL",
	},
	[S_PP] = {
		.word = "proxy-protocol", .json = "proxy_protocol", .type = &vt_word,
		.off = offsetof(struct service, pp),
		.attr = KLB_SERVICE_A_PROXY_PROTOCOL, .flags = F_OMIT, .def = 0,
		.what = "proxy protocol", .words = pp_words,
		.nwords = &n_pp_words,
	},
	[S_RULES] = {
		.word = "rules", .json = "rules", .type = &vt_u32,
		.off = offsetof(struct service, nrules), .attr = KLB_SERVICE_A_NRULES,
		.flags = F_SHOW_ONLY,
	},
	/* Shown when there are some: "hosts 100000". */
	[S_HOSTS] = {
		.word = "hosts", .json = "hosts", .type = &vt_u32,
		.off = offsetof(struct service, nhosts), .attr = KLB_SERVICE_A_NHOSTS,
		.flags = F_SHOW_ONLY | F_OMIT_SHOW, .def = 0,
	},
	[S_SNAT] = {
		.word = "snat", .json = "snat", .type = &vt_snat,
		.off = offsetof(struct service, snat), .attr = KLB_SERVICE_A_SNAT,
		.flags = F_ADD_ONLY | F_OMIT,
	},
	[S_PERSIST] = {
		.word = "persist", .json = "persist", .type = &vt_u32,
		.off = offsetof(struct service, persist), .attr = KLB_SERVICE_A_PERSIST,
		.flags = F_OMIT, .def = 0, .num = persist_num,
	},
	[S_MASK] = {
		.word = "mask", .json = "persist_mask", .type = &vt_u8,
		.off = offsetof(struct service, mask),
		.attr = KLB_SERVICE_A_PERSIST_MASK,
		.flags = F_ALWAYS, .needs = S_PERSIST, .num = mask_num,
	},
	[S_COOKIE] = {
		.word = "cookie", .json = "cookie", .type = &vt_str,
		.off = offsetof(struct service, cookie), .attr = KLB_SERVICE_A_COOKIE,
		.flags = F_ADD_ONLY,
	},
	[S_ALLOW] = {
		.word = "allow", .json = "allow", .type = &vt_acl,
		.off = offsetof(struct service, allow), .attr = KLB_SERVICE_A_ALLOW,
		.flags = F_OMIT,
	},
	[S_DENY] = {
		.word = "deny", .json = "deny", .type = &vt_acl,
		.off = offsetof(struct service, deny), .attr = KLB_SERVICE_A_DENY,
		.flags = F_OMIT,
	},
	/* dr, tun tcp only (the kernel reports it for those); on by default */
	[S_ADOPT] = {
		.word = "adopt", .json = "adopt", .type = &vt_onoff,
		.off = offsetof(struct service, adopt), .attr = KLB_SERVICE_A_ADOPT,
		.flags = F_OMIT, .def = 1, .what = "adopt",
	},
};

static void service_title(const void *obj)
{
	const struct service *s = obj;

	print_string(PRINT_ANY, "name", "service %s", s->name);
	obj_print_field(&service_desc, s, S_PROTO, W_BARE);
	obj_print_field(&service_desc, s, S_VIP, W_BARE);
}

const struct obj_desc service_desc = {
	.name = "service",
	.f = service_fields,
	.n = S_FIELDS,
	.size = sizeof(struct service),
	.given_off = offsetof(struct service, given),
	.top = KLB_A_SERVICE,
	.cmd_new = KLB_CMD_SERVICE_NEW,
	.cmd_set = KLB_CMD_SERVICE_SET,
	.cmd_del = KLB_CMD_SERVICE_DEL,
	.nothing = "nothing to change: expected \"pool POOL\" or \"proxy-protocol PP\" (or \"persist SECONDS\", \"mask LEN\", \"allow LIST\", \"deny LIST\", \"adopt on|off\")",
	.show_title = service_title,
};

bool service_has_rules(const struct service *s)
{
	return obj_given(&service_desc, s, S_RULES);
}

/* ------------------------------------------------------------ commands */

static int service_add(int argc, char **argv)
{
	struct service s;

	return obj_command(&service_desc, OBJ_ADD, argc, argv, &s);
}

static int service_set(int argc, char **argv)
{
	struct service s;

	return obj_command(&service_desc, OBJ_SET, argc, argv, &s);
}

static int service_del(int argc, char **argv)
{
	struct service s;

	return obj_command(&service_desc, OBJ_DEL, argc, argv, &s);
}

/* ------------------------------------------------------------- dumping */

static int service_read(const struct nlattr *nest, struct service_list *l)
{
	const struct nlattr *tb[KLB_SERVICE_A_MAX + 1];
	struct service *s;
	int ret;

	if (!grow(&l->s, &l->cap, l->n, sizeof(*l->s)))
		return -ENOMEM;
	s = &l->s[l->n];
	memset(s, 0, sizeof(*s));
	nest_parse(nest, tb, KLB_SERVICE_A_MAX);
	ret = obj_get(&service_desc, tb, s);
	if (!ret && (!obj_given(&service_desc, s, S_NAME) ||
		     !obj_given(&service_desc, s, S_VIP)))
		ret = -EPROTO;
	if (ret) {
		obj_free(&service_desc, s);
		return ret;
	}
	stats_parse(tb[KLB_SERVICE_A_STATS], &s->stats);
	l->n++;
	return 0;
}

static int service_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *a;
	int ret;

	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr)) {
		if (mnl_attr_get_type(a) != KLB_A_SERVICE)
			continue;
		ret = service_read(a, data);
		if (ret)
			return ret;
	}
	return 0;
}

void service_list_free(struct service_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		obj_free(&service_desc, &l->s[i]);
	free(l->s);
	memset(l, 0, sizeof(*l));
}

static void service_list_reset(void *data)
{
	service_list_free(data);
}

int service_dump(const char *name, struct service_list *l)
{
	struct nlattr *nest;
	struct req r;
	int ret;

	memset(l, 0, sizeof(*l));
	ret = req_init(&r, KLB_CMD_SERVICE_GET, name ? 0 : NLM_F_DUMP,
		       MNL_SOCKET_BUFFER_SIZE + (name ? strlen(name) : 0));
	if (ret)
		return ret;
	if (name) {
		nest = req_nest_start(&r, KLB_A_SERVICE);
		req_put_strz(&r, KLB_SERVICE_A_NAME, name);
		req_nest_end(&r, nest);
	}
	ret = klb_request(&r, service_cb, l, service_list_reset);
	req_free(&r);
	if (ret)
		service_list_free(l);
	return ret;
}

/* ------------------------------------------------------------- showing */

/* The key of a service's L7 counters. */
static const char *service_l7(const struct service *s)
{
	if (s->mode == KLB_MODE_HTTP)
		return "http";
	if (s->mode == KLB_MODE_TLS)
		return "tls";
	return NULL;
}

static void service_print(const struct service *s)
{
	open_json_object(NULL);
	obj_show(&service_desc, s);
	if (opt_stats)
		stats_print(&s->stats, true, service_l7(s));
	close_json_object();
}

static int service_show(int argc, char **argv)
{
	struct service_list l;
	size_t i;
	int ret;

	if (argc > 1)
		return usage_errorf("service", "unexpected argument \"%s\"", argv[1]);
	ret = service_dump(argc ? argv[0] : NULL, &l);
	if (!ret && opt_stats > 1)
		ret = rates_services(argc ? argv[0] : NULL, &l);
	if (ret)
		return ret;
	new_json_obj(opt_json);
	for (i = 0; i < l.n; i++)
		service_print(&l.s[i]);
	delete_json_obj();
	service_list_free(&l);
	return EXIT_OK;
}

static int service_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	service_usage(stdout);
	return EXIT_OK;
}

static const struct cmd service_cmds[] = {
	{ "add", service_add },
	{ "set", service_set },
	{ "del", service_del },
	{ "delete", service_del },
	{ "show", service_show },
	{ "list", service_show },
	{ "help", service_help },
};

int do_service(int argc, char **argv)
{
	if (argc < 1)
		return service_show(0, NULL);
	return dispatch("service", service_cmds, ARRAY_SIZE(service_cmds),
			argc, argv);
}
