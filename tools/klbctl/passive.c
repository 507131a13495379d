// SPDX-License-Identifier: GPL-2.0
/*
 * A pool's passive health and slow start words:
 *   passive-fall N       failures in a row of real traffic that eject (0: off)
 *   passive-eject DUR    the first ejection period (doubles in a row)
 *   passive-5xx on|off   L7 5xx answers count as failures
 *   slowstart DUR        a backend that becomes usable ramps up (0: off)
 */
#include <stdlib.h>
#include <string.h>

#include "klbctl.h"
#include "nl.h"
#include "objects.h"
#include "print.h"

static const struct word on_off_words[] = {
	{ "off", 0 },
	{ "on", 1 },
};

int passive_parse_word(const char *key, const char *val,
		       struct passive_spec *ps)
{
	unsigned int v;
	uint32_t ms;

	if (!strcmp(key, "passive-fall")) {
		if (!parse_u32(val, &ms) || ms > KLB_CHECK_RISE_FALL_MAX)
			return usage_errorf("pool", "passive-fall must be 0..%u, not \"%s\"",
					    KLB_CHECK_RISE_FALL_MAX, val);
		ps->has_fall = true;
		ps->fall = (uint8_t)ms;
		return EXIT_OK;
	}
	if (!strcmp(key, "passive-5xx")) {
		int ret = parse_word("passive-5xx", val, on_off_words,
				     ARRAY_SIZE(on_off_words), &v);

		if (ret)
			return ret;
		ps->has_5xx = true;
		ps->errors_5xx = v;
		return EXIT_OK;
	}
	if (!parse_duration_ms(val, &ms))
		return usage_errorf("pool", "%s: \"%s\" is not a duration (2s, 1.5s, 500ms)",
				    key, val);
	if (!strcmp(key, "passive-eject")) {
		if (ms < KLB_PASSIVE_EJECT_MIN_MS || ms > KLB_PASSIVE_EJECT_MAX_MS)
			return usage_errorf("pool", "passive-eject must be %ums..%us",
					    KLB_PASSIVE_EJECT_MIN_MS,
					    KLB_PASSIVE_EJECT_MAX_MS / 1000);
		ps->has_eject = true;
		ps->eject_ms = ms;
		return EXIT_OK;
	}
	if (ms > KLB_SLOWSTART_MAX_MS)
		return usage_errorf("pool", "slowstart must be at most %us",
				    KLB_SLOWSTART_MAX_MS / 1000);
	ps->has_slowstart = true;
	ps->slowstart_ms = ms;
	return EXIT_OK;
}

bool passive_given(const struct passive_spec *ps)
{
	return ps->has_fall || ps->has_eject || ps->has_5xx || ps->has_slowstart;
}

void passive_put(struct req *r, const struct passive_spec *ps)
{
	if (ps->has_fall)
		req_put_u8(r, KLB_POOL_A_PASSIVE_FALL, ps->fall);
	if (ps->has_eject)
		req_put_u32(r, KLB_POOL_A_PASSIVE_EJECT_MS, ps->eject_ms);
	if (ps->has_5xx)
		req_put_u8(r, KLB_POOL_A_PASSIVE_5XX, ps->errors_5xx);
	if (ps->has_slowstart)
		req_put_u32(r, KLB_POOL_A_SLOWSTART_MS, ps->slowstart_ms);
}

void passive_merge(struct passive_spec *to, const struct passive_spec *from)
{
	if (from->has_fall) {
		to->has_fall = true;
		to->fall = from->fall;
	}
	if (from->has_eject) {
		to->has_eject = true;
		to->eject_ms = from->eject_ms;
	}
	if (from->has_5xx) {
		to->has_5xx = true;
		to->errors_5xx = from->errors_5xx;
	}
	if (from->has_slowstart) {
		to->has_slowstart = true;
		to->slowstart_ms = from->slowstart_ms;
	}
}
