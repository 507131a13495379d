// SPDX-License-Identifier: GPL-2.0
/*
 * klbctl tune: the keys it manages and the values each profile wants,
 * "stingray" (the white paper's) or "modern" (sized from this host's RAM).
 */
#ifndef _GNU_SOURCE	/* the Makefile may define it already */
#define _GNU_SOURCE
#endif
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>
#include <unistd.h>

#include "tune.h"

const struct tune_key tune_keys[NKEYS] = {
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

int tune_profile_get(const char *name, struct profile_values *p)
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

int tune_key_index(const char *name)
{
	for (int i = 0; i < NKEYS; i++)
		if (strcmp(tune_keys[i].name, name) == 0)
			return i;
	return -1;
}
