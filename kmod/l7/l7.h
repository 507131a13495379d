/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The L7 engine's internal interfaces (http and tls service modes).
 *
 * Shape (Documentation/design.md, "L7"); the rest of klb sees only
 * engine.h:
 *  - net.c       the top: per-netns state, the session registry, the
 *                local route that delivers VIP packets to the listeners
 *                (steering), and the life of one client connection (a
 *                session: a work item, a timer, a protocol:
 *                http_session.c, tls_session.c)
 *  - session.c   what a protocol asks of the engine while a session
 *                runs: timer, memory charge, the restore successor, the
 *                source ACL and the backend pick
 *  - wq.c        the workqueue, below every file that queues work
 *  - listener.c  one kernel listening socket per service, bound to the
 *                VIP (IP_TRANSPARENT: the VIP need not be local)
 *  - sock.c      a kernel TCP socket whose events queue a work item
 *  - upstream.c  connections to backends, and the per-backend idle pool
 *                that keeps them alive across client connections
 *  - pump.c      one direction of a byte relay (tls, upgraded http)
 *  - route.c     the pool a request or a ClientHello goes to (rules)
 *  - queue.c     http requests waiting for a backend under its maxconn
 *  - parse/      pure code, also built in userspace: HTTP heads, the TLS
 *                ClientHello, rule matching, head rewriting
 *
 * Concurrency: everything a session does runs in its own work item, which
 * the workqueue never runs twice at once; socket callbacks (softirq) and
 * the timer only queue it. So a session's state needs no lock. Work goes
 * on the CPU the event came from, so sessions spread over CPUs with RSS.
 * No thread per connection, nothing sleeps but on socket buffers.
 */
#ifndef _KLB_L7_H
#define _KLB_L7_H

#include <linux/net.h>
#include <linux/timer.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <net/sock.h>

#include "klb.h"
#include "health/health.h"
#include "extack.h"
#include "flow.h"
#include "l7/engine.h"
#include "l7/parse/rule_match.h"

/* wq.c: the workqueue every session, listener and connection runs on */
extern struct workqueue_struct *klb_l7_wq;
int klb_l7_wq_init(void);
void klb_l7_wq_exit(void);

/* ---- a kernel TCP socket driven by callbacks (sock.c) ------------------ */

struct klb_l7_sock {
	struct socket *sock;
	struct work_struct *work;	/* queued on every socket event */
	void (*saved_data_ready)(struct sock *sk);
	void (*saved_write_space)(struct sock *sk);
	void (*saved_state_change)(struct sock *sk);
};

/*
 * Take over @sock's callbacks: data, write space (when writable again)
 * and state changes queue @work. @parent: the listener @sock was accepted
 * from (its callbacks were inherited), else NULL.
 */
void klb_l7_sock_attach(struct klb_l7_sock *s, struct socket *sock,
			struct work_struct *work,
			const struct klb_l7_sock *parent);
/* Events queue @work from now on (an upstream changing hands). */
void klb_l7_sock_set_work(struct klb_l7_sock *s, struct work_struct *work);
/* Give the callbacks back; no event queues anything after it returns. */
void klb_l7_sock_detach(struct klb_l7_sock *s);
/*
 * Detach and release. @abort: reset (RST, nothing more sent or lingering);
 * else a graceful close (queued data is still sent, then FIN).
 */
void klb_l7_sock_release(struct klb_l7_sock *s, bool abort);

/* Non-blocking I/O. recv: > 0 bytes, 0 end of stream, -EAGAIN, -errno. */
int klb_l7_recv(struct klb_l7_sock *s, void *buf, size_t len);
/* send: bytes taken (may be fewer than @len), -EAGAIN, -errno. */
int klb_l7_send(struct klb_l7_sock *s, const void *buf, size_t len,
		bool more);
/*
 * Move up to @max bytes from @from to @to without copying them: the pages
 * of the segments @from received are handed to the segments @to sends
 * (splice(2) without the pipe). Returns the bytes moved (> 0), 0 at the
 * end of @from's stream, -EAGAIN when @from has nothing or @to has no
 * room (either socket's event comes when that changes), or -errno; then
 * *@dst_failed says whether @to (not @from) failed.
 */
int klb_l7_splice(struct klb_l7_sock *from, struct klb_l7_sock *to,
		  size_t max, bool *dst_failed);
void klb_l7_shutdown_write(struct klb_l7_sock *s);
/* Bytes waiting to be read (0 also when closed). */
bool klb_l7_readable(const struct klb_l7_sock *s);
/* The peer closed or reset, or the socket is not connected. */
bool klb_l7_sock_dead(const struct klb_l7_sock *s);

/* ---- a byte relay, one direction (pump.c) ------------------------------ */

struct klb_l7_pipe {
	const u8 *buf;		/* bytes to send first (not owned), or NULL */
	u32 off;		/* the next of them to send */
	u32 len;
	bool eof;		/* the source closed */
	bool shut;		/* its end was passed on to the destination */
};

/*
 * Move what can be moved from @from to @to: @p's bytes in hand first,
 * then straight from socket to socket without a copy, at most *@budget
 * bytes (decremented); at the source's end shut down @to's sending side.
 * Returns 0 when blocked (a socket event comes) or done (@p->shut),
 * -EAGAIN when out of budget with more to move, other -errno when a
 * stream broke. *@progress is set if a byte moved; *@bytes counts them.
 */
int klb_l7_pump(struct klb_l7_sock *from, struct klb_l7_sock *to,
		struct klb_l7_pipe *p, long *budget, bool *progress,
		u64 *bytes);

/* ---- client sessions (net.c) ------------------------------------------ */

struct klb_l7_session;

struct klb_l7_session_ops {
	size_t size;		/* allocation size; struct klb_l7_session first */
	/*
	 * Advance the session as far as it can go without blocking: read
	 * what is readable, write what is writable, then return. Called in
	 * the session's work item whenever a socket event or the timer
	 * fired. Return true when the session is over: the core then calls
	 * ->destroy(), closes the client (gracefully, or with s->linger set
	 * first: see klb_l7_session_linger()) and frees the session.
	 */
	bool (*run)(struct klb_l7_session *s);
	/*
	 * Release what the protocol holds (upstream connection, buffers),
	 * not the client socket. @abort: the netns is going away, close
	 * everything with a reset, park nothing.
	 */
	void (*destroy)(struct klb_l7_session *s, bool abort);
	/*
	 * What the session is doing (enum klb_l7_state), for a conn dump:
	 * from any context, under klb_l7_net.lock; reads the protocol's
	 * state with single loads, no pointer followed.
	 */
	u8 (*state)(const struct klb_l7_session *s);
};

extern const struct klb_l7_session_ops klb_http_session_ops;
extern const struct klb_l7_session_ops klb_tls_session_ops;

struct klb_l7_session {
	struct work_struct work;
	struct work_struct reap;	/* core: frees the session */
	struct list_head node;		/* klb_l7_net.sessions */
	struct klb_net *kn;
	struct klb_service *svc;	/* reference held */
	const struct klb_l7_session_ops *ops;
	struct klb_l7_sock client;
	struct timer_list timer;	/* queues work at ->deadline */
	unsigned long deadline;		/* jiffies; meaningful if timer_set */
	bool timer_set;
	bool aborted;			/* set by netns exit */
	bool lingering;			/* core: draining the client before close */
	bool ended;			/* core: released, waiting to be freed */
	bool reset;			/* close the client with a RST */
	/* The client connection, as accepted: client -> VIP. */
	struct klb_flow flow;
	unsigned long created;		/* jiffies, accepted */
	/*
	 * What a conn dump shows besides the flow, under info_lock (the
	 * session sets it, a dump reads it): the backend serving it (a copy:
	 * a dump follows no pointer; port 0: none), bytes relayed in all.
	 */
	spinlock_t info_lock;
	union nf_inet_addr be_addr;
	__be16 be_port;
	u16 be_family;
	u64 bytes_in;
	u64 bytes_out;
};

/* @be (NULL: none) serves @s now, as conn dumps show it. */
void klb_l7_session_set_backend(struct klb_l7_session *s,
				const struct klb_backend *be);
/* @s relayed @in more bytes from the client, @out more to it. */
void klb_l7_session_add_bytes(struct klb_l7_session *s, u64 in, u64 out);

/*
 * Arm the session's timer @secs seconds from now (replacing any earlier
 * deadline); its expiry queues the work, where ->run() checks
 * klb_l7_session_expired(). @secs == 0 disarms it.
 */
void klb_l7_session_set_timeout(struct klb_l7_session *s, unsigned int secs);
bool klb_l7_session_expired(const struct klb_l7_session *s);
/*
 * Ask the core to close the client the careful way when ->run() returns
 * true: shut down our sending side (everything queued is still sent, then
 * FIN), read and discard what the client still sends for up to two
 * seconds, then close. Without it a client whose request we refused
 * could get a RST that destroys our answer before it reads it.
 */
void klb_l7_session_linger(struct klb_l7_session *s);
/*
 * Ask the core to reset the client when ->run() returns true: the stream
 * is broken (e.g. a response cut short), and a FIN would pass a truncated
 * message for a complete one.
 */
static inline void klb_l7_session_reset(struct klb_l7_session *s)
{
	s->reset = true;
}

/* The service was unconfigured: finish the exchange in progress, then close. */
static inline bool klb_l7_session_stopping(const struct klb_l7_session *s)
{
	return READ_ONCE(s->svc->stopping);
}

/*
 * Session buffers count against the netns's l7_mem_max_kb: charge @bytes
 * before allocating them (-ENOBUFS: over the cap, counted as errors
 * limit on the service), uncharge them when freed.
 */
int klb_l7_mem_charge(struct klb_l7_session *s, size_t bytes);
void klb_l7_mem_uncharge(struct klb_l7_session *s, size_t bytes);

/* The session's sysctls (per netns), for ->run(). */
static inline const struct klb_sysctl *
klb_l7_sysctl(const struct klb_l7_session *s)
{
	return &s->kn->sysctl;
}

/*
 * Pick a backend for a request or connection of @s: the pool is the
 * first rule matching @in, else the service's default pool; the pool's
 * scheduler picks, on the session's flow (client address and port, VIP).
 * @avoid: a backend that just failed, not to be picked again if another
 * is eligible (retry), or NULL. @want: the id (klb_sched_backend_id()) of
 * the backend the client asks for (a persistence cookie), or NULL; taken
 * if that backend is in the pool, eligible, not @avoid and not at its
 * maxconn, else the scheduler picks. Returns a referenced backend (put it
 * with klb_backend_put()) or NULL when none is usable; then *@full (if
 * @full) is the pool whose usable backends are all at their maxconn (an
 * identity for klb_l7_queue_add()), or NULL if there was none usable at
 * all. Process context.
 */
/*
 * May the session's client use its service (the service's source lists)?
 * If not, counted as a drop (KLB_STATS_A_DROP_ACL): http answers 403, tls
 * closes. Checked per request, so a list changed mid keep-alive applies.
 */
bool klb_l7_source_allowed(struct klb_l7_session *s);
struct klb_backend *klb_l7_pick(struct klb_l7_session *s,
				const struct klb_rule_input *in,
				struct klb_backend *avoid, const u64 *want,
				const void **full);

/* ---- waiting for a backend under its maxconn (queue.c) ------------------ */

/* An http request in the queue; @s NULL: not queued. */
struct klb_l7_waiter {
	struct list_head node;		/* klb_l7_net.queue, under qlock */
	struct klb_l7_session *s;
	struct klb_service *svc;	/* counted in svc->l7_queued */
	const void *pool;		/* what it waits for: backend->pool */
	unsigned long since;		/* jiffies */
};

/*
 * Queue @s (its request's pool: @pool) at the end; -ENOSPC if its service
 * has net.klb.http_queue_max requests waiting already.
 */
int klb_l7_queue_add(struct klb_l7_session *s, struct klb_l7_waiter *w,
		     const void *pool);
/* Out of the queue (served, timed out, gone), if in it; wakes the next. */
void klb_l7_queue_del(struct klb_l7_session *s, struct klb_l7_waiter *w);
/*
 * Does a request wait for @pool ahead of @self (NULL: a new request, so
 * any waiter is ahead)? Then it must wait for its turn.
 */
bool klb_l7_queue_ahead(struct klb_net *kn, const void *pool,
			const struct klb_l7_waiter *self);
/* A slot of @pool freed: wake the first request waiting for it. */
void klb_l7_queue_kick(struct klb_net *kn, const void *pool);
/*
 * The L7 engine is done with @be (a request or tls connection ended):
 * drop it from be->active_conns and, with a maxconn, wake a waiter.
 */
void klb_l7_backend_done(struct klb_net *kn, struct klb_backend *be);

/* Count on both the service and @be (if not NULL). */
static inline void klb_l7_count(struct klb_l7_session *s,
				struct klb_backend *be, enum klb_l7_ctr ctr)
{
	klb_stats_l7(s->svc->stats, ctr);
	if (be)
		klb_stats_l7(be->stats, ctr);
}

static inline void klb_l7_count_status(struct klb_l7_session *s,
				       struct klb_backend *be,
				       unsigned int status)
{
	if (status >= 100 && status < 600)
		klb_l7_count(s, be, KLB_L7_RESP_1XX + status / 100 - 1);
}

/* ---- backend connections (upstream.c) --------------------------------- */

struct klb_upstream {
	struct klb_l7_sock s;
	struct klb_backend *be;		/* reference held */
	struct klb_net *kn;
	struct list_head idle_node;	/* be->idle, under be->idle_lock */
	struct work_struct idle_work;	/* socket events while parked */
	struct work_struct reap;	/* frees it when idle_work closed it */
	struct timer_list idle_timer;	/* queues idle_work when parked too long */
	unsigned long idle_since;	/* jiffies, when parked */
	u32 uses;			/* exchanges completed on it */
	bool parked;			/* on be->idle */
	bool reused;			/* handed out from the idle pool */
};

/*
 * A connection to @be whose events queue @work: an idle one from the pool
 * if @reuse and one is there (up->reused is set), else a new one, being
 * connected without blocking. A request that must not be sent twice
 * passes @reuse false: a parked connection may be closing as we send, and
 * then nothing tells whether the backend saw the request.
 * ERR_PTR(-errno) if no socket could even be created or the connect
 * failed at once (e.g. no route).
 */
struct klb_upstream *klb_upstream_get(struct klb_net *kn,
				      struct klb_backend *be,
				      struct work_struct *work, bool reuse);
/* 1 connected, 0 still connecting, -errno failed (-ECONNREFUSED, ...). */
int klb_upstream_state(struct klb_upstream *up);
/*
 * The exchange on @up is complete and the connection may be reused: park
 * it in its backend's idle pool (it is closed instead if the pool is full,
 * the backend left its pool, or the connection is not clean). It stays
 * there at most l7_backend_idle_timeout: a timer closes it then, before
 * the backend's own keep-alive timeout would (which races with reuse).
 */
void klb_upstream_park(struct klb_upstream *up);
/* Close @up (@abort: with a reset) and drop its backend reference. */
void klb_upstream_close(struct klb_upstream *up, bool abort);

/* ---- listener.c -------------------------------------------------------- */

/* A new client connection accepted by @svc's listener (net.c). */
typedef void (*klb_l7_accept_fn)(struct klb_net *kn, struct klb_service *svc,
				 struct socket *sock,
				 const struct klb_l7_sock *listener);

/* Listen on @svc's address; each accepted connection goes to @accept. */
int klb_l7_listener_open(struct klb_net *kn, struct klb_service *svc,
			 klb_l7_accept_fn accept,
			 struct netlink_ext_ack *extack);
void klb_l7_listener_close(struct klb_service *svc);
/*
 * listener.c: svc->l7_next := the service whose listener takes @svc's
 * address over (a restore opened it), if any. Under kn->lock, before
 * @svc is marked stopping: a session that sees stopping finds it.
 */
void klb_l7_listener_name_successor(struct klb_service *svc);

/*
 * session.c: @s's service stopped; if another service took over its listener
 * (a restore: svc->l7_next), the session moves there and goes on. Only
 * before a request or hello is routed. Returns whether it moved.
 */
bool klb_l7_session_follow(struct klb_l7_session *s);

/* ---- per netns (net.c) -------------------------------------------------- */

struct klb_l7_net {
	spinlock_t lock;		/* sessions */
	struct list_head sessions;
	unsigned int nsessions;
	wait_queue_head_t gone;		/* nsessions reached 0 */
	struct dst_entry __rcu *local_dst4;	/* steering (net.c), made */
	struct dst_entry __rcu *local_dst6;	/* by the first L7 service */
	struct list_head listeners;	/* open listeners, under kn->lock */
	atomic_long_t mem;		/* bytes of session buffers (l7_mem_max_kb) */
	spinlock_t qlock;		/* queue */
	struct list_head queue;		/* struct klb_l7_waiter.node, FIFO */
	unsigned int nqueued;		/* read locklessly: any waiter? */
	unsigned int sgen;		/* under lock: bumped as sessions come and go */
};

/* ---- fixed sizes -------------------------------------------------------- */

/* Relay buffer per direction: memory per connection is bounded by these. */
#define KLB_L7_BUF_SIZE		16384

#endif /* _KLB_L7_H */
