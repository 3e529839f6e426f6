#!/bin/sh
# Boot the guest once: kernel log to LOGDIR/console.log, what the plan
# reports (the guest's second serial port) to LOGDIR/guest.log.  TCG unless
# QEMU_ACCEL says otherwise; killed after BOOT_TIMEOUT seconds (exit status 124 then).
#
# Under TCG the guest runs with -icount shift=auto,sleep=off: virtual time
# jumps ahead while the guest sleeps, so edu's 100 ms (virtual) DMA delay
# costs no wall time (1,000 packets: 122 s without, 7 s with).  Set
# QEMU_ICOUNT= (empty) to run in real time, or to other -icount options.
# QEMU_MEM is the guest's memory in MiB (default 256; with more, swiotlb's
# pool may lie above edu's 28-bit DMA mask and the edu drivers fail to probe).
# QEMU_CPU is the CPU model (default qemu64; make bench also uses max,
# which has ERMS, so the kernel's memcpy becomes rep movsb).
# QEMU_GDB=PORT opens QEMU's gdbstub on that TCP port and holds the guest
# until gdb continues it (tests/insn-trace.sh).
# QEMU_CONSOLE=stdio puts the console on this terminal instead of
# LOGDIR/console.log (`make shell`; Ctrl-A X quits QEMU); BOOT_TIMEOUT=0
# means no time limit.
#
# The kernel argument bouncelab.devices=drivers also adds the real devices
# of the drivers boot (guest/plans/drivers) at fixed PCI addresses the plan
# rebinds by: disks, each on its own scratch image next to DISK
# (drivers-*.img, made by the Makefile; the SCSI HBA also gets DISK itself,
# read-only, for S1), and pairs of NICs (joined by Unix datagram sockets
# LOGDIR/nicN.0 and LOGDIR/nicN.1).  The scratch images are opened
# with snapshot=on (writes go to a temporary overlay) and DISK read-only,
# so boots running at once, even two runs of the same boot, never share a
# writable image.  bouncelab.devices=census adds the census's devices
# instead (its own drivers-*.img).
#
# QEMU_ARCH=arm64 boots an arm64 kernel Image instead (make test-arm64,
# docs/arm64.md): qemu-system-aarch64 -M virt, QEMU_CPU default max
# (pauth-impdef=on: QEMU's own pointer-authentication hash, much cheaper
# to emulate than the architected one); the console on virt's PL011, the
# plan's report on a virtio console (/dev/hvc0: bouncelab.out=, read by
# guest/init), and edu with a 32-bit DMA mask and the C poller's to
# match (virt's RAM starts at 1 GiB, above edu's own 28 bits).
#
# usage: run-qemu.sh BZIMAGE INITRAMFS DISK LOGDIR [EXTRA KERNEL ARGS...]
set -eu
kernel=$1 initrd=$2 disk=$3 logdir=$4
shift 4
extra=
case " $* " in
*" bouncelab.devices=drivers "*)
	img=$(dirname "$disk")/drivers
	for d in virtio-blk nvme ahci megasas; do
		[ -f "$img-$d.img" ] || { echo "error: no $img-$d.img (make guest makes it)" >&2; exit 1; }
	done
	extra="-drive file=$img-virtio-blk.img,format=raw,if=none,id=vblk,cache=unsafe,snapshot=on
		-device virtio-blk-pci,drive=vblk,disable-legacy=on,iommu_platform=on,addr=0x10
		-drive file=$img-nvme.img,format=raw,if=none,id=nvm,cache=unsafe,snapshot=on
		-device nvme,drive=nvm,serial=bouncelab,addr=0x11
		-drive file=$img-ahci.img,format=raw,if=none,id=sata,cache=unsafe,snapshot=on
		-device ich9-ahci,id=ahci,addr=0x12 -device ide-hd,drive=sata,bus=ahci.0
		-device megasas,id=mega,addr=0x1b
		-drive file=$img-megasas.img,format=raw,if=none,id=megad,cache=unsafe,snapshot=on
		-device scsi-hd,drive=megad,bus=mega.0,scsi-id=0
		-drive file=$disk,format=raw,if=none,id=megam,readonly=on
		-device scsi-hd,drive=megam,bus=mega.0,scsi-id=1"
	# Two NICs of each model, at 0x13 and up, joined by two Unix datagram
	# sockets in LOGDIR (no host networking): QEMU's main loop delivers a
	# frame whenever it arrives, while the guest CPU runs its driver
	# anywhere, its receive poll too, as a real link does (over a hub a
	# frame reaches the receiver inside the sender's register write).
	slot=19 hub=0
	mkdir -p "$logdir"
	for nic in e1000 e1000e rtl8139 virtio-net-pci,disable-legacy=on,iommu_platform=on; do
		for end in 0 1; do
			rm -f "$logdir/nic$hub.$end"
			extra="$extra -netdev dgram,id=nic$hub.$end,local.type=unix,local.path=$logdir/nic$hub.$end,remote.type=unix,remote.path=$logdir/nic$hub.$((1 - end))
				-device $nic,netdev=nic$hub.$end,mac=52:54:00:b1:0$hub:0$end,addr=$(printf 0x%x $slot)"
			slot=$((slot + 1))
		done
		hub=$((hub + 1))
	done ;;
*" bouncelab.devices=census "*)
	# The census (guest/plans/hw.sh, docs/drivers.md): a disk of its own
	# behind each SCSI HBA, USB host controller, the SD host and the PC's
	# own IDE (PIIX3, 00:01.1), and NIC pairs as two functions of one slot.
	img=$(dirname "$disk")/drivers
	d() {	# d NAME: the drive NAME on its scratch image
		[ -f "$img-$1.img" ] || { echo "error: no $img-$1.img (make guest makes it)" >&2; exit 1; }
		extra="$extra -drive file=$img-$1.img,format=raw,if=none,id=$1,cache=unsafe,snapshot=on"
	}
	for hba in lsi53c895a:05:sym53c8xx am53c974:06:am53c974 pvscsi:07:pvscsi \
		megasas-gen2:08:megasas-gen2; do
		dev=${hba%%:*} rest=${hba#*:}
		name=${rest#*:}
		d "$name"
		extra="$extra -device $dev,id=hba$name,addr=0x${rest%%:*}
			-device scsi-hd,drive=$name,bus=hba$name.0,scsi-id=0"
	done
	for hc in qemu-xhci:0a:xhci-storage usb-ehci:0b:ehci-storage pci-ohci:0c:ohci-storage \
		piix3-usb-uhci:0d:uhci-storage; do
		dev=${hc%%:*} rest=${hc#*:}
		name=${rest#*:}
		d "$name"
		extra="$extra -device $dev,id=hc$name,addr=0x${rest%%:*}
			-device usb-storage,drive=$name,bus=hc$name.0,removable=off"
	done
	d xhci-uas
	d sdhci
	d ata-piix
	extra="$extra -device qemu-xhci,id=hcuas,addr=0x13
		-device usb-uas,id=uas,bus=hcuas.0
		-device scsi-hd,drive=xhci-uas,bus=uas.0,scsi-id=0,lun=0
		-device sdhci-pci,id=sdhci,addr=0x0e -device sd-card,drive=sdhci
		-device ide-hd,drive=ata-piix,bus=ide.0"
	# NIC pairs on datagram sockets, as in the drivers boot.
	slot=15 pair=0
	mkdir -p "$logdir"
	for nic in i82557b pcnet tulip vmxnet3; do
		for end in 0 1; do
			rm -f "$logdir/nic$pair.$end"
			extra="$extra -netdev dgram,id=nic$pair.$end,local.type=unix,local.path=$logdir/nic$pair.$end,remote.type=unix,remote.path=$logdir/nic$pair.$((1 - end))
				-device $nic,netdev=nic$pair.$end,mac=52:54:00:b2:0$pair:0$end,addr=$(printf 0x%x $slot).$end,multifunction=on"
		done
		slot=$((slot + 1)) pair=$((pair + 1))
	done ;;
esac
# bouncelab.smp=2: two vCPUs, each on a host thread of its own (QEMU's
# multi-threaded TCG, which -icount excludes: this boot runs in real time).
# Two sockets: without ACPI the guest finds its CPUs in SeaBIOS's MP table,
# which lists one per socket.
smp=
case " $* " in
*" bouncelab.smp=2 "*) smp="-smp cpus=2,sockets=2" ;;
esac
# bouncelab.iommu=1: the q35 machine with QEMU's intel-iommu in front of
# every PCI device (it must come before them); the guest finds it in ACPI's
# DMAR table and maps through dma-iommu.
machine=
case " $* " in
*" bouncelab.iommu=1 "*) machine="-machine q35 -device intel-iommu" ;;
esac
# The architecture's QEMU, machine, consoles and edu.
if [ "${QEMU_ARCH:-x86_64}" = arm64 ]; then
	qemu=qemu-system-aarch64 cpu_default=max,pauth-impdef=on
	machine="-machine virt $machine"
	args="console=ttyAMA0 bouncelab.out=/dev/hvc0 edu_poller.dma_bits=32"
	report="-device virtio-serial-pci,addr=0x1f -device virtconsole,chardev=report"
	edu=edu,dma_mask=0xffffffff
else
	qemu=qemu-system-x86_64 cpu_default=qemu64
	args="console=ttyS0 tsc=reliable"
	report=
	edu=edu
fi
# bouncelab.cpu=max: QEMU's most capable CPU model, whose AVX2 the
# vector passes of kernel/dma/swiotlb_wb.c use (qemu64 has SSE2 only).
cpu=${QEMU_CPU:-$cpu_default}
case " $* " in
*" bouncelab.cpu=max "*) cpu=max ;;
esac
mkdir -p "$logdir"
rm -f "$logdir/console.log" "$logdir/guest.log" "$logdir/qemu-reset.log"
accel=${QEMU_ACCEL:-tcg}
[ -z "$smp" ] || [ "$accel" != tcg ] || accel=tcg,thread=multi
console=file:$logdir/console.log fg=
# On a terminal QEMU must stay in the foreground process group.
[ "${QEMU_CONSOLE:-}" = stdio ] && console=mon:stdio fg=--foreground
[ "$accel" = tcg ] && icount=${QEMU_ICOUNT-shift=auto,sleep=off} || icount=
# tsc=reliable: under icount the TSC follows the virtual clock, whose rate
# shift=auto adjusts during boot; the clocksource watchdog then sometimes
# finds it skewed against jiffies and marks it unstable, which leaves the
# guest on jiffies with low-resolution hrtimers (one boot of make test on
# 6 Dec 2026: the swiotlb fuzzer's hrtimer, meant to write during calls,
# landed in 1-20 of 7,161 and its cases failed).
[ -z "$smp" ] || icount=
# QEMU's reset log: a guest that stops with no kernel report was reset,
# and this file tells a triple fault from a reset the guest asked for
# (tests/judge.py reads it). One register dump per CPU at power-on.
# shellcheck disable=SC2086 # $extra, $machine, $report: lists of QEMU arguments
[ -z "$report" ] || report="-chardev file,id=report,path=$logdir/guest.log $report"
# shellcheck disable=SC2086
exec timeout $fg --kill-after=5 "${BOOT_TIMEOUT:-900}" \
	$qemu \
	-accel "$accel" ${icount:+-icount "$icount"} -cpu "$cpu" \
	-m "${QEMU_MEM:-256}" $smp $machine -nodefaults -display none -no-reboot \
	-d cpu_reset -D "$logdir/qemu-reset.log" \
	-kernel "$kernel" -initrd "$initrd" \
	-append "$args swiotlb=16384,force oops=panic panic=-1 $*" \
	-serial "$console" ${report:--serial "file:$logdir/guest.log"} \
	-device $edu -device $edu \
	-device virtio-scsi-pci,id=scsi0,disable-legacy=on,iommu_platform=on \
	-drive "file=$disk,format=raw,if=none,id=disk0,readonly=on" \
	-device scsi-hd,drive=disk0,bus=scsi0.0 \
	-net none $extra ${QEMU_GDB:+-gdb tcp::$QEMU_GDB -S}
