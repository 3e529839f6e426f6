#!/bin/sh
# Make BUILD/.config from tinyconfig plus every fragment, with the kernel's own
# merge_config.sh, and fail naming any option the fragments ask for that did
# not survive (a missing dependency, or a toolchain Kconfig could not find).
# BUILD/.config is only rewritten when its content changes, so an unchanged
# configuration never triggers a rebuild.
#
# usage: configure.sh SRC BUILD FRAGMENT...    (KMAKE_FLAGS from the Makefile)
#        configure.sh --check CONFIG FRAGMENT...
set -eu

# check CONFIG FRAGMENT...: every CONFIG_X=v and "# CONFIG_X is not set" line
# of the fragments must appear verbatim in CONFIG.
check() {
	config=$1
	shift
	missing=$(grep -hE '^(CONFIG_[A-Za-z0-9_]+=|# CONFIG_[A-Za-z0-9_]+ is not set)' "$@" |
		sort -u | while IFS= read -r want; do
			grep -qxF "$want" "$config" || printf '  %s\n' "$want"
		done)
	[ -z "$missing" ] && return 0
	echo "error: kernel config options requested by kconfig-fragments/ were dropped:" >&2
	echo "$missing" >&2
	echo "  (check their 'depends on' in Kconfig; CONFIG_RUST needs LLVM=1 and the pinned rustc/bindgen)" >&2
	return 1
}

if [ "$1" = --check ]; then
	shift
	check "$@"
	exit
fi

src=$1 build=$2
shift 2
# An existing build directory gets the new .config only if it changed (see
# above).  A new one is configured in place, ending with syncconfig (what
# olddefconfig does, plus the files the build reads), which saves the
# build a Kconfig run of its own.
if [ -e "$build/.config" ]; then
	tmp=$build.new-config final=olddefconfig
	rm -rf "$tmp"
else
	tmp=$build final=syncconfig
fi
mkdir -p "$tmp" "$build"
# tinyconfig, with one Kconfig run fewer: make tinyconfig is allnoconfig
# seeded with tiny-base.config, then a second run merging tiny.config; here
# tiny.config is merged with the fragments instead, and the one
# olddefconfig (or syncconfig) below gives the same .config.  (With the
# Rust toolchain probes each Kconfig run costs about 12 s.)
# shellcheck disable=SC2086 # KMAKE_FLAGS is a list of make variables
KCONFIG_ALLCONFIG=kernel/configs/tiny-base.config \
	make -s -C "$src" O="$tmp" $KMAKE_FLAGS allnoconfig >"$tmp.log" 2>&1 ||
	{ cat "$tmp.log" >&2; exit 1; }
# The architecture's tiny.config where it has one (x86; arm64 has none):
# ARCH=arm64 in KMAKE_FLAGS builds for arm64 (make test-arm64).
arch=x86
case " $KMAKE_FLAGS " in
*" ARCH=arm64 "*) arch=arm64 ;;
esac
arch_tiny=$src/arch/$arch/configs/tiny.config
[ -f "$arch_tiny" ] || arch_tiny=
"$src/scripts/kconfig/merge_config.sh" -m -O "$tmp" "$tmp/.config" \
	"$src/kernel/configs/tiny.config" ${arch_tiny:+"$arch_tiny"} "$@" \
	>>"$tmp.log" 2>&1 || { cat "$tmp.log" >&2; exit 1; }
# shellcheck disable=SC2086
make -s -C "$src" O="$tmp" $KMAKE_FLAGS $final >>"$tmp.log" 2>&1 ||
	{ cat "$tmp.log" >&2; exit 1; }
check "$tmp/.config" "$@"
if [ "$tmp" = "$build" ]; then
	echo "kernel config written: $build/.config"
	rm -f "$tmp.log"
	exit 0
fi
if cmp -s "$tmp/.config" "$build/.config"; then
	echo "kernel config unchanged"
else
	cp "$tmp/.config" "$build/.config"
	echo "kernel config updated: $build/.config"
fi
rm -rf "$tmp" "$tmp.log"
