// SPDX-License-Identifier: GPL-2.0
/*
 * What a packet does to its connection: the TCP state it moves to, UDP's
 * confirmation by an answer, the timeout of each state, and the active
 * count a connection holds while it is neither closing nor closed. The
 * hash table itself (conn.c) reads the timeouts for eviction and GC;
 * nothing here touches a chain.
 */
#include "health/health.h"
#include "l4/conn.h"

/* How long @c lives in @state without a packet. */
unsigned long klb_conn_timeout(const struct klb_sysctl *s,
			       const struct klb_conn *c, u8 state)
{
	int secs;

	switch (state) {
	case KLB_CONN_SYN_SENT:
	case KLB_CONN_SYN_RECV:
		secs = READ_ONCE(s->tcp_timeout_syn);
		break;
	case KLB_CONN_ESTABLISHED:
		secs = READ_ONCE(s->tcp_timeout_established);
		break;
	case KLB_CONN_FIN_WAIT:
		secs = READ_ONCE(s->tcp_timeout_fin);
		break;
	case KLB_CONN_TIME_WAIT:
		secs = READ_ONCE(s->tcp_timeout_time_wait);
		break;
	case KLB_CONN_ADOPTED:
		secs = READ_ONCE(s->tcp_timeout_adopt);
		break;
	case KLB_CONN_UDP:
		secs = READ_ONCE(s->udp_timeout);
		/* A spoofed datagram gets no answer: keep it briefly. */
		if (!test_bit(KLB_CONN_F_CONFIRMED, &c->flags))
			secs = min(secs, READ_ONCE(s->udp_timeout_unreplied));
		break;
	default:
		secs = READ_ONCE(s->tcp_timeout_close);
		break;
	}
	return (unsigned long)max(secs, 0) * HZ;
}

/* States in which a connection counts in active_conns. */
static bool klb_conn_state_active(u8 state)
{
	return state != KLB_CONN_FIN_WAIT && state != KLB_CONN_TIME_WAIT &&
	       state != KLB_CONN_CLOSE;
}

void klb_conn_leave_active(struct klb_conn *c)
{
	if (test_and_clear_bit(KLB_CONN_F_ACTIVE, &c->flags)) {
		atomic_dec(&c->svc->active_conns);
		atomic_dec(&c->be->active_conns);
	}
}

/*
 * An adopted flow (adopt.c) is proved live by its next packet: a stray or
 * spoofed ACK is one packet, a live flow sends more. The first is the one
 * that adopted it. A FIN is kept for the state that follows.
 */
static u8 klb_tcp_adopted_next(struct klb_conn *c, enum klb_dir dir, u8 f)
{
	if (f & KLB_TCP_FIN)
		c->fin_seen |= BIT(dir);
	if (!test_and_set_bit(KLB_CONN_F_ORIG_SEEN, &c->flags))
		return KLB_CONN_ADOPTED;
	if (c->fin_seen == (BIT(KLB_DIR_ORIG) | BIT(KLB_DIR_REPLY)))
		return KLB_CONN_TIME_WAIT;
	return c->fin_seen ? KLB_CONN_FIN_WAIT : KLB_CONN_ESTABLISHED;
}

/* TCP state after a segment with @f went through in direction @dir. */
static u8 klb_tcp_next_state(struct klb_conn *c, enum klb_dir dir, u8 f)
{
	u8 st = c->state;

	if (f & KLB_TCP_RST)
		return KLB_CONN_CLOSE;
	if (st == KLB_CONN_CLOSE)
		return st;
	if (st == KLB_CONN_ADOPTED)
		return klb_tcp_adopted_next(c, dir, f);
	if (f & KLB_TCP_FIN) {
		c->fin_seen |= BIT(dir);
		if (c->fin_seen == (BIT(KLB_DIR_ORIG) | BIT(KLB_DIR_REPLY)))
			return KLB_CONN_TIME_WAIT;
		return st == KLB_CONN_TIME_WAIT ? st : KLB_CONN_FIN_WAIT;
	}
	switch (st) {
	case KLB_CONN_SYN_SENT:
		if (dir == KLB_DIR_REPLY && (f & KLB_TCP_SYN) &&
		    (f & KLB_TCP_ACK))
			return KLB_CONN_SYN_RECV;
		/*
		 * dr and tun see only the client: its first ACK is the
		 * sign that the handshake went through (as IPVS's input-only
		 * state table has it).
		 */
		if (klb_conn_oneway(c) && dir == KLB_DIR_ORIG &&
		    (f & KLB_TCP_ACK) && !(f & KLB_TCP_SYN))
			return KLB_CONN_ESTABLISHED;
		break;
	case KLB_CONN_SYN_RECV:
		if (dir == KLB_DIR_ORIG && (f & KLB_TCP_ACK) &&
		    !(f & KLB_TCP_SYN))
			return KLB_CONN_ESTABLISHED;
		break;
	}
	return st;
}

/*
 * A UDP flow is confirmed by an answer; dr and tun never see one, so
 * there the client's second datagram counts (as its first ACK confirms a
 * TCP handshake there): a spoofed flood sends one per address.
 */
static void klb_conn_udp_confirm(struct klb_conn *c, enum klb_dir dir)
{
	if (dir == KLB_DIR_REPLY ||
	    (klb_conn_oneway(c) &&
	     test_and_set_bit(KLB_CONN_F_ORIG_SEEN, &c->flags)))
		set_bit(KLB_CONN_F_CONFIRMED, &c->flags);
}

void klb_conn_seen(struct klb_net *kn, struct klb_conn *c, enum klb_dir dir,
		   u8 tcpflags)
{
	u8 state = READ_ONCE(c->state), before = state, prev;
	unsigned long expires;

	if (state == KLB_CONN_UDP &&
	    !test_bit(KLB_CONN_F_CONFIRMED, &c->flags))
		klb_conn_udp_confirm(c, dir);
	/*
	 * Most segments of an established connection change nothing but
	 * the timer: only take the lock when the state may move.
	 */
	if (c->h[0].flow.proto == IPPROTO_TCP &&
	    ((tcpflags & (KLB_TCP_SYN | KLB_TCP_FIN | KLB_TCP_RST)) ||
	     state == KLB_CONN_SYN_SENT || state == KLB_CONN_SYN_RECV ||
	     state == KLB_CONN_ADOPTED)) {
		spin_lock(&c->lock);
		prev = c->state;
		state = klb_tcp_next_state(c, dir, tcpflags);
		WRITE_ONCE(c->state, state);
		spin_unlock(&c->lock);
		/* The backend's answer to the SYN, for passive health. */
		if (prev == KLB_CONN_SYN_SENT && dir == KLB_DIR_REPLY)
			klb_health_passive(kn, c->be, state == KLB_CONN_CLOSE ?
					   KLB_PASSIVE_RESET : KLB_PASSIVE_OK);
		if (!klb_conn_state_active(state))
			klb_conn_leave_active(c);
		/* Proved live, or closed: no longer an unproved adoption. */
		if (prev == KLB_CONN_ADOPTED && state != KLB_CONN_ADOPTED)
			klb_conn_adopt_done(kn->conns, c);
	}
	/*
	 * A backend repeating its SYN-ACK does not bring the handshake any
	 * closer: the timer runs from the first, else each spoofed SYN would
	 * hold its entry for the backend's whole SYN-ACK retry period.
	 */
	if (state == KLB_CONN_SYN_RECV && before == KLB_CONN_SYN_RECV &&
	    dir == KLB_DIR_REPLY)
		return;

	expires = jiffies + klb_conn_timeout(&kn->sysctl, c, state);
	/* Avoid dirtying the shared line when the tick has not moved. */
	if (READ_ONCE(c->expires) != expires)
		WRITE_ONCE(c->expires, expires);
}
