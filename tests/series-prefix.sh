#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every prefix of part 1 of the series (c-patches/series, up to the
# "# Part 2" line) applied to the pristine source, built and checked, as
# KTAP: for each prefix, kernel/dma/ and drivers/iommu/dma-iommu.o are
# built for x86-64 (tinyconfig plus kconfig-fragments/prefix/, with the
# swiotlb test hooks and audit where the prefix has them; clang as the
# lab's kernel; the x86 passes are a header of arch/x86 that
# kernel/dma/swiotlb_wb.o includes), with no warning in those files; and,
# once tools/testing/swiotlb exists, wb_check runs short shapes in every
# pass the prefix and this CPU have (a pass either lacks is a SKIP) and
# must exit 0 (every count that must be 0 is). One git worktree of SRC's
# repository at the pristine tag, patched one patch at a time, one build
# directory: each step rebuilds only what its patch touched. The kernel
# builds run under the lock file LOCK (one kernel build at a time on the
# machine), taken once for all prefixes; wb_check runs after, without it.
#
# usage: series-prefix.sh SRC PATCHDIR OUTDIR [LOCK]	(KMAKE_FLAGS from the Makefile)
set -eu
src=$1 patches=$(realpath "$2") out=$3 lock=${4:-/dev/null}
here=$(realpath "$(dirname "$0")")
mkdir -p "$out"
out=$(realpath "$out")
wt=$out/src build=$out/build

# Part 1: the patches before the "# Part 2" comment of the series.
part1=$(sed -n '/^# Part 2/q; /^[^#[:space:]]/p' "$patches/series")
[ -n "$part1" ] || { echo "error: $patches/series has no part 1" >&2; exit 1; }
n=$(echo "$part1" | wc -l)
shapes='-l 2 -d 3
-l 2 -d 3 -o 8
-l 5 -d 2
-i -l 2 -d 2
-l 2 -d 4 -w -m FROM'
nshapes=$(echo "$shapes" | wc -l)

# build: apply each prefix and build it; keep what wb_check needs of it.
# Writes $out/prefix-K.rc (0: built without warnings) and the log.
build() {
	if [ ! -e "$wt/.git" ]; then
		git -C "$src" worktree prune
		git -C "$src" worktree add -q --detach "$wt" pristine
	fi
	git -C "$wt" checkout -q -f --detach pristine
	git -C "$wt" clean -q -fdx
	k=0
	for p in $part1; do
		k=$((k + 1))
		git -C "$wt" apply --index "$patches/$p" ||
			{ echo "error: $p does not apply" >&2; exit 1; }
		log=$out/prefix-$k.log
		t0=$(date +%s)
		rc=0
		# shellcheck disable=SC2086 # KMAKE_FLAGS is a list of make variables
		{ [ -e "$build/.config" ] ||
			"$here/../kconfig-fragments/configure.sh" "$wt" "$build" \
				"$here/../kconfig-fragments/prefix/prefix.config"; } >"$log" 2>&1 &&
			"$wt/scripts/config" --file "$build/.config" -e SWIOTLB_TEST_HOOKS \
				-e SWIOTLB_AUDIT >>"$log" 2>&1 &&
			make -s -C "$wt" O="$build" $KMAKE_FLAGS olddefconfig >>"$log" 2>&1 &&
			make -s -C "$wt" O="$build" $KMAKE_FLAGS -j"$(nproc)" \
				kernel/dma/ drivers/iommu/dma-iommu.o >>"$log" 2>&1 || rc=$?
		if [ $rc = 0 ] && grep 'warning:' "$log" | grep -q 'kernel/dma\|dma-iommu'; then
			rc=warning
		fi
		echo "$rc $(($(date +%s) - t0))" >"$out/prefix-$k.rc"
		rm -rf "$out/wb-$k"
		mkdir -p "$out/wb-$k"
		if [ -d "$wt/tools/testing/swiotlb" ]; then
			git -C "$wt" archive "$(git -C "$wt" write-tree)" kernel/dma \
				tools/testing/swiotlb \
				tools/include tools/arch arch/x86/include/asm |
				tar -x -C "$out/wb-$k"
		fi
	done
}
exec 9>>"$lock"
flock 9
t_build=$(date +%s)
build
t_build=$(($(date +%s) - t_build))
flock -u 9

echo "KTAP version 1"
echo "1..$((n * (1 + 3 * nshapes)))"
i=0 k=0 rc=0
for p in $part1; do
	k=$((k + 1))
	i=$((i + 1))
	read -r brc secs <"$out/prefix-$k.rc"
	if [ "$brc" = 0 ]; then
		echo "ok $i prefix $k ($p): kernel/dma/ and dma-iommu.o build ($secs s)"
	else
		sed 's/^/# /' "$out/prefix-$k.log" | tail -n 30
		echo "not ok $i prefix $k ($p): kernel/dma/ and dma-iommu.o build ($brc)"
		rc=1
	fi
	wb=$out/wb-$k
	t=$wb/tools/testing/swiotlb
	built=no
	if [ -d "$t" ] && make -s -C "$t" OUTPUT="$wb" "$wb/wb_check" >"$wb/build.log" 2>&1; then
		built=yes
	fi
	for pass in scalar sse2 avx2; do
		while read -r shape; do
			i=$((i + 1))
			what="prefix $k: wb_check $shape -p $pass"
			if [ ! -d "$t" ]; then
				echo "ok $i $what # SKIP no tools/testing/swiotlb yet"
				continue
			fi
			if [ $pass != scalar ] && [ ! -e "$wb/arch/x86/include/asm/swiotlb_wb.h" ]; then
				echo "ok $i $what # SKIP no x86 passes in this prefix"
				continue
			fi
			if [ $built = no ]; then
				sed 's/^/# /' "$wb/build.log" | tail -n 10
				echo "not ok $i $what # build failed"
				rc=1
				continue
			fi
			# shellcheck disable=SC2086 # shape is a list of arguments
			r=0; "$wb/wb_check" $shape -p $pass >"$wb/run.log" 2>&1 || r=$?
			if [ $r = 2 ] && grep -q "has no $pass pass" "$wb/run.log"; then
				echo "ok $i $what # SKIP this CPU has no $pass pass"
			elif [ $r = 0 ]; then
				echo "ok $i $what"
			else
				tail -n 1 "$wb/run.log" | sed 's/^/# /'
				echo "not ok $i $what # exit status $r"
				rc=1
			fi
		done <<EOT
$shapes
EOT
	done
done
echo "# kernel builds of the $n prefixes (under the lock): $t_build s"
exit $rc
