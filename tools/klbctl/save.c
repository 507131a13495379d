// SPDX-License-Identifier: GPL-2.0
/*
 * klbctl save: the configuration as klbctl command lines, without the
 * "klbctl" word, that restore (config.c) reads back. Each line is the
 * object's table written out (obj_save()), the very words show prints.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "addr.h"
#include "klbctl.h"
#include "obj.h"
#include "objects.h"
#include "print.h"

/* rules[i]: the rules of service i (http and tls services only). */
static void save_print(const struct pool_list *pl, const struct service_list *sl,
		       const struct rule_list *rules,
		       const struct hostmap_list *hl)
{
	char buf[ADDRPORT_STRLEN];
	size_t i, j;

	/* Root only (a secret): others save the rest, with a reminder. */
	if (seed_read(buf, sizeof(buf)))
		printf("# hash-seed not saved: %s is readable by root only\n",
		       "net.klb.hash_seed");
	else
		printf("hash-seed set %s\n", buf);
	new_json_obj(false);
	for (i = 0; i < pl->n; i++) {
		obj_save(&pool_desc, &pl->p[i], NULL);
		for (j = 0; j < pl->p[i].n; j++)
			obj_save(&backend_desc, &pl->p[i].b[j], pl->p[i].name);
	}
	for (i = 0; i < sl->n; i++) {
		obj_save(&service_desc, &sl->s[i], NULL);
		for (j = 0; j < rules[i].n; j++)
			obj_save(&rule_desc, &rules[i].r[j], sl->s[i].name);
	}
	/* After every service: a name refers to its service. */
	for (i = 0; i < hl->n; i++)
		obj_save(&hostmap_desc, &hl->h[i], NULL);
	delete_json_obj();
}

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Each dump is consistent on its own (the kernel flags one that a change
 * interrupted, and it is read again), but the pools and the services are
 * two dumps: a pool added between them, with a service on it, would be
 * saved as a service naming a pool the file lacks. Then the whole is
 * read again.
 */
static bool save_whole(const struct pool_list *pl, const struct service_list *sl,
		       const struct rule_list *rules)
{
	char **names = malloc((pl->n ? pl->n : 1) * sizeof(*names));
	bool whole = true;
	size_t i, j;

	if (!names)
		return true;	/* cannot tell: as before */
	for (i = 0; i < pl->n; i++)
		names[i] = pl->p[i].name;
	qsort(names, pl->n, sizeof(*names), name_cmp);
	for (i = 0; whole && i < sl->n; i++) {
		whole = bsearch(&sl->s[i].pool, names, pl->n, sizeof(*names), name_cmp);
		for (j = 0; whole && j < rules[i].n; j++)
			whole = bsearch(&rules[i].r[j].pool, names, pl->n,
					sizeof(*names), name_cmp);
	}
	free(names);
	return whole;
}

#define SAVE_TRIES	3

/* One read and print of the whole; -EAGAIN: it changed in between. */
static int save_once(void)
{
	struct rule_list *rules = NULL;
	struct hostmap_list hl = { 0 };
	struct service_list sl;
	struct pool_list pl;
	size_t i;
	int ret;

	ret = pool_dump(NULL, &pl);
	if (ret)
		return ret;
	ret = service_dump(NULL, &sl);
	if (ret) {
		pool_list_free(&pl);
		return ret;
	}
	rules = calloc(sl.n ? sl.n : 1, sizeof(*rules));
	if (!rules)
		ret = errorf(EXIT_KERNEL, "out of memory");
	for (i = 0; !ret && i < sl.n; i++)
		if (service_has_rules(&sl.s[i]))
			ret = rule_dump(sl.s[i].name, &rules[i]);
	if (!ret && !save_whole(&pl, &sl, rules))
		ret = -EAGAIN;
	if (!ret)
		ret = hostmap_dump(NULL, &hl);
	if (!ret)
		save_print(&pl, &sl, rules, &hl);
	hostmap_list_free(&hl);
	for (i = 0; rules && i < sl.n; i++)
		rule_list_free(&rules[i]);
	free(rules);
	pool_list_free(&pl);
	service_list_free(&sl);
	if (ret)
		return ret;
	if (fflush(stdout) || ferror(stdout))
		return errorf(EXIT_KERNEL, "writing the configuration: %s", strerror(errno));
	return EXIT_OK;
}

int do_save(int argc, char **argv)
{
	int ret, tries;

	if (argc > 0 && is_help(argv[0])) {
		config_usage(stdout);
		return EXIT_OK;
	}
	if (argc > 0)
		return usage_errorf("save", "unexpected argument \"%s\"", argv[0]);
	for (tries = 0; tries < SAVE_TRIES; tries++) {
		ret = save_once();
		if (ret != -EAGAIN)
			return ret;
	}
	return errorf(EXIT_KERNEL,
		      "the configuration changed while it was read, %d times: try again",
		      SAVE_TRIES);
}
