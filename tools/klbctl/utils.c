// SPDX-License-Identifier: GPL-2.0
/* Error reporting, command word matching and number/word parsing. */
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <linux/klb.h>

#include "klbctl.h"

static const char *loc_file;
static unsigned int loc_line;

void error_location(const char *file, unsigned int line)
{
	loc_file = file;
	loc_line = line;
}

bool error_location_set(void)
{
	return loc_file != NULL;
}

static void verror(const char *obj, const char *fmt, va_list ap)
{
	fputs("Error: ", stderr);
	if (loc_file)
		fprintf(stderr, "%s:%u: ", loc_file, loc_line);
	vfprintf(stderr, fmt, ap);
	/* The help hint makes no sense for a line of a restore file. */
	if (obj && !loc_file)
		fprintf(stderr, ", try \"klbctl %s help\".", obj);
	fputc('\n', stderr);
}

int errorf(int status, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(NULL, fmt, ap);
	va_end(ap);
	return status;
}

int usage_errorf(const char *obj, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	verror(obj, fmt, ap);
	va_end(ap);
	return EXIT_USAGE;
}

void warnf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fputs("Warning: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int match_cmd(const char *word, const struct cmd *cmds, size_t n)
{
	size_t len = strlen(word), i;
	int found = MATCH_UNKNOWN;

	if (!len)
		return MATCH_UNKNOWN;
	for (i = 0; i < n; i++)
		if (!strcmp(word, cmds[i].name))
			return (int)i;
	for (i = 0; i < n; i++) {
		if (strncmp(word, cmds[i].name, len))
			continue;
		if (found >= 0 && cmds[found].fn != cmds[i].fn)
			return MATCH_AMBIGUOUS;
		if (found < 0)
			found = (int)i;
	}
	return found;
}

int dispatch(const char *obj, const struct cmd *cmds, size_t n,
	     int argc, char **argv)
{
	int i = match_cmd(argv[0], cmds, n);

	if (i == MATCH_AMBIGUOUS) {
		fprintf(stderr, "Command \"%s\" is ambiguous, try \"klbctl %s help\".\n",
			argv[0], obj);
		return EXIT_USAGE;
	}
	if (i < 0) {
		fprintf(stderr, "Command \"%s\" is unknown, try \"klbctl %s help\".\n",
			argv[0], obj);
		return EXIT_USAGE;
	}
	return cmds[i].fn(argc - 1, argv + 1);
}

bool is_help(const char *word)
{
	return !strcmp(word, "help") || !strcmp(word, "-h") ||
	       !strcmp(word, "--help");
}

bool parse_u64_max(const char *s, uint64_t max, uint64_t *v)
{
	unsigned long long x;
	char *end;

	/* strtoull alone would accept " 12", "+12", "-1" and hex. */
	if (*s < '0' || *s > '9')
		return false;
	errno = 0;
	x = strtoull(s, &end, 10);
	if (errno || *end || x > max)
		return false;
	*v = x;
	return true;
}

bool parse_u32(const char *s, uint32_t *v)
{
	uint64_t x;

	if (!parse_u64_max(s, UINT32_MAX, &x))
		return false;
	*v = (uint32_t)x;
	return true;
}

int parse_word(const char *what, const char *s, const struct word *words,
	       size_t n, unsigned int *value)
{
	char list[256] = "";
	size_t i;

	for (i = 0; i < n; i++) {
		if (!strcmp(s, words[i].name)) {
			*value = words[i].value;
			return EXIT_OK;
		}
	}
	for (i = 0; i < n; i++) {
		strncat(list, " ", sizeof(list) - strlen(list) - 1);
		strncat(list, words[i].name, sizeof(list) - strlen(list) - 1);
	}
	return errorf(EXIT_USAGE, "unknown %s \"%s\"; expected one of%s",
		      what, s, list);
}

const char *word_name(const struct word *words, size_t n, unsigned int value,
		      char *buf, size_t len)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (words[i].value == value)
			return words[i].name;
	snprintf(buf, len, "unknown(%u)", value);
	return buf;
}

const struct word sched_words[] = {
	{ "rr", KLB_SCHED_RR },
	{ "wrr", KLB_SCHED_WRR },
	{ "lc", KLB_SCHED_LC },
	{ "wlc", KLB_SCHED_WLC },
	{ "sh", KLB_SCHED_SH },
	{ "mh", KLB_SCHED_MH },
	{ "p2c", KLB_SCHED_P2C },
};
const size_t n_sched_words = ARRAY_SIZE(sched_words);

const struct word state_words[] = {
	{ "up", KLB_BACKEND_UP },
	{ "drain", KLB_BACKEND_DRAIN },
	{ "down", KLB_BACKEND_DOWN },
};
const size_t n_state_words = ARRAY_SIZE(state_words);

const struct word proto_words[] = {
	{ "tcp", IPPROTO_TCP },
	{ "udp", IPPROTO_UDP },
};
const size_t n_proto_words = ARRAY_SIZE(proto_words);

const struct word mode_words[] = {
	{ "nat", KLB_MODE_NAT },
	{ "http", KLB_MODE_HTTP },
	{ "tls", KLB_MODE_TLS },
	{ "fnat", KLB_MODE_FNAT },
	{ "dr", KLB_MODE_DR },
	{ "tun", KLB_MODE_TUN },
};
const size_t n_mode_words = ARRAY_SIZE(mode_words);

const struct word pp_words[] = {
	{ "v2", 2 },
	{ "none", 0 },
};
const size_t n_pp_words = ARRAY_SIZE(pp_words);

const struct word conn_state_words[] = {
	{ "none", KLB_CONN_NONE },
	{ "syn_sent", KLB_CONN_SYN_SENT },
	{ "syn_recv", KLB_CONN_SYN_RECV },
	{ "established", KLB_CONN_ESTABLISHED },
	{ "fin_wait", KLB_CONN_FIN_WAIT },
	{ "time_wait", KLB_CONN_TIME_WAIT },
	{ "close", KLB_CONN_CLOSE },
	{ "udp", KLB_CONN_UDP },
	{ "adopted", KLB_CONN_ADOPTED },
};
const size_t n_conn_state_words = ARRAY_SIZE(conn_state_words);

const struct word l7_state_words[] = {
	{ "reading-head", KLB_L7_STATE_READING_HEAD },
	{ "waiting-backend", KLB_L7_STATE_WAITING_BACKEND },
	{ "queued", KLB_L7_STATE_QUEUED },
	{ "relaying", KLB_L7_STATE_RELAYING },
	{ "idle", KLB_L7_STATE_IDLE },
	{ "replying", KLB_L7_STATE_REPLYING },
	{ "closing", KLB_L7_STATE_CLOSING },
};
const size_t n_l7_state_words = ARRAY_SIZE(l7_state_words);

char *word_quote(const char *s)
{
	size_t len = strlen(s), i;
	char *q, *p;

	if (len && s[0] != '#' && !strpbrk(s, " \t\r\"\\"))
		return strdup(s);
	q = malloc(2 * len + 3);
	if (!q)
		return NULL;
	p = q;
	*p++ = '"';
	for (i = 0; i < len; i++) {
		if (s[i] == '"' || s[i] == '\\')
			*p++ = '\\';
		*p++ = s[i];
	}
	*p++ = '"';
	*p = '\0';
	return q;
}

bool grow(void *arrayp, size_t *cap, size_t n, size_t elem)
{
	void **array = arrayp;
	size_t ncap;
	void *p;

	if (n < *cap)
		return true;
	ncap = *cap ? 2 * *cap : 8;
	p = realloc(*array, ncap * elem);
	if (!p)
		return false;
	*array = p;
	*cap = ncap;
	return true;
}
