#!/bin/sh
# Unpack Debian's arm64 busybox-static into DIR (DIR/bin/busybox) for the
# arm64 guest's initramfs (make test-arm64). It is downloaded, not
# installed: busybox-static is not multi-arch, and the arm64 package would
# replace the host's. apt needs the arm64 architecture for that; as root
# this adds it (dpkg --add-architecture arm64, then apt-get update).
#
# usage: arm64-busybox.sh DIR
set -eu
dir=$1
if ! dpkg --print-foreign-architectures | grep -qx arm64; then
	[ "$(id -u)" -eq 0 ] || {
		echo "error: as root run: dpkg --add-architecture arm64 && apt-get update" >&2
		exit 1
	}
	dpkg --add-architecture arm64
	apt-get update -q
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# apt's sandbox user cannot write to a directory of root's: download as root.
(cd "$tmp" && apt-get download -q -o APT::Sandbox::User=root busybox-static:arm64) ||
	{ echo "error: apt-get download busybox-static:arm64 failed" >&2; exit 1; }
rm -rf "$dir.new"
dpkg-deb -x "$tmp"/busybox-static_*_arm64.deb "$dir.new"
rm -rf "$dir"
mv "$dir.new" "$dir"
echo "arm64 busybox: $dir/bin/busybox"
