#!/bin/sh
# Boot the guest once and judge the run: a hung guest, a kernel oops or a
# guest that stopped early fails with the console tail; the KTAP it wrote
# (plus any host-side KTAP files) is parsed by the kernel's own kunit.py.
# Ends with the line "N passed, N failed" and exits non-zero on any failure.
#
# usage: run.sh BZIMAGE INITRAMFS DISK LOGDIR KSRC [HOST.ktap...]
# env:   BOOT_ARGS (extra kernel command line), BOOT_TIMEOUT, QEMU_ACCEL
set -eu
kernel=$1 initrd=$2 disk=$3 logdir=$4 ksrc=$5
shift 5
here=$(dirname "$0")
console=$logdir/console.log

show_tail() {
	echo "---- last 40 lines of $console ----"
	tail -n 40 "$console" 2>/dev/null || echo "(no console output)"
	echo "---- full log: $console ----"
}

guest_failed=0
start=$(date +%s)
rc=0
# shellcheck disable=SC2086 # BOOT_ARGS is a list of kernel parameters
"$here/../guest/run-qemu.sh" "$kernel" "$initrd" "$disk" "$logdir" ${BOOT_ARGS:-} || rc=$?
echo "guest ran $(($(date +%s) - start)) s (QEMU exit status $rc); logs in $logdir"

oops='Kernel panic|Oops|BUG:|general protection fault|kernel BUG at|UBSAN:|KASAN:'
if grep -qE "$oops" "$console" 2>/dev/null; then
	echo "error: the guest kernel crashed:"
	grep -nE -A25 "$oops" "$console" | head -n 60
	echo "---- full log: $console ----"
	guest_failed=1
elif [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
	echo "error: the guest hung: no shutdown within ${BOOT_TIMEOUT:-900} s"
	show_tail
	guest_failed=1
elif ! grep -q 'bouncelab: done' "$console" 2>/dev/null; then
	echo "error: the guest stopped before finishing its plan (QEMU exit status $rc)"
	show_tail
	guest_failed=1
fi

# count WHAT: WHAT's number in kunit.py's summary line, 0 if absent.
count() {
	v=$(echo "$summary" | sed -n "s/.*$1: \([0-9]*\).*/\1/p")
	echo "${v:-0}"
}

passed=0 failed=$guest_failed skipped=0
for ktap in "$logdir/ktap.log" "$@"; do
	out=$logdir/$(basename "$ktap").parsed
	python3 "$ksrc/tools/testing/kunit/kunit.py" parse "$(realpath "$ktap")" >"$out" 2>&1 || true
	sed 's/^\[[0-9:]*\] //' "$out"
	summary=$(grep 'Testing complete' "$out" || true)
	if [ -z "$summary" ] || grep -q 'Could not find any KTAP output' "$out"; then
		echo "error: no KTAP results in $ktap"
		failed=$((failed + 1))
		continue
	fi
	passed=$((passed + $(count passed)))
	failed=$((failed + $(count failed) + $(count crashed) + $(count errors)))
	skipped=$((skipped + $(count skipped)))
done

if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
