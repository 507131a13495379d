// SPDX-License-Identifier: GPL-2.0
/*
 * A pool's active check: "check KIND [port P] [path /p] [host H]
 * [expect 2xx|200] [body STR] [sni NAME] [interval 2s] [timeout 1s]
 * [rise N] [fall N]" and "check none", into a request and back out of a
 * dump (pool show, save): the value of the pool's "check" word (vt_check,
 * obj.h), which takes the rest of the line. Numbers are passed on as
 * given: the kernel checks ranges and combinations, with the same
 * messages for a command and a restored file.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libmnl/libmnl.h>

#include "klbctl.h"
#include "nl.h"
#include "obj.h"
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

static int check_parse(int argc, char **argv, struct check_spec *c)
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

static void check_put(struct req *r, unsigned short type,
		      const struct check_spec *c)
{
	struct nlattr *nest = req_nest_start(r, type);

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

static size_t check_strings(const struct check_spec *c)
{
	return 64 + (c->path ? strlen(c->path) : 0) +
	       (c->host ? strlen(c->host) : 0) +
	       (c->body ? strlen(c->body) : 0) + (c->sni ? strlen(c->sni) : 0);
}

static void check_info_parse(const struct nlattr *nest, struct check_spec *c)
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
}

static void check_spec_free(struct check_spec *c)
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

/*
 * A string word: in save as restore reads it back, in show as it is (the
 * body in quotes: it may hold blanks); its word is its JSON key.
 */
static void check_string(enum output_type t, enum wmode m, const char *word,
			 const char *s)
{
	char *q;

	if (!s)
		return;
	q = m == W_SAVE ? word_quote(s) : NULL;
	print_string(t & PRINT_FP, NULL, " %s", word);
	print_string(t & PRINT_FP, NULL,
		     m == W_SHOW && !strcmp(word, "body") ? " \"%s\"" : " %s",
		     q ? q : s);
	print_string(t & PRINT_JSON, word, NULL, s);
	free(q);
}

/* Save: " check KIND ..." on the pool's line; show: a line of its own. */
static void check_print(enum output_type t, const struct field *f,
			const void *val, enum wmode m)
{
	const struct check_spec *c = val;
	char buf[32];

	open_json_object(f->json);
	print_string(t & PRINT_FP, NULL, m == W_SHOW ? "\t%s" : " %s", f->word);
	print_string(t, "kind", " %s",
		     word_name(check_kind_words, n_check_kind_words, c->kind,
			       buf, sizeof(buf)));
	if (c->has_port)
		print_uint(t, "port", " port %u", c->port);
	check_string(t, m, "path", c->path);
	check_string(t, m, "host", c->host);
	if (c->has_expect) {
		expect_str(c->expect, buf, sizeof(buf));
		print_string(t, "expect", " expect %s", buf);
	}
	check_string(t, m, "body", c->body);
	check_string(t, m, "sni", c->sni);
	print_uint(t, "interval_ms", " interval %ums", c->interval_ms);
	print_uint(t, "timeout_ms", " timeout %ums", c->timeout_ms);
	print_uint(t, "rise", " rise %u", c->rise);
	print_uint(t, "fall", " fall %u", c->fall);
	if (m == W_SHOW)
		print_nl();
	close_json_object();
}

/* ------------------------------------------------- the pool's value */

static int check_val_parse(const struct field *f, const char *obj, int argc,
			   char **argv, void *val)
{
	(void)f;
	(void)obj;
	return check_parse(argc, argv, val);
}

static void check_val_put(struct req *r, const struct field *f, const void *val)
{
	check_put(r, f->attr, val);
}

/* A later message of the same pool may carry it again: the last wins. */
static int check_val_get(const struct field *f, const struct nlattr *const *tb,
			 void *val)
{
	if (!tb[f->attr])
		return 0;
	check_spec_free(val);
	check_info_parse(tb[f->attr], val);
	return 1;
}

static void check_val_free(void *val)
{
	check_spec_free(val);
}

static size_t check_val_wire(const void *val)
{
	return check_strings(val);
}

const struct vtype vt_check = {
	.size = sizeof(struct check_spec),
	.parse = check_val_parse,
	.put = check_val_put,
	.get = check_val_get,
	.print = check_print,
	.free = check_val_free,
	.wire = check_val_wire,
};
