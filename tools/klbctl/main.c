// SPDX-License-Identifier: GPL-2.0
/*
 * klbctl: configure the klb in-kernel load balancer.
 *
 *   klbctl [OPTIONS] OBJECT COMMAND [ARGS]
 *
 * This file only parses the global options and hands argv to the object's
 * handler; each object lives in its own file.
 */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>

#include "klbctl.h"
#include <linux/klb.h>

#include "nl.h"
#include "print.h"

bool opt_json;
int opt_stats;


static void usage(FILE *f)
{
	fprintf(f,
		"Usage: klbctl [OPTIONS] OBJECT COMMAND [ARGS]\n"
		"       klbctl help | klbctl OBJECT help\n"
		"       klbctl [OPTIONS] -b FILE\n"
		"OBJECT := { pool | backend | service | rule | hostmap | conn | stats | monitor | tune |\n"
		"            hash-seed | save | restore | flush }\n"
		"OPTIONS := { -j | --json | -p | --pretty | -s | --stats | -n NETNS | --netns NETNS |\n"
		"             -b FILE | --batch FILE | -V | --version | -h | --help }\n"
		"  -p: indented JSON (implies -j); -s -s: also per-second rates (two\n"
		"  samples a second apart); -n: in network namespace NETNS (ip netns);\n"
		"  -b: run the commands of FILE (\"-\": standard input), one a line,\n"
		"  stopping at the first that fails\n"
		"\n");
	pool_usage(f);
	fputc('\n', f);
	backend_usage(f);
	fputc('\n', f);
	service_usage(f);
	fputc('\n', f);
	rule_usage(f);
	fputc('\n', f);
	hostmap_usage(f);
	fputc('\n', f);
	conn_usage(f);
	fputc('\n', f);
	stats_usage(f);
	fputc('\n', f);
	monitor_usage(f);
	fputc('\n', f);
	seed_usage(f);
	fputc('\n', f);
	config_usage(f);
	fprintf(f,
		"\n"
		"Tuning (sysctls): klbctl tune help\n"
		"\n"
		"Words may be abbreviated while they stay unambiguous (\"klbctl p sh\").\n"
		"Exit status: 0 success, 1 usage or syntax error (nothing was sent),\n"
		"2 the kernel or the system refused (its message follows \"Error:\").\n");
}

static int do_help(int argc, char **argv);

static const struct cmd objects[] = {
	{ "pool", do_pool },
	{ "backend", do_backend },
	{ "service", do_service },
	{ "rule", do_rule },
	{ "hostmap", do_hostmap },
	{ "conn", do_conn },
	{ "stats", do_stats },
	{ "monitor", do_monitor },
	{ "tune", do_tune },
	{ "hash-seed", do_seed },
	{ "save", do_save },
	{ "restore", do_restore },
	{ "flush", do_flush },
	{ "help", do_help },
};

/* "klbctl help" for everything, "klbctl help pool" = "klbctl pool help". */
static int do_help(int argc, char **argv)
{
	char help[] = "help", *args[] = { help, NULL };
	int i;

	if (argc < 1) {
		usage(stdout);
		return EXIT_OK;
	}
	i = match_cmd(argv[0], objects, ARRAY_SIZE(objects));
	if (i < 0 || objects[i].fn == do_help) {
		fprintf(stderr, "Object \"%s\" is unknown, try \"klbctl help\".\n",
			argv[0]);
		return EXIT_USAGE;
	}
	return objects[i].fn(1, args);
}

/* "-js" is "-j -s"; long options are whole words. */
static int parse_option(const char *arg)
{
	const char *p;

	if (!strcmp(arg, "--json"))
		opt_json = true;
	else if (!strcmp(arg, "--pretty"))
		opt_json = json_pretty = true;
	else if (!strcmp(arg, "--netns"))
		return 'n';
	else if (!strcmp(arg, "--batch"))
		return 'b';
	else if (!strcmp(arg, "--stats") || !strcmp(arg, "--statistics"))
		opt_stats++;
	else if (!strcmp(arg, "--version"))
		return 'V';
	else if (!strcmp(arg, "--help"))
		return 'h';
	else if (arg[1] == '-' || !arg[1])
		return '?';
	else {
		for (p = arg + 1; *p; p++) {
			switch (*p) {
			case 'j':
				opt_json = true;
				break;
			case 's':
				opt_stats++;
				break;
			case 'p':
				opt_json = json_pretty = true;
				break;
			case 'n':
			case 'b':
				/* takes the next word: last of a group only */
				return p[1] ? '?' : *p;
			case 'V':
			case 'h':
				return *p;
			default:
				return '?';
			}
		}
	}
	return 0;
}

/* -n NETNS: what `ip netns exec NETNS` does for the network namespace. */
static int enter_netns(const char *name)
{
	char path[256];
	int fd;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return errorf(EXIT_USAGE, "invalid network namespace name \"%s\"", name);
	snprintf(path, sizeof(path), "/run/netns/%s", name);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errorf(EXIT_USAGE, "cannot open network namespace \"%s\": %s",
			      name, strerror(errno));
	if (setns(fd, CLONE_NEWNET)) {
		close(fd);
		return errorf(EXIT_KERNEL, "setting the network namespace \"%s\": %s",
			      name, strerror(errno));
	}
	close(fd);
	return EXIT_OK;
}

/* One command: OBJECT COMMAND ARGS (argv[0] is the object). */
static int run_object(int argc, char **argv)
{
	int i;

	i = match_cmd(argv[0], objects, ARRAY_SIZE(objects));
	if (i < 0) {
		fprintf(stderr, "Object \"%s\" is %s, try \"klbctl help\".\n",
			argv[0], i == MATCH_AMBIGUOUS ? "ambiguous" : "unknown");
		return EXIT_USAGE;
	}
	/* "klbctl pool help", "klbctl save help", ... */
	return objects[i].fn(argc - 1, argv + 1);
}

int main(int argc, char **argv)
{
	const char *batch = NULL;
	int opt, ret;

	for (argc--, argv++; argc > 0 && argv[0][0] == '-'; argc--, argv++) {
		if (!strcmp(argv[0], "--")) {
			argc--, argv++;
			break;
		}
		opt = parse_option(argv[0]);
		if (opt == 'n' || opt == 'b') {
			if (argc < 2) {
				fprintf(stderr, "Option \"%s\" needs an argument, try \"klbctl help\".\n",
					argv[0]);
				return EXIT_USAGE;
			}
			argc--, argv++;
			if (opt == 'b') {
				batch = argv[0];
			} else {
				ret = enter_netns(argv[0]);
				if (ret)
					return ret;
			}
			continue;
		}
		switch (opt) {
		case 'V':
			printf("klbctl %s (klb netlink API version %d)\n",
			       KLBCTL_VERSION, KLB_GENL_VERSION);
			return EXIT_OK;
		case 'h':
			usage(stdout);
			return EXIT_OK;
		case '?':
			fprintf(stderr, "Option \"%s\" is unknown, try \"klbctl help\".\n",
				argv[0]);
			return EXIT_USAGE;
		}
	}
	if (batch && argc > 0) {
		fprintf(stderr, "Batch mode takes no command (\"%s\"), try \"klbctl help\".\n",
			argv[0]);
		return EXIT_USAGE;
	}
	if (!batch && argc < 1) {
		usage(stderr);
		return EXIT_USAGE;
	}

	ret = batch ? batch_run(batch, run_object) : run_object(argc, argv);
	nl_close();

	/* A full disk or closed pipe must not pass for success. */
	if (fflush(stdout) || ferror(stdout)) {
		if (errno != EPIPE)
			fprintf(stderr, "Error: writing output: %s\n", strerror(errno));
		return ret ? ret : EXIT_KERNEL;
	}
	return ret;
}
