/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR MIT */
/*
 * klb: in-kernel L4/L7 load balancer - generic netlink API.
 *
 * Family name "klb" (KLB_GENL_NAME), version KLB_GENL_VERSION. Every command
 * that changes state needs CAP_NET_ADMIN in the initial user namespace (as
 * IPVS); reading is open to all. All state is per network namespace.
 *
 * Objects
 *   pool     named set of backends plus a scheduler
 *   backend  address:port inside one pool, with weight and admin state
 *   service  virtual address:port + protocol + mode, steering to a pool,
 *            optionally persistent (client -> backend for PERSIST seconds
 *            after the client's last connection ends)
 *   rule     (http, tls services) request or SNI matchers -> another pool
 *
 * Commands (request attributes -> reply)
 *   KLB_CMD_POOL_NEW      KLB_A_POOL{NAME, [SCHED], [BACKENDS], [CHECK],
 *                         [ALL_UNHEALTHY]}
 *   KLB_CMD_POOL_SET      KLB_A_POOL{NAME, [SCHED], [CHECK], [ALL_UNHEALTHY]}
 *                         (at least one; a new CHECK restarts every
 *                         backend's health at unknown)
 *   KLB_CMD_POOL_DEL      KLB_A_POOL{NAME}           (-EBUSY while a service uses it)
 *   KLB_CMD_POOL_GET      do:   KLB_A_POOL{NAME} -> one pool
 *                         dump: all pools, or only KLB_A_POOL{NAME}. A pool
 *                         with many backends may be split over several
 *                         messages carrying the same NAME; userspace
 *                         concatenates their BACKENDS. (A do reply is one
 *                         message: -EMSGSIZE for a pool too big for it.)
 *   KLB_CMD_BACKEND_NEW   KLB_A_POOL{NAME, BACKEND{ADDR4|ADDR6, PORT, [WEIGHT], [STATE]}}
 *   KLB_CMD_BACKEND_SET   KLB_A_POOL{NAME, BACKEND{ADDR4|ADDR6, PORT, [WEIGHT], [STATE]}}
 *   KLB_CMD_BACKEND_DEL   KLB_A_POOL{NAME, BACKEND{ADDR4|ADDR6, PORT}}
 *   KLB_CMD_SERVICE_NEW   KLB_A_SERVICE{NAME, ADDR4|ADDR6, PORT, PROTO, MODE, POOL,
 *                         [PROXY_PROTOCOL], [SNAT], [PERSIST, [PERSIST_MASK]],
 *                         [COOKIE], [ADOPT]}
 *   KLB_CMD_SERVICE_SET   KLB_A_SERVICE{NAME, [POOL], [PROXY_PROTOCOL],
 *                         [PERSIST], [PERSIST_MASK], [ADOPT]}
 *   KLB_CMD_SERVICE_DEL   KLB_A_SERVICE{NAME}
 *   KLB_CMD_SERVICE_GET   do: KLB_A_SERVICE{NAME} -> one service; dump: all
 *   KLB_CMD_CONN_GET      dump only; optional KLB_A_SERVICE{NAME} filter.
 *                         Best effort under churn (connections come and go).
 *   KLB_CMD_FLUSH         no attributes: delete every service and pool
 *   KLB_CMD_RESTORE       KLB_A_CONFIG{POOL*, SERVICE*, [HASH_SEED]}: replace the whole
 *                         configuration atomically; on any error nothing
 *                         changes and extack names the offending object.
 *                         A SERVICE nest may carry RULES (in order).
 *                         One attribute holds at most 64 KiB: a larger
 *                         configuration goes in a transaction:
 *   KLB_CMD_RESTORE_BEGIN  no attributes -> KLB_A_TXN: open a restore
 *                         transaction of this socket (at most 4
 *                         open per namespace: -EBUSY past it)
 *   KLB_CMD_RESTORE_STAGE  KLB_A_TXN, KLB_A_CONFIG{POOL*, SERVICE*,
 *                         [HASH_SEED]}: add to the transaction's staged
 *                         configuration. A service may name a pool of this
 *                         or an earlier STAGE; HASH_SEED before any pool.
 *                         Any error aborts the transaction (its staged
 *                         objects are freed; COMMIT is then refused).
 *   KLB_CMD_RESTORE_COMMIT KLB_A_TXN, [KLB_A_HOSTMAP*]: replace the whole
 *                         configuration by the staged one (with the host
 *                         maps of its services), as KLB_CMD_RESTORE does,
 *                         and end the transaction (also on error)
 *   KLB_CMD_RESTORE_ABORT  KLB_A_TXN: drop the transaction
 *                         Only the socket that began a transaction may use
 *                         it (-EPERM for another, -ENOENT for an unknown
 *                         id); it is dropped when that socket closes.
 *   KLB_CMD_RULE_NEW      KLB_A_RULE{SERVICE, [HOST], [PATH], [HEADER_NAME +
 *                         HEADER_VALUE], [METHOD], [SNI], POOL}: append a rule
 *                         to an http or tls service
 *   KLB_CMD_RULE_DEL      KLB_A_RULE{SERVICE, INDEX}: later rules move up
 *   KLB_CMD_RULE_GET      dump only: KLB_A_RULE{SERVICE} -> one message per
 *                         rule, with its INDEX, in order
 *   KLB_CMD_PERSIST_GET   dump only; optional KLB_A_SERVICE{NAME} filter ->
 *                         KLB_A_PERSIST per persistence entry. Best effort.
 *   KLB_CMD_STATS_GET     do: no attributes -> KLB_A_STATS{...}: figures of
 *                         the whole namespace (connection table fill and
 *                         its limit, L7 sessions, listeners, object counts)
 *   KLB_CMD_ZERO          [KLB_A_SERVICE{NAME}] | [KLB_A_POOL{NAME}]: zero
 *                         the counters of that service, of the backends of
 *                         that pool, or (neither given) of every service
 *                         and backend. Gauges (active connections) stay.
 *   KLB_CMD_HOSTMAP_NEW   KLB_A_HOSTMAP{SERVICE, HOST, POOL}: add one name
 *                         to the host map of an http or tls service
 *   KLB_CMD_HOSTMAP_DEL   KLB_A_HOSTMAP{SERVICE, HOST}
 *   KLB_CMD_HOSTMAP_SET   KLB_A_HOSTMAP{SERVICE, [HOST, POOL]}, repeated at
 *                         the top level, every one naming the same service:
 *                         replace its whole map in one step (none with a
 *                         HOST: empty it). One message, any size: each
 *                         entry is its own attribute, so the 64 KiB of one
 *                         attribute does not bound the map.
 *   KLB_CMD_HOSTMAP_GET   dump only; optional KLB_A_HOSTMAP{SERVICE} filter
 *                         -> one message per name, {SERVICE, HOST, POOL},
 *                         in the order the names were added
 *                         RESTORE may carry KLB_A_HOSTMAP{SERVICE, HOST,
 *                         POOL} at the top level after KLB_A_CONFIG: the
 *                         maps of its services, restored with the rest.
 *   KLB_CMD_EVENT         never requested: sent to the multicast group
 *                         KLB_MCGRP_EVENTS ("events") of the family, one
 *                         message per change, KLB_A_EVENT{OBJECT, ACTION,
 *                         TIME, [REASON], [POOL], [SERVICE], [SCHED],
 *                         [BACKEND], [POOLS, SERVICES, BACKENDS]}, only to
 *                         listeners in the namespace that changed. Open to
 *                         every user, like reading. A listener that reads
 *                         too slowly gets ENOBUFS: events were lost.
 *
 * Modes: nat rewrites the destination (backends route replies via klb);
 * fnat also rewrites the source to one of the service's SNAT addresses (or
 * the address klb would use towards the backend), so backends need no
 * route to clients and never see them; dr forwards the frame unchanged to
 * the backend's MAC on a shared link; tun encapsulates it in IPIP/IP6IP6.
 * In dr and tun the backend holds the VIP and answers clients directly.
 *
 * Config dumps (pools, services) are consistent: if the configuration
 * changed while a dump was in progress the dump is flagged NLM_F_DUMP_INTR.
 *
 * Numbers are host byte order; addresses are network byte order
 * (ADDR4 is 4 bytes, ADDR6 is 16 bytes). Names are NUL-terminated strings of
 * at most KLB_NAME_MAX - 1 characters from [A-Za-z0-9_.-].
 */
#ifndef _UAPI_LINUX_KLB_H
#define _UAPI_LINUX_KLB_H

#define KLB_GENL_NAME		"klb"
#define KLB_GENL_VERSION	1

#define KLB_NAME_MAX		32	/* including the terminating NUL */
#define KLB_WEIGHT_MAX		65535
#define KLB_MAXCONN_MAX		1000000	/* a backend's maxconn; 0: no cap */

enum klb_cmd {
	KLB_CMD_UNSPEC,
	KLB_CMD_POOL_NEW,
	KLB_CMD_POOL_SET,
	KLB_CMD_POOL_DEL,
	KLB_CMD_POOL_GET,
	KLB_CMD_BACKEND_NEW,
	KLB_CMD_BACKEND_SET,
	KLB_CMD_BACKEND_DEL,
	KLB_CMD_SERVICE_NEW,
	KLB_CMD_SERVICE_SET,
	KLB_CMD_SERVICE_DEL,
	KLB_CMD_SERVICE_GET,
	KLB_CMD_CONN_GET,
	KLB_CMD_FLUSH,
	KLB_CMD_RESTORE,
	KLB_CMD_RULE_NEW,
	KLB_CMD_RULE_DEL,
	KLB_CMD_RULE_GET,
	KLB_CMD_PERSIST_GET,
	KLB_CMD_STATS_GET,
	KLB_CMD_ZERO,
	KLB_CMD_EVENT,
	KLB_CMD_HOSTMAP_NEW,
	KLB_CMD_HOSTMAP_DEL,
	KLB_CMD_HOSTMAP_GET,
	KLB_CMD_HOSTMAP_SET,
	KLB_CMD_RESTORE_BEGIN,
	KLB_CMD_RESTORE_STAGE,
	KLB_CMD_RESTORE_COMMIT,
	KLB_CMD_RESTORE_ABORT,

	__KLB_CMD_MAX
};

#define KLB_CMD_MAX (__KLB_CMD_MAX - 1)

enum klb_sched {
	KLB_SCHED_RR,		/* round robin, ignores weights (weight 0 excluded) */
	KLB_SCHED_WRR,		/* smooth weighted round robin */
	KLB_SCHED_LC,		/* least active connections */
	KLB_SCHED_WLC,		/* least active connections per weight */
	KLB_SCHED_SH,		/* source address hash */
	KLB_SCHED_MH,		/* Maglev consistent hash of the flow, weighted */
	KLB_SCHED_P2C,		/* power of two choices on active connections */

	__KLB_SCHED_MAX
};

#define KLB_SCHED_MAX (__KLB_SCHED_MAX - 1)

enum klb_backend_state {
	KLB_BACKEND_UP,		/* takes new connections (if weight > 0) */
	KLB_BACKEND_DRAIN,	/* no new connections, existing ones continue */
	KLB_BACKEND_DOWN,	/* no new connections, existing ones continue */

	__KLB_BACKEND_STATE_MAX
};

#define KLB_BACKEND_STATE_MAX (__KLB_BACKEND_STATE_MAX - 1)

/*
 * What the pool's active check (KLB_POOL_A_CHECK) says of a backend. New
 * connections go to backends that are up, have a weight and are not
 * unhealthy; unknown (no check, or not decided yet) counts as usable.
 */
enum klb_backend_health {
	KLB_HEALTH_UNKNOWN,
	KLB_HEALTH_HEALTHY,	/* RISE probes in a row passed */
	KLB_HEALTH_UNHEALTHY,	/* FALL probes in a row failed */

	__KLB_HEALTH_MAX
};

#define KLB_HEALTH_MAX (__KLB_HEALTH_MAX - 1)

enum klb_check_kind {
	KLB_CHECK_NONE,		/* no active check: health stays unknown */
	KLB_CHECK_TCP,		/* a TCP connect succeeds */
	KLB_CHECK_HTTP,		/* GET PATH answers with the expected status */
	KLB_CHECK_TLS,		/* a ClientHello (with SNI) gets a ServerHello */

	__KLB_CHECK_KIND_MAX
};

#define KLB_CHECK_KIND_MAX (__KLB_CHECK_KIND_MAX - 1)

/* A pool whose backends are all unhealthy (and some up with a weight): */
enum klb_all_unhealthy {
	KLB_ALL_UNHEALTHY_REFUSE,	/* no backend: new connections refused */
	KLB_ALL_UNHEALTHY_FAIL_OPEN,	/* ignore health: all up ones usable */

	__KLB_ALL_UNHEALTHY_MAX
};

#define KLB_ALL_UNHEALTHY_MAX (__KLB_ALL_UNHEALTHY_MAX - 1)

/*
 * What sh and mh hash (KLB_POOL_A_HASH), keyed by the namespace's hash
 * seed (sysctl net.klb.hash_seed, KLB_CONFIG_A_HASH_SEED):
 */
enum klb_hash {
	KLB_HASH_SRC,		/* the client address: a client sticks */
	KLB_HASH_5TUPLE,	/* addresses, ports, protocol: per flow */

	__KLB_HASH_MAX
};

#define KLB_HASH_MAX (__KLB_HASH_MAX - 1)
#define KLB_HASH_SEED_LEN	16	/* bytes; 32 hex digits in the sysctl */

#define KLB_CHECK_INTERVAL_MIN_MS	100
#define KLB_CHECK_INTERVAL_MAX_MS	3600000	/* one hour */
#define KLB_CHECK_TIMEOUT_MIN_MS	10
#define KLB_CHECK_RISE_FALL_MAX		100
#define KLB_CHECK_PATH_MAX	128	/* including the terminating NUL */
#define KLB_CHECK_HOST_MAX	254	/* including the terminating NUL */
#define KLB_CHECK_BODY_MAX	64	/* including the terminating NUL */

/*
 * Passive health (KLB_POOL_A_PASSIVE_*): PASSIVE_FALL failures in a row of
 * real traffic to a backend (L4 nat/fnat: a reset or no answer to a SYN;
 * L7: connect refused or timed out, and with PASSIVE_5XX a 5xx answer)
 * eject it for EJECT_MS, doubled on each ejection in a row up to
 * KLB_PASSIVE_EJECT_MAX_MS. Defaults: FALL 0 (off), EJECT_MS 10000.
 * Slow start (KLB_POOL_A_SLOWSTART_MS): a backend that becomes usable
 * starts at a small share of its weight and reaches it after that long.
 */
#define KLB_PASSIVE_EJECT_MIN_MS	100
#define KLB_PASSIVE_EJECT_MAX_MS	3600000	/* one hour */
#define KLB_PASSIVE_EJECT_DEFAULT_MS	10000
#define KLB_SLOWSTART_MAX_MS	3600000

/*
 * An active check of every backend of a pool. Defaults: PORT the
 * backend's, INTERVAL 2000, TIMEOUT min(1000, INTERVAL), RISE 2, FALL 3;
 * http: PATH "/", HOST the backend's address, EXPECT 2 (2xx). TIMEOUT <=
 * INTERVAL. PATH, HOST, EXPECT and BODY need kind http, SNI kind tls.
 */
enum klb_check_attr {
	KLB_CHECK_A_UNSPEC,
	KLB_CHECK_A_KIND,	/* u8: enum klb_check_kind */
	KLB_CHECK_A_PORT,	/* u16: 1..65535, instead of the backend's */
	KLB_CHECK_A_INTERVAL_MS,	/* u32: probe period per backend */
	KLB_CHECK_A_TIMEOUT_MS,	/* u32: a probe not done by then failed */
	KLB_CHECK_A_RISE,	/* u8: passes in a row to become healthy */
	KLB_CHECK_A_FALL,	/* u8: failures in a row to become unhealthy */
	KLB_CHECK_A_PATH,	/* string: starts with '/' */
	KLB_CHECK_A_HOST,	/* string: Host header */
	KLB_CHECK_A_EXPECT,	/* u16: 1..5 a status class (2: 2xx), 100..599 exact */
	KLB_CHECK_A_BODY,	/* string: the body must contain it */
	KLB_CHECK_A_SNI,	/* string: server name of the ClientHello */

	__KLB_CHECK_A_MAX
};

#define KLB_CHECK_A_MAX (__KLB_CHECK_A_MAX - 1)

enum klb_mode {
	KLB_MODE_NAT,		/* destination NAT, replies routed back via klb */
	KLB_MODE_HTTP,		/* L7: terminate TCP, route each HTTP request */
	KLB_MODE_TLS,		/* L7: steer TLS by SNI, relay bytes unchanged */
	KLB_MODE_FNAT,		/* full NAT: destination and source rewritten */
	KLB_MODE_DR,		/* direct routing: only the MAC changes */
	KLB_MODE_TUN,		/* IPIP / IP6IP6 tunnel to the backend */

	__KLB_MODE_MAX
};

#define KLB_MODE_MAX (__KLB_MODE_MAX - 1)

/* TCP connection states as reported by KLB_CONN_A_STATE */
enum klb_conn_state {
	KLB_CONN_NONE,
	KLB_CONN_SYN_SENT,	/* client SYN forwarded */
	KLB_CONN_SYN_RECV,	/* backend SYN-ACK seen */
	KLB_CONN_ESTABLISHED,
	KLB_CONN_FIN_WAIT,	/* one side sent FIN */
	KLB_CONN_TIME_WAIT,	/* both sides sent FIN */
	KLB_CONN_CLOSE,		/* RST seen */
	KLB_CONN_UDP,		/* UDP flow */
	KLB_CONN_ADOPTED,	/* dr, tun: mid-flow, not yet proved live */

	__KLB_CONN_STATE_MAX
};

#define KLB_CONN_STATE_MAX (__KLB_CONN_STATE_MAX - 1)

/* What an L7 session (http, tls) is doing, as reported by KLB_CONN_A_L7_STATE */
enum klb_l7_state {
	KLB_L7_STATE_READING_HEAD,	/* a request head (tls: the ClientHello) */
	KLB_L7_STATE_WAITING_BACKEND,	/* connecting to the backend */
	KLB_L7_STATE_QUEUED,		/* every backend at its maxconn: waiting */
	KLB_L7_STATE_RELAYING,		/* request and response, or tls bytes */
	KLB_L7_STATE_IDLE,		/* keep-alive, between requests */
	KLB_L7_STATE_REPLYING,		/* an answer of klb's own (4xx, 5xx) */
	KLB_L7_STATE_CLOSING,		/* draining the client before the close */

	__KLB_L7_STATE_MAX
};

#define KLB_L7_STATE_MAX (__KLB_L7_STATE_MAX - 1)

/* top level */
enum klb_attr {
	KLB_A_UNSPEC,
	KLB_A_POOL,		/* nest: enum klb_pool_attr */
	KLB_A_SERVICE,		/* nest: enum klb_service_attr */
	KLB_A_CONN,		/* nest: enum klb_conn_attr (dump output) */
	KLB_A_CONFIG,		/* nest: enum klb_config_attr (restore) */
	KLB_A_RULE,		/* nest: enum klb_rule_attr */
	KLB_A_PERSIST,		/* nest: enum klb_persist_attr (dump output) */
	KLB_A_STATS,		/* nest: enum klb_global_attr (STATS_GET output) */
	KLB_A_EVENT,		/* nest: enum klb_event_attr (EVENT, multicast) */
	KLB_A_HOSTMAP,		/* nest: enum klb_hostmap_attr, may repeat */
	KLB_A_TXN,		/* u32: a restore transaction's id (RESTORE_*) */

	__KLB_A_MAX
};

#define KLB_A_MAX (__KLB_A_MAX - 1)

enum klb_config_attr {
	KLB_CONFIG_A_UNSPEC,
	KLB_CONFIG_A_POOL,	/* nest: enum klb_pool_attr, repeated */
	KLB_CONFIG_A_SERVICE,	/* nest: enum klb_service_attr, repeated */
	KLB_CONFIG_A_HASH_SEED,	/* binary, KLB_HASH_SEED_LEN: net.klb.hash_seed */

	__KLB_CONFIG_A_MAX
};

#define KLB_CONFIG_A_MAX (__KLB_CONFIG_A_MAX - 1)

enum klb_pool_attr {
	KLB_POOL_A_UNSPEC,
	KLB_POOL_A_NAME,	/* string */
	KLB_POOL_A_SCHED,	/* u8: enum klb_sched */
	KLB_POOL_A_BACKEND,	/* nest: enum klb_backend_attr (one backend: add/set/del) */
	KLB_POOL_A_BACKENDS,	/* nest of KLB_POOL_A_BACKEND nests (dump, restore) */
	KLB_POOL_A_CHECK,	/* nest: enum klb_check_attr; KIND none: no check */
	KLB_POOL_A_ALL_UNHEALTHY,	/* u8: enum klb_all_unhealthy */
	KLB_POOL_A_PASSIVE_FALL,	/* u8: failures in a row that eject; 0 off */
	KLB_POOL_A_PASSIVE_EJECT_MS,	/* u32: first ejection period */
	KLB_POOL_A_PASSIVE_5XX,	/* u8: 1: L7 5xx answers are failures too */
	KLB_POOL_A_SLOWSTART_MS,	/* u32: weight ramp of a new backend; 0 off */
	KLB_POOL_A_HASH,	/* u8: enum klb_hash (sh, mh); default SRC */

	__KLB_POOL_A_MAX
};

#define KLB_POOL_A_MAX (__KLB_POOL_A_MAX - 1)

enum klb_backend_attr {
	KLB_BACKEND_A_UNSPEC,
	KLB_BACKEND_A_ADDR4,	/* binary, 4 bytes, network order */
	KLB_BACKEND_A_ADDR6,	/* binary, 16 bytes, network order */
	KLB_BACKEND_A_PORT,	/* u16, 1..65535 */
	KLB_BACKEND_A_WEIGHT,	/* u32, 0..KLB_WEIGHT_MAX */
	KLB_BACKEND_A_STATE,	/* u8: enum klb_backend_state */
	KLB_BACKEND_A_STATS,	/* nest: enum klb_stats_attr (output) */
	KLB_BACKEND_A_PAD,
	KLB_BACKEND_A_HEALTH,	/* u8: enum klb_backend_health (output) */
	KLB_BACKEND_A_CHECK_OK,	/* u64: probes that passed (output) */
	KLB_BACKEND_A_CHECK_FAIL,	/* u64: probes that failed (output) */
	KLB_BACKEND_A_HEALTH_AGE,	/* u32: seconds since health last changed (output) */
	KLB_BACKEND_A_CHECK_ERROR,	/* string: the last failed probe's reason (output) */
	KLB_BACKEND_A_EJECTED_MS,	/* u32: ejection left, if ejected (output) */
	KLB_BACKEND_A_EJECTIONS,	/* u32: ejections in a row (output) */
	KLB_BACKEND_A_PASSIVE_FAIL,	/* u64: failures passive health counted (output) */
	KLB_BACKEND_A_WEIGHT_NOW,	/* u32: weight during slow start; absent: WEIGHT (output) */
	KLB_BACKEND_A_MAXCONN,	/* u32, 0..KLB_MAXCONN_MAX: open conns cap; 0 none */

	__KLB_BACKEND_A_MAX
};

#define KLB_BACKEND_A_MAX (__KLB_BACKEND_A_MAX - 1)

enum klb_service_attr {
	KLB_SERVICE_A_UNSPEC,
	KLB_SERVICE_A_NAME,	/* string */
	KLB_SERVICE_A_ADDR4,	/* binary, 4 bytes: virtual IPv4 address */
	KLB_SERVICE_A_ADDR6,	/* binary, 16 bytes: virtual IPv6 address */
	KLB_SERVICE_A_PORT,	/* u16, 1..65535 */
	KLB_SERVICE_A_PROTO,	/* u8: IPPROTO_TCP or IPPROTO_UDP */
	KLB_SERVICE_A_MODE,	/* u8: enum klb_mode */
	KLB_SERVICE_A_POOL,	/* string: name of the default pool */
	KLB_SERVICE_A_STATS,	/* nest: enum klb_stats_attr (output) */
	KLB_SERVICE_A_PROXY_PROTOCOL,	/* u8: 0 none, 2 PROXY v2 (http, tls) */
	KLB_SERVICE_A_RULES,	/* nest of KLB_RULES_A_RULE (restore input) */
	KLB_SERVICE_A_NRULES,	/* u32: number of rules (output) */
	KLB_SERVICE_A_SNAT,	/* nest of KLB_SNAT_A_ADDR4|6 (fnat): sources */
	KLB_SERVICE_A_PERSIST,	/* u32: persistence timeout, seconds; 0 off */
	KLB_SERVICE_A_PERSIST_MASK,	/* u8: client prefix length (persist) */
	KLB_SERVICE_A_COOKIE,	/* string: http persistence cookie; "" none */
	KLB_SERVICE_A_ALLOW,	/* nest of KLB_ACL_A_PREFIX4|6; empty: no list */
	KLB_SERVICE_A_DENY,	/* nest of KLB_ACL_A_PREFIX4|6; empty: no list */
	KLB_SERVICE_A_NHOSTS,	/* u32: names in the host map (output) */
	KLB_SERVICE_A_ADOPT,	/* u8: 1 adopt mid-flow TCP (dr, tun); 0 off */

	__KLB_SERVICE_A_MAX
};

#define KLB_SERVICE_A_MAX (__KLB_SERVICE_A_MAX - 1)

enum klb_stats_attr {
	KLB_STATS_A_UNSPEC,
	KLB_STATS_A_PAD,
	KLB_STATS_A_CONNS,		/* u64: connections scheduled */
	KLB_STATS_A_ACTIVE_CONNS,	/* u64: connections now open */
	KLB_STATS_A_PKTS_IN,		/* u64: client -> backend */
	KLB_STATS_A_PKTS_OUT,		/* u64: backend -> client */
	KLB_STATS_A_BYTES_IN,		/* u64: L3 bytes client -> backend */
	KLB_STATS_A_BYTES_OUT,		/* u64: L3 bytes backend -> client */
	KLB_STATS_A_DROP_NO_BACKEND,	/* u64, service only */
	KLB_STATS_A_DROP_TABLE_FULL,	/* u64, service only */
	KLB_STATS_A_DROP_BAD_PACKET,	/* u64, service only */
	KLB_STATS_A_L7,			/* nest: enum klb_l7_stats_attr (http, tls) */
	KLB_STATS_A_DROP_NO_PORT,	/* u64, service only: fnat ports used up */
	KLB_STATS_A_DROP_NO_ROUTE,	/* u64, service only: dr/tun/fnat no path */
	KLB_STATS_A_DROP_TOO_BIG,	/* u64, service only: answered with ICMP */
	KLB_STATS_A_PERSIST_FULL,	/* u64, service only: persist_max reached */
	KLB_STATS_A_DROP_BAD_SOURCE,	/* u64, service only: L7, martian source */
	KLB_STATS_A_DROP_ACL,	/* u64, service only: source refused (allow/deny) */
	KLB_STATS_A_DROP_MAXCONN,	/* u64, service only: every backend at maxconn */
	KLB_STATS_A_CONNS_ADOPTED,	/* u64, service only: mid-flow conns adopted */
	KLB_STATS_A_DROP_ADOPT_FULL,	/* u64, service only: adopt_max reached */

	__KLB_STATS_A_MAX
};

#define KLB_STATS_A_MAX (__KLB_STATS_A_MAX - 1)

/*
 * L7 counters of http and tls services and of their backends. For tls,
 * REQUESTS counts steered connections and no response is counted.
 */
enum klb_l7_stats_attr {
	KLB_L7_STATS_A_UNSPEC,
	KLB_L7_STATS_A_PAD,
	KLB_L7_STATS_A_REQUESTS,	/* u64: requests routed */
	KLB_L7_STATS_A_RESP_1XX,	/* u64: responses by status class */
	KLB_L7_STATS_A_RESP_2XX,
	KLB_L7_STATS_A_RESP_3XX,
	KLB_L7_STATS_A_RESP_4XX,
	KLB_L7_STATS_A_RESP_5XX,
	KLB_L7_STATS_A_ERR_CONNECT,	/* u64: backend connect failed */
	KLB_L7_STATS_A_ERR_TIMEOUT,	/* u64: a client or backend timeout */
	KLB_L7_STATS_A_ERR_RESET,	/* u64: a peer reset or closed early */
	KLB_L7_STATS_A_ERR_PARSE,	/* u64: bad request/response/hello */
	KLB_L7_STATS_A_ERR_NO_BACKEND,	/* u64: no usable backend (503) */
	KLB_L7_STATS_A_ERR_LIMIT,	/* u64: over a size or count limit */

	__KLB_L7_STATS_A_MAX
};

#define KLB_L7_STATS_A_MAX (__KLB_L7_STATS_A_MAX - 1)

#define KLB_RULES_MAX		256	/* rules per service */

enum klb_rules_attr {
	KLB_RULES_A_UNSPEC,
	KLB_RULES_A_RULE,	/* nest: enum klb_rule_attr, repeated, in order */

	__KLB_RULES_A_MAX
};

#define KLB_RULES_A_MAX (__KLB_RULES_A_MAX - 1)

/*
 * A rule: every matcher given must match; the first matching rule of a
 * service picks the pool. Lengths (without NUL): host and sni 1..253,
 * path 1..1023 starting with '/', header name 1..63 (a token), header
 * value 0..255, method 1..31 (a token). host/path/header/method need mode
 * http, sni needs mode tls.
 */
enum klb_rule_attr {
	KLB_RULE_A_UNSPEC,
	KLB_RULE_A_SERVICE,	/* string: service name (commands, dumps) */
	KLB_RULE_A_INDEX,	/* u32: position, from 0 (del, dumps) */
	KLB_RULE_A_HOST,	/* string: exact or "*.example.com" */
	KLB_RULE_A_PATH,	/* string: path prefix */
	KLB_RULE_A_HEADER_NAME,	/* string */
	KLB_RULE_A_HEADER_VALUE,	/* string: exact value */
	KLB_RULE_A_METHOD,	/* string */
	KLB_RULE_A_SNI,		/* string: exact or "*.example.com" */
	KLB_RULE_A_POOL,	/* string: pool name */

	__KLB_RULE_A_MAX
};

#define KLB_RULE_A_MAX (__KLB_RULE_A_MAX - 1)

/*
 * The host map of an http or tls service: exact names (Host, or SNI for
 * tls) -> pool, looked up after the rules and before the default pool.
 * Names: 1..KLB_HOSTMAP_NAME_LEN characters, LDH labels (and '_') or an
 * [IPv6] literal, case-insensitive, one trailing dot ignored.
 */
#define KLB_HOSTMAP_MAX		100000	/* names per service */
#define KLB_HOSTMAP_NAME_LEN	253	/* not counting the NUL */

enum klb_hostmap_attr {
	KLB_HOSTMAP_A_UNSPEC,
	KLB_HOSTMAP_A_SERVICE,	/* string: service name */
	KLB_HOSTMAP_A_HOST,	/* string: exact name */
	KLB_HOSTMAP_A_POOL,	/* string: pool name */

	__KLB_HOSTMAP_A_MAX
};

#define KLB_HOSTMAP_A_MAX (__KLB_HOSTMAP_A_MAX - 1)

#define KLB_SNAT_MAX		16	/* source addresses of an fnat service */

enum klb_snat_attr {
	KLB_SNAT_A_UNSPEC,
	KLB_SNAT_A_ADDR4,	/* binary, 4 bytes, repeated */
	KLB_SNAT_A_ADDR6,	/* binary, 16 bytes, repeated */

	__KLB_SNAT_A_MAX
};

#define KLB_SNAT_A_MAX (__KLB_SNAT_A_MAX - 1)

/*
 * Source prefix lists of a service (KLB_SERVICE_A_ALLOW, _DENY): a new
 * connection from a source in the deny list, or not in a non-empty allow
 * list, is refused (L4: dropped; http: 403; tls: closed), and counted in
 * KLB_STATS_A_DROP_ACL. At most KLB_ACL_PREFIXES_MAX per list; host bits
 * must be 0.
 */
#define KLB_ACL_PREFIXES_MAX	64

enum klb_acl_attr {
	KLB_ACL_A_UNSPEC,
	KLB_ACL_A_PREFIX4,	/* binary, 5 bytes: address, prefix length 0..32 */
	KLB_ACL_A_PREFIX6,	/* binary, 17 bytes: address, length 0..128 */

	__KLB_ACL_A_MAX
};

#define KLB_ACL_A_MAX (__KLB_ACL_A_MAX - 1)

#define KLB_PERSIST_TIMEOUT_MAX	2678400	/* seconds: 31 days */
#define KLB_COOKIE_NAME_MAX	64	/* including the terminating NUL */

/* One persistence entry: a client (prefix) pinned to a backend. */
enum klb_persist_attr {
	KLB_PERSIST_A_UNSPEC,
	KLB_PERSIST_A_SERVICE,		/* string: service name */
	KLB_PERSIST_A_CLIENT_ADDR4,	/* binary 4: masked client address */
	KLB_PERSIST_A_CLIENT_ADDR6,	/* binary 16 */
	KLB_PERSIST_A_CLIENT_PREFIX,	/* u8: prefix length of the mask */
	KLB_PERSIST_A_BACKEND_ADDR4,	/* binary 4 */
	KLB_PERSIST_A_BACKEND_ADDR6,	/* binary 16 */
	KLB_PERSIST_A_BACKEND_PORT,	/* u16 */
	KLB_PERSIST_A_CONNS,		/* u32: connections it holds now */
	KLB_PERSIST_A_EXPIRES_MS,	/* u32: ms until expiry (0 while held) */

	__KLB_PERSIST_A_MAX
};

#define KLB_PERSIST_A_MAX (__KLB_PERSIST_A_MAX - 1)

enum klb_conn_attr {
	KLB_CONN_A_UNSPEC,
	KLB_CONN_A_SERVICE,		/* string: service name */
	KLB_CONN_A_PROTO,		/* u8: IPPROTO_TCP / IPPROTO_UDP */
	KLB_CONN_A_CLIENT_ADDR4,	/* binary 4 */
	KLB_CONN_A_CLIENT_ADDR6,	/* binary 16 */
	KLB_CONN_A_CLIENT_PORT,		/* u16 */
	KLB_CONN_A_VIP_ADDR4,		/* binary 4 */
	KLB_CONN_A_VIP_ADDR6,		/* binary 16 */
	KLB_CONN_A_VIP_PORT,		/* u16 */
	KLB_CONN_A_BACKEND_ADDR4,	/* binary 4 */
	KLB_CONN_A_BACKEND_ADDR6,	/* binary 16 */
	KLB_CONN_A_BACKEND_PORT,	/* u16 */
	KLB_CONN_A_STATE,		/* u8: enum klb_conn_state */
	KLB_CONN_A_EXPIRES_MS,		/* u32: milliseconds until expiry */
	KLB_CONN_A_LOCAL_ADDR4,		/* binary 4: fnat source towards the backend */
	KLB_CONN_A_LOCAL_ADDR6,		/* binary 16 */
	KLB_CONN_A_LOCAL_PORT,		/* u16 */
	/* L7 sessions (http, tls), after the L4 connections; no EXPIRES_MS */
	KLB_CONN_A_MODE,		/* u8: enum klb_mode; L7 sessions only */
	KLB_CONN_A_L7_STATE,		/* u8: enum klb_l7_state */
	KLB_CONN_A_AGE_MS,		/* u32: since the client connected */
	KLB_CONN_A_BYTES_IN,		/* u64: client -> backend, relayed */
	KLB_CONN_A_BYTES_OUT,		/* u64: backend -> client, relayed */
	KLB_CONN_A_PAD,

	__KLB_CONN_A_MAX
};

#define KLB_CONN_A_MAX (__KLB_CONN_A_MAX - 1)

/* Figures of a whole namespace (KLB_CMD_STATS_GET). */
enum klb_global_attr {
	KLB_GLOBAL_A_UNSPEC,
	KLB_GLOBAL_A_CONNS,		/* u32: connection table entries now */
	KLB_GLOBAL_A_CONN_MAX,		/* u32: the limit (sysctl conn_max) */
	KLB_GLOBAL_A_L7_SESSIONS,	/* u32: L7 client sessions now */
	KLB_GLOBAL_A_LISTENERS,		/* u32: L7 listening sockets */
	KLB_GLOBAL_A_SERVICES,		/* u32 */
	KLB_GLOBAL_A_POOLS,		/* u32 */
	KLB_GLOBAL_A_BACKENDS,		/* u32: in all pools */
	KLB_GLOBAL_A_PAD,
	KLB_GLOBAL_A_CONN_BUCKETS,	/* u32: connection hash size */
	KLB_GLOBAL_A_CONN_EVICTIONS,	/* u64: entries evicted at conn_max */

	__KLB_GLOBAL_A_MAX
};

#define KLB_GLOBAL_A_MAX (__KLB_GLOBAL_A_MAX - 1)

/* Events: the multicast group and what its messages say (KLB_CMD_EVENT). */
#define KLB_MCGRP_EVENTS	"events"
#define KLB_EVENT_REASON_MAX	64	/* including the terminating NUL */

/* What an event is about. */
enum klb_event_object {
	KLB_EVENT_POOL,
	KLB_EVENT_BACKEND,
	KLB_EVENT_SERVICE,
	KLB_EVENT_CONFIG,	/* the whole configuration: flush, restore */

	__KLB_EVENT_OBJECT_MAX
};

#define KLB_EVENT_OBJECT_MAX (__KLB_EVENT_OBJECT_MAX - 1)

/* What happened to it. */
enum klb_event_action {
	KLB_EVENT_NEW,
	KLB_EVENT_SET,		/* changed by the operator (a backend: weight) */
	KLB_EVENT_DEL,
	KLB_EVENT_STATE,	/* a backend's operator state changed */
	KLB_EVENT_HEALTH,	/* a backend's health changed */
	KLB_EVENT_FLUSH,	/* config: everything deleted */
	KLB_EVENT_RESTORE,	/* config: replaced as a whole */

	__KLB_EVENT_ACTION_MAX
};

#define KLB_EVENT_ACTION_MAX (__KLB_EVENT_ACTION_MAX - 1)

enum klb_event_attr {
	KLB_EVENT_A_UNSPEC,
	KLB_EVENT_A_PAD,
	KLB_EVENT_A_OBJECT,	/* u8: enum klb_event_object */
	KLB_EVENT_A_ACTION,	/* u8: enum klb_event_action */
	KLB_EVENT_A_TIME,	/* u64: wall clock, ns since the epoch */
	KLB_EVENT_A_REASON,	/* string: why ("operator", a check's error) */
	KLB_EVENT_A_POOL,	/* string: the pool (of the backend, service) */
	KLB_EVENT_A_SERVICE,	/* string: the service */
	KLB_EVENT_A_SCHED,	/* u8: enum klb_sched (pool new, set) */
	KLB_EVENT_A_BACKEND,	/* nest: enum klb_backend_attr, no STATS */
	KLB_EVENT_A_POOLS,	/* u32: pools after a restore, before a flush */
	KLB_EVENT_A_SERVICES,	/* u32: the same for services */
	KLB_EVENT_A_BACKENDS,	/* u32: the same for backends */

	__KLB_EVENT_A_MAX
};

#define KLB_EVENT_A_MAX (__KLB_EVENT_A_MAX - 1)

#endif /* _UAPI_LINUX_KLB_H */
