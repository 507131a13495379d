// SPDX-License-Identifier: GPL-2.0
/*
 * klbctl tune: the network namespace a command acts on, and its saved-state
 * file, <state dir>/<netns inode>.saved (KLBCTL_STATE_DIR, default
 * /run/klb/tune): the values from before the first apply, which revert
 * writes back. The file is valid sysctl.conf syntax and written atomically.
 */
#ifndef _GNU_SOURCE	/* the Makefile may define it already */
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "tune.h"

/*
 * Recent kernels give init_net a fixed namespace inode number
 * (PROC_NET_INIT_INO); 6.1, the kernel of the test VM, allocates it like any
 * other, so it is only a shortcut (see tune_netns_is_initial()).
 */
#define NETNS_INIT_INO	0xEFFFFFF9UL

static unsigned long netns_ino;

int tune_netns_init(void)
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
bool tune_netns_is_initial(void)
{
	return netns_ino == NETNS_INIT_INO ||
	       access("/proc/sys/net/ipv4/tcp_mem", F_OK) == 0;
}

void tune_state_path(char *buf, size_t len)
{
	snprintf(buf, len, "%s/%lu.saved",
		 tune_env_or("KLBCTL_STATE_DIR", "/run/klb/tune"), netns_ino);
}

static const char persist_tag[] = "# persist-file: ";

/* Returns 0 (st->exists tells whether a file was there) or -errno. */
int tune_state_load(const char *path, struct tune_state *st)
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
		i = tune_key_index(line);
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
int tune_write_atomic(const char *path, const char *body)
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

int tune_state_store(const char *path, const struct tune_state *st)
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
						"%s = %s\n", tune_keys[i].name,
						st->val[i]);
	return tune_write_atomic(path, body);
}

/* Put the state file back as it was before this apply. */
void tune_state_restore(const char *path, const struct tune_state *old)
{
	int err = old->exists ? tune_state_store(path, old) :
		  (unlink(path) == 0 || errno == ENOENT) ? 0 : -errno;

	if (err)
		fprintf(stderr, "Error: %s: %s\n", path, strerror(-err));
}
