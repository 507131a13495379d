/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pools, backends and services as klbctl sees them: the argument parsers
 * shared by the commands and by restore, and the dumps shared by show and
 * save.
 */
#ifndef KLBCTL_OBJECTS_H
#define KLBCTL_OBJECTS_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/klb.h>

#include "addr.h"

struct req;

/* ------------------------------------------------ parsed command lines */

/* Each parser prints its error and returns an exit status (0 = parsed). */

struct pool_spec {
	const char *name;
	bool has_sched;
	uint8_t sched;
};
/* "NAME [sched S]" (add) or "NAME sched S" (set) */
int pool_parse(int argc, char **argv, bool add, struct pool_spec *p);

struct backend_spec {
	const char *pool;
	struct klb_addr addr;
	bool has_weight, has_state;
	uint32_t weight;
	uint8_t state;
};
/* "POOL ADDR:PORT [weight N] [state S]" (add: weight defaults to 1) */
int backend_parse(int argc, char **argv, bool add, struct backend_spec *b);
/* The BACKEND nest contents: address, port, weight, state if given. */
void backend_put(struct req *r, const struct backend_spec *b);

struct service_spec {
	const char *name;
	bool has_addr, has_proto, has_mode;
	struct klb_addr vip;
	uint8_t proto, mode;
	const char *pool;
};
/* "NAME vip A:P proto P mode M pool POOL" (add) or "NAME pool POOL" (set) */
int service_parse(int argc, char **argv, bool add, struct service_spec *s);
/* The SERVICE nest contents. */
void service_put(struct req *r, const struct service_spec *s);

/* ------------------------------------------------- objects read back */

struct klb_stats {
	bool present;
	uint64_t v[KLB_STATS_A_MAX + 1];	/* by enum klb_stats_attr */
};
void stats_parse(const struct nlattr *nest, struct klb_stats *st);
/* One line of counters (text) / the "stats" object (JSON). */
void stats_print(const struct klb_stats *st, bool service);

struct backend_info {
	struct klb_addr addr;
	uint32_t weight;
	uint8_t state;
	struct klb_stats stats;
};

struct pool_info {
	char *name;
	uint8_t sched;
	struct backend_info *b;
	size_t n, cap;
};

struct pool_list {
	struct pool_info *p;
	size_t n, cap;
};

/* All pools (name NULL) or one, in the kernel's order. */
int pool_dump(const char *name, struct pool_list *l);
void pool_list_free(struct pool_list *l);

struct service_info {
	char *name;
	struct klb_addr vip;
	uint8_t proto, mode;
	char *pool;
	struct klb_stats stats;
};

struct service_list {
	struct service_info *s;
	size_t n, cap;
};

int service_dump(const char *name, struct service_list *l);
void service_list_free(struct service_list *l);

#endif
