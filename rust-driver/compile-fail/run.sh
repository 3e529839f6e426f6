#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Compile-fail suite of the typed streaming-DMA API (kernel::dma).
#
# usage: run.sh <kernel source dir> <kernel build dir (O=)>
#
# Every <case>.rs here starts with "// error: E<code> <text>": it must fail
# to compile, every error it produces must carry that code, and <text> must
# appear in one of them (its message, or the source line it points at): the
# method, trait or value the case is about, so that an unrelated error with
# the same code (a misspelled method is E0599 too) does not pass.  Its twin
# <case>_ok.rs (first line "// ok: ...") does the same thing the right way
# and must compile.  So must every example in the doc comments of
# kernel::dma (doc_dma_<n>_ok, its "# " lines included, as rustdoc would
# compile it: 6.1 cannot run doctests).  Each file is compiled exactly the
# way Kbuild compiles a Rust module: the rustc command line is taken from Kbuild itself (V=1 on a
# one-line probe module), so flags, target and the kernel crate are those of
# the given build.  Output: KTAP on stdout; exit status 1 if any test failed.
#
# The build dir must hold a finished CONFIG_RUST=y build (rust/libkernel.rmeta).
# Kernel make calls use the toolchain the top-level Makefile pins and
# exports as KMAKE_FLAGS.
set -u
if [ $# -ne 2 ]; then
	echo "usage: $0 <kernel source dir> <kernel build dir>" >&2
	exit 2
fi
SRC=$(cd "$1" && pwd) BUILD=$(cd "$2" && pwd)
HERE=$(cd "$(dirname "$0")" && pwd)
if [ -z "${KMAKE_FLAGS:-}" ]; then
	echo "error: KMAKE_FLAGS is not set: run this through the top-level Makefile (make test)" >&2
	exit 2
fi
TMP=$(mktemp -d /tmp/bouncelab-cf.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

echo "KTAP version 1"
if [ ! -e "$BUILD/rust/libkernel.rmeta" ]; then
	echo "1..0 # SKIP no Rust kernel crate in $BUILD"
	exit 1
fi

# Learn the module rustc command line from Kbuild.
mkdir -p "$TMP/cfprobe"
echo 'obj-m := cfprobe.o' >"$TMP/cfprobe/Kbuild"
printf '//! Probe.\n' >"$TMP/cfprobe/cfprobe.rs"
# shellcheck disable=SC2086
# Plain rustc, whatever the calling make had on its command line (CLIPPY=1).
env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES \
	make -C "$SRC" O="$BUILD" M="$TMP/cfprobe" $KMAKE_FLAGS V=1 CLIPPY= cfprobe.o \
	>"$TMP/probe.log" 2>&1
cmd=$(grep -m1 -- '--crate-name cfprobe' "$TMP/probe.log" | sed 's/; *sed -i .*//')
if [ -z "$cmd" ]; then
	echo "1..0 # SKIP could not learn the rustc command from Kbuild"
	sed 's/^/# /' "$TMP/probe.log" | tail -n 20
	exit 1
fi
RUSTC_DIR=$BUILD
# As the kernel Makefile does: 6.1 needs unstable options on a stable rustc.
export RUSTC_BOOTSTRAP=1

# The doc examples: fenced blocks of //! and /// comments (not "ignore" or
# "text"), one file each.
mkdir -p "$TMP/doc"
for src in rust/kernel/dma.rs; do
	awk -v out="$TMP/doc/doc_$(basename "$src" .rs)_" '
		{ sub(/^[ \t]*/, "") }
		!inb && /^\/\/[!\/] ?```(rust)?$/ { inb = 1; k++; f = out k "_ok.rs"; next }
		inb && /^\/\/[!\/] ?```$/ { inb = 0; close(f); next }
		inb { sub(/^\/\/[!\/] ?/, ""); sub(/^# /, ""); if ($0 == "#") $0 = ""; print > f }
	' "$SRC/$src"
done
cases=$(ls "$HERE"/*.rs "$TMP"/doc/*.rs 2>/dev/null)
echo "1..$(echo "$cases" | wc -w)"
n=0 failed=0
for f in $cases; do
	n=$((n + 1))
	name=$(basename "$f" .rs)
	crate=cf_$name
	mkdir -p "$TMP/$crate"
	cp "$f" "$TMP/$crate/$crate.rs"
	c=${cmd//cfprobe/$crate}
	(cd "$RUSTC_DIR" && eval "$c") >"$TMP/$crate/out" 2>&1
	rc=$?
	want=$(sed -n '1s|^// error: \(E[0-9]\{4\}\).*|\1|p' "$f")
	wtext=$(sed -n '1s|^// error: E[0-9]\{4\} \(.*\)|\1|p' "$f")
	got=$(grep -o '^error\[E[0-9]\{4\}\]' "$TMP/$crate/out" | sed 's/error\[\(.*\)\]/\1/' | sort -u | tr '\n' ' ')
	got=${got% }
	if [ -n "$want" ]; then
		desc="$name must fail with $want: $wtext"
		# Each error with the wanted code: its message and the source it
		# shows, up to the blank line that ends it.
		awk -v code="error[$want]" 'index($0, "error") == 1 { inb = index($0, code) == 1 }
			/^$/ { inb = 0 } inb' "$TMP/$crate/out" >"$TMP/$crate/want"
		if [ $rc -ne 0 ] && [ "$got" = "$want" ] && [ -n "$wtext" ] &&
			grep -qF -- "$wtext" "$TMP/$crate/want"; then
			res=ok
		else
			res="not ok"
			echo "# $name: exit $rc, error codes '${got:-none}', want '$want' with '${wtext:-(no text given)}'"
		fi
		# The first error, as a user sees it.
		grep -m1 -A6 '^error' "$TMP/$crate/out" | sed 's/^/# /'
	else
		desc="$name compiles"
		if [ $rc -eq 0 ]; then
			res=ok
			grep -A4 '^warning' "$TMP/$crate/out" | sed 's/^/# /'
		else
			res="not ok"
			grep -m1 -A12 '^error' "$TMP/$crate/out" | sed 's/^/# /'
		fi
	fi
	[ "$res" = ok ] || failed=$((failed + 1))
	echo "$res $n $desc"
done
echo "# compile-fail: $((n - failed))/$n as expected"
[ $failed -eq 0 ]
