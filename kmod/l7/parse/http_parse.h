/* SPDX-License-Identifier: GPL-2.0 */
/*
 * HTTP/1.x message-head parser and chunked-body decoder (RFC 9112), pure
 * code for the http service mode.
 *
 * Heads: the caller keeps the bytes of one message head contiguous in its
 * own buffer (it must forward them anyway) and calls klb_http_parse()
 * each time more bytes were appended, with the same buffer start. The
 * parser remembers where the first unparsed line starts, so every byte is
 * looked at about once however the head was segmented; nothing is
 * allocated, and the head the caller must hold is bounded by
 * klb_http_limits.max_head. All results are offsets into that buffer.
 *
 * Bodies: klb_chunk_feed() is a byte state machine that needs no buffer
 * at all; Content-Length bodies need only a counter (msg.content_length).
 *
 * Line endings are strict, on purpose: the head is relayed to the backend
 * as received, so anything a backend could split differently (a bare LF
 * some servers treat as a line end and others as data, a bare CR) is
 * refused rather than normalised.
 */
#ifndef _KLB_L7_HTTP_PARSE_H
#define _KLB_L7_HTTP_PARSE_H

#include "l7_pure.h"

/* Return values: >= 0 progress, < 0 the message must be refused. */
enum {
	KLB_HTTP_OK = 0,		/* head complete: msg.head_len is set */
	KLB_HTTP_NEED_MORE = 1,		/* append bytes and call again */

	KLB_HTTP_E_REQ_LINE = -1,	/* request line not "M SP T SP V" */
	KLB_HTTP_E_METHOD = -2,		/* empty method or not a token */
	KLB_HTTP_E_TARGET = -3,		/* bad request-target for its form */
	KLB_HTTP_E_VERSION = -4,	/* not HTTP/<digit>.<digit> */
	KLB_HTTP_E_VERSION_UNSUPP = -5,	/* well formed, but not 1.0/1.1 */
	KLB_HTTP_E_LINE_TOO_LONG = -6,	/* start line over max_line */
	KLB_HTTP_E_HEAD_TOO_LARGE = -7,	/* head over max_head */
	KLB_HTTP_E_TOO_MANY_FIELDS = -8, /* over max_fields field lines */
	KLB_HTTP_E_BARE_CR = -9,	/* CR not followed by LF */
	KLB_HTTP_E_BARE_LF = -10,	/* LF not preceded by CR */
	KLB_HTTP_E_OBS_FOLD = -11,	/* field line starts with SP/HTAB */
	KLB_HTTP_E_WS_BEFORE_COLON = -12, /* "Name : value" */
	KLB_HTTP_E_FIELD_NAME = -13,	/* empty, non-tchar, or no colon */
	KLB_HTTP_E_FIELD_VALUE = -14,	/* CTL (other than HTAB) in value */
	KLB_HTTP_E_CL_INVALID = -15,	/* Content-Length not 1*DIGIT, or overflow */
	KLB_HTTP_E_CL_MISMATCH = -16,	/* Content-Length values differ */
	KLB_HTTP_E_CL_TE = -17,		/* both Content-Length and Transfer-Encoding */
	KLB_HTTP_E_TE_NOT_CHUNKED = -18, /* request TE not ending in one chunked */
	KLB_HTTP_E_TE_UNKNOWN = -19,	/* request TE with a coding we don't know */
	KLB_HTTP_E_TE_HTTP10 = -20,	/* Transfer-Encoding in an HTTP/1.0 message */
	KLB_HTTP_E_HOST = -21,		/* 1.1 without Host, several Host, bad Host */
	KLB_HTTP_E_STATUS_LINE = -22,	/* response status line malformed */
	KLB_HTTP_E_CHUNK_SIZE = -23,	/* chunk-size not hex or overflows */
	KLB_HTTP_E_CHUNK_EXT = -24,	/* chunk-ext bad byte or too long */
	KLB_HTTP_E_CHUNK_CRLF = -25,	/* missing CRLF after size line or data */
	KLB_HTTP_E_TRAILER = -26,	/* malformed trailer field */
	KLB_HTTP_E_TRAILER_TOO_LARGE = -27, /* trailer section over its limit */
	KLB_HTTP_E_MAX = 27
};

/* Method ids; anything else that is a valid token is KLB_HTTP_M_OTHER. */
enum {
	KLB_HTTP_M_OTHER = 0,
	KLB_HTTP_M_GET,
	KLB_HTTP_M_HEAD,
	KLB_HTTP_M_POST,
	KLB_HTTP_M_PUT,
	KLB_HTTP_M_DELETE,
	KLB_HTTP_M_CONNECT,
	KLB_HTTP_M_OPTIONS,
	KLB_HTTP_M_TRACE,
	KLB_HTTP_M_PATCH,
};

/* Request-target forms (RFC 9112 section 3.2). */
enum {
	KLB_HTTP_T_ORIGIN = 0,		/* /path?query */
	KLB_HTTP_T_ABSOLUTE,		/* http://host[:port]/path?query */
	KLB_HTTP_T_AUTHORITY,		/* host:port, CONNECT only */
	KLB_HTTP_T_ASTERISK,		/* *, OPTIONS only */
};

/* How the body that follows the head is delimited (RFC 9112 section 6.3). */
enum {
	KLB_HTTP_BODY_NONE = 0,		/* no body: next message follows */
	KLB_HTTP_BODY_LENGTH,		/* content_length bytes (> 0) */
	KLB_HTTP_BODY_CHUNKED,		/* feed a struct klb_chunk */
	KLB_HTTP_BODY_CLOSE,		/* response: until the backend closes */
	KLB_HTTP_BODY_TUNNEL,		/* 101 or 2xx to CONNECT: raw bytes both ways */
};

/* msg.flags */
#define KLB_HTTP_F_HOST			BIT(0)   /* host span is set */
#define KLB_HTTP_F_CONTENT_LENGTH	BIT(1)   /* a valid Content-Length was seen */
#define KLB_HTTP_F_TE			BIT(2)   /* Transfer-Encoding present */
#define KLB_HTTP_F_CHUNKED		BIT(3)   /* final coding is chunked */
#define KLB_HTTP_F_CONN_CLOSE		BIT(4)   /* Connection: close */
#define KLB_HTTP_F_CONN_KEEPALIVE	BIT(5)   /* Connection: keep-alive */
#define KLB_HTTP_F_CONN_UPGRADE		BIT(6)   /* Connection: upgrade */
#define KLB_HTTP_F_UPGRADE		BIT(7)   /* an Upgrade field is present */
#define KLB_HTTP_F_EXPECT_CONTINUE	BIT(8)   /* Expect: 100-continue */
#define KLB_HTTP_F_PERSISTENT		BIT(9)   /* connection may be reused after */
#define KLB_HTTP_F_INTERIM		BIT(10)  /* 1xx response: another head follows */

/* Limits, from the sysctls. A zero field means "no message is acceptable". */
struct klb_http_limits {
	u32 max_line;		/* start line, CRLF included */
	u32 max_head;		/* whole head, from its first byte to the empty line */
	u32 max_fields;		/* number of field lines */
};

/* A piece of the caller's buffer. len == 0 means absent or empty. */
struct klb_http_span {
	u32 off;
	u32 len;
};

struct klb_http_msg {
	/* Results: valid once klb_http_parse() returned KLB_HTTP_OK. */
	struct klb_http_span method;	/* request: method token */
	struct klb_http_span target;	/* request: request-target as sent */
	struct klb_http_span path;	/* request: path of the target, no query */
	struct klb_http_span host;	/* request: absolute-form host, else Host value */
	struct klb_http_span reason;	/* response: reason phrase */
	u32 head_start;			/* first byte of the start line */
	u32 head_len;			/* bytes of the head, final CRLF included */
	u32 fields;			/* number of field lines */
	u32 flags;			/* KLB_HTTP_F_* */
	u64 content_length;		/* if KLB_HTTP_F_CONTENT_LENGTH */
	u16 status;			/* response: 100..599 */
	u8 method_id;			/* KLB_HTTP_M_* (response: the request's) */
	u8 version;			/* 10 or 11 */
	u8 target_form;			/* KLB_HTTP_T_* */
	u8 body;			/* KLB_HTTP_BODY_* */

	/* Parser state: private. */
	u8 is_response;
	u8 state;
	u8 te_chunked;			/* chunked codings seen */
	u8 te_unknown;
	u8 te_last_chunked;
	u8 hosts;
	u8 err;				/* sticky error, negated */
	u32 pos;			/* first byte not yet parsed */
	u32 fields_start;		/* first field line */
	u32 scan;			/* scanned, CR-free, part of the line at pos */
};

/* Prepare @m for a request head. */
void klb_http_req_init(struct klb_http_msg *m);
/*
 * Prepare @m for the head of a response to a request whose method id was
 * @req_method (HEAD and CONNECT change the framing of the answer). After
 * a 1xx (KLB_HTTP_F_INTERIM, other than 101) call it again for the next
 * head, with the buffer starting after the interim head.
 */
void klb_http_resp_init(struct klb_http_msg *m, u8 req_method);

/*
 * Parse the head at buf[0..len). Call again with the same buffer start
 * and a larger len after KLB_HTTP_NEED_MORE. On KLB_HTTP_OK the head is
 * buf[0..head_len) and the body (or a pipelined next request) starts at
 * buf[head_len]; bytes past the head are never looked at. Any error is
 * final: answer klb_http_err_status() and close.
 */
int klb_http_parse(struct klb_http_msg *m, const u8 *buf, u32 len,
		   const struct klb_http_limits *lim);

/*
 * Does the request head @m ask to switch protocols in a way the http mode
 * relays (RFC 9110 section 7.8)? An HTTP/1.1 GET without a body, with
 * "upgrade" in its Connection field and an Upgrade field (any protocol
 * token: websocket, h2c, ...). Anything else never has its Upgrade
 * forwarded. HTTP/1.0 upgrades are ignored, as section 7.8 requires.
 */
bool klb_http_wants_upgrade(const struct klb_http_msg *m);

/*
 * A request head is read into a small buffer first, grown only when a
 * head does not fit (nginx's client_header_buffer_size, then large
 * buffers): a slow client that never finishes its head holds this much,
 * not the head limit. The parser's results are offsets, so the caller may
 * move the bytes to a larger buffer between two klb_http_parse() calls.
 */
#define KLB_HTTP_HEAD_BUF	1024

/*
 * The size to grow a head buffer of @cap bytes (0: none yet) to, for a
 * head of at most @max_head bytes: KLB_HTTP_HEAD_BUF first, then twice
 * the size, never over @max_head. 0: it may not grow (@cap holds a
 * whole head of the limit already, the head is too large).
 */
u32 klb_http_head_buf_next(u32 cap, u32 max_head);

/*
 * Find the next field line named @name (case-insensitive) in a parsed
 * head. *@cursor starts at 0 and is advanced, so repeated calls walk
 * every line of that name. @val gets the value with OWS trimmed.
 */
bool klb_http_field_find(const u8 *buf, const struct klb_http_msg *m,
			 const char *name, u32 name_len, u32 *cursor,
			 struct klb_http_span *val);

/*
 * The status the proxy answers a client with for @err. For a response
 * parse error the answer is always 502 (the backend misbehaved), so
 * callers on the backend side use 502 directly.
 */
u16 klb_http_err_status(int err);
/* Short stable name of @err for counters and logs ("cl_te", ...). */
const char *klb_http_err_name(int err);

/*
 * Chunked body decoder. Feed it the body bytes as they come; each call
 * consumes a prefix of them and says what that prefix was:
 *   KLB_CHUNK_FRAMING  sizes, extensions, CRLFs, trailers: a pass-through
 *                      relay forwards them, a de-chunking relay drops them
 *   KLB_CHUNK_DATA     chunk payload
 *   KLB_CHUNK_DONE     framing that ends the message (the last CRLF): any
 *                      bytes after *used belong to the next message
 * or an error < 0. *used is > 0 whenever len > 0; with FRAMING and
 * *used == len, all input was consumed and more is needed. State is the
 * struct alone: memory per body is constant whatever the body size.
 */
enum {
	KLB_CHUNK_FRAMING = 0,
	KLB_CHUNK_DATA = 1,
	KLB_CHUNK_DONE = 2,
};

/* A chunk-size line (size, extensions, CRLF) longer than this is refused. */
#define KLB_CHUNK_LINE_MAX	4096

struct klb_chunk {
	u64 left;		/* payload bytes left in this chunk */
	u32 line;		/* bytes of the current size line */
	u32 trailer;		/* bytes of the trailer section */
	u32 max_trailer;
	u8 state;
	u8 err;				/* sticky error, negated */
};

/* @max_trailer bounds the trailer section (use the header limit). */
void klb_chunk_init(struct klb_chunk *c, u32 max_trailer);
int klb_chunk_feed(struct klb_chunk *c, const u8 *p, u32 len, u32 *used);
/*
 * Payload bytes that may pass now without being looked at: the rest of
 * the current chunk's data (0 while framing is due). A relay that moves
 * them some other way (zero copy) says so with klb_chunk_skip(), which
 * accepts at most that many, as feeding them would.
 */
u64 klb_chunk_data_left(const struct klb_chunk *c);
void klb_chunk_skip(struct klb_chunk *c, u64 n);

#endif /* _KLB_L7_HTTP_PARSE_H */
