// SPDX-License-Identifier: GPL-2.0
/*
 * Finding the persistence cookie in a request head, and its value; see
 * http_cookie.h for the syntax accepted and why.
 *
 * Pure code (l7_pure.h). Every loop is bounded by the head, which the
 * caller's limits bound: a request costs one pass over its Cookie fields
 * per cookie of the name asked for, at most.
 */
#include "http_cookie.h"

static bool ck_ws(u8 c)
{
	return c == ' ' || c == '\t';
}

/* Trim SP and HTAB from both ends of buf[*s..*e). */
static void ck_trim(const u8 *buf, u32 *s, u32 *e)
{
	while (*s < *e && ck_ws(buf[*s]))
		(*s)++;
	while (*e > *s && ck_ws(buf[*e - 1]))
		(*e)--;
}

/*
 * The pair buf[s..e) ("name=value", untrimmed): does it name @name? Its
 * value, quotes stripped, in @val.
 */
static bool ck_pair(const u8 *buf, u32 s, u32 e, const u8 *name,
		    u32 name_len, struct klb_http_span *val)
{
	u32 eq, ne, i;

	ck_trim(buf, &s, &e);
	for (eq = s; eq < e && buf[eq] != '='; eq++)
		;
	if (eq == e)
		return false;	/* no "=": not a pair */
	ne = eq;
	while (ne > s && ck_ws(buf[ne - 1]))
		ne--;
	if (ne - s != name_len)
		return false;
	for (i = 0; i < name_len; i++)
		if (buf[s + i] != name[i])
			return false;
	s = eq + 1;
	ck_trim(buf, &s, &e);
	if (e - s >= 2 && buf[s] == '"' && buf[e - 1] == '"') {
		s++;
		e--;
	}
	*val = (struct klb_http_span){ s, e - s };
	return true;
}

bool klb_cookie_next(const u8 *buf, const struct klb_http_msg *m,
		     const u8 *name, u32 name_len,
		     struct klb_cookie_cursor *c, struct klb_http_span *val)
{
	struct klb_http_span f;
	u32 s, e;

	if (!name_len)
		return false;
	for (;;) {
		if (!c->end) {
			if (!klb_http_field_find(buf, m, "cookie", 6,
						 &c->field, &f))
				return false;
			if (!f.len)
				continue;
			c->pos = f.off;
			c->end = f.off + f.len;
		}
		while (c->pos < c->end) {
			s = c->pos;
			for (e = s; e < c->end && buf[e] != ';'; e++)
				;
			c->pos = e + 1;
			if (ck_pair(buf, s, e, name, name_len, val))
				return true;
		}
		c->end = 0;
	}
}

static int ck_hex(u8 c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	c = klb_l7_lower(c);
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

bool klb_cookie_value_id(const u8 *v, u32 len, u64 *id)
{
	u64 x = 0;
	u32 i;
	int d;

	if (len != KLB_HTTP_COOKIE_VALUE_LEN)
		return false;
	for (i = 0; i < len; i++) {
		d = ck_hex(v[i]);
		if (d < 0)
			return false;
		x = x << 4 | (u64)d;
	}
	*id = x;
	return true;
}

bool klb_cookie_find_id(const u8 *buf, const struct klb_http_msg *m,
			const u8 *name, u32 name_len, u64 *id)
{
	struct klb_cookie_cursor c = { 0 };
	struct klb_http_span v;

	while (klb_cookie_next(buf, m, name, name_len, &c, &v))
		if (klb_cookie_value_id(buf + v.off, v.len, id))
			return true;
	return false;
}

void klb_cookie_value_text(u64 id, u8 *out)
{
	static const char hex[] = "0123456789abcdef";
	u32 i;

	for (i = 0; i < KLB_HTTP_COOKIE_VALUE_LEN; i++)
		out[i] = hex[(id >> (60 - 4 * i)) & 15];
}
