#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Self-test of tools/spec_check.py. Copies the spec, the uapi header,
# klbctl's attrs.c and selftests/klb_nl.py (and, read only, the .c and .h
# files of kmod/ for the kernel parts) to a temporary tree, then:
#   - the unmutated copy passes everything but the kernel parts;
#   - each mutation, one at a time, is reported: exit status 1 and at least
#     one problem line that the unmutated copy does not have (and, where the
#     case says so, one that matches its pattern: the schema's, for a spec
#     that breaks the kernel's netlink schema).
# The schema cases are skipped (and say why) when spec_check could not
# validate against the kernel's schema (no python3-jsonschema, no package).
# TAP output, then "N passed, M failed"; exit status 1 if any test failed.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
chk="$top/tools/spec_check.py"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
n=0
failed=0

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }
skip() { n=$((n + 1)); echo "ok $n - $1 # SKIP $2"; }

files="Documentation/netlink/klb.yaml include/uapi/linux/klb.h tools/klbctl/attrs.c selftests/klb_nl.py"
base="$tmp/base"
for f in $files; do
	mkdir -p "$base/$(dirname "$f")"
	cp "$top/$f" "$base/$f"
done
if [ -d "$top/kmod" ]; then
	(cd "$top" && find kmod -name '*.[ch]' -type f) | while read -r f; do
		mkdir -p "$base/$(dirname "$f")"
		cp "$top/$f" "$base/$f"
	done
fi

# run TREE OUT [ARGS]: spec_check's exit status; its output in OUT
# (with --no-schema once the first run could not validate the schema:
# no later run tries to fetch it again)
no_schema=()
run() {
	local tree=$1 out=$2
	shift 2
	python3 "$chk" --root "$tree" "${no_schema[@]}" "$@" >"$out" 2>&1
	echo $?
}

problems() { grep '^spec_check: ' "$1" | grep -v -e '^spec_check: SKIP ' -e '^spec_check: schema: ' -e '^spec_check: [0-9]* checks, '; }

rc=$(run "$base" "$tmp/base.nokernel" --no-kernel)
schema=yes
if schema_why=$(grep -m1 '^spec_check: SKIP schema validation' "$tmp/base.nokernel"); then
	schema=no
	no_schema=(--no-schema)
	echo "# $schema_why"
fi
if [ "$rc" = 0 ] && grep -q '^spec_check: [0-9]* checks, 0 problems$' "$tmp/base.nokernel"; then
	ok "unmutated copy: no problems outside the kernel parts (--no-kernel)"
else
	not_ok "unmutated copy: no problems outside the kernel parts (--no-kernel): exit $rc"
	sed 's/^/# /' "$tmp/base.nokernel"
fi
run "$base" "$tmp/base.out" >/dev/null
problems "$tmp/base.out" | sort >"$tmp/base.problems"
if grep -v -e '^spec_check: kmod/' "$tmp/base.problems" >"$tmp/base.user"; then
	not_ok "unmutated copy, kernel parts on: every problem is in kmod/"
	sed 's/^/# /' "$tmp/base.user"
else
	ok "unmutated copy, kernel parts on: every problem is in kmod/ ($(wc -l <"$tmp/base.problems") there)"
fi
kernel_policy=yes
grep -q '^spec_check: SKIP kernel policies' "$tmp/base.out" && kernel_policy=no

# mutate DESC FILE PYTHON [needs-kernel [PATTERN]]: apply PYTHON (text in
# s, yaml loaded as y for the spec: change one or the other) to a copy of
# FILE and expect a new problem (one matching the grep -E PATTERN if given;
# a PATTERN starting with "schema" needs the schema validation).
mutate() {
	local desc=$1 file=$2 code=$3 kernel=${4:-} pattern=${5:-} d="$tmp/m$((n + 1))" rc args=()
	if [ -n "$kernel" ] && [ "$kernel_policy" = no ]; then
		skip "$desc" "no kernel policy file in the tree"
		return
	fi
	if [[ "$pattern" == schema* ]] && [ "$schema" = no ]; then
		skip "$desc" "${schema_why#spec_check: SKIP }"
		return
	fi
	[ -z "$kernel" ] && args=(--no-kernel)
	cp -a "$base" "$d"
	if ! python3 - "$d/$file" "$code" <<-'EOF'
		import re, sys, yaml
		path, code = sys.argv[1], sys.argv[2]
		s = open(path).read()
		env = {"re": re, "s": s, "yaml": yaml}
		if path.endswith(".yaml"):
		    env["y"] = yaml.safe_load(s)
		exec(code, env)
		if path.endswith(".yaml") and env["y"] != yaml.safe_load(s):
		    env["s"] = yaml.safe_dump(env["y"], sort_keys=False)
		if env["s"] == s or (path.endswith(".yaml") and yaml.safe_load(env["s"]) == yaml.safe_load(s)):
		    sys.exit("mutation did not apply")
		open(path, "w").write(env["s"])
	EOF
	then
		not_ok "$desc: mutation did not apply to $file"
		return
	fi
	rc=$(run "$d" "$d.out" "${args[@]}")
	if [ -z "$kernel" ]; then
		cp "$tmp/base.nokernel" "$d.base"
	else
		cp "$tmp/base.out" "$d.base"
	fi
	problems "$d.base" | sort >"$d.base.problems"
	problems "$d.out" | sort | comm -13 "$d.base.problems" - >"$d.new"
	if [ "$rc" = 1 ] && [ -s "$d.new" ] && { [ -z "$pattern" ] || grep -qE -- "$pattern" "$d.new"; }; then
		ok "$desc: reported ($(wc -l <"$d.new") new problem lines)"
	else
		not_ok "$desc: exit $rc, $(wc -l <"$d.new") new problem lines${pattern:+, none matching '$pattern'}"
		sed 's/^/# /' "$d.out"
	fi
}

mutate "klb.h: rename enum entry KLB_POOL_A_SCHED" include/uapi/linux/klb.h \
	's = re.sub(r"\bKLB_POOL_A_SCHED\b(?=\s*[,=])", "KLB_POOL_A_SCHEDULER", s)'
mutate "klb.h: change the value of KLB_WEIGHT_MAX" include/uapi/linux/klb.h \
	's = re.sub(r"(#define\s+KLB_WEIGHT_MAX\s+)\d+", r"\g<1>12345", s)'
mutate "klb.h: give KLB_CMD_POOL_NEW an explicit value" include/uapi/linux/klb.h \
	's = re.sub(r"\bKLB_CMD_POOL_NEW\s*,", "KLB_CMD_POOL_NEW = 7,", s)'
mutate "klb.yaml: drop attribute service.proxy-protocol" Documentation/netlink/klb.yaml '
svc = next(x for x in y["attribute-sets"] if x["name"] == "service")
svc["attributes"] = [a for a in svc["attributes"] if a["name"] != "proxy-protocol"]'
mutate "klb.yaml: change the max-len of rule.host" Documentation/netlink/klb.yaml '
rule = next(x for x in y["attribute-sets"] if x["name"] == "rule")
next(a for a in rule["attributes"] if a["name"] == "host")["checks"]["max-len"] = 200' kernel
# the kernel's schema (genetlink-legacy.yaml, from Debian's linux-doc-6.12)
mutate "klb.yaml: a key the schema does not know (definitions[name-max].bogus-key)" \
	Documentation/netlink/klb.yaml '
next(d for d in y["definitions"] if d["name"] == "name-max")["bogus-key"] = 1' "" \
	"schema genetlink-legacy: definitions\[name-max\]: Additional properties are not allowed \('bogus-key'"
mutate "klb.yaml: protocol genetlink-c (its schema has no kernel-policy, no uns-admin-perm)" \
	Documentation/netlink/klb.yaml 'y["protocol"] = "genetlink-c"' "" \
	"schema genetlink-c: .*'kernel-policy' was unexpected"
mutate "klb.yaml: enum-max-name back in a definition (no released schema has it)" \
	Documentation/netlink/klb.yaml '
next(d for d in y["definitions"] if d["name"] == "hash")["enum-max-name"] = "klb-hash-max"' "" \
	"schema genetlink-legacy: definitions\[hash\]: .*'enum-max-name' was unexpected"
mutate "klb.yaml: a checks limit that is not the const its comment names" \
	Documentation/netlink/klb.yaml 's = s.replace("max: 65535  # weight-max", "max: 65534  # weight-max", 1)' "" \
	"max: 65534, but weight-max"
mutate "klb.yaml: backend-state without its doc's render-max names (YNL defaults then)" \
	Documentation/netlink/klb.yaml '
d = next(d for d in y["definitions"] if d["name"] == "backend-state")
d["doc"] = d["doc"].split("The header names")[0]' "" "KLB_BACKEND_MAX"
mutate "policy.c: service stats back to an NLA_REJECT on the nest" kmod/netlink/policy.c '
s = s.replace("[KLB_SERVICE_A_STATS]\t= NLA_POLICY_NESTED(klb_service_stats_out_policy)",
              "[KLB_SERVICE_A_STATS]\t= { .type = NLA_REJECT, .reject_message = \"x\" }", 1)' kernel \
	"NLA_REJECT on a nest"
mutate "policy.c: a service stats attribute accepted in a request" kmod/netlink/policy.c '
s = s.replace("[KLB_STATS_A_L7 + 1 ... KLB_STATS_A_MAX] = {\n\t\t.type = NLA_REJECT, .reject_message = KLB_SERVICE_STATS_OUT }",
              "[KLB_STATS_A_L7 + 1 ... KLB_STATS_A_MAX] = { .type = NLA_U64 }", 1)' kernel \
	"klb_service_stats_out_policy\[KLB_STATS_A_DROP_NO_PORT\]: accepted"
mutate "attrs.c: backend weight as T_U16" tools/klbctl/attrs.c \
	's = re.sub(r"(\[KLB_BACKEND_A_WEIGHT\]\s*=\s*\{[^}]*)T_U32", r"\g<1>T_U16", s)'
mutate "klb_nl.py: an attribute name not in the spec" selftests/klb_nl.py \
	's = s.replace("u8(\"POOL_A_SCHED\"", "u8(\"POOL_A_SCHEDULER\"", 1)'

echo "1..$n"
echo "$((n - failed)) passed, $failed failed"
[ "$failed" -eq 0 ]
