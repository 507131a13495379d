#!/bin/bash
# Run sparse (C=2: every file, built or not) over klb.ko with endianness
# checks, and fail on any warning or error it prints: kbuild itself does
# not fail on sparse warnings.
set -uo pipefail
cd "$(dirname "$0")/.."
: "${KDIR:?KDIR (the kernel build tree) not set: run through make sparse}"
# its own make, not a job of the caller's make -j (whose jobserver it
# would not get here: "jobserver unavailable", a warning line)
out=$(MAKEFLAGS= MFLAGS= make -C "$KDIR" M="$PWD" C=2 CF="-D__CHECK_ENDIAN__" modules 2>&1)
rc=$?
bad=$(grep -E '(warning|error):' <<<"$out" | grep -v 'BTF generation')
if [ $rc -ne 0 ] || [ -n "$bad" ]; then
	echo "$out"
	echo "sparse: FAILED (build rc $rc)"
	exit 1
fi
echo "sparse: $(grep -c '^  CHECK' <<<"$out") files checked, no warnings"
