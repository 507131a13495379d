// SPDX-License-Identifier: GPL-2.0
/*
 * klb_nlfuzz: random and mutated requests to the "klb" generic netlink
 * family, from several processes at once (selftests/nl_fuzz.sh).
 *
 *   klb_nlfuzz [-n COUNT] [-p PROCS] [-s SEED] [-t TIMEOUT_S] [-f FAMILY]
 *
 * COUNT requests in all (default 20000), dealt to PROCS processes (default
 * 4). Each request is one of: a plausible request of a random command built
 * from the attribute tables below (names from a small set, so the processes
 * create, change, dump and delete the same objects), then mutated (bytes
 * flipped, lengths lied about, nests unflagged, cut short, huge lists,
 * scalars of the wrong size, strings unterminated or too long); a soup of
 * random attributes; a dump, sometimes abandoned half-read (the socket is
 * closed mid-dump). Every request asks for an ACK: the kernel must answer
 * each one (error or success) within TIMEOUT_S seconds (default 20).
 *
 * -f sends the same to another family (default "klb"; "nlctrl" tries the
 * generator on a machine without klb).
 *
 * Prints one line per process and a total:
 *   total sent N ok N refused N dumps N abandoned N timeouts N
 * and exits 1 if a request went unanswered, the family vanished, or a
 * socket error other than ENOBUFS happened; else 0.
 */
#include <errno.h>
#include <linux/genetlink.h>
#include <linux/netlink.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../include/uapi/linux/klb.h"

#define BUF_SIZE	(64 * 1024)
#define RCV_SIZE	(256 * 1024)

static uint64_t rnd_state;

/* xorshift64*: reproducible from -s SEED. */
static uint32_t rnd(void)
{
	rnd_state ^= rnd_state >> 12;
	rnd_state ^= rnd_state << 25;
	rnd_state ^= rnd_state >> 27;
	return (uint32_t)((rnd_state * 0x2545F4914F6CDD1DULL) >> 32);
}

static uint32_t below(uint32_t n)
{
	return n ? rnd() % n : 0;
}

/* true with probability pct % */
static int chance(unsigned int pct)
{
	return below(100) < pct;
}

enum kind { K_STR, K_U8, K_U16, K_U32, K_U64, K_A4, K_A6, K_NEST, K_LIST };

struct spec {
	uint16_t type;
	enum kind kind;
	const struct table *sub;	/* K_NEST: its attributes; K_LIST: the element's */
	uint16_t elem;			/* K_LIST: the element attribute type */
	uint32_t max;			/* scalars: a plausible upper bound */
};

struct table {
	int n;
	const struct spec *s;
};

#define S(t, k)		{ t, k, NULL, 0, 0 }
#define SC(t, k, max)	{ t, k, NULL, 0, max }
#define N(t, sub)	{ t, K_NEST, sub, 0, 0 }
#define L(t, sub, elem)	{ t, K_LIST, sub, elem, 0 }
#define T(arr) { sizeof(arr) / sizeof(arr[0]), arr }

static const struct spec stats_s[] = {
	S(KLB_STATS_A_CONNS, K_U64), S(KLB_STATS_A_PKTS_IN, K_U64),
	S(KLB_STATS_A_L7, K_U64), S(KLB_STATS_A_PAD, K_U32),
};
static const struct table stats_t = T(stats_s);

static const struct spec check_s[] = {
	SC(KLB_CHECK_A_KIND, K_U8, KLB_CHECK_KIND_MAX + 1),
	SC(KLB_CHECK_A_PORT, K_U16, 65535),
	SC(KLB_CHECK_A_INTERVAL_MS, K_U32, 5000),
	SC(KLB_CHECK_A_TIMEOUT_MS, K_U32, 5000),
	SC(KLB_CHECK_A_RISE, K_U8, 120),
	SC(KLB_CHECK_A_FALL, K_U8, 120),
	S(KLB_CHECK_A_PATH, K_STR), S(KLB_CHECK_A_HOST, K_STR),
	SC(KLB_CHECK_A_EXPECT, K_U16, 700),
	S(KLB_CHECK_A_BODY, K_STR), S(KLB_CHECK_A_SNI, K_STR),
};
static const struct table check_t = T(check_s);

static const struct spec backend_s[] = {
	S(KLB_BACKEND_A_ADDR4, K_A4), S(KLB_BACKEND_A_ADDR6, K_A6),
	SC(KLB_BACKEND_A_PORT, K_U16, 65535),
	SC(KLB_BACKEND_A_WEIGHT, K_U32, KLB_WEIGHT_MAX + 2),
	SC(KLB_BACKEND_A_STATE, K_U8, KLB_BACKEND_STATE_MAX + 1),
	N(KLB_BACKEND_A_STATS, &stats_t),
	SC(KLB_BACKEND_A_HEALTH, K_U8, 4),
	S(KLB_BACKEND_A_CHECK_ERROR, K_STR),
	SC(KLB_BACKEND_A_WEIGHT_NOW, K_U32, 100),
};
static const struct table backend_t = T(backend_s);

static const struct spec pool_s[] = {
	S(KLB_POOL_A_NAME, K_STR),
	SC(KLB_POOL_A_SCHED, K_U8, KLB_SCHED_MAX + 1),
	N(KLB_POOL_A_BACKEND, &backend_t),
	L(KLB_POOL_A_BACKENDS, &backend_t, KLB_POOL_A_BACKEND),
	N(KLB_POOL_A_CHECK, &check_t),
	SC(KLB_POOL_A_ALL_UNHEALTHY, K_U8, KLB_ALL_UNHEALTHY_MAX + 1),
	SC(KLB_POOL_A_PASSIVE_FALL, K_U8, 120),
	SC(KLB_POOL_A_PASSIVE_EJECT_MS, K_U32, 20000),
	SC(KLB_POOL_A_PASSIVE_5XX, K_U8, 2),
	SC(KLB_POOL_A_SLOWSTART_MS, K_U32, 20000),
};
static const struct table pool_t = T(pool_s);

static const struct spec rule_s[] = {
	S(KLB_RULE_A_SERVICE, K_STR), SC(KLB_RULE_A_INDEX, K_U32, 300),
	S(KLB_RULE_A_HOST, K_STR), S(KLB_RULE_A_PATH, K_STR),
	S(KLB_RULE_A_HEADER_NAME, K_STR), S(KLB_RULE_A_HEADER_VALUE, K_STR),
	S(KLB_RULE_A_METHOD, K_STR), S(KLB_RULE_A_SNI, K_STR),
	S(KLB_RULE_A_POOL, K_STR),
};
static const struct table rule_t = T(rule_s);

static const struct spec snat_s[] = {
	S(KLB_SNAT_A_ADDR4, K_A4), S(KLB_SNAT_A_ADDR6, K_A6),
};
static const struct table snat_t = T(snat_s);

static const struct spec service_s[] = {
	S(KLB_SERVICE_A_NAME, K_STR),
	S(KLB_SERVICE_A_ADDR4, K_A4), S(KLB_SERVICE_A_ADDR6, K_A6),
	SC(KLB_SERVICE_A_PORT, K_U16, 65535),
	SC(KLB_SERVICE_A_PROTO, K_U8, 255),
	SC(KLB_SERVICE_A_MODE, K_U8, KLB_MODE_MAX + 1),
	S(KLB_SERVICE_A_POOL, K_STR),
	N(KLB_SERVICE_A_STATS, &stats_t),
	SC(KLB_SERVICE_A_PROXY_PROTOCOL, K_U8, 3),
	L(KLB_SERVICE_A_RULES, &rule_t, KLB_RULES_A_RULE),
	SC(KLB_SERVICE_A_NRULES, K_U32, 300),
	N(KLB_SERVICE_A_SNAT, &snat_t),
	SC(KLB_SERVICE_A_PERSIST, K_U32, KLB_PERSIST_TIMEOUT_MAX + 1),
	SC(KLB_SERVICE_A_PERSIST_MASK, K_U8, 130),
	S(KLB_SERVICE_A_COOKIE, K_STR),
};
static const struct table service_t = T(service_s);

static const struct spec config_s[] = {
	N(KLB_CONFIG_A_POOL, &pool_t),
	N(KLB_CONFIG_A_SERVICE, &service_t),
};
static const struct table config_t = T(config_s);

static const struct spec top_s[] = {
	N(KLB_A_POOL, &pool_t),
	N(KLB_A_SERVICE, &service_t),
	N(KLB_A_CONN, &stats_t),
	N(KLB_A_CONFIG, &config_t),
	N(KLB_A_RULE, &rule_t),
	N(KLB_A_PERSIST, &rule_t),
	N(KLB_A_STATS, &stats_t),
	N(KLB_A_EVENT, &stats_t),
};
static const struct table top_t = T(top_s);

/* Names: few, so that requests meet the objects of other requests. */
static const char *const names[] = {
	"a", "b", "web", "api", "static", "x1", "p", "s",
	"0123456789012345678901234567890",	/* 31: the longest allowed */
	"01234567890123456789012345678901",	/* 32: one too long */
	"", "web\x01", "*.example.com", "/", "/static/", "GET",
};

struct buf {
	uint8_t d[BUF_SIZE];
	size_t len;
};

static int room(struct buf *b, size_t n)
{
	return b->len + n + 64 <= BUF_SIZE;
}

/* Start an attribute; returns its offset (to fix its length on close). */
static size_t attr_open(struct buf *b, uint16_t type)
{
	size_t off = b->len;
	struct nlattr *a = (struct nlattr *)(b->d + off);

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN;
	b->len += NLA_HDRLEN;
	return off;
}

static void attr_close(struct buf *b, size_t off)
{
	struct nlattr *a = (struct nlattr *)(b->d + off);
	size_t len = b->len - off;

	a->nla_len = len > 0xffff ? 0xffff : (uint16_t)len;
	while (b->len % NLA_ALIGNTO)
		b->d[b->len++] = 0;
}

static void put_bytes(struct buf *b, const void *p, size_t n)
{
	memcpy(b->d + b->len, p, n);
	b->len += n;
}

static void attr_put(struct buf *b, uint16_t type, const void *p, size_t n)
{
	size_t off = attr_open(b, type);

	put_bytes(b, p, n);
	attr_close(b, off);
}

static uint64_t scalar(uint32_t max)
{
	if (chance(5))
		return ((uint64_t)rnd() << 32) | rnd();	/* anything */
	if (chance(10))
		return 0;
	return below(max + 1);
}

static void gen_string(struct buf *b, uint16_t type)
{
	char s[300];
	size_t n;

	if (chance(85)) {
		const char *v = names[below(sizeof(names) / sizeof(names[0]))];

		n = strlen(v);
		memcpy(s, v, n);
		if (chance(90))
			s[n++] = 0;		/* else not terminated */
	} else {
		n = below(sizeof(s));		/* long, random bytes */
		for (size_t i = 0; i < n; i++)
			s[i] = (char)rnd();
	}
	attr_put(b, type, s, n);
}

/* A scalar of the right size, or (sometimes) of a wrong one. */
static void gen_scalar(struct buf *b, uint16_t type, size_t size, uint32_t max)
{
	static const size_t wrong[] = { 0, 1, 2, 3, 5, 8, 16, 17 };
	uint64_t v = scalar(max);
	uint8_t raw[17] = { 0 };

	if (chance(8))
		size = wrong[below(sizeof(wrong) / sizeof(wrong[0]))];
	memcpy(raw, &v, size < 8 ? size : 8);
	attr_put(b, type, raw, size);
}

static void gen_addr(struct buf *b, uint16_t type, int six)
{
	uint8_t a[16] = { 0 };
	size_t n = six ? 16 : 4;

	if (six) {
		a[0] = 0xfd;
		a[1] = 0x09;
		a[15] = (uint8_t)below(8);
	} else {
		a[0] = 10;
		a[1] = 9;
		a[3] = (uint8_t)below(8);
	}
	if (chance(5))
		for (size_t i = 0; i < n; i++)
			a[i] = (uint8_t)rnd();
	if (chance(5))
		n = below(17);
	attr_put(b, type, a, n);
}

static void gen_attrs(struct buf *b, const struct table *t, int depth);

/* A list of nests: usually a few, sometimes a huge count. */
static void gen_list(struct buf *b, const struct spec *s, int depth)
{
	size_t off = attr_open(b, s->type | NLA_F_NESTED);
	uint32_t n = chance(5) ? 100 + below(1000) : below(5);

	for (uint32_t i = 0; i < n && room(b, 256); i++) {
		size_t e = attr_open(b, s->elem | (chance(95) ? NLA_F_NESTED : 0));

		gen_attrs(b, s->sub, depth + 1);
		attr_close(b, e);
	}
	attr_close(b, off);
}

static void gen_one(struct buf *b, const struct spec *s, int depth)
{
	size_t off;

	switch (s->kind) {
	case K_STR:
		gen_string(b, s->type);
		break;
	case K_U8:
		gen_scalar(b, s->type, 1, s->max);
		break;
	case K_U16:
		gen_scalar(b, s->type, 2, s->max);
		break;
	case K_U32:
		gen_scalar(b, s->type, 4, s->max);
		break;
	case K_U64:
		gen_scalar(b, s->type, 8, s->max);
		break;
	case K_A4:
		gen_addr(b, s->type, 0);
		break;
	case K_A6:
		gen_addr(b, s->type, 1);
		break;
	case K_NEST:
		off = attr_open(b, s->type | (chance(95) ? NLA_F_NESTED : 0));
		if (depth < 6)
			gen_attrs(b, s->sub, depth + 1);
		attr_close(b, off);
		break;
	case K_LIST:
		if (depth < 6)
			gen_list(b, s, depth);
		break;
	}
}

/* Some attributes of table t: the first (the name, mostly) usually, then
 * a random selection in random order, sometimes repeated, sometimes with
 * a type the table does not have. */
static void gen_attrs(struct buf *b, const struct table *t, int depth)
{
	uint32_t n = below(t->n + 2);

	if (chance(85) && room(b, 512))
		gen_one(b, &t->s[0], depth);
	for (uint32_t i = 0; i < n && room(b, 512); i++) {
		if (chance(3)) {
			uint8_t junk[8];

			for (size_t k = 0; k < sizeof(junk); k++)
				junk[k] = (uint8_t)rnd();
			attr_put(b, (uint16_t)below(40), junk, below(9));
			continue;
		}
		gen_one(b, &t->s[below(t->n)], depth);
	}
}

/* Attribute soup: random types, lengths, and nesting. */
static void gen_soup(struct buf *b, int depth)
{
	uint32_t n = 1 + below(8);

	for (uint32_t i = 0; i < n && room(b, 512); i++) {
		uint16_t type = (uint16_t)below(KLB_A_MAX + 3);

		if (depth < 4 && chance(40)) {
			size_t off = attr_open(b, type | (chance(80) ? NLA_F_NESTED : 0));

			gen_soup(b, depth + 1);
			attr_close(b, off);
		} else {
			uint8_t junk[40];
			size_t len = below(sizeof(junk));

			for (size_t k = 0; k < len; k++)
				junk[k] = (uint8_t)rnd();
			attr_put(b, type, junk, len);
		}
	}
}

/* Damage a built message's attributes (after the genl header at hdr). */
static void mutate(struct buf *b, size_t hdr)
{
	size_t span = b->len - hdr;
	uint32_t n = 1 + below(4);

	if (span < 4)
		return;
	for (uint32_t i = 0; i < n; i++) {
		size_t at = hdr + below((uint32_t)span);

		switch (below(5)) {
		case 0:		/* flip a byte */
			b->d[at] ^= (uint8_t)(1 + below(255));
			break;
		case 1:		/* cut the message short */
			b->len = at;
			span = b->len - hdr;
			if (span < 4)
				return;
			break;
		case 2:		/* a length field that lies */
			at = hdr + (below((uint32_t)span) & ~3u);
			if (at + 2 <= b->len) {
				uint16_t l = (uint16_t)below(70000);

				memcpy(b->d + at, &l, 2);
			}
			break;
		case 3:		/* toggle NLA_F_NESTED of a header */
			at = hdr + (below((uint32_t)span) & ~3u);
			if (at + 4 <= b->len)
				b->d[at + 3] ^= 0x80;
			break;
		case 4:		/* append a copy of a piece (duplicates) */
			if (room(b, span / 2 + 4)) {
				size_t from = hdr + (below((uint32_t)span) & ~3u);
				size_t len = (b->len - from) & ~3u;

				if (len > span / 2)
					len = (span / 2) & ~3u;
				memmove(b->d + b->len, b->d + from, len);
				b->len += len;
			}
			break;
		}
	}
}

struct stats {
	unsigned long sent, ok, refused, dumps, abandoned, timeouts, enobufs;
};

static int fam_id;
static unsigned int timeout_s = 20;

static int nl_open(void)
{
	int fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	int one = 1, size = RCV_SIZE;
	struct timeval tv = { .tv_sec = timeout_s };
	struct sockaddr_nl sa = { .nl_family = AF_NETLINK };

	if (fd < 0) {
		perror("socket");
		exit(1);
	}
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size));
	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("bind");
		exit(1);
	}
	return fd;
}

/*
 * Read the answers to seq until its ACK/error or NLMSG_DONE. abandon: stop
 * after the first datagram (the caller closes the socket mid-dump).
 * Returns the errno (0 success), -1 on timeout, -2 abandoned.
 */
static int nl_wait(int fd, uint32_t seq, int abandon, struct stats *st)
{
	static uint8_t rb[RCV_SIZE];

	for (;;) {
		ssize_t n = recv(fd, rb, sizeof(rb), 0);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				st->enobufs++;
				continue;
			}
			if (errno == EAGAIN || errno == EWOULDBLOCK)
				return -1;
			perror("recv");
			exit(1);
		}
		for (struct nlmsghdr *h = (struct nlmsghdr *)rb; NLMSG_OK(h, (size_t)n);
		     h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_seq != seq)
				continue;
			if (h->nlmsg_type == NLMSG_ERROR)
				return -((struct nlmsgerr *)NLMSG_DATA(h))->error;
			if (h->nlmsg_type == NLMSG_DONE)
				return h->nlmsg_len >= NLMSG_LENGTH(4) ? -*(int *)NLMSG_DATA(h) : 0;
		}
		if (abandon)
			return -2;
	}
}

static const char *family = KLB_GENL_NAME;

static int resolve_family(int fd)
{
	struct buf *b = calloc(1, sizeof(*b));
	static uint8_t rb[8192];
	struct nlmsghdr *h = (struct nlmsghdr *)b->d;
	struct genlmsghdr *g;
	ssize_t n;
	int id = -1;

	b->len = NLMSG_HDRLEN + GENL_HDRLEN;
	h->nlmsg_type = GENL_ID_CTRL;
	h->nlmsg_flags = NLM_F_REQUEST;
	h->nlmsg_seq = 1;
	g = (struct genlmsghdr *)(b->d + NLMSG_HDRLEN);
	g->cmd = CTRL_CMD_GETFAMILY;
	g->version = 1;
	attr_put(b, CTRL_ATTR_FAMILY_NAME, family, strlen(family) + 1);
	h->nlmsg_len = (uint32_t)b->len;
	if (send(fd, b->d, b->len, 0) < 0)
		goto out;
	n = recv(fd, rb, sizeof(rb), 0);
	h = (struct nlmsghdr *)rb;
	if (n < (ssize_t)NLMSG_HDRLEN || h->nlmsg_type != GENL_ID_CTRL)
		goto out;
	for (struct nlattr *a = (struct nlattr *)((uint8_t *)NLMSG_DATA(h) + GENL_HDRLEN);
	     (uint8_t *)a + NLA_HDRLEN <= rb + h->nlmsg_len && a->nla_len >= NLA_HDRLEN;
	     a = (struct nlattr *)((uint8_t *)a + NLA_ALIGN(a->nla_len)))
		if (a->nla_type == CTRL_ATTR_FAMILY_ID)
			id = *(uint16_t *)((uint8_t *)a + NLA_HDRLEN);
out:
	free(b);
	return id;
}

static int is_get(int cmd)
{
	return cmd == KLB_CMD_POOL_GET || cmd == KLB_CMD_SERVICE_GET ||
	       cmd == KLB_CMD_CONN_GET || cmd == KLB_CMD_RULE_GET ||
	       cmd == KLB_CMD_PERSIST_GET || cmd == KLB_CMD_STATS_GET;
}

/* The top-level attribute a command's plausible request carries. */
static const struct spec *top_for(int cmd)
{
	switch (cmd) {
	case KLB_CMD_POOL_NEW: case KLB_CMD_POOL_SET: case KLB_CMD_POOL_DEL:
	case KLB_CMD_POOL_GET: case KLB_CMD_BACKEND_NEW: case KLB_CMD_BACKEND_SET:
	case KLB_CMD_BACKEND_DEL:
		return &top_s[0];
	case KLB_CMD_SERVICE_NEW: case KLB_CMD_SERVICE_SET: case KLB_CMD_SERVICE_DEL:
	case KLB_CMD_SERVICE_GET: case KLB_CMD_PERSIST_GET: case KLB_CMD_CONN_GET:
		return &top_s[1];
	case KLB_CMD_RESTORE:
		return &top_s[3];
	case KLB_CMD_RULE_NEW: case KLB_CMD_RULE_DEL: case KLB_CMD_RULE_GET:
		return &top_s[4];
	default:
		return NULL;
	}
}

static void worker(int id, unsigned long count, struct stats *st)
{
	struct buf *b = malloc(sizeof(*b));
	int fd = nl_open();
	uint32_t seq = 1;

	for (unsigned long i = 0; i < count; i++) {
		struct nlmsghdr *h = (struct nlmsghdr *)b->d;
		struct genlmsghdr *g;
		int cmd, dump, abandon = 0, err;
		const struct spec *top;

		cmd = chance(97) ? 1 + (int)below(KLB_CMD_MAX) : (int)below(256);
		/* the configuration is mostly built, now and then torn down */
		if ((cmd == KLB_CMD_FLUSH || cmd == KLB_CMD_RESTORE) && chance(70))
			cmd = KLB_CMD_POOL_NEW + (int)below(2) * (KLB_CMD_BACKEND_NEW - KLB_CMD_POOL_NEW);
		dump = is_get(cmd) ? chance(70) : chance(3);
		memset(h, 0, sizeof(*h));
		b->len = NLMSG_HDRLEN;
		g = (struct genlmsghdr *)(b->d + b->len);
		g->cmd = (uint8_t)cmd;
		g->version = chance(97) ? KLB_GENL_VERSION : (uint8_t)rnd();
		g->reserved = chance(97) ? 0 : (uint16_t)rnd();
		b->len += GENL_HDRLEN;

		top = top_for(cmd);
		if (top && chance(85)) {
			gen_one(b, top, 0);
			if (chance(10))
				gen_one(b, &top_s[below(sizeof(top_s) / sizeof(top_s[0]))], 0);
			if (chance(40))
				mutate(b, NLMSG_HDRLEN + GENL_HDRLEN);
		} else if (chance(50)) {
			gen_attrs(b, &top_t, 0);
		} else {
			gen_soup(b, 0);
		}
		if (chance(2))		/* a genl header cut short */
			b->len = NLMSG_HDRLEN + below(GENL_HDRLEN);

		h->nlmsg_len = (uint32_t)b->len;
		h->nlmsg_type = (uint16_t)fam_id;
		h->nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK | (dump ? NLM_F_DUMP : 0);
		h->nlmsg_seq = ++seq;
		if (send(fd, b->d, b->len, 0) < 0) {
			if (errno == ENOBUFS || errno == EINVAL || errno == EMSGSIZE) {
				st->refused++;
				continue;
			}
			fprintf(stderr, "worker %d: send: %s\n", id, strerror(errno));
			exit(1);
		}
		st->sent++;
		if (dump) {
			st->dumps++;
			abandon = chance(10);
		}
		err = nl_wait(fd, seq, abandon, st);
		if (err == -1) {
			fprintf(stderr, "worker %d: request %lu (cmd %d, %zu bytes%s) unanswered after %us\n",
				id, i, cmd, b->len, dump ? ", dump" : "", timeout_s);
			st->timeouts++;
			close(fd);
			fd = nl_open();
		} else if (err == -2) {
			st->abandoned++;
			close(fd);
			fd = nl_open();
		} else if (err == 0) {
			st->ok++;
		} else {
			st->refused++;
		}
	}
	close(fd);
	free(b);
}

int main(int argc, char **argv)
{
	unsigned long count = 20000, seed = 1;
	int procs = 4, opt, fd, bad = 0;
	struct stats total = { 0 };

	while ((opt = getopt(argc, argv, "n:p:s:t:f:")) != -1) {
		switch (opt) {
		case 'n': count = strtoul(optarg, NULL, 0); break;
		case 'p': procs = atoi(optarg); break;
		case 's': seed = strtoul(optarg, NULL, 0); break;
		case 't': timeout_s = (unsigned int)atoi(optarg); break;
		case 'f': family = optarg; break;
		default:
			fprintf(stderr, "usage: %s [-n COUNT] [-p PROCS] [-s SEED] [-t TIMEOUT_S] [-f FAMILY]\n", argv[0]);
			return 2;
		}
	}
	if (procs < 1 || procs > 64)
		procs = 4;
	fd = nl_open();
	fam_id = resolve_family(fd);
	close(fd);
	if (fam_id < 0) {
		fprintf(stderr, "klb_nlfuzz: no generic netlink family \"%s\" (klb loaded?)\n", family);
		return 1;
	}

	int pipes[64][2];

	for (int p = 0; p < procs; p++) {
		if (pipe(pipes[p]) < 0) {
			perror("pipe");
			return 1;
		}
		if (fork() == 0) {
			struct stats st = { 0 };

			close(pipes[p][0]);
			rnd_state = (seed * 0x9E3779B97F4A7C15ULL) ^ (uint64_t)(p + 1) << 32 ^ 0x5DEECE66DULL;
			worker(p, count / procs + (p < (int)(count % procs)), &st);
			if (write(pipes[p][1], &st, sizeof(st)) != sizeof(st))
				_exit(1);
			_exit(st.timeouts ? 1 : 0);
		}
		close(pipes[p][1]);
	}
	for (int p = 0; p < procs; p++) {
		struct stats st = { 0 };

		if (read(pipes[p][0], &st, sizeof(st)) != sizeof(st))
			bad = 1;
		close(pipes[p][0]);
		printf("worker %d sent %lu ok %lu refused %lu dumps %lu abandoned %lu timeouts %lu enobufs %lu\n",
		       p, st.sent, st.ok, st.refused, st.dumps, st.abandoned, st.timeouts, st.enobufs);
		total.sent += st.sent;
		total.ok += st.ok;
		total.refused += st.refused;
		total.dumps += st.dumps;
		total.abandoned += st.abandoned;
		total.timeouts += st.timeouts;
	}
	while (wait(&opt) > 0)
		if (!WIFEXITED(opt) || WEXITSTATUS(opt))
			bad = 1;
	printf("total sent %lu ok %lu refused %lu dumps %lu abandoned %lu timeouts %lu\n",
	       total.sent, total.ok, total.refused, total.dumps, total.abandoned, total.timeouts);
	/* still there, still answering? */
	fd = nl_open();
	if (resolve_family(fd) != fam_id) {
		fprintf(stderr, "klb_nlfuzz: the family %s is gone after the run\n", family);
		bad = 1;
	}
	close(fd);
	return bad || total.timeouts ? 1 : 0;
}
