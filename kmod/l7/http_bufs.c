// SPDX-License-Identifier: GPL-2.0
/*
 * The buffer policy of an http session (see http_session.c for what is
 * held when): cin grows with a head that does not fit, a routed request
 * gets its relay buffers sized by the sysctls of the moment, and all of
 * it is charged to the netns's l7_mem_max_kb as it is allocated.
 */
#include "l7/bufs.h"
#include "l7/http_session.h"

/* Response heads may be larger than request heads (cookies). */
#define HTTP_RESP_HEAD_MIN	8192

/* bin and hout: only while a request is routed. */
void klb_hs_exchange_bufs_put(struct http_session *hs)
{
	u32 held = (hs->bin.data ? hs->bin.cap : 0) +
		   (hs->hout ? hs->hout_cap : 0);

	klb_l7_buf_free(hs->bin.data, hs->bin.cap);
	klb_l7_buf_free(hs->hout, hs->hout_cap);
	hs->bin.data = NULL;
	hs->hout = NULL;
	klb_l7_mem_uncharge(&hs->s, held);
	hs->mem -= held;
}

void klb_hs_bufs_put(struct http_session *hs)
{
	klb_hs_exchange_bufs_put(hs);
	klb_l7_buf_free(hs->cin.data, hs->cin.cap);
	hs->cin.data = NULL;
	klb_l7_mem_uncharge(&hs->s, hs->mem);
	hs->mem = 0;
}

/*
 * Move cin to a buffer of @cap bytes (larger), its bytes and offsets
 * kept, the growth charged. -ENOBUFS: the netns is at l7_mem_max_kb
 * (counted); -ENOMEM. Either way cin is as it was.
 */
int klb_hs_cin_grow(struct http_session *hs, u32 cap)
{
	struct http_buf *b = &hs->cin;
	u32 more = cap - (b->data ? b->cap : 0);
	u8 *data;

	if (klb_l7_mem_charge(&hs->s, more))
		return -ENOBUFS;
	data = klb_l7_buf_alloc(cap);
	if (!data) {
		klb_l7_mem_uncharge(&hs->s, more);
		return -ENOMEM;
	}
	if (b->len)
		memcpy(data, b->data, b->len);
	klb_l7_buf_free(b->data, b->cap);
	b->data = data;
	b->cap = cap;
	hs->mem += more;
	return 0;
}

/*
 * A routed request's buffers, sized by the sysctls of now: cin grown to
 * the relay size (a body or a tunnel goes through it), bin and hout.
 * -ENOBUFS: the netns is at l7_mem_max_kb (counted); -ENOMEM.
 */
int klb_hs_exchange_bufs_get(struct http_session *hs)
{
	struct klb_l7_session *s = &hs->s;
	u32 h = READ_ONCE(klb_l7_sysctl(s)->http_max_header_size);
	u32 r = max_t(u32, h, HTTP_RESP_HEAD_MIN);
	u32 cin_cap = max_t(u32, h, KLB_L7_BUF_SIZE);
	size_t mem;
	int err;

	/*
	 * cin is the relay buffer of a request body and of an upgraded
	 * connection's client bytes. Most requests have neither: their head
	 * already fits where it was read, and growing it would cost a
	 * 16 KiB allocation and a copy per request (issue 20). Pipelined
	 * bytes just wait in the socket for the room.
	 */
	if (hs->req.body == KLB_HTTP_BODY_NONE && !hs->upgrade)
		cin_cap = 0;
	if (cin_cap > hs->cin.cap) {
		err = klb_hs_cin_grow(hs, cin_cap);
		if (err)
			return err;
	}
	hs->bin.cap = max_t(u32, r, KLB_L7_BUF_SIZE);
	/*
	 * Room for what a rewrite adds: it can never run out of buffer. The
	 * cookie's too, always: the session may move to a service that has
	 * one (klb_l7_session_follow()).
	 */
	hs->hout_cap = KLB_PROXY_V2_MAX + r + KLB_HTTP_RW_GROWTH +
		       KLB_HTTP_RW_COOKIE_GROWTH;
	mem = (size_t)hs->bin.cap + hs->hout_cap;
	if (klb_l7_mem_charge(s, mem))
		return -ENOBUFS;
	hs->bin.data = klb_l7_buf_alloc(hs->bin.cap);
	hs->hout = klb_l7_buf_alloc(hs->hout_cap);
	if (!hs->bin.data || !hs->hout) {
		klb_l7_buf_free(hs->bin.data, hs->bin.cap);
		klb_l7_buf_free(hs->hout, hs->hout_cap);
		hs->bin.data = NULL;
		hs->hout = NULL;
		klb_l7_mem_uncharge(s, mem);
		return -ENOMEM;
	}
	hs->mem += mem;
	hs->resp_lim.max_line = r;
	hs->resp_lim.max_head = r;
	hs->resp_lim.max_fields = r;	/* bounded by the head size */
	return 0;
}
