/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Request steering rules of the http and tls service modes:
 *   rule add SERVICE [host H] [path PREFIX] [header NAME=VALUE] [method M]
 *                    [sni H] pool POOL
 * A rule matches when every matcher it has matches; rules are tried in
 * order and the first match wins. A rule without matchers matches all.
 *
 * Semantics, decided here once for the kernel and klbctl alike:
 * - host, sni: case-insensitive, exact, or "*.example.com", which matches
 *   any name with one or more labels before ".example.com" (a.example.com,
 *   a.b.example.com) but not example.com itself, as nginx's server_name
 *   does. The request's Host ignores a ":port" suffix and one trailing dot.
 * - path: case-sensitive byte prefix of the path; the query ("?...") is
 *   never matched. An absolute-form target with an empty path is "/".
 * - header: name case-insensitive; value exact, case-sensitive, after
 *   trimming surrounding whitespace; any one field line of that name may
 *   match (a repeated field is not joined).
 * - method: exact, case-sensitive (methods are, RFC 9110 section 9.1).
 * A matcher whose input is missing (no Host, an http matcher on a TLS
 * connection, no SNI) does not match.
 *
 * Rules are plain structs with inline strings: the netlink code fills one
 * from attributes, runs klb_rule_prepare() to validate and normalize it
 * (its error message suits extack), and the fast path only compares bytes.
 */
#ifndef _KLB_L7_RULE_MATCH_H
#define _KLB_L7_RULE_MATCH_H

#include "l7_pure.h"
#include "http_parse.h"

#define KLB_RULE_HOST_MAX	255
#define KLB_RULE_PATH_MAX	1024
#define KLB_RULE_HNAME_MAX	64
#define KLB_RULE_HVALUE_MAX	256
#define KLB_RULE_METHOD_MAX	32

/* klb_rule.match: which matchers are set */
#define KLB_RULE_M_HOST		BIT(0)
#define KLB_RULE_M_PATH		BIT(1)
#define KLB_RULE_M_HEADER	BIT(2)
#define KLB_RULE_M_METHOD	BIT(3)
#define KLB_RULE_M_SNI		BIT(4)
#define KLB_RULE_M_ALL		0x1fU
/* Matchers that need an HTTP request. */
#define KLB_RULE_M_HTTP		(KLB_RULE_M_HOST | KLB_RULE_M_PATH | \
				 KLB_RULE_M_HEADER | KLB_RULE_M_METHOD)

struct klb_rule {
	u32 match;			/* KLB_RULE_M_* */
	u16 host_len, path_len, hname_len, hvalue_len, method_len, sni_len;
	/* Strings are not NUL-terminated; lengths are authoritative. */
	char host[KLB_RULE_HOST_MAX];
	char sni[KLB_RULE_HOST_MAX];
	char path[KLB_RULE_PATH_MAX];
	char hname[KLB_RULE_HNAME_MAX];
	char hvalue[KLB_RULE_HVALUE_MAX];
	char method[KLB_RULE_METHOD_MAX];
	/* Private, set by klb_rule_prepare(). */
	u8 host_wild, sni_wild;
};

enum {
	KLB_RULE_E_HOST = -1,
	KLB_RULE_E_SNI = -2,
	KLB_RULE_E_PATH = -3,
	KLB_RULE_E_HNAME = -4,
	KLB_RULE_E_HVALUE = -5,
	KLB_RULE_E_METHOD = -6,
	KLB_RULE_E_MATCH = -7,
};

/*
 * Validate @r and normalize it in place (lowercase host and sni, drop a
 * trailing dot, note wildcards). Returns 0, or KLB_RULE_E_* with a
 * message for extack in *msg. Must succeed before a rule is matched.
 */
int klb_rule_prepare(struct klb_rule *r, const char **msg);

/* What a connection or request offers the matchers. NULL = absent. */
struct klb_rule_input {
	const u8 *host;		/* Host value or absolute-form host, raw */
	u32 host_len;
	const u8 *path;		/* path, or the whole target: '?' ends it */
	u32 path_len;
	const u8 *method;
	u32 method_len;
	const u8 *sni;		/* SNI from klb_tls_parse_hello() */
	u32 sni_len;
	const u8 *head;		/* a parsed head, for header matchers */
	const struct klb_http_msg *msg;
};

/* Fill @in from a request head parsed by klb_http_parse(). */
void klb_rule_input_http(struct klb_rule_input *in, const u8 *head,
			 const struct klb_http_msg *msg);

bool klb_rule_match(const struct klb_rule *r, const struct klb_rule_input *in);

/* Index of the first rule of @rules[0..n) matching @in, or -1. */
int klb_rules_first(const struct klb_rule *rules, u32 n,
		    const struct klb_rule_input *in);

#endif /* _KLB_L7_RULE_MATCH_H */
