// SPDX-License-Identifier: GPL-2.0
/*
 * klbctl hash-seed { show | set HEX }
 *
 * The namespace's hash seed, net.klb.hash_seed: the key of the sh and mh
 * hashes. Balancers given the same seed (and the same pools) send every
 * client, or every flow, to the same backend. It is read and written
 * through its sysctl file, which only the namespace's root may open: it
 * is a secret. save writes it as a "hash-seed set" line that restore
 * sends with the configuration (KLB_CONFIG_A_HASH_SEED).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <linux/klb.h>

#include "klbctl.h"
#include "objects.h"
#include "print.h"

#define SEED_FILE	"/proc/sys/net/klb/hash_seed"

void seed_usage(FILE *f)
{
	fprintf(f,
		"Usage: klbctl [-j] hash-seed show\n"
		"       klbctl hash-seed set HEX\n"
		"HEX := 32 hex digits (sysctl net.klb.hash_seed; random when the namespace\n"
		"  is created). The key of the sh and mh hashes: balancers with the same\n"
		"  seed and pools pick the same backend for a client. Root only: a secret.\n");
}

int seed_parse(const char *s, uint8_t *seed)
{
	size_t i;

	if (strlen(s) != 2 * KLB_HASH_SEED_LEN)
		return usage_errorf("hash-seed", "the seed must be %d hex digits, not \"%s\"",
				    2 * KLB_HASH_SEED_LEN, s);
	for (i = 0; i < 2 * KLB_HASH_SEED_LEN; i++)
		if (!isxdigit((unsigned char)s[i]))
			return usage_errorf("hash-seed", "the seed must be %d hex digits, not \"%s\"",
					    2 * KLB_HASH_SEED_LEN, s);
	for (i = 0; i < KLB_HASH_SEED_LEN; i++)
		sscanf(s + 2 * i, "%2hhx", &seed[i]);
	return EXIT_OK;
}

int seed_read(char *hex, size_t len)
{
	FILE *f = fopen(SEED_FILE, "r");
	size_t n;

	if (!f)
		return -errno;
	n = fread(hex, 1, len - 1, f);
	fclose(f);
	hex[n] = '\0';
	while (n && (hex[n - 1] == '\n' || hex[n - 1] == ' '))
		hex[--n] = '\0';
	return n == 2 * KLB_HASH_SEED_LEN ? 0 : -EINVAL;
}

static int seed_show(int argc, char **argv)
{
	char hex[2 * KLB_HASH_SEED_LEN + 8];
	int err;

	(void)argv;
	if (argc > 0)
		return usage_errorf("hash-seed", "unexpected argument \"%s\"", argv[0]);
	err = seed_read(hex, sizeof(hex));
	if (err)
		return errorf(EXIT_KERNEL, "cannot read %s: %s", SEED_FILE,
			      strerror(-err));
	new_json_obj(opt_json);
	open_json_object(NULL);
	print_string(PRINT_ANY, "hash_seed", "%s", hex);
	print_nl();
	close_json_object();
	delete_json_obj();
	return EXIT_OK;
}

static int seed_set(int argc, char **argv)
{
	uint8_t seed[KLB_HASH_SEED_LEN];
	FILE *f;
	int ret;

	if (argc < 1)
		return usage_errorf("hash-seed", "missing the seed (%d hex digits)",
				    2 * KLB_HASH_SEED_LEN);
	if (argc > 1)
		return usage_errorf("hash-seed", "unexpected argument \"%s\"", argv[1]);
	ret = seed_parse(argv[0], seed);
	if (ret)
		return ret;
	f = fopen(SEED_FILE, "w");
	if (!f)
		return errorf(EXIT_KERNEL, "cannot open %s: %s", SEED_FILE,
			      strerror(errno));
	fprintf(f, "%s\n", argv[0]);
	if (fclose(f))
		return errorf(EXIT_KERNEL, "writing %s: %s", SEED_FILE,
			      strerror(errno));
	return EXIT_OK;
}

static int seed_help(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	seed_usage(stdout);
	return EXIT_OK;
}

static const struct cmd seed_cmds[] = {
	{ "show", seed_show },
	{ "list", seed_show },
	{ "set", seed_set },
	{ "help", seed_help },
};

int do_seed(int argc, char **argv)
{
	return dispatch("hash-seed", seed_cmds, ARRAY_SIZE(seed_cmds), argc, argv);
}
