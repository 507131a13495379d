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
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "klbctl.h"
#include "print.h"

#define VAL_MAX		128	/* longest value handled: tcp_mem is ~30 chars */

/*
 * Recent kernels give init_net a fixed namespace inode number
 * (PROC_NET_INIT_INO); 6.1, the kernel of the test VM, allocates it like any
 * other, so it is only a shortcut (see netns_is_initial()).
 */
#define NETNS_INIT_INO	0xEFFFFFF9UL

enum scope { SCOPE_NETNS, SCOPE_GLOBAL };

struct tune_key {
	const char *name;
	enum scope scope;
};

/* The paper's list, in its order; the index is used by every table below. */
enum {
	K_PORT_RANGE, K_SYNCOOKIES, K_SYN_BACKLOG, K_SOMAXCONN, K_TW_BUCKETS,
	K_TCP_MEM, K_FILE_MAX, K_TW_REUSE, K_TW_RECYCLE, NKEYS
};

static const struct tune_key keys[NKEYS] = {
	[K_PORT_RANGE]	= { "net.ipv4.ip_local_port_range", SCOPE_NETNS },
	[K_SYNCOOKIES]	= { "net.ipv4.tcp_syncookies", SCOPE_NETNS },
	[K_SYN_BACKLOG]	= { "net.ipv4.tcp_max_syn_backlog", SCOPE_NETNS },
	[K_SOMAXCONN]	= { "net.core.somaxconn", SCOPE_NETNS },
	[K_TW_BUCKETS]	= { "net.ipv4.tcp_max_tw_buckets", SCOPE_NETNS },
	[K_TCP_MEM]	= { "net.ipv4.tcp_mem", SCOPE_GLOBAL },
	[K_FILE_MAX]	= { "fs.file-max", SCOPE_GLOBAL },
	[K_TW_REUSE]	= { "net.ipv4.tcp_tw_reuse", SCOPE_NETNS },
	/* Removed in Linux 4.12: shown as absent, never an error. */
	[K_TW_RECYCLE]	= { "net.ipv4.tcp_tw_recycle", SCOPE_NETNS },
};

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

static void profile_stingray(struct profile_values *p)
{
	/* The white paper's values, verbatim. */
	static const char *const v[NKEYS] = {
		[K_PORT_RANGE]	= "1024 65535",
		[K_SYNCOOKIES]	= "0",
		[K_SYN_BACKLOG]	= "8192",
		[K_SOMAXCONN]	= "1024",
		[K_TW_BUCKETS]	= "1800000",
		[K_TCP_MEM]	= "128000 200000 262144",
		[K_FILE_MAX]	= "2097152",
		[K_TW_REUSE]	= "1",
		[K_TW_RECYCLE]	= "1",
	};

	for (int i = 0; i < NKEYS; i++)
		snprintf(p->want[i], VAL_MAX, "%s", v[i]);
}

static uint64_t clamp_u64(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* The reasoning behind each number is in Documentation/tuning.md. */
static void profile_modern(struct profile_values *p)
{
	struct sysinfo si;
	uint64_t mem, pages, backlog;
	long pagesz = sysconf(_SC_PAGESIZE);

	if (sysinfo(&si) != 0 || pagesz <= 0) {
		/* Both are infallible on Linux; still, size for 1 GiB, not 0. */
		mem = 1ULL << 30;
		pagesz = 4096;
	} else {
		mem = (uint64_t)si.totalram * (si.mem_unit ? si.mem_unit : 1);
	}
	pages = mem / (uint64_t)pagesz;

	snprintf(p->want[K_PORT_RANGE], VAL_MAX, "1024 65535");
	snprintf(p->want[K_SYNCOOKIES], VAL_MAX, "1");
	/*
	 * 4 SYN-queue entries (~320 B each) per MiB: at most ~0.1 % of RAM.
	 * 65535 is somaxconn's ceiling on kernels before 4.1 (u16 backlog).
	 */
	backlog = clamp_u64(mem >> 20 << 2, 1024, 65535);
	snprintf(p->want[K_SYN_BACKLOG], VAL_MAX, "%llu",
		 (unsigned long long)backlog);
	/* Accept queue as deep as the SYN queue, never below today's 4096. */
	snprintf(p->want[K_SOMAXCONN], VAL_MAX, "%llu",
		 (unsigned long long)(backlog > 4096 ? backlog : 4096));
	/* TIME_WAIT sockets (256 B slab objects) may use up to 1/32 of RAM. */
	snprintf(p->want[K_TW_BUCKETS], VAL_MAX, "%llu",
		 (unsigned long long)clamp_u64(mem / 32 / 256, 32768, 1800000));
	/* The kernel's own tcp_init_mem() thresholds, doubled, from all RAM. */
	snprintf(p->want[K_TCP_MEM], VAL_MAX, "%llu %llu %llu",
		 (unsigned long long)(pages * 3 / 32),
		 (unsigned long long)(pages / 8),
		 (unsigned long long)(pages * 3 / 16));
	/* One file per 4 KiB: memory runs out long before such a limit. */
	snprintf(p->want[K_FILE_MAX], VAL_MAX, "%llu",
		 (unsigned long long)(mem / 4096));
	p->at_least[K_FILE_MAX] = true;
	/* 1, not 2: veth traffic between namespaces is not loopback. */
	snprintf(p->want[K_TW_REUSE], VAL_MAX, "1");
	/* tcp_tw_recycle is gone and broke NAT clients: not in this profile. */
}

static const struct {
	const char *name;
	void (*fill)(struct profile_values *p);
} profiles[] = {
	{ "stingray", profile_stingray },
	{ "modern", profile_modern },
};

#define NPROFILES	(sizeof(profiles) / sizeof(profiles[0]))

static int profile_get(const char *name, struct profile_values *p)
{
	for (size_t i = 0; i < NPROFILES; i++) {
		if (strcmp(profiles[i].name, name) == 0) {
			memset(p, 0, sizeof(*p));
			profiles[i].fill(p);
			return 0;
		}
	}
	fprintf(stderr, "Error: unknown profile \"%s\" (stingray, modern)\n",
		name);
	return -1;
}

static int key_index(const char *name)
{
	for (int i = 0; i < NKEYS; i++)
		if (strcmp(keys[i].name, name) == 0)
			return i;
	return -1;
}

static const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

/*
 * /proc keeps multi-value sysctls tab-separated ("32768\t60999") while
 * people and sysctl.d files write spaces; compare and store one spelling.
 */
static void normalise(char *s)
{
	char *r = s, *w = s;

	while (*r) {
		if (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r') {
			while (*r == ' ' || *r == '\t' || *r == '\n' ||
			       *r == '\r')
				r++;
			if (w != s && *r)
				*w++ = ' ';
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

static int key_path(const char *key, char *buf, size_t len)
{
	int n = snprintf(buf, len, "%s/%s",
			 env_or("KLBCTL_PROC_SYS", "/proc/sys"), key);
	char *p;

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	/* Only the key part: the root may itself contain dots. */
	for (p = buf + n - strlen(key); *p; p++)
		if (*p == '.')
			*p = '/';
	return 0;
}

static bool same_value(const char *a, const char *b)
{
	char x[VAL_MAX], y[VAL_MAX];

	snprintf(x, sizeof(x), "%s", a);
	snprintf(y, sizeof(y), "%s", b);
	normalise(x);
	normalise(y);
	return strcmp(x, y) == 0;
}

/*
 * Reads the value as the file spells it, minus the final newline: that is
 * what gets saved and written back, so a restore is exact to the byte even
 * in a test tree of plain files. Returns 0, -ENOENT when the kernel has no
 * such key, or another -errno.
 */
static int sysctl_read(const char *key, char *val, size_t len)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd, err = key_path(key, path, sizeof(path));

	if (err)
		return err;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOTDIR ? -ENOENT : -errno;
	n = read(fd, val, len - 1);
	err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		return err;
	val[n] = '\0';
	if (n > 0 && val[n - 1] == '\n')
		val[n - 1] = '\0';
	/* The state file is line based: never let a value span lines. */
	if (strpbrk(val, "\r\n"))
		normalise(val);
	return 0;
}

/*
 * Open for writing without writing: tells "not root" or "read-only mount"
 * before anything has been changed. O_NONBLOCK so that a FIFO planted in a
 * test tree fails instead of hanging; no O_TRUNC so a test tree's regular
 * file keeps its content.
 */
static int sysctl_check_writable(const char *key)
{
	char path[PATH_MAX];
	int fd, err = key_path(key, path, sizeof(path));

	if (err)
		return err;
	fd = open(path, O_WRONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int sysctl_write(const char *key, const char *val)
{
	char path[PATH_MAX], buf[VAL_MAX + 1];
	int fd, n, err = key_path(key, path, sizeof(path));
	ssize_t w;

	if (err)
		return err;
	n = snprintf(buf, sizeof(buf), "%s\n", val);
	if (n < 0 || (size_t)n >= sizeof(buf))
		return -EINVAL;
	/* O_TRUNC is ignored by procfs and keeps a test tree's file exact. */
	fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	/* One write() call: procfs parses the value from a single write. */
	w = write(fd, buf, (size_t)n);
	err = w < 0 ? -errno : w != n ? -EIO : 0;
	if (close(fd) != 0 && !err)
		err = -errno;
	return err;
}

/* ---- per-namespace saved state ---------------------------------------- */

struct state {
	bool exists;			/* a state file was found / is wanted */
	bool have[NKEYS];
	char val[NKEYS][VAL_MAX];
	char persist[PATH_MAX];		/* sysctl.d file written, or "" */
};

static unsigned long netns_ino;

static int netns_init(void)
{
	struct stat st;

	if (stat("/proc/self/ns/net", &st) != 0) {
		fprintf(stderr, "Error: /proc/self/ns/net: %s\n",
			strerror(errno));
		return -1;
	}
	netns_ino = (unsigned long)st.st_ino;
	return 0;
}

/*
 * The global net.ipv4 table (tcp_mem and friends) is registered for init_net
 * only, so it is visible only from the initial namespace; that holds on
 * every kernel, needs no access to PID 1's /proc entry (containers and
 * sandboxes often deny it) and is not fooled by a PID 1 that itself lives in
 * a child namespace. Always the real /proc/sys: a test's KLBCTL_PROC_SYS
 * tree must not decide where the command runs.
 */
static bool netns_is_initial(void)
{
	return netns_ino == NETNS_INIT_INO ||
	       access("/proc/sys/net/ipv4/tcp_mem", F_OK) == 0;
}

static void state_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/%lu.saved",
		 env_or("KLBCTL_STATE_DIR", "/run/klb/tune"), netns_ino);
}

static const char persist_tag[] = "# persist-file: ";

/* Returns 0 (st->exists tells whether a file was there) or -errno. */
static int state_load(const char *path, struct state *st)
{
	char line[PATH_MAX + 64];
	FILE *f;
	int err = 0;

	memset(st, 0, sizeof(*st));
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? 0 : -errno;
	st->exists = true;
	while (fgets(line, sizeof(line), f)) {
		char *eq, *val;
		int i;

		line[strcspn(line, "\n")] = '\0';
		if (strncmp(line, persist_tag, strlen(persist_tag)) == 0) {
			const char *pp = line + strlen(persist_tag);
			size_t n = strlen(pp);

			if (n >= sizeof(st->persist)) {
				err = -EINVAL;
				break;
			}
			memcpy(st->persist, pp, n + 1);
			continue;
		}
		if (line[0] == '#' || line[0] == '\0')
			continue;
		eq = strstr(line, " = ");
		if (!eq) {
			err = -EINVAL;
			break;
		}
		*eq = '\0';
		val = eq + 3;
		i = key_index(line);
		/* Only our own keys: this file is replayed into /proc/sys. */
		if (i < 0 || strlen(val) >= VAL_MAX) {
			err = -EINVAL;
			break;
		}
		st->have[i] = true;
		snprintf(st->val[i], VAL_MAX, "%s", val);
	}
	if (ferror(f))
		err = -EIO;
	fclose(f);
	return err;
}

static int mkdir_p(const char *dir)
{
	char buf[PATH_MAX];
	char *p;

	if (snprintf(buf, sizeof(buf), "%s", dir) >= (int)sizeof(buf))
		return -ENAMETOOLONG;
	for (p = buf + 1; ; p++) {
		if (*p == '/' || *p == '\0') {
			char c = *p;

			*p = '\0';
			if (mkdir(buf, 0755) != 0 && errno != EEXIST)
				return -errno;
			*p = c;
			if (!c)
				break;
		}
	}
	return 0;
}

/*
 * Write a whole file atomically (temporary + fsync + rename): a crash
 * leaves the old file or the new one, never half a list of values to
 * restore. The directory is created on demand (/run is a tmpfs).
 */
static int write_atomic(const char *path, const char *body)
{
	char tmp[PATH_MAX], dir[PATH_MAX];
	char *slash;
	size_t len = strlen(body);
	int fd, err = 0;

	if (snprintf(dir, sizeof(dir), "%s", path) >= (int)sizeof(dir) ||
	    snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >=
	    (int)sizeof(tmp))
		return -ENAMETOOLONG;
	slash = strrchr(dir, '/');
	if (slash && slash != dir) {
		*slash = '\0';
		err = mkdir_p(dir);
		if (err)
			return err;
	}
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, body, len) != (ssize_t)len)
		err = errno ? -errno : -EIO;
	if (!err && fsync(fd) != 0)
		err = -errno;
	if (close(fd) != 0 && !err)
		err = -errno;
	if (!err && rename(tmp, path) != 0)
		err = -errno;
	if (err)
		unlink(tmp);
	return err;
}

static int state_store(const char *path, const struct state *st)
{
	char body[NKEYS * (VAL_MAX + 64) + PATH_MAX + 512];
	size_t off = 0;

	/* The body is valid sysctl.conf syntax: `sysctl -p` can replay it. */
	off += (size_t)snprintf(body + off, sizeof(body) - off,
		"# klbctl tune: values from before the first \"tune apply\" in network\n"
		"# namespace %lu. \"klbctl tune revert\" writes them back and removes\n"
		"# this file.\n", netns_ino);
	if (st->persist[0])
		off += (size_t)snprintf(body + off, sizeof(body) - off,
					"%s%s\n", persist_tag, st->persist);
	for (int i = 0; i < NKEYS; i++)
		if (st->have[i])
			off += (size_t)snprintf(body + off, sizeof(body) - off,
						"%s = %s\n", keys[i].name,
						st->val[i]);
	return write_atomic(path, body);
}

/* ---- the commands ------------------------------------------------------- */

/* One key as seen now against one profile. */
struct row {
	bool in_profile;
	bool present;		/* the kernel has the key here */
	char want[VAL_MAX];
	char cur[VAL_MAX];	/* as read: saved and restored verbatim */
	char shown[VAL_MAX];	/* cur with single spaces, for output */
	bool matches;
};

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Fills rows[] for profile p; returns 0 or an exit status after an error. */
static int rows_read(const struct profile_values *p, struct row *rows)
{
	for (int i = 0; i < NKEYS; i++) {
		struct row *r = &rows[i];
		int err;

		memset(r, 0, sizeof(*r));
		r->in_profile = p->want[i][0] != '\0';
		if (!r->in_profile)
			continue;
		snprintf(r->want, VAL_MAX, "%s", p->want[i]);
		err = sysctl_read(keys[i].name, r->cur, VAL_MAX);
		if (err == -ENOENT)
			continue;
		if (err) {
			fprintf(stderr, "Error: %s: %s\n", keys[i].name,
				strerror(-err));
			return EXIT_KERNEL;
		}
		r->present = true;
		if (p->at_least[i] && is_number(r->cur) &&
		    strtoull(r->cur, NULL, 10) > strtoull(r->want, NULL, 10))
			snprintf(r->want, VAL_MAX, "%s", r->cur);
		r->matches = same_value(r->want, r->cur);
		snprintf(r->shown, VAL_MAX, "%s", r->cur);
		normalise(r->shown);
	}
	return 0;
}

static const char *scope_name(int i)
{
	return keys[i].scope == SCOPE_GLOBAL ? "global" : "netns";
}

static void print_header(const char *c2, const char *c3, const char *c4)
{
	print_string(PRINT_FP, NULL, "%-30s ", "KEY");
	print_string(PRINT_FP, NULL, "%-22s ", c2);
	print_string(PRINT_FP, NULL, "%-22s ", c3);
	print_string(PRINT_FP, NULL, "%-10s ", c4);
	print_string(PRINT_FP, NULL, "%s", "SCOPE");
	print_nl();
}

/* key, a value, another value (null when absent), status, scope */
static void print_row(int i, const char *k2, const char *v2, const char *k3,
		      const char *v3, const char *status)
{
	open_json_object(NULL);
	print_string(PRINT_ANY, "key", "%-30s ", keys[i].name);
	if (v2)
		print_string(PRINT_ANY, k2, "%-22s ", v2);
	else
		print_null(PRINT_ANY, k2, "%-22s ", "-");
	if (v3)
		print_string(PRINT_ANY, k3, "%-22s ", v3);
	else
		print_null(PRINT_ANY, k3, "%-22s ", "-");
	print_string(PRINT_ANY, "status", "%-10s ", status);
	print_string(PRINT_ANY, "scope", "%s", scope_name(i));
	close_json_object();
	print_nl();
}

/* Notes for people: stdout in text mode, stderr when stdout carries JSON. */
static void note(const char *fmt, const char *arg)
{
	FILE *out = opt_json ? stderr : stdout;

	fprintf(out, fmt, arg);
	fputc('\n', out);
}

static int tune_show(const char *profile)
{
	struct profile_values p;
	struct row rows[NKEYS];
	int ret;

	if (profile_get(profile, &p))
		return EXIT_USAGE;
	ret = rows_read(&p, rows);
	if (ret)
		return ret;

	new_json_obj(opt_json);
	print_header("WANT", "CURRENT", "STATUS");
	for (int i = 0; i < NKEYS; i++) {
		const struct row *r = &rows[i];

		if (!r->in_profile)
			continue;
		print_row(i, "want", r->want, "current",
			  r->present ? r->shown : NULL,
			  !r->present ? "absent" :
			  r->matches ? "applied" : "differs");
	}
	delete_json_obj();
	return EXIT_OK;
}

/* Put back the values of rows[0..upto) that this apply changed. */
static void rollback(const struct row *rows, const bool *write, int upto)
{
	for (int i = upto - 1; i >= 0; i--) {
		int err;

		if (!write[i])
			continue;
		err = sysctl_write(keys[i].name, rows[i].cur);
		if (err)
			fprintf(stderr,
				"Error: rollback of %s to \"%s\" failed: %s\n",
				keys[i].name, rows[i].cur, strerror(-err));
	}
}

/* Put the state file back as it was before this apply. */
static void state_restore(const char *path, const struct state *old)
{
	int err = old->exists ? state_store(path, old) :
		  (unlink(path) == 0 || errno == ENOENT) ? 0 : -errno;

	if (err)
		fprintf(stderr, "Error: %s: %s\n", path, strerror(-err));
}

static int persist_write(const char *path, const char *profile,
			 const struct row *rows, const bool *apply)
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
						"%s = %s\n", keys[i].name,
						rows[i].want);
	return write_atomic(path, body);
}

static int tune_apply(const char *profile, bool persist)
{
	struct profile_values p;
	struct row rows[NKEYS];
	struct state st, old;
	bool apply[NKEYS] = { false };	/* present here and ours to set */
	bool write[NKEYS] = { false };	/* ... and not at the value yet */
	char spath[PATH_MAX], ppath[PATH_MAX];
	bool init_ns = netns_is_initial(), st_dirty = false;
	int ret, err;

	if (profile_get(profile, &p))
		return EXIT_USAGE;
	/* sysctl.d is replayed at boot into the initial namespace only. */
	if (persist && !init_ns) {
		fprintf(stderr,
			"Error: --persist works only in the initial network namespace (sysctl.d files are not applied to others)\n");
		return EXIT_USAGE;
	}
	ret = rows_read(&p, rows);
	if (ret)
		return ret;

	for (int i = 0; i < NKEYS; i++) {
		apply[i] = rows[i].in_profile && rows[i].present &&
			   (keys[i].scope == SCOPE_NETNS || init_ns);
		write[i] = apply[i] && !rows[i].matches;
	}

	/* Refusals (not root, read-only /proc/sys) surface here, harmlessly. */
	for (int i = 0; i < NKEYS; i++) {
		if (!write[i])
			continue;
		err = sysctl_check_writable(keys[i].name);
		if (err) {
			fprintf(stderr, "Error: %s: %s\n", keys[i].name,
				strerror(-err));
			return EXIT_KERNEL;
		}
	}

	/* Save what is about to be replaced, unless an earlier apply did. */
	state_path(spath, sizeof(spath));
	err = state_load(spath, &st);
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
			 env_or("KLBCTL_SYSCTL_D", "/etc/sysctl.d"));
		if (strcmp(st.persist, ppath) != 0) {
			snprintf(st.persist, sizeof(st.persist), "%s", ppath);
			st_dirty = true;
		}
	}
	if (st_dirty) {
		st.exists = true;
		err = state_store(spath, &st);
		if (err) {
			fprintf(stderr, "Error: %s: %s\n", spath,
				strerror(-err));
			return EXIT_KERNEL;
		}
	}

	for (int i = 0; i < NKEYS; i++) {
		if (!write[i])
			continue;
		err = sysctl_write(keys[i].name, rows[i].want);
		if (err) {
			fprintf(stderr, "Error: %s: %s\n", keys[i].name,
				strerror(-err));
			rollback(rows, write, i);
			state_restore(spath, &old);
			return EXIT_KERNEL;
		}
	}
	if (persist) {
		err = persist_write(ppath, profile, rows, apply);
		if (err) {
			fprintf(stderr, "Error: %s: %s\n", ppath,
				strerror(-err));
			rollback(rows, write, NKEYS);
			state_restore(spath, &old);
			return EXIT_KERNEL;
		}
	}

	if (apply[K_SYNCOOKIES] && strcmp(rows[K_SYNCOOKIES].want, "0") == 0)
		fprintf(stderr,
			"Warning: net.ipv4.tcp_syncookies = 0: a SYN flood now fills the SYN queue and new connections are dropped; use the modern profile on exposed hosts\n");

	new_json_obj(opt_json);
	print_header("WANT", "PREVIOUS", "STATUS");
	for (int i = 0; i < NKEYS; i++) {
		const struct row *r = &rows[i];

		if (!r->in_profile)
			continue;
		print_row(i, "want", r->want, "previous",
			  r->present ? r->shown : NULL,
			  !r->present ? "absent" : !apply[i] ? "skipped" :
			  write[i] ? "set" : "unchanged");
	}
	delete_json_obj();

	if (!init_ns && rows[K_FILE_MAX].present)
		note("Note: global keys are not changed from a child network namespace; run \"klbctl tune apply %s\" in the initial one for them.",
		     profile);
	if (st.exists)
		note("Saved the previous values in %s", spath);
	if (persist)
		note("Persisted in %s", ppath);
	return EXIT_OK;
}

static int tune_revert(void)
{
	struct state st;
	char spath[PATH_MAX];
	char cur[NKEYS][VAL_MAX];
	bool present[NKEYS] = { false }, write[NKEYS] = { false };
	bool failed = false;
	int err;

	state_path(spath, sizeof(spath));
	err = state_load(spath, &st);
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
		err = sysctl_read(keys[i].name, cur[i], VAL_MAX);
		if (err == -ENOENT)
			continue;
		present[i] = true;
		if (err)
			cur[i][0] = '\0';
		write[i] = err || !same_value(cur[i], st.val[i]);
	}
	/* As in apply: not root or read-only says so before any change. */
	for (int i = 0; i < NKEYS; i++) {
		if (!write[i])
			continue;
		err = sysctl_check_writable(keys[i].name);
		if (err) {
			fprintf(stderr, "Error: %s: %s\n", keys[i].name,
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
		err = sysctl_write(keys[i].name, st.val[i]);
		if (err) {
			fprintf(stderr, "Error: %s: %s\n", keys[i].name,
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
	print_header("RESTORED", "PREVIOUS", "STATUS");
	for (int i = 0; i < NKEYS; i++) {
		bool same;

		if (!st.have[i])
			continue;
		same = same_value(cur[i], st.val[i]);
		normalise(cur[i]);
		normalise(st.val[i]);
		print_row(i, "value", st.val[i], "previous",
			  present[i] ? cur[i] : NULL,
			  !present[i] ? "absent" :
			  same ? "unchanged" : "restored");
	}
	delete_json_obj();
	if (st.persist[0])
		note("Removed %s", st.persist);
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
	if (netns_init())
		return EXIT_KERNEL;

	if (strcmp(cmd, "show") == 0)
		return tune_show(profile);
	if (strcmp(cmd, "apply") == 0)
		return tune_apply(profile, persist);
	return tune_revert();
}
