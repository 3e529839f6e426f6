#!/bin/sh
# Pack the guest's initramfs: busybox, /init, the expected-outcome table,
# the in-guest test programs and the kernel modules under test.
#
# usage: mkinitramfs.sh OUT.cpio INIT PLAN_DIR EXPECTED.tsv PROGRAM_DIR [MODULE.ko...]
# env:   BUSYBOX (default /bin/busybox), BUSYBOX_RUN: what runs it here
#        (qemu-aarch64-static for arm64's, make test-arm64)
set -eu
out=$1 init=$2 plans=$3 expected=$4 progs=$5
shift 5
busybox=${BUSYBOX:-/bin/busybox} run=${BUSYBOX_RUN:-}
[ -x $busybox ] && $run $busybox --list >/dev/null ||
	{ echo "error: $busybox missing (apt-get install busybox-static)" >&2; exit 1; }
! readelf -l $busybox 2>/dev/null | grep -q "program interpreter" ||
	{ echo "error: $busybox is not static (apt-get install busybox-static)" >&2; exit 1; }

stage=$out.d
rm -rf "$stage"
mkdir -p "$stage/bin" "$stage/sbin" "$stage/dev" "$stage/proc" "$stage/sys" \
	"$stage/tmp" "$stage/modules" "$stage/plans"
cp $busybox "$stage/bin/busybox"
for applet in $($run $busybox --list); do
	[ -e "$stage/bin/$applet" ] || ln -s busybox "$stage/bin/$applet"
done
cp "$init" "$stage/init"
cp "$expected" "$stage/expected.tsv"
cp "$plans"/* "$stage/plans/"
cp "$progs"/* "$stage/bin/"
for ko in "$@"; do
	cp "$ko" "$stage/modules/"
done
mknod "$stage/dev/console" c 5 1
# The same content packs to the same bytes (one time for every file, no
# inode or device numbers), so that tests/run.sh can tell an unchanged
# guest from its hash.
find "$stage" -exec touch -h -d @0 {} +
(cd "$stage" && find . | LC_ALL=C sort | cpio -o -H newc --quiet --reproducible) >"$out.tmp"
mv "$out.tmp" "$out"
rm -rf "$stage"
