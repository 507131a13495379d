// SPDX-License-Identifier: GPL-2.0
/*
 * The words of add, set and del (and of restore's lines) into an object,
 * by its table (obj.h): the keys in order, then KEYWORD VALUE pairs in
 * any order, the last of a word winning (unless the object says once).
 * Every message names the object's help, or the file and line in restore.
 */
#include <string.h>

#include "klbctl.h"
#include "obj.h"

static unsigned int *given_bits(const struct obj_desc *d, void *obj)
{
	return (unsigned int *)((char *)obj + d->given_off);
}

bool obj_given(const struct obj_desc *d, const void *obj, unsigned int i)
{
	return *(const unsigned int *)((const char *)obj + d->given_off) &
	       (1u << i);
}

/* The keyword @word as @cmd takes it, or NULL. */
static const struct field *keyword(const struct obj_desc *d, const char *word,
				   enum obj_cmd cmd)
{
	unsigned int i;

	for (i = 0; i < d->n; i++) {
		const struct field *f = &d->f[i];

		if (f->flags & (F_KEY | F_SHOW_ONLY))
			continue;
		if (cmd == OBJ_SET && (f->flags & F_ADD_ONLY))
			continue;
		if (!strcmp(f->word, word))
			return f;
	}
	return NULL;
}

static int parse_one(const struct obj_desc *d, const struct field *f,
		     int argc, char **argv, void *obj)
{
	int ret = f->type->parse(f, d->name, argc, argv, (char *)obj + f->off);

	if (!ret)
		*given_bits(d, obj) |= 1u << (f - d->f);
	return ret;
}

static int parse_keys(const struct obj_desc *d, int *argc, char ***argv,
		      void *obj)
{
	unsigned int i;
	int ret;

	for (i = 0; i < d->n && (d->f[i].flags & F_KEY); i++) {
		if (*argc < 1)
			return usage_errorf(d->name, "missing %s", d->f[i].meta);
		ret = parse_one(d, &d->f[i], 1, *argv, obj);
		if (ret)
			return ret;
		(*argc)--;
		(*argv)++;
	}
	return EXIT_OK;
}

static int parse_words(const struct obj_desc *d, int argc, char **argv,
		       enum obj_cmd cmd, void *obj)
{
	const struct field *f;
	int ret;

	for (; argc > 0; argc -= 2, argv += 2) {
		f = keyword(d, argv[0], cmd);
		if (!f)
			return usage_errorf(d->name, "unknown argument \"%s\"", argv[0]);
		if (f->flags & F_REST)
			return parse_one(d, f, argc - 1, argv + 1, obj);
		if (argc < 2)
			return usage_errorf(d->name, "missing value after \"%s\"", argv[0]);
		if (d->once && obj_given(d, obj, (unsigned int)(f - d->f)))
			return usage_errorf(d->name, "\"%s\" given twice", argv[0]);
		ret = parse_one(d, f, 1, argv + 1, obj);
		if (ret)
			return ret;
	}
	return EXIT_OK;
}

/* add: what it cannot do without, and the defaults it sends. */
static int add_complete(const struct obj_desc *d, void *obj)
{
	unsigned int i;

	for (i = 0; i < d->n; i++) {
		const struct field *f = &d->f[i];

		if (obj_given(d, obj, i))
			continue;
		if (f->flags & F_REQUIRED)
			return usage_errorf(d->name, "missing \"%s %s\"", f->word, f->meta);
		if (f->flags & F_ADD_DEF) {
			*(unsigned int *)((char *)obj + f->off) = f->def;
			*given_bits(d, obj) |= 1u << i;
		}
	}
	return EXIT_OK;
}

int obj_parse(const struct obj_desc *d, int argc, char **argv,
	      enum obj_cmd cmd, void *obj)
{
	unsigned int keys;
	int ret;

	memset(obj, 0, d->size);
	ret = parse_keys(d, &argc, &argv, obj);
	if (ret)
		return ret;
	if (cmd == OBJ_DEL) {
		if (argc > 0)
			return usage_errorf(d->name, "unexpected argument \"%s\"", argv[0]);
		return EXIT_OK;
	}
	keys = *given_bits(d, obj);
	ret = parse_words(d, argc, argv, cmd, obj);
	if (!ret && d->check)
		ret = d->check(obj);
	if (ret)
		return ret;
	if (cmd == OBJ_SET)
		return *given_bits(d, obj) == keys ?
		       usage_errorf(d->name, "%s", d->nothing) : EXIT_OK;
	return add_complete(d, obj);
}
