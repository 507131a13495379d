#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Drives the bash completion of klbctl (tools/completion/klbctl) as bash
# would, and checks it against klbctl's own help text:
#   - every OBJECT of `klbctl help` and every COMMAND of `klbctl OBJECT help`
#   - every argument keyword of each add/set usage line, and every value of
#     each "KEY := { ... }" list after its keyword
#   - pool, service and backend names and rule indexes, from a stand-in
#     klbctl that answers the JSON dumps (or, with --live KLBCTL, from the
#     kernel: pools b1 b2 web, services b1 site web, as
#     selftests/klbctl_ops.sh configures them)
#   tools/completion/test.sh [KLBCTL] | --live KLBCTL
# TAP; exit 1 if anything failed, 4 if bash-completion is not installed.
set -u
here=$(cd "$(dirname "$0")" && pwd)
live=
if [ "${1:-}" = --live ]; then
	live=1
	shift
fi
K=$(readlink -f "${1:-$here/../klbctl/klbctl}")
bc=/usr/share/bash-completion/bash_completion
[ -f "$bc" ] || { echo "1..0 # SKIP bash-completion not installed"; exit 4; }
[ -x "$K" ] || { echo "1..0 # SKIP $K not built"; exit 4; }
# shellcheck disable=SC1090
source "$bc"
# shellcheck disable=SC1091
source "$here/klbctl"

n=0 failed=0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; }

# The klbctl completed: a stand-in that answers the dumps with fixed names
# and passes everything else to the real one.
if [ -n "$live" ]; then
	cmd=$K
else
	cmd=$tmp/klbctl
	cat >"$cmd" <<-EOS
		#!/bin/bash
		case "\$*" in
		"-j pool show") echo '[{"name":"web","sched":"rr","backends":[{"addr":"10.0.1.11","port":80}]},{"name":"api","sched":"wrr","backends":[]}]' ;;
		"-j service show") echo '[{"name":"www","vip":"10.0.100.1","port":80,"pool":"web"}]' ;;
		"-j backend show web") echo '[{"addr":"10.0.1.11","port":80,"weight":1},{"addr":"fd01::11","port":8080,"weight":2}]' ;;
		"-j rule show www") echo '[{"index":0,"host":"a","pool":"api"},{"index":1,"path":"/x","pool":"web"}]' ;;
		"-n other -j pool show") echo '[{"name":"elsewhere","sched":"rr","backends":[]}]' ;;
		*) exec "$K" "\$@" ;;
		esac
	EOS
	chmod +x "$cmd"
fi

# comp LINE: the completions bash would offer with the cursor at the end of
# LINE (words split as bash does, ':' included), sorted, space-separated.
comp() {
	local line="$cmd ${1#klbctl }" w
	COMP_LINE=$line
	COMP_POINT=${#line}
	COMP_WORDS=()
	# shellcheck disable=SC2086
	for w in $(sed 's/:/ : /g' <<<"$line"); do COMP_WORDS+=("$w"); done
	[[ $line == *' ' ]] && COMP_WORDS+=("")
	COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
	COMPREPLY=()
	_klbctl klbctl "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
	printf '%s\n' "${COMPREPLY[@]}" | sed '/^$/d' | sort | tr '\n' ' ' | sed 's/ $//'
}
# offers LINE WORD...: each WORD is among the completions of LINE
offers() {
	local line=$1 got w miss=
	shift
	got=" $(comp "$line") "
	for w in "$@"; do
		[[ $got == *" $w "* ]] || miss+=" $w"
	done
	if [ -z "$miss" ]; then
		ok "'$line' offers $*"
	else
		not_ok "'$line' offers $* (missing:$miss; got:$got)"
	fi
}
# is LINE WANT: exactly these completions
is() {
	local got
	got=$(comp "$1")
	if [ "$got" = "$2" ]; then ok "'$1' -> '$2'"; else not_ok "'$1' -> '$got', want '$2'"; fi
}

if [ -n "$live" ]; then
	offers "klbctl pool del " b1 b2 web
	offers "klbctl service show " b1 site web
	offers "klbctl backend show " b1 b2 web
	offers "klbctl stats zero pool " b1 b2 web
	offers "klbctl backend del web " "10.0.1.11:80" "10.0.1.12:80" "10.0.1.13:80"
	echo "1..$n"
	[ $failed -eq 0 ]
	exit
fi

# ---- every object and command of the help text
help=$("$K" help)
objects=$(sed -n '/^OBJECT := {/,/}/p' <<<"$help" | tr -d '{}|' | sed 's/OBJECT :=//')
[ -n "$objects" ] || not_ok "objects found in klbctl help"
# shellcheck disable=SC2086
offers "klbctl " $objects
for o in $objects; do
	[ "$o" = restore ] && continue	# restore [-f FILE]: no command word
	cmds=$("$K" "$o" help 2>/dev/null | grep -oE "klbctl( \[-[a-z]\])* $o [a-z]+" | awk '{print $NF}' | sort -u)
	[ "$o" = save ] || [ "$o" = flush ] && cmds=help
	# shellcheck disable=SC2086
	[ -n "$cmds" ] && offers "klbctl $o " $cmds help
done
offers "klbctl restore " -f
# monitor [FILTER]: the filter words of its help
filters=$("$K" monitor help | sed -n 's/.*monitor \[\(.*\)\].*/\1/p' | tr -d '|')
[ -n "$filters" ] || not_ok "filters found in klbctl monitor help"
# shellcheck disable=SC2086
offers "klbctl monitor " $filters help
offers "klbctl -j monitor " $filters help

# ---- every keyword of the add/set usage lines
# positional placeholders -> a value
fill() {
	sed -e 's/\bNAME\b/x/; s/\bPOOL\b/web/; s/\bSERVICE\b/www/; s/ADDR:PORT/1.2.3.4:80/'
}
for o in pool backend service rule; do
	"$K" "$o" help | sed -e ':a' -e '$!N; s/\n  \+\[/ [/; ta' -e 'P;D' |
		grep -E "klbctl $o (add|set) " >"$tmp/usage"
	while read -r line; do
		line=${line#Usage: }
		c=$(awk '{print $3}' <<<"$line")
		# the positional head (words before the first keyword), then keywords
		head=$(sed -E "s/^klbctl $o $c //; s/ \[?[a-z][a-z-]* .*//" <<<"$line" | fill)
		kws=$(grep -oE '\[?[a-z][a-z-]+ [A-Z]' <<<"${line#klbctl $o $c }" | tr -d '[' | awk '{print $1}' | sort -u | tr '\n' ' ')
		# shellcheck disable=SC2086
		[ -n "$kws" ] && offers "klbctl $o $c $head " $kws
	done <"$tmp/usage"
done

# ---- every value list, after its keyword
val() { "$K" "$1" help | sed -n "s/^$2 := { \([^}]*\) }.*/\1/p" | tr -d '|'; }
# shellcheck disable=SC2046
offers "klbctl pool add x sched " $(val pool SCHED)
# shellcheck disable=SC2046
offers "klbctl backend add web 1.2.3.4:80 state " $(val backend STATE)
offers "klbctl backend set web 10.0.1.11:80 weight 2 " maxconn state
# shellcheck disable=SC2046
offers "klbctl service add s vip 1.2.3.4:80 proto " $(val service PROTO)
# shellcheck disable=SC2046
offers "klbctl service add s vip 1.2.3.4:80 proto tcp mode " $(val service MODE)
# shellcheck disable=SC2046
offers "klbctl service set www proxy-protocol " $(val service PP)
# shellcheck disable=SC2046
offers "klbctl tune apply " $(val tune PROFILE) --persist
offers "klbctl stats zero " service pool

# ---- names from the kernel (the stand-in)
is "klbctl pool del " "api web"
is "klbctl pool show w" "web"
is "klbctl service del " "www"
is "klbctl backend add " "api web"
is "klbctl backend del web " "10.0.1.11:80 [fd01::11]:8080"
is "klbctl backend set web 10.0.1.11:80 " "maxconn state weight"
is "klbctl backend set web 10.0.1.11:80 weight 3 " "maxconn state"
is "klbctl rule del www " "0 1"
is "klbctl rule add www host a " "header method path pool sni"
is "klbctl rule add www pool " "api web"
is "klbctl service add s vip 1.2.3.4:80 pool " "api web"
is "klbctl stats zero service " "www"
is "klbctl conn show service " "www"
is "klbctl -n other pool del " "elsewhere"
is "klbctl -j -s po" "pool"
is "klbctl -" "--batch --help --json --netns --pretty --stats --version -V -b -h -j -n -p -s"
touch "$tmp/batchfile"
is "klbctl -b $tmp/batchf" "$tmp/batchfile"
is "klbctl pool add x sched wrr " "all-unhealthy check hash passive-5xx passive-eject passive-fall slowstart"
is "klbctl pool set web passive-5xx " "off on"
is "klbctl pool set web hash " "5tuple src"
is "klbctl service set web allow " "none"
is "klbctl pool set web slowstart 10s " "all-unhealthy check hash passive-5xx passive-eject passive-fall sched"
# shellcheck disable=SC2046
offers "klbctl pool set web all-unhealthy " $(val pool AU)
# shellcheck disable=SC2046
offers "klbctl pool set web check " $(val pool KIND) none
is "klbctl pool set web check http path / " "body expect fall host interval port rise sni timeout"
is "klbctl pool set web check http path " ""

echo "1..$n"
[ $failed -eq 0 ]
