// SPDX-License-Identifier: GPL-2.0
/* klbctl conn show persist [service NAME]: the persistence entries */
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>

#include "klbctl.h"
#include "nl.h"
#include "objects.h"
#include "print.h"

/*
 * Text: "10.0.0.0/24 -> 10.0.1.11:80 conns 2 expires 0s service web";
 * JSON: service, client, prefix, backend, backend_port, conns, expires.
 * Printed as they arrive, like connections.
 */
static int persist_print(const struct nlattr *nest)
{
	const struct nlattr *tb[KLB_PERSIST_A_MAX + 1];
	char buf[ADDRPORT_STRLEN];
	struct klb_addr client, backend;
	const char *service = NULL;
	uint32_t ms;
	uint8_t plen;

	nest_parse(nest, tb, KLB_PERSIST_A_MAX);
	addr_get(tb[KLB_PERSIST_A_CLIENT_ADDR4], tb[KLB_PERSIST_A_CLIENT_ADDR6],
		 NULL, &client);
	addr_get(tb[KLB_PERSIST_A_BACKEND_ADDR4], tb[KLB_PERSIST_A_BACKEND_ADDR6],
		 tb[KLB_PERSIST_A_BACKEND_PORT], &backend);
	plen = attr_u8(tb[KLB_PERSIST_A_CLIENT_PREFIX], 0);
	if (tb[KLB_PERSIST_A_SERVICE] &&
	    mnl_attr_validate(tb[KLB_PERSIST_A_SERVICE], MNL_TYPE_NUL_STRING) == 0)
		service = mnl_attr_get_str(tb[KLB_PERSIST_A_SERVICE]);
	/* Round up: an entry that has not expired never shows 0s. */
	ms = attr_u32(tb[KLB_PERSIST_A_EXPIRES_MS], 0);

	open_json_object(NULL);
	if (service)
		print_string(PRINT_JSON, "service", NULL, service);
	print_string(PRINT_ANY, "client", "%s", addr_str(&client, buf, sizeof(buf)));
	print_uint(PRINT_ANY, "prefix", "/%u", plen);
	print_string(PRINT_FP, NULL, " -> %s", addrport_str(&backend, buf, sizeof(buf)));
	print_string(PRINT_JSON, "backend", NULL, addr_str(&backend, buf, sizeof(buf)));
	print_uint(PRINT_JSON, "backend_port", NULL, backend.port);
	print_uint(PRINT_ANY, "conns", " conns %u", attr_u32(tb[KLB_PERSIST_A_CONNS], 0));
	print_uint(PRINT_ANY, "expires", " expires %us", ms / 1000 + (ms % 1000 != 0));
	if (service)
		print_string(PRINT_FP, NULL, " service %s", service);
	print_nl();
	close_json_object();
	return 0;
}

/* Output starts with the first reply, so an error prints no empty list. */
static int persist_cb(const struct nlmsghdr *nlh, void *data)
{
	bool *started = data;
	const struct nlattr *a;

	if (!*started) {
		new_json_obj(opt_json);
		*started = true;
	}
	mnl_attr_for_each(a, nlh, sizeof(struct genlmsghdr))
		if (mnl_attr_get_type(a) == KLB_A_PERSIST)
			persist_print(a);
	return 0;
}

int persist_show(const char *service)
{
	bool started = false;
	struct nlattr *nest;
	struct req r;
	int ret;

	ret = req_init(&r, KLB_CMD_PERSIST_GET, NLM_F_DUMP,
		       MNL_SOCKET_BUFFER_SIZE + (service ? strlen(service) : 0));
	if (ret)
		return ret;
	if (service) {
		nest = req_nest_start(&r, KLB_A_SERVICE);
		req_put_strz(&r, KLB_SERVICE_A_NAME, service);
		req_nest_end(&r, nest);
	}
	/* Best effort, as the kernel's walk: no retry on a torn dump. */
	ret = klb_request(&r, persist_cb, &started, NULL);
	if (!ret && !started) {
		new_json_obj(opt_json);
		started = true;
	}
	if (started)
		delete_json_obj();
	req_free(&r);
	return ret;
}
