/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pools, backends, services and rules as klbctl sees them. One struct per
 * object holds the words of a command or of a restore line (strings point
 * into argv) and what a dump reads back (strings malloc'ed: obj_free()).
 * Their tables (obj.h), in pool.c, backend.c, service.c and rule.c, say
 * which words there are; `given` has bit i set when field i of the table
 * was given or read.
 */
#ifndef KLBCTL_OBJECTS_H
#define KLBCTL_OBJECTS_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/klb.h>

#include "addr.h"

struct nlattr;
struct obj_desc;
struct vtype;

/* ------------------------------------------------ values of their own */

/* A pool's active check (check.c, vt_check); strings NULL when not given. */
struct check_spec {
	uint8_t kind;		/* enum klb_check_kind */
	bool has_port, has_interval, has_timeout, has_rise, has_fall;
	bool has_expect;
	uint16_t port, expect;
	uint32_t interval_ms, timeout_ms;
	uint8_t rise, fall;
	char *path, *host, *body, *sni;
};
/* "check KIND [port P] [path /p] ... [fall N]": the rest of the line */
extern const struct vtype vt_check;
extern const struct word check_kind_words[];
extern const size_t n_check_kind_words;
extern const struct word all_unhealthy_words[];
extern const size_t n_all_unhealthy_words;
extern const struct word hash_words[];
extern const size_t n_hash_words;
extern const struct word health_words[];
extern const size_t n_health_words;

/* "500ms", "2s", "1.5s" or "2" (seconds) in milliseconds. */
bool parse_duration_ms(const char *s, uint32_t *ms);

/* A service's source list (acl.c, vt_acl): "P[,P...]" or "none". */
struct acl_prefix {
	struct klb_addr addr;
	uint8_t len;
};

struct acl_list {
	unsigned int n;		/* "none": 0, which removes the list */
	struct acl_prefix p[KLB_ACL_PREFIXES_MAX];
};

extern const struct vtype vt_acl;

/* A service's fnat source addresses (service.c). */
struct snat_list {
	unsigned int n;
	struct klb_addr a[KLB_SNAT_MAX];
};

/* A rule's header matcher: "NAME=VALUE", NAME its first name_len bytes. */
struct rule_header {
	char *text;
	size_t name_len;
};

/* Counters of backends and services (stats.c). */
struct klb_stats {
	bool present;
	bool l7_present;			/* the L7 nest came */
	uint64_t v[KLB_STATS_A_MAX + 1];	/* by enum klb_stats_attr */
	uint64_t l7[KLB_L7_STATS_A_MAX + 1];	/* by enum klb_l7_stats_attr */
	bool rate_present;			/* -s -s: two samples taken */
	uint64_t rate[KLB_STATS_A_MAX + 1];	/* per second: conns, pkts, bytes */
	uint64_t rate_requests;			/* per second: L7 requests */
};
void stats_parse(const struct nlattr *nest, struct klb_stats *st);
/*
 * Lines of counters (text) / the "stats" object (JSON). l7: the key of the
 * L7 counters, "http" or "tls", or NULL for none.
 */
void stats_print(const struct klb_stats *st, bool service, const char *l7);

/* ------------------------------------------------------------ objects */

/* A backend's active check and passive health, as a dump reports them. */
struct backend_health {
	unsigned int health;	/* enum klb_backend_health */
	unsigned int age;	/* seconds */
	uint64_t ok, fail;
	char *error;		/* malloc'ed or NULL */
};

struct backend_passive {
	bool has_ejected;	/* ejected now, for ejected_ms */
	unsigned int ejected_ms, ejections;
	uint64_t fail;
};

struct backend {
	unsigned int given;
	char *pool;			/* its pool (a command's, not read back) */
	struct klb_addr addr;
	unsigned int weight, state, maxconn;
	/* read back only */
	struct backend_health health;
	struct backend_passive passive;
	unsigned int weight_now;	/* slow start: its weight now */
	struct klb_stats stats;
};

struct pool {
	unsigned int given;
	char *name;
	unsigned int sched, hash, all_unhealthy;
	unsigned int passive_fall, passive_eject_ms, passive_5xx;
	unsigned int slowstart_ms;
	struct check_spec check;
	struct backend *b;		/* read back: its backends */
	size_t n, cap;
};

struct service {
	unsigned int given;
	char *name;
	struct klb_addr vip;
	unsigned int proto, mode;
	char *pool;
	unsigned int pp;		/* proxy-protocol */
	unsigned int nrules;		/* read back: http and tls count rules */
	unsigned int nhosts;		/* read back: names in the host map */
	struct snat_list snat;
	unsigned int persist, mask;
	char *cookie;
	struct acl_list allow, deny;
	unsigned int adopt;		/* dr, tun tcp: read back when they */
	struct klb_stats stats;		/* read back */
};

struct rule {
	unsigned int given;
	char *service;
	char *host, *path;
	struct rule_header header;
	char *method, *sni, *pool;
	unsigned int index;		/* read back: its place, from 0 */
};

/* One name of a service's host map. */
struct hostmap {
	unsigned int given;
	char *service, *host, *pool;
};

/* The tables (obj.h). */
extern const struct obj_desc pool_desc, backend_desc, service_desc, rule_desc;
extern const struct obj_desc hostmap_desc;

/* --------------------------------------------------------------- dumps */

struct pool_list {
	struct pool *p;
	size_t n, cap;
};

/* All pools (name NULL) or one, in the kernel's order. */
int pool_dump(const char *name, struct pool_list *l);
void pool_list_free(struct pool_list *l);

/* backend.c: one backend of a pool dump; its "\tbackend ..." line. */
int backend_read(const struct nlattr *nest, struct backend *b);
void backend_print(const struct backend *b);

struct service_list {
	struct service *s;
	size_t n, cap;
};

int service_dump(const char *name, struct service_list *l);
void service_list_free(struct service_list *l);
/* http and tls services report a rule count: they may have rules. */
bool service_has_rules(const struct service *s);

struct rule_list {
	struct rule *r;
	size_t n, cap;
};

/* The rules of one service, in order. */
int rule_dump(const char *service, struct rule_list *l);
void rule_list_free(struct rule_list *l);

struct hostmap_list {
	struct hostmap *h;
	size_t n, cap;
};

/* The host maps of every service, or of @service, in their order. */
int hostmap_dump(const char *service, struct hostmap_list *l);
void hostmap_list_free(struct hostmap_list *l);

/* Names to send at once (load, restore): strings are the caller's. */
struct hostmap_batch {
	struct hostmap_line *e;
	size_t n, cap, bytes;
};

struct req;
bool hostmap_batch_add(struct hostmap_batch *b, const char *service,
		       const char *host, const char *pool, unsigned int line);
size_t hostmap_batch_wire(const struct hostmap_batch *b);
/* One top-level KLB_A_HOSTMAP per name, after whatever @r holds. */
void hostmap_batch_put(const struct hostmap_batch *b, struct req *r);
void hostmap_batch_free(struct hostmap_batch *b);

/*
 * -s -s (metrics.c): the list was just dumped; dump it again a second
 * later and fill in the per-second rates of what is in both samples.
 */
int rates_services(const char *name, struct service_list *l);
int rates_pools(const char *name, struct pool_list *l);
/* KLB_CMD_ZERO of the service or pool (type KLB_A_SERVICE/POOL) or all (0). */
int zero_request(uint16_t type, const char *name);

/* The persistence entries (of one service, or all), printed (persist.c). */
int persist_show(const char *service);

#endif
