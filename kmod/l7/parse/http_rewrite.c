// SPDX-License-Identifier: GPL-2.0
/*
 * Head rewriting, PROXY v2 headers and generated responses for the http
 * service mode; see http_rewrite.h for what changes and why.
 *
 * Pure code (l7_pure.h): it works on a head klb_http_parse() accepted, so
 * every line ends in CRLF and every field line has a colon; the loops
 * still stop at the head's end, so a caller's mistake reads nothing past
 * the buffer.
 */
#include "http_rewrite.h"

/* A bounded output buffer that remembers it overflowed. */
struct rw_out {
	u8 *p;
	u32 len;
	u32 cap;
	bool full;
};

static void put(struct rw_out *o, const u8 *s, u32 n)
{
	u32 i;

	if (o->full || n > o->cap - o->len) {
		o->full = true;
		return;
	}
	for (i = 0; i < n; i++)
		o->p[o->len + i] = s[i];
	o->len += n;
}

#define put_lit(o, lit)	put(o, (const u8 *)(lit), sizeof(lit) - 1)

static void put_cstr(struct rw_out *o, const char *s)
{
	u32 n = 0;

	while (s[n])
		n++;
	put(o, (const u8 *)s, n);
}

static void put_u32(struct rw_out *o, u32 v)
{
	u8 d[10];
	u32 n = sizeof(d);

	do {
		d[--n] = '0' + v % 10;
		v /= 10;
	} while (v);
	put(o, d + n, sizeof(d) - n);
}

/* ---- addresses ----------------------------------------------------------- */

static void put_hex16(struct rw_out *o, u32 v)
{
	static const char hex[] = "0123456789abcdef";
	u8 d[4];
	u32 n = sizeof(d);

	do {
		d[--n] = hex[v & 15];
		v >>= 4;
	} while (v);
	put(o, d + n, sizeof(d) - n);
}

static void put_ipv4(struct rw_out *o, const u8 *a)
{
	u32 i;

	for (i = 0; i < 4; i++) {
		if (i)
			put_lit(o, ".");
		put_u32(o, a[i]);
	}
}

/* The longest run of two or more zero groups, the first of equals. */
static void zero_run(const u16 *g, u32 *start, u32 *len)
{
	u32 i = 0, n;

	*start = 8;
	*len = 0;
	while (i < 8) {
		for (n = 0; i + n < 8 && !g[i + n]; n++)
			;
		if (n >= 2 && n > *len) {
			*start = i;
			*len = n;
		}
		i += n ? n : 1;
	}
}

static void put_ipv6(struct rw_out *o, const u8 *a)
{
	static const u8 mapped[12] = { [10] = 0xff, [11] = 0xff };
	u32 i, zs, zl;
	u16 g[8];

	for (i = 0; i < 12 && a[i] == mapped[i]; i++)
		;
	if (i == 12) {
		put_lit(o, "::ffff:");
		put_ipv4(o, a + 12);
		return;
	}
	for (i = 0; i < 8; i++)
		g[i] = a[2 * i] << 8 | a[2 * i + 1];
	zero_run(g, &zs, &zl);
	for (i = 0; i < 8; i++) {
		if (i == zs) {
			put_lit(o, "::");
			i += zl - 1;
			continue;
		}
		/* no ':' right after "::", nor before the first group */
		if (i && i != zs + zl)
			put_lit(o, ":");
		put_hex16(o, g[i]);
	}
}

u32 klb_ip_text(bool v6, const u8 *addr, u8 *out)
{
	struct rw_out o = { .p = out, .cap = KLB_IP_TEXT_MAX };

	if (v6)
		put_ipv6(&o, addr);
	else
		put_ipv4(&o, addr);
	return o.len;
}

/* ---- heads --------------------------------------------------------------- */

/* One field line of a parsed head. */
struct rw_line {
	u32 start;		/* first byte of the name */
	u32 name_len;
	u32 colon;
	u32 vend;		/* end of the value, trailing whitespace excluded */
	u32 vstart;		/* start of the value, leading whitespace excluded */
	u32 next;		/* first byte of the next line */
};

static bool is_ws(u8 c)
{
	return c == ' ' || c == '\t';
}

/* After the start line: the first field line (or the final CRLF). */
static u32 fields_start(const u8 *buf, const struct klb_http_msg *m)
{
	u32 e;

	for (e = m->head_start; e < m->head_len && buf[e] != '\r'; e++)
		;
	return e + 2;
}

/* The field line at @pos; false at the empty line that ends the head. */
static bool rw_line(const u8 *buf, const struct klb_http_msg *m, u32 pos,
		    struct rw_line *l)
{
	u32 end = m->head_len, e, c, v;

	if (pos + 2 >= end)
		return false;
	for (e = pos; e < end && buf[e] != '\r'; e++)
		;
	for (c = pos; c < e && buf[c] != ':'; c++)
		;
	if (c == e)		/* not a parsed head: stop, copy nothing more */
		return false;
	for (v = c + 1; v < e && is_ws(buf[v]); v++)
		;
	l->start = pos;
	l->name_len = c - pos;
	l->colon = c;
	l->vstart = v;
	for (l->vend = e; l->vend > v && is_ws(buf[l->vend - 1]); l->vend--)
		;
	l->next = e + 2;
	return true;
}

static bool name_is(const u8 *buf, const struct rw_line *l, const char *lit,
		    u32 lit_len)
{
	return klb_l7_ieq(buf + l->start, l->name_len, (const u8 *)lit, lit_len);
}

#define NAME_IS(buf, l, lit)	name_is(buf, l, lit, sizeof(lit) - 1)

/* Does a Connection field of the head list @name as an option? */
static bool connection_lists(const u8 *buf, const struct klb_http_msg *m,
			     const u8 *name, u32 len)
{
	struct klb_http_span v;
	u32 cursor = 0, i, n, t, e;

	while (klb_http_field_find(buf, m, "connection", 10, &cursor, &v)) {
		e = v.off + v.len;
		for (i = v.off; i < e; i = n + 1) {
			while (i < e && is_ws(buf[i]))
				i++;
			for (n = i; n < e && buf[n] != ','; n++)
				;
			for (t = n; t > i && is_ws(buf[t - 1]); t--)
				;
			if (klb_l7_ieq(buf + i, t - i, name, len))
				return true;
		}
	}
	return false;
}

/*
 * Hop-by-hop fields (RFC 9110 section 7.6.1), which a proxy must not
 * forward. The framing fields stay whatever Connection says: dropping
 * them would make the next hop frame the message differently than we
 * did, which is exactly request smuggling.
 */
static bool hop_by_hop(const u8 *buf, const struct klb_http_msg *m,
		       const struct rw_line *l, bool has_connection, bool req,
		       bool upgrade)
{
	if (NAME_IS(buf, l, "connection") || NAME_IS(buf, l, "keep-alive") ||
	    NAME_IS(buf, l, "proxy-connection"))
		return true;
	/* A protocol switch we relay: Upgrade goes on, Connection names it. */
	if (NAME_IS(buf, l, "upgrade")) {
		if (upgrade)
			return false;
		if (req)
			return true;
	}
	if (NAME_IS(buf, l, "content-length") ||
	    NAME_IS(buf, l, "transfer-encoding") || NAME_IS(buf, l, "host"))
		return false;
	return has_connection &&
	       connection_lists(buf, m, buf + l->start, l->name_len);
}

static bool has_connection(const u8 *buf, const struct klb_http_msg *m)
{
	struct klb_http_span v;
	u32 cursor = 0;

	return klb_http_field_find(buf, m, "connection", 10, &cursor, &v);
}

/* The start line as received. */
static u32 put_start_line(struct rw_out *o, const u8 *buf,
			  const struct klb_http_msg *m)
{
	u32 f = fields_start(buf, m);

	put(o, buf + m->head_start, f - m->head_start);
	return f;
}

/* The last X-Forwarded-For line that is forwarded, or 0 if none. */
static u32 last_xff(const u8 *buf, const struct klb_http_msg *m, u32 pos,
		    bool conn)
{
	struct rw_line l;
	u32 last = 0;

	for (; rw_line(buf, m, pos, &l); pos = l.next)
		if (NAME_IS(buf, &l, "x-forwarded-for") &&
		    !hop_by_hop(buf, m, &l, conn, true, false))
			last = l.start;
	return last;
}

/* "X-Forwarded-For: a, b" + ", ip" (or ": ip" if its value was empty). */
static void put_xff_append(struct rw_out *o, const u8 *buf,
			   const struct rw_line *l, const u8 *ip, u32 ip_len)
{
	if (l->vend > l->vstart) {
		put(o, buf + l->start, l->vend - l->start);
		put_lit(o, ", ");
	} else {
		put(o, buf + l->start, l->colon + 1 - l->start);
		put_lit(o, " ");
	}
	put(o, ip, ip_len);
	put_lit(o, "\r\n");
}

int klb_http_rewrite_req(const u8 *buf, const struct klb_http_msg *m,
			 const u8 *ip, u32 ip_len, bool upgrade, u8 *out,
			 u32 cap)
{
	bool absolute = m->target_form == KLB_HTTP_T_ABSOLUTE;
	struct rw_out o = { .p = out, .cap = cap };
	bool conn = has_connection(buf, m);
	struct rw_line l;
	u32 pos, xff;

	pos = put_start_line(&o, buf, m);
	xff = last_xff(buf, m, pos, conn);
	/*
	 * absolute-form: we routed by the target's authority, so the backend
	 * must see that one as Host, not whatever Host the client also sent
	 * (RFC 9112 section 3.2.2: a proxy replaces Host with it).
	 */
	if (absolute) {
		put_lit(&o, "Host: ");
		put(&o, buf + m->host.off, m->host.len);
		put_lit(&o, "\r\n");
	}
	for (; rw_line(buf, m, pos, &l); pos = l.next) {
		if (hop_by_hop(buf, m, &l, conn, true, upgrade))
			continue;
		if (absolute && NAME_IS(buf, &l, "host"))
			continue;
		if (xff && l.start == xff)
			put_xff_append(&o, buf, &l, ip, ip_len);
		else
			put(&o, buf + l.start, l.next - l.start);
	}
	if (!xff) {
		put_lit(&o, "X-Forwarded-For: ");
		put(&o, ip, ip_len);
		put_lit(&o, "\r\n");
	}
	/* An HTTP/1.0 request asks for a one-shot connection by default. */
	if (m->version == 10)
		put_lit(&o, "Connection: keep-alive\r\n");
	else if (upgrade)
		put_lit(&o, "Connection: Upgrade\r\n");
	put_lit(&o, "\r\n");
	return o.full ? -1 : (int)o.len;
}

/* "Set-Cookie: NAME=VALUE; Path=/; HttpOnly" */
static void put_set_cookie(struct rw_out *o,
			   const struct klb_http_set_cookie *ck)
{
	u8 v[KLB_HTTP_COOKIE_VALUE_LEN];

	klb_cookie_value_text(ck->id, v);
	put_lit(o, "Set-Cookie: ");
	put(o, ck->name, ck->name_len);
	put_lit(o, "=");
	put(o, v, sizeof(v));
	put_lit(o, "; Path=/; HttpOnly\r\n");
}

int klb_http_rewrite_resp(const u8 *buf, const struct klb_http_msg *m,
			  u8 conn, const struct klb_http_set_cookie *ck,
			  u8 *out, u32 cap)
{
	struct rw_out o = { .p = out, .cap = cap };
	bool has_conn = has_connection(buf, m);
	struct rw_line l;
	u32 pos;

	pos = put_start_line(&o, buf, m);
	for (; rw_line(buf, m, pos, &l); pos = l.next)
		if (!hop_by_hop(buf, m, &l, has_conn, false,
				conn == KLB_HTTP_RW_CONN_UPGRADE))
			put(&o, buf + l.start, l.next - l.start);
	if (ck)
		put_set_cookie(&o, ck);
	if (conn == KLB_HTTP_RW_CONN_CLOSE)
		put_lit(&o, "Connection: close\r\n");
	else if (conn == KLB_HTTP_RW_CONN_KEEPALIVE)
		put_lit(&o, "Connection: keep-alive\r\n");
	else if (conn == KLB_HTTP_RW_CONN_UPGRADE)
		put_lit(&o, "Connection: Upgrade\r\n");
	put_lit(&o, "\r\n");
	return o.full ? -1 : (int)o.len;
}

/* ---- PROXY protocol v2 --------------------------------------------------- */

static const u8 proxy_v2_sig[12] = {
	0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d, 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a
};

#define PROXY_V2_VER_CMD_PROXY	0x21	/* version 2, command PROXY */
#define PROXY_V2_INET_STREAM	0x11
#define PROXY_V2_INET6_STREAM	0x21

static void put_be16(struct rw_out *o, u16 v)
{
	u8 b[2] = { v >> 8, v & 0xff };

	put(o, b, 2);
}

u32 klb_proxy_v2_build(u8 *out, bool v6, const u8 *src, u16 sport,
		       const u8 *dst, u16 dport)
{
	struct rw_out o = { .p = out, .cap = KLB_PROXY_V2_MAX };
	u32 alen = v6 ? 16 : 4;
	u8 b[2] = {
		PROXY_V2_VER_CMD_PROXY,
		v6 ? PROXY_V2_INET6_STREAM : PROXY_V2_INET_STREAM,
	};

	put(&o, proxy_v2_sig, sizeof(proxy_v2_sig));
	put(&o, b, 2);
	put_be16(&o, 2 * alen + 4);
	put(&o, src, alen);
	put(&o, dst, alen);
	put_be16(&o, sport);
	put_be16(&o, dport);
	return o.len;
}

/* ---- generated responses ------------------------------------------------- */

const char *klb_http_reason(u16 status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 408: return "Request Timeout";
	case 413: return "Content Too Large";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 501: return "Not Implemented";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	case 505: return "HTTP Version Not Supported";
	}
	return "Error";
}

static u32 decimal_len(u32 v)
{
	u32 n = 1;

	while (v >= 10) {
		v /= 10;
		n++;
	}
	return n;
}

u32 klb_http_error_response(u16 status, u8 *out, u32 cap)
{
	struct rw_out o = { .p = out, .cap = cap };
	const char *reason = klb_http_reason(status);
	u32 rlen = 0;

	while (reason[rlen])
		rlen++;
	put_lit(&o, "HTTP/1.1 ");
	put_u32(&o, status);
	put_lit(&o, " ");
	put_cstr(&o, reason);
	put_lit(&o, "\r\nContent-Type: text/plain\r\nContent-Length: ");
	/* the body: "<code> <reason>\n" */
	put_u32(&o, decimal_len(status) + 1 + rlen + 1);
	put_lit(&o, "\r\nConnection: close\r\n\r\n");
	put_u32(&o, status);
	put_lit(&o, " ");
	put_cstr(&o, reason);
	put_lit(&o, "\n");
	return o.full ? 0 : o.len;
}
