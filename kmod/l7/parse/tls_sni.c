// SPDX-License-Identifier: GPL-2.0
/*
 * TLS ClientHello reader (RFC 8446 sections 4.1.2 and 5.1, RFC 6066
 * section 3); see tls_sni.h for the buffer contract.
 *
 * The handshake message may be cut into several records and the records
 * into several segments, so fields are read through a small cursor that
 * walks the handshake bytes across record headers. Every length is
 * checked against the one enclosing it: the record, the handshake
 * message, the extension block, the extension, the server_name list.
 */
#include "tls_sni.h"

#define REC_HEADER	5
#define REC_PAYLOAD_MAX	16384	/* 2^14, RFC 8446 section 5.1 */
#define CT_HANDSHAKE	22
#define HT_CLIENT_HELLO	1
#define EXT_SERVER_NAME	0
#define SNI_HOST_NAME	0

struct rd {
	const u8 *buf;
	u32 len;
	u32 pos;	/* next byte of buf */
	u32 rec_end;	/* end of the current record's payload in buf */
	u32 nrec;
	u32 hs;		/* handshake bytes consumed so far */
	u32 need;	/* NEED_MORE hint */
};

/*
 * Make sure a handshake byte is available at r->pos, crossing into the
 * next record if the current one is used up.
 */
static int rd_avail(struct rd *r)
{
	const u8 *p;
	u32 plen;

	if (r->pos < r->rec_end) {
		if (r->pos < r->len)
			return 0;
		r->need = r->rec_end;
		return KLB_TLS_NEED_MORE;
	}
	if (r->len - r->pos < REC_HEADER) {
		/* Say what we can as early as we can: the type byte. */
		if (r->pos < r->len && r->buf[r->pos] != CT_HANDSHAKE)
			return KLB_TLS_E_NOT_HANDSHAKE;
		r->need = r->pos + REC_HEADER;
		return KLB_TLS_NEED_MORE;
	}
	p = r->buf + r->pos;
	if (p[0] != CT_HANDSHAKE)
		return KLB_TLS_E_NOT_HANDSHAKE;
	if (p[1] != 3 || p[2] > 4)
		return KLB_TLS_E_RECORD_VERSION;
	plen = (u32)p[3] << 8 | p[4];
	/* Zero-length handshake records are forbidden (RFC 8446 5.1). */
	if (!plen || plen > REC_PAYLOAD_MAX)
		return KLB_TLS_E_RECORD_LEN;
	if (++r->nrec > KLB_TLS_RECORDS_MAX)
		return KLB_TLS_E_TOO_FRAGMENTED;
	r->pos += REC_HEADER;
	r->rec_end = r->pos + plen;
	if (r->pos < r->len)
		return 0;
	r->need = r->rec_end;
	return KLB_TLS_NEED_MORE;
}

/* Read @n bytes (n <= 4) big-endian into *v. */
static int rd_uint(struct rd *r, u32 n, u32 *v)
{
	int err;

	*v = 0;
	while (n--) {
		err = rd_avail(r);
		if (err)
			return err;
		*v = *v << 8 | r->buf[r->pos++];
		r->hs++;
	}
	return 0;
}

/* Skip @n handshake bytes, a record's worth at a time. */
static int rd_skip(struct rd *r, u32 n)
{
	u32 k;
	int err;

	while (n) {
		err = rd_avail(r);
		if (err)
			return err;
		k = r->rec_end - r->pos;
		if (k > r->len - r->pos)
			k = r->len - r->pos;
		if (k > n)
			k = n;
		r->pos += k;
		r->hs += k;
		n -= k;
	}
	return 0;
}

/*
 * host_name: LDH labels separated by dots, lowercased into h->sni. '_' is
 * let through because real names carry it; one trailing dot (a fully
 * qualified name) is dropped so "a.example." and "a.example" match alike.
 */
static int read_host_name(struct rd *r, u32 n, struct klb_tls_hello *h)
{
	u32 i, c, label = 0;
	int err;

	if (!n || n > KLB_TLS_SNI_MAX)
		return KLB_TLS_E_SNI_NAME;
	for (i = 0; i < n; i++) {
		err = rd_uint(r, 1, &c);
		if (err)
			return err;
		if (c == '.') {
			if (!label)
				return KLB_TLS_E_SNI_NAME;	/* empty label */
			label = 0;
		} else if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
			   (c >= '0' && c <= '9') || c == '-' || c == '_') {
			label++;
			if (label > 63)
				return KLB_TLS_E_SNI_NAME;
		} else {
			return KLB_TLS_E_SNI_NAME;
		}
		h->sni[i] = klb_l7_lower(c);
	}
	if (h->sni[n - 1] == '.')
		n--;
	if (!n)
		return KLB_TLS_E_SNI_NAME;
	h->sni[n] = '\0';
	h->sni_len = n;
	return 0;
}

/* The server_name extension body, @n bytes. */
static int read_sni(struct rd *r, u32 n, struct klb_tls_hello *h)
{
	u32 list, end, type, nlen;
	bool seen = false;
	int err;

	if (n < 2)
		return KLB_TLS_E_SNI_LEN;
	err = rd_uint(r, 2, &list);
	if (err)
		return err;
	if (list != n - 2 || !list)
		return KLB_TLS_E_SNI_LEN;
	end = r->hs + list;
	while (r->hs < end) {
		if (end - r->hs < 3)
			return KLB_TLS_E_SNI_LEN;
		err = rd_uint(r, 1, &type);
		if (!err)
			err = rd_uint(r, 2, &nlen);
		if (err)
			return err;
		if (nlen > end - r->hs)
			return KLB_TLS_E_SNI_LEN;
		if (type == SNI_HOST_NAME && seen)
			return KLB_TLS_E_SNI_DUP;
		/* Unknown name types share the HostName layout: skip them. */
		if (type == SNI_HOST_NAME)
			err = read_host_name(r, nlen, h);
		else
			err = rd_skip(r, nlen);
		seen |= type == SNI_HOST_NAME;
		if (err)
			return err;
	}
	return seen ? KLB_TLS_OK : KLB_TLS_OK_NO_SNI;
}

static int read_hello(struct rd *r, struct klb_tls_hello *h)
{
	u32 v, msg_end, ext_end, type, n, next, i, exts = 0;
	int err, ret = KLB_TLS_OK_NO_SNI;

	err = rd_uint(r, 1, &type);
	if (err)
		return err;
	if (type != HT_CLIENT_HELLO)
		return KLB_TLS_E_NOT_CLIENT_HELLO;
	err = rd_uint(r, 3, &n);
	if (err)
		return err;
	/* version, random, three length bytes, a suite, a method: 41 */
	if (n < 41 || n > KLB_TLS_HELLO_MAX)
		return KLB_TLS_E_HELLO_LEN;
	msg_end = r->hs + n;

	err = rd_uint(r, 2, &v);
	if (err)
		return err;
	if (v >> 8 != 3)
		return KLB_TLS_E_VERSION;
	h->version = v;
	err = rd_skip(r, 32);			/* random */
	if (!err)
		err = rd_uint(r, 1, &n);	/* legacy_session_id */
	if (err)
		return err;
	if (n > 32)
		return KLB_TLS_E_SESSION_ID;
	if (n + 2 > msg_end - r->hs)
		return KLB_TLS_E_HELLO_LEN;
	err = rd_skip(r, n);
	if (!err)
		err = rd_uint(r, 2, &n);	/* cipher_suites */
	if (err)
		return err;
	if (!n || n & 1)
		return KLB_TLS_E_CIPHER_SUITES;
	if (n + 1 > msg_end - r->hs)
		return KLB_TLS_E_HELLO_LEN;
	err = rd_skip(r, n);
	if (!err)
		err = rd_uint(r, 1, &n);	/* compression_methods */
	if (err)
		return err;
	if (!n)
		return KLB_TLS_E_COMPRESSION;
	if (n > msg_end - r->hs)
		return KLB_TLS_E_HELLO_LEN;
	err = rd_skip(r, n);
	if (err)
		return err;
	if (r->hs == msg_end)
		return KLB_TLS_OK_NO_SNI;	/* no extension block at all */

	if (msg_end - r->hs < 2)
		return KLB_TLS_E_EXT_LEN;
	err = rd_uint(r, 2, &n);
	if (err)
		return err;
	if (n != msg_end - r->hs)
		return KLB_TLS_E_EXT_LEN;
	ext_end = msg_end;
	while (r->hs < ext_end) {
		if (ext_end - r->hs < 4)
			return KLB_TLS_E_EXT_LEN;
		err = rd_uint(r, 2, &type);
		if (!err)
			err = rd_uint(r, 2, &n);
		if (err)
			return err;
		if (n > ext_end - r->hs)
			return KLB_TLS_E_EXT_LEN;
		if (exts == KLB_TLS_EXT_MAX)
			return KLB_TLS_E_EXT_TOO_MANY;
		/* At most 64 * 63 / 2 compares: cheaper than a 8 KB bitmap. */
		for (i = 0; i < exts; i++)
			if (h->ext_types[i] == type)
				return KLB_TLS_E_EXT_DUP;
		h->ext_types[exts++] = type;
		next = r->hs + n;
		if (type == EXT_SERVER_NAME) {
			err = read_sni(r, n, h);
			if (err < 0 || err == KLB_TLS_NEED_MORE)
				return err;
			ret = err;
			if (r->hs != next)
				return KLB_TLS_E_SNI_LEN;
		} else {
			err = rd_skip(r, n);
			if (err)
				return err;
		}
	}
	return ret;
}

int klb_tls_parse_hello(const u8 *buf, u32 len, struct klb_tls_hello *h)
{
	struct rd r = { .buf = buf, .len = len };
	int ret;

	h->need = 0;
	h->sni_len = 0;
	h->sni[0] = '\0';
	ret = read_hello(&r, h);
	if (ret == KLB_TLS_NEED_MORE) {
		h->need = r.need;
		h->sni_len = 0;
		h->sni[0] = '\0';
	} else if (ret >= 0) {
		h->hello_end = r.rec_end;
	}
	return ret;
}

static const char *const err_names[KLB_TLS_E_MAX + 1] = {
	[0] = "ok",
	[-KLB_TLS_E_NOT_HANDSHAKE] = "not_handshake",
	[-KLB_TLS_E_RECORD_VERSION] = "record_version",
	[-KLB_TLS_E_RECORD_LEN] = "record_len",
	[-KLB_TLS_E_TOO_FRAGMENTED] = "too_fragmented",
	[-KLB_TLS_E_NOT_CLIENT_HELLO] = "not_client_hello",
	[-KLB_TLS_E_HELLO_LEN] = "hello_len",
	[-KLB_TLS_E_VERSION] = "version",
	[-KLB_TLS_E_SESSION_ID] = "session_id",
	[-KLB_TLS_E_CIPHER_SUITES] = "cipher_suites",
	[-KLB_TLS_E_COMPRESSION] = "compression",
	[-KLB_TLS_E_EXT_LEN] = "ext_len",
	[-KLB_TLS_E_EXT_DUP] = "ext_dup",
	[-KLB_TLS_E_EXT_TOO_MANY] = "ext_too_many",
	[-KLB_TLS_E_SNI_LEN] = "sni_len",
	[-KLB_TLS_E_SNI_DUP] = "sni_dup",
	[-KLB_TLS_E_SNI_NAME] = "sni_name",
};

const char *klb_tls_err_name(int err)
{
	if (err > 0 || err < -KLB_TLS_E_MAX)
		return "unknown";
	return err_names[-err];
}
