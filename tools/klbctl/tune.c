// SPDX-License-Identifier: GPL-2.0
/*
 * klbctl tune: apply, show and revert the system tunings of the Stingray
 * white paper (profile "stingray") or their modern equivalent ("modern").
 *
 *   klbctl tune show [PROFILE]
 *   klbctl tune apply [PROFILE] [--persist]
 *   klbctl tune revert
 *
 * Safety model (Documentation/tuning.md has the operator's view):
 * - Values are read and written through /proc/sys, so a command acts on the
 *   network namespace it runs in. The values it replaces are saved per
 *   namespace, in <state dir>/<netns inode>.saved, atomically and before
 *   anything is written; a later apply only adds keys not saved yet, so the
 *   file always holds the values from before the first apply.
 * - apply is all or nothing: every file is opened for writing first (not
 *   root and read-only mounts fail there, before anything changed), and if
 *   a write still fails, the writes already made and the state file are
 *   rolled back.
 * - Global keys (fs.file-max, net.ipv4.tcp_mem) are written only from the
 *   initial namespace: from a child namespace they would change the whole
 *   host, and two namespaces reverting would fight over one value.
 *
 * Environment overrides, for tests: KLBCTL_PROC_SYS (default /proc/sys),
 * KLBCTL_STATE_DIR (/run/klb/tune), KLBCTL_SYSCTL_D (/etc/sysctl.d).
 */
#ifndef _GNU_SOURCE	/* the Makefile may define it already */
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "klbctl.h"
#include "print.h"
#include "tune.h"

static int tune_show(const char *profile)
{
	struct profile_values p;
	struct tune_row rows[NKEYS];
	int ret;

	if (tune_profile_get(profile, &p))
		return EXIT_USAGE;
	ret = tune_rows_read(&p, rows);
	if (ret)
		return ret;

	new_json_obj(opt_json);
	tune_print_header("WANT", "CURRENT", "STATUS");
	for (int i = 0; i < NKEYS; i++) {
		const struct tune_row *r = &rows[i];

		if (!r->in_profile)
			continue;
		tune_print_row(i, "want", r->want, "current",
			       r->present ? r->shown : NULL,
			       !r->present ? "absent" :
			       r->matches ? "applied" : "differs");
	}
	delete_json_obj();
	return EXIT_OK;
}

/* Put back the values of rows[0..upto) that this apply changed. */
static void rollback(const struct tune_row *rows, const bool *write, int upto)
{
	for (int i = upto - 1; i >= 0; i--) {
		int err;

		if (!write[i])
			continue;
		err = tune_sysctl_write(tune_keys[i].name, rows[i].cur);
		if (err)
			fprintf(stderr,
				"Error: rollback of %s to \"%s\" failed: %s\n",
				tune_keys[i].name, rows[i].cur,
				strerror(-err));
	}
}

static int persist_write(const char *path, const char *profile,
			 const struct tune_row *rows, const bool *apply)
{
	char body[NKEYS * (VAL_MAX + 64) + 512];
	size_t off = 0;

	off += (size_t)snprintf(body + off, sizeof(body) - off,
		"# Written by \"klbctl tune apply %s --persist\";\n"
		"# \"klbctl tune revert\" removes it. See klb's Documentation/tuning.md.\n",
		profile);
	for (int i = 0; i < NKEYS; i++)
		if (apply[i])
			off += (size_t)snprintf(body + off, sizeof(body) - off,
						"%s = %s\n", tune_keys[i].name,
						rows[i].want);
	return tune_write_atomic(path, body);
}

static int tune_apply(const char *profile, bool persist)
{
	struct profile_values p;
	struct tune_row rows[NKEYS];
	struct tune_state st, old;
	bool apply[NKEYS] = { false };	/* present here and ours to set */
	bool write[NKEYS] = { false };	/* ... and not at the value yet */
	char spath[PATH_MAX], ppath[PATH_MAX];
	bool init_ns = tune_netns_is_initial(), st_dirty = false;
	int ret, err;

	if (tune_profile_get(profile, &p))
		return EXIT_USAGE;
	/* sysctl.d is replayed at boot into the initial namespace only. */
	if (persist && !init_ns) {
		fprintf(stderr,
			"Error: --persist works only in the initial network namespace (sysctl.d files are not applied to others)\n");
		return EXIT_USAGE;
	}
	ret = tune_rows_read(&p, rows);
	if (ret)
		return ret;

	for (int i = 0; i < NKEYS; i++) {
		apply[i] = rows[i].in_profile && rows[i].present &&
			   (tune_keys[i].scope == SCOPE_NETNS || init_ns);
		write[i] = apply[i] && !rows[i].matches;
	}

	/* Refusals (not root, read-only /proc/sys) surface here, harmlessly. */
	for (int i = 0; i < NKEYS; i++) {
		if (!write[i])
			continue;
		err = tune_sysctl_check_writable(tune_keys[i].name);
		if (err) {
			fprintf(stderr, "Error: %s: %s\n", tune_keys[i].name,
				strerror(-err));
			return EXIT_KERNEL;
		}
	}

	/* Save what is about to be replaced, unless an earlier apply did. */
	tune_state_path(spath, sizeof(spath));
	err = tune_state_load(spath, &st);
	if (err) {
		fprintf(stderr, "Error: %s: %s\n", spath, strerror(-err));
		return EXIT_KERNEL;
	}
	old = st;
	for (int i = 0; i < NKEYS; i++) {
		if (write[i] && !st.have[i]) {
			st.have[i] = true;
			snprintf(st.val[i], VAL_MAX, "%s", rows[i].cur);
			st_dirty = true;
		}
	}
	if (persist) {
		snprintf(ppath, sizeof(ppath), "%s/90-klb-tune.conf",
			 tune_env_or("KLBCTL_SYSCTL_D", "/etc/sysctl.d"));
		if (strcmp(st.persist, ppath) != 0) {
			snprintf(st.persist, sizeof(st.persist), "%s", ppath);
			st_dirty = true;
		}
	}
	if (st_dirty) {
		st.exists = true;
		err = tune_state_store(spath, &st);
		if (err) {
			fprintf(stderr, "Error: %s: %s\n", spath,
				strerror(-err));
			return EXIT_KERNEL;
		}
	}

	for (int i = 0; i < NKEYS; i++) {
		if (!write[i])
			continue;
		err = tune_sysctl_write(tune_keys[i].name, rows[i].want);
		if (err) {
			fprintf(stderr, "Error: %s: %s\n", tune_keys[i].name,
				strerror(-err));
			rollback(rows, write, i);
			tune_state_restore(spath, &old);
			return EXIT_KERNEL;
		}
	}
	if (persist) {
		err = persist_write(ppath, profile, rows, apply);
		if (err) {
			fprintf(stderr, "Error: %s: %s\n", ppath,
				strerror(-err));
			rollback(rows, write, NKEYS);
			tune_state_restore(spath, &old);
			return EXIT_KERNEL;
		}
	}

	if (apply[K_SYNCOOKIES] && strcmp(rows[K_SYNCOOKIES].want, "0") == 0)
		fprintf(stderr,
			"Warning: net.ipv4.tcp_syncookies = 0: a SYN flood now fills the SYN queue and new connections are dropped; use the modern profile on exposed hosts\n");

	new_json_obj(opt_json);
	tune_print_header("WANT", "PREVIOUS", "STATUS");
	for (int i = 0; i < NKEYS; i++) {
		const struct tune_row *r = &rows[i];

		if (!r->in_profile)
			continue;
		tune_print_row(i, "want", r->want, "previous",
			       r->present ? r->shown : NULL,
			       !r->present ? "absent" : !apply[i] ? "skipped" :
			       write[i] ? "set" : "unchanged");
	}
	delete_json_obj();

	if (!init_ns && rows[K_FILE_MAX].present)
		tune_note("Note: global keys are not changed from a child network namespace; run \"klbctl tune apply %s\" in the initial one for them.",
			  profile);
	if (st.exists)
		tune_note("Saved the previous values in %s", spath);
	if (persist)
		tune_note("Persisted in %s", ppath);
	return EXIT_OK;
}

static int tune_revert(void)
{
	struct tune_state st;
	char spath[PATH_MAX];
	char cur[NKEYS][VAL_MAX];
	bool present[NKEYS] = { false }, write[NKEYS] = { false };
	bool failed = false;
	int err;

	tune_state_path(spath, sizeof(spath));
	err = tune_state_load(spath, &st);
	if (err) {
		fprintf(stderr, "Error: %s: %s\n", spath, strerror(-err));
		return EXIT_KERNEL;
	}
	if (!st.exists) {
		fprintf(stderr,
			"Error: nothing to revert: no values saved for this network namespace (%s)\n",
			spath);
		return EXIT_USAGE;
	}

	for (int i = 0; i < NKEYS; i++) {
		if (!st.have[i])
			continue;
		err = tune_sysctl_read(tune_keys[i].name, cur[i], VAL_MAX);
		if (err == -ENOENT)
			continue;
		present[i] = true;
		if (err)
			cur[i][0] = '\0';
		write[i] = err || !tune_same_value(cur[i], st.val[i]);
	}
	/* As in apply: not root or read-only says so before any change. */
	for (int i = 0; i < NKEYS; i++) {
		if (!write[i])
			continue;
		err = tune_sysctl_check_writable(tune_keys[i].name);
		if (err) {
			fprintf(stderr, "Error: %s: %s\n", tune_keys[i].name,
				strerror(-err));
			return EXIT_KERNEL;
		}
	}
	/*
	 * Then best effort over all keys rather than all or nothing: the goal
	 * is the original state, and on failure the state file stays so that
	 * revert can simply be run again.
	 */
	for (int i = 0; i < NKEYS; i++) {
		if (!write[i])
			continue;
		err = tune_sysctl_write(tune_keys[i].name, st.val[i]);
		if (err) {
			fprintf(stderr, "Error: %s: %s\n", tune_keys[i].name,
				strerror(-err));
			failed = true;
		}
	}
	if (failed) {
		fprintf(stderr, "Kept %s: run \"klbctl tune revert\" again.\n",
			spath);
		return EXIT_KERNEL;
	}

	if (st.persist[0] && unlink(st.persist) != 0 && errno != ENOENT)
		fprintf(stderr, "Error: %s: %s\n", st.persist,
			strerror(errno));
	if (unlink(spath) != 0 && errno != ENOENT) {
		fprintf(stderr, "Error: %s: %s\n", spath, strerror(errno));
		return EXIT_KERNEL;
	}

	new_json_obj(opt_json);
	tune_print_header("RESTORED", "PREVIOUS", "STATUS");
	for (int i = 0; i < NKEYS; i++) {
		bool same;

		if (!st.have[i])
			continue;
		same = tune_same_value(cur[i], st.val[i]);
		tune_normalise(cur[i]);
		tune_normalise(st.val[i]);
		tune_print_row(i, "value", st.val[i], "previous",
			       present[i] ? cur[i] : NULL,
			       !present[i] ? "absent" :
			       same ? "unchanged" : "restored");
	}
	delete_json_obj();
	if (st.persist[0])
		tune_note("Removed %s", st.persist);
	return EXIT_OK;
}

static void tune_usage(FILE *out)
{
	fprintf(out,
		"Usage: klbctl tune show [PROFILE]\n"
		"       klbctl tune apply [PROFILE] [--persist]\n"
		"       klbctl tune revert\n"
		"PROFILE := { stingray | modern }   (default: stingray)\n");
}

int do_tune(int argc, char **argv)
{
	const char *cmd = argc > 0 ? argv[0] : "show";
	const char *profile = NULL;
	bool persist = false;

	if (strcmp(cmd, "help") == 0) {
		tune_usage(stdout);
		return EXIT_OK;
	}
	if (strcmp(cmd, "show") && strcmp(cmd, "apply") &&
	    strcmp(cmd, "revert")) {
		fprintf(stderr,
			"Command \"%s\" is unknown, try \"klbctl tune help\".\n",
			cmd);
		return EXIT_USAGE;
	}
	for (int i = 1; i < argc; i++) {
		if (strcmp(cmd, "apply") == 0 &&
		    strcmp(argv[i], "--persist") == 0) {
			persist = true;
		} else if (strcmp(cmd, "revert") && !profile &&
			   argv[i][0] != '-') {
			profile = argv[i];
		} else {
			fprintf(stderr,
				"Error: unexpected argument \"%s\", try \"klbctl tune help\".\n",
				argv[i]);
			return EXIT_USAGE;
		}
	}
	if (!profile)
		profile = "stingray";
	if (tune_netns_init())
		return EXIT_KERNEL;

	if (strcmp(cmd, "show") == 0)
		return tune_show(profile);
	if (strcmp(cmd, "apply") == 0)
		return tune_apply(profile, persist);
	return tune_revert();
}
