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

int do_save(int argc, char **argv)
{
	struct rule_list *rules = NULL;
	struct hostmap_list hl = { 0 };
	struct service_list sl;
	struct pool_list pl;
	size_t i;
	int ret;

	if (argc > 0 && is_help(argv[0])) {
		config_usage(stdout);
		return EXIT_OK;
	}
	if (argc > 0)
		return usage_errorf("save", "unexpected argument \"%s\"", argv[0]);
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
