// SPDX-License-Identifier: GPL-2.0
/*
 * Maglev consistent hashing (Eisenbud et al., "Maglev: A Fast and Reliable
 * Software Network Load Balancer", NSDI 2016, section 3.4), with weights.
 *
 * Every backend has a preference list: a permutation of the m table slots
 * given by an offset and a skip derived from its stable key (m prime makes
 * every skip in [1, m - 1] visit every slot). Backends take turns claiming
 * their next preferred free slot until the table is full. Because a
 * backend's preferences depend only on its own key, removing one of N
 * backends frees its ~m/N slots for the others and disturbs few of the
 * rest: about 1/N of the clients move, not all of them as with sh.
 *
 * Weights: the paper gives every backend one turn per round. Here a
 * backend of weight w takes its k-th turn in round ceil(k * wmax / w), so
 * the heaviest backend claims a slot every round and the others in
 * proportion to their weight; within a round backends go in key order. With
 * equal weights this is exactly the paper's algorithm. Turns are taken from
 * a min-heap ordered by (round, key order) rather than by walking every
 * backend every round: with one heavy backend and many light ones most of
 * those walks would find nothing to do, O(m * n) instead of O(m log n).
 *
 * The module hashes the client source address into the lookup key, so a
 * client sticks to one backend for as long as the backend set is unchanged
 * (and mostly even when it changes), like sh.
 */
#include "algo.h"

u32 klb_mh_scratch_len(u32 n)
{
	return 6 * n;
}

/* Does backend a come before b in build order: by key, then by index? */
static bool klb_mh_before(const u32 *keys, u32 a, u32 b)
{
	return keys[a] < keys[b] || (keys[a] == keys[b] && a < b);
}

static void klb_mh_swap(u32 *a, u32 *b)
{
	u32 tmp = *a;

	*a = *b;
	*b = tmp;
}

static void klb_mh_sort_sift(u32 *order, const u32 *keys, u32 root, u32 len)
{
	u32 child;

	while ((child = 2 * root + 1) < len) {
		if (child + 1 < len &&
		    klb_mh_before(keys, order[child], order[child + 1]))
			child++;
		if (!klb_mh_before(keys, order[root], order[child]))
			return;
		klb_mh_swap(&order[root], &order[child]);
		root = child;
	}
}

/*
 * Heapsort the indices by key: O(n log n), no recursion, no allocation.
 * Sorting makes the table a function of the backend set alone, so adding a
 * removed backend back (at the end of the pool's list) restores the table
 * exactly.
 */
static void klb_mh_sort(u32 *order, const u32 *keys, u32 n)
{
	u32 i;

	for (i = 0; i < n; i++)
		order[i] = i;
	for (i = n / 2; i-- > 0;)
		klb_mh_sort_sift(order, keys, i, n);
	for (i = n; i-- > 1;) {
		klb_mh_swap(&order[0], &order[i]);
		klb_mh_sort_sift(order, keys, 0, i);
	}
}

/*
 * The turn heap holds ranks (positions in key order); rank r is backend
 * order[r], whose next turn is in round next[order[r]]. Earlier round
 * first, then lower rank.
 */
struct klb_mh_heap {
	u32 *heap;
	u32 len;
	const u32 *order;
	const u32 *next;
};

static bool klb_mh_heap_less(const struct klb_mh_heap *h, u32 a, u32 b)
{
	u32 na = h->next[h->order[a]], nb = h->next[h->order[b]];

	return na < nb || (na == nb && a < b);
}

static void klb_mh_heap_sift(struct klb_mh_heap *h, u32 root)
{
	u32 child;

	while ((child = 2 * root + 1) < h->len) {
		if (child + 1 < h->len &&
		    klb_mh_heap_less(h, h->heap[child + 1], h->heap[child]))
			child++;
		if (!klb_mh_heap_less(h, h->heap[child], h->heap[root]))
			return;
		klb_mh_swap(&h->heap[root], &h->heap[child]);
		root = child;
	}
}

/* Round of turn k (1-based) of a backend of weight w, saturating. */
static u32 klb_mh_turn_round(u32 k, u32 w, u32 wmax)
{
	u64 r = ((u64)k * wmax + w - 1) / w;

	return r > 0xffffffffULL ? 0xffffffffU : (u32)r;
}

u32 klb_mh_build(u32 *table, u32 m, const u32 *keys, const u32 *weights,
		 u32 n, u32 *scratch)
{
	u32 *order = scratch, *pos = scratch + n, *skip = scratch + 2 * n;
	u32 *next = scratch + 3 * n, *turns = scratch + 4 * n;
	struct klb_mh_heap h = {
		.heap = scratch + 5 * n, .order = order, .next = next,
	};
	u32 i, b, c, wmax = 0, filled = 0;

	for (i = 0; i < m; i++)
		table[i] = KLB_PICK_NONE;
	for (i = 0; i < n; i++)
		if (weights[i] > wmax)
			wmax = weights[i];
	if (!wmax || m < 2)
		return 0;

	klb_mh_sort(order, keys, n);
	for (i = 0; i < n; i++) {
		/* Two different mixes of the key: offset and skip independent. */
		pos[i] = klb_mix32(keys[i] ^ 0x9e3779b9U) % m;
		skip[i] = klb_mix32(keys[i] ^ 0x7f4a7c15U) % (m - 1) + 1;
		turns[i] = 0;
		next[i] = weights[i] ? klb_mh_turn_round(1, weights[i], wmax) : 0;
	}
	for (i = 0; i < n; i++)
		if (weights[order[i]])
			h.heap[h.len++] = i;
	for (i = h.len / 2; i-- > 0;)
		klb_mh_heap_sift(&h, i);

	/*
	 * Terminates after exactly m turns: the heap never empties (weights
	 * are fixed) and each turn fills one free slot, because a backend's
	 * permutation visits every slot and the table is not yet full.
	 */
	while (filled < m) {
		b = order[h.heap[0]];
		do {
			c = pos[b];
			pos[b] += skip[b];	/* pos, skip < m < 2^31 */
			if (pos[b] >= m)
				pos[b] -= m;
		} while (table[c] != KLB_PICK_NONE);
		table[c] = b;
		filled++;
		next[b] = klb_mh_turn_round(++turns[b] + 1, weights[b], wmax);
		klb_mh_heap_sift(&h, 0);
	}
	return filled;
}

u32 klb_mh_pick(const u32 *table, u32 m, u32 hash)
{
	if (!m)
		return KLB_PICK_NONE;
	return table[klb_reduce(hash, m)];
}
