// SPDX-License-Identifier: GPL-2.0
/*
 * Lines of klbctl commands, as restore files and klbctl -b hold them, split
 * into words in place (the grammar is in tokenize.h).
 */
#include <stdlib.h>
#include <string.h>

#include "klbctl.h"
#include "tokenize.h"

static bool blank(char ch)
{
	return ch == ' ' || ch == '\t' || ch == '\r';
}

/*
 * The word at *pp, unquoted in place (the text only shrinks): parts in
 * double quotes keep their blanks and '#', with \" and \\ as escapes.
 * *pp moves past the word and the blank after it.
 */
static int next_word(char **pp)
{
	char *p = *pp, *out = p;
	bool more;

	while (*p && !blank(*p)) {
		if (*p != '"') {
			*out++ = *p++;
			continue;
		}
		for (p++; *p && *p != '"'; p++) {
			if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
				p++;
			*out++ = *p;
		}
		if (!*p)
			return errorf(EXIT_USAGE, "unterminated quote");
		p++;
	}
	more = *p != '\0';	/* before the NUL lands, maybe on *p */
	*out = '\0';
	*pp = more ? p + 1 : p;
	return EXIT_OK;
}

int tokenize_lines(char *text, const char *file, tokenize_line_fn fn,
		   void *ctx)
{
	char **tok = NULL, *line = text, *next;
	size_t ntok, cap = 0;
	unsigned int lineno = 0;
	int ret = EXIT_OK;

	for (; line && ret == EXIT_OK; line = next) {
		char *p = line;

		lineno++;
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		else if (!*line)
			break;

		error_location(file, lineno);
		ntok = 0;
		for (;;) {
			while (blank(*p))
				p++;
			/* A "# ..." after words is a comment too. */
			if (!*p || *p == '#')
				break;
			if (!grow(&tok, &cap, ntok, sizeof(*tok))) {
				ret = errorf(EXIT_KERNEL, "out of memory");
				break;
			}
			tok[ntok++] = p;
			ret = next_word(&p);
			if (ret)
				break;
		}
		if (!ret && ntok)
			ret = fn(ctx, (int)ntok, tok, lineno);
		error_location(NULL, 0);
	}
	free(tok);
	return ret;
}
