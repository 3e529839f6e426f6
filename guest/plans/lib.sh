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

# field NAME LINE: the value of NAME=value in a result line.
field() { echo "$2" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# kunit_results SUITE N: the results of a KUnit suite that has run (a KTAP
# document of its own, in debugfs) as test N of this document: its header
# dropped, its last line renumbered.
kunit_results() {
	sed -e '1,2d' -e "\$s/^\(\(not \)\?ok\) 1 /\1 $2 /" "/sys/kernel/debug/kunit/$1/results"
}
