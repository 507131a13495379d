// SPDX-License-Identifier: GPL-2.0
/*
 * The words of an object as show prints them (text or JSON, print.c) and
 * as save writes them, in one pass over its table (obj.h): the two differ
 * only where a field's flags say so. save runs print.c in text mode.
 */
#include "klbctl.h"
#include "obj.h"

static const void *value(const struct field *f, const void *obj)
{
	return (const char *)obj + f->off;
}

/* Whether the text of @m (show or save) has the field. */
static bool in_text(const struct obj_desc *d, const void *obj,
		    const struct field *f, enum wmode m)
{
	unsigned int omit = m == W_SAVE ? F_OMIT_SAVE : F_OMIT_SHOW;

	if (f->needs && !in_text(d, obj, &d->f[f->needs], m))
		return false;
	if (!(f->flags & F_ALWAYS) && !obj_given(d, obj, (unsigned int)(f - d->f)))
		return false;
	return !(f->flags & omit) || !f->type->is_default ||
	       !f->type->is_default(f, value(f, obj));
}

static void print_field(const struct obj_desc *d, const void *obj,
			const struct field *f, enum wmode m)
{
	bool text = in_text(d, obj, f, m);
	bool json = m == W_SHOW && (text || (f->flags & F_JSON_ALL));

	if (text || json)
		f->type->print((text ? PRINT_FP : 0) | (json ? PRINT_JSON : 0),
			       f, value(f, obj), m);
	else if (m == W_SHOW && (f->flags & F_JSON_NULL))
		print_null(PRINT_JSON, f->json, NULL, NULL);
}

/* The keywords of the line (below: show's, after the line). */
static void print_words(const struct obj_desc *d, const void *obj,
			enum wmode m, bool below)
{
	unsigned int i;

	for (i = 0; i < d->n; i++) {
		unsigned int fl = d->f[i].flags;

		if (fl & F_KEY)
			continue;
		if (m == W_SAVE ? (fl & F_SHOW_ONLY) :
		    (fl & F_TITLE) || below != !!(fl & F_BELOW))
			continue;
		print_field(d, obj, &d->f[i], m);
	}
}

void obj_show(const struct obj_desc *d, const void *obj)
{
	d->show_title(obj);
	print_words(d, obj, W_SHOW, false);
	print_nl();
	print_words(d, obj, W_SHOW, true);
}

void obj_save(const struct obj_desc *d, const void *obj, const char *parent)
{
	unsigned int i;

	print_string(PRINT_FP, NULL, "%s add", d->name);
	if (parent)
		print_string(PRINT_FP, NULL, " %s", parent);
	for (i = 0; i < d->n && (d->f[i].flags & F_KEY); i++)
		if (!(d->f[i].flags & F_PARENT))
			obj_print_field(d, obj, i, W_BARE);
	print_words(d, obj, W_SAVE, false);
	print_nl();
}

void obj_print_field(const struct obj_desc *d, const void *obj,
		     unsigned int i, enum wmode m)
{
	d->f[i].type->print(PRINT_ANY, &d->f[i], value(&d->f[i], obj), m);
}
