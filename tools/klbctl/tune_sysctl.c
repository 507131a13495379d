// SPDX-License-Identifier: GPL-2.0
/*
 * klbctl tune: one key's file under /proc/sys (KLBCTL_PROC_SYS in tests),
 * read, checked for writing and written, each in a single system call.
 */
#ifndef _GNU_SOURCE	/* the Makefile may define it already */
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "tune.h"

const char *tune_env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

/*
 * /proc keeps multi-value sysctls tab-separated ("32768\t60999") while
 * people and sysctl.d files write spaces; compare and store one spelling.
 */
void tune_normalise(char *s)
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
			 tune_env_or("KLBCTL_PROC_SYS", "/proc/sys"), key);
	char *p;

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	/* Only the key part: the root may itself contain dots. */
	for (p = buf + n - strlen(key); *p; p++)
		if (*p == '.')
			*p = '/';
	return 0;
}

bool tune_same_value(const char *a, const char *b)
{
	char x[VAL_MAX], y[VAL_MAX];

	snprintf(x, sizeof(x), "%s", a);
	snprintf(y, sizeof(y), "%s", b);
	tune_normalise(x);
	tune_normalise(y);
	return strcmp(x, y) == 0;
}

/*
 * Reads the value as the file spells it, minus the final newline: that is
 * what gets saved and written back, so a restore is exact to the byte even
 * in a test tree of plain files. Returns 0, -ENOENT when the kernel has no
 * such key, or another -errno.
 */
int tune_sysctl_read(const char *key, char *val, size_t len)
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
		tune_normalise(val);
	return 0;
}

/*
 * Open for writing without writing: tells "not root" or "read-only mount"
 * before anything has been changed. O_NONBLOCK so that a FIFO planted in a
 * test tree fails instead of hanging; no O_TRUNC so a test tree's regular
 * file keeps its content.
 */
int tune_sysctl_check_writable(const char *key)
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

int tune_sysctl_write(const char *key, const char *val)
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
