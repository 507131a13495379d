// SPDX-License-Identifier: GPL-2.0
/*
 * The host map's table (hostmap.h): names prepared once when they are
 * configured, so that a lookup only hashes the request's Host, walks one
 * chain and compares bytes. The hash is SipHash-2-4 under the table's own
 * random key, over the lowercased name: a client cannot aim requests at
 * one long chain, and the chains stay short because the buckets are as
 * many as the entries (the next power of two).
 */
#include "hostmap.h"

static inline u64 klb_hm_rotl(u64 x, int b)
{
	return (x << b) | (x >> (64 - b));
}

struct klb_hm_sip {
	u64 v0, v1, v2, v3;
};

static void klb_hm_round(struct klb_hm_sip *s)
{
	s->v0 += s->v1;
	s->v1 = klb_hm_rotl(s->v1, 13);
	s->v1 ^= s->v0;
	s->v0 = klb_hm_rotl(s->v0, 32);
	s->v2 += s->v3;
	s->v3 = klb_hm_rotl(s->v3, 16);
	s->v3 ^= s->v2;
	s->v0 += s->v3;
	s->v3 = klb_hm_rotl(s->v3, 21);
	s->v3 ^= s->v0;
	s->v2 += s->v1;
	s->v1 = klb_hm_rotl(s->v1, 17);
	s->v1 ^= s->v2;
	s->v2 = klb_hm_rotl(s->v2, 32);
}

static void klb_hm_absorb(struct klb_hm_sip *s, u64 m)
{
	s->v3 ^= m;
	klb_hm_round(s);
	klb_hm_round(s);
	s->v0 ^= m;
}

/* SipHash-2-4 of @s lowercased, so that "Example.COM" hashes as its name. */
u32 klb_hm_hash(const struct klb_hm *t, const u8 *p, u32 len)
{
	struct klb_hm_sip s = {
		.v0 = t->k0 ^ 0x736f6d6570736575ULL,
		.v1 = t->k1 ^ 0x646f72616e646f6dULL,
		.v2 = t->k0 ^ 0x6c7967656e657261ULL,
		.v3 = t->k1 ^ 0x7465646279746573ULL,
	};
	u64 m = 0;
	u32 i;

	for (i = 0; i < len; i++) {
		m |= (u64)klb_l7_lower(p[i]) << (8 * (i & 7));
		if ((i & 7) == 7) {
			klb_hm_absorb(&s, m);
			m = 0;
		}
	}
	klb_hm_absorb(&s, m | (u64)len << 56);
	s.v2 ^= 0xff;
	for (i = 0; i < 4; i++)
		klb_hm_round(&s);
	m = s.v0 ^ s.v1 ^ s.v2 ^ s.v3;
	return (u32)(m ^ (m >> 32));
}

static u32 klb_hm_buckets(u32 cap)
{
	u32 b = 1;

	while (b < cap && b < 0x80000000U)
		b <<= 1;
	return b;
}

u64 klb_hm_mem_size(u32 cap, u32 names_cap)
{
	return (u64)cap * sizeof(struct klb_hm_entry) +
	       (u64)klb_hm_buckets(cap) * sizeof(u32) + names_cap;
}

void klb_hm_init(struct klb_hm *t, void *mem, u32 cap, u32 names_cap,
		 u64 k0, u64 k1)
{
	u32 nb = klb_hm_buckets(cap), i;

	*t = (struct klb_hm){
		.cap = cap, .mask = nb - 1, .names_cap = names_cap,
		.k0 = k0, .k1 = k1,
	};
	t->e = mem;
	t->bucket = (u32 *)(t->e + cap);
	t->names = (char *)(t->bucket + nb);
	for (i = 0; i < nb; i++)
		t->bucket[i] = 0;
}

static bool klb_hm_ldh(u8 c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

static bool klb_hm_hex(u8 c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
	       c == ':' || c == '.';
}

/* LDH labels between single dots, or "[IPv6]" as a Host carries it. */
static bool klb_hm_name_valid(const char *s, u32 len)
{
	bool label = false;
	u32 i;

	if (s[0] == '[') {
		if (len < 3 || s[len - 1] != ']')
			return false;
		for (i = 1; i < len - 1; i++)
			if (!klb_hm_hex(s[i]))
				return false;
		return true;
	}
	for (i = 0; i < len; i++) {
		if (s[i] == '.') {
			if (!label)
				return false;
			label = false;
		} else if (klb_hm_ldh(s[i])) {
			label = true;
		} else {
			return false;
		}
	}
	return label;
}

int klb_hm_name_prepare(const char *in, u32 len, char *out, u32 *olen,
			const char **msg)
{
	u32 i;

	if (len > 1 && in[len - 1] == '.')
		len--;
	if (!len || len > KLB_HM_NAME_MAX) {
		*msg = "host must have 1 to 253 characters";
		return -1;
	}
	if (in[0] == '*') {
		*msg = "the host map holds exact names: use a rule for *.domain";
		return -1;
	}
	for (i = 0; i < len; i++)
		out[i] = klb_l7_lower(in[i]);
	if (!klb_hm_name_valid(out, len)) {
		*msg = "host must be a hostname (letters, digits, '-', '_', dots) or [IPv6]";
		return -1;
	}
	*olen = len;
	*msg = NULL;
	return 0;
}

static int klb_hm_find_hashed(const struct klb_hm *t, const u8 *name,
			      u32 len, u32 hash)
{
	u32 i = t->bucket[hash & t->mask];

	while (i) {
		const struct klb_hm_entry *e = &t->e[i - 1];

		if (e->hash == hash &&
		    klb_l7_ieq((const u8 *)t->names + e->off, e->len, name, len))
			return i - 1;
		i = e->next;
	}
	return -1;
}

int klb_hm_find(const struct klb_hm *t, const u8 *name, u32 len)
{
	if (!t->n)
		return -1;
	return klb_hm_find_hashed(t, name, len, klb_hm_hash(t, name, len));
}

/* Append a name known to be absent, with its hash. */
static void klb_hm_append(struct klb_hm *t, const char *name, u32 len,
			  void *val, u32 hash)
{
	struct klb_hm_entry *e = &t->e[t->n];
	u32 i;

	e->val = val;
	e->hash = hash;
	e->off = t->names_len;
	e->len = len;
	for (i = 0; i < len; i++)
		t->names[e->off + i] = name[i];
	t->names_len += len;
	e->next = t->bucket[hash & t->mask];
	t->bucket[hash & t->mask] = ++t->n;
}

int klb_hm_add(struct klb_hm *t, const char *name, u32 len, void *val,
	       u32 *dup)
{
	u32 hash = klb_hm_hash(t, (const u8 *)name, len);
	int found;

	found = klb_hm_find_hashed(t, (const u8 *)name, len, hash);
	if (found >= 0) {
		*dup = found;
		return -1;
	}
	if (t->n >= t->cap || len > t->names_cap - t->names_len)
		return -2;
	klb_hm_append(t, name, len, val, hash);
	return 0;
}

void klb_hm_copy(struct klb_hm *dst, const struct klb_hm *src, u32 skip)
{
	u32 i;

	for (i = 0; i < src->n; i++) {
		const struct klb_hm_entry *e = &src->e[i];

		if (i == skip || dst->n >= dst->cap ||
		    e->len > dst->names_cap - dst->names_len)
			continue;
		klb_hm_append(dst, src->names + e->off, e->len, e->val,
			      e->hash);
	}
}

const struct klb_hm_entry *klb_hm_lookup(const struct klb_hm *t,
					 const u8 *host, u32 len)
{
	int i;

	len = klb_host_strip(host, len);
	if (!len || len > KLB_HM_NAME_MAX)
		return NULL;
	i = klb_hm_find(t, host, len);
	return i < 0 ? NULL : &t->e[i];
}
