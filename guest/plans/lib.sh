# Helpers shared by the guest plans (sourced, not run: not executable).
# What a plan writes (guest/plans/README): observations, judged on the host
# against tests/expected.tsv; the facts behind invariants (io_tlb_used came
# back, the knob refused garbage), judged on the host by tests/judge.py's
# CHECKS; and the KUnit suites' KTAP.
KNOB=/sys/kernel/debug/swiotlb/policy
USED=/sys/kernel/debug/swiotlb/io_tlb_used
EXPECTED=/expected.tsv
n=0

# result ok|"not ok" NAME [DIAG...]: one KTAP test, numbered in the
# document: only where a KUnit suite's own KTAP should have been (its
# module would not load).
result() {
	n=$((n + 1))
	res=$1 name=$2
	shift 2
	for d in "$@"; do echo "# $name: $d"; done
	echo "$res $n $name"
}

# observe KEY=VALUE...: one observation for the host's judge: a scenario's
# result line (scenario=, driver=, observed=, counts) plus the policy it
# ran under (policy= first, so that the line reads as a table cell).
observe() { echo "bouncelab: result $*"; }

# check ID KEY=VALUE... [-- LABEL]: the facts behind one invariant, ID of
# tests/judge.py's CHECKS, which decides whether it holds (values without
# spaces; LABEL, free text, names the test).  checks_planned N: this plan
# reports N checks, so a missing one fails.
check() { echo "bouncelab: check id=$*"; }
checks_planned() { echo "bouncelab: checks planned=$1"; }

# plan_cells POLICIES DRIVERS [ROUNDS]: tell the judge which cells of
# expected.tsv this boot will observe (every row of those drivers, under
# those policies, ROUNDS times each): any it does not is a failure.
plan_cells() { echo "bouncelab: cells policies=$(echo $1 | tr ' ' ,) drivers=$(echo $2 | tr ' ' ,) rounds=${3:-1}"; }

# rows DRIVER: the scenarios of that driver's rows in expected.tsv.
rows() { awk -F'\t' -v d="$1" '!/^#/ && NF > 2 && $2 == d { print $1 }' "$EXPECTED"; }

active() { sed -n 's/.*\[\([^]]*\)\].*/\1/p' "$KNOB"; }

# policy_list: the policies to run: bouncelab.policies=a,b, or every one the
# knob offers (the kernel's own as "upstream" when it has no knob).
policy_list() {
	if [ -n "${bl_policies:-}" ]; then
		echo "$bl_policies" | tr , ' '
	elif [ -e "$KNOB" ]; then
		tr -d '[]' <"$KNOB"
	else
		echo upstream
	fi
}

# kmod_args KO: the kernel command line's MODULE.PARAM=VALUE for KO, as
# insmod's PARAM=VALUE (the kernel leaves them to modprobe, and busybox's
# insmod does not read them; arm64: edu_poller.dma_bits=32).  A plan's own
# arguments, given after them, win.
kmod_args() {
	mod=$(basename "$1" .ko)
	for a in $(cat /proc/cmdline); do
		case $a in "$mod".*=*) echo "${a#"$mod".}" ;; esac
	done
}

# load_driver KO [PARAM...]: load it (it runs at probe time), print its
# result lines, unload it.  (Called in $(...): the load counter lives in a
# file, not a variable.)
load_driver() {
	ko=$1
	shift
	mark=$(($(cat /tmp/mark 2>/dev/null || echo 0) + 1))
	echo $mark >/tmp/mark
	echo "bouncelab: load $mark" >/dev/kmsg
	# shellcheck disable=SC2046 # kmod_args: a list
	insmod "/modules/$ko" $(kmod_args "$ko") "$@" 2>/tmp/insmod.err || return 1
	dmesg | sed -n "/bouncelab: load $mark\$/,\$p" | grep 'bouncelab: result' |
		sed 's/.*bouncelab: result //'
	rmmod "$ko"
}

# poller_rows POLICY COLUMN [PARAM...]: load the C poller with those
# parameters under POLICY (already selected), observe each of its rows of
# expected.tsv column COLUMN (its result lines say driver=c), and check
# that io_tlb_used came back after it unloaded: one check.
poller_rows() {
	pol=$1 col=$2
	shift 2
	before=$(settled_used)
	out=$(load_driver edu_poller.ko "$@") ||
		echo "# edu_poller.ko $* under $pol: $(tr '\n' ' ' </tmp/insmod.err)"
	for s in $(rows "$col"); do
		line=$(echo "$out" | grep -m1 "^driver=c scenario=$s ") &&
			observe "policy=$pol driver=$col ${line#driver=c }"
	done
	check io-tlb-restored built=1 used_before="$before" used_after="$(cat "$USED")" \
		-- "$col under $pol"
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

# settled_used: io_tlb_used once it has not moved for three readings 0.3 s
# apart (20 s at most). A scenario before may leave I/O in flight (the
# leak hunt kills its flooder mid-SG_IO; sg completes that request after
# the process is gone, holding its slots), and with SMP's tree RCU the
# release can wait more than one short pause.
settled_used() {
	prev='' i=0 cur='' same=0
	while [ $i -lt 60 ] && [ $same -lt 3 ]; do
		cur=$(cat "$USED")
		if [ "$cur" = "$prev" ]; then same=$((same + 1)); else same=0; fi
		prev=$cur i=$((i + 1))
		sleep 0.3
	done
	echo "$cur"
}

# kunit_results SUITE N [LOG]: the results of a KUnit suite that has run,
# as test N of this document.  6.1's debugfs copy keeps only the last
# parameter of a parameterised case, so the suite's KTAP is taken from the
# kernel log (LOG, a saved dmesg, or dmesg itself; timestamps dropped, other
# kernel messages left out: KUnit indents all but its last line); debugfs
# (header dropped, last line renumbered) only if the log lost it, and then
# saying so.
kunit_results() {
	{ if [ -n "${3:-}" ]; then cat "$3"; else dmesg; fi; } |
		sed 's/^\[[ 0-9.]*\] //' | awk -v s="$1" -v n="$2" '
		$0 == "    # Subtest: " s { on = 1; out = "    KTAP version 1\n" $0 "\n"; next }
		on && /^(not )?ok [0-9]+ / && ($3 == s || $4 == s) {
			sub(/ok [0-9]+ /, "ok " n " "); res = out $0; on = 0; next }
		on && /^    ./ { out = out $0 "\n" }
		END { if (res == "") exit 1; print res }' || {
		echo "# $1: KTAP from debugfs, the kernel log lost it (a parameterised case shows its last parameter only)"
		sed -e '1,2d' -e "\$s/^\(\(not \)\?ok\) 1 /\1 $2 /" "/sys/kernel/debug/kunit/$1/results"
	}
}
