// SPDX-License-Identifier: GPL-2.0
/* Talking to the klb generic netlink family (libmnl), with extack. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <libmnl/libmnl.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <linux/klb.h>

#include "klbctl.h"
#include "nl.h"

/* Dumps are re-run this many times before giving up on a moving target. */
#define DUMP_RETRIES	8
/* Dump skbs are at most 32 KiB on current kernels; a do reply may be more. */
#define RX_SIZE		(64 * 1024)
/* Room for a big reply to queue up; the default 208 KiB drops it (ENOBUFS). */
#define RCVBUF_SIZE	(4 * 1024 * 1024)

static struct mnl_socket *sock;
static uint16_t family_id;
static uint32_t events_group;	/* id of KLB_MCGRP_EVENTS, 0: none */
static bool family_cmds[256];	/* the commands the module knows */
static uint32_t seq;
static char *rxbuf;
static size_t rxsize;

/* What the kernel said in an NLMSG_ERROR (or an erroring NLMSG_DONE). */
struct nl_err {
	int err;		/* positive errno, 0 for a plain ACK */
	char msg[256];		/* NLMSGERR_ATTR_MSG, "" if none */
	bool has_off, has_miss_type, has_miss_nest;
	uint32_t off, miss_type, miss_nest;
	/*
	 * The request went out but its answer could not be read (ENOBUFS:
	 * the kernel could not queue it): whether it was done is unknown.
	 */
	bool answer_lost;
};

/* -------------------------------------------------------------- requests */

int req_init(struct req *r, uint8_t cmd, uint16_t flags, size_t size)
{
	struct genlmsghdr *genl;

	memset(r, 0, sizeof(*r));
	size = MNL_ALIGN(size);
	r->nlh = calloc(1, size);
	if (!r->nlh)
		return errorf(EXIT_KERNEL, "out of memory for a %zu byte request", size);
	r->size = size;
	mnl_nlmsg_put_header(r->nlh);
	r->nlh->nlmsg_flags = NLM_F_REQUEST | flags;
	/* A do request gets an ACK so success is confirmed, not assumed. */
	if (!(flags & NLM_F_DUMP))
		r->nlh->nlmsg_flags |= NLM_F_ACK;
	genl = mnl_nlmsg_put_extra_header(r->nlh, sizeof(*genl));
	genl->cmd = cmd;
	genl->version = KLB_GENL_VERSION;
	return EXIT_OK;
}

void req_free(struct req *r)
{
	free(r->nlh);
	free(r->spans);
	memset(r, 0, sizeof(*r));
}

void req_put(struct req *r, uint16_t type, size_t len, const void *data)
{
	if (!r->full && !mnl_attr_put_check(r->nlh, r->size, type, len, data))
		r->full = true;
}

void req_put_strz(struct req *r, uint16_t type, const char *s)
{
	req_put(r, type, strlen(s) + 1, s);
}

void req_put_strn(struct req *r, uint16_t type, const char *s, size_t len)
{
	struct nlattr *a;

	if (r->full)
		return;
	/* s is a prefix of a C string: s[len] is readable, then made a NUL. */
	a = mnl_nlmsg_get_payload_tail(r->nlh);
	if (!mnl_attr_put_check(r->nlh, r->size, type, len + 1, s)) {
		r->full = true;
		return;
	}
	((char *)mnl_attr_get_payload(a))[len] = '\0';
}

void req_put_u8(struct req *r, uint16_t type, uint8_t v)
{
	req_put(r, type, sizeof(v), &v);
}

void req_put_u16(struct req *r, uint16_t type, uint16_t v)
{
	req_put(r, type, sizeof(v), &v);
}

void req_put_u32(struct req *r, uint16_t type, uint32_t v)
{
	req_put(r, type, sizeof(v), &v);
}

struct nlattr *req_nest_start(struct req *r, uint16_t type)
{
	struct nlattr *nest = NULL;

	if (!r->full) {
		nest = mnl_attr_nest_start_check(r->nlh, r->size, type);
		if (!nest)
			r->full = true;
	}
	return nest;
}

void req_nest_end(struct req *r, struct nlattr *nest)
{
	if (!nest || r->full)
		return;
	/* nla_len is 16 bits: a longer nest would be silently truncated. */
	if ((char *)mnl_nlmsg_get_payload_tail(r->nlh) - (char *)nest > UINT16_MAX)
		r->nest_overflow = true;
	mnl_attr_nest_end(r->nlh, nest);
}

uint32_t req_len(const struct req *r)
{
	return r->nlh->nlmsg_len;
}

void req_truncate(struct req *r, uint32_t len)
{
	r->nlh->nlmsg_len = len;
	r->full = false;
	while (r->nspans && r->spans[r->nspans - 1].start >= len)
		r->nspans--;
}

void req_span(struct req *r, uint32_t start, unsigned int line)
{
	struct req_span *s;

	if (r->nspans == r->spans_cap) {
		size_t cap = r->spans_cap ? 2 * r->spans_cap : 64;

		s = realloc(r->spans, cap * sizeof(*s));
		if (!s)
			return;	/* only costs the line number in an error */
		r->spans = s;
		r->spans_cap = cap;
	}
	s = &r->spans[r->nspans++];
	s->start = start;
	s->end = req_len(r);
	s->line = line;
}

size_t req_size_for(int argc, char **argv)
{
	size_t size = MNL_SOCKET_BUFFER_SIZE;
	int i;

	/* Over-long names are sent as given: the kernel judges them. */
	for (i = 0; i < argc; i++)
		size += MNL_ALIGN(strlen(argv[i]) + 1) + MNL_ATTR_HDRLEN;
	return size;
}

/* ------------------------------------------------------- reply parsing */

static int tb_cb(const struct nlattr *a, void *data)
{
	struct { const struct nlattr **tb; unsigned int max; } *p = data;
	uint16_t type = mnl_attr_get_type(a);

	/* Attributes newer than klbctl are skipped, not fatal. */
	if (type <= p->max)
		p->tb[type] = a;
	return MNL_CB_OK;
}

void nest_parse(const struct nlattr *nest, const struct nlattr **tb,
		unsigned int max)
{
	struct { const struct nlattr **tb; unsigned int max; } p = { tb, max };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	mnl_attr_parse_nested(nest, tb_cb, &p);
}

void msg_parse(const struct nlmsghdr *nlh, const struct nlattr **tb,
	       unsigned int max)
{
	struct { const struct nlattr **tb; unsigned int max; } p = { tb, max };

	memset(tb, 0, (max + 1) * sizeof(*tb));
	mnl_attr_parse(nlh, sizeof(struct genlmsghdr), tb_cb, &p);
}

uint8_t attr_u8(const struct nlattr *a, uint8_t def)
{
	return a && mnl_attr_get_payload_len(a) >= 1 ? mnl_attr_get_u8(a) : def;
}

uint16_t attr_u16(const struct nlattr *a, uint16_t def)
{
	return a && mnl_attr_get_payload_len(a) >= 2 ? mnl_attr_get_u16(a) : def;
}

uint32_t attr_u32(const struct nlattr *a, uint32_t def)
{
	return a && mnl_attr_get_payload_len(a) >= 4 ? mnl_attr_get_u32(a) : def;
}

uint64_t attr_u64(const struct nlattr *a, uint64_t def)
{
	return a && mnl_attr_get_payload_len(a) >= 8 ? mnl_attr_get_u64(a) : def;
}

char *attr_strdup(const struct nlattr *a)
{
	if (!a)
		return NULL;
	return strndup(mnl_attr_get_payload(a), mnl_attr_get_payload_len(a));
}

/* --------------------------------------------------------------- extack */

static int extack_cb(const struct nlattr *a, void *data)
{
	struct nl_err *e = data;

	switch (mnl_attr_get_type(a)) {
	case NLMSGERR_ATTR_MSG:
		if (mnl_attr_validate(a, MNL_TYPE_NUL_STRING) == 0)
			snprintf(e->msg, sizeof(e->msg), "%s",
				 mnl_attr_get_str(a));
		break;
	case NLMSGERR_ATTR_OFFS:
		if (mnl_attr_validate(a, MNL_TYPE_U32) == 0) {
			e->off = mnl_attr_get_u32(a);
			e->has_off = true;
		}
		break;
	case NLMSGERR_ATTR_MISS_TYPE:
		if (mnl_attr_validate(a, MNL_TYPE_U32) == 0) {
			e->miss_type = mnl_attr_get_u32(a);
			e->has_miss_type = true;
		}
		break;
	case NLMSGERR_ATTR_MISS_NEST:
		if (mnl_attr_validate(a, MNL_TYPE_U32) == 0) {
			e->miss_nest = mnl_attr_get_u32(a);
			e->has_miss_nest = true;
		}
		break;
	}
	return MNL_CB_OK;
}

/* TLVs start after the echoed request, which NETLINK_CAP_ACK cuts to its header. */
static void parse_ack(const struct nlmsghdr *nlh, struct nl_err *e)
{
	const struct nlmsgerr *err = mnl_nlmsg_get_payload(nlh);
	size_t off = sizeof(*err);

	if (mnl_nlmsg_get_payload_len(nlh) < sizeof(*err)) {
		e->err = EPROTO;
		return;
	}
	e->err = -err->error;
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return;
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		off += err->msg.nlmsg_len - sizeof(struct nlmsghdr);
	if (off <= mnl_nlmsg_get_payload_len(nlh))
		mnl_attr_parse(nlh, (unsigned int)off, extack_cb, e);
}

/* A dump reports its error in NLMSG_DONE: an int, then the extack TLVs. */
static void parse_done(const struct nlmsghdr *nlh, struct nl_err *e)
{
	int err = 0;

	if (mnl_nlmsg_get_payload_len(nlh) >= sizeof(int))
		memcpy(&err, mnl_nlmsg_get_payload(nlh), sizeof(int));
	e->err = err < 0 ? -err : 0;
	if (e->err && (nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		mnl_attr_parse(nlh, sizeof(int), extack_cb, e);
}

static int report(const struct req *r, const struct nl_err *e)
{
	char what[128] = "", where[512] = "", name[96];
	const char *msg = e->msg[0] ? e->msg : strerror(e->err);
	size_t i, best = SIZE_MAX;

	if (e->answer_lost)
		msg = "No buffer space available: the kernel's answer was lost, "
		      "so the change may or may not have been made (see show)";
	else if (e->err == EPERM && !e->msg[0])
		msg = "Operation not permitted (klbctl needs CAP_NET_ADMIN; "
		      "to configure klb, in the initial user namespace)";

	/*
	 * Policy failures ("integer out of range") do not say which attribute
	 * they mean; name it, unless the kernel's message already does.
	 */
	if (e->has_off && r) {
		attr_describe(r->nlh, e->off, name, sizeof(name));
		if (!strstr(msg, name))
			snprintf(what, sizeof(what), " (attribute: %s)", name);
	} else if (e->has_miss_type && r) {
		attr_describe_missing(r->nlh, e->has_miss_nest, e->miss_nest,
				      e->miss_type, name, sizeof(name));
		if (!strstr(msg, name))
			snprintf(what, sizeof(what), " (missing attribute: %s)",
				 name);
	}

	/* Restore: the innermost object around the offset names the line. */
	if (r && r->file && (e->has_off || e->has_miss_nest)) {
		uint32_t off = e->has_off ? e->off : e->miss_nest;

		for (i = 0; i < r->nspans; i++) {
			const struct req_span *s = &r->spans[i];

			if (off >= s->start && off < s->end &&
			    (best == SIZE_MAX ||
			     s->end - s->start < r->spans[best].end - r->spans[best].start))
				best = i;
		}
		if (best != SIZE_MAX)
			snprintf(where, sizeof(where), "%s:%u: ", r->file,
				 r->spans[best].line);
	}
	fprintf(stderr, "Error: %s%s%s\n", where, msg, what);
	return EXIT_KERNEL;
}

/* ------------------------------------------------------------- transport */

/*
 * The top-level attributes must cover the payload exactly. A kernel nest
 * longer than 64 KiB wraps nla_len and would otherwise be read as fewer
 * objects without a word.
 */
static bool attrs_tile(const struct nlmsghdr *m)
{
	const struct nlattr *a;
	const char *end = mnl_nlmsg_get_payload_tail(m);

	if (mnl_nlmsg_get_payload_len(m) < sizeof(struct genlmsghdr))
		return false;
	mnl_attr_for_each(a, m, sizeof(struct genlmsghdr))
		if ((const char *)a + MNL_ALIGN(a->nla_len) >= end)
			return (const char *)a + MNL_ALIGN(a->nla_len) == end;
	return (const char *)a == end;
}

/*
 * One datagram from the kernel into rxbuf, grown to fit: a do reply (one
 * pool with all its backends) is not bounded by the dump skb size.
 */
static ssize_t receive(void)
{
	int fd = mnl_socket_get_fd(sock);
	struct sockaddr_nl addr;
	socklen_t alen;
	ssize_t n;
	char *p;

	for (;;) {
		n = recv(fd, NULL, 0, MSG_PEEK | MSG_TRUNC);
		if (n < 0)
			return n;
		if ((size_t)n > rxsize || !rxbuf) {
			size_t size = (size_t)n > RX_SIZE ? (size_t)n : RX_SIZE;

			p = realloc(rxbuf, size);
			if (!p) {
				errno = ENOMEM;
				return -1;
			}
			rxbuf = p;
			rxsize = size;
		}
		alen = sizeof(addr);
		n = recvfrom(fd, rxbuf, rxsize, 0, (struct sockaddr *)&addr, &alen);
		/* Only the kernel (port 0) speaks for the family. */
		if (n < 0 || addr.nl_pid == 0)
			return n;
	}
}

/*
 * Send nlh and read until its ACK or NLMSG_DONE. Returns 0, or -1 with *e
 * describing the failure (e->err is a positive errno).
 */
static int transact(struct nlmsghdr *nlh, uint16_t type, klb_cb_t cb,
		    void *data, struct nl_err *e, bool *intr)
{
	uint32_t portid = mnl_socket_get_portid(sock);
	bool dump = nlh->nlmsg_flags & NLM_F_DUMP;

	memset(e, 0, sizeof(*e));
	*intr = false;
	nlh->nlmsg_seq = ++seq;
	if (mnl_socket_sendto(sock, nlh, nlh->nlmsg_len) < 0) {
		e->err = errno;
		return -1;
	}
	for (;;) {
		ssize_t n = receive();
		int len = (int)n;
		struct nlmsghdr *m;

		if (n < 0) {
			e->err = errno;
			e->answer_lost = !dump && errno == ENOBUFS;
			return -1;
		}
		for (m = (struct nlmsghdr *)rxbuf; mnl_nlmsg_ok(m, len);
		     m = mnl_nlmsg_next(m, &len)) {
			/* Leftovers of an earlier, aborted exchange. */
			if (m->nlmsg_seq != seq || m->nlmsg_pid != portid)
				continue;
			if (m->nlmsg_flags & NLM_F_DUMP_INTR)
				*intr = true;
			if (m->nlmsg_type == NLMSG_ERROR) {
				parse_ack(m, e);
				if (e->err)
					return -1;
				if (e->msg[0])
					warnf("%s", e->msg);
				if (!dump)
					return 0;
				continue;
			}
			if (m->nlmsg_type == NLMSG_DONE) {
				parse_done(m, e);
				return e->err ? -1 : 0;
			}
			if (m->nlmsg_type != type || !cb)
				continue;
			if (!attrs_tile(m)) {
				snprintf(e->msg, sizeof(e->msg),
					 "malformed reply from the kernel (an attribute over 64 KiB?)");
				e->err = EPROTO;
				return -1;
			}
			e->err = -cb(m, data);
			if (e->err)
				return -1;
		}
	}
}

/* The id of the events group among the family's multicast groups. */
static void family_groups(const struct nlattr *groups)
{
	const struct nlattr *tb[CTRL_ATTR_MCAST_GRP_MAX + 1];
	const struct nlattr *g;
	char *name;

	if (!groups)
		return;
	mnl_attr_for_each_nested(g, groups) {
		nest_parse(g, tb, CTRL_ATTR_MCAST_GRP_MAX);
		name = attr_strdup(tb[CTRL_ATTR_MCAST_GRP_NAME]);
		if (name && !strcmp(name, KLB_MCGRP_EVENTS))
			events_group = attr_u32(tb[CTRL_ATTR_MCAST_GRP_ID], 0);
		free(name);
	}
}

/* Which commands the module has (a klb.ko older than klbctl lacks some). */
static void family_ops(const struct nlattr *ops)
{
	const struct nlattr *tb[CTRL_ATTR_OP_MAX + 1];
	const struct nlattr *op;
	uint32_t id;

	if (!ops)
		return;
	mnl_attr_for_each_nested(op, ops) {
		nest_parse(op, tb, CTRL_ATTR_OP_MAX);
		id = attr_u32(tb[CTRL_ATTR_OP_ID], 0);
		if (id < sizeof(family_cmds))
			family_cmds[id] = true;
	}
}

static int family_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct nlattr *tb[CTRL_ATTR_MAX + 1];

	msg_parse(nlh, tb, CTRL_ATTR_MAX);
	*(uint16_t *)data = attr_u16(tb[CTRL_ATTR_FAMILY_ID], 0);
	family_groups(tb[CTRL_ATTR_MCAST_GROUPS]);
	family_ops(tb[CTRL_ATTR_OPS]);
	return 0;
}

static int nl_open(void)
{
	char buf[MNL_SOCKET_BUFFER_SIZE] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct genlmsghdr *genl;
	struct nlmsghdr *nlh;
	int one = 1, rcvbuf = RCVBUF_SIZE;
	struct nl_err e;
	bool intr;

	sock = mnl_socket_open(NETLINK_GENERIC);
	if (!sock)
		return errorf(EXIT_KERNEL, "cannot open a generic netlink socket: %s",
			      strerror(errno));
	if (mnl_socket_bind(sock, 0, MNL_SOCKET_AUTOPID) < 0) {
		errorf(EXIT_KERNEL, "cannot bind a netlink socket: %s", strerror(errno));
		nl_close();
		return EXIT_KERNEL;
	}
	/* Best effort: kernels without them just give plain errnos. */
	mnl_socket_setsockopt(sock, NETLINK_EXT_ACK, &one, sizeof(one));
	mnl_socket_setsockopt(sock, NETLINK_CAP_ACK, &one, sizeof(one));
	if (setsockopt(mnl_socket_get_fd(sock), SOL_SOCKET, SO_RCVBUFFORCE,
		       &rcvbuf, sizeof(rcvbuf)) < 0)
		setsockopt(mnl_socket_get_fd(sock), SOL_SOCKET, SO_RCVBUF,
			   &rcvbuf, sizeof(rcvbuf));
	seq = (uint32_t)time(NULL);

	nlh = mnl_nlmsg_put_header(buf);
	nlh->nlmsg_type = GENL_ID_CTRL;
	nlh->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	genl = mnl_nlmsg_put_extra_header(nlh, sizeof(*genl));
	genl->cmd = CTRL_CMD_GETFAMILY;
	genl->version = 1;
	mnl_attr_put_strz(nlh, CTRL_ATTR_FAMILY_NAME, KLB_GENL_NAME);

	if (transact(nlh, GENL_ID_CTRL, family_cb, &family_id, &e, &intr) < 0 ||
	    !family_id) {
		nl_close();
		if (e.err == ENOENT || !e.err)
			return errorf(EXIT_KERNEL,
				      "klb module not loaded (generic netlink family \"%s\" not found)",
				      KLB_GENL_NAME);
		return report(NULL, &e);
	}
	return EXIT_OK;
}

void nl_close(void)
{
	if (sock)
		mnl_socket_close(sock);
	sock = NULL;
	free(rxbuf);
	rxbuf = NULL;
	rxsize = 0;
	family_id = 0;
	events_group = 0;
	memset(family_cmds, 0, sizeof(family_cmds));
}

int nl_join_events(int *fd, uint16_t *family)
{
	int ret;

	if (!sock) {
		ret = nl_open();
		if (ret)
			return ret;
	}
	if (!events_group)
		return errorf(EXIT_KERNEL,
			      "the klb module has no \"%s\" multicast group (older than klbctl?)",
			      KLB_MCGRP_EVENTS);
	if (mnl_socket_setsockopt(sock, NETLINK_ADD_MEMBERSHIP, &events_group,
				  sizeof(events_group)) < 0)
		return errorf(EXIT_KERNEL, "cannot join the klb events group: %s",
			      strerror(errno));
	*fd = mnl_socket_get_fd(sock);
	*family = family_id;
	return EXIT_OK;
}

static bool dump_requests(void)
{
	const char *env = getenv("KLBCTL_DUMP_REQUEST");

	return env && *env && strcmp(env, "0");
}

int nl_need_cmd(uint8_t cmd, const char *what)
{
	int ret;

	if (dump_requests())
		return EXIT_OK;
	if (!sock) {
		ret = nl_open();
		if (ret)
			return ret;
	}
	if (!family_cmds[cmd])
		return errorf(EXIT_KERNEL,
			      "the klb module has no %s: it is older than klbctl (load the klb.ko of klbctl's version)",
			      what);
	return EXIT_OK;
}

/* Netlink refuses a message bigger than the socket's send buffer. */
static void grow_sndbuf(size_t len)
{
	int size = (int)(len + 64 * 1024);
	int fd = mnl_socket_get_fd(sock);

	if (len < 128 * 1024)
		return;
	/* FORCE passes net.core.wmem_max; we hold CAP_NET_ADMIN anyway. */
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &size, sizeof(size)) < 0)
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size));
}

int klb_request(struct req *r, klb_cb_t cb, void *data,
		void (*reset)(void *data))
{
	struct nl_err e;
	bool intr;
	int ret, tries;

	if (r->full)
		return errorf(EXIT_KERNEL, "request larger than %zu bytes", r->size);
	if (r->nest_overflow)
		return errorf(EXIT_KERNEL,
			      "request too large: a netlink attribute holds at most 64 KiB");
	if (dump_requests()) {
		attr_dump_request(r->nlh, stdout);
		return EXIT_OK;
	}
	if (!sock) {
		ret = nl_open();
		if (ret)
			return ret;
	}
	r->nlh->nlmsg_type = family_id;
	grow_sndbuf(r->nlh->nlmsg_len);

	for (tries = 0;; tries++) {
		if (transact(r->nlh, family_id, cb, data, &e, &intr) < 0)
			return report(r, &e);
		if (!intr || !reset)
			return EXIT_OK;
		if (tries == DUMP_RETRIES)
			return errorf(EXIT_KERNEL,
				      "dump interrupted %d times by concurrent changes, try again",
				      DUMP_RETRIES + 1);
		reset(data);
	}
}
