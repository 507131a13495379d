/* SPDX-License-Identifier: GPL-2.0 */
/*
 * TLS ClientHello reader for the tls service mode: finds the SNI
 * host_name so a pass-through connection can be steered before a byte is
 * relayed, and refuses anything malformed.
 *
 * Contract: the caller keeps the first bytes the client sent, unchanged
 * and contiguous (it must relay them to the backend anyway), and calls
 * klb_tls_parse_hello() on buf[0..len) whenever len has reached the hint
 * from the previous NEED_MORE. The parser is stateless: it re-reads the
 * buffer from the start, following the records and reassembling a
 * ClientHello fragmented over several of them. The hint is the end of the
 * record being waited for, so the buffer is read once per record, and the
 * whole hello is bounded (KLB_TLS_BUF_MAX bytes, KLB_TLS_RECORDS_MAX
 * records): memory and work per connection are bounded whatever the
 * client sends.
 */
#ifndef _KLB_L7_TLS_SNI_H
#define _KLB_L7_TLS_SNI_H

#include "l7_pure.h"

/* Largest ClientHello handshake message accepted (body, header excluded). */
#define KLB_TLS_HELLO_MAX	16384
/* Records the hello may be fragmented over. */
#define KLB_TLS_RECORDS_MAX	32
/* Upper bound of any NEED_MORE hint: the most the caller ever buffers. */
#define KLB_TLS_BUF_MAX		(KLB_TLS_HELLO_MAX + 4 + 5 * KLB_TLS_RECORDS_MAX + \
				 16384)
/* Extensions in one hello: real clients send about 20. */
#define KLB_TLS_EXT_MAX		64
/* RFC 6066: a HostName is at most 255 bytes (DNS limit). */
#define KLB_TLS_SNI_MAX		255

enum {
	KLB_TLS_OK = 0,			/* hello complete, SNI in hello.sni */
	KLB_TLS_OK_NO_SNI = 1,		/* hello complete, no server_name */
	KLB_TLS_NEED_MORE = 2,		/* wait for hello.need bytes in all */

	KLB_TLS_E_NOT_HANDSHAKE = -1,	/* record type not handshake (22) */
	KLB_TLS_E_RECORD_VERSION = -2,	/* record version not 3.0..3.4 */
	KLB_TLS_E_RECORD_LEN = -3,	/* empty or over 2^14 record */
	KLB_TLS_E_TOO_FRAGMENTED = -4,	/* over KLB_TLS_RECORDS_MAX records */
	KLB_TLS_E_NOT_CLIENT_HELLO = -5, /* first handshake message type */
	KLB_TLS_E_HELLO_LEN = -6,	/* hello too short, too long, or fields overrun it */
	KLB_TLS_E_VERSION = -7,		/* legacy_version major not 3 */
	KLB_TLS_E_SESSION_ID = -8,	/* session id longer than 32 */
	KLB_TLS_E_CIPHER_SUITES = -9,	/* empty or odd cipher suite list */
	KLB_TLS_E_COMPRESSION = -10,	/* empty compression method list */
	KLB_TLS_E_EXT_LEN = -11,	/* extension block/entry lengths inconsistent */
	KLB_TLS_E_EXT_DUP = -12,	/* an extension type twice */
	KLB_TLS_E_EXT_TOO_MANY = -13,	/* over KLB_TLS_EXT_MAX extensions */
	KLB_TLS_E_SNI_LEN = -14,	/* server_name list lengths inconsistent */
	KLB_TLS_E_SNI_DUP = -15,	/* two host_name entries */
	KLB_TLS_E_SNI_NAME = -16,	/* empty, too long or not a hostname */
	KLB_TLS_E_MAX = 16
};

struct klb_tls_hello {
	u32 need;		/* NEED_MORE: call again once len >= need */
	/* OK*: end of the record ending the hello; may be > len */
	u32 hello_end;
	u16 version;		/* legacy_version of the hello */
	u16 sni_len;		/* OK: bytes in sni, no NUL counted */
	char sni[KLB_TLS_SNI_MAX + 1];	/* OK: lowercase, NUL-terminated */
	u16 ext_types[KLB_TLS_EXT_MAX];	/* scratch for the duplicate check */
};

/*
 * Read the ClientHello at the start of buf[0..len). Returns KLB_TLS_OK,
 * KLB_TLS_OK_NO_SNI, KLB_TLS_NEED_MORE or an error < 0 (close and count).
 * Bytes after hello_end (early data, ...) are not looked at.
 */
int klb_tls_parse_hello(const u8 *buf, u32 len, struct klb_tls_hello *h);

/* Short stable name of @err for counters and logs. */
const char *klb_tls_err_name(int err);

#endif /* _KLB_L7_TLS_SNI_H */
