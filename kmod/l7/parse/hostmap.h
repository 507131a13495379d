/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The host map of an http or tls service: exact host names (or SNI) ->
 * a value (the kernel's is a pool). Pure code over caller memory, also
 * built in userspace (tools/testing/unit/test_hostmap.c).
 *
 * One table is one block of memory, built once and then only read: the
 * kernel builds a new one for every change and publishes it under RCU
 * (config/hostmap.c), so readers take no lock and a lookup costs one
 * keyed hash and one short chain walk, whatever the number of names.
 *
 * Names are what klb_hm_name_prepare() makes of them: lowercase, without
 * one trailing dot, LDH labels (and '_') or an IP literal, 1..253 bytes.
 * A request's Host (or SNI) is looked up as the rules match it: without a
 * ":port" suffix and one trailing dot, case-insensitively.
 *
 * Layout of the block: entries[cap], buckets[pow2 >= cap] (index + 1 of
 * a chain's first entry, 0: empty), then the names, back to back. Entries
 * stay in insertion order, which is the order a dump and a save give.
 */
#ifndef _KLB_L7_HOSTMAP_H
#define _KLB_L7_HOSTMAP_H

#include "host_strip.h"	/* lookups strip as the rules do */
#include "l7_pure.h"

#define KLB_HM_NAME_MAX		253

struct klb_hm_entry {
	void *val;
	u32 hash;
	u32 next;		/* index + 1 of the next entry of the chain */
	u32 off;		/* of the name in names[] */
	u32 len;
};

struct klb_hm {
	u32 n, cap;		/* entries used, room */
	u32 mask;		/* buckets - 1 */
	u32 names_len, names_cap;
	u64 k0, k1;		/* SipHash key */
	struct klb_hm_entry *e;
	u32 *bucket;
	char *names;
};

/* Bytes of the block klb_hm_init() lays out for @cap names of @names_cap. */
u64 klb_hm_mem_size(u32 cap, u32 names_cap);
void klb_hm_init(struct klb_hm *t, void *mem, u32 cap, u32 names_cap,
		 u64 k0, u64 k1);

/*
 * Normalise a configured name (@len bytes of @in) into @out (room for
 * KLB_HM_NAME_MAX): 0 and its length in *@olen, or -1 with a message for
 * extack in *@msg.
 */
int klb_hm_name_prepare(const char *in, u32 len, char *out, u32 *olen,
			const char **msg);

/*
 * Add a prepared name: 0, -1 if the table has it already (*@dup: its
 * index), -2 if the table is full (a builder's bug: it sized it).
 */
int klb_hm_add(struct klb_hm *t, const char *name, u32 len, void *val,
	       u32 *dup);

/*
 * Copy every entry of @src but @skip (U32_MAX: none) into the empty @dst,
 * which has @src's key and room for them: hashes are kept, not computed.
 */
void klb_hm_copy(struct klb_hm *dst, const struct klb_hm *src, u32 skip);

/* SipHash-2-4 of @p lowercased under the table's key, folded to 32 bits. */
u32 klb_hm_hash(const struct klb_hm *t, const u8 *p, u32 len);

/* Index of @name (case-insensitive, exact), or -1. */
int klb_hm_find(const struct klb_hm *t, const u8 *name, u32 len);

/* The entry for a request's raw Host or SNI, or NULL. */
const struct klb_hm_entry *klb_hm_lookup(const struct klb_hm *t,
					 const u8 *host, u32 len);

static inline const char *klb_hm_name(const struct klb_hm *t, u32 i)
{
	return t->names + t->e[i].off;
}

#endif /* _KLB_L7_HOSTMAP_H */
