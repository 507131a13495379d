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
		"                          [proxy-protocol PP] [snat ADDR[,ADDR...]]\n"
		"                          [persist SECONDS [mask LEN]] [cookie NAME]\n"
		"                          [allow LIST] [deny LIST]\n"
		"       klbctl service set NAME [pool POOL] [proxy-protocol PP]\n"
		"                          [persist SECONDS] [mask LEN] [allow LIST] [deny LIST]\n"
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
		"Rules of http and tls services: klbctl rule help\n");
}

/* "A[,A...]": the fnat source addresses. */
static int snat_parse(const char *list, struct service_spec *s)
{
	char *copy = strdup(list), *tok, *save = NULL;
	int ret = EXIT_OK;

	if (!copy)
		return errorf(EXIT_KERNEL, "out of memory");
	s->nsnat = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (s->nsnat == KLB_SNAT_MAX) {
			ret = usage_errorf("service", "too many snat addresses (max %d)",
					   KLB_SNAT_MAX);
			break;
		}
		ret = addr_parse_bare("service", tok, &s->snat[s->nsnat]);
		if (ret)
			break;
		s->nsnat++;
	}
	if (!ret && !s->nsnat)
		ret = usage_errorf("service", "empty snat address list");
	free(copy);
	return ret;
}

int service_parse(int argc, char **argv, bool add, struct service_spec *s)
{
	unsigned int v;
	uint64_t v64;
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
		} else if (add && !strcmp(key, "snat")) {
			if (argc < 2)
				break;
			ret = snat_parse(argv[1], s);
			if (ret)
				return ret;
		} else if (!strcmp(key, "persist")) {
			if (argc < 2)
				break;
			if (!parse_u64_max(argv[1], KLB_PERSIST_TIMEOUT_MAX, &v64))
				return usage_errorf("service", "invalid persist \"%s\" (0..%u seconds)",
						    argv[1], KLB_PERSIST_TIMEOUT_MAX);
			s->persist = (uint32_t)v64;
			s->has_persist = true;
		} else if (!strcmp(key, "mask")) {
			if (argc < 2)
				break;
			if (!parse_u64_max(argv[1], 128, &v64) || !v64)
				return usage_errorf("service", "invalid mask \"%s\" (1..32 or 1..128)",
						    argv[1]);
			s->mask = (uint8_t)v64;
			s->has_mask = true;
		} else if (add && !strcmp(key, "cookie")) {
			if (argc < 2)
				break;
			s->cookie = argv[1];
		} else if (!strcmp(key, "allow") || !strcmp(key, "deny")) {
			if (argc < 2)
				break;
			ret = acl_parse(key, argv[1],
					key[0] == 'a' ? &s->allow : &s->deny);
			if (ret)
				return ret;
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
		if (!s->pool && !s->has_pp && !s->has_persist && !s->has_mask &&
		    !s->allow.given && !s->deny.given)
			return usage_errorf("service", "nothing to change: expected \"pool POOL\" or \"proxy-protocol PP\" (or \"persist SECONDS\", \"mask LEN\", \"allow LIST\", \"deny LIST\")");
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
	if (s->nsnat) {
		struct nlattr *nest = req_nest_start(r, KLB_SERVICE_A_SNAT);
		unsigned int i;

		for (i = 0; i < s->nsnat; i++) {
			const struct klb_addr *a = &s->snat[i];

			if (a->family == AF_INET)
				req_put(r, KLB_SNAT_A_ADDR4, sizeof(a->u.in), &a->u.in);
			else
				req_put(r, KLB_SNAT_A_ADDR6, sizeof(a->u.in6), &a->u.in6);
		}
		req_nest_end(r, nest);
	}
	if (s->has_persist)
		req_put_u32(r, KLB_SERVICE_A_PERSIST, s->persist);
	if (s->has_mask)
		req_put_u8(r, KLB_SERVICE_A_PERSIST_MASK, s->mask);
	if (s->cookie)
		req_put_strz(r, KLB_SERVICE_A_COOKIE, s->cookie);
	acl_put(r, KLB_SERVICE_A_ALLOW, &s->allow);
	acl_put(r, KLB_SERVICE_A_DENY, &s->deny);
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
	s->persist = attr_u32(tb[KLB_SERVICE_A_PERSIST], 0);
	s->mask = attr_u8(tb[KLB_SERVICE_A_PERSIST_MASK], 0);
	if (tb[KLB_SERVICE_A_ALLOW])
		acl_get(tb[KLB_SERVICE_A_ALLOW], &s->allow);
	if (tb[KLB_SERVICE_A_DENY])
		acl_get(tb[KLB_SERVICE_A_DENY], &s->deny);
	if (tb[KLB_SERVICE_A_SNAT]) {
		const struct nlattr *a;

		mnl_attr_for_each_nested(a, tb[KLB_SERVICE_A_SNAT]) {
			if (s->nsnat < KLB_SNAT_MAX &&
			    addr_get(mnl_attr_get_type(a) == KLB_SNAT_A_ADDR4 ? a : NULL,
				     mnl_attr_get_type(a) == KLB_SNAT_A_ADDR6 ? a : NULL,
				     NULL, &s->snat[s->nsnat]))
				s->nsnat++;
		}
	}
	if (tb[KLB_SERVICE_A_COOKIE]) {
		s->cookie = attr_strdup(tb[KLB_SERVICE_A_COOKIE]);
		if (!s->cookie) {
			free(s->name);
			free(s->pool);
			return -ENOMEM;
		}
	}
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
		free(l->s[i].cookie);
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

/* snat and persistence, as "service add" takes them. */
static void service_print_l4(const struct service_info *s)
{
	char buf[ADDRPORT_STRLEN];
	unsigned int i;

	if (s->nsnat) {
		open_json_array(PRINT_JSON, "snat");
		print_string(PRINT_FP, NULL, " snat ", NULL);
		for (i = 0; i < s->nsnat; i++) {
			print_string(PRINT_FP, NULL, i ? "," : "", NULL);
			print_string(PRINT_ANY, NULL, "%s",
				     addr_str(&s->snat[i], buf, sizeof(buf)));
		}
		close_json_array(PRINT_JSON, NULL);
	}
	if (s->persist) {
		print_uint(PRINT_ANY, "persist", " persist %u", s->persist);
		print_uint(PRINT_ANY, "persist_mask", " mask %u", s->mask);
	}
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
	service_print_l4(s);
	if (s->cookie)
		print_string(PRINT_ANY, "cookie", " cookie %s", s->cookie);
	acl_print("allow", &s->allow);
	acl_print("deny", &s->deny);
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
