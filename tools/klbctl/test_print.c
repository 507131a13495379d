// SPDX-License-Identifier: GPL-2.0
/* Drives print.c through escapes, nesting and edge values; test.sh checks it. */
#include <stdint.h>
#include <string.h>

#include "print.h"

int main(int argc, char **argv)
{
	json_pretty = argc > 1 && !strcmp(argv[1], "pretty");
	new_json_obj(argc > 1 && (!strcmp(argv[1], "json") || json_pretty));

	open_json_object(NULL);
	print_string(PRINT_ANY, "s", "s=%s", "q\"b\\\\n\nt\tc\x01");
	print_u64(PRINT_ANY, "u64", " u64=%llu", UINT64_MAX);
	open_json_array(PRINT_JSON, "arr");
	print_string(PRINT_FP, NULL, "%s", " [");
	print_uint(PRINT_ANY, NULL, "%u", 1);
	print_uint(PRINT_ANY, "ignored-in-array", " %u", 2);
	open_json_object(NULL);
	print_null(PRINT_ANY, "x", " x=%s", "-");
	print_bool(PRINT_ANY, "b", " b=%s", true);
	close_json_object();
	close_json_array(PRINT_ANY, "]");
	print_nl();
	close_json_object();

	open_json_object(NULL);
	close_json_object();

	open_json_object(NULL);
	open_json_array(PRINT_JSON, "empty");
	close_json_array(PRINT_JSON, NULL);
	close_json_object();

	delete_json_obj();
	return 0;
}
