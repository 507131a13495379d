/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The only header the pure L7 parsers in kmod/l7/ include besides their
 * own: the types of kmod/pure.h (kernel or userspace) and the ASCII
 * helpers they share. No allocation, no locking, no library calls:
 * everything here works on caller memory.
 */
#ifndef _KLB_L7_PURE_H
#define _KLB_L7_PURE_H

#include "pure.h"

/* ASCII helpers shared by the parsers; tiny, so static inline. */
static inline u8 klb_l7_lower(u8 c)
{
	return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
}

/* RFC 9110 tchar: the bytes a token (method, field name) may hold. */
static inline bool klb_l7_tchar(u8 c)
{
	if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z'))
		return true;
	switch (c) {
	case '!': case '#': case '$': case '%': case '&': case '\'':
	case '*': case '+': case '-': case '.': case '^': case '_':
	case '`': case '|': case '~':
		return true;
	}
	return false;
}

/* RFC 9110 whitespace inside a line: SP and HTAB. */
static inline bool klb_l7_ws(u8 c)
{
	return c == ' ' || c == '\t';
}

/* field-vchar, SP and HTAB: anything but CTLs and DEL. */
static inline bool klb_l7_value_char(u8 c)
{
	return c == '\t' || (c >= 0x20 && c != 0x7f);
}

/* Case-insensitive equality of two byte strings of known lengths. */
static inline bool klb_l7_ieq(const u8 *a, u32 alen, const u8 *b, u32 blen)
{
	u32 i;

	if (alen != blen)
		return false;
	for (i = 0; i < alen; i++)
		if (klb_l7_lower(a[i]) != klb_l7_lower(b[i]))
			return false;
	return true;
}

#endif /* _KLB_L7_PURE_H */
