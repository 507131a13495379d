// SPDX-License-Identifier: GPL-2.0
/*
 * klbctl monitor [all | pool | backend | service]: join the klb family's
 * events multicast group and print each event as it comes (event.c),
 * until SIGINT or SIGTERM, like `ip monitor`.
 *
 * A socket that overran (the kernel had events for us and no room) reads
 * ENOBUFS once: some events were lost. Like ip monitor we say so on
 * stderr, so that stdout stays one event per line, and go on.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <libmnl/libmnl.h>
#include <linux/klb.h>

#include "klbctl.h"
#include "event.h"
#include "nl.h"

void monitor_usage(FILE *f)
{
	fprintf(f,
		"Usage: klbctl [-j] monitor [ all | pool | backend | service ]\n"
		"Prints each change as it happens, one line per event with the time\n"
		"it happened; with -j one JSON object per line. config events (flush,\n"
		"restore) are printed whatever the filter. Stops on SIGINT or SIGTERM.\n");
}

static const struct word filter_words[] = {
	{ "all", EVENT_ALL },
	{ "pool", EVENT_BIT(KLB_EVENT_POOL) },
	{ "backend", EVENT_BIT(KLB_EVENT_BACKEND) },
	{ "service", EVENT_BIT(KLB_EVENT_SERVICE) },
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

struct monitor {
	uint16_t family;
	unsigned int filter;
};

static int monitor_cb(const struct nlmsghdr *nlh, void *data)
{
	const struct monitor *m = data;

	if (nlh->nlmsg_type == m->family)
		event_print(nlh, m->filter);
	return MNL_CB_OK;
}

/*
 * SIGINT and SIGTERM are blocked except inside ppoll(), so one that comes
 * between two events ends the wait at once instead of being missed.
 */
static int monitor_run(int fd, struct monitor *m)
{
	char buf[MNL_SOCKET_BUFFER_SIZE] __attribute__((aligned(NLMSG_ALIGNTO)));
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block, wait_mask;
	ssize_t n;

	sigemptyset(&block);
	sigaddset(&block, SIGINT);
	sigaddset(&block, SIGTERM);
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	sigdelset(&wait_mask, SIGINT);
	sigdelset(&wait_mask, SIGTERM);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	while (!stop) {
		if (ppoll(&pfd, 1, NULL, &wait_mask) < 0) {
			if (errno == EINTR)
				continue;
			return errorf(EXIT_KERNEL, "waiting for events: %s",
				      strerror(errno));
		}
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n < 0) {
			if (errno == EAGAIN || errno == EINTR)
				continue;
			if (errno == ENOBUFS) {
				warnf("events were lost (the socket overran); continuing");
				continue;
			}
			return errorf(EXIT_KERNEL, "reading events: %s",
				      strerror(errno));
		}
		/* Multicast messages carry no sequence nor port to check. */
		if (mnl_cb_run(buf, (size_t)n, 0, 0, monitor_cb, m) == MNL_CB_ERROR)
			warnf("a malformed event message was skipped");
	}
	return EXIT_OK;
}

int do_monitor(int argc, char **argv)
{
	struct monitor m = { .filter = EVENT_ALL };
	int fd, ret;

	if (argc > 0 && is_help(argv[0])) {
		monitor_usage(stdout);
		return EXIT_OK;
	}
	if (argc > 0) {
		ret = parse_word("filter", argv[0], filter_words,
				 ARRAY_SIZE(filter_words), &m.filter);
		if (ret)
			return ret;
	}
	if (argc > 1)
		return usage_errorf("monitor", "unexpected argument \"%s\"", argv[1]);
	ret = nl_join_events(&fd, &m.family);
	if (ret)
		return ret;
	ret = monitor_run(fd, &m);
	nl_close();
	return ret;
}
