/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The grammar of restore files and klbctl -b (config.c): one command a line,
 * without the "klbctl" word. Words are split at blanks (space, tab, CR);
 * parts of a word in double quotes keep their blanks and '#', with \" and
 * \\ as the only escapes (word_quote() in utils.c writes words this way).
 * A '#' outside quotes at the start of a word starts a comment to the end
 * of the line; blank and comment-only lines are skipped.
 */
#ifndef KLBCTL_TOKENIZE_H
#define KLBCTL_TOKENIZE_H

/* One line's words; returns an exit status, EXIT_OK to go on. */
typedef int (*tokenize_line_fn)(void *ctx, int argc, char **argv,
				unsigned int line);

/*
 * Split text into lines and words in place (the text only shrinks), and
 * hand each line with words to fn, numbered from 1, with error_location()
 * set to FILE:LINE meanwhile so that errors name it. Stops at the first
 * error (an unterminated quote, out of memory, or fn's) and returns its
 * exit status; EXIT_OK after the last line. The words point into text and
 * live as long as it (restore keeps them); the argv array only during fn.
 */
int tokenize_lines(char *text, const char *file, tokenize_line_fn fn,
		   void *ctx);

#endif
