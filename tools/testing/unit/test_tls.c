// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the ClientHello reader in kmod/l7/parse/tls_sni.c. Hellos are
 * built here byte by byte (struct bb), cut into records of a chosen size,
 * and fed from heap copies of exactly the bytes given so any over-read is
 * an ASan report.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tls_sni.h"
#include "tap.h"


/* Byte builder with 24/16-bit length fields patched in afterwards. */
struct bb {
	u8 b[70000];
	u32 n;
};

static void put8(struct bb *b, u32 v)
{
	b->b[b->n++] = v;
}

static void put16(struct bb *b, u32 v)
{
	put8(b, v >> 8);
	put8(b, v);
}

static void putmem(struct bb *b, const void *p, u32 n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

/* Start a length field of @w bytes; returns where to patch. */
static u32 len_open(struct bb *b, u32 w)
{
	u32 at = b->n;

	while (w--)
		put8(b, 0);
	return at;
}

static void len_close(struct bb *b, u32 at, u32 w, int delta)
{
	u32 v = b->n - at - w + delta, i;

	for (i = 0; i < w; i++)
		b->b[at + i] = v >> (8 * (w - 1 - i));
}

struct hello_opt {
	const char *sni;	/* NULL: no server_name extension */
	u32 sni_len;		/* 0: strlen(sni) */
	u32 host_names;		/* host_name entries (default 1) */
	bool other_name_first;	/* an unknown name_type before host_name */
	bool no_ext_block;
	bool dup_ext;
	u32 n_ext;		/* extra extensions */
	u32 pad;		/* bytes of a padding extension */
	u32 sid_len, cs_len, comp_len;
	u32 hs_type, version;
	int msg_delta, ext_block_delta, ext_delta, sni_list_delta;
};

/* Build a ClientHello handshake message (header included) into @b. */
static void build_hello(struct bb *b, const struct hello_opt *o)
{
	u32 msg, exts, ext, list, i, name_len;

	b->n = 0;
	put8(b, o->hs_type ? o->hs_type : 1);
	msg = len_open(b, 3);
	put16(b, o->version ? o->version : 0x0303);
	for (i = 0; i < 32; i++)
		put8(b, i);
	put8(b, o->sid_len);
	for (i = 0; i < o->sid_len; i++)
		put8(b, 0xaa);
	put16(b, o->cs_len);
	for (i = 0; i < o->cs_len; i++)
		put8(b, i & 1 ? 0x01 : 0x13);
	put8(b, o->comp_len);
	for (i = 0; i < o->comp_len; i++)
		put8(b, 0);
	if (!o->no_ext_block) {
		exts = len_open(b, 2);
		put16(b, 0x002b);			/* supported_versions */
		put16(b, 3);
		putmem(b, "\x02\x03\x04", 3);
		if (o->sni) {
			name_len = o->sni_len ? o->sni_len : strlen(o->sni);
			put16(b, 0);
			ext = len_open(b, 2);
			list = len_open(b, 2);
			if (o->other_name_first) {
				put8(b, 7);
				put16(b, 3);
				putmem(b, "abc", 3);
			}
			for (i = 0; i < (o->host_names ? o->host_names : 1); i++) {
				put8(b, 0);
				put16(b, name_len);
				putmem(b, o->sni, name_len);
			}
			len_close(b, list, 2, o->sni_list_delta);
			len_close(b, ext, 2, o->ext_delta);
		}
		for (i = 0; i < o->n_ext; i++) {
			put16(b, 0x1000 + i);
			put16(b, 1);
			put8(b, i);
		}
		if (o->dup_ext) {
			put16(b, 0x002b);
			put16(b, 0);
		}
		if (o->pad) {
			put16(b, 21);
			put16(b, o->pad);
			for (i = 0; i < o->pad; i++)
				put8(b, 0);
		}
		len_close(b, exts, 2, o->ext_block_delta);
	}
	len_close(b, msg, 3, o->msg_delta);
}

/* Wrap @msg into records of at most @frag payload bytes. */
static void records(struct bb *out, const struct bb *msg, u32 frag)
{
	u32 off = 0, n;

	out->n = 0;
	while (off < msg->n) {
		n = msg->n - off < frag ? msg->n - off : frag;
		put8(out, 22);
		put16(out, 0x0301);
		put16(out, n);
		putmem(out, msg->b + off, n);
		off += n;
	}
}

static int parse_copy(const u8 *buf, u32 len, struct klb_tls_hello *h)
{
	u8 *copy = malloc(len ? len : 1);
	int rc;

	memcpy(copy, buf, len);
	rc = klb_tls_parse_hello(copy, len, h);
	free(copy);
	return rc;
}

static struct bb msg, rec;

static int run(const struct hello_opt *o, u32 frag, struct klb_tls_hello *h)
{
	build_hello(&msg, o);
	records(&rec, &msg, frag);
	return parse_copy(rec.b, rec.n, h);
}

static const struct hello_opt base = {
	.sni = "www.Example.COM", .sid_len = 32, .cs_len = 8, .comp_len = 1,
};

static void test_basic(void)
{
	struct klb_tls_hello h;
	struct hello_opt o = base;
	int rc;

	rc = run(&o, 16384, &h);
	tap_ok(rc == KLB_TLS_OK && h.sni_len == 15 && !strcmp(h.sni, "www.example.com") &&
	       h.hello_end == rec.n && h.version == 0x0303,
	       "SNI found and lowercased (%d '%s')", rc, h.sni);
	o.sni = NULL;
	rc = run(&o, 16384, &h);
	tap_ok(rc == KLB_TLS_OK_NO_SNI && h.sni_len == 0, "no server_name: OK_NO_SNI (%d)", rc);
	o.no_ext_block = true;
	rc = run(&o, 16384, &h);
	tap_ok(rc == KLB_TLS_OK_NO_SNI, "no extension block at all: OK_NO_SNI (%d)", rc);
	o = base;
	o.sni = "a.example.";
	rc = run(&o, 16384, &h);
	tap_ok(rc == KLB_TLS_OK && !strcmp(h.sni, "a.example"), "trailing dot dropped");
	o = base;
	o.other_name_first = true;
	o.sni = "x_y-1.example";
	rc = run(&o, 16384, &h);
	tap_ok(rc == KLB_TLS_OK && !strcmp(h.sni, "x_y-1.example"),
	       "unknown name_type skipped; '_' and '-' allowed (%d)", rc);
	o = base;
	o.pad = 2000;
	o.n_ext = 40;
	rc = run(&o, 16384, &h);
	tap_ok(rc == KLB_TLS_OK && !strcmp(h.sni, "www.example.com"), "big hello with many extensions");
	/* Bytes after the hello's record are not looked at. */
	build_hello(&msg, &base);
	records(&rec, &msg, 16384);
	putmem(&rec, "\x17\x03\x03\x00\x01x", 6);
	rc = parse_copy(rec.b, rec.n, &h);
	tap_ok(rc == KLB_TLS_OK && h.hello_end == rec.n - 6, "trailing record ignored, hello_end right");
}

/*
 * Every record size and every segment boundary: a prefix says NEED_MORE
 * with a hint beyond it, never an error, and the whole says the same as
 * in one piece. Following the hints alone reaches the end in few calls.
 */
static void test_splits(void)
{
	static const u32 frags[] = { 16384, 300, 64, 17, 7 };
	struct klb_tls_hello h;
	struct hello_opt o = base;
	u32 f, k, calls, len, maxcalls = 0;
	bool ok = true, hint_ok = true;
	int rc;

	o.sni = "segments.and.records.example";
	for (f = 0; f < ARRAY_SIZE(frags); f++) {
		build_hello(&msg, &o);
		records(&rec, &msg, frags[f]);
		for (k = 0; k < rec.n && ok; k++) {
			rc = parse_copy(rec.b, k, &h);
			ok = rc == KLB_TLS_NEED_MORE && h.need > k && h.need <= rec.n;
			if (!ok)
				tap_diag("frag %u prefix %u: rc %d need %u", frags[f], k, rc, h.need);
		}
		rc = parse_copy(rec.b, rec.n, &h);
		ok &= rc == KLB_TLS_OK && !strcmp(h.sni, o.sni);
		len = 0;
		calls = 0;
		do {
			rc = parse_copy(rec.b, len, &h);
			calls++;
			len = h.need;
		} while (rc == KLB_TLS_NEED_MORE && calls < 1000);
		hint_ok &= rc == KLB_TLS_OK && calls <= 2 * (rec.n / (frags[f] + 5) + 2);
		if (calls > maxcalls)
			maxcalls = calls;
	}
	tap_ok(ok, "split over records of 16384/300/64/17/7 bytes and at every segment boundary");
	tap_ok(hint_ok, "following NEED_MORE hints reads each record about once (max %u calls)", maxcalls);
	build_hello(&msg, &o);
	records(&rec, &msg, 1);
	rc = parse_copy(rec.b, rec.n, &h);
	tap_ok(rc == KLB_TLS_E_TOO_FRAGMENTED, "one byte per record: too fragmented (%d)", rc);
}

static void test_malformed(void)
{
	struct klb_tls_hello h;
	struct hello_opt o;
	char name[300];
	int rc;
	u32 i;

#define BAD(what, field_set, want)					\
	do {								\
		o = base;						\
		field_set;						\
		rc = run(&o, 16384, &h);				\
		tap_ok(rc == (want), "refused: %s -> %s (got %d %s)", what,	\
		       klb_tls_err_name(want), rc, klb_tls_err_name(rc)); \
	} while (0)

	BAD("server hello", o.hs_type = 2, KLB_TLS_E_NOT_CLIENT_HELLO);
	BAD("legacy_version 2.x", o.version = 0x0203, KLB_TLS_E_VERSION);
	BAD("session id 33", o.sid_len = 33, KLB_TLS_E_SESSION_ID);
	BAD("no cipher suites", o.cs_len = 0, KLB_TLS_E_CIPHER_SUITES);
	BAD("odd cipher suites", o.cs_len = 7, KLB_TLS_E_CIPHER_SUITES);
	BAD("no compression", o.comp_len = 0, KLB_TLS_E_COMPRESSION);
	BAD("message length short", o.msg_delta = -1, KLB_TLS_E_EXT_LEN);
	BAD("message length long", o.msg_delta = 1, KLB_TLS_E_EXT_LEN);
	BAD("ext block short", o.ext_block_delta = -1, KLB_TLS_E_EXT_LEN);
	BAD("ext block long", o.ext_block_delta = 1, KLB_TLS_E_EXT_LEN);
	BAD("ext length long", o.ext_delta = 100, KLB_TLS_E_EXT_LEN);
	BAD("sni ext length short", o.ext_delta = -1, KLB_TLS_E_SNI_LEN);
	BAD("sni list long", o.sni_list_delta = 1, KLB_TLS_E_SNI_LEN);
	BAD("sni list short", o.sni_list_delta = -1, KLB_TLS_E_SNI_LEN);
	BAD("entry overruns list", (o.sni_list_delta = -3, o.ext_delta = -3), KLB_TLS_E_SNI_LEN);
	BAD("two host_names", o.host_names = 2, KLB_TLS_E_SNI_DUP);
	BAD("duplicate extension", o.dup_ext = true, KLB_TLS_E_EXT_DUP);
	BAD("too many extensions", o.n_ext = KLB_TLS_EXT_MAX, KLB_TLS_E_EXT_TOO_MANY);
	BAD("empty name", (o.sni = "", o.sni_len = 0), KLB_TLS_E_SNI_NAME);
	BAD("empty label", o.sni = "a..b", KLB_TLS_E_SNI_NAME);
	BAD("leading dot", o.sni = ".a.b", KLB_TLS_E_SNI_NAME);
	BAD("only a dot", o.sni = ".", KLB_TLS_E_SNI_NAME);
	BAD("wildcard", o.sni = "*.a.b", KLB_TLS_E_SNI_NAME);
	BAD("space", o.sni = "a b", KLB_TLS_E_SNI_NAME);
	BAD("NUL", (o.sni = "a\0b", o.sni_len = 3), KLB_TLS_E_SNI_NAME);
	BAD("8-bit", o.sni = "caf\xc3\xa9", KLB_TLS_E_SNI_NAME);
	memset(name, 'a', sizeof(name));
	for (i = 60; i < sizeof(name); i += 60)
		name[i] = '.';
	BAD("256-byte name", (o.sni = name, o.sni_len = 256), KLB_TLS_E_SNI_NAME);
	BAD("64-byte label", (o.sni = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", o.sni_len = 64),
	    KLB_TLS_E_SNI_NAME);
	o = base;
	o.sni = name;
	o.sni_len = 255;
	rc = run(&o, 16384, &h);
	tap_ok(rc == KLB_TLS_OK && h.sni_len == 255 && h.sni[255] == '\0', "255-byte name accepted");
	BAD("hello too large", o.pad = KLB_TLS_HELLO_MAX, KLB_TLS_E_HELLO_LEN);
	/* A too-short message length inside the fixed part. */
	BAD("message length tiny", o.msg_delta = -(int)(msg.n - 4 - 40), KLB_TLS_E_HELLO_LEN);

	/* Record layer. */
	build_hello(&msg, &base);
	records(&rec, &msg, 16384);
	rec.b[0] = 23;
	rc = parse_copy(rec.b, rec.n, &h);
	tap_ok(rc == KLB_TLS_E_NOT_HANDSHAKE, "application data record refused (%d)", rc);
	rc = parse_copy(rec.b, 1, &h);
	tap_ok(rc == KLB_TLS_E_NOT_HANDSHAKE, "... from its first byte (%d)", rc);
	rc = parse_copy((const u8 *)"GET / HTTP/1.1\r\n", 16, &h);
	tap_ok(rc == KLB_TLS_E_NOT_HANDSHAKE, "plain HTTP refused (%d)", rc);
	rc = parse_copy((const u8 *)"\x80\x2e\x01\x03\x01", 5, &h);
	tap_ok(rc == KLB_TLS_E_NOT_HANDSHAKE, "SSLv2 hello refused (%d)", rc);
	rec.b[0] = 22;
	rec.b[1] = 2;
	rc = parse_copy(rec.b, rec.n, &h);
	tap_ok(rc == KLB_TLS_E_RECORD_VERSION, "record version 2.x refused (%d)", rc);
	rec.b[1] = 3;
	rec.b[2] = 5;
	rc = parse_copy(rec.b, rec.n, &h);
	tap_ok(rc == KLB_TLS_E_RECORD_VERSION, "record version 3.5 refused (%d)", rc);
	rc = parse_copy((const u8 *)"\x16\x03\x01\x00\x00", 5, &h);
	tap_ok(rc == KLB_TLS_E_RECORD_LEN, "empty record refused (%d)", rc);
	rc = parse_copy((const u8 *)"\x16\x03\x01\x40\x01", 5, &h);
	tap_ok(rc == KLB_TLS_E_RECORD_LEN, "record over 2^14 refused (%d)", rc);
	/* An alert interleaved between two fragments of the hello. */
	build_hello(&msg, &base);
	records(&rec, &msg, 50);
	rec.b[55] = 21;
	rc = parse_copy(rec.b, rec.n, &h);
	tap_ok(rc == KLB_TLS_E_NOT_HANDSHAKE, "non-handshake record inside the hello refused (%d)", rc);
#undef BAD
}

int main(void)
{
	test_basic();
	test_splits();
	test_malformed();
	return tap_done();
}
