// SPDX-License-Identifier: GPL-2.0
/*
 * HTTP/1.x head parser (RFC 9112); see http_parse.h for the API and the
 * buffer contract. The chunked body decoder is http_chunk.c.
 *
 * The parser works line by line: a line is parsed once its CRLF has
 * arrived, and msg.pos/msg.scan remember how far the buffer was looked at,
 * so a head dribbled in one byte per segment still costs O(head) in total.
 * Everything that decides framing (Content-Length, Transfer-Encoding) is
 * strict because the head is relayed as is: if we and the backend could
 * disagree on where this message ends, a client could hide a second
 * request in the first one's body.
 */
#include "http_parse.h"

enum { ST_START, ST_FIELDS, ST_DONE, ST_ERR };

#define U64_MAX_ ((u64)~0ULL)

static int fail(struct klb_http_msg *m, int err)
{
	m->state = ST_ERR;
	m->err = (u8)-err;
	return err;
}

static void msg_init(struct klb_http_msg *m)
{
	/* No memset(): this file calls no library function at all. */
	*m = (struct klb_http_msg){ 0 };
}

void klb_http_req_init(struct klb_http_msg *m)
{
	msg_init(m);
}

void klb_http_resp_init(struct klb_http_msg *m, u8 req_method)
{
	msg_init(m);
	m->is_response = 1;
	m->method_id = req_method;
}

static bool eq_lit(const u8 *p, u32 len, const char *lit)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (!lit[i] || p[i] != (u8)lit[i])
			return false;
	return !lit[len];
}

static bool ieq_lit(const u8 *p, u32 len, const char *lit)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (!lit[i] || klb_l7_lower(p[i]) != (u8)lit[i])
			return false;
	return !lit[len];
}

/*
 * reg-name, IP-literal and port characters (RFC 3986). Loose on purpose:
 * it keeps out what could change how the value is split or logged (space,
 * '/', '@', '?', '#', CTLs), not every malformed authority.
 */
static bool host_char(u8 c)
{
	if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z'))
		return true;
	switch (c) {
	case '-': case '.': case '_': case '~': case '!': case '$':
	case '&': case '\'': case '(': case ')': case '*': case '+':
	case ',': case ';': case '=': case '%': case ':': case '[':
	case ']':
		return true;
	}
	return false;
}

static bool host_valid(const u8 *p, u32 len)
{
	u32 i;

	for (i = 0; i < len; i++)
		if (!host_char(p[i]))
			return false;
	return true;
}

/*
 * Find the CRLF ending the line at m->pos; the LF must lie before @cap
 * (the limit for this line). Returns 1 with the content end in *eol and
 * the next line's start in *next, 0 if the line is incomplete, 2 if it
 * cannot end within @cap, or an error for a bare CR or bare LF. Only
 * bytes before @cap are looked at, so the verdict is the same however
 * the bytes were segmented.
 */
static int line_end(struct klb_http_msg *m, const u8 *buf, u32 len, u32 cap,
		    u32 *eol, u32 *next)
{
	u32 i = m->scan > m->pos ? m->scan : m->pos;
	u32 end = len < cap ? len : cap;

	for (; i < end; i++) {
		if (buf[i] == '\n')
			return KLB_HTTP_E_BARE_LF;
		if (buf[i] != '\r')
			continue;
		if (i + 1 >= cap)
			return 2;
		if (i + 1 == len)
			break;
		if (buf[i + 1] != '\n')
			return KLB_HTTP_E_BARE_CR;
		*eol = i;
		*next = i + 2;
		return 1;
	}
	m->scan = i;
	return i >= cap ? 2 : 0;
}

static const char *const method_names[] = {
	[KLB_HTTP_M_GET] = "GET",
	[KLB_HTTP_M_HEAD] = "HEAD",
	[KLB_HTTP_M_POST] = "POST",
	[KLB_HTTP_M_PUT] = "PUT",
	[KLB_HTTP_M_DELETE] = "DELETE",
	[KLB_HTTP_M_CONNECT] = "CONNECT",
	[KLB_HTTP_M_OPTIONS] = "OPTIONS",
	[KLB_HTTP_M_TRACE] = "TRACE",
	[KLB_HTTP_M_PATCH] = "PATCH",
};

static u8 method_id(const u8 *p, u32 len)
{
	u8 i;

	/* Methods are case-sensitive (RFC 9110 section 9.1). */
	for (i = 1; i <= KLB_HTTP_M_PATCH; i++)
		if (eq_lit(p, len, method_names[i]))
			return i;
	return KLB_HTTP_M_OTHER;
}

/* "HTTP/1.0" or "HTTP/1.1" exactly; another HTTP/x.y is unsupported. */
static int parse_version(struct klb_http_msg *m, const u8 *p, u32 len)
{
	if (len != 8 || !eq_lit(p, 5, "HTTP/") || p[6] != '.' ||
	    p[5] < '0' || p[5] > '9' || p[7] < '0' || p[7] > '9')
		return KLB_HTTP_E_VERSION;
	if (p[5] != '1' || p[7] > '1')
		return KLB_HTTP_E_VERSION_UNSUPP;
	m->version = p[7] == '1' ? 11 : 10;
	return 0;
}

/* Classify the request-target buf[s..e) and find its path and host. */
static int parse_target(struct klb_http_msg *m, const u8 *buf, u32 s, u32 e)
{
	u32 i, a;

	for (i = s; i < e; i++)
		if (buf[i] == '#')
			return KLB_HTTP_E_TARGET;	/* no fragments on the wire */
	if (m->method_id == KLB_HTTP_M_CONNECT) {
		if (buf[s] == '/' || !host_valid(buf + s, e - s))
			return KLB_HTTP_E_TARGET;
		m->target_form = KLB_HTTP_T_AUTHORITY;
		m->host = (struct klb_http_span){ s, e - s };
		m->flags |= KLB_HTTP_F_HOST;
		return 0;
	}
	if (e - s == 1 && buf[s] == '*') {
		if (m->method_id != KLB_HTTP_M_OPTIONS)
			return KLB_HTTP_E_TARGET;
		m->target_form = KLB_HTTP_T_ASTERISK;
		return 0;
	}
	if (buf[s] == '/') {
		m->target_form = KLB_HTTP_T_ORIGIN;
		a = s;
	} else {
		/* absolute-form: only the schemes a reverse proxy serves. */
		if (e - s > 7 && ieq_lit(buf + s, 7, "http://"))
			a = s + 7;
		else if (e - s > 8 && ieq_lit(buf + s, 8, "https://"))
			a = s + 8;
		else
			return KLB_HTTP_E_TARGET;
		for (i = a; i < e && buf[i] != '/' && buf[i] != '?'; i++)
			;
		/* userinfo is an old phishing trick, and empty hosts route nowhere */
		if (i == a || !host_valid(buf + a, i - a))
			return KLB_HTTP_E_TARGET;
		for (a = s; a < i; a++)
			if (buf[a] == '@')
				return KLB_HTTP_E_TARGET;
		m->target_form = KLB_HTTP_T_ABSOLUTE;
		m->host = (struct klb_http_span){ s + (buf[s + 4] == ':' ? 7 : 8),
						  0 };
		m->host.len = i - m->host.off;
		m->flags |= KLB_HTTP_F_HOST;
		a = i;
	}
	for (i = a; i < e && buf[i] != '?'; i++)
		;
	m->path = (struct klb_http_span){ a, i - a };
	return 0;
}

static int parse_request_line(struct klb_http_msg *m, const u8 *buf,
			      u32 s, u32 e)
{
	u32 i, t;
	int err;

	for (i = s; i < e && klb_l7_tchar(buf[i]); i++)
		;
	if (i == e)
		return i == s ? KLB_HTTP_E_METHOD : KLB_HTTP_E_REQ_LINE;
	if (buf[i] != ' ' || i == s)
		return KLB_HTTP_E_METHOD;
	m->method = (struct klb_http_span){ s, i - s };
	m->method_id = method_id(buf + s, i - s);

	t = ++i;
	for (; i < e && buf[i] > 0x20 && buf[i] < 0x7f; i++)
		;
	if (i == e || i == t)
		return KLB_HTTP_E_REQ_LINE;
	if (buf[i] != ' ')
		return KLB_HTTP_E_TARGET;
	m->target = (struct klb_http_span){ t, i - t };

	err = parse_version(m, buf + i + 1, e - i - 1);
	if (err)
		return err;
	return parse_target(m, buf, t, i);
}

static int parse_status_line(struct klb_http_msg *m, const u8 *buf,
			     u32 s, u32 e)
{
	u32 i;
	int err;

	if (e - s < 12)
		return KLB_HTTP_E_STATUS_LINE;
	err = parse_version(m, buf + s, 8);
	if (err)
		return err;
	if (buf[s + 8] != ' ')
		return KLB_HTTP_E_STATUS_LINE;
	m->status = 0;
	for (i = s + 9; i < s + 12; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return KLB_HTTP_E_STATUS_LINE;
		m->status = m->status * 10 + (buf[i] - '0');
	}
	if (m->status < 100 || m->status > 599)
		return KLB_HTTP_E_STATUS_LINE;
	/* "HTTP/1.1 200" without the SP and reason is common: accept it. */
	if (i == e)
		return 0;
	if (buf[i] != ' ')
		return KLB_HTTP_E_STATUS_LINE;
	for (i++; i < e; i++)
		if (!klb_l7_value_char(buf[i]))
			return KLB_HTTP_E_STATUS_LINE;
	m->reason = (struct klb_http_span){ s + 13, e - s - 13 };
	return 0;
}

/* Content-Length: 1*DIGIT, or a list of identical ones ("42, 42"). */
static int field_cl(struct klb_http_msg *m, const u8 *p, u32 len)
{
	u32 i = 0;
	u64 v;

	for (;;) {
		v = 0;
		if (i == len || p[i] < '0' || p[i] > '9')
			return KLB_HTTP_E_CL_INVALID;
		for (; i < len && p[i] >= '0' && p[i] <= '9'; i++) {
			if (v > (U64_MAX_ - (p[i] - '0')) / 10)
				return KLB_HTTP_E_CL_INVALID;
			v = v * 10 + (p[i] - '0');
		}
		if ((m->flags & KLB_HTTP_F_CONTENT_LENGTH) &&
		    v != m->content_length)
			return KLB_HTTP_E_CL_MISMATCH;
		m->content_length = v;
		m->flags |= KLB_HTTP_F_CONTENT_LENGTH;
		while (i < len && klb_l7_ws(p[i]))
			i++;
		if (i == len)
			return 0;
		if (p[i++] != ',')
			return KLB_HTTP_E_CL_INVALID;
		while (i < len && klb_l7_ws(p[i]))
			i++;
	}
}

/*
 * Transfer-Encoding: a list of codings, possibly over several lines. We
 * only need to know that the final one is chunked and that chunked is
 * applied once; codings we cannot name make a request unserviceable (501).
 */
static void field_te(struct klb_http_msg *m, const u8 *p, u32 len)
{
	u32 i = 0, n;
	bool params;

	m->flags |= KLB_HTTP_F_TE;
	while (i < len) {
		while (i < len && (klb_l7_ws(p[i]) || p[i] == ','))
			i++;
		if (i == len)
			break;
		for (n = i; n < len && klb_l7_tchar(p[n]); n++)
			;
		params = false;
		if (n == i) {
			m->te_unknown = 1;	/* not a token at all */
		} else if (ieq_lit(p + i, n - i, "chunked")) {
			m->te_chunked++;
		} else if (!ieq_lit(p + i, n - i, "gzip") &&
			   !ieq_lit(p + i, n - i, "x-gzip") &&
			   !ieq_lit(p + i, n - i, "deflate") &&
			   !ieq_lit(p + i, n - i, "compress") &&
			   !ieq_lit(p + i, n - i, "x-compress")) {
			m->te_unknown = 1;
		}
		m->te_last_chunked = n > i && ieq_lit(p + i, n - i, "chunked");
		/* Skip to the next element; anything but OWS or ;params is bad. */
		i = n;
		while (i < len && klb_l7_ws(p[i]))
			i++;
		if (i < len && p[i] == ';')
			params = true;
		else if (i < len && p[i] != ',')
			m->te_unknown = 1;
		while (i < len && p[i] != ',')
			i++;
		/* chunked takes no parameters: "chunked;x" is not chunked */
		if (params && m->te_last_chunked) {
			m->te_unknown = 1;
			m->te_last_chunked = 0;
		}
	}
}

/* Connection: which of the options we care about are listed. */
static void field_connection(struct klb_http_msg *m, const u8 *p, u32 len)
{
	u32 i = 0, n;

	while (i < len) {
		while (i < len && (klb_l7_ws(p[i]) || p[i] == ','))
			i++;
		for (n = i; n < len && p[n] != ',' && !klb_l7_ws(p[n]); n++)
			;
		if (ieq_lit(p + i, n - i, "close"))
			m->flags |= KLB_HTTP_F_CONN_CLOSE;
		else if (ieq_lit(p + i, n - i, "keep-alive"))
			m->flags |= KLB_HTTP_F_CONN_KEEPALIVE;
		else if (ieq_lit(p + i, n - i, "upgrade"))
			m->flags |= KLB_HTTP_F_CONN_UPGRADE;
		i = n;
	}
}

static int parse_field(struct klb_http_msg *m, const u8 *buf, u32 s, u32 e,
		       const struct klb_http_limits *lim)
{
	u32 i, v, ve;

	if (klb_l7_ws(buf[s]))
		return KLB_HTTP_E_OBS_FOLD;
	for (i = s; i < e && klb_l7_tchar(buf[i]); i++)
		;
	if (i == e || i == s)
		return KLB_HTTP_E_FIELD_NAME;
	if (klb_l7_ws(buf[i]))
		return KLB_HTTP_E_WS_BEFORE_COLON;
	if (buf[i] != ':')
		return KLB_HTTP_E_FIELD_NAME;
	for (v = i + 1; v < e; v++)
		if (!klb_l7_value_char(buf[v]))
			return KLB_HTTP_E_FIELD_VALUE;
	for (v = i + 1; v < e && klb_l7_ws(buf[v]); v++)
		;
	for (ve = e; ve > v && klb_l7_ws(buf[ve - 1]); ve--)
		;
	if (++m->fields > lim->max_fields)
		return KLB_HTTP_E_TOO_MANY_FIELDS;

	if (m->is_response) {
		/* A backend's Host or Expect mean nothing to us. */
	} else if (ieq_lit(buf + s, i - s, "host")) {
		if (++m->hosts > 1 || !host_valid(buf + v, ve - v))
			return KLB_HTTP_E_HOST;
		/* absolute-form wins over Host (RFC 9112 section 3.2.2) */
		if (m->target_form != KLB_HTTP_T_ABSOLUTE &&
		    m->target_form != KLB_HTTP_T_AUTHORITY) {
			m->host = (struct klb_http_span){ v, ve - v };
			m->flags |= KLB_HTTP_F_HOST;
		}
		return 0;
	} else if (ieq_lit(buf + s, i - s, "expect")) {
		if (ieq_lit(buf + v, ve - v, "100-continue"))
			m->flags |= KLB_HTTP_F_EXPECT_CONTINUE;
		return 0;
	}
	if (ieq_lit(buf + s, i - s, "content-length"))
		return field_cl(m, buf + v, ve - v);
	if (ieq_lit(buf + s, i - s, "transfer-encoding"))
		field_te(m, buf + v, ve - v);
	else if (ieq_lit(buf + s, i - s, "connection"))
		field_connection(m, buf + v, ve - v);
	else if (ieq_lit(buf + s, i - s, "upgrade"))
		m->flags |= KLB_HTTP_F_UPGRADE;
	return 0;
}

static bool te_is_chunked(const struct klb_http_msg *m)
{
	return m->te_chunked == 1 && m->te_last_chunked;
}

/* The end of the head: decide the body framing (RFC 9112 section 6.3). */
static int finish(struct klb_http_msg *m)
{
	bool te = m->flags & KLB_HTTP_F_TE;
	bool persistent;

	if (te && (m->flags & KLB_HTTP_F_CONTENT_LENGTH))
		return KLB_HTTP_E_CL_TE;
	/* 1.0 has no chunked: a 1.0 peer cannot agree with us on framing. */
	if (te && m->version == 10)
		return KLB_HTTP_E_TE_HTTP10;
	if (te && te_is_chunked(m))
		m->flags |= KLB_HTTP_F_CHUNKED;
	if (m->version == 11)
		persistent = !(m->flags & KLB_HTTP_F_CONN_CLOSE);
	else
		persistent = (m->flags & KLB_HTTP_F_CONN_KEEPALIVE) &&
			     !(m->flags & KLB_HTTP_F_CONN_CLOSE);

	if (!m->is_response) {
		if (m->version == 11 && !m->hosts)
			return KLB_HTTP_E_HOST;
		if (te && m->te_unknown)
			return KLB_HTTP_E_TE_UNKNOWN;
		if (te && !te_is_chunked(m))
			return KLB_HTTP_E_TE_NOT_CHUNKED;
		if (te)
			m->body = KLB_HTTP_BODY_CHUNKED;
		else if (m->content_length)
			m->body = KLB_HTTP_BODY_LENGTH;
		else
			m->body = KLB_HTTP_BODY_NONE;
	} else if (m->status == 101) {
		m->body = KLB_HTTP_BODY_TUNNEL;
		persistent = false;
	} else if (m->status < 200) {
		m->body = KLB_HTTP_BODY_NONE;
		m->flags |= KLB_HTTP_F_INTERIM;
	} else if (m->method_id == KLB_HTTP_M_HEAD || m->status == 204 ||
		   m->status == 304) {
		m->body = KLB_HTTP_BODY_NONE;
	} else if (m->method_id == KLB_HTTP_M_CONNECT && m->status < 300) {
		m->body = KLB_HTTP_BODY_TUNNEL;
		persistent = false;
	} else if (te) {
		m->body = te_is_chunked(m) ? KLB_HTTP_BODY_CHUNKED :
					     KLB_HTTP_BODY_CLOSE;
	} else if (m->flags & KLB_HTTP_F_CONTENT_LENGTH) {
		m->body = m->content_length ? KLB_HTTP_BODY_LENGTH :
					      KLB_HTTP_BODY_NONE;
	} else {
		m->body = KLB_HTTP_BODY_CLOSE;
	}
	if (m->body == KLB_HTTP_BODY_CLOSE)
		persistent = false;
	if (persistent)
		m->flags |= KLB_HTTP_F_PERSISTENT;
	return 0;
}

int klb_http_parse(struct klb_http_msg *m, const u8 *buf, u32 len,
		   const struct klb_http_limits *lim)
{
	u32 eol, next;
	u64 cap;
	int r;

	if (m->state == ST_DONE)
		return KLB_HTTP_OK;
	if (m->state == ST_ERR)
		return -(int)m->err;
	for (;;) {
		/* u64: head_start + a limit near 4G must not wrap. */
		cap = (u64)m->head_start +
		      (m->state == ST_START ? lim->max_line : lim->max_head);
		r = line_end(m, buf, len, cap > ~0U ? ~0U : (u32)cap, &eol, &next);
		if (r < 0)
			return fail(m, r);
		if (!r)
			return KLB_HTTP_NEED_MORE;
		/* Refuse an endless line before its end arrives. */
		if (r == 2)
			return fail(m, m->state == ST_START ?
				    KLB_HTTP_E_LINE_TOO_LONG :
				    KLB_HTTP_E_HEAD_TOO_LARGE);
		if (m->state == ST_START) {
			if (eol == m->pos && !m->is_response) {
				/* RFC 9112 section 2.2: ignore CRLFs before a request. */
				if (next > lim->max_line)
					return fail(m, KLB_HTTP_E_REQ_LINE);
				m->head_start = next;
				m->pos = next;
				continue;
			}
			if (eol == m->pos)
				return fail(m, KLB_HTTP_E_STATUS_LINE);
			r = m->is_response ?
			    parse_status_line(m, buf, m->pos, eol) :
			    parse_request_line(m, buf, m->pos, eol);
			if (r)
				return fail(m, r);
			m->state = ST_FIELDS;
			m->fields_start = next;
		} else {
			if (eol == m->pos) {
				r = finish(m);
				if (r)
					return fail(m, r);
				m->head_len = next;
				m->pos = next;
				m->state = ST_DONE;
				return KLB_HTTP_OK;
			}
			r = parse_field(m, buf, m->pos, eol, lim);
			if (r)
				return fail(m, r);
		}
		m->pos = next;
	}
}

bool klb_http_wants_upgrade(const struct klb_http_msg *m)
{
	u32 both = KLB_HTTP_F_CONN_UPGRADE | KLB_HTTP_F_UPGRADE;

	return !m->is_response && m->state == ST_DONE && m->version == 11 &&
	       m->method_id == KLB_HTTP_M_GET &&
	       m->body == KLB_HTTP_BODY_NONE && (m->flags & both) == both;
}

bool klb_http_field_find(const u8 *buf, const struct klb_http_msg *m,
			 const char *name, u32 name_len, u32 *cursor,
			 struct klb_http_span *val)
{
	u32 s = *cursor ? *cursor : m->fields_start, e, c, v, ve;

	if (m->state != ST_DONE)
		return false;
	/* The head was validated: every line ends in CRLF, names in ':'. */
	while (s + 2 < m->head_len) {
		for (e = s; buf[e] != '\r'; e++)
			;
		for (c = s; buf[c] != ':'; c++)
			;
		*cursor = e + 2;
		if (klb_l7_ieq(buf + s, c - s, (const u8 *)name, name_len)) {
			for (v = c + 1; v < e && klb_l7_ws(buf[v]); v++)
				;
			for (ve = e; ve > v && klb_l7_ws(buf[ve - 1]); ve--)
				;
			*val = (struct klb_http_span){ v, ve - v };
			return true;
		}
		s = e + 2;
	}
	*cursor = s;
	return false;
}

static const char *const err_names[KLB_HTTP_E_MAX + 1] = {
	[0] = "ok",
	[-KLB_HTTP_E_REQ_LINE] = "request_line",
	[-KLB_HTTP_E_METHOD] = "method",
	[-KLB_HTTP_E_TARGET] = "target",
	[-KLB_HTTP_E_VERSION] = "version",
	[-KLB_HTTP_E_VERSION_UNSUPP] = "version_unsupported",
	[-KLB_HTTP_E_LINE_TOO_LONG] = "line_too_long",
	[-KLB_HTTP_E_HEAD_TOO_LARGE] = "head_too_large",
	[-KLB_HTTP_E_TOO_MANY_FIELDS] = "too_many_fields",
	[-KLB_HTTP_E_BARE_CR] = "bare_cr",
	[-KLB_HTTP_E_BARE_LF] = "bare_lf",
	[-KLB_HTTP_E_OBS_FOLD] = "obs_fold",
	[-KLB_HTTP_E_WS_BEFORE_COLON] = "ws_before_colon",
	[-KLB_HTTP_E_FIELD_NAME] = "field_name",
	[-KLB_HTTP_E_FIELD_VALUE] = "field_value",
	[-KLB_HTTP_E_CL_INVALID] = "cl_invalid",
	[-KLB_HTTP_E_CL_MISMATCH] = "cl_mismatch",
	[-KLB_HTTP_E_CL_TE] = "cl_te",
	[-KLB_HTTP_E_TE_NOT_CHUNKED] = "te_not_chunked",
	[-KLB_HTTP_E_TE_UNKNOWN] = "te_unknown",
	[-KLB_HTTP_E_TE_HTTP10] = "te_http10",
	[-KLB_HTTP_E_HOST] = "host",
	[-KLB_HTTP_E_STATUS_LINE] = "status_line",
	[-KLB_HTTP_E_CHUNK_SIZE] = "chunk_size",
	[-KLB_HTTP_E_CHUNK_EXT] = "chunk_ext",
	[-KLB_HTTP_E_CHUNK_CRLF] = "chunk_crlf",
	[-KLB_HTTP_E_TRAILER] = "trailer",
	[-KLB_HTTP_E_TRAILER_TOO_LARGE] = "trailer_too_large",
};

const char *klb_http_err_name(int err)
{
	if (err > 0 || err < -KLB_HTTP_E_MAX)
		return "unknown";
	return err_names[-err];
}

u32 klb_http_head_buf_next(u32 cap, u32 max_head)
{
	u32 next = cap ? cap * 2 : KLB_HTTP_HEAD_BUF;

	/* Doubling past 2^31 wraps: the limit is far below it anyway. */
	if (next < cap || next > max_head)
		next = max_head;
	return next > cap ? next : 0;
}

u16 klb_http_err_status(int err)
{
	switch (err) {
	case KLB_HTTP_E_HEAD_TOO_LARGE:
	case KLB_HTTP_E_TOO_MANY_FIELDS:
		return 431;
	case KLB_HTTP_E_TE_UNKNOWN:
		return 501;
	case KLB_HTTP_E_VERSION_UNSUPP:
		return 505;
	}
	/* Over-long request lines too: the issue asks for 400, not 414. */
	return 400;
}
