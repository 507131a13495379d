// SPDX-License-Identifier: GPL-2.0
/*
 * First-match steering rules; semantics are documented in rule_match.h.
 * Validation and normalization happen once, when a rule is added, so that
 * matching a request is a handful of byte compares with no allocation.
 */
#include "host_strip.h"
#include "rule_match.h"

static bool ldh(u8 c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
	       c == '-' || c == '_';
}

/*
 * A lowercase DNS-ish name: LDH labels (plus '_', seen in real names)
 * separated by single dots. Hosts may also be an IP literal or address,
 * hence @lit allowing '[', ']' and ':'.
 */
static bool name_valid(const char *s, u32 len, bool lit)
{
	u32 i;
	bool label = false;

	if (!len)
		return false;
	for (i = 0; i < len; i++) {
		u8 c = s[i];

		if (c == '.') {
			if (!label)
				return false;
			label = false;
		} else if (ldh(c) || (lit && (c == '[' || c == ']' || c == ':'))) {
			label = true;
		} else {
			return false;
		}
	}
	return label;
}

/* Lowercase, drop one trailing dot, accept "*.suffix". */
static int prepare_name(char *s, u16 *len, u8 *wild, bool lit)
{
	u32 i, n = *len;

	if (!n || n > KLB_RULE_HOST_MAX)
		return -1;
	for (i = 0; i < n; i++)
		s[i] = klb_l7_lower(s[i]);
	if (n > 1 && s[n - 1] == '.')
		n--;
	*wild = n > 2 && s[0] == '*' && s[1] == '.';
	if (!name_valid(s + (*wild ? 2 : 0), n - (*wild ? 2 : 0), lit && !*wild))
		return -1;
	*len = n;
	return 0;
}

static bool token_valid(const char *s, u32 len)
{
	u32 i;

	if (!len)
		return false;
	for (i = 0; i < len; i++)
		if (!klb_l7_tchar(s[i]))
			return false;
	return true;
}

int klb_rule_prepare(struct klb_rule *r, const char **msg)
{
	u32 i;

	if (r->match & ~KLB_RULE_M_ALL) {
		*msg = "unknown matcher";
		return KLB_RULE_E_MATCH;
	}
	r->host_wild = 0;
	r->sni_wild = 0;
	if ((r->match & KLB_RULE_M_HOST) &&
	    prepare_name(r->host, &r->host_len, &r->host_wild, true)) {
		*msg = "host must be a hostname or *.domain";
		return KLB_RULE_E_HOST;
	}
	if ((r->match & KLB_RULE_M_SNI) &&
	    prepare_name(r->sni, &r->sni_len, &r->sni_wild, false)) {
		*msg = "sni must be a hostname or *.domain";
		return KLB_RULE_E_SNI;
	}
	if (r->match & KLB_RULE_M_PATH) {
		bool ok = r->path_len && r->path_len <= KLB_RULE_PATH_MAX &&
			  r->path[0] == '/';

		/* A '?' or '#' could never match: the query is not matched. */
		for (i = 0; ok && i < r->path_len; i++)
			ok = r->path[i] > 0x20 && r->path[i] < 0x7f &&
			     r->path[i] != '?' && r->path[i] != '#';
		if (!ok) {
			*msg = "path must start with / and hold no space, ? or #";
			return KLB_RULE_E_PATH;
		}
	}
	if (r->match & KLB_RULE_M_HEADER) {
		bool ok = r->hvalue_len <= KLB_RULE_HVALUE_MAX;

		if (r->hname_len > KLB_RULE_HNAME_MAX ||
		    !token_valid(r->hname, r->hname_len)) {
			*msg = "header name must be a token";
			return KLB_RULE_E_HNAME;
		}
		/* Values are compared trimmed, so untrimmed ones never match. */
		for (i = 0; ok && i < r->hvalue_len; i++) {
			u8 c = r->hvalue[i];

			ok = c == '\t' || (c >= 0x20 && c != 0x7f);
		}
		if (ok && r->hvalue_len)
			ok = r->hvalue[0] != ' ' && r->hvalue[0] != '\t' &&
			     r->hvalue[r->hvalue_len - 1] != ' ' &&
			     r->hvalue[r->hvalue_len - 1] != '\t';
		if (!ok) {
			*msg = "header value has control characters or surrounding spaces";
			return KLB_RULE_E_HVALUE;
		}
	}
	if ((r->match & KLB_RULE_M_METHOD) &&
	    (r->method_len > KLB_RULE_METHOD_MAX ||
	     !token_valid(r->method, r->method_len))) {
		*msg = "method must be a token";
		return KLB_RULE_E_METHOD;
	}
	*msg = NULL;
	return 0;
}

static bool name_match(const char *rule, u32 rlen, bool wild,
		       const u8 *name, u32 nlen)
{
	if (!wild)
		return klb_l7_ieq((const u8 *)rule, rlen, name, nlen);
	/* "*.example.com": compare ".example.com" with the name's tail. */
	rule++;
	rlen--;
	return nlen > rlen &&
	       klb_l7_ieq((const u8 *)rule, rlen, name + nlen - rlen, rlen);
}

static bool path_match(const struct klb_rule *r, const u8 *p, u32 len)
{
	static const u8 root = '/';
	u32 i;

	for (i = 0; i < len && p[i] != '?'; i++)
		;
	len = i;
	if (!len) {
		p = &root;
		len = 1;
	}
	if (len < r->path_len)
		return false;
	for (i = 0; i < r->path_len; i++)
		if (p[i] != (u8)r->path[i])
			return false;
	return true;
}

static bool header_match(const struct klb_rule *r,
			 const struct klb_rule_input *in)
{
	struct klb_http_span v;
	u32 cursor = 0, i;

	while (klb_http_field_find(in->head, in->msg, r->hname, r->hname_len,
				   &cursor, &v)) {
		if (v.len != r->hvalue_len)
			continue;
		for (i = 0; i < v.len; i++)
			if (in->head[v.off + i] != (u8)r->hvalue[i])
				break;
		if (i == v.len)
			return true;
	}
	return false;
}

bool klb_rule_match(const struct klb_rule *r, const struct klb_rule_input *in)
{
	u32 i;

	if (r->match & KLB_RULE_M_HOST) {
		if (!in->host || !name_match(r->host, r->host_len, r->host_wild,
					     in->host,
					     klb_host_strip(in->host, in->host_len)))
			return false;
	}
	if (r->match & KLB_RULE_M_SNI) {
		if (!in->sni || !name_match(r->sni, r->sni_len, r->sni_wild,
					    in->sni,
					    klb_host_strip(in->sni, in->sni_len)))
			return false;
	}
	if ((r->match & KLB_RULE_M_PATH) &&
	    (!in->path || !path_match(r, in->path, in->path_len)))
		return false;
	if (r->match & KLB_RULE_M_METHOD) {
		if (!in->method || in->method_len != r->method_len)
			return false;
		for (i = 0; i < r->method_len; i++)
			if (in->method[i] != (u8)r->method[i])
				return false;
	}
	if ((r->match & KLB_RULE_M_HEADER) &&
	    (!in->head || !in->msg || !header_match(r, in)))
		return false;
	return true;
}

int klb_rules_first(const struct klb_rule *rules, u32 n,
		    const struct klb_rule_input *in)
{
	u32 i;

	for (i = 0; i < n && i < 0x7fffffff; i++)
		if (klb_rule_match(&rules[i], in))
			return i;
	return -1;
}

void klb_rule_input_http(struct klb_rule_input *in, const u8 *head,
			 const struct klb_http_msg *msg)
{
	*in = (struct klb_rule_input){ .head = head, .msg = msg };
	if (msg->flags & KLB_HTTP_F_HOST) {
		in->host = head + msg->host.off;
		in->host_len = msg->host.len;
	}
	if (msg->target_form == KLB_HTTP_T_ORIGIN ||
	    msg->target_form == KLB_HTTP_T_ABSOLUTE) {
		in->path = head + msg->path.off;
		in->path_len = msg->path.len;
	}
	in->method = head + msg->method.off;
	in->method_len = msg->method.len;
}
