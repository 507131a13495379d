// SPDX-License-Identifier: GPL-2.0
/*
 * A service's source lists: "allow PREFIX[,PREFIX...]", "deny ...", or
 * "none" for no list (service add and set, save, show): the value of the
 * service's "allow" and "deny" words (vt_acl, obj.h).
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>
#include <linux/klb.h>

#include "klbctl.h"
#include "nl.h"
#include "obj.h"
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

static int acl_parse(const char *what, const char *list, struct acl_list *l)
{
	char *copy, *tok, *save = NULL;
	int ret = EXIT_OK;

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

/* The list as nest @type; an empty one removes the list. */
static void acl_put(struct req *r, unsigned short type, const struct acl_list *l)
{
	struct nlattr *nest;
	uint8_t d[17];
	unsigned int i;

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

static void acl_get(const struct nlattr *nest, struct acl_list *l)
{
	const struct nlattr *a;
	const uint8_t *d;

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

static const char *acl_prefix_str(const struct acl_prefix *p, char *buf, size_t len)
{
	char a[INET6_ADDRSTRLEN];

	addr_str(&p->addr, a, sizeof(a));
	snprintf(buf, len, "%s/%u", a, p->len);
	return buf;
}

/* " allow P,P" in text (show and save alike), "allow": [...] in JSON. */
static void acl_print(enum output_type t, const struct field *f,
		      const void *val, enum wmode m)
{
	const struct acl_list *l = val;
	char buf[INET6_ADDRSTRLEN + 8];
	unsigned int i;

	(void)m;
	print_list_start(t, f);
	for (i = 0; i < l->n; i++)
		print_list_item(t, i, acl_prefix_str(&l->p[i], buf, sizeof(buf)));
	print_list_end(t);
}

/* ------------------------------------------------- the service's value */

static int acl_val_parse(const struct field *f, const char *obj, int argc,
			 char **argv, void *val)
{
	(void)obj;
	(void)argc;
	return acl_parse(f->word, argv[0], val);
}

static void acl_val_put(struct req *r, const struct field *f, const void *val)
{
	acl_put(r, f->attr, val);
}

static int acl_val_get(const struct field *f, const struct nlattr *const *tb,
		       void *val)
{
	if (!tb[f->attr])
		return 0;
	acl_get(tb[f->attr], val);
	return 1;
}

/* No list at all, or an empty one: nothing to write. */
static bool acl_val_is_default(const struct field *f, const void *val)
{
	(void)f;
	return !((const struct acl_list *)val)->n;
}

/* Prefix attributes: 24 bytes at most each. */
static size_t acl_val_wire(const void *val)
{
	return 4 + 24 * ((const struct acl_list *)val)->n;
}

const struct vtype vt_acl = {
	.size = sizeof(struct acl_list),
	.parse = acl_val_parse,
	.put = acl_val_put,
	.get = acl_val_get,
	.is_default = acl_val_is_default,
	.print = acl_print,
	.wire = acl_val_wire,
};
