/* SPDX-License-Identifier: GPL-2.0 */
/* Shared declarations of klbctl's object handlers. */
#ifndef KLBCTL_H
#define KLBCTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit statuses: the contract with scripts. */
#define EXIT_OK		0
#define EXIT_USAGE	1	/* bad syntax or arguments */
#define EXIT_KERNEL	2	/* the kernel (or the system) refused */

/* KLBCTL_VERSION: the file VERSION at the top (Makefile) */

extern bool opt_json;	/* -j */
extern int opt_stats;	/* -s, repeatable */

/* Each OBJECT handler gets argv after the object word; returns an exit status. */
int do_pool(int argc, char **argv);	/* pool.c */
int do_backend(int argc, char **argv);	/* backend.c */
int do_service(int argc, char **argv);	/* service.c */
int do_rule(int argc, char **argv);	/* rule.c */
int do_hostmap(int argc, char **argv);	/* hostmap.c */
int do_conn(int argc, char **argv);	/* conn.c */
int do_save(int argc, char **argv);	/* save.c */
int do_restore(int argc, char **argv);	/* config.c */
int do_flush(int argc, char **argv);	/* config.c */
int do_tune(int argc, char **argv);	/* tune.c */
int do_stats(int argc, char **argv);	/* metrics.c */
int do_monitor(int argc, char **argv);	/* monitor.c */
int do_seed(int argc, char **argv);	/* seed.c */

/* Per-object usage text, printed by "klbctl OBJECT help" and "klbctl help". */
void pool_usage(FILE *f);
void backend_usage(FILE *f);
void service_usage(FILE *f);
void rule_usage(FILE *f);
void hostmap_usage(FILE *f);
void conn_usage(FILE *f);
void config_usage(FILE *f);
void stats_usage(FILE *f);
void monitor_usage(FILE *f);
void seed_usage(FILE *f);
/*
 * seed.c: 32 hex digits into KLB_HASH_SEED_LEN bytes (a usage error
 * otherwise); the namespace's seed as hex into @hex (-errno on failure).
 */
int seed_parse(const char *s, uint8_t *seed);
int seed_read(char *hex, size_t len);

/*
 * Errors (utils.c). Every message is one line on stderr starting with
 * "Error: ". While restore parses a file, error_location() is set so the
 * same argument parsers report "Error: FILE:LINE: ..." instead.
 */
void error_location(const char *file, unsigned int line);
bool error_location_set(void);
int errorf(int status, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* A usage error (EXIT_USAGE) with a hint to "klbctl OBJ help". */
int usage_errorf(const char *obj, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Command words: a word selects the entry it equals, or the only entry it is
 * a prefix of ("del" for "delete"). Entries sharing a handler do not make a
 * prefix ambiguous.
 */
struct cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
};
#define MATCH_UNKNOWN	(-1)
#define MATCH_AMBIGUOUS	(-2)
int match_cmd(const char *word, const struct cmd *cmds, size_t n);
/* Run the matching handler, or report "Command "x" is unknown ...". */
int dispatch(const char *obj, const struct cmd *cmds, size_t n,
	     int argc, char **argv);
bool is_help(const char *word);

/* Decimal only, no sign, no spaces; false if not a number or > max. */
bool parse_u64_max(const char *s, uint64_t max, uint64_t *v);
bool parse_u32(const char *s, uint32_t *v);

/*
 * Words the CLI maps to numbers (schedulers, states, protocols, modes).
 * An unknown word is a usage error (nothing was sent): exit 1 (EXIT_USAGE)
 * with the list of accepted words.
 */
struct word {
	const char *name;
	unsigned int value;
};
int parse_word(const char *what, const char *s, const struct word *words,
	       size_t n, unsigned int *value);
/* Name of value, or "unknown(N)" in buf for a value newer than klbctl. */
const char *word_name(const struct word *words, size_t n, unsigned int value,
		      char *buf, size_t len);

extern const struct word sched_words[];
extern const size_t n_sched_words;
extern const struct word state_words[];
extern const size_t n_state_words;
extern const struct word proto_words[];
extern const size_t n_proto_words;
extern const struct word mode_words[];
extern const size_t n_mode_words;
extern const struct word pp_words[];	/* proxy-protocol: v2, none */
extern const size_t n_pp_words;
extern const struct word conn_state_words[];
extern const size_t n_conn_state_words;
extern const struct word l7_state_words[];
extern const size_t n_l7_state_words;

/*
 * A word as save prints it and restore reads it back: as it is, or in
 * double quotes (with \" and \\ inside) when it is empty, holds a blank,
 * a quote or a backslash, or starts with '#'. Returns a malloc'ed string,
 * NULL when out of memory.
 */
char *word_quote(const char *s);

/*
 * -b FILE (config.c): run each line of FILE ("-": standard input) as a
 * klbctl command, read with restore's grammar (words, quotes, comments);
 * stops at the first that fails and returns its status. Errors name
 * FILE:LINE.
 */
int batch_run(const char *path, int (*run)(int argc, char **argv));

/* Make room in *arrayp (elem-sized items, n used) for one more. */
bool grow(void *arrayp, size_t *cap, size_t n, size_t elem);

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

#endif
