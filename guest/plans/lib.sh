# Helpers shared by /init and the guest plans (sourced, not run: not executable).
KNOB=/sys/kernel/debug/swiotlb/policy
USED=/sys/kernel/debug/swiotlb/io_tlb_used
n=0

result() { # ok|"not ok", name, diagnostic...
	n=$((n + 1))
	res=$1 name=$2
	shift 2
	for d in "$@"; do echo "# $name: $d"; done
	echo "$res $n $name"
}

active() { sed -n 's/.*\[\([^]]*\)\].*/\1/p' "$KNOB"; }

# load_driver KO [PARAM...]: load it (it runs at probe time), print its
# result lines, unload it.  (Called in $(...): the load counter lives in a
# file, not a variable.)
load_driver() {
	ko=$1
	shift
	mark=$(($(cat /tmp/mark 2>/dev/null || echo 0) + 1))
	echo $mark >/tmp/mark
	echo "bouncelab: load $mark" >/dev/kmsg
	insmod "/modules/$ko" "$@" 2>/tmp/insmod.err || return 1
	dmesg | sed -n "/bouncelab: load $mark\$/,\$p" | grep 'bouncelab: result' |
		sed 's/.*bouncelab: result //'
	rmmod "$ko"
}

# marker_disk: /dev/NAME of the S1 disk (marker 0xa5, virtio-scsi), or
# nothing.  Not simply sda: the drivers boot adds more SCSI disks.
marker_disk() {
	for b in /sys/block/sd*; do
		case $(readlink -f "$b") in */virtio*) echo "/dev/${b##*/}" && return ;; esac
	done
}

# field NAME LINE: the value of NAME=value in a result line.
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# kunit_results SUITE N [LOG]: the results of a KUnit suite that has run,
# as test N of this document.  6.1's debugfs copy keeps only the last
# parameter of a parameterised case, so the suite's KTAP is taken from the
# kernel log (LOG, a saved dmesg, or dmesg itself; timestamps dropped, other
# kernel messages left out: KUnit indents all but its last line); debugfs
# (header dropped, last line renumbered) only if the log lost it.
kunit_results() {
	{ if [ -n "${3:-}" ]; then cat "$3"; else dmesg; fi; } |
		sed 's/^\[[ 0-9.]*\] //' | awk -v s="$1" -v n="$2" '
		$0 == "    # Subtest: " s { on = 1; out = "    KTAP version 1\n" $0 "\n"; next }
		on && /^(not )?ok [0-9]+ / && ($3 == s || $4 == s) {
			sub(/ok [0-9]+ /, "ok " n " "); res = out $0; on = 0; next }
		on && /^    ./ { out = out $0 "\n" }
		END { if (res == "") exit 1; print res }' ||
	sed -e '1,2d' -e "\$s/^\(\(not \)\?ok\) 1 /\1 $2 /" "/sys/kernel/debug/kunit/$1/results"
}
