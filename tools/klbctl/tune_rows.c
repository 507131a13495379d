// SPDX-License-Identifier: GPL-2.0
/*
 * klbctl tune: a profile's keys as the system has them now (tune_rows_read)
 * and the table show, apply and revert print them in, as text or JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "klbctl.h"
#include "print.h"
#include "tune.h"

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

int tune_rows_read(const struct profile_values *p, struct tune_row *rows)
{
	for (int i = 0; i < NKEYS; i++) {
		struct tune_row *r = &rows[i];
		int err;

		memset(r, 0, sizeof(*r));
		r->in_profile = p->want[i][0] != '\0';
		if (!r->in_profile)
			continue;
		snprintf(r->want, VAL_MAX, "%s", p->want[i]);
		err = tune_sysctl_read(tune_keys[i].name, r->cur, VAL_MAX);
		if (err == -ENOENT)
			continue;
		if (err) {
			fprintf(stderr, "Error: %s: %s\n", tune_keys[i].name,
				strerror(-err));
			return EXIT_KERNEL;
		}
		r->present = true;
		if (p->at_least[i] && is_number(r->cur) &&
		    strtoull(r->cur, NULL, 10) > strtoull(r->want, NULL, 10))
			snprintf(r->want, VAL_MAX, "%s", r->cur);
		r->matches = tune_same_value(r->want, r->cur);
		snprintf(r->shown, VAL_MAX, "%s", r->cur);
		tune_normalise(r->shown);
	}
	return 0;
}

static const char *scope_name(int i)
{
	return tune_keys[i].scope == SCOPE_GLOBAL ? "global" : "netns";
}

void tune_print_header(const char *c2, const char *c3, const char *c4)
{
	print_string(PRINT_FP, NULL, "%-30s ", "KEY");
	print_string(PRINT_FP, NULL, "%-22s ", c2);
	print_string(PRINT_FP, NULL, "%-22s ", c3);
	print_string(PRINT_FP, NULL, "%-10s ", c4);
	print_string(PRINT_FP, NULL, "%s", "SCOPE");
	print_nl();
}

void tune_print_row(int i, const char *k2, const char *v2, const char *k3,
		    const char *v3, const char *status)
{
	open_json_object(NULL);
	print_string(PRINT_ANY, "key", "%-30s ", tune_keys[i].name);
	if (v2)
		print_string(PRINT_ANY, k2, "%-22s ", v2);
	else
		print_null(PRINT_ANY, k2, "%-22s ", "-");
	if (v3)
		print_string(PRINT_ANY, k3, "%-22s ", v3);
	else
		print_null(PRINT_ANY, k3, "%-22s ", "-");
	print_string(PRINT_ANY, "status", "%-10s ", status);
	print_string(PRINT_ANY, "scope", "%s", scope_name(i));
	close_json_object();
	print_nl();
}

void tune_note(const char *fmt, const char *arg)
{
	FILE *out = opt_json ? stderr : stdout;

	fprintf(out, fmt, arg);
	fputc('\n', out);
}
