#!/bin/sh
# Install the Debian packages the lab needs, or, when not root, name them in
# one line and fail.  Nothing is installed when everything is present.
#
# usage: install-deps.sh [MORE-PACKAGES...]
set -eu
pkgs="linux-source-6.1 build-essential flex bison bc libelf-dev libssl-dev
cpio xz-utils git python3 clang llvm lld libclang-dev rustc rust-src rustfmt
rust-clippy bindgen qemu-system-x86 busybox-static gnuplot-nox python3-ply
python3-git"
# More for one target (make deps-arm64: the arm64 cross tools and QEMU).
pkgs="$pkgs $*"

missing=
for p in $pkgs; do
	dpkg-query -W -f '${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0
if [ "$(id -u)" -ne 0 ]; then
	echo "error: missing Debian packages; as root run: apt-get install$missing" >&2
	exit 1
fi
echo "installing:$missing"
apt-get update -q
# shellcheck disable=SC2086 # a list of package names
DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
