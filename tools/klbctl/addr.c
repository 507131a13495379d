// SPDX-License-Identifier: GPL-2.0
/* Numeric ADDR:PORT parsing and printing; no name resolution ever. */
#include <arpa/inet.h>
#include <string.h>

#include <libmnl/libmnl.h>

#include "addr.h"
#include "klbctl.h"
#include "nl.h"

static int parse_port(const char *obj, const char *s, const char *full,
		      uint16_t *port)
{
	uint64_t v;

	if (!parse_u64_max(s, 65535, &v))
		return usage_errorf(obj, "invalid port in \"%s\" (0..65535)", full);
	*port = (uint16_t)v;
	return EXIT_OK;
}

int addr_parse_bare(const char *obj, const char *s, struct klb_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (inet_pton(AF_INET, s, &a->u.in) == 1) {
		a->family = AF_INET;
		return EXIT_OK;
	}
	if (inet_pton(AF_INET6, s, &a->u.in6) == 1) {
		a->family = AF_INET6;
		return EXIT_OK;
	}
	return usage_errorf(obj, "invalid address \"%s\" (numeric IPv4 or IPv6)", s);
}

int addr_parse(const char *obj, const char *s, struct klb_addr *a)
{
	char host[INET6_ADDRSTRLEN + 1];
	const char *colon, *end;
	size_t len;

	memset(a, 0, sizeof(*a));
	if (s[0] == '[') {
		end = strchr(s, ']');
		if (!end || end[1] != ':')
			return usage_errorf(obj, "invalid address \"%s\": expected [IPV6]:PORT", s);
		len = (size_t)(end - s - 1);
		if (len >= sizeof(host))
			return usage_errorf(obj, "invalid IPv6 address in \"%s\"", s);
		memcpy(host, s + 1, len);
		host[len] = '\0';
		if (inet_pton(AF_INET6, host, &a->u.in6) != 1)
			return usage_errorf(obj, "invalid IPv6 address in \"%s\"", s);
		a->family = AF_INET6;
		return parse_port(obj, end + 2, s, &a->port);
	}

	colon = strchr(s, ':');
	if (!colon)
		return usage_errorf(obj, "missing port in \"%s\": expected ADDR:PORT", s);
	if (strchr(colon + 1, ':'))
		return usage_errorf(obj, "IPv6 address \"%s\" must be written as [ADDR]:PORT", s);
	len = (size_t)(colon - s);
	if (len >= sizeof(host))
		return usage_errorf(obj, "invalid IPv4 address in \"%s\"", s);
	memcpy(host, s, len);
	host[len] = '\0';
	/* inet_pton, unlike inet_aton, takes only dotted quads: no "10.1". */
	if (inet_pton(AF_INET, host, &a->u.in) != 1)
		return usage_errorf(obj, "invalid IPv4 address in \"%s\"", s);
	a->family = AF_INET;
	return parse_port(obj, colon + 1, s, &a->port);
}

const char *addr_str(const struct klb_addr *a, char *buf, size_t len)
{
	if (!inet_ntop(a->family, &a->u, buf, (socklen_t)len))
		snprintf(buf, len, "?");
	return buf;
}

const char *addrport_str(const struct klb_addr *a, char *buf, size_t len)
{
	char host[INET6_ADDRSTRLEN];

	addr_str(a, host, sizeof(host));
	if (a->family == AF_INET6)
		snprintf(buf, len, "[%s]:%u", host, a->port);
	else
		snprintf(buf, len, "%s:%u", host, a->port);
	return buf;
}

bool addr_equal(const struct klb_addr *a, const struct klb_addr *b)
{
	if (a->family != b->family || a->port != b->port)
		return false;
	if (a->family == AF_INET)
		return a->u.in.s_addr == b->u.in.s_addr;
	return !memcmp(&a->u.in6, &b->u.in6, sizeof(a->u.in6));
}

void addr_put(struct req *r, uint16_t type4, uint16_t type6, uint16_t tport,
	      const struct klb_addr *a)
{
	if (a->family == AF_INET)
		req_put(r, type4, sizeof(a->u.in), &a->u.in);
	else
		req_put(r, type6, sizeof(a->u.in6), &a->u.in6);
	req_put_u16(r, tport, a->port);
}

bool addr_get(const struct nlattr *a4, const struct nlattr *a6,
	      const struct nlattr *port, struct klb_addr *a)
{
	memset(a, 0, sizeof(*a));
	if (a4 && mnl_attr_get_payload_len(a4) == sizeof(a->u.in)) {
		a->family = AF_INET;
		memcpy(&a->u.in, mnl_attr_get_payload(a4), sizeof(a->u.in));
	} else if (a6 && mnl_attr_get_payload_len(a6) == sizeof(a->u.in6)) {
		a->family = AF_INET6;
		memcpy(&a->u.in6, mnl_attr_get_payload(a6), sizeof(a->u.in6));
	} else {
		return false;
	}
	if (port && mnl_attr_get_payload_len(port) >= sizeof(uint16_t))
		a->port = mnl_attr_get_u16(port);
	return true;
}
