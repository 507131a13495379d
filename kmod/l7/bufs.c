// SPDX-License-Identifier: GPL-2.0
/*
 * Session buffers: the exchange buffers from a slab cache of their own.
 *
 * A routed request takes two or three buffers of 8-16 KiB (bin, hout and,
 * with a body, cin) and frees them when its exchange ends. From kvmalloc
 * each is an order-2 page allocation, and Debian's kernels zero every page
 * they hand out (init_on_alloc=1): in the connection-rate profile that
 * zeroing alone was 1.4% of all samples, about a tenth of the L7 workers'
 * time (Documentation/bench/profile.md, issue 20).
 *
 * The cache "klb_l7_buf" has a constructor, and objects of a cache with a
 * constructor are not zeroed on allocation (slab_want_init_on_alloc(): the
 * constructor defines their state). Ours does nothing: a buffer needs no
 * state, every reader of one reads only the bytes written into it (each
 * buffer has its length), and they never leave the kernel except as those
 * bytes. Freed buffers go back to the slab's per-CPU lists and are taken
 * again by the next request; empty slabs go back to the page allocator as
 * the slab allocator decides, so nothing here needs a bound or a shrinker,
 * and KASAN and kmemleak see every buffer as an object of its own.
 *
 * Which sizes: more than half of KLB_L7_BUF_SIZE and up to it, the ones
 * that cost an order-2 page anyway; a cache object serves any of them.
 * Smaller (a head's first 1 KiB) and larger (http_max_header_size raised
 * past 16 KiB) go to kvmalloc, counted (objects.h) so that unload proves
 * none was lost; the cache proves its own (kmem_cache_destroy() reports
 * objects left).
 */
#include <linux/mm.h>
#include <linux/slab.h>

#include "l7/bufs.h"
#include "l7/l7.h"
#include "objects.h"

static struct kmem_cache *klb_l7_buf_cache;

static bool klb_l7_buf_cached(size_t size)
{
	return size > KLB_L7_BUF_SIZE / 2 && size <= KLB_L7_BUF_SIZE;
}

/* Present so that allocations are not zeroed (above); nothing to set. */
static void klb_l7_buf_ctor(void *buf)
{
}

void *klb_l7_buf_alloc(size_t size)
{
	void *buf;

	if (klb_l7_buf_cached(size))
		return kmem_cache_alloc(klb_l7_buf_cache, GFP_KERNEL);
	buf = kvmalloc(size, GFP_KERNEL);
	if (buf)
		klb_obj_inc(KLB_OBJ_L7_BUF);
	return buf;
}

void klb_l7_buf_free(void *buf, size_t size)
{
	if (!buf)
		return;
	if (klb_l7_buf_cached(size)) {
		kmem_cache_free(klb_l7_buf_cache, buf);
		return;
	}
	kvfree(buf);
	klb_obj_dec(KLB_OBJ_L7_BUF);
}

int klb_l7_bufs_init(void)
{
	klb_l7_buf_cache = kmem_cache_create("klb_l7_buf", KLB_L7_BUF_SIZE, 0,
					     0, klb_l7_buf_ctor);
	return klb_l7_buf_cache ? 0 : -ENOMEM;
}

void klb_l7_bufs_exit(void)
{
	kmem_cache_destroy(klb_l7_buf_cache);
}
