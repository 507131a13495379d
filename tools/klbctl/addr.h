/* SPDX-License-Identifier: GPL-2.0 */
/* Numeric ADDR:PORT parsing and printing; no name resolution ever. */
#ifndef KLBCTL_ADDR_H
#define KLBCTL_ADDR_H

#include <netinet/in.h>
#include <stdbool.h>
#include <stdint.h>

struct nlattr;
struct req;

struct klb_addr {
	sa_family_t family;	/* AF_INET or AF_INET6 */
	union {
		struct in_addr in;
		struct in6_addr in6;
	} u;
	uint16_t port;		/* host order */
};

/* Room for "[" INET6 "]:65535" and the NUL. */
#define ADDRPORT_STRLEN (INET6_ADDRSTRLEN + 8)

/*
 * "1.2.3.4:80" or "[fd00::1]:80". Port 0 is accepted (the kernel refuses
 * it); a bare IPv6 address without brackets is not. Prints the error and
 * returns EXIT_USAGE on failure; obj names the help to point at.
 */
int addr_parse(const char *obj, const char *s, struct klb_addr *a);

/* A bare numeric address, IPv4 or IPv6, no port; port is set to 0. */
int addr_parse_bare(const char *obj, const char *s, struct klb_addr *a);

/* The address alone, no brackets (as in JSON). */
const char *addr_str(const struct klb_addr *a, char *buf, size_t len);
/* "1.2.3.4:80" or "[fd00::1]:80" (as in text and in save). */
const char *addrport_str(const struct klb_addr *a, char *buf, size_t len);
bool addr_equal(const struct klb_addr *a, const struct klb_addr *b);

/* Put the address as type4 or type6 and the port as tport (u16). */
void addr_put(struct req *r, uint16_t type4, uint16_t type6, uint16_t tport,
	      const struct klb_addr *a);
/* From a reply; false if no (valid) address was present. */
bool addr_get(const struct nlattr *a4, const struct nlattr *a6,
	      const struct nlattr *port, struct klb_addr *a);

#endif
