// SPDX-License-Identifier: GPL-2.0
/*
 * Objects to and from netlink, by their tables (obj.h): the attributes of
 * a request in table order, a reply's attributes back into the fields,
 * and the add / set / del requests themselves.
 */
#include <string.h>

#include <libmnl/libmnl.h>

#include "klbctl.h"
#include "nl.h"
#include "obj.h"

static const void *value(const struct field *f, const void *obj)
{
	return (const char *)obj + f->off;
}

/* The given fields but the parent's name, which is not in the nest. */
void obj_put(const struct obj_desc *d, struct req *r, const void *obj)
{
	unsigned int i;

	for (i = 0; i < d->n; i++)
		if (!(d->f[i].flags & (F_PARENT | F_SHOW_ONLY)) &&
		    obj_given(d, obj, i))
			d->f[i].type->put(r, &d->f[i], value(&d->f[i], obj));
}

int obj_get(const struct obj_desc *d, const struct nlattr *const *tb,
	    void *obj)
{
	unsigned int *given = (unsigned int *)((char *)obj + d->given_off);
	unsigned int i;
	int ret;

	for (i = 0; i < d->n; i++) {
		const struct field *f = &d->f[i];

		if (!f->attr || (f->flags & F_PARENT) || !f->type->get)
			continue;
		ret = f->type->get(f, tb, (char *)obj + f->off);
		if (ret < 0)
			return ret;
		if (ret)
			*given |= 1u << i;
	}
	return 0;
}

void obj_merge(const struct obj_desc *d, void *to, const void *from)
{
	unsigned int *given = (unsigned int *)((char *)to + d->given_off);
	unsigned int i;

	for (i = 0; i < d->n; i++) {
		if (!obj_given(d, from, i))
			continue;
		memcpy((char *)to + d->f[i].off, value(&d->f[i], from),
		       d->f[i].type->size);
		*given |= 1u << i;
	}
}

size_t obj_wire(const struct obj_desc *d, const void *obj)
{
	size_t n = 0;
	unsigned int i;

	for (i = 0; i < d->n; i++) {
		const struct vtype *t = d->f[i].type;

		if (obj_given(d, obj, i))
			n += t->wire ? t->wire(value(&d->f[i], obj)) : 8;
	}
	return n;
}

void obj_free(const struct obj_desc *d, void *obj)
{
	unsigned int i;

	for (i = 0; i < d->n; i++)
		if (d->f[i].type->free)
			d->f[i].type->free((char *)obj + d->f[i].off);
}

/* top { PARENT's name, inner { the object } } or top { the object } */
static int obj_send(const struct obj_desc *d, unsigned char cmd, int argc,
		    char **argv, const void *obj)
{
	struct nlattr *top, *inner = NULL;
	struct req r;
	unsigned int i;
	int ret;

	ret = req_init(&r, cmd, 0, req_size_for(argc, argv));
	if (ret)
		return ret;
	top = req_nest_start(&r, d->top);
	for (i = 0; i < d->n; i++)
		if ((d->f[i].flags & F_PARENT) && obj_given(d, obj, i))
			d->f[i].type->put(&r, &d->f[i], value(&d->f[i], obj));
	if (d->inner)
		inner = req_nest_start(&r, d->inner);
	obj_put(d, &r, obj);
	if (inner)
		req_nest_end(&r, inner);
	req_nest_end(&r, top);
	ret = klb_request(&r, NULL, NULL, NULL);
	req_free(&r);
	return ret;
}

int obj_command(const struct obj_desc *d, enum obj_cmd cmd, int argc,
		char **argv, void *obj)
{
	const unsigned char cmds[] = {
		[OBJ_ADD] = d->cmd_new,
		[OBJ_SET] = d->cmd_set,
		[OBJ_DEL] = d->cmd_del,
	};
	int ret = obj_parse(d, argc, argv, cmd, obj);

	return ret ? ret : obj_send(d, cmds[cmd], argc, argv, obj);
}
