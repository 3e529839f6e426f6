#!/bin/sh
# Boot the guest once per entry of BOOTS and judge every run: a hung guest,
# a kernel oops or a guest that stopped early fails with the console tail;
# the KTAP each guest wrote (plus any host-side KTAP files) is parsed by the
# kernel's own kunit.py.  Ends with the line "N passed, N failed" and exits
# non-zero on any failure.
#
# usage: run.sh BZIMAGE INITRAMFS DISK LOGDIR KSRC [HOST.ktap...]
# env:   BOOTS   boots to run, ";"-separated "NAME:KERNEL ARGS" (default
#                "matrix:"); each logs to LOGDIR/NAME/
#        BOOT_ARGS (added to every boot), BOOT_TIMEOUT, QEMU_ACCEL,
#        EXTRA_FATAL (more console patterns that fail a boot, e.g. WARNING:)
set -eu
kernel=$1 initrd=$2 disk=$3 logdir=$4 ksrc=$5
shift 5
here=$(dirname "$0")
oops='Kernel panic|Oops|BUG:|general protection fault|kernel BUG at|UBSAN:|KASAN:'
oops="$oops${EXTRA_FATAL:+|$EXTRA_FATAL}"

show_tail() {
	echo "---- last 40 lines of $console ----"
	tail -n 40 "$console" 2>/dev/null || echo "(no console output)"
}

# boot NAME ARGS: run one guest; print why it failed, if it did.
boot() {
	dir=$logdir/$1 console=$logdir/$1/console.log
	start=$(date +%s)
	rc=0
	# shellcheck disable=SC2086 # kernel parameters are a list
	"$here/../guest/run-qemu.sh" "$kernel" "$initrd" "$disk" "$dir" $2 ${BOOT_ARGS:-} || rc=$?
	echo "boot $1 ran $(($(date +%s) - start)) s (QEMU exit status $rc); logs in $dir"
	if grep -qE "$oops" "$console" 2>/dev/null; then
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

passed=0 failed=0 skipped=0
IFS=';'
set -f
for b in ${BOOTS:-matrix:}; do
	unset IFS
	name=${b%%:*}
	boot "$name" "${b#*:}" || failed=$((failed + 1))
	[ -e "$logdir/$name/ktap.log" ] || continue
	parse "$logdir/$name/ktap.log"
	# kunit.py shows only verdicts: also show the swiotlb suites' per-policy
	# outcome table and fuzzer counts, which are the point of them.
	grep -hE '# [a-z0-9_]+: (s[0-9]-[a-z0-9-]+: legacy=|fuzz policy=)' "$logdir/$name/ktap.log" |
		sed 's/^ *# [a-z0-9_]*: /  /' || true
	IFS=';'
done
unset IFS
set +f
for ktap in "$@"; do
	parse "$ktap"
done

if [ "$skipped" -gt 0 ]; then
	echo "$passed passed, $failed failed, $skipped skipped"
else
	echo "$passed passed, $failed failed"
fi
[ "$failed" -eq 0 ]
