// SPDX-License-Identifier: GPL-2.0
/* klbctl service add|set|del|show */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "klbctl.h"
#include "nl.h"
#include "objects.h"
#include "print.h"

void service_usage(FILE *f)
{
	fprintf(f,
		"Usage: klbctl service add NAME vip ADDR:PORT proto PROTO mode MODE pool POOL\n"
		"                          [proxy-protocol PP]\n"
		"       klbctl service set NAME [pool POOL] [proxy-protocol PP]\n"
		"       klbctl service del NAME\n"
		"       klbctl [-j] [-s] service show [NAME]\n"
		"ADDR:PORT := { IPV4:PORT | [IPV6]:PORT }   (numeric only)\n"
		"PROTO := { tcp | udp }\n"
		"MODE := { nat | http | tls }   (default nat; http and tls need tcp)\n"
		"PP := { v2 | none }   (PROXY protocol header to backends, mode http)\n"
		"Rules of http and tls services: klbctl rule help\n");
}

int service_parse(int argc, char **argv, bool add, struct service_spec *s)
{
	unsigned int v;
	int ret;

	memset(s, 0, sizeof(*s));
	if (argc < 1)
		return usage_errorf("service", "missing service NAME");
	s->name = argv[0];
	for (argc--, argv++; argc > 0; argc -= 2, argv += 2) {
		const char *key = argv[0];

		if (add && !strcmp(key, "vip")) {
			if (argc < 2)
				break;
			ret = addr_parse("service", argv[1], &s->vip);
			if (ret)
				return ret;
			s->has_addr = true;
		} else if (add && !strcmp(key, "proto")) {
			if (argc < 2)
				break;
			ret = parse_word("protocol", argv[1], proto_words,
					 n_proto_words, &v);
			if (ret)
				return ret;
			s->proto = (uint8_t)v;
			s->has_proto = true;
		} else if (add && !strcmp(key, "mode")) {
			if (argc < 2)
				break;
			ret = parse_word("mode", argv[1], mode_words,
					 n_mode_words, &v);
			if (ret)
				return ret;
			s->mode = (uint8_t)v;
			s->has_mode = true;
		} else if (!strcmp(key, "pool")) {
			if (argc < 2)
				break;
			s->pool = argv[1];
		} else if (!strcmp(key, "proxy-protocol")) {
			if (argc < 2)
				break;
			ret = parse_word("proxy protocol", argv[1], pp_words,
					 n_pp_words, &v);
			if (ret)
				return ret;
			s->pp = (uint8_t)v;
			s->has_pp = true;
		} else {
			return usage_errorf("service", "unknown argument \"%s\"", key);
		}
	}
	if (argc > 0)
		return usage_errorf("service", "missing value after \"%s\"", argv[0]);
	if (!add) {
		if (!s->pool && !s->has_pp)
			return usage_errorf("service", "nothing to change: expected \"pool POOL\" or \"proxy-protocol PP\"");
		return EXIT_OK;
	}
	if (!s->has_addr)
		return usage_errorf("service", "missing \"vip ADDR:PORT\"");
	if (!s->has_proto)
		return usage_errorf("service", "missing \"proto PROTO\"");
	if (!s->pool)
		return usage_errorf("service", "missing \"pool POOL\"");
	if (!s->has_mode) {
		s->has_mode = true;
		s->mode = KLB_MODE_NAT;
	}
	return EXIT_OK;
}

void service_put(struct req *r, const struct service_spec *s)
{
	req_put_strz(r, KLB_SERVICE_A_NAME, s->name);
	if (s->has_addr)
		addr_put(r, KLB_SERVICE_A_ADDR4, KLB_SERVICE_A_ADDR6,
			 KLB_SERVICE_A_PORT, &s->vip);
	if (s->has_proto)
		req_put_u8(r, KLB_SERVICE_A_PROTO, s->proto);
	if (s->has_mode)
		req_put_u8(r, KLB_SERVICE_A_MODE, s->mode);
	if (s->pool)
		req_put_strz(r, KLB_SERVICE_A_POOL, s->pool);
	if (s->has_pp)
		req_put_u8(r, KLB_SERVICE_A_PROXY_PROTOCOL, s->pp);
}

static int service_send(uint8_t cmd, int argc, char **argv,
			const struct service_spec *s)
{
	struct nlattr *nest;
	struct req r;
	int ret;

	ret = req_init(&r, cmd, 0, req_size_for(argc, argv));
	if (ret)
		return ret;
	nest = req_nest_start(&r, KLB_A_SERVICE);
	service_put(&r, s);
	req_nest_end(&r, nest);
	ret = klb_request(&r, NULL, NULL, NULL);
	req_free(&r);
	return ret;
}

static int service_add(int argc, char **argv)
{
	struct service_spec s;
	int ret = service_parse(argc, argv, true, &s);

	return ret ? ret : service_send(KLB_CMD_SERVICE_NEW, argc, argv, &s);
}

static int service_set(int argc, char **argv)
{
	struct service_spec s;
	int ret = service_parse(argc, argv, false, &s);

	return ret ? ret : service_send(KLB_CMD_SERVICE_SET, argc, argv, &s);
}

static int service_del(int argc, char **argv)
{
	struct service_spec s = { 0 };

	if (argc < 1)
		return usage_errorf("service", "missing service NAME");
	if (argc > 1)
		return usage_errorf("service", "unexpected argument \"%s\"", argv[1]);
	s.name = argv[0];
	return service_send(KLB_CMD_SERVICE_DEL, argc, argv, &s);
}

/* ------------------------------------------------------------- dumping */

static int service_info_parse(const struct nlattr *nest, struct service_list *l)
{
	const struct nlattr *tb[KLB_SERVICE_A_MAX + 1];
	struct service_info *s;

	if (!grow(&l->s, &l->cap, l->n, sizeof(*l->s)))
		return -ENOMEM;
	s = &l->s[l->n];
	memset(s, 0, sizeof(*s));
	nest_parse(nest, tb, KLB_SERVICE_A_MAX);
	if (!tb[KLB_SERVICE_A_NAME] ||
	    !addr_get(tb[KLB_SERVICE_A_ADDR4], tb[KLB_SERVICE_A_ADDR6],
		      tb[KLB_SERVICE_A_PORT], &s->vip))
		return -EPROTO;
	s->name = attr_strdup(tb[KLB_SERVICE_A_NAME]);
	s->pool = attr_strdup(tb[KLB_SERVICE_A_POOL]);
	if (!s->name || (tb[KLB_SERVICE_A_POOL] && !s->pool)) {
		free(s->name);
		free(s->pool);
		return -ENOMEM;
	}
	s->proto = attr_u8(tb[KLB_SERVICE_A_PROTO], 0);
	s->mode = attr_u8(tb[KLB_SERVICE_A_MODE], KLB_MODE_NAT);
	s->pp = attr_u8(tb[KLB_SERVICE_A_PROXY_PROTOCOL], 0);
	s->has_nrules = tb[KLB_SERVICE_A_NRULES] != NULL;
	s->nrules = attr_u32(tb[KLB_SERVICE_A_NRULES], 0);
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
		ret = service_info_parse(a, data);
		if (ret)
			return ret;
	}
	return 0;
}

void service_list_free(struct service_list *l)
{
	size_t i;

	for (i = 0; i < l->n; i++) {
		free(l->s[i].name);
		free(l->s[i].pool);
	}
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
static const char *service_l7(const struct service_info *s)
{
	if (s->mode == KLB_MODE_HTTP)
		return "http";
	if (s->mode == KLB_MODE_TLS)
		return "tls";
	return NULL;
}

static void service_print(const struct service_info *s)
{
	char buf[ADDRPORT_STRLEN], w1[32], w2[32], w3[32];

	open_json_object(NULL);
	print_string(PRINT_ANY, "name", "service %s", s->name);
	print_string(PRINT_ANY, "proto", " %s",
		     word_name(proto_words, n_proto_words, s->proto, w1, sizeof(w1)));
	print_string(PRINT_FP, NULL, " %s", addrport_str(&s->vip, buf, sizeof(buf)));
	print_string(PRINT_JSON, "vip", NULL, addr_str(&s->vip, buf, sizeof(buf)));
	print_uint(PRINT_JSON, "port", NULL, s->vip.port);
	print_string(PRINT_ANY, "mode", " mode %s",
		     word_name(mode_words, n_mode_words, s->mode, w2, sizeof(w2)));
	if (s->pool)
		print_string(PRINT_ANY, "pool", " pool %s", s->pool);
	else
		print_null(PRINT_JSON, "pool", NULL, NULL);
	if (s->pp)
		print_string(PRINT_ANY, "proxy_protocol", " proxy-protocol %s",
			     word_name(pp_words, n_pp_words, s->pp, w3, sizeof(w3)));
	if (s->has_nrules)
		print_uint(PRINT_ANY, "rules", " rules %u", s->nrules);
	print_nl();
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
