#!/bin/bash
# Run the kernel's checkpatch.pl --strict over klb's kernel sources.
# checkpatch.pl ships in Debian's linux-source package (a tarball): extract
# the three files it needs into out/checkpatch once.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=out/checkpatch
if [ ! -x "$dir/scripts/checkpatch.pl" ]; then
	tarball=$(ls /usr/src/linux-source-*.tar.xz 2>/dev/null | sort -V | tail -n1 || true)
	if [ -z "$tarball" ]; then
		tools/deps.sh linux-source-6.1
		tarball=$(ls /usr/src/linux-source-*.tar.xz | sort -V | tail -n1)
	fi
	top=$(basename "$tarball" .tar.xz)
	mkdir -p "$dir"
	tar -xJf "$tarball" -C "$dir" --strip-components=1 \
		"$top/scripts/checkpatch.pl" "$top/scripts/spelling.txt" \
		"$top/scripts/const_structs.checkpatch"
fi
files=$(find kmod include/uapi/linux/klb.h -name "*.[ch]" | sort)
# --no-tree: we are not inside a kernel tree. FILE_PATH_CHANGES and
# SPDX style of uapi headers only make sense in-tree.
"$dir/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	--ignore FILE_PATH_CHANGES,LINUX_VERSION_CODE -f $files
