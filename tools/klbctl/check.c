// SPDX-License-Identifier: GPL-2.0
/*
 * A pool's active check: "check KIND [port P] [path /p] [host H]
 * [expect 2xx|200] [body STR] [sni NAME] [interval 2s] [timeout 1s]
 * [rise N] [fall N]" and "check none", into a request and back out of a
 * dump (pool show, save). Numbers are passed on as given: the kernel
 * checks ranges and combinations, with the same messages for a command
 * and a restored file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>

#include "klbctl.h"
#include "nl.h"
#include "objects.h"
#include "print.h"

const struct word check_kind_words[] = {
	{ "none", KLB_CHECK_NONE },
	{ "tcp", KLB_CHECK_TCP },
	{ "http", KLB_CHECK_HTTP },
	{ "tls", KLB_CHECK_TLS },
};
const size_t n_check_kind_words = ARRAY_SIZE(check_kind_words);

const struct word all_unhealthy_words[] = {
	{ "refuse", KLB_ALL_UNHEALTHY_REFUSE },
	{ "fail-open", KLB_ALL_UNHEALTHY_FAIL_OPEN },
};
const size_t n_all_unhealthy_words = ARRAY_SIZE(all_unhealthy_words);

/* What a pool's sh and mh hash. */
const struct word hash_words[] = {
	{ "src", KLB_HASH_SRC },
	{ "5tuple", KLB_HASH_5TUPLE },
};
const size_t n_hash_words = ARRAY_SIZE(hash_words);

const struct word health_words[] = {
	{ "unknown", KLB_HEALTH_UNKNOWN },
	{ "healthy", KLB_HEALTH_HEALTHY },
	{ "unhealthy", KLB_HEALTH_UNHEALTHY },
};
const size_t n_health_words = ARRAY_SIZE(health_words);

bool parse_duration_ms(const char *s, uint32_t *ms)
{
	unsigned long long whole = 0, frac = 0, scale = 1000;
	const char *p = s;
	bool digits = false;

	for (; *p >= '0' && *p <= '9'; p++, digits = true)
		if ((whole = whole * 10 + (unsigned int)(*p - '0')) > UINT32_MAX)
			return false;
	if (*p == '.') {
		for (p++; *p >= '0' && *p <= '9'; p++, digits = true) {
			scale /= 10;
			frac += (unsigned int)(*p - '0') * scale;
		}
		if (!strcmp(p, "ms"))
			return false;	/* no fractions of a millisecond */
	}
	if (!digits)
		return false;
	if (!strcmp(p, "ms")) {
		*ms = (uint32_t)whole;
		return true;
	}
	if (*p && strcmp(p, "s"))
		return false;
	if (whole * 1000 + frac > UINT32_MAX)
		return false;
	*ms = (uint32_t)(whole * 1000 + frac);
	return true;
}

/* "2xx" -> 2, "200" -> 200 */
static bool parse_expect(const char *s, uint16_t *v)
{
	uint64_t x;

	if (strlen(s) == 3 && s[0] >= '0' && s[0] <= '9' &&
	    !strcmp(s + 1, "xx")) {
		*v = (uint16_t)(s[0] - '0');
		return true;
	}
	if (!parse_u64_max(s, 65535, &x))
		return false;
	*v = (uint16_t)x;
	return true;
}

int check_parse(int argc, char **argv, struct check_spec *c)
{
	unsigned int kind;
	uint64_t x;
	int ret;

	memset(c, 0, sizeof(*c));
	if (argc < 1)
		return usage_errorf("pool", "missing check KIND after \"check\"");
	ret = parse_word("check kind", argv[0], check_kind_words,
			 n_check_kind_words, &kind);
	if (ret)
		return ret;
	c->kind = (uint8_t)kind;
	for (argc--, argv++; argc > 0; argc -= 2, argv += 2) {
		const char *k = argv[0], *v = argv[1];

		if (argc < 2)
			return usage_errorf("pool", "missing value after \"%s\"", k);
		if (!strcmp(k, "port")) {
			if (!parse_u64_max(v, 65535, &x))
				return usage_errorf("pool", "invalid check port \"%s\"", v);
			c->has_port = true;
			c->port = (uint16_t)x;
		} else if (!strcmp(k, "interval") || !strcmp(k, "timeout")) {
			uint32_t ms;

			if (!parse_duration_ms(v, &ms))
				return usage_errorf("pool", "invalid check %s \"%s\": expected a duration such as 2s or 500ms",
						    k, v);
			if (k[0] == 'i') {
				c->has_interval = true;
				c->interval_ms = ms;
			} else {
				c->has_timeout = true;
				c->timeout_ms = ms;
			}
		} else if (!strcmp(k, "rise") || !strcmp(k, "fall")) {
			if (!parse_u64_max(v, 255, &x))
				return usage_errorf("pool", "invalid check %s \"%s\"", k, v);
			if (k[0] == 'r') {
				c->has_rise = true;
				c->rise = (uint8_t)x;
			} else {
				c->has_fall = true;
				c->fall = (uint8_t)x;
			}
		} else if (!strcmp(k, "expect")) {
			if (!parse_expect(v, &c->expect))
				return usage_errorf("pool", "invalid check expect \"%s\": expected a class such as 2xx or a status such as 200",
						    v);
			c->has_expect = true;
		} else if (!strcmp(k, "path")) {
			c->path = argv[1];
		} else if (!strcmp(k, "host")) {
			c->host = argv[1];
		} else if (!strcmp(k, "body")) {
			c->body = argv[1];
		} else if (!strcmp(k, "sni")) {
			c->sni = argv[1];
		} else {
			return usage_errorf("pool", "unknown check argument \"%s\"", k);
		}
	}
	return EXIT_OK;
}

void check_put(struct req *r, const struct check_spec *c)
{
	struct nlattr *nest = req_nest_start(r, KLB_POOL_A_CHECK);

	req_put_u8(r, KLB_CHECK_A_KIND, c->kind);
	if (c->has_port)
		req_put_u16(r, KLB_CHECK_A_PORT, c->port);
	if (c->has_interval)
		req_put_u32(r, KLB_CHECK_A_INTERVAL_MS, c->interval_ms);
	if (c->has_timeout)
		req_put_u32(r, KLB_CHECK_A_TIMEOUT_MS, c->timeout_ms);
	if (c->has_rise)
		req_put_u8(r, KLB_CHECK_A_RISE, c->rise);
	if (c->has_fall)
		req_put_u8(r, KLB_CHECK_A_FALL, c->fall);
	if (c->has_expect)
		req_put_u16(r, KLB_CHECK_A_EXPECT, c->expect);
	if (c->path)
		req_put_strz(r, KLB_CHECK_A_PATH, c->path);
	if (c->host)
		req_put_strz(r, KLB_CHECK_A_HOST, c->host);
	if (c->body)
		req_put_strz(r, KLB_CHECK_A_BODY, c->body);
	if (c->sni)
		req_put_strz(r, KLB_CHECK_A_SNI, c->sni);
	req_nest_end(r, nest);
}

size_t check_strings(const struct check_spec *c)
{
	return 64 + (c->path ? strlen(c->path) : 0) +
	       (c->host ? strlen(c->host) : 0) +
	       (c->body ? strlen(c->body) : 0) + (c->sni ? strlen(c->sni) : 0);
}

int check_info_parse(const struct nlattr *nest, struct check_spec *c)
{
	const struct nlattr *tb[KLB_CHECK_A_MAX + 1];

	memset(c, 0, sizeof(*c));
	nest_parse(nest, tb, KLB_CHECK_A_MAX);
	c->kind = attr_u8(tb[KLB_CHECK_A_KIND], KLB_CHECK_NONE);
	c->has_port = tb[KLB_CHECK_A_PORT];
	c->port = attr_u16(tb[KLB_CHECK_A_PORT], 0);
	c->has_interval = c->has_timeout = c->has_rise = c->has_fall = true;
	c->interval_ms = attr_u32(tb[KLB_CHECK_A_INTERVAL_MS], 0);
	c->timeout_ms = attr_u32(tb[KLB_CHECK_A_TIMEOUT_MS], 0);
	c->rise = attr_u8(tb[KLB_CHECK_A_RISE], 0);
	c->fall = attr_u8(tb[KLB_CHECK_A_FALL], 0);
	c->has_expect = tb[KLB_CHECK_A_EXPECT];
	c->expect = attr_u16(tb[KLB_CHECK_A_EXPECT], 0);
	c->path = attr_strdup(tb[KLB_CHECK_A_PATH]);
	c->host = attr_strdup(tb[KLB_CHECK_A_HOST]);
	c->body = attr_strdup(tb[KLB_CHECK_A_BODY]);
	c->sni = attr_strdup(tb[KLB_CHECK_A_SNI]);
	return 0;
}

void check_spec_free(struct check_spec *c)
{
	free(c->path);
	free(c->host);
	free(c->body);
	free(c->sni);
	memset(c, 0, sizeof(*c));
}

static void expect_str(uint16_t v, char *buf, size_t len)
{
	if (v < 10)
		snprintf(buf, len, "%uxx", v);
	else
		snprintf(buf, len, "%u", v);
}

/* A string as save writes it: quoted when it must be. */
static void save_word(const char *key, const char *s)
{
	char *q = word_quote(s);

	printf(" %s %s", key, q ? q : s);
	free(q);
}

void check_save(const struct check_spec *c)
{
	char buf[32];

	printf(" check %s", word_name(check_kind_words, n_check_kind_words,
				      c->kind, buf, sizeof(buf)));
	if (c->has_port)
		printf(" port %u", c->port);
	if (c->path)
		save_word("path", c->path);
	if (c->host)
		save_word("host", c->host);
	if (c->has_expect) {
		expect_str(c->expect, buf, sizeof(buf));
		printf(" expect %s", buf);
	}
	if (c->body)
		save_word("body", c->body);
	if (c->sni)
		save_word("sni", c->sni);
	printf(" interval %ums timeout %ums rise %u fall %u", c->interval_ms,
	       c->timeout_ms, c->rise, c->fall);
}

void check_print(const struct check_spec *c)
{
	char buf[32];

	open_json_object("check");
	print_string(PRINT_ANY, "kind", "\tcheck %s",
		     word_name(check_kind_words, n_check_kind_words, c->kind,
			       buf, sizeof(buf)));
	if (c->has_port)
		print_uint(PRINT_ANY, "port", " port %u", c->port);
	if (c->path)
		print_string(PRINT_ANY, "path", " path %s", c->path);
	if (c->host)
		print_string(PRINT_ANY, "host", " host %s", c->host);
	if (c->has_expect) {
		expect_str(c->expect, buf, sizeof(buf));
		print_string(PRINT_ANY, "expect", " expect %s", buf);
	}
	if (c->body)
		print_string(PRINT_ANY, "body", " body \"%s\"", c->body);
	if (c->sni)
		print_string(PRINT_ANY, "sni", " sni %s", c->sni);
	print_uint(PRINT_ANY, "interval_ms", " interval %ums", c->interval_ms);
	print_uint(PRINT_ANY, "timeout_ms", " timeout %ums", c->timeout_ms);
	print_uint(PRINT_ANY, "rise", " rise %u", c->rise);
	print_uint(PRINT_ANY, "fall", " fall %u", c->fall);
	print_nl();
	close_json_object();
}
