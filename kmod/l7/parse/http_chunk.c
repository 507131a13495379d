// SPDX-License-Identifier: GPL-2.0
/*
 * HTTP/1.1 chunked body decoder (RFC 9112 7.1); see http_parse.h for the
 * API. A byte-at-a-time state machine over the framing, so a body that
 * arrives in any segmentation decodes the same, in constant memory: chunk
 * data is only counted, never buffered.
 *
 * Everything is strict, as in the head parser: the body is relayed as it
 * came, so if klb and the backend could read the framing differently a
 * client could smuggle a request inside another's body. Chunk extensions
 * are therefore checked against their grammar (7.1.1), not skipped:
 *
 *   chunk-ext = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
 *   chunk-ext-name = token
 *   chunk-ext-val  = token / quoted-string
 *
 * so an unterminated quoted string (5;a="x CRLF) or an extension without
 * a name (2; CRLF) is an error, where a lenient parser and a strict one
 * would disagree on where the size line ends.
 */
#include "http_parse.h"

#define U64_MAX_ ((u64)~0ULL)

/* Chunked decoder states. */
enum {
	CS_SIZE0,	/* first hex digit of a chunk-size */
	CS_SIZE,	/* more hex digits, BWS, ';' or CR */
	CS_BWS,		/* whitespace after the size: only ';' may follow */
	CS_EXT_NAME0,	/* after ';': BWS, then a chunk-ext-name */
	CS_EXT_NAME,	/* in the name */
	CS_EXT_NAME_WS,	/* BWS after the name: '=', ';' or CR */
	CS_EXT_VAL0,	/* after '=': BWS, then a token or a quoted-string */
	CS_EXT_TOKEN,	/* in a token value */
	CS_EXT_QUOTED,	/* in a quoted-string */
	CS_EXT_QPAIR,	/* after a backslash in it */
	CS_EXT_VAL_WS,	/* after the value: BWS, then ';' or CR */
	CS_SIZE_LF,	/* LF ending the size line */
	CS_DATA,
	CS_DATA_CR,	/* CRLF after chunk data */
	CS_DATA_LF,
	CS_TR_START,	/* start of a trailer line, or of the final CRLF */
	CS_TR_NAME,
	CS_TR_VALUE,
	CS_TR_LF,
	CS_END_LF,	/* LF of the final CRLF */
	CS_DONE,
	CS_ERR,
};

void klb_chunk_init(struct klb_chunk *c, u32 max_trailer)
{
	*c = (struct klb_chunk){ .max_trailer = max_trailer };
}

static int hexval(u8 ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch = klb_l7_lower(ch);
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

/* RFC 9110 qdtext, and the bytes a quoted-pair may escape. */
static bool qdtext(u8 ch)
{
	return ch == '\t' || ch == ' ' || ch == 0x21 ||
	       (ch >= 0x23 && ch <= 0x5b) || (ch >= 0x5d && ch <= 0x7e) ||
	       ch >= 0x80;
}

static bool qpair_char(u8 ch)
{
	return ch == '\t' || (ch >= 0x20 && ch != 0x7f);
}

/*
 * After an extension's name (@value_may_follow) or value: BWS (state
 * @ws_state), '=' for a value, ';' for the next extension, or the CR
 * that ends the size line.
 */
static int chunk_ext_next(struct klb_chunk *c, u8 ch, u8 ws_state,
			  bool value_may_follow)
{
	if (ch == '=' && value_may_follow)
		c->state = CS_EXT_VAL0;
	else if (ch == ';')
		c->state = CS_EXT_NAME0;
	else if (ch == '\r')
		c->state = CS_SIZE_LF;
	else if (klb_l7_ws(ch))
		c->state = ws_state;
	else
		return KLB_HTTP_E_CHUNK_EXT;
	return 0;
}

/*
 * One byte of a chunk-ext (the CS_EXT_* states). A bare LF is a framing
 * error (CRLF), as everywhere in the size line; any other byte out of
 * the grammar is a bad extension.
 */
static int chunk_ext_byte(struct klb_chunk *c, u8 ch)
{
	bool ws = klb_l7_ws(ch), tchar = klb_l7_tchar(ch);

	if (ch == '\n')
		return KLB_HTTP_E_CHUNK_CRLF;
	switch (c->state) {
	case CS_EXT_NAME0:
		if (tchar)
			c->state = CS_EXT_NAME;
		else if (!ws)
			return KLB_HTTP_E_CHUNK_EXT;
		return 0;
	case CS_EXT_NAME:
		if (tchar)
			return 0;
		return chunk_ext_next(c, ch, CS_EXT_NAME_WS, true);
	case CS_EXT_NAME_WS:
		return chunk_ext_next(c, ch, CS_EXT_NAME_WS, true);
	case CS_EXT_VAL0:
		if (ch == '"')
			c->state = CS_EXT_QUOTED;
		else if (tchar)
			c->state = CS_EXT_TOKEN;
		else if (!ws)
			return KLB_HTTP_E_CHUNK_EXT;
		return 0;
	case CS_EXT_QUOTED:
		if (ch == '"')
			c->state = CS_EXT_VAL_WS;
		else if (ch == '\\')
			c->state = CS_EXT_QPAIR;
		else if (!qdtext(ch))
			return KLB_HTTP_E_CHUNK_EXT;
		return 0;
	case CS_EXT_QPAIR:
		if (!qpair_char(ch))
			return KLB_HTTP_E_CHUNK_EXT;
		c->state = CS_EXT_QUOTED;
		return 0;
	case CS_EXT_TOKEN:
		if (tchar)
			return 0;
		return chunk_ext_next(c, ch, CS_EXT_VAL_WS, false);
	case CS_EXT_VAL_WS:
		return chunk_ext_next(c, ch, CS_EXT_VAL_WS, false);
	}
	return KLB_HTTP_E_CHUNK_EXT;	/* not reached */
}

static int chunk_fail(struct klb_chunk *c, int err)
{
	c->state = CS_ERR;
	c->err = (u8)-err;
	return err;
}

/* One framing byte; returns 0 or an error. */
static int chunk_byte(struct klb_chunk *c, u8 ch)
{
	int h;

	if (c->state <= CS_SIZE_LF && ++c->line > KLB_CHUNK_LINE_MAX)
		return KLB_HTTP_E_CHUNK_EXT;
	if (c->state >= CS_TR_START && ++c->trailer > c->max_trailer)
		return KLB_HTTP_E_TRAILER_TOO_LARGE;
	switch (c->state) {
	case CS_SIZE0:
	case CS_SIZE:
		h = hexval(ch);
		if (h >= 0) {
			if (c->left > (U64_MAX_ >> 4))
				return KLB_HTTP_E_CHUNK_SIZE;
			c->left = c->left << 4 | h;
			c->state = CS_SIZE;
			return 0;
		}
		if (c->state == CS_SIZE0)
			return KLB_HTTP_E_CHUNK_SIZE;
		if (ch == '\r')
			c->state = CS_SIZE_LF;
		else if (ch == ';')
			c->state = CS_EXT_NAME0;
		else if (klb_l7_ws(ch))
			c->state = CS_BWS;
		else
			return KLB_HTTP_E_CHUNK_SIZE;
		return 0;
	case CS_BWS:
		if (ch == ';')
			c->state = CS_EXT_NAME0;
		else if (!klb_l7_ws(ch))
			return KLB_HTTP_E_CHUNK_EXT;
		return 0;
	case CS_EXT_NAME0:
	case CS_EXT_NAME:
	case CS_EXT_NAME_WS:
	case CS_EXT_VAL0:
	case CS_EXT_TOKEN:
	case CS_EXT_QUOTED:
	case CS_EXT_QPAIR:
	case CS_EXT_VAL_WS:
		return chunk_ext_byte(c, ch);
	case CS_SIZE_LF:
		if (ch != '\n')
			return KLB_HTTP_E_CHUNK_CRLF;
		c->line = 0;
		c->state = c->left ? CS_DATA : CS_TR_START;
		return 0;
	case CS_DATA_CR:
		if (ch != '\r')
			return KLB_HTTP_E_CHUNK_CRLF;
		c->state = CS_DATA_LF;
		return 0;
	case CS_DATA_LF:
		if (ch != '\n')
			return KLB_HTTP_E_CHUNK_CRLF;
		c->state = CS_SIZE0;
		return 0;
	case CS_TR_START:
		if (ch == '\r')
			c->state = CS_END_LF;
		else if (klb_l7_tchar(ch))
			c->state = CS_TR_NAME;
		else
			return KLB_HTTP_E_TRAILER;	/* obs-fold, bare LF, ... */
		return 0;
	case CS_TR_NAME:
		if (ch == ':')
			c->state = CS_TR_VALUE;
		else if (!klb_l7_tchar(ch))
			return KLB_HTTP_E_TRAILER;
		return 0;
	case CS_TR_VALUE:
		if (ch == '\r')
			c->state = CS_TR_LF;
		else if (!klb_l7_value_char(ch))
			return KLB_HTTP_E_TRAILER;
		return 0;
	case CS_TR_LF:
		if (ch != '\n')
			return KLB_HTTP_E_TRAILER;
		c->state = CS_TR_START;
		return 0;
	case CS_END_LF:
		if (ch != '\n')
			return KLB_HTTP_E_CHUNK_CRLF;
		c->state = CS_DONE;
		return 0;
	}
	return KLB_HTTP_E_CHUNK_SIZE;	/* not reached */
}

u64 klb_chunk_data_left(const struct klb_chunk *c)
{
	return c->state == CS_DATA ? c->left : 0;
}

void klb_chunk_skip(struct klb_chunk *c, u64 n)
{
	if (c->state != CS_DATA)
		return;
	c->left -= n < c->left ? n : c->left;
	if (!c->left)
		c->state = CS_DATA_CR;
}

int klb_chunk_feed(struct klb_chunk *c, const u8 *p, u32 len, u32 *used)
{
	u32 i;
	int err;

	*used = 0;
	if (c->state == CS_ERR)
		return -(int)c->err;
	if (c->state == CS_DONE)
		return KLB_CHUNK_DONE;
	if (c->state == CS_DATA) {
		if (!len)
			return KLB_CHUNK_FRAMING;
		*used = len < c->left ? len : (u32)c->left;
		c->left -= *used;
		if (!c->left)
			c->state = CS_DATA_CR;
		return KLB_CHUNK_DATA;
	}
	for (i = 0; i < len; i++) {
		err = chunk_byte(c, p[i]);
		if (err)
			return chunk_fail(c, err);
		if (c->state == CS_DATA || c->state == CS_DONE) {
			*used = i + 1;
			return c->state == CS_DONE ? KLB_CHUNK_DONE :
						     KLB_CHUNK_FRAMING;
		}
	}
	*used = len;
	return KLB_CHUNK_FRAMING;
}
