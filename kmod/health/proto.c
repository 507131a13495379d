// SPDX-License-Identifier: GPL-2.0
/*
 * What a probe says and how its answer is judged, for each kind, within
 * the probe's fixed buffer: an http probe keeps the status line, then only
 * enough of the body to find a string that spans two reads; a tls probe
 * keeps the first bytes of the first record.
 */
#include <linux/inet.h>
#include <linux/kernel.h>
#include <linux/random.h>
#include <linux/string.h>
#include <asm/unaligned.h>

#include "health/probe.h"

/* ---- http ------------------------------------------------------------- */

static int klb_probe_http_request(struct klb_probe *p)
{
	const struct klb_check_cfg *cfg = p->cfg;
	const struct klb_backend *be = p->be;
	char host[INET6_ADDRSTRLEN + 2];
	int n;

	if (be->family == AF_INET)
		snprintf(host, sizeof(host), "%pI4", &be->addr.ip);
	else
		snprintf(host, sizeof(host), "[%pI6c]", &be->addr.in6);
	/* HTTP/1.0: a plain body to the close, never chunked. */
	n = snprintf(p->buf, sizeof(p->buf),
		     "GET %s HTTP/1.0\r\nHost: %s\r\nUser-Agent: klb-check\r\n"
		     "Accept: */*\r\nConnection: close\r\n\r\n",
		     cfg->path, cfg->host[0] ? cfg->host : host);
	if (n >= sizeof(p->buf))
		return -ENOSPC;
	p->len = n;
	return 0;
}

static bool klb_probe_status_ok(const struct klb_check_cfg *cfg, u16 status)
{
	if (cfg->expect < 10)
		return status / 100 == cfg->expect;
	return status == cfg->expect;
}

/* "HTTP/1.x NNN ..." in buf: the status, or 0. */
static u16 klb_probe_status_line(const char *s, size_t n)
{
	u16 status = 0;
	int i;

	if (n < 12 || memcmp(s, "HTTP/1.", 7) || s[8] != ' ')
		return 0;
	for (i = 9; i < 12; i++) {
		if (s[i] < '0' || s[i] > '9')
			return 0;
		status = status * 10 + s[i] - '0';
	}
	return status >= 100 && status <= 599 ? status : 0;
}

/* Body bytes: look for the string, keeping its length less one. */
static bool klb_probe_body(struct klb_probe *p, const char *data, size_t n)
{
	size_t blen = strlen(p->cfg->body), keep = blen - 1, c, i;

	while (n) {
		c = min_t(size_t, n, sizeof(p->buf) - p->len);
		/* @data may be in the buffer (what followed the head) */
		memmove(p->buf + p->len, data, c);
		p->len += c;
		data += c;
		n -= c;
		for (i = 0; i + blen <= p->len; i++)
			if (!memcmp(p->buf + i, p->cfg->body, blen))
				return true;
		if (p->len > keep) {
			memmove(p->buf, p->buf + p->len - keep, keep);
			p->len = keep;
		}
	}
	return false;
}

static int klb_probe_http_answer(struct klb_probe *p, const char *data,
				 size_t n, bool eof)
{
	static const char end[] = "\r\n\r\n";
	const struct klb_check_cfg *cfg = p->cfg;
	char *nl;
	size_t c;

	if (!p->status) {
		c = min_t(size_t, n, sizeof(p->buf) - 1 - p->len);
		memcpy(p->buf + p->len, data, c);
		p->len += c;
		p->buf[p->len] = '\0';
		nl = strchr(p->buf, '\n');
		if (!nl) {
			if (eof || p->len == sizeof(p->buf) - 1)
				return klb_probe_fail(p->len ?
						      KLB_PROBE_ERR_BAD_ANSWER :
						      KLB_PROBE_ERR_CLOSED, 0);
			return 0;
		}
		p->status = klb_probe_status_line(p->buf, nl - p->buf);
		if (!p->status)
			return klb_probe_fail(KLB_PROBE_ERR_BAD_ANSWER, 0);
		if (!klb_probe_status_ok(cfg, p->status))
			return klb_probe_fail(KLB_PROBE_ERR_STATUS, p->status);
		if (!cfg->body[0])
			return 1;
		/* Go on with what followed the status line's "\r\n"... */
		c = nl + 1 - p->buf;
		data = p->buf + c;
		n = p->len - c;
		p->head_end = 2;
		/* ... from a copy, as the body search reuses the buffer. */
		memmove(p->buf + sizeof(p->buf) - n, data, n);
		data = p->buf + sizeof(p->buf) - n;
		p->len = 0;
	}
	/* The head: up to "\r\n\r\n". */
	while (n && p->head_end < 4) {
		if (*data == end[p->head_end])
			p->head_end++;
		else
			p->head_end = *data == '\r';
		data++;
		n--;
	}
	if (p->head_end == 4 && klb_probe_body(p, data, n))
		return 1;
	if (eof || p->nread >= KLB_PROBE_READ_MAX)
		return klb_probe_fail(KLB_PROBE_ERR_BODY, 0);
	return 0;
}

/* ---- tls -------------------------------------------------------------- */

/*
 * A TLS 1.2 ClientHello (TLS 1.3 servers answer it too) with the usual
 * ECDHE AEAD and RSA suites, groups and signature schemes, so that any
 * certificate type gets a ServerHello; nothing after it is looked at.
 */
static const u8 klb_tls_suites[] = {
	0xc0, 0x2b, 0xc0, 0x2f, 0xc0, 0x2c, 0xc0, 0x30, 0xcc, 0xa9,
	0xcc, 0xa8, 0x00, 0x9c, 0x00, 0x9d, 0x00, 0x2f, 0x00, 0x35,
};

static const u8 klb_tls_ext[] = {
	0x00, 0x0a, 0x00, 0x08, 0x00, 0x06, 0x00, 0x1d, 0x00, 0x17,
	0x00, 0x18,			/* supported_groups */
	0x00, 0x0b, 0x00, 0x02, 0x01, 0x00,	/* ec_point_formats */
	0x00, 0x0d, 0x00, 0x12, 0x00, 0x10, 0x04, 0x03, 0x08, 0x04,
	0x04, 0x01, 0x05, 0x03, 0x08, 0x05, 0x05, 0x01, 0x08, 0x06,
	0x06, 0x01,			/* signature_algorithms */
	0xff, 0x01, 0x00, 0x01, 0x00,	/* renegotiation_info */
};

static int klb_probe_tls_request(struct klb_probe *p)
{
	size_t sni = strlen(p->cfg->sni), ext, body;
	u8 *b = (u8 *)p->buf, *q;

	ext = sizeof(klb_tls_ext) + (sni ? 9 + sni : 0);
	body = 2 + 32 + 1 + 2 + sizeof(klb_tls_suites) + 2 + 2 + ext;
	if (5 + 4 + body > sizeof(p->buf))
		return -ENOSPC;
	q = b;
	*q++ = 0x16;			/* handshake record */
	*q++ = 0x03;
	*q++ = 0x01;
	put_unaligned_be16(4 + body, q);
	q += 2;
	*q++ = 0x01;			/* ClientHello */
	*q++ = 0;
	put_unaligned_be16(body, q);
	q += 2;
	*q++ = 0x03;			/* TLS 1.2 */
	*q++ = 0x03;
	get_random_bytes(q, 32);
	q += 32;
	*q++ = 0;			/* no session id */
	put_unaligned_be16(sizeof(klb_tls_suites), q);
	q += 2;
	memcpy(q, klb_tls_suites, sizeof(klb_tls_suites));
	q += sizeof(klb_tls_suites);
	*q++ = 1;			/* compression: null */
	*q++ = 0;
	put_unaligned_be16(ext, q);
	q += 2;
	if (sni) {
		put_unaligned_be16(0, q);		/* server_name */
		put_unaligned_be16(sni + 5, q + 2);
		put_unaligned_be16(sni + 3, q + 4);
		q[6] = 0;				/* host_name */
		put_unaligned_be16(sni, q + 7);
		memcpy(q + 9, p->cfg->sni, sni);
		q += 9 + sni;
	}
	memcpy(q, klb_tls_ext, sizeof(klb_tls_ext));
	q += sizeof(klb_tls_ext);
	p->len = q - b;
	return 0;
}

/* The first record: a handshake whose first message is a ServerHello. */
static int klb_probe_tls_answer(struct klb_probe *p, const char *data,
				size_t n, bool eof)
{
	const u8 *b = (const u8 *)p->buf;
	size_t c = min_t(size_t, n, 7 - p->len);

	memcpy(p->buf + p->len, data, c);
	p->len += c;
	if (p->len >= 1 && b[0] != 0x16 && b[0] != 0x15)
		return klb_probe_fail(KLB_PROBE_ERR_BAD_ANSWER, 0);
	if (p->len < 7)
		return eof ? klb_probe_fail(KLB_PROBE_ERR_CLOSED, 0) : 0;
	if (b[0] == 0x15)
		return klb_probe_fail(KLB_PROBE_ERR_TLS_ALERT, b[6]);
	if (b[1] != 0x03 || b[5] != 0x02)
		return klb_probe_fail(KLB_PROBE_ERR_BAD_ANSWER, 0);
	return 1;
}

int klb_probe_request(struct klb_probe *p)
{
	if (p->cfg->kind == KLB_CHECK_HTTP)
		return klb_probe_http_request(p);
	return klb_probe_tls_request(p);
}

int klb_probe_answer(struct klb_probe *p, const char *data, size_t n,
		     bool eof)
{
	if (p->cfg->kind == KLB_CHECK_HTTP)
		return klb_probe_http_answer(p, data, n, eof);
	return klb_probe_tls_answer(p, data, n, eof);
}
