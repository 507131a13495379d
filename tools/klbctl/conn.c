// SPDX-License-Identifier: GPL-2.0
/* klbctl conn show [persist] [service NAME] */
#include <ctype.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "klbctl.h"
#include "nl.h"
#include "objects.h"
#include "print.h"

void conn_usage(FILE *f)
{
	fprintf(f,
		"Usage: klbctl [-j] conn show [service NAME]\n"
		"       klbctl [-j] conn show persist [service NAME]\n"
		"The first lists L4 connections (PROTO CLIENT -> VIP -> BACKEND STATE\n"
		"expires), then the client connections of http and tls services (MODE\n"
		"CLIENT -> VIP -> BACKEND or none, STATE age, bytes in and out):\n"
		"  STATE := { reading-head | waiting-backend | queued | relaying | idle |\n"
		"             replying | closing }\n"
		"The second lists the persistence entries: CLIENT/PREFIX -> BACKEND,\n"
		"the connections that hold each, and when an idle one expires.\n");
}

/* "client" -> text " 10.0.0.2:40000", JSON "client": "10.0.0.2", "client_port": 40000 */
static void endpoint_print(const char *key, const char *key_port,
			   const char *fmt, const struct klb_addr *a)
{
	char buf[ADDRPORT_STRLEN];

	print_string(PRINT_FP, NULL, fmt, addrport_str(a, buf, sizeof(buf)));
	print_string(PRINT_JSON, key, NULL, addr_str(a, buf, sizeof(buf)));
	print_uint(PRINT_JSON, key_port, NULL, a->port);
}

static void service_print(const struct nlattr *a, bool text)
{
	if (!a || mnl_attr_validate(a, MNL_TYPE_NUL_STRING) != 0)
		return;
	if (text)
		print_string(PRINT_FP, NULL, " service %s", mnl_attr_get_str(a));
	else
		print_string(PRINT_JSON, "service", NULL, mnl_attr_get_str(a));
}

/* An L7 session: MODE CLIENT -> VIP -> BACKEND|none STATE age in out */
static int session_print(const struct nlattr **tb)
{
	struct klb_addr client, vip, backend;
	char w1[32], w2[32];

	addr_get(tb[KLB_CONN_A_CLIENT_ADDR4], tb[KLB_CONN_A_CLIENT_ADDR6],
		 tb[KLB_CONN_A_CLIENT_PORT], &client);
	addr_get(tb[KLB_CONN_A_VIP_ADDR4], tb[KLB_CONN_A_VIP_ADDR6],
		 tb[KLB_CONN_A_VIP_PORT], &vip);

	open_json_object(NULL);
	service_print(tb[KLB_CONN_A_SERVICE], false);
	print_string(PRINT_ANY, "mode", "%s",
		     word_name(mode_words, n_mode_words,
			       attr_u8(tb[KLB_CONN_A_MODE], 0), w1, sizeof(w1)));
	endpoint_print("client", "client_port", " %s", &client);
	endpoint_print("vip", "vip_port", " -> %s", &vip);
	if (addr_get(tb[KLB_CONN_A_BACKEND_ADDR4], tb[KLB_CONN_A_BACKEND_ADDR6],
		     tb[KLB_CONN_A_BACKEND_PORT], &backend)) {
		endpoint_print("backend", "backend_port", " -> %s", &backend);
	} else {
		print_string(PRINT_FP, NULL, " -> %s", "none");
		print_null(PRINT_JSON, "backend", NULL, NULL);
		print_null(PRINT_JSON, "backend_port", NULL, NULL);
	}
	print_string(PRINT_ANY, "state", " %s",
		     word_name(l7_state_words, n_l7_state_words,
			       attr_u8(tb[KLB_CONN_A_L7_STATE], 0), w2, sizeof(w2)));
	print_uint(PRINT_ANY, "age", " age %us",
		   attr_u32(tb[KLB_CONN_A_AGE_MS], 0) / 1000);
	print_u64(PRINT_ANY, "bytes_in", " in %llu",
		  attr_u64(tb[KLB_CONN_A_BYTES_IN], 0));
	print_u64(PRINT_ANY, "bytes_out", " out %llu",
		  attr_u64(tb[KLB_CONN_A_BYTES_OUT], 0));
	service_print(tb[KLB_CONN_A_SERVICE], true);
	print_nl();
	close_json_object();
	return 0;
}

/*
 * Connections can be numerous and the dump is best effort anyway, so they
 * are printed as they arrive instead of being collected first.
 */
static int conn_print(const struct nlattr *nest)
{
	const struct nlattr *tb[KLB_CONN_A_MAX + 1];
	struct klb_addr client, vip, backend, local;
	char w1[32], w2[32], upper[32];
	const char *state;
	uint32_t ms;
	size_t i;

	nest_parse(nest, tb, KLB_CONN_A_MAX);
	if (tb[KLB_CONN_A_L7_STATE])
		return session_print(tb);
	addr_get(tb[KLB_CONN_A_CLIENT_ADDR4], tb[KLB_CONN_A_CLIENT_ADDR6],
		 tb[KLB_CONN_A_CLIENT_PORT], &client);
	addr_get(tb[KLB_CONN_A_VIP_ADDR4], tb[KLB_CONN_A_VIP_ADDR6],
		 tb[KLB_CONN_A_VIP_PORT], &vip);
	addr_get(tb[KLB_CONN_A_BACKEND_ADDR4], tb[KLB_CONN_A_BACKEND_ADDR6],
		 tb[KLB_CONN_A_BACKEND_PORT], &backend);
	state = word_name(conn_state_words, n_conn_state_words,
			  attr_u8(tb[KLB_CONN_A_STATE], KLB_CONN_NONE), w2, sizeof(w2));
	for (i = 0; state[i] && i < sizeof(upper) - 1; i++)
		upper[i] = (char)toupper((unsigned char)state[i]);
	upper[i] = '\0';
	/* Round up: a connection that has not expired never shows 0s. */
	ms = attr_u32(tb[KLB_CONN_A_EXPIRES_MS], 0);

	open_json_object(NULL);
	if (tb[KLB_CONN_A_SERVICE] &&
	    mnl_attr_validate(tb[KLB_CONN_A_SERVICE], MNL_TYPE_NUL_STRING) == 0)
		print_string(PRINT_JSON, "service", NULL,
			     mnl_attr_get_str(tb[KLB_CONN_A_SERVICE]));
	print_string(PRINT_ANY, "proto", "%s",
		     word_name(proto_words, n_proto_words,
			       attr_u8(tb[KLB_CONN_A_PROTO], 0), w1, sizeof(w1)));
	endpoint_print("client", "client_port", " %s", &client);
	endpoint_print("vip", "vip_port", " -> %s", &vip);
	if (addr_get(tb[KLB_CONN_A_LOCAL_ADDR4], tb[KLB_CONN_A_LOCAL_ADDR6],
		     tb[KLB_CONN_A_LOCAL_PORT], &local))
		endpoint_print("local", "local_port", " via %s", &local);
	endpoint_print("backend", "backend_port", " -> %s", &backend);
	print_string(PRINT_FP, NULL, " %s", upper);
	print_string(PRINT_JSON, "state", NULL, state);
	print_uint(PRINT_ANY, "expires", " expires %us", ms / 1000 + (ms % 1000 != 0));
	if (tb[KLB_CONN_A_SERVICE] &&
	    mnl_attr_validate(tb[KLB_CONN_A_SERVICE], MNL_TYPE_NUL_STRING) == 0)
		print_string(PRINT_FP, NULL, " service %s",
			     mnl_attr_get_str(tb[KLB_CONN_A_SERVICE]));
	print_nl();
	close_json_object();
	return 0;
}

/* Output starts with the first reply, so an error prints no empty list. */
static int conn_cb(const struct nlmsghdr *nlh, void *data)
{
	bool *started = data;
	const struct nlattr *a;

	if (!*started) {
		new_json_obj(opt_json);
		*started = true;
	}
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == KLB_A_CONN)
			conn_print(a);
	return 0;
}

static int conn_show(int argc, char **argv)
{
	const char *service = NULL;
	bool started = false, persist = false;
	struct nlattr *nest;
	struct req r;
	int ret;

	if (argc > 0 && !strcmp(argv[0], "persist")) {
		persist = true;
		argc--, argv++;
	}
	for (; argc > 0; argc -= 2, argv += 2) {
		if (strcmp(argv[0], "service"))
			return usage_errorf("conn", "unknown argument \"%s\"", argv[0]);
		if (argc < 2)
			return usage_errorf("conn", "missing service NAME");
		service = argv[1];
	}
	if (persist)
		return persist_show(service);
	ret = req_init(&r, KLB_CMD_CONN_GET, NLM_F_DUMP,
		       MNL_SOCKET_BUFFER_SIZE + (service ? strlen(service) : 0));
	if (ret)
		return ret;
	if (service) {
		nest = req_nest_start(&r, KLB_A_SERVICE);
		req_put_strz(&r, KLB_SERVICE_A_NAME, service);
		req_nest_end(&r, nest);
	}
	/* No reset: a torn connection dump is still the best there is. */
	ret = klb_request(&r, conn_cb, &started, NULL);
	if (!ret && !started) {
		new_json_obj(opt_json);
		started = true;
	}
	if (started)
		delete_json_obj();
	req_free(&r);
	return ret;
}

static int conn_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	conn_usage(stdout);
	return EXIT_OK;
}

static const struct cmd conn_cmds[] = {
	{ "show", conn_show },
	{ "list", conn_show },
	{ "help", conn_help },
};

int do_conn(int argc, char **argv)
{
	if (argc < 1)
		return conn_show(0, NULL);
	return dispatch("conn", conn_cmds, ARRAY_SIZE(conn_cmds), argc, argv);
}
