/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One print path for text and JSON (after iproute2's json_print): every
 * value is printed through these calls; in text mode the fmt is used, in
 * JSON mode the key. PRINT_FP prints only in text mode, PRINT_JSON only in
 * JSON mode, PRINT_ANY in both.
 */
#ifndef KLBCTL_PRINT_H
#define KLBCTL_PRINT_H

#include <stdbool.h>
#include <stdint.h>

enum output_type {
	PRINT_FP = 1,
	PRINT_JSON = 2,
	PRINT_ANY = 3,
};

extern bool json_pretty;	/* -p/--pretty: indented JSON */
void new_json_obj(bool json);	/* start output; json selects the mode */
/* start output of one top-level object, no array around it (monitor) */
void new_json_obj_plain(bool json);
void delete_json_obj(void);	/* finish output (closes the JSON document) */
bool is_json_context(void);

void open_json_object(const char *key);	/* key NULL inside arrays */
void close_json_object(void);
void open_json_array(enum output_type t, const char *key);
void close_json_array(enum output_type t, const char *delim);

void print_string(enum output_type t, const char *key, const char *fmt,
		  const char *value);
void print_u64(enum output_type t, const char *key, const char *fmt,
	       uint64_t value);
void print_uint(enum output_type t, const char *key, const char *fmt,
		unsigned int value);
void print_bool(enum output_type t, const char *key, const char *fmt,
		bool value);
void print_null(enum output_type t, const char *key, const char *fmt,
		const char *value);
/* Text mode only: a newline (and nothing in JSON mode). */
void print_nl(void);

#endif
