// SPDX-License-Identifier: GPL-2.0
/*
 * The one print path for text and JSON (see print.h).
 *
 * Text mode: a call whose type includes PRINT_FP prints fmt with the value
 * (printf style: "%s" for strings, "%u" for uint, "%llu" for u64, "%s" for
 * bool and null); keys are ignored.
 * JSON mode: a call whose type includes PRINT_JSON writes "key":value; fmt is
 * ignored. The document is a top-level array opened by new_json_obj(true)
 * and closed by delete_json_obj(); or, after new_json_obj_plain(true), the
 * one object that follows, on a line of its own (a stream of events). Keys given inside arrays are ignored so
 * the output stays valid whatever the caller does.
 */
#include <inttypes.h>
#include <stdio.h>

#include "print.h"

#define MAX_DEPTH 32

static bool json;
bool json_pretty;	/* -p: one member a line, indented by 4 */
static struct {
	bool array;	/* keys are dropped inside arrays */
	bool first;	/* no comma before the first member */
} stack[MAX_DEPTH];
static int depth;

bool is_json_context(void)
{
	return json;
}

static void json_string(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	putchar('"');
	for (; *p; p++) {
		switch (*p) {
		case '"':
			fputs("\\\"", stdout);
			break;
		case '\\':
			fputs("\\\\", stdout);
			break;
		case '\n':
			fputs("\\n", stdout);
			break;
		case '\t':
			fputs("\\t", stdout);
			break;
		case '\r':
			fputs("\\r", stdout);
			break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				printf("\\u%04x", *p);
			else
				putchar(*p);
		}
	}
	putchar('"');
}

static void json_indent(int level)
{
	printf("\n%*s", level * 4, "");
}

/* Comma and "key": before a new member of the current object or array. */
static void json_member(const char *key)
{
	if (depth > 0) {
		if (!stack[depth - 1].first)
			putchar(',');
		stack[depth - 1].first = false;
		if (json_pretty)
			json_indent(depth);
		if (!stack[depth - 1].array) {
			json_string(key ? key : "");
			fputs(json_pretty ? ": " : ":", stdout);
		}
	}
}

static void json_push(bool array)
{
	putchar(array ? '[' : '{');
	if (depth < MAX_DEPTH) {
		stack[depth].array = array;
		stack[depth].first = true;
	}
	depth++;
}

static void json_pop(void)
{
	if (depth <= 0)
		return;
	depth--;
	if (json_pretty && depth < MAX_DEPTH && !stack[depth].first)
		json_indent(depth);
	putchar(depth < MAX_DEPTH && stack[depth].array ? ']' : '}');
}

void new_json_obj(bool j)
{
	json = j;
	depth = 0;
	if (json)
		json_push(true);
}

void new_json_obj_plain(bool j)
{
	json = j;
	depth = 0;
}

void delete_json_obj(void)
{
	if (json) {
		while (depth > 0)
			json_pop();
		putchar('\n');
	}
	fflush(stdout);
}

void open_json_object(const char *key)
{
	if (!json)
		return;
	json_member(key);
	json_push(false);
}

void close_json_object(void)
{
	if (json)
		json_pop();
}

void open_json_array(enum output_type t, const char *key)
{
	if (json) {
		if (t & PRINT_JSON) {
			json_member(key);
			json_push(true);
		}
	} else if ((t & PRINT_FP) && key) {
		fputs(key, stdout);
	}
}

void close_json_array(enum output_type t, const char *delim)
{
	if (json) {
		if (t & PRINT_JSON)
			json_pop();
	} else if ((t & PRINT_FP) && delim) {
		fputs(delim, stdout);
	}
}

/* The callers' fmt strings are literals in klbctl; not checkable here. */
#pragma GCC diagnostic ignored "-Wformat-nonliteral"

void print_string(enum output_type t, const char *key, const char *fmt,
		  const char *value)
{
	if (json) {
		if (t & PRINT_JSON) {
			json_member(key);
			json_string(value ? value : "");
		}
	} else if ((t & PRINT_FP) && fmt) {
		printf(fmt, value ? value : "");
	}
}

void print_u64(enum output_type t, const char *key, const char *fmt,
	       uint64_t value)
{
	if (json) {
		if (t & PRINT_JSON) {
			json_member(key);
			printf("%" PRIu64, value);
		}
	} else if ((t & PRINT_FP) && fmt) {
		/* Works with "%llu", "%lu" and PRIu64 alike on LP64. */
		printf(fmt, (unsigned long long)value);
	}
}

void print_uint(enum output_type t, const char *key, const char *fmt,
		unsigned int value)
{
	if (json) {
		if (t & PRINT_JSON) {
			json_member(key);
			printf("%u", value);
		}
	} else if ((t & PRINT_FP) && fmt) {
		printf(fmt, value);
	}
}

void print_bool(enum output_type t, const char *key, const char *fmt,
		bool value)
{
	if (json) {
		if (t & PRINT_JSON) {
			json_member(key);
			fputs(value ? "true" : "false", stdout);
		}
	} else if ((t & PRINT_FP) && fmt) {
		printf(fmt, value ? "true" : "false");
	}
}

void print_null(enum output_type t, const char *key, const char *fmt,
		const char *value)
{
	if (json) {
		if (t & PRINT_JSON) {
			json_member(key);
			fputs("null", stdout);
		}
	} else if ((t & PRINT_FP) && fmt) {
		printf(fmt, value ? value : "");
	}
}

void print_nl(void)
{
	if (!json)
		putchar('\n');
}
