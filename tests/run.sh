#!/bin/sh
# Boot the guest once per entry of BOOTS and judge every run: a hung guest,
# a kernel oops or a guest that stopped early fails with the console tail;
# the KTAP each guest wrote (plus any host-side KTAP files) is parsed by the
# kernel's own kunit.py.  Ends with the line "N passed, N failed" and exits
# non-zero on any failure.  A guest that prints "bouncelab: expect crash:
# PATTERN" (guest/plans/baddir) must crash with PATTERN instead: the runner
# judges that crash and writes the boot's KTAP itself.
#
# usage: run.sh BZIMAGE INITRAMFS DISK LOGDIR KSRC [HOST.ktap...]
# env:   BOOTS   boots to run, ";"-separated "NAME:KERNEL ARGS" (default
#                "matrix:"); each logs to LOGDIR/NAME/
#        BOOT_JOBS  boots run at once (default: the number of CPUs; each
#                guest has one vCPU).  They start longest first (by the
#                time each took last run, LOGDIR/NAME/seconds), but their
#                output and verdicts are printed in BOOTS order.
#        HOST_CHECKS  a shell command run beside the boots (the Makefile's
#                host-side checks, which write the HOST.ktap files);
#                judging waits for it
#        BOOT_ARGS (added to every boot), BOOT_TIMEOUT, QEMU_ACCEL,
#        EXTRA_FATAL (more console patterns that fail a boot, e.g. WARNING:)
set -eu
kernel=$1 initrd=$2 disk=$3 logdir=$4 ksrc=$5
shift 5
here=$(dirname "$0")
# Out of memory too: 6.1's KUnit then reports cases it could not start as ok.
oops='Kernel panic|Oops|BUG:|general protection fault|kernel BUG at|UBSAN:|KASAN:|Out of memory'
oops="$oops${EXTRA_FATAL:+|$EXTRA_FATAL}"

show_tail() {
	echo "---- last 40 lines of $console ----"
	tail -n 40 "$console" 2>/dev/null || echo "(no console output)"
}

# expected_crash NAME PATTERN: KTAP for a boot that announced a crash: it
# must crash with PATTERN, and no swiotlb function may be on the stack.
expected_crash() {
	# (The announcement itself contains the pattern: skip it.)
	log=$(grep -v 'bouncelab: expect crash' "$console")
	trace=$(echo "$log" | awk -v p="$2" 'index($0, p) { on = 1 } on { print }
		on && /end trace|Kernel panic/ { exit }')
	before=$(echo "$log" | awk -v p="$2" 'index($0, p) { exit } { print }' | grep -E "$oops")
	echo "KTAP version 1"
	echo "1..1"
	if [ -n "$before" ]; then
		echo "# another problem came first:"
		echo "$before" | head -n 5 | sed 's/^/# /'
		echo "not ok 1 $1 crashes where expected"
	elif [ -z "$trace" ]; then
		echo "# the guest expected '$2' but did not crash with it; it said:"
		grep -h '^#' "$dir/guest-ktap.log" 2>/dev/null | head -n 10
		echo "# last console lines:"
		tail -n 10 "$console" | sed 's/^/# /'
		echo "not ok 1 $1 crashes where expected"
	elif echo "$trace" | grep -q swiotlb; then
		echo "# swiotlb is on the crash's stack:"
		echo "$trace" | sed 's/^/# /'
		echo "not ok 1 $1 crashes where expected"
	else
		echo "$trace" | grep -E "$2|RIP:|Call Trace|^[^a-z]*[a-z_]+\+0x" |
			sed -e 's/^\[ *[0-9.]*\] //' -e 's/^/# /' | head -n 12
		echo "ok 1 $1 crashes where expected"
	fi
}

# boot NAME ARGS: run one guest; print why it failed, if it did.
boot() {
	dir=$logdir/$1 console=$logdir/$1/console.log
	start=$(date +%s)
	rc=0
	# shellcheck disable=SC2086 # kernel parameters are a list
	"$here/../guest/run-qemu.sh" "$kernel" "$initrd" "$disk" "$dir" $2 ${BOOT_ARGS:-} || rc=$?
	echo "boot $1 ran $(($(date +%s) - start)) s (QEMU exit status $rc); logs in $dir"
	expect=$(sed -n 's/.*bouncelab: expect crash: //p' "$console" 2>/dev/null | head -n 1 | tr -d '\r')
	if [ -n "$expect" ] && [ "$rc" -ne 124 ] && [ "$rc" -ne 137 ]; then
		mv "$dir/ktap.log" "$dir/guest-ktap.log" 2>/dev/null || true
		expected_crash "$1" "$expect" >"$dir/ktap.log"
		return 0
	elif grep -qE "$oops" "$console" 2>/dev/null; then
		echo "error: the guest kernel crashed or reported a problem in boot $1:"
		grep -nE -A25 "$oops" "$console" | head -n 60
	elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
		echo "error: boot $1 hung: no shutdown within ${BOOT_TIMEOUT:-900} s"
		show_tail
	elif ! grep -q 'bouncelab: done' "$console" 2>/dev/null; then
		echo "error: boot $1 stopped before finishing its plan (QEMU exit status $rc)"
		show_tail
	else
		return 0
	fi
	echo "---- full log: $console ----"
	return 1
}

# count WHAT: WHAT's number in kunit.py's summary line, 0 if absent.
count() {
	v=$(echo "$summary" | sed -n "s/.*$1: \([0-9]*\).*/\1/p")
	echo "${v:-0}"
}

# parse KTAP: print kunit.py's verdicts and add them to the totals.
parse() {
	out=$1.parsed
	python3 "$ksrc/tools/testing/kunit/kunit.py" parse "$(realpath "$1")" >"$out" 2>&1 || true
	sed 's/^\[[0-9:]*\] //' "$out"
	summary=$(grep 'Testing complete' "$out" || true)
	if [ -z "$summary" ] || grep -q 'Could not find any KTAP output' "$out"; then
		echo "error: no KTAP results in $1"
		failed=$((failed + 1))
		return
	fi
	passed=$((passed + $(count passed)))
	failed=$((failed + $(count failed) + $(count crashed) + $(count errors)))
	skipped=$((skipped + $(count skipped)))
}

# run_boot NAME ARGS: boot it, judge it; its report goes to LOGDIR/NAME/run.out
# and its status to LOGDIR/NAME/run.rc, written last (the main loop waits
# for that file).
run_boot() {
	mkdir -p "$logdir/$1"
	start=$(date +%s) rc=0
	boot "$1" "$2" >"$logdir/$1/run.out" 2>&1 </dev/null || rc=$?
	echo $(($(date +%s) - start)) >"$logdir/$1/seconds"
	echo $rc >"$logdir/$1/run.rc.tmp"
	mv "$logdir/$1/run.rc.tmp" "$logdir/$1/run.rc"
}

host=
if [ -n "${HOST_CHECKS:-}" ]; then
	sh -c "$HOST_CHECKS" </dev/null &
	host=$!
fi

# The boots, one "NAME:ARGS" a line (names trimmed).
list=$(echo "${BOOTS:-matrix:}" | tr ';' '\n' | sed -e '/^[[:space:]]*$/d' -e 's/^[[:space:]]*//' \
	-e 's/^\([^:[:space:]]*\)[[:space:]]*:/\1:/')
names=$(echo "$list" | cut -d: -f1)
for name in $names; do
	rm -f "$logdir/$name/run.rc" "$logdir/$name/run.out"
done

# Job slots: a pipe holding one token per slot; a boot takes one to start
# and gives it back when it is done.
jobs=${BOOT_JOBS:-$(nproc)}
slots=$(mktemp -u "${TMPDIR:-/tmp}/bouncelab-slots.XXXXXX")
mkfifo "$slots"
exec 4<>"$slots"
rm -f "$slots"
i=0
while [ $i -lt "$jobs" ]; do
	echo >&4
	i=$((i + 1))
done
# Longest first: the seconds each boot took last time (never run: first).
order=$(for name in $names; do
	echo "$(cat "$logdir/$name/seconds" 2>/dev/null || echo 1000000) $name"
done | sort -s -k1,1nr | cut -d' ' -f2)
(
	for name in $order; do
		read -r _ <&4
		entry=$(echo "$list" | grep -m1 "^$name:")
		{ run_boot "$name" "${entry#*:}"; echo >&4; } &
	done
	wait
) &
launcher=$!
trap 'kill $launcher 2>/dev/null || true' INT TERM

passed=0 failed=0 skipped=0
for name in $names; do
	while [ ! -e "$logdir/$name/run.rc" ]; do
		if ! kill -0 $launcher 2>/dev/null && [ ! -e "$logdir/$name/run.rc" ]; then
			echo "error: boot $name never reported (the boot launcher is gone)"
			echo 1 >"$logdir/$name/run.rc"
			break
		fi
		sleep 0.2
	done
	cat "$logdir/$name/run.out" 2>/dev/null || true
	[ "$(cat "$logdir/$name/run.rc")" -eq 0 ] || failed=$((failed + 1))
	[ -e "$logdir/$name/ktap.log" ] || continue
	parse "$logdir/$name/ktap.log"
	# kunit.py shows only verdicts: also show the swiotlb suites' per-policy
	# outcome table and fuzzer counts, which are the point of them.
	grep -hE '# [a-z0-9_]+: (s[0-9]-[a-z0-9-]+ [a-z-]+: observed=|fuzz policy=|first (divergence|regression|guard damage):)' "$logdir/$name/ktap.log" |
		sed 's/^ *# [a-z0-9_]*: /  /' || true
done
wait $launcher || true
exec 4>&-
[ -z "$host" ] || wait $host || echo "error: the host-side checks failed to run"
for ktap in "$@"; do
	parse "$ktap"
done

if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
