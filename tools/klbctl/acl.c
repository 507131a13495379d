// SPDX-License-Identifier: GPL-2.0
/*
 * A service's source lists: "allow PREFIX[,PREFIX...]", "deny ...", or
 * "none" for no list (service add and set, save, show).
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/klb.h>

#include "klbctl.h"
#include "nl.h"
#include "objects.h"
#include "print.h"

/* "ADDR/LEN" or a bare ADDR (a host: /32 or /128). */
static int prefix_parse(const char *what, const char *s, struct acl_prefix *p)
{
	char buf[INET6_ADDRSTRLEN + 8], *slash;
	uint64_t len;
	int max;

	if (strlen(s) >= sizeof(buf))
		return usage_errorf("service", "invalid %s prefix \"%s\"", what, s);
	strcpy(buf, s);
	slash = strchr(buf, '/');
	if (slash)
		*slash = '\0';
	if (inet_pton(AF_INET, buf, &p->addr.u.in) == 1)
		p->addr.family = AF_INET;
	else if (inet_pton(AF_INET6, buf, &p->addr.u.in6) == 1)
		p->addr.family = AF_INET6;
	else
		return usage_errorf("service", "invalid %s prefix \"%s\" (ADDR[/LEN])", what, s);
	max = p->addr.family == AF_INET ? 32 : 128;
	len = max;
	if (slash && !parse_u64_max(slash + 1, max, &len))
		return usage_errorf("service", "invalid %s prefix \"%s\": length 0..%d",
				    what, s, max);
	p->len = (uint8_t)len;
	return EXIT_OK;
}

int acl_parse(const char *what, const char *list, struct acl_list *l)
{
	char *copy, *tok, *save = NULL;
	int ret = EXIT_OK;

	l->given = true;
	l->n = 0;
	if (!strcmp(list, "none"))
		return EXIT_OK;
	copy = strdup(list);
	if (!copy)
		return errorf(EXIT_KERNEL, "out of memory");
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (l->n == KLB_ACL_PREFIXES_MAX) {
			ret = usage_errorf("service", "too many %s prefixes (max %d)",
					   what, KLB_ACL_PREFIXES_MAX);
			break;
		}
		ret = prefix_parse(what, tok, &l->p[l->n]);
		if (ret)
			break;
		l->n++;
	}
	if (!ret && !l->n)
		ret = usage_errorf("service", "empty %s list (\"none\" for no list)", what);
	free(copy);
	return ret;
}

void acl_put(struct req *r, uint16_t type, const struct acl_list *l)
{
	struct nlattr *nest;
	uint8_t d[17];
	unsigned int i;

	if (!l->given)
		return;
	nest = req_nest_start(r, type);
	for (i = 0; i < l->n; i++) {
		const struct acl_prefix *p = &l->p[i];

		if (p->addr.family == AF_INET) {
			memcpy(d, &p->addr.u.in, 4);
			d[4] = p->len;
			req_put(r, KLB_ACL_A_PREFIX4, 5, d);
		} else {
			memcpy(d, &p->addr.u.in6, 16);
			d[16] = p->len;
			req_put(r, KLB_ACL_A_PREFIX6, 17, d);
		}
	}
	req_nest_end(r, nest);
}

void acl_get(const struct nlattr *nest, struct acl_list *l)
{
	const struct nlattr *a;
	const uint8_t *d;

	l->given = true;
	l->n = 0;
	mnl_attr_for_each_nested(a, nest) {
		struct acl_prefix *p = &l->p[l->n];
		uint16_t len = mnl_attr_get_payload_len(a);

		if (l->n == KLB_ACL_PREFIXES_MAX)
			break;
		d = mnl_attr_get_payload(a);
		memset(p, 0, sizeof(*p));
		if (mnl_attr_get_type(a) == KLB_ACL_A_PREFIX4 && len == 5) {
			p->addr.family = AF_INET;
			memcpy(&p->addr.u.in, d, 4);
			p->len = d[4];
		} else if (mnl_attr_get_type(a) == KLB_ACL_A_PREFIX6 && len == 17) {
			p->addr.family = AF_INET6;
			memcpy(&p->addr.u.in6, d, 16);
			p->len = d[16];
		} else {
			continue;
		}
		l->n++;
	}
}

const char *acl_prefix_str(const struct acl_prefix *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	addr_str(&p->addr, a, sizeof(a));
	snprintf(buf, len, "%s/%u", a, p->len);
	return buf;
}

void acl_print(const char *what, const struct acl_list *l)
{
	char buf[INET6_ADDRSTRLEN + 8];
	unsigned int i;

	if (!l->n)
		return;
	open_json_array(PRINT_JSON, what);
	print_string(PRINT_FP, NULL, " %s ", what);
	for (i = 0; i < l->n; i++) {
		print_string(PRINT_FP, NULL, i ? "," : "", NULL);
		print_string(PRINT_ANY, NULL, "%s", acl_prefix_str(&l->p[i], buf, sizeof(buf)));
	}
	close_json_array(PRINT_JSON, NULL);
}

void acl_save(const char *what, const struct acl_list *l)
{
	char buf[INET6_ADDRSTRLEN + 8];
	unsigned int i;

	for (i = 0; i < l->n; i++)
		printf("%s%s", i ? "," : (strcmp(what, "allow") ? " deny " : " allow "),
		       acl_prefix_str(&l->p[i], buf, sizeof(buf)));
}
