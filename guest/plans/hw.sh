# The real devices of the drivers boot (sourced by guest/plans/drivers and
# guest/plans/bench; guest/run-qemu.sh adds them at these PCI addresses when
# the kernel command line has bouncelab.devices=drivers), and how a plan
# finds the Linux device behind one and rebinds its driver under a policy.
# Needs lib.sh's $KNOB.

# scenario, driver column of expected.tsv, PCI driver, PCI address(es)
# (guest/run-qemu.sh)
HW_DEVICES="r1-blk-verify:hw-virtio-blk:virtio-pci:0000:00:10.0
r1-blk-verify:hw-nvme:nvme:0000:00:11.0
r1-blk-verify:hw-ahci:ahci:0000:00:12.0
r1-blk-verify:hw-megasas:megaraid_sas:0000:00:1b.0
s1-sg-tur-leak:hw-megasas:megaraid_sas:0000:00:1b.0
r2-net-frames:hw-e1000:e1000:0000:00:13.0,0000:00:14.0
r2-net-frames:hw-e1000e:e1000e:0000:00:15.0,0000:00:16.0
r2-net-frames:hw-8139cp:8139cp:0000:00:17.0,0000:00:18.0
r2-net-frames:hw-virtio-net:virtio-pci:0000:00:19.0,0000:00:1a.0"

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
			{ echo "no PCI device $a (boot without bouncelab.devices=drivers?)"; return 1; }
		[ ! -e "/sys/bus/pci/devices/$a/driver" ] ||
			echo "$a" >"/sys/bus/pci/devices/$a/driver/unbind" ||
			{ echo "unbinding $a failed"; return 1; }
	done
	echo "$p" >"$KNOB" || { echo "selecting policy $p failed"; return 1; }
	for a in "$@"; do
		echo "$a" >"/sys/bus/pci/drivers/$pcidrv/bind" ||
			{ echo "binding $a to $pcidrv failed"; return 1; }
	done
}

