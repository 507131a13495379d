/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Session buffers (l7/bufs.c): an allocation of an order-2 page's size
 * comes from a slab cache whose objects are not zeroed, so that a
 * request's relay buffers are not a zeroed page allocation each.
 */
#ifndef _KLB_L7_BUFS_H
#define _KLB_L7_BUFS_H

#include <linux/types.h>

/* @size bytes, GFP_KERNEL, process context. NULL: no memory. */
void *klb_l7_buf_alloc(size_t size);
/* What klb_l7_buf_alloc(@size) gave (NULL is fine): the same @size. */
void klb_l7_buf_free(void *buf, size_t size);
int klb_l7_bufs_init(void);	/* module init: the cache */
void klb_l7_bufs_exit(void);	/* module exit, after the last session */

#endif /* _KLB_L7_BUFS_H */
