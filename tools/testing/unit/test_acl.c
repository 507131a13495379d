// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the source prefix lists in kmod/acl_match.c: fixed cases
 * (deny wins, an allow list admits only its prefixes, families apart,
 * /0 and /128 edges, host bits refused), then random lists checked
 * against a linear scan of the list as given.
 */
#include <stdio.h>
#include <string.h>

#include "acl_match.h"
#include "tap.h"

static struct klb_acl_prefix v4(u32 a, u8 len)
{
	struct klb_acl_prefix p = { .a = { .lo = a }, .len = len };

	return p;
}

static struct klb_acl_addr a4(u32 a)
{
	struct klb_acl_addr x = { .lo = a };

	return x;
}

static struct klb_acl_prefix v6(u64 hi, u64 lo, u8 len)
{
	struct klb_acl_prefix p = { .a = { .hi = hi, .lo = lo, .v6 = true },
				    .len = len };

	return p;
}

static struct klb_acl_addr a6(u64 hi, u64 lo)
{
	struct klb_acl_addr x = { .hi = hi, .lo = lo, .v6 = true };

	return x;
}

static void fixed(void)
{
	struct klb_acl_prefix allow[4], deny[4], dup[5];
	u32 na, nd, n;

	allow[0] = v4(0x0a000000, 8);		/* 10/8 */
	allow[1] = v6(0xfd00000000000000ULL, 0, 16);	/* fd00::/16 */
	deny[0] = v4(0x0a000003, 32);		/* 10.0.0.3 */
	deny[1] = v6(0xfd00000000000000ULL, 3, 128);	/* fd00::3 */
	na = klb_acl_normalise(allow, 2);
	nd = klb_acl_normalise(deny, 2);
	tap_ok(na == 2 && nd == 2, "normalise keeps disjoint prefixes");
	tap_ok(klb_acl_allows(allow, na, deny, nd, &(struct klb_acl_addr){ .lo = 0x0a000002 }),
	       "10.0.0.2 allowed");
	tap_ok(!klb_acl_allows(allow, na, deny, nd, &(struct klb_acl_addr){ .lo = 0x0a000003 }),
	       "10.0.0.3 denied: deny wins over allow");
	tap_ok(!klb_acl_allows(allow, na, deny, nd, &(struct klb_acl_addr){ .lo = 0x0b000001 }),
	       "11.0.0.1 not in the allow list");
	tap_ok(klb_acl_allows(allow, na, deny, nd, &(struct klb_acl_addr){ .hi = 0xfd00000000000000ULL, .lo = 2, .v6 = true }),
	       "fd00::2 allowed");
	tap_ok(!klb_acl_allows(allow, na, deny, nd, &(struct klb_acl_addr){ .hi = 0xfd00000000000000ULL, .lo = 3, .v6 = true }),
	       "fd00::3 denied");
	tap_ok(!klb_acl_allows(allow, na, NULL, 0, &(struct klb_acl_addr){ .lo = 0x0a000003, .v6 = true }),
	       "::10.0.0.3 (IPv6) is not in 10/8");
	tap_ok(klb_acl_allows(NULL, 0, deny, nd, &(struct klb_acl_addr){ .lo = 0x0b000001 }),
	       "no allow list: all but the denied pass");

	dup[0] = v4(0x0a000000, 24);
	dup[1] = v4(0, 0);
	dup[2] = v4(0x0a000000, 24);
	dup[3] = v4(0xc0a80000, 16);
	dup[4] = v6(0, 0, 0);
	n = klb_acl_normalise(dup, 5);
	tap_ok(n == 2 && dup[0].len == 0 && !dup[0].a.v6 && dup[1].a.v6,
	       "0.0.0.0/0 holds the IPv4 ones, ::/0 stays apart (%u left)", n);
	tap_ok(klb_acl_match(dup, n, &(struct klb_acl_addr){ .lo = 0xffffffff }) &&
	       klb_acl_match(dup, n, &(struct klb_acl_addr){ .hi = ~0ULL, .lo = ~0ULL, .v6 = true }),
	       "/0 matches the top addresses");

	tap_ok(klb_acl_prefix_valid(&(struct klb_acl_prefix){ .a = { .lo = 0x0a000000 }, .len = 8 }),
	       "10.0.0.0/8 valid");
	tap_ok(!klb_acl_prefix_valid(&(struct klb_acl_prefix){ .a = { .lo = 0x0a000001 }, .len = 8 }),
	       "10.0.0.1/8 refused: host bits");
	tap_ok(!klb_acl_prefix_valid(&(struct klb_acl_prefix){ .a = { .lo = 0x0a000000 }, .len = 33 }),
	       "/33 refused for IPv4");
	tap_ok(!klb_acl_prefix_valid(&(struct klb_acl_prefix){ .a = { .v6 = true }, .len = 129 }),
	       "/129 refused for IPv6");
	tap_ok(klb_acl_prefix_valid(&(struct klb_acl_prefix){ .a = { .hi = 1, .lo = 1, .v6 = true }, .len = 128 }),
	       "an IPv6 /128 valid");
	tap_ok(!klb_acl_prefix_valid(&(struct klb_acl_prefix){ .a = { .hi = 0, .lo = 1ULL << 63, .v6 = true }, .len = 64 }),
	       "IPv6 /64 with a bit in the low half refused");
}

/* A random valid prefix, near others so that they overlap often. */
static struct klb_acl_prefix rnd_prefix(void)
{
	struct klb_acl_prefix p;
	u8 len;

	if (rnd() & 1) {
		len = rnd() % 33;
		p = v4((0x0a000000 | (rnd() & 0xffff)) &
		       (len ? ~0U << (32 - len) : 0), len);
	} else {
		len = 96 + rnd() % 33;
		p = v6(0xfd00000000000000ULL, 0, len);
		p.a.lo = (u64)(rnd() & 0xffff) & (len > 64 ? ~0ULL << (128 - len) : 0);
	}
	return p;
}

static struct klb_acl_addr rnd_addr(void)
{
	return rnd() & 1 ? a4(0x0a000000 | (rnd() & 0xffff)) :
			   a6(0xfd00000000000000ULL, rnd() & 0xffff);
}

/* The reference: any prefix of the list as given holds @a. */
static bool linear(const struct klb_acl_prefix *p, u32 n,
		   const struct klb_acl_addr *a)
{
	struct klb_acl_prefix one[1];
	u32 i;

	for (i = 0; i < n; i++) {
		one[0] = p[i];
		if (klb_acl_match(one, 1, a))
			return true;
	}
	return false;
}

static void randomised(void)
{
	struct klb_acl_prefix orig[64], norm[64];
	struct klb_acl_addr a;
	u32 round, i, n, nn, bad = 0, invalid = 0, checks = 0;

	rng_state = 21;
	for (round = 0; round < 2000; round++) {
		n = rnd() % 65;
		for (i = 0; i < n; i++) {
			orig[i] = rnd_prefix();
			invalid += !klb_acl_prefix_valid(&orig[i]);
		}
		memcpy(norm, orig, sizeof(orig));
		nn = klb_acl_normalise(norm, n);
		for (i = 0; i < 200; i++, checks++) {
			a = rnd_addr();
			if (klb_acl_match(norm, nn, &a) != linear(orig, n, &a))
				bad++;
		}
	}
	tap_ok(!invalid, "random prefixes are valid (%u not)", invalid);
	tap_ok(!bad, "binary search over the normalised list = linear scan (%u of %u differ)",
	       bad, checks);
}

int main(void)
{
	fixed();
	randomised();
	return tap_done();
}
