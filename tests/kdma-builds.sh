#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# kernel/dma as a production kernel builds it: tinyconfig plus
# kconfig-fragments/production/ (swiotlb with debugfs and the audit, none
# of the lab's test-only options), x86-64 with clang as the lab's kernel,
# in a build directory of its own, kernel/dma/ alone.  Its objects must
# hold none of the test hooks, neither their symbols nor their debugfs and
# boot-option names, and must hold the off switch swiotlb_transparent=.
# The lab's own build (LABBUILD) must hold the hooks, or the check could
# not fail.  Then kernel/dma for i386 with PAE
# (kconfig-fragments/production-i386/): swiotlb.c's static_assert that a
# slot is no larger than 6.1's compiles there, where phys_addr_t is wider
# than size_t, and swiotlb.o must be built.  KTAP on standard output.
#
# usage: kdma-builds.sh SRC OUTDIR LABBUILD	(KMAKE_FLAGS from the Makefile;
# about 2 min on two cores the first time, seconds after)
set -eu
src=$1 out=$2 lab=$3
here=$(dirname "$0")
mkdir -p "$out"
out=$(realpath "$out")
build=$out/x86_64-production

# Symbols and strings of the test hooks (CONFIG_SWIOTLB_TEST_HOOKS,
# CONFIG_SWIOTLB_POLICY_SELECT, the KUnit helpers).
hook_syms='swiotlb_wb_force_pass swiotlb_wb_forced_pass swiotlb_wb_pass_calls
swiotlb_wb_calls swiotlb_wb_pass_names swiotlb_wb_test_hold_line
swiotlb_cc_force swiotlb_set_policy swiotlb_get_policy
swiotlb_test_pool_metadata __ksymtab_swiotlb_wb_pass_supported'
hook_strings='wb_pass cc_force swiotlb_cc swiotlb_policy'

# found DIR: the hook symbols and strings kernel/dma's objects in DIR have.
found() {
	objs=$(ls "$1"/kernel/dma/swiotlb*.o 2>/dev/null | grep -v '\.mod\.o$' || true)
	[ -n "$objs" ] || return 0
	# shellcheck disable=SC2086 # objs are words
	syms=$(nm $objs 2>/dev/null | awk '{ print $NF }' | sort -u)
	for s in $hook_syms; do
		echo "$syms" | grep -qx "$s" && echo "symbol:$s"
	done
	for s in $hook_strings; do
		# shellcheck disable=SC2086
		strings $objs | grep -qx "$s" && echo "string:$s"
	done
	true
}

# kdma BUILD LOG FRAGMENT: configure BUILD (once) and build kernel/dma/.
kdma() {
	# shellcheck disable=SC2086 # KMAKE_FLAGS is a list of make variables
	{ [ -e "$1/.config" ] ||
		"$here/../kconfig-fragments/configure.sh" "$src" "$1" "$3"; } >"$2" 2>&1 &&
	make -s -C "$src" O="$1" $KMAKE_FLAGS -j"$(nproc)" kernel/dma/ >>"$2" 2>&1
}

echo "KTAP version 1"
echo "1..5"
rc=0
log=$out/production-build.log
kdma "$build" "$log" "$here/../kconfig-fragments/production/production.config" || rc=$?
if [ $rc = 0 ] && [ -f "$build/kernel/dma/swiotlb.o" ] && [ -f "$build/kernel/dma/swiotlb_wb.o" ]; then
	echo "ok 1 kernel/dma builds with the production options"
else
	tail -n 20 "$log" | sed 's/^/# /'
	echo "not ok 1 kernel/dma builds with the production options"
fi
bad=$(found "$build")
if [ $rc = 0 ] && [ -z "$bad" ]; then
	echo "ok 2 no test hook in a production build's kernel/dma"
else
	echo "# found: $bad" | tr '\n' ' '
	echo
	echo "not ok 2 no test hook in a production build's kernel/dma"
fi
if [ $rc = 0 ] && strings "$build/kernel/dma/swiotlb.o" | grep -qx swiotlb_transparent; then
	echo "ok 3 a production build has the off switch swiotlb_transparent="
else
	echo "not ok 3 a production build has the off switch swiotlb_transparent="
fi
# The check itself: on the lab's build it must find every hook.
lab_found=$(found "$lab" | wc -l)
want=$(($(echo $hook_syms | wc -w) + $(echo $hook_strings | wc -w)))
echo "# the lab's build ($lab): $lab_found of $want hook names found"
if [ "$lab_found" -eq "$want" ]; then
	echo "ok 4 the same check finds every hook in the lab's build"
else
	echo "not ok 4 the same check finds every hook in the lab's build"
fi
# i386 with PAE: the slot's size assertion compiles, and swiotlb is built.
i386=$out/i386-pae-production
rc=0
(export ARCH=i386
	kdma "$i386" "$out/i386-build.log" \
		"$here/../kconfig-fragments/production-i386/i386-pae.config") || rc=$?
if [ $rc = 0 ] && [ -f "$i386/kernel/dma/swiotlb.o" ]; then
	echo "ok 5 kernel/dma builds for i386 with PAE, a slot no larger than 6.1's"
else
	grep -m3 -B2 -A3 'error' "$out/i386-build.log" | sed 's/^/# /' || true
	[ -f "$i386/kernel/dma/swiotlb.o" ] || echo "# no kernel/dma/swiotlb.o"
	echo "not ok 5 kernel/dma builds for i386 with PAE, a slot no larger than 6.1's"
fi
