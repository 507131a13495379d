/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pools, backends, services and rules described as data: each object is
 * one table of fields (its words), and add, set, del, restore, show (text
 * and JSON) and save all walk that table. A new option is one row, so what
 * a command takes, what it sends, what show prints and what save writes
 * cannot drift apart.
 *
 * A field is a keyword and its value: how the value is parsed, put in a
 * request, read from a reply and written (its type, struct vtype), its JSON
 * key, and the rules for leaving it out (flags, def, needs). The fields of
 * an object are its table's rows, in the order the words are written and
 * the attributes are sent; keys (positional words) come first.
 *
 * A new option: a row in the object's table (a number with a range of its
 * own also gets a `num` parser for its message); the usage text, the man
 * page and the bash completion are still written by hand.
 */
#ifndef KLBCTL_OBJ_H
#define KLBCTL_OBJ_H

#include <stdbool.h>
#include <stddef.h>

#include "print.h"

struct field;
struct nlattr;
struct req;
struct word;

/* How a value is written. */
enum wmode {
	W_SHOW,		/* show: " WORD VALUE" in text, "key": value in JSON */
	W_SAVE,		/* save: " WORD VALUE", as restore reads it back */
	W_BARE,		/* a key or a show title: " VALUE" (and "key": value) */
};

/*
 * A kind of value. Parsers print their error and return an exit status;
 * get returns 1 (read), 0 (not in the reply) or -errno.
 */
struct vtype {
	size_t size;		/* bytes of the value in the object */
	/* argv[0..argc): its words (one; the rest of the line for F_REST) */
	int (*parse)(const struct field *f, const char *obj, int argc,
		     char **argv, void *val);
	void (*put)(struct req *r, const struct field *f, const void *val);
	int (*get)(const struct field *f, const struct nlattr *const *tb,
		   void *val);
	/* The value F_OMIT_* leaves out; NULL: none */
	bool (*is_default)(const struct field *f, const void *val);
	/* t: text, JSON or both, as the table's rules decide */
	void (*print)(enum output_type t, const struct field *f,
		      const void *val, enum wmode m);
	void (*free)(void *val);	/* a read-back value; NULL: nothing */
	size_t (*wire)(const void *val);	/* request bytes at most; NULL: 8 */
};

/* Numbers are unsigned int in the object, whatever their width on the wire. */
extern const struct vtype vt_word;	/* u8 named by words[] (sched, mode) */
extern const struct vtype vt_u8;
extern const struct vtype vt_u32;
extern const struct vtype vt_ms;	/* u32 milliseconds: in "2s", out "2000ms" */
extern const struct vtype vt_onoff;	/* u8 "on"/"off", a JSON bool */
extern const struct vtype vt_u64;	/* uint64_t, shown only */
extern const struct vtype vt_str;	/* char *: argv's, or malloc'ed from a reply */
extern const struct vtype vt_addr;	/* struct klb_addr: ADDR:PORT, attr 4, 6, port */

/* Field flags. */
enum {
	F_KEY		= 1 << 0,	/* positional, before the keywords */
	F_PARENT	= 1 << 1,	/* key naming the parent, outside the nest */
	F_ADD_ONLY	= 1 << 2,	/* add takes it, set does not */
	F_REQUIRED	= 1 << 3,	/* add fails without it */
	F_ADD_DEF	= 1 << 4,	/* add sends def when it is not given */
	F_REST		= 1 << 5,	/* its value is the rest of the line */
	F_SHOW_ONLY	= 1 << 6,	/* read back and shown; not a word */
	F_TITLE		= 1 << 7,	/* show writes it in the title, bare */
	F_BELOW		= 1 << 8,	/* show writes it below the line */
	F_ALWAYS	= 1 << 9,	/* written even when not given */
	F_OMIT_SHOW	= 1 << 10,	/* show text leaves out the default */
	F_OMIT_SAVE	= 1 << 11,	/* save leaves out the default */
	F_OMIT		= F_OMIT_SHOW | F_OMIT_SAVE,
	F_JSON_ALL	= 1 << 12,	/* JSON has it when the text does not */
	F_JSON_NULL	= 1 << 13,	/* JSON says null when the text does not */
	F_QUOTE		= 1 << 14,	/* text quotes it as restore reads it */
};

struct field {
	const char *word;	/* keyword: command line, save, show text */
	const char *json;	/* JSON key */
	const struct vtype *type;
	size_t off;		/* offsetof the value in the object */
	unsigned short attr;	/* attribute in the object's nest; 0: none */
	unsigned int flags;	/* F_* */
	unsigned int def;	/* numbers: the default value */
	/* written only where field `needs` is (0: always; field 0 is a key) */
	unsigned int needs;
	/* keys: "missing %s" (e.g. "pool NAME"); F_REQUIRED: "missing \"word %s\"" */
	const char *meta;
	/* vt_word, vt_onoff: what a bad word names in the error ("scheduler") */
	const char *what;
	const struct word *words;	/* vt_word, and how many (n_sched_words) */
	const size_t *nwords;
	/* numbers: the value, or an error printed and an exit status */
	int (*num)(const char *arg, unsigned int *v);
};

struct obj_desc {
	const char *name;	/* the command word: messages, save lines */
	const struct field *f;
	unsigned int n;		/* at most 32: a bit of `given` each */
	size_t size;		/* of the object */
	size_t given_off;	/* of its unsigned int `given`: bit i, field i */
	/* requests: the nest, and a nest inside after the parent (backend) */
	unsigned short top, inner;
	unsigned char cmd_new, cmd_set, cmd_del;
	bool once;		/* a word given twice is an error */
	const char *nothing;	/* set without a change: the message */
	/* after the words: what no single word can check; NULL: nothing */
	int (*check)(void *obj);
	void (*show_title)(const void *obj);	/* show: the line's start */
};

enum obj_cmd { OBJ_ADD, OBJ_SET, OBJ_DEL };

bool obj_given(const struct obj_desc *d, const void *obj, unsigned int i);

/* obj_parse.c: the words of a command or a restore line into obj. */
int obj_parse(const struct obj_desc *d, int argc, char **argv,
	      enum obj_cmd cmd, void *obj);

/* obj_wire.c: requests and replies. */
void obj_put(const struct obj_desc *d, struct req *r, const void *obj);
/* tb: the object's nest, parsed; fields present become given */
int obj_get(const struct obj_desc *d, const struct nlattr *const *tb,
	    void *obj);
/* Copy the given fields of @from over @to (restore's set lines). */
void obj_merge(const struct obj_desc *d, void *to, const void *from);
/* Bytes obj takes in a request, at most. */
size_t obj_wire(const struct obj_desc *d, const void *obj);
/* The memory of an object read back (parsed ones point into argv). */
void obj_free(const struct obj_desc *d, void *obj);
/* add, set, del: parse argv into obj (the caller's), send it. */
int obj_command(const struct obj_desc *d, enum obj_cmd cmd, int argc,
		char **argv, void *obj);

/* obj_print.c: the line of show (text or JSON) and of save. */
void obj_show(const struct obj_desc *d, const void *obj);
/* "NAME add [PARENT] KEYS WORDS\n"; parent: the pool of a backend... */
void obj_save(const struct obj_desc *d, const void *obj, const char *parent);
/* Field i alone, as a show title writes it (W_BARE) */
void obj_print_field(const struct obj_desc *d, const void *obj,
		     unsigned int i, enum wmode m);

/* obj_types.c: pieces for the types defined with their objects. */
void print_keyword(enum output_type t, const struct field *f, enum wmode m);
/* A string value: quoted in text for F_QUOTE, as it is in JSON. */
void print_str_value(enum output_type t, const struct field *f,
		     const char *s);
/* " WORD A,B,C" in text, "key": ["A", "B", "C"] in JSON. */
void print_list_start(enum output_type t, const struct field *f);
void print_list_item(enum output_type t, unsigned int i, const char *s);
void print_list_end(enum output_type t);

#endif
