#!/bin/sh
# Boot the guest once per entry of BOOTS, several at once, then have
# tests/judge.py judge every boot (a hung guest, a kernel oops, a guest
# that stopped early, an expected crash, every observation against
# tests/expected.tsv) and the host-side KTAP files.  Ends with the judge's
# line "N passed, N failed" and exits non-zero on any failure.
#
# usage: run.sh BZIMAGE INITRAMFS DISK LOGDIR KSRC [HOST.ktap...]
# env:   BOOTS   boots to run, ";"-separated "NAME:KERNEL ARGS" (default
#                "matrix:"); each logs to LOGDIR/NAME/ (console.log: the
#                kernel log; guest.log: what the plan reported; ktap.log:
#                the judged KTAP)
#        BOOT_JOBS  boots run at once (default: the number of CPUs; each
#                guest has one vCPU).  They start longest first (by the
#                time each took last run, LOGDIR/NAME/seconds); the
#                verdicts come in BOOTS order.
#        EXPECTED (default tests/expected.tsv), REPORT (default
#                LOGDIR/../report.md: the comparison table)
#        HOST_CHECKS  a shell command run beside the boots (the Makefile's
#                host-side checks, which write the HOST.ktap files);
#                judging waits for it
#        COMPLETE=1  BOOTS are the whole suite: every cell of EXPECTED
#                must be judged (judge.py --complete)
#        BOOT_ARGS (added to every boot), BOOT_TIMEOUT, QEMU_ACCEL,
#        EXTRA_FATAL (more console patterns that fail a boot, e.g. WARNING:)
#        CHECKS_CACHE=off, BOOTS_CACHE=off  boot every guest, even one
#                whose inputs are those of its last passing boot (see
#                below); BOOTS_CACHE=off alone keeps the host checks
#
# A boot whose inputs (kernel, initramfs, disk images, QEMU and its command
# line, the boot's arguments) are those of its last boot that passed is
# not run again: its logs are judged again as they are, by today's judge
# and expected table, the way tests/cached.sh keeps a host check.
set -eu
kernel=$1 initrd=$2 disk=$3 logdir=$4 ksrc=$5
shift 5
here=$(dirname "$0")
mkdir -p "$logdir"

# run_boot NAME ARGS: one guest; its QEMU exit status goes to
# LOGDIR/NAME/qemu.rc, written last.
run_boot() {
	dir=$logdir/$1
	mkdir -p "$dir"
	start=$(date +%s) rc=0
	# In the background, for its pid: run-qemu.sh becomes timeout, which
	# passes a signal on to QEMU (see the trap below).
	# shellcheck disable=SC2086 # kernel parameters are a list
	"$here/../guest/run-qemu.sh" "$kernel" "$initrd" "$disk" "$dir" $2 ${BOOT_ARGS:-} \
		</dev/null >"$dir/qemu.out" 2>&1 &
	echo $! >"$dir/pid"
	wait $! || rc=$?
	rm -f "$dir/pid"
	echo $(($(date +%s) - start)) >"$dir/seconds"
	echo $rc >"$dir/qemu.rc.tmp"
	mv "$dir/qemu.rc.tmp" "$dir/qemu.rc"
}

# What every boot's logs depend on, as one hash: the images it boots and
# reads, how QEMU is started, and which QEMU.  The disk images are named
# by size and time: make rewrites them only when their inputs change.
common_key=$({
	sha1sum "$kernel" "$initrd" "$here/../guest/run-qemu.sh"
	stat -c '%n %s %Y' "$(dirname "$disk")"/*.img
	env | grep -E '^(BOOT_ARGS|BOOT_TIMEOUT|QEMU_[A-Z_]*)=' | LC_ALL=C sort
	qemu-system-x86_64 --version | head -n 1
} | sha1sum | cut -c1-40)

# boot_key NAME ARGS: the key of one boot.
boot_key() {
	echo "$common_key $1 $2" | sha1sum | cut -c1-40
}

# cached NAME KEY: did the last boot of NAME with KEY pass?
cached() {
	[ "${BOOTS_CACHE:-${CHECKS_CACHE:-on}}" != off ] && [ -f "$logdir/$1/passed" ] &&
		[ "$(cat "$logdir/$1/boot.key" 2>/dev/null)" = "$2" ] &&
		[ -f "$logdir/$1/qemu.rc" ]
}

host=
if [ -n "${HOST_CHECKS:-}" ]; then
	sh -c "$HOST_CHECKS" </dev/null &
	host=$!
fi

# The boots, one "NAME:ARGS" a line (names trimmed).
list=$(echo "${BOOTS:-matrix:}" | tr ';' '\n' | sed -e '/^[[:space:]]*$/d' \
	-e 's/^[[:space:]]*//' -e 's/^\([^:[:space:]]*\)[[:space:]]*:/\1:/')
names=$(echo "$list" | cut -d: -f1)
torun=
for name in $names; do
	entry=$(echo "$list" | grep -m1 "^$name:")
	key=$(boot_key "$name" "${entry#*:}")
	rm -f "$logdir/$name/ktap.log" "$logdir/$name/cells.json"
	if cached "$name" "$key"; then
		echo "boot $name: not run again: its inputs are those of its boot that passed at" \
			"$(date -r "$logdir/$name/passed" '+%F %T') (CHECKS_CACHE=off boots it)"
		continue
	fi
	rm -f "$logdir/$name/qemu.rc" "$logdir/$name/console.log" "$logdir/$name/guest.log" \
		"$logdir/$name/pid" "$logdir/$name/passed" "$logdir/$name/qemu-reset.log"
	mkdir -p "$logdir/$name"
	echo "$key" >"$logdir/$name/boot.key"
	torun="$torun $name"
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
order=$(for name in $torun; do
	echo "$(cat "$logdir/$name/seconds" 2>/dev/null || echo 1000000) $name"
done | sort -s -k1,1nr | cut -d' ' -f2)
(
	for name in $order; do
		read -r _ <&4
		entry=$(echo "$list" | grep -m1 "^$name:")
		# The slot goes back whatever happens to the boot (a boot that
		# could not run has no qemu.rc, which the judge fails).
		{ run_boot "$name" "${entry#*:}" || true; echo >&4; } &
	done
	wait
) &
launcher=$!
# Interrupted: stop the launcher and every guest still running (each in a
# process group of timeout's own, which a terminal's ^C does not reach),
# and judge nothing.
stop() {
	kill $launcher 2>/dev/null || true
	for name in $names; do
		pid=$(cat "$logdir/$name/pid" 2>/dev/null) && kill "$pid" 2>/dev/null || true
	done
	echo "error: interrupted; the boots still running were stopped" >&2
	exit 130
}
trap stop INT TERM

wait $launcher || true
exec 4>&-
# Host checks that could not run leave their KTAP files as they were: a
# failure of its own, whatever those say.
host_rc=0
[ -z "$host" ] || wait $host || host_rc=$?
if [ $host_rc -ne 0 ]; then
	echo "error: the host-side checks failed to run (exit status $host_rc)"
	printf 'KTAP version 1\n1..1\nnot ok 1 the host-side checks ran (exit status %s)\n' \
		$host_rc >"$logdir/host-checks.ktap"
	set -- "$@" "$logdir/host-checks.ktap"
fi
complete=
[ "${COMPLETE:-}" != 1 ] || complete=--complete

status=0
# shellcheck disable=SC2086 # names are words
python3 "$here/judge.py" run "$logdir" "${EXPECTED:-$here/expected.tsv}" "$ksrc" \
	"${REPORT:-$(dirname "$logdir")/report.md}" "$ksrc.version" $names $complete --host "$@" ||
	status=$?
# A boot the judge passed may be kept next time (see cached above).
for name in $names; do
	if [ -s "$logdir/$name/ktap.log" ] && ! grep -q '^ *not ok' "$logdir/$name/ktap.log"; then
		[ -f "$logdir/$name/passed" ] || touch "$logdir/$name/passed"
	else
		rm -f "$logdir/$name/passed"
	fi
done
exit $status
