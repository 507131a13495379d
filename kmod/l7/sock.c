// SPDX-License-Identifier: GPL-2.0
/*
 * A kernel TCP socket whose events queue a work item.
 *
 * The callbacks run in softirq with the socket lock held or not; they
 * only look at sk_user_data under sk_callback_lock and queue the owner's
 * work, so an owner can detach (write lock) and be sure no callback is
 * still about to touch it. What the socket had before is given back on
 * detach: a released socket lives on in the kernel (FIN_WAIT, orphan),
 * and its callbacks must not point into this module after rmmod.
 */
#include <linux/skbuff.h>
#include <linux/tcp.h>
#include <net/tcp.h>

#include "l7/l7.h"

static struct klb_l7_sock *klb_l7_sock_of(struct sock *sk)
{
	return sk->sk_user_data;
}

static void klb_l7_sk_event(struct sock *sk)
{
	struct klb_l7_sock *s;

	read_lock_bh(&sk->sk_callback_lock);
	s = klb_l7_sock_of(sk);
	if (s)
		queue_work(klb_l7_wq, READ_ONCE(s->work));
	read_unlock_bh(&sk->sk_callback_lock);
}

static void klb_l7_sk_write_space(struct sock *sk)
{
	struct klb_l7_sock *s;

	read_lock_bh(&sk->sk_callback_lock);
	s = klb_l7_sock_of(sk);
	/* As sk_stream_write_space(): only once there is real room. */
	if (s && sk_stream_is_writeable(sk)) {
		if (sk->sk_socket)
			clear_bit(SOCK_NOSPACE, &sk->sk_socket->flags);
		queue_work(klb_l7_wq, READ_ONCE(s->work));
	}
	read_unlock_bh(&sk->sk_callback_lock);
}

void klb_l7_sock_attach(struct klb_l7_sock *s, struct socket *sock,
			struct work_struct *work,
			const struct klb_l7_sock *parent)
{
	struct sock *sk = sock->sk;

	s->sock = sock;
	s->work = work;
	write_lock_bh(&sk->sk_callback_lock);
	/*
	 * An accepted socket inherited the listener's data_ready (ours); the
	 * one to give back is what the listener had before us.
	 */
	s->saved_data_ready = parent ? parent->saved_data_ready :
				       sk->sk_data_ready;
	s->saved_write_space = sk->sk_write_space;
	s->saved_state_change = sk->sk_state_change;
	sk->sk_user_data = s;
	sk->sk_data_ready = klb_l7_sk_event;
	sk->sk_write_space = klb_l7_sk_write_space;
	sk->sk_state_change = klb_l7_sk_event;
	write_unlock_bh(&sk->sk_callback_lock);
}

void klb_l7_sock_set_work(struct klb_l7_sock *s, struct work_struct *work)
{
	struct sock *sk = s->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	WRITE_ONCE(s->work, work);
	write_unlock_bh(&sk->sk_callback_lock);
}

void klb_l7_sock_detach(struct klb_l7_sock *s)
{
	struct sock *sk = s->sock->sk;

	write_lock_bh(&sk->sk_callback_lock);
	if (sk->sk_user_data == s) {
		sk->sk_user_data = NULL;
		sk->sk_data_ready = s->saved_data_ready;
		sk->sk_write_space = s->saved_write_space;
		sk->sk_state_change = s->saved_state_change;
	}
	write_unlock_bh(&sk->sk_callback_lock);
}

void klb_l7_sock_release(struct klb_l7_sock *s, bool abort)
{
	if (!s->sock)
		return;
	klb_l7_sock_detach(s);
	if (!abort && !klb_sock_hold_net(s->sock->sk))
		abort = true;
	/* SO_LINGER with a zero timeout: close() sends a RST and frees. */
	if (abort)
		sock_no_linger(s->sock->sk);
	sock_release(s->sock);
	s->sock = NULL;
}

int klb_l7_recv(struct klb_l7_sock *s, void *buf, size_t len)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL };
	struct kvec vec = { .iov_base = buf, .iov_len = len };

	return kernel_recvmsg(s->sock, &msg, &vec, 1, len, msg.msg_flags);
}

int klb_l7_send(struct klb_l7_sock *s, const void *buf, size_t len, bool more)
{
	struct msghdr msg = {
		.msg_flags = MSG_DONTWAIT | MSG_NOSIGNAL | (more ? MSG_MORE : 0),
	};
	struct kvec vec = { .iov_base = (void *)buf, .iov_len = len };

	return kernel_sendmsg(s->sock, &msg, &vec, 1, len);
}

/* Queue a copy of @len bytes at @data on @sk (locked), more to come. */
static int klb_l7_send_copy_more(struct sock *sk, void *data, size_t len)
{
	struct msghdr msg = { .msg_flags = MSG_DONTWAIT | MSG_MORE };
	struct kvec vec = { .iov_base = data, .iov_len = len };

	return kernel_sendmsg_locked(sk, &msg, &vec, 1, len);
}

/*
 * Queue @len bytes of @skb from @off (as tcp_read_sock() counts: from
 * skb->data, frags and frag_list included) on @sk, which is locked: the
 * pages by reference, the linear part (rarely payload) by copy, all with
 * "more to come", so that TCP builds full-sized segments however small
 * the pieces are (skb_send_sock_locked() pushes after each piece, which
 * at MTU 1500 means a short segment and a clock read per page). Returns
 * the bytes queued, else what the first piece returned (-EAGAIN: full).
 */
static int klb_l7_skb_send(struct sock *sk, struct sk_buff *skb, int off,
			   int len)
{
	struct sk_buff *seg = skb;
	int sent = 0;

	while (seg && len > 0) {
		const struct skb_shared_info *si = skb_shinfo(seg);
		int i;

		/* i == -1: the linear part, then each page fragment */
		for (i = -1; i < si->nr_frags && len > 0; i++) {
			const skb_frag_t *f = i >= 0 ? &si->frags[i] : NULL;
			int size = f ? skb_frag_size(f) : skb_headlen(seg);
			int want, n;

			if (off >= size) {
				off -= size;
				continue;
			}
			want = min(size - off, len);
			if (f)
				n = klb_tcp_send_page_more(sk, skb_frag_page(f),
							   skb_frag_off(f) + off,
							   want);
			else
				n = klb_l7_send_copy_more(sk, seg->data + off,
							  want);
			if (n > 0) {
				sent += n;
				len -= n;
			}
			if (n != want)
				return sent ? sent : n;
			off = 0;
		}
		seg = seg == skb ? si->frag_list : seg->next;
	}
	return sent;
}

/* The state of one klb_l7_splice(): where to, and how it ended there. */
struct klb_l7_splice_ctx {
	struct sock *dst;
	int err;		/* from the destination: -EAGAIN when full */
};

/*
 * tcp_read_sock() offers @len bytes of @skb from @off: hand as many as
 * the destination takes (up to what is still wanted) to its send queue.
 * Returning less than offered stops the read there.
 */
static int klb_l7_splice_actor(read_descriptor_t *desc, struct sk_buff *skb,
			       unsigned int off, size_t len)
{
	struct klb_l7_splice_ctx *ctx = desc->arg.data;
	int n;

	len = min3(len, desc->count, (size_t)INT_MAX);
	if (!len)
		return 0;
	n = klb_l7_skb_send(ctx->dst, skb, off, len);
	if (n <= 0) {
		/* Nothing taken is "full", never the end of @from's stream. */
		ctx->err = n ? n : -EAGAIN;
		return 0;
	}
	desc->count -= n;
	return n;
}

int klb_l7_splice(struct klb_l7_sock *from, struct klb_l7_sock *to,
		  size_t max, bool *dst_failed)
{
	struct sock *src = from->sock->sk, *dst = to->sock->sk;
	struct klb_l7_splice_ctx ctx = { .dst = dst };
	read_descriptor_t desc = { .count = max, .arg.data = &ctx };
	int n, err;

	*dst_failed = false;
	/*
	 * Corked, the destination sends full segments only; uncorking pushes
	 * the rest. (tcp_sock_set_cork() takes the socket lock itself.)
	 */
	tcp_sock_set_cork(dst, true);
	lock_sock(src);
	/* The same lock class: a session holds its two sockets, never more. */
	lock_sock_nested(dst, SINGLE_DEPTH_NESTING);
	n = tcp_read_sock(src, &desc, klb_l7_splice_actor);
	release_sock(dst);
	if (n <= 0) {
		/* As recvmsg: queued bytes first, then an error or the end. */
		err = READ_ONCE(src->sk_err);
		if (ctx.err && ctx.err != -EAGAIN) {
			*dst_failed = true;
			n = ctx.err;
		} else if (ctx.err) {
			n = -EAGAIN;
		} else if (err) {
			n = -err;
		} else if (READ_ONCE(src->sk_shutdown) & RCV_SHUTDOWN) {
			n = 0;
		} else {
			n = -EAGAIN;
		}
	}
	release_sock(src);
	tcp_sock_set_cork(dst, false);
	return n;
}

void klb_l7_shutdown_write(struct klb_l7_sock *s)
{
	kernel_sock_shutdown(s->sock, SHUT_WR);
}

bool klb_l7_readable(const struct klb_l7_sock *s)
{
	return !skb_queue_empty_lockless(&s->sock->sk->sk_receive_queue);
}

bool klb_l7_sock_dead(const struct klb_l7_sock *s)
{
	const struct sock *sk = s->sock->sk;
	u8 state = READ_ONCE(sk->sk_state);

	return READ_ONCE(sk->sk_err) || state == TCP_CLOSE ||
	       state == TCP_CLOSE_WAIT || state == TCP_LAST_ACK ||
	       (READ_ONCE(sk->sk_shutdown) & RCV_SHUTDOWN);
}
