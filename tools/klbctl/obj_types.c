// SPDX-License-Identifier: GPL-2.0
/*
 * The common kinds of values of obj.h: words, numbers, durations, on/off,
 * strings and ADDR:PORT. Each says how it is parsed, sent, read back and
 * written; the objects' own kinds (a check, source lists, snat, a header,
 * health) live with their objects and use the helpers at the end.
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "klbctl.h"
#include "nl.h"
#include "obj.h"

/* ------------------------------------------------------------- numbers */

static unsigned int *num(void *val)
{
	return val;
}

static unsigned int num_of(const void *val)
{
	return *(const unsigned int *)val;
}

static int num_parse(const struct field *f, const char *obj, int argc,
		     char **argv, void *val)
{
	(void)obj;
	(void)argc;
	return f->num(argv[0], num(val));
}

static bool num_is_default(const struct field *f, const void *val)
{
	return num_of(val) == f->def;
}

static void u8_put(struct req *r, const struct field *f, const void *val)
{
	req_put_u8(r, f->attr, (unsigned char)num_of(val));
}

static int u8_get(const struct field *f, const struct nlattr *const *tb,
		  void *val)
{
	if (!tb[f->attr])
		return 0;
	*num(val) = attr_u8(tb[f->attr], 0);
	return 1;
}

static void u32_put(struct req *r, const struct field *f, const void *val)
{
	req_put_u32(r, f->attr, num_of(val));
}

static int u32_get(const struct field *f, const struct nlattr *const *tb,
		   void *val)
{
	if (!tb[f->attr])
		return 0;
	*num(val) = attr_u32(tb[f->attr], 0);
	return 1;
}

static void uint_print(enum output_type t, const struct field *f,
		       const void *val, enum wmode m)
{
	print_keyword(t, f, m);
	print_uint(t, f->json, " %u", num_of(val));
}

const struct vtype vt_u8 = {
	.size = sizeof(unsigned int),
	.parse = num_parse,
	.put = u8_put,
	.get = u8_get,
	.is_default = num_is_default,
	.print = uint_print,
};

const struct vtype vt_u32 = {
	.size = sizeof(unsigned int),
	.parse = num_parse,
	.put = u32_put,
	.get = u32_get,
	.is_default = num_is_default,
	.print = uint_print,
};

/* Milliseconds: the JSON key says so ("slowstart_ms"), the text "500ms". */
static void ms_print(enum output_type t, const struct field *f,
		     const void *val, enum wmode m)
{
	print_keyword(t, f, m);
	print_uint(t, f->json, " %ums", num_of(val));
}

const struct vtype vt_ms = {
	.size = sizeof(unsigned int),
	.parse = num_parse,
	.put = u32_put,
	.get = u32_get,
	.is_default = num_is_default,
	.print = ms_print,
};

/* ---------------------------------------------------------- word lists */

static int word_parse(const struct field *f, const char *obj, int argc,
		      char **argv, void *val)
{
	(void)obj;
	(void)argc;
	return parse_word(f->what, argv[0], f->words, *f->nwords, num(val));
}

static void word_print(enum output_type t, const struct field *f,
		       const void *val, enum wmode m)
{
	char buf[32];

	print_keyword(t, f, m);
	print_string(t, f->json, " %s",
		     word_name(f->words, *f->nwords, num_of(val), buf, sizeof(buf)));
}

const struct vtype vt_word = {
	.size = sizeof(unsigned int),
	.parse = word_parse,
	.put = u8_put,
	.get = u8_get,
	.is_default = num_is_default,
	.print = word_print,
};

static const struct word on_off_words[] = {
	{ "off", 0 },
	{ "on", 1 },
};

static int onoff_parse(const struct field *f, const char *obj, int argc,
		       char **argv, void *val)
{
	(void)obj;
	(void)argc;
	return parse_word(f->what, argv[0], on_off_words,
			  ARRAY_SIZE(on_off_words), num(val));
}

/* "on" or "off" in text, true or false in JSON */
static void onoff_print(enum output_type t, const struct field *f,
			const void *val, enum wmode m)
{
	print_keyword(t, f, m);
	print_string(t & PRINT_FP, NULL, " %s", num_of(val) ? "on" : "off");
	print_bool(t & PRINT_JSON, f->json, NULL, num_of(val));
}

const struct vtype vt_onoff = {
	.size = sizeof(unsigned int),
	.parse = onoff_parse,
	.put = u8_put,
	.get = u8_get,
	.is_default = num_is_default,
	.print = onoff_print,
};

/* A counter shown next to a word (a backend's active connections). */
static void u64_print(enum output_type t, const struct field *f,
		      const void *val, enum wmode m)
{
	print_keyword(t, f, m);
	print_u64(t, f->json, " %llu", *(const uint64_t *)val);
}

const struct vtype vt_u64 = {
	.size = sizeof(uint64_t),
	.print = u64_print,
};

/* ------------------------------------------------------------- strings */

static int str_parse(const struct field *f, const char *obj, int argc,
		     char **argv, void *val)
{
	(void)f;
	(void)obj;
	(void)argc;
	*(char **)val = argv[0];
	return EXIT_OK;
}

static void str_put(struct req *r, const struct field *f, const void *val)
{
	req_put_strz(r, f->attr, *(char *const *)val);
}

/* A later message of the same object may send it again: the last wins. */
static int str_get(const struct field *f, const struct nlattr *const *tb,
		   void *val)
{
	char **s = val;

	if (!tb[f->attr])
		return 0;
	free(*s);
	*s = attr_strdup(tb[f->attr]);
	return *s ? 1 : -ENOMEM;
}

static void str_print(enum output_type t, const struct field *f,
		      const void *val, enum wmode m)
{
	print_keyword(t, f, m);
	print_str_value(t, f, *(char *const *)val);
}

static void str_free(void *val)
{
	free(*(char **)val);
	*(char **)val = NULL;
}

static size_t str_wire(const void *val)
{
	return strlen(*(char *const *)val) + 8;	/* header, NUL, padding */
}

const struct vtype vt_str = {
	.size = sizeof(char *),
	.parse = str_parse,
	.put = str_put,
	.get = str_get,
	.print = str_print,
	.free = str_free,
	.wire = str_wire,
};

/* ----------------------------------------------------------- ADDR:PORT */

static int addr_val_parse(const struct field *f, const char *obj, int argc,
			  char **argv, void *val)
{
	(void)f;
	(void)argc;
	return addr_parse(obj, argv[0], val);
}

/* The address as attr (IPv4) or attr + 1 (IPv6), the port as attr + 2. */
static void addr_val_put(struct req *r, const struct field *f, const void *val)
{
	addr_put(r, f->attr, f->attr + 1, f->attr + 2, val);
}

static int addr_val_get(const struct field *f, const struct nlattr *const *tb,
			void *val)
{
	return addr_get(tb[f->attr], tb[f->attr + 1], tb[f->attr + 2], val);
}

/* "1.2.3.4:80" in text; "key": "1.2.3.4", "port": 80 in JSON */
static void addr_val_print(enum output_type t, const struct field *f,
			   const void *val, enum wmode m)
{
	const struct klb_addr *a = val;
	char buf[ADDRPORT_STRLEN];

	print_keyword(t, f, m);
	print_string(t & PRINT_FP, NULL, " %s", addrport_str(a, buf, sizeof(buf)));
	print_string(t & PRINT_JSON, f->json, NULL, addr_str(a, buf, sizeof(buf)));
	print_uint(t & PRINT_JSON, "port", NULL, a->port);
}

static size_t addr_val_wire(const void *val)
{
	(void)val;
	return 28;	/* an IPv6 address and a port */
}

const struct vtype vt_addr = {
	.size = sizeof(struct klb_addr),
	.parse = addr_val_parse,
	.put = addr_val_put,
	.get = addr_val_get,
	.print = addr_val_print,
	.wire = addr_val_wire,
};

/* ------------------------------------------------------------- helpers */

void print_keyword(enum output_type t, const struct field *f, enum wmode m)
{
	if (m != W_BARE)
		print_string(t & PRINT_FP, NULL, " %s", f->word);
}

void print_str_value(enum output_type t, const struct field *f,
		     const char *s)
{
	char *q = NULL;

	if (f->flags & F_QUOTE)
		q = word_quote(s);
	print_string(t & PRINT_FP, NULL, " %s", q ? q : s);
	print_string(t & PRINT_JSON, f->json, NULL, s);
	free(q);
}

void print_list_start(enum output_type t, const struct field *f)
{
	open_json_array(t & PRINT_JSON, f->json);
	print_string(t & PRINT_FP, NULL, " %s ", f->word);
}

void print_list_item(enum output_type t, unsigned int i, const char *s)
{
	print_string(t & PRINT_FP, NULL, i ? "," : "", NULL);
	print_string(t, NULL, "%s", s);
}

void print_list_end(enum output_type t)
{
	close_json_array(t & PRINT_JSON, NULL);
}
