/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pools, backends, services and rules as klbctl sees them: the argument
 * parsers shared by the commands and by restore, and the dumps shared by
 * show and save.
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

/* A pool's active check (check.c); strings NULL when not given. */
struct check_spec {
	uint8_t kind;		/* enum klb_check_kind */
	bool has_port, has_interval, has_timeout, has_rise, has_fall;
	bool has_expect;
	uint16_t port, expect;
	uint32_t interval_ms, timeout_ms;
	uint8_t rise, fall;
	char *path, *host, *body, *sni;
};
/* "KIND [port P] [path /p] ... [fall N]": argv[0] is KIND */
int check_parse(int argc, char **argv, struct check_spec *c);
/* The KLB_POOL_A_CHECK nest, and the bytes of its strings. */
void check_put(struct req *r, const struct check_spec *c);
size_t check_strings(const struct check_spec *c);
/* From a dump (strings malloc'ed: check_spec_free()). */
int check_info_parse(const struct nlattr *nest, struct check_spec *c);
void check_spec_free(struct check_spec *c);
/* " check KIND ..." as save writes it; the "check" line/object of show. */
void check_save(const struct check_spec *c);
void check_print(const struct check_spec *c);
extern const struct word check_kind_words[];
extern const size_t n_check_kind_words;
extern const struct word all_unhealthy_words[];
extern const size_t n_all_unhealthy_words;
extern const struct word hash_words[];
extern const size_t n_hash_words;
extern const struct word health_words[];
extern const size_t n_health_words;

/* Passive health and slow start of a pool: the words given. */
struct passive_spec {
	bool has_fall, has_eject, has_5xx, has_slowstart;
	uint8_t fall;
	bool errors_5xx;
	uint32_t eject_ms, slowstart_ms;
};

struct pool_spec {
	const char *name;
	bool has_sched, has_check, has_all_unhealthy, has_hash;
	uint8_t sched;
	uint8_t all_unhealthy;
	uint8_t hash;			/* enum klb_hash */
	struct check_spec check;
	struct passive_spec passive;
};
/* "passive-fall N", "passive-eject DUR", "passive-5xx on|off", "slowstart DUR" */
int passive_parse_word(const char *key, const char *val, struct passive_spec *ps);
bool passive_given(const struct passive_spec *ps);
void passive_put(struct req *r, const struct passive_spec *ps);
/* Copy the given words of @from over @to (pool set lines of a config file). */
void passive_merge(struct passive_spec *to, const struct passive_spec *from);
/* "500ms", "2s", "1.5s" or "2" (seconds) in milliseconds. */
bool parse_duration_ms(const char *s, uint32_t *ms);
/*
 * "NAME [sched S] [all-unhealthy refuse|fail-open] [check KIND ...]"
 * (add; check takes the rest of the words) or the same with at least one
 * of them (set)
 */
int pool_parse(int argc, char **argv, bool add, struct pool_spec *p);

struct backend_spec {
	const char *pool;
	struct klb_addr addr;
	bool has_weight, has_state, has_maxconn;
	uint32_t weight;
	uint32_t maxconn;
	uint8_t state;
};
/* "POOL ADDR:PORT [weight N] [state S] [maxconn N]" (add: weight defaults to 1) */
int backend_parse(int argc, char **argv, bool add, struct backend_spec *b);
/* The BACKEND nest contents: address, port, weight, state if given. */
void backend_put(struct req *r, const struct backend_spec *b);

/* A service's source list (acl.c): given (on the line or in a reply). */
struct acl_prefix {
	struct klb_addr addr;
	uint8_t len;
};

struct acl_list {
	bool given;		/* "none": given with n 0 */
	unsigned int n;
	struct acl_prefix p[KLB_ACL_PREFIXES_MAX];
};

/* "P[,P...]" or "none" for the list @what ("allow", "deny"). */
int acl_parse(const char *what, const char *list, struct acl_list *l);
/* The list as nest @type, if given (empty: remove it). */
void acl_put(struct req *r, uint16_t type, const struct acl_list *l);
void acl_get(const struct nlattr *nest, struct acl_list *l);
const char *acl_prefix_str(const struct acl_prefix *p, char *buf, size_t len);
/* " allow P,P" in text, "allow": [...] in JSON; nothing if empty. */
void acl_print(const char *what, const struct acl_list *l);
/* " allow P,P" as save writes it; nothing if empty. */
void acl_save(const char *what, const struct acl_list *l);

struct service_spec {
	const char *name;
	bool has_addr, has_proto, has_mode, has_pp, has_persist, has_mask;
	struct klb_addr vip;
	uint8_t proto, mode, pp, mask;
	uint32_t persist;
	const char *pool;
	const char *cookie;
	unsigned int nsnat;
	struct klb_addr snat[KLB_SNAT_MAX];
	struct acl_list allow, deny;
};
/*
 * "NAME vip A:P proto P mode M pool POOL [proxy-protocol v2|none]
 *  [snat A[,A...]] [persist SECONDS [mask LEN]] [cookie NAME]" (add) or
 * "NAME [pool POOL] [proxy-protocol v2|none] [persist SECONDS] [mask LEN]"
 * (set)
 */
int service_parse(int argc, char **argv, bool add, struct service_spec *s);
/* The SERVICE nest contents, without rules. */
void service_put(struct req *r, const struct service_spec *s);

/* A rule as given: pointers into argv; NULL for a matcher not given. */
struct rule_spec {
	const char *service;
	const char *host, *path, *header, *method, *sni;
	size_t hname_len;	/* header is "NAME=VALUE": NAME's length */
	const char *pool;
};
/* "SERVICE [host H] [path P] [header N=V] [method M] [sni H] pool POOL" */
int rule_parse(int argc, char **argv, struct rule_spec *r);
/* The matchers and the pool (not the service) into the current nest. */
void rule_put(struct req *r, const struct rule_spec *spec);
/* Bytes of strings rule_put() sends, to size a request. */
size_t rule_strings(const struct rule_spec *spec);

/* ------------------------------------------------- objects read back */

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

struct backend_info {
	struct klb_addr addr;
	uint32_t weight;
	uint8_t state;
	struct klb_stats stats;
	bool has_health;	/* the pool has a check */
	uint8_t health;
	uint64_t check_ok, check_fail;
	uint32_t health_age;	/* seconds */
	char *check_error;	/* malloc'ed or NULL */
	bool has_passive;	/* the pool has passive health, or had */
	bool has_ejected;	/* ejected now, for ejected_ms */
	uint32_t ejected_ms, ejections;
	uint64_t passive_fail;
	bool has_weight_now;	/* slow start: its weight now */
	uint32_t weight_now;
	uint32_t maxconn;	/* 0: no cap */
};

struct pool_info {
	char *name;
	uint8_t sched;
	uint8_t all_unhealthy;
	uint8_t hash;			/* enum klb_hash */
	bool has_check;
	struct check_spec check;
	uint8_t passive_fall, passive_5xx;
	uint32_t passive_eject_ms, slowstart_ms;
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
	uint8_t proto, mode, pp, mask;
	uint32_t persist;
	char *pool;
	char *cookie;
	unsigned int nsnat;
	struct klb_addr snat[KLB_SNAT_MAX];
	struct acl_list allow, deny;
	bool has_nrules;	/* http and tls services say how many */
	uint32_t nrules;
	struct klb_stats stats;
};

struct service_list {
	struct service_info *s;
	size_t n, cap;
};

int service_dump(const char *name, struct service_list *l);
void service_list_free(struct service_list *l);

struct rule_info {
	uint32_t index;
	char *host, *path, *hname, *hvalue, *method, *sni;
	char *pool;
};

struct rule_list {
	struct rule_info *r;
	size_t n, cap;
};

/*
 * -s -s (metrics.c): the list was just dumped; dump it again a second
 * later and fill in the per-second rates of what is in both samples.
 */
int rates_services(const char *name, struct service_list *l);
int rates_pools(const char *name, struct pool_list *l);
/* KLB_CMD_ZERO of the service or pool (type KLB_A_SERVICE/POOL) or all (0). */
int zero_request(uint16_t type, const char *name);
/* One backend: a "\tbackend ..." line (pool.c). */
void backend_print(const struct backend_info *b);

/* The rules of one service, in order. */
int rule_dump(const char *service, struct rule_list *l);
void rule_list_free(struct rule_list *l);
/* "host H path P ... pool POOL", words quoted as in save; malloc'ed. */
char *rule_words(const struct rule_info *ri);

/* The persistence entries (of one service, or all), printed (persist.c). */
int persist_show(const char *service);

#endif
