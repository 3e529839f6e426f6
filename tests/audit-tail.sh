#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The premise of the audit boot's sibling-call cases
# (samples/dma/dma_audit_tail.c, run by guest/plans/audit): in the built
# object, each case's function dat_CASE ends in a jmp, not a call, to the
# DMA API entry it uses (the *_ip variant that takes the call site), and
# passes it an address inside dat_CASE itself, taken by asm (a lea of its
# own code).  If the compiler stopped making the sibling call, the guest's
# checks could pass without testing anything.  The wrong variant's
# functions (dat_old_*, audit_wrong=tail in the guest) must jump too, to
# the entries that take their return address.  KTAP on standard output.
#
# usage: audit-tail.sh OBJ [wrong]
#   OBJ: samples/dma/dma_audit_tail.o in the build directory
#   wrong: hold each case's wrong-variant function to the case's rule,
#          as on a kernel without the call site taken in the caller
#          (every case must fail)
set -eu
obj=$1 wrong=${2:-}
dis=$(objdump -dr --no-show-raw-insn "$obj")

# CASE ENTRY OLD: the case, the entry its function must jump to (plus
# _ip), and its wrong variant's function (dat_old_OLD, jumping to OLD).
cases='sync_single_for_cpu dma_sync_single_for_cpu sync_single_for_cpu
sync_single_for_device dma_sync_single_for_device sync_single_for_device
sync_single_range_for_cpu dma_sync_single_for_cpu sync_single_for_cpu
sync_single_range_for_device dma_sync_single_for_device sync_single_for_device
sync_sg_for_cpu dma_sync_sg_for_cpu sync_sg_for_cpu
sync_sg_for_device dma_sync_sg_for_device sync_sg_for_device
sync_sgtable_for_cpu dma_sync_sg_for_cpu sync_sg_for_cpu
sync_sgtable_for_device dma_sync_sg_for_device sync_sg_for_device
unmap_single dma_unmap_page_attrs unmap_page
unmap_page dma_unmap_page_attrs unmap_page
unmap_sg dma_unmap_sg_attrs unmap_sg
unmap_sgtable dma_unmap_sg_attrs unmap_sg'
olds='sync_single_for_cpu dma_sync_single_for_cpu
sync_single_for_device dma_sync_single_for_device
sync_sg_for_cpu dma_sync_sg_for_cpu
sync_sg_for_device dma_sync_sg_for_device
unmap_page dma_unmap_page_attrs
unmap_sg dma_unmap_sg_attrs'

# facts FUNCTION TARGET: "insns=N jmp=N call=N lea=N" for FUNCTION's body:
# its instructions, the jumps and calls relocated to TARGET, and the
# rip-relative leas of an address inside FUNCTION.
facts() {
	printf '%s\n' "$dis" | awk -v f="$1" -v t="$2" '
		$0 ~ "^[0-9a-f]+ <" f ">:$" { on = 1; next }
		!on { next }
		/^$/ { exit }
		$2 ~ /^R_X86_64_/ {
			if ($2 ~ /^R_X86_64_(PLT|PC)32$/ && $3 == t "-0x4") {
				if (op == "jmp") jmp++
				if (op == "call") call++
			}
			next
		}
		/^[ \t]+[0-9a-f]+:[ \t]/ {
			insns++
			op = $2
			if ($0 ~ /lea[ \t].*\(%rip\),%[a-z0-9]+[ \t]+# [0-9a-f]+ </ &&
			    ($0 ~ "<" f ">$" || $0 ~ "<" f "\\+0x[0-9a-f]+>$"))
				lea++
		}
		END { printf "insns=%d jmp=%d call=%d lea=%d\n", insns, jmp, call, lea }'
}

n=0 failed=0
# report OK NAME FACTS
report() {
	n=$((n + 1))
	if [ "$1" = 1 ]; then
		echo "ok $n $2"
	else
		echo "# $3"
		echo "not ok $n $2"
		failed=1
	fi
}

echo "KTAP version 1"
echo "1..$(($(echo "$cases" | wc -l) + $(echo "$olds" | wc -l)))"
echo "$cases" | {
	while read -r c entry old; do
		fn=dat_$c
		[ -z "$wrong" ] || fn=dat_old_$old
		f=$(facts "$fn" "${entry}_ip")
		ok=0
		case $f in
		insns=0\ *) ;;
		*jmp=1\ call=0\ lea=[1-9]*) ok=1 ;;
		esac
		report $ok "$fn jumps to ${entry}_ip with an address of its own" \
			"$fn -> ${entry}_ip: $f"
	done
	echo "$olds" | {
		while read -r old entry; do
			fn=dat_old_$old
			f=$(facts "$fn" "$entry")
			ok=0
			case $f in
			insns=0\ *) ;;
			*jmp=1\ call=0\ *) ok=1 ;;
			esac
			report $ok "$fn (wrong variant) jumps to $entry" "$fn -> $entry: $f"
		done
		[ $failed = 0 ]
	}
}
