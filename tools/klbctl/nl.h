/* SPDX-License-Identifier: GPL-2.0 */
/* Talking to the klb generic netlink family (libmnl), with extack. */
#ifndef KLBCTL_NL_H
#define KLBCTL_NL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct nlmsghdr;
struct nlattr;

/* Where one object of a restore request came from, for error messages. */
struct req_span {
	uint32_t start, end;	/* byte offsets in the request */
	unsigned int line;
};

/*
 * A request under construction. The buffer is sized by the caller up
 * front (req_init) because libmnl nests are pointers into it; a put that
 * does not fit marks the request full and klb_request() refuses to send it.
 */
struct req {
	struct nlmsghdr *nlh;
	size_t size;
	bool full;
	bool nest_overflow;	/* a nest outgrew nla_len's 16 bits */
	const char *file;	/* restore: input name for spans */
	struct req_span *spans;
	size_t nspans, spans_cap;
};

/* flags: 0 for a do request, NLM_F_DUMP for a dump. */
int req_init(struct req *r, uint8_t cmd, uint16_t flags, size_t size);
void req_free(struct req *r);
void req_put(struct req *r, uint16_t type, size_t len, const void *data);
void req_put_strz(struct req *r, uint16_t type, const char *s);
/* The first len bytes of the C string s (len <= strlen(s)), NUL-terminated. */
void req_put_strn(struct req *r, uint16_t type, const char *s, size_t len);
void req_put_u8(struct req *r, uint16_t type, uint8_t v);
void req_put_u16(struct req *r, uint16_t type, uint16_t v);
void req_put_u32(struct req *r, uint16_t type, uint32_t v);
struct nlattr *req_nest_start(struct req *r, uint16_t type);
void req_nest_end(struct req *r, struct nlattr *nest);
uint32_t req_len(const struct req *r);
/* Cut the request back to @len bytes (a req_len() taken before). */
void req_truncate(struct req *r, uint32_t len);
/* Record that bytes [start, current end) came from input line @line. */
void req_span(struct req *r, uint32_t start, unsigned int line);

/* A request big enough for fixed attributes plus every argv string. */
size_t req_size_for(int argc, char **argv);

/* Called for each reply message of the klb family; 0 or -errno. */
typedef int (*klb_cb_t)(const struct nlmsghdr *nlh, void *data);

/*
 * Send r and read the replies up to the ACK (do) or NLMSG_DONE (dump),
 * calling cb for each. If a dump comes back flagged NLM_F_DUMP_INTR and
 * reset is given, reset(data) discards what was collected and the dump is
 * run again, so callers see one consistent snapshot. Errors are printed
 * ("Error: <extack message> (attribute: ...)"); returns an exit status.
 * With KLBCTL_DUMP_REQUEST=1 in the environment the request is printed
 * to stdout instead of sent (for tests without the module).
 */
int klb_request(struct req *r, klb_cb_t cb, void *data,
		void (*reset)(void *data));
void nl_close(void);
/*
 * The module knows command @cmd (@what names it in the error); else an
 * error is printed and an exit status returned.
 */
int nl_need_cmd(uint8_t cmd, const char *what);

/*
 * Join the klb family's events multicast group: *fd is the socket to read
 * events from (4 MiB receive buffer where allowed), *family the id their
 * messages carry. Errors are printed; returns an exit status.
 */
int nl_join_events(int *fd, uint16_t *family);

/*
 * Reply parsing: tb[type] = last attribute of each type <= max in the
 * nest (or in the message payload after the genl header); others ignored.
 */
void nest_parse(const struct nlattr *nest, const struct nlattr **tb,
		unsigned int max);
void msg_parse(const struct nlmsghdr *nlh, const struct nlattr **tb,
	       unsigned int max);
/* Typed getters that return def when the attribute is absent or short. */
uint8_t attr_u8(const struct nlattr *a, uint8_t def);
uint16_t attr_u16(const struct nlattr *a, uint16_t def);
uint32_t attr_u32(const struct nlattr *a, uint32_t def);
uint64_t attr_u64(const struct nlattr *a, uint64_t def);
/* A copy of a string attribute (NUL-terminated or not), NULL if absent. */
char *attr_strdup(const struct nlattr *a);

/* attrs.c: names of the klb attributes, for errors and request dumps. */
const char *attr_describe(const struct nlmsghdr *req, uint32_t off,
			  char *buf, size_t len);
const char *attr_describe_missing(const struct nlmsghdr *req, bool in_nest,
				  uint32_t nest_off, uint32_t type,
				  char *buf, size_t len);
void attr_dump_request(const struct nlmsghdr *req, FILE *f);

#endif
