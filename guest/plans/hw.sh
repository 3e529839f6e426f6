# The real devices of the drivers boot (sourced by guest/plans/drivers and
# guest/plans/bench; guest/run-qemu.sh adds them at these PCI addresses when
# the kernel command line has bouncelab.devices=drivers), and how a plan
# finds the Linux device behind one and rebinds its driver under a policy.
# Needs lib.sh's $KNOB.  bouncelab.devices=census selects the census's
# devices instead (a boot of its own).

# scenario, driver column of expected.tsv, PCI driver, PCI address(es)
# (guest/run-qemu.sh).  Each NIC pair: frames (r2), the receive flood (r3)
# and frames again after it (r4), on one binding.
HW_DEVICES="r1-blk-verify:hw-virtio-blk:virtio-pci:0000:00:10.0
r1-blk-verify:hw-nvme:nvme:0000:00:11.0
r1-blk-verify:hw-ahci:ahci:0000:00:12.0
r1-blk-verify:hw-megasas:megaraid_sas:0000:00:1b.0
s1-sg-tur-leak:hw-megasas:megaraid_sas:0000:00:1b.0
r2-net-frames:hw-e1000:e1000:0000:00:13.0,0000:00:14.0
r3-net-flood:hw-e1000:e1000:0000:00:13.0,0000:00:14.0
r4-net-after:hw-e1000:e1000:0000:00:13.0,0000:00:14.0
r2-net-frames:hw-e1000e:e1000e:0000:00:15.0,0000:00:16.0
r3-net-flood:hw-e1000e:e1000e:0000:00:15.0,0000:00:16.0
r4-net-after:hw-e1000e:e1000e:0000:00:15.0,0000:00:16.0
r2-net-frames:hw-8139cp:8139cp:0000:00:17.0,0000:00:18.0
r3-net-flood:hw-8139cp:8139cp:0000:00:17.0,0000:00:18.0
r4-net-after:hw-8139cp:8139cp:0000:00:17.0,0000:00:18.0
r2-net-frames:hw-virtio-net:virtio-pci:0000:00:19.0,0000:00:1a.0
r3-net-flood:hw-virtio-net:virtio-pci:0000:00:19.0,0000:00:1a.0
r4-net-after:hw-virtio-net:virtio-pci:0000:00:19.0,0000:00:1a.0"

# The census boot (bouncelab.devices=census, docs/drivers.md's census):
# every other QEMU 7.2 PCI device whose Linux 6.1 driver does streaming
# DMA, each disk on a scratch image of its own.  The PC's own IDE
# (PIIX3, 00:01.1) is there in every boot; only this one gives it a disk.
if [ "${bl_devices:-drivers}" = census ]; then
	HW_DEVICES="r1-blk-verify:hw-sym53c8xx:sym53c8xx:0000:00:05.0
r1-blk-verify:hw-am53c974:am53c974:0000:00:06.0
r1-blk-verify:hw-pvscsi:vmw_pvscsi:0000:00:07.0
r1-blk-verify:hw-megasas-gen2:megaraid_sas:0000:00:08.0
r1-blk-verify:hw-xhci-storage:xhci_hcd:0000:00:0a.0
r5-td-align:hw-xhci-storage:xhci_hcd:0000:00:0a.0
r1-blk-verify:hw-xhci-uas:xhci_hcd:0000:00:13.0
r5-td-align:hw-xhci-uas:xhci_hcd:0000:00:13.0
r1-blk-verify:hw-ehci-storage:ehci-pci:0000:00:0b.0
r1-blk-verify:hw-ohci-storage:ohci-pci:0000:00:0c.0
r1-blk-verify:hw-uhci-storage:uhci_hcd:0000:00:0d.0
r1-blk-verify:hw-sdhci:sdhci-pci:0000:00:0e.0
r1-blk-verify:hw-ata-piix:ata_piix:0000:00:01.1
r2-net-frames:hw-e100:e100:0000:00:0f.0,0000:00:0f.1
r3-net-flood:hw-e100:e100:0000:00:0f.0,0000:00:0f.1
r4-net-after:hw-e100:e100:0000:00:0f.0,0000:00:0f.1
r2-net-frames:hw-pcnet32:pcnet32:0000:00:10.0,0000:00:10.1
r3-net-flood:hw-pcnet32:pcnet32:0000:00:10.0,0000:00:10.1
r4-net-after:hw-pcnet32:pcnet32:0000:00:10.0,0000:00:10.1
r2-net-frames:hw-tulip:tulip:0000:00:11.0,0000:00:11.1
r3-net-flood:hw-tulip:tulip:0000:00:11.0,0000:00:11.1
r4-net-after:hw-tulip:tulip:0000:00:11.0,0000:00:11.1
r2-net-frames:hw-vmxnet3:vmxnet3:0000:00:12.0,0000:00:12.1
r3-net-flood:hw-vmxnet3:vmxnet3:0000:00:12.0,0000:00:12.1
r4-net-after:hw-vmxnet3:vmxnet3:0000:00:12.0,0000:00:12.1"
fi
# bouncelab.control=1: the control boot of the receive floods
# (swiotlb=noforce: nothing bounces), NIC pairs only, so that the host can
# judge each flood's loss against the same NIC's loss without bouncing.
if [ "${bl_control:-0}" = 1 ]; then
	HW_DEVICES=$(echo "$HW_DEVICES" | grep '^r[234]-net-')
fi
# bouncelab.part=disks|xhci|nics: the disks but the xHCI ones, the two
# xHCI rows (R1 and R5, the ring sweep), or the NIC pairs (R2-R4): the
# census runs as three boots, side by side (docs/drivers.md: one boot of
# all the disks took 586-608 s of the 900 s boot timeout under load).
case ${bl_part:-} in
disks) HW_DEVICES=$(echo "$HW_DEVICES" | grep '^r[15]-' | grep -v ':xhci_hcd:') ;;
xhci) HW_DEVICES=$(echo "$HW_DEVICES" | grep ':xhci_hcd:') ;;
nics) HW_DEVICES=$(echo "$HW_DEVICES" | grep '^r[234]-net-') ;;
esac
# bouncelab.rows=hw-a,hw-b: only these rows' devices (make run, by hand).
if [ -n "${bl_rows:-}" ]; then
	HW_DEVICES=$(echo "$HW_DEVICES" | grep -E ":($(echo "$bl_rows" | tr , '|')):")
fi

# hw_entry ENTRY: split one line of HW_DEVICES into $s (scenario), $drv
# (driver column), $pcidrv and $addrs (space-separated PCI addresses).
hw_entry() {
	s=${1%%:*} rest=${1#*:}
	drv=${rest%%:*} rest=${rest#*:}
	pcidrv=${rest%%:*} addrs=$(echo "${rest#*:}" | tr , ' ')
}

# hw_under ADDR CLASS [RO]: the NAME of the CLASS (block, net, scsi_generic)
# device behind that PCI device, waiting up to 30 s for the driver's
# (asynchronous) scan.  Disks: the writable one (the scratch disk), or with
# RO=1 the read-only one (the marker disk), once it has a size (an NVMe
# namespace can show before its capacity is set: make test, 6 Dec 2026,
# "blk_verify: cannot use /dev/nvme0n1").
hw_under() {
	i=0
	while [ $i -lt 150 ]; do
		for b in /sys/class/"$2"/*; do
			case $(readlink -f "$b") in
			*/"$1"/*)
				ro=$(cat "$b/ro" "$b"/device/block/*/ro 2>/dev/null | head -n 1)
				[ "${ro:-0}" = "${3:-0}" ] || continue
				[ "$2" != block ] || [ "$(cat "$b/size" 2>/dev/null || echo 0)" -gt 0 ] ||
					continue
				echo "${b##*/}"
				return 0 ;;
			esac
		done
		usleep 200000
		i=$((i + 1))
	done
	return 1
}

# hw_rebind POLICY PCIDRIVER ADDR...: unbind, select POLICY, bind again.
hw_rebind() {
	p=$1 pcidrv=$2
	shift 2
	for a in "$@"; do
		[ -e "/sys/bus/pci/devices/$a" ] ||
			{ echo "no PCI device $a (boot without bouncelab.devices=drivers or census?)"; return 1; }
		[ ! -e "/sys/bus/pci/devices/$a/driver" ] ||
			echo "$a" >"/sys/bus/pci/devices/$a/driver/unbind" ||
			{ echo "unbinding $a failed"; return 1; }
	done
	# The control boot has no pool and no knob: nothing bounces.
	[ "${bl_control:-0}" = 1 ] ||
		echo "$p" >"$KNOB" || { echo "selecting policy $p failed"; return 1; }
	for a in "$@"; do
		echo "$a" >"/sys/bus/pci/drivers/$pcidrv/bind" ||
			{ echo "binding $a to $pcidrv failed"; return 1; }
	done
}

