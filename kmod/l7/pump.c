// SPDX-License-Identifier: GPL-2.0
/*
 * One direction of a byte relay: what the session holds already (a TLS
 * ClientHello, bytes read past an HTTP head) goes first, then everything
 * the source sends, socket to socket without a copy (klb_l7_splice()),
 * and the source's end is passed on as a half-close. tls pass-through
 * and upgraded http connections (WebSocket) relay this way.
 */
#include "l7/l7.h"

int klb_l7_pump(struct klb_l7_sock *from, struct klb_l7_sock *to,
		struct klb_l7_pipe *p, long *budget, bool *progress,
		u64 *bytes)
{
	bool dst_failed;
	int n;

	while (p->off < p->len) {
		n = klb_l7_send(to, p->buf + p->off, p->len - p->off, false);
		if (n == -EAGAIN)
			return 0;
		if (n < 0)
			return n;
		p->off += n;
		*bytes += n;
		*budget -= n;
		*progress = true;
	}
	while (!p->eof) {
		if (*budget <= 0)
			return -EAGAIN;
		n = klb_l7_splice(from, to, *budget, &dst_failed);
		if (n == -EAGAIN)
			return 0;
		if (n < 0)
			return n;
		*progress = true;
		if (!n)
			p->eof = true;
		*bytes += n;
		*budget -= n;
	}
	if (!p->shut) {
		klb_l7_shutdown_write(to);
		p->shut = true;
	}
	return 0;
}
