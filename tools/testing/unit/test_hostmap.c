// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the host map's table (kmod/l7/parse/hostmap.c): names
 * prepared as configured (case, trailing dot, refusals), lookups of raw
 * Host values (case, port, trailing dot, IPv6 literal), duplicates,
 * collisions (one bucket), growth by rebuilding into a bigger block, and
 * the hash against SipHash-2-4's published test vectors.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hostmap.h"
#include "tap.h"

static struct klb_hm *hm_new(u32 cap, u32 names_cap)
{
	struct klb_hm *t = malloc(sizeof(*t));
	void *mem = malloc(klb_hm_mem_size(cap, names_cap));

	klb_hm_init(t, mem, cap, names_cap, 0x0706050403020100ULL,
		    0x0f0e0d0c0b0a0908ULL);
	return t;
}

static void hm_free(struct klb_hm *t)
{
	free(t->e);
	free(t);
}

static int add(struct klb_hm *t, const char *raw, long val)
{
	char name[KLB_HM_NAME_MAX];
	const char *msg;
	u32 len, dup;

	if (klb_hm_name_prepare(raw, strlen(raw), name, &len, &msg))
		return -3;
	return klb_hm_add(t, name, len, (void *)val, &dup);
}

static long get(const struct klb_hm *t, const char *host)
{
	const struct klb_hm_entry *e;

	e = klb_hm_lookup(t, (const u8 *)host, strlen(host));
	return e ? (long)e->val : 0;
}

static void test_vectors(void)
{
	struct klb_hm *t = hm_new(1, 1);
	u8 msg[15];
	u64 h;
	int i;

	for (i = 0; i < 15; i++)
		msg[i] = i;
	h = 0x726fdb47dd0e0e31ULL;	/* SipHash-2-4, empty message */
	tap_ok(klb_hm_hash(t, msg, 0) == (u32)(h ^ (h >> 32)),
	       "hash: SipHash-2-4 vector, empty message");
	h = 0xa129ca6149be45e5ULL;	/* 15 bytes 00..0e */
	tap_ok(klb_hm_hash(t, msg, 15) == (u32)(h ^ (h >> 32)),
	       "hash: SipHash-2-4 vector, 15 bytes");
	tap_ok(klb_hm_hash(t, (const u8 *)"WWW.Example.COM", 15) ==
	       klb_hm_hash(t, (const u8 *)"www.example.com", 15),
	       "hash: case-folded");
	hm_free(t);
}

static void test_prepare(void)
{
	static const struct {
		const char *in, *out;
	} cases[] = {
		{ "Example.COM", "example.com" },
		{ "example.com.", "example.com" },
		{ "a_b-c.example", "a_b-c.example" },
		{ "10.0.0.1", "10.0.0.1" },
		{ "[2001:DB8::1]", "[2001:db8::1]" },
		{ "localhost", "localhost" },
		{ "", NULL },
		{ ".", NULL },
		{ "a..b", NULL },
		{ ".a", NULL },
		{ "a.b..", NULL },
		{ "*.example.com", NULL },
		{ "exa mple.com", NULL },
		{ "example.com:80", NULL },
		{ "ex/ample", NULL },
		{ "[", NULL },
		{ "[zz]", NULL },
		{ "caf\xc3\xa9.fr", NULL },
	};
	char out[KLB_HM_NAME_MAX], big[300];
	const char *msg;
	u32 i, len;
	int rc;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		rc = klb_hm_name_prepare(cases[i].in, strlen(cases[i].in), out,
					 &len, &msg);
		if (cases[i].out)
			tap_ok(!rc && len == strlen(cases[i].out) &&
			       !memcmp(out, cases[i].out, len),
			       "prepare \"%s\" -> \"%s\"", cases[i].in,
			       cases[i].out);
		else
			tap_ok(rc == -1 && msg && *msg,
			       "prepare \"%s\" refused (%s)", cases[i].in,
			       msg ? msg : "no message");
	}
	memset(big, 'a', sizeof(big));
	for (i = 63; i < 253; i += 64)
		big[i] = '.';
	tap_ok(!klb_hm_name_prepare(big, 253, out, &len, &msg) && len == 253,
	       "prepare: 253 characters accepted");
	tap_ok(!klb_hm_name_prepare(big, 254, out, &len, &msg) && len == 253 ?
	       false : true, "prepare: 254 characters refused");
	big[253] = '.';
	tap_ok(!klb_hm_name_prepare(big, 254, out, &len, &msg) && len == 253,
	       "prepare: 253 characters and a trailing dot accepted");
}

static void test_lookup(void)
{
	struct klb_hm *t = hm_new(8, 256);

	tap_ok(!get(t, "example.com"), "lookup in an empty table misses");
	tap_ok(!add(t, "Example.com", 1) && !add(t, "www.example.com.", 2) &&
	       !add(t, "[::1]", 3) && !add(t, "10.1.2.3", 4),
	       "four names added");
	tap_ok(get(t, "example.com") == 1, "exact");
	tap_ok(get(t, "EXAMPLE.Com") == 1, "case-insensitive");
	tap_ok(get(t, "example.com:8080") == 1, "port stripped");
	tap_ok(get(t, "example.com.") == 1, "trailing dot stripped");
	tap_ok(get(t, "example.com.:80") == 1, "trailing dot and port");
	tap_ok(get(t, "www.example.com") == 2, "name added with a dot");
	tap_ok(!get(t, "x.example.com"), "no wildcard: other name misses");
	tap_ok(!get(t, "example.co"), "prefix misses");
	tap_ok(!get(t, "example.comm"), "longer misses");
	tap_ok(!get(t, ""), "empty host misses");
	tap_ok(!get(t, ":80"), "port only misses");
	tap_ok(get(t, "[::1]:443") == 3, "IPv6 literal with port");
	tap_ok(get(t, "10.1.2.3:80") == 4, "IPv4 literal with port");
	tap_ok(add(t, "EXAMPLE.COM", 9) == -1, "duplicate (other case) refused");
	tap_ok(add(t, "example.com.", 9) == -1, "duplicate (trailing dot) refused");
	tap_ok(get(t, "example.com") == 1, "a refused duplicate changes nothing");
	tap_ok(klb_hm_find(t, (const u8 *)"WWW.example.com", 15) == 1,
	       "find gives the insertion index");
	tap_ok(!strncmp(klb_hm_name(t, 1), "www.example.com", 15) &&
	       t->e[1].len == 15, "names kept normalised, in order");
	hm_free(t);
}

/* Every entry in one chain: a mask of 0 (one bucket), as a worst case. */
static void test_collisions(void)
{
	struct klb_hm *t = hm_new(1, 1);	/* one bucket */
	char name[32];
	u32 i;
	bool ok = true;

	hm_free(t);
	t = hm_new(64, 64 * 16);
	t->mask = 0;
	for (i = 0; i < 64; i++) {
		snprintf(name, sizeof(name), "h%u.test", i);
		ok &= !add(t, name, i + 1);
	}
	tap_ok(ok && t->n == 64, "64 names in one bucket");
	ok = true;
	for (i = 0; i < 64; i++) {
		snprintf(name, sizeof(name), "H%u.TEST:80", i);
		ok &= get(t, name) == (long)i + 1;
	}
	tap_ok(ok, "each found in a chain of 64");
	tap_ok(!get(t, "h64.test"), "a missing name walks the chain and misses");
	tap_ok(add(t, "h3.test", 1) == -1, "duplicate found in the chain");
	hm_free(t);
}

/* The kernel grows a table by building a bigger one from the old. */
static void test_growth(void)
{
	struct klb_hm *t = hm_new(2, 16), *big;
	char name[32];
	u32 i, n = 0, dup, longest = 0, len;
	bool ok = true;

	tap_ok(!add(t, "a.test", 1) && add(t, "bbbbbbbbbb.test", 2) == -2,
	       "names room full: -2");
	tap_ok(!add(t, "b.t", 2) && add(t, "c.t", 3) == -2,
	       "entries full: -2");
	while (t->n == t->cap || n < 100000) {
		big = hm_new(t->cap * 2, t->names_cap * 2 + 32);
		for (i = 0; i < t->n; i++)
			ok &= !klb_hm_add(big, klb_hm_name(t, i), t->e[i].len,
					  t->e[i].val, &dup);
		hm_free(t);
		t = big;
		for (; t->n < t->cap; n++) {
			snprintf(name, sizeof(name), "site%u.example", n);
			if (add(t, name, n + 3))
				break;
		}
		if (n >= 100000)
			break;
	}
	tap_ok(ok && t->n >= 100000, "grown to %u entries by rebuilds", t->n);
	ok = true;
	for (i = 0; i < 100000; i += 997) {
		snprintf(name, sizeof(name), "Site%u.Example.", i);
		ok &= get(t, name) == (long)i + 3;
	}
	tap_ok(ok, "every sampled name found after growth");
	tap_ok(get(t, "a.test") == 1 && get(t, "b.t") == 2,
	       "first entries kept across rebuilds");
	for (i = 0; i <= t->mask; i++) {
		u32 j = t->bucket[i];

		for (len = 0; j; j = t->e[j - 1].next)
			len++;
		if (len > longest)
			longest = len;
	}
	tap_diag("%u entries, %u buckets, longest chain %u", t->n,
		 t->mask + 1, longest);
	tap_ok(longest <= 12, "chains stay short (longest %u)", longest);
	hm_free(t);
}

/* Copies (the kernel's add and del) keep key, hashes and order. */
static void test_copy(void)
{
	struct klb_hm *t = hm_new(4, 64), *c;
	bool ok;

	add(t, "a.test", 1);
	add(t, "b.test", 2);
	add(t, "c.test", 3);
	c = malloc(sizeof(*c));
	klb_hm_init(c, malloc(klb_hm_mem_size(3, 64)), 3, 64, t->k0, t->k1);
	klb_hm_copy(c, t, 1);
	tap_ok(c->n == 2 && get(c, "a.test") == 1 && !get(c, "b.test") &&
	       get(c, "C.TEST") == 3, "copy without entry 1");
	tap_ok(!strncmp(klb_hm_name(c, 1), "c.test", 6),
	       "copy keeps the order");
	ok = !add(c, "d.test", 4) && get(c, "d.test") == 4 &&
	     add(c, "a.test", 9) == -1;
	tap_ok(ok, "a copy takes new names and refuses its old ones");
	tap_ok(c->e[0].hash == t->e[0].hash, "copy keeps the hashes");
	hm_free(c);
	c = malloc(sizeof(*c));
	klb_hm_init(c, malloc(klb_hm_mem_size(1, 6)), 1, 6, t->k0, t->k1);
	klb_hm_copy(c, t, UINT32_MAX);
	tap_ok(c->n == 1, "copy into too small a table stops at its room");
	hm_free(c);
	hm_free(t);
}

int main(void)
{
	test_vectors();
	test_prepare();
	test_lookup();
	test_collisions();
	test_growth();
	test_copy();
	return tap_done();
}
