/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The persistence cookie of the http service mode (service ... cookie
 * NAME), as pure code: finding a cookie by name in the Cookie fields of a
 * request head, and the cookie's value, which names a backend by an
 * opaque 64-bit id (sched/table.h: klb_sched_backend_id()) written as 16
 * lowercase hex digits. The id is a keyed hash: the value never carries
 * the backend's address.
 *
 * Cookie fields are read as browsers send them (RFC 6265 section 5.4,
 * "name=value" pairs separated by ";"), leniently as section 5.2 of the
 * same RFC reads Set-Cookie: whitespace around names, values and
 * separators is ignored, a pair without "=" is skipped, a value in double
 * quotes is taken without them, and every Cookie field line of the head
 * counts, in order. Names are compared byte for byte (case-sensitive).
 * Bytes of a value are never interpreted beyond the hex digits of an id.
 */
#ifndef _KLB_L7_HTTP_COOKIE_H
#define _KLB_L7_HTTP_COOKIE_H

#include "l7_pure.h"
#include "http_parse.h"

/* Longest cookie name (uapi KLB_COOKIE_NAME_MAX less the NUL). */
#define KLB_HTTP_COOKIE_NAME_MAX	63
/* A value that names a backend: exactly this many hex digits. */
#define KLB_HTTP_COOKIE_VALUE_LEN	16

/* Where klb_cookie_next() goes on; zero it before the first call. */
struct klb_cookie_cursor {
	u32 field;		/* klb_http_field_find()'s cursor */
	u32 pos;		/* next pair in the current Cookie value */
	u32 end;		/* end of the current Cookie value; 0: none */
};

/*
 * The next cookie named @name (@name_len bytes) in the Cookie fields of
 * the parsed request head @m in @buf: its value (quotes stripped) in
 * @val. False when there is none left (or @name_len is 0).
 */
bool klb_cookie_next(const u8 *buf, const struct klb_http_msg *m,
		     const u8 *name, u32 name_len,
		     struct klb_cookie_cursor *c, struct klb_http_span *val);

/* @len bytes at @v: exactly KLB_HTTP_COOKIE_VALUE_LEN hex digits -> *@id. */
bool klb_cookie_value_id(const u8 *v, u32 len, u64 *id);

/*
 * The backend id the request's cookie @name names: the first cookie of
 * that name whose value is an id. False when no such cookie is there.
 */
bool klb_cookie_find_id(const u8 *buf, const struct klb_http_msg *m,
			const u8 *name, u32 name_len, u64 *id);

/* @id as KLB_HTTP_COOKIE_VALUE_LEN lowercase hex digits (no NUL). */
void klb_cookie_value_text(u64 id, u8 *out);

#endif /* _KLB_L7_HTTP_COOKIE_H */
