/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the http service mode writes itself, as pure code: the request
 * head it forwards to a backend, the response head it forwards to the
 * client, the PROXY protocol v2 header, and the responses it generates.
 *
 * Heads are rewritten from a head parsed by klb_http_parse() into a
 * separate bounded buffer; a head that no longer fits is refused (-1),
 * never truncated. What changes, and why:
 *  - hop-by-hop fields are dropped (RFC 9110 section 7.6.1): Connection,
 *    Keep-Alive, Proxy-Connection and every field the Connection field
 *    names; in requests also Upgrade, so a backend never switches
 *    protocols behind the proxy's back, unless the request is one whose
 *    switch we relay (klb_http_wants_upgrade()): then Upgrade goes on
 *    with "Connection: Upgrade", and the backend's 101 goes back to the
 *    client the same way. Content-Length, Transfer-Encoding
 *    and Host are never dropped, even when named: the framing we parsed
 *    must be the framing the backend sees.
 *  - an absolute-form request (GET http://host/path) is routed by the
 *    target's authority, so its Host fields are replaced by one Host
 *    with that authority (RFC 9112 section 3.2.2), first after the start
 *    line: the backend sees the host the request was routed by. That
 *    field adds up to the authority's length to the head.
 *  - requests get X-Forwarded-For (the client address appended to the
 *    last such field, or a new field), and HTTP/1.0 requests ask for a
 *    persistent backend connection ("Connection: keep-alive").
 *  - responses get the Connection field the client connection's fate
 *    calls for, and, when asked, the persistence cookie of the backend
 *    that answered (Set-Cookie: NAME=VALUE; Path=/; HttpOnly).
 * The start line and every other field line are copied byte for byte.
 */
#ifndef _KLB_L7_HTTP_REWRITE_H
#define _KLB_L7_HTTP_REWRITE_H

#include "l7_pure.h"
#include "http_parse.h"
#include "http_cookie.h"

/* Longest text of an address: INET6_ADDRSTRLEN less its NUL. */
#define KLB_IP_TEXT_MAX		45

/*
 * Write @addr (4 or 16 bytes, network order) as text: dotted quad, or
 * IPv6 in the RFC 5952 form (lowercase, longest zero run as "::",
 * ::ffff:a.b.c.d for IPv4-mapped). @out has KLB_IP_TEXT_MAX bytes; no
 * NUL is written. Returns the length.
 */
u32 klb_ip_text(bool v6, const u8 *addr, u8 *out);

/*
 * Most bytes a rewrite adds to a head: X-Forwarded-For and Connection
 * ("Connection: Upgrade" is shorter than keep-alive, and never both).
 */
#define KLB_HTTP_RW_GROWTH	(sizeof("X-Forwarded-For: \r\n") - 1 + \
				 KLB_IP_TEXT_MAX + \
				 sizeof("Connection: keep-alive\r\n") - 1)

/*
 * Rewrite the request head of @m (parsed from @buf) into @out, with @ip
 * (the client address text, @ip_len bytes) for X-Forwarded-For.
 * @upgrade: the protocol switch is relayed (only when
 * klb_http_wants_upgrade(): HTTP/1.1), so Upgrade is kept and
 * "Connection: Upgrade" added. Returns the length written, or -1 if @cap
 * is too small.
 */
int klb_http_rewrite_req(const u8 *buf, const struct klb_http_msg *m,
			 const u8 *ip, u32 ip_len, bool upgrade, u8 *out,
			 u32 cap);

/* What the response head tells the client about its connection. */
enum {
	KLB_HTTP_RW_CONN_NONE = 0,	/* nothing: persistence is the default */
	KLB_HTTP_RW_CONN_CLOSE,		/* "Connection: close" */
	KLB_HTTP_RW_CONN_KEEPALIVE,	/* "Connection: keep-alive" (HTTP/1.0) */
	KLB_HTTP_RW_CONN_UPGRADE,	/* "Connection: Upgrade", Upgrade kept (101) */
};

/* A persistence cookie for the client (http_cookie.h). */
struct klb_http_set_cookie {
	const u8 *name;		/* a token, 1..KLB_HTTP_COOKIE_NAME_MAX bytes */
	u32 name_len;
	u64 id;			/* the backend's id: the value, in hex */
};

/* Most bytes the Set-Cookie field adds to a response head. */
#define KLB_HTTP_RW_COOKIE_GROWTH \
	(sizeof("Set-Cookie: =; Path=/; HttpOnly\r\n") - 1 + \
	 KLB_HTTP_COOKIE_NAME_MAX + KLB_HTTP_COOKIE_VALUE_LEN)

/*
 * Rewrite the response head of @m (parsed from @buf) into @out, adding
 * the Connection field @conn asks for and, if @ck is not NULL, a
 * Set-Cookie field for it. Returns the length or -1 (@cap too small:
 * nothing of the head may be used). A head fits in its own length plus
 * KLB_HTTP_RW_GROWTH, plus KLB_HTTP_RW_COOKIE_GROWTH with @ck.
 */
int klb_http_rewrite_resp(const u8 *buf, const struct klb_http_msg *m,
			  u8 conn, const struct klb_http_set_cookie *ck,
			  u8 *out, u32 cap);

/* PROXY protocol v2 (haproxy's proxy-protocol.txt, section 2.2). */
#define KLB_PROXY_V2_MAX	(16 + 36)

/*
 * Write a v2 PROXY header for a TCP connection from @src:@sport to
 * @dst:@dport (addresses of 4 or 16 bytes in network order, ports in
 * host order) into @out (KLB_PROXY_V2_MAX bytes). Returns its length.
 */
u32 klb_proxy_v2_build(u8 *out, bool v6, const u8 *src, u16 sport,
		       const u8 *dst, u16 dport);

/* Reason phrase of the statuses the proxy generates; "Error" otherwise. */
const char *klb_http_reason(u16 status);

/* Room for any response klb_http_error_response() writes. */
#define KLB_HTTP_ERR_RESP_MAX	192

/*
 * A complete response the proxy answers with itself:
 *   HTTP/1.1 <code> <reason>, Content-Type: text/plain, Content-Length,
 *   Connection: close, and the body "<code> <reason>\n".
 * Returns its length, or 0 if @cap is too small.
 */
u32 klb_http_error_response(u16 status, u8 *out, u32 cap);

#endif /* _KLB_L7_HTTP_REWRITE_H */
