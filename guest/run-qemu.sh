#!/bin/sh
# Boot the guest once: kernel log to LOGDIR/console.log, KTAP (the guest's
# second serial port) to LOGDIR/ktap.log.  TCG unless QEMU_ACCEL says
# otherwise; killed after BOOT_TIMEOUT seconds (exit status 124 then).
#
# Under TCG the guest runs with -icount shift=auto,sleep=off: virtual time
# jumps ahead while the guest sleeps, so edu's 100 ms (virtual) DMA delay
# costs no wall time (1,000 packets: 122 s without, 7 s with).  Set
# QEMU_ICOUNT= (empty) to run in real time, or to other -icount options.
# QEMU_MEM is the guest's memory in MiB (default 256; with more, swiotlb's
# pool may lie above edu's 28-bit DMA mask and the edu drivers fail to probe).
# QEMU_CONSOLE=stdio puts the console on this terminal instead of
# LOGDIR/console.log (`make shell`; Ctrl-A X quits QEMU); BOOT_TIMEOUT=0
# means no time limit.
#
# usage: run-qemu.sh BZIMAGE INITRAMFS DISK LOGDIR [EXTRA KERNEL ARGS...]
set -eu
kernel=$1 initrd=$2 disk=$3 logdir=$4
shift 4
mkdir -p "$logdir"
rm -f "$logdir/console.log" "$logdir/ktap.log"
accel=${QEMU_ACCEL:-tcg}
console=file:$logdir/console.log fg=
# On a terminal QEMU must stay in the foreground process group.
[ "${QEMU_CONSOLE:-}" = stdio ] && console=mon:stdio fg=--foreground
[ "$accel" = tcg ] && icount=${QEMU_ICOUNT-shift=auto,sleep=off} || icount=
exec timeout $fg --kill-after=5 "${BOOT_TIMEOUT:-900}" \
	qemu-system-x86_64 \
	-accel "$accel" ${icount:+-icount "$icount"} \
	-m "${QEMU_MEM:-256}" -nodefaults -display none -no-reboot \
	-kernel "$kernel" -initrd "$initrd" \
	-append "console=ttyS0 swiotlb=16384,force oops=panic panic=-1 $*" \
	-serial "$console" -serial "file:$logdir/ktap.log" \
	-device edu -device edu \
	-device virtio-scsi-pci,id=scsi0,disable-legacy=on,iommu_platform=on \
	-drive "file=$disk,format=raw,if=none,id=disk0,readonly=on" \
	-device scsi-hd,drive=disk0,bus=scsi0.0 \
	-net none
