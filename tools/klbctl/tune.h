/* SPDX-License-Identifier: GPL-2.0 */
/*
 * klbctl tune, private to its files:
 *   tune_profile.c  the keys and the profiles' wanted values
 *   tune_sysctl.c   reading and writing a key's file under /proc/sys
 *   tune_state.c    the network namespace and its saved-state file
 *   tune_rows.c     a profile's keys as they are now, and their table
 *   tune.c          the commands (show, apply, revert) and their arguments
 */
#ifndef KLBCTL_TUNE_H
#define KLBCTL_TUNE_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#define VAL_MAX		128	/* longest value handled: tcp_mem is ~30 chars */

enum scope { SCOPE_NETNS, SCOPE_GLOBAL };

struct tune_key {
	const char *name;
	enum scope scope;
};

/* The paper's list, in its order; the index is used by every table. */
enum {
	K_PORT_RANGE, K_SYNCOOKIES, K_SYN_BACKLOG, K_SOMAXCONN, K_TW_BUCKETS,
	K_TCP_MEM, K_FILE_MAX, K_TW_REUSE, K_TW_RECYCLE, NKEYS
};

extern const struct tune_key tune_keys[NKEYS];

/* A profile's wanted values; want[i][0] == '\0' means "not in the profile". */
struct profile_values {
	char want[NKEYS][VAL_MAX];
	/*
	 * A limit that must never be lowered: if the running value is already
	 * higher, it is what we want (modern fs.file-max; systemd hosts run
	 * with LONG_MAX there).
	 */
	bool at_least[NKEYS];
};

/* ---- tune_profile.c ---------------------------------------------------- */

/* 0, or -1 after printing the error for an unknown profile name. */
int tune_profile_get(const char *name, struct profile_values *p);
/* The index of a key by its name, -1 for a key not ours. */
int tune_key_index(const char *name);

/* ---- tune_sysctl.c ----------------------------------------------------- */

/* Environment variable name if set and not empty, else def. */
const char *tune_env_or(const char *name, const char *def);
/* Blanks (tabs, newlines, runs) to single spaces, none at either end. */
void tune_normalise(char *s);
/* Equal once normalised. */
bool tune_same_value(const char *a, const char *b);
/* Each returns 0 or -errno; read gives -ENOENT for a key the kernel lacks. */
int tune_sysctl_read(const char *key, char *val, size_t len);
int tune_sysctl_check_writable(const char *key);
int tune_sysctl_write(const char *key, const char *val);

/* ---- tune_state.c ------------------------------------------------------ */

/* The values a first apply replaced, as saved per network namespace. */
struct tune_state {
	bool exists;			/* a state file was found / is wanted */
	bool have[NKEYS];
	char val[NKEYS][VAL_MAX];
	char persist[PATH_MAX];		/* sysctl.d file written, or "" */
};

/* Learn the namespace this runs in; 0, or -1 after printing the error. */
int tune_netns_init(void);
bool tune_netns_is_initial(void);
void tune_state_path(char *buf, size_t len);
/* Returns 0 (st->exists tells whether a file was there) or -errno. */
int tune_state_load(const char *path, struct tune_state *st);
int tune_state_store(const char *path, const struct tune_state *st);
/* Put the state file back as @old had it; prints any error. */
void tune_state_restore(const char *path, const struct tune_state *old);
/* The whole of a file or nothing of it; 0 or -errno. */
int tune_write_atomic(const char *path, const char *body);

/* ---- tune_rows.c ------------------------------------------------------- */

/* One key as seen now against one profile. */
struct tune_row {
	bool in_profile;
	bool present;		/* the kernel has the key here */
	char want[VAL_MAX];
	char cur[VAL_MAX];	/* as read: saved and restored verbatim */
	char shown[VAL_MAX];	/* cur with single spaces, for output */
	bool matches;
};

/* Fills rows[] for profile p; returns 0 or an exit status after an error. */
int tune_rows_read(const struct profile_values *p, struct tune_row *rows);
void tune_print_header(const char *c2, const char *c3, const char *c4);
/* key, a value, another value (null when absent), status, scope */
void tune_print_row(int i, const char *k2, const char *v2, const char *k3,
		    const char *v3, const char *status);
/* Notes for people: stdout in text mode, stderr when stdout carries JSON. */
void tune_note(const char *fmt, const char *arg);

#endif
