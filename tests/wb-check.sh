#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Build swiotlb's transparent bounce core in user space (tools/testing/
# swiotlb of the patched tree) and run wb_check, its exhaustive check
# against R (the write-back-cache reference), coherent memory M and 6.1's
# copies, as KTAP: every sequence of up to DEPTH operations (each side
# writes fresh bytes, its own bytes again and the other side's bytes; the
# device also A-then-back) on a 2-line and (DEPTH 4 at most) a 3-line
# mapping, line-aligned and starting inside a line, then device writes
# landing inside every call (-i), a 5-line mapping (AVX2 takes four
# lines at a time) to depth 3, a 4-line one (one group) to DEPTH 4 with
# whole-line writes and ranges and a CPU write of all four lines (a
# group the asm writes back, in part or whole, must leave fingerprints
# that the next call can use), an 8-line one from the device (two
# groups: the loop goes on after a group's slow path), and a 2-line one
# from the device to depth 5 with whole-line writes and ranges (where
# the fingerprint refresh of a line whose copies agree shows); each in
# every pass (scalar, sse2, avx2: -p). A pass this CPU lacks keeps its
# cases in the plan, as SKIP. A vector pass must count exactly what the
# scalar one counts (the interleaved cases apart: a vector pass reads a
# line in fewer accesses, so fewer places for a write to land). Then
# each deliberately wrong variant must FAIL the counts it targets, or
# the oracle could not fail: ok means it failed.
#
# usage: wb-check.sh SRC OUTDIR [DEPTH]
# For another architecture (tests/wb-check-arm64.sh): WB_CC, the compiler
# (static binaries), WB_RUN, what runs them (qemu-user), WB_PASSES, the
# passes (default scalar sse2 avx2), WB_VARIANTS, the wrong variants
# (default all; a variant named neonX runs wb_check_neon_X, to its end:
# its fp_collisions is no count -e takes).
# Measured on 7 Dec 2026 14:31-14:50 with `/usr/bin/time sh
# tests/wb-check.sh SRC OUT 4` (c-patches through 0002), on this 2-core
# machine shared with three other agents' kernel builds, boots and
# qemu-user runs (load average 11.6 at the start, 7.4 at the end): 1118 s
# wall, 396 s of CPU, 40 cases ok. The wrong variants end at their first
# failing sequence (-e): norecover takes 9.9 s of CPU where its whole walk
# (549 million sequences) took 326 s. Idle, expect about 200 s (the runs
# two at a time, one per core).
set -eu
src=$1 out=$2 depth=${3:-4}
mkdir -p "$out"
out=$(realpath "$out")
run=${WB_RUN:-}
make -s -C "$src/tools/testing/swiotlb" OUTPUT="$out" \
	${WB_CC:+CC="$WB_CC" LDFLAGS=-static} >"$out/build.log" 2>&1 ||
	{ sed 's/^/# /' "$out/build.log"; echo "error: wb_check build failed" >&2; exit 1; }
check=$out/wb_check
d3=$((depth < 4 ? depth : 4))

shapes='-l 2 -d '$depth'
-l 2 -d '$depth' -o 8
-l 3 -d '$d3'
-l 3 -d '$d3' -o 8
-i -l 2 -d 3
-i -l 2 -d 3 -o 8
-l 5 -d 3
-l 4 -d '$d3' -w
-i -l 5 -d 2
-l 8 -d 3 -m FROM
-l 2 -d 5 -w -m FROM'
set --
nopass=
for pass in ${WB_PASSES:-scalar sse2 avx2}; do
	# A vector pass this CPU lacks (wb_check says so and exits 2 at once)
	# keeps its cases in the plan, as SKIP; any other failure of the
	# probe is a case's to show.
	if ! $run $check -p $pass -l 2 -d 1 >"$out/probe-$pass.log" 2>&1 &&
		[ $pass != scalar ] && grep -q "has no $pass pass" "$out/probe-$pass.log"; then
		nopass="$nopass $pass"
	fi
	while read -r shape; do
		set -- "$@" "$shape -p $pass"
	done <<EOT
$shapes
EOT
done
# The wrong variants: arguments, then the counts that must be non-zero.
# skiprefresh needs five operations (map, CPU write, the device writes
# the same bytes, hand-back, CPU write, hand-back) and both sides writing
# each other's bytes; nondirty needs a tight class (a).
variants="norecover:-v norecover -i -m FROM -w -d 5:recover_div
m:-v m -l 2 -d 3:regress_other
tworead:-v tworead -i -l 2 -d 2:regress_other
upstream:-v upstream -l 2 -d 3:r_div
skiprefresh:-v skiprefresh -l 2 -d 5 -w -m FROM:recover_div regress_other
nondirty:-v nondirty -l 2 -d 4 -m FROM:regress_other"
variants=${WB_VARIANTS:-$variants}

# skipped ARGS: is ARGS a case of a pass this CPU lacks?
skipped() {
	case " $nopass " in
	*" ${1##*-p } "*) return 0 ;;
	esac
	return 1
}

# The runs, one a line: LOG, then the command; the longest first.
runs() {
	# A variant's walk ends at its first sequence failing every count
	# it targets (-e): one is what shows the oracles can fail.
	echo "$variants" | while IFS=: read -r name args count; do
		bin=$check stop=$(printf ' -e %s' $count)
		case $name in
		neon*) bin=${check}_neon_${name#neon} stop= ;;
		esac
		# shellcheck disable=SC2086 # count: a list of names
		echo "$out/variant-$name.log $run $bin $args -n 1$stop"
	done
	i=0
	for args in "$@"; do
		i=$((i + 1))
		skipped "$args" || echo "$out/case$i.log $run $check $args"
	done
	echo "$out/fp4.log $run $out/wb_check_fp4 -l 2 -d 4"
}

# Two at a time, one per core: each run's output to LOG, its exit status
# to LOG.rc.
rm -f "$out"/*.log.rc
# shellcheck disable=SC2016 # expanded by the inner sh
runs "$@" | xargs -P 2 -L 1 sh -c \
	'log=$1; shift; rc=0; "$@" >"$log" 2>&1 || rc=$?; echo $rc >"$log.rc"' sh

nvar=$(echo "$variants" | wc -l)
echo "KTAP version 1"
echo "1..$(($# + nvar + 1))"
i=0
for args in "$@"; do
	i=$((i + 1))
	if skipped "$args"; then
		echo "ok $i wb_check $args # SKIP this CPU has no ${args##*-p } pass"
		continue
	fi
	sed 's/^\([^#]\)/# \1/' "$out/case$i.log"
	# The counts, without the pass and the time.
	counts=$(tail -n 1 "$out/case$i.log" | sed -n 's/.* pass [a-z0-9]*: \(.*\), [0-9.]* s$/\1/p')
	same=yes
	case $args in
	*-i*) ;;
	*-p\ scalar) eval "counts_$(echo "$args" | tr -c 'a-z0-9\n' _)=\$counts" ;;
	*)
		key=$(echo "${args% -p *} -p scalar" | tr -c 'a-z0-9\n' _)
		eval "[ \"\$counts\" = \"\${counts_$key:-}\" ]" || same=no ;;
	esac
	# wb_check's own verdict (exit 0: every count that must be 0 is),
	# and its last line must say so.
	rc=$(cat "$out/case$i.log.rc" 2>/dev/null || echo missing)
	if [ "$rc" = 0 ] && [ -n "$counts" ] && [ $same = yes ] &&
		tail -n 1 "$out/case$i.log" | grep -q ' r_div 0, recover_div 0, regress_other 0,.* guard 0, id_bug 0,.* fp_collisions 0,'; then
		echo "ok $i wb_check $args"
	elif [ "$rc" != 0 ]; then
		echo "not ok $i wb_check $args # exit status $rc"
	elif [ $same = no ]; then
		echo "not ok $i wb_check $args # counts differ from the scalar pass's"
	else
		echo "not ok $i wb_check $args"
	fi
done
echo "$variants" | while IFS=: read -r name args count; do
	i=$((i + 1))
	tail -n 1 "$out/variant-$name.log" | sed 's/^/# /'
	# A wrong variant must fail each of its counts, and wb_check must say
	# so (exit 1).
	ok=yes said=
	for c in $count; do
		n=$(tail -n 1 "$out/variant-$name.log" | sed -n "s/.* $c \([0-9]*\),.*/\1/p")
		[ "${n:-0}" -gt 0 ] || ok=no
		said="$said $c (${n:-?})"
	done
	if [ $ok = yes ] && [ "$(cat "$out/variant-$name.log.rc")" = 1 ]; then
		echo "ok $i wb_check -v $name fails$said"
	else
		echo "not ok $i wb_check -v $name fails$said"
	fi
done
# The same code with a 4-bit fingerprint: its collisions (a device write
# that looks like none, a CPU write hidden in DEV state) must show in the
# counts, and stay rare.
i=$(($# + nvar + 1))
tail -n 1 "$out/fp4.log" | sed 's/^/# /'
seqs=$(tail -n 1 "$out/fp4.log" | sed -n 's/.* sequences \([0-9]*\),.*/\1/p')
bad=$(tail -n 1 "$out/fp4.log" | sed -n 's/.* r_div \([0-9]*\),.* regress_other \([0-9]*\),.*/\1 + \2/p')
bad=$((${bad:-0}))
# (It exits 1: collisions are counted as failures.)
if [ "$(cat "$out/fp4.log.rc")" = 1 ] && [ "$bad" -gt 0 ] && [ "$bad" -le $((${seqs:-0} / 1000)) ]; then
	echo "ok $i wb_check_fp4: collisions of a 4-bit fingerprint show ($bad of $seqs sequences) and stay below 1/1000"
else
	echo "not ok $i wb_check_fp4: collisions of a 4-bit fingerprint show and stay below 1/1000 ($bad of ${seqs:-?})"
fi
