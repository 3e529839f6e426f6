#!/bin/sh
# Keep SRC a git checkout of Debian's linux-source-6.1 with c-patches/series
# applied, touching only files whose content changes: the patched tree is
# built in a scratch index (git apply --cached), then checked out over the
# previous one, so editing one patch rebuilds only what that patch touches.
#
# usage: apply.sh SRC PATCHDIR
# Writes the Debian version of the source to SRC.version, and the patched
# tree's id to SRC.stamp (the Makefile reconfigures when it changes).
set -eu
src=$1 patches=$2
tarball=/usr/src/linux-source-6.1.tar.xz
pkg=linux-source-6.1

version=$(dpkg-query -W -f '${Version}' $pkg 2>/dev/null) ||
	{ echo "error: $pkg is not installed (apt-get install $pkg)" >&2; exit 1; }

git_() { git -C "$src" -c user.name=bouncelab -c user.email=bouncelab@localhost "$@"; }

if [ "$(cat "$src/.git/bouncelab-version" 2>/dev/null)" != "$version" ]; then
	echo "extracting $pkg $version into $src"
	rm -rf "$src.new"
	mkdir -p "$src.new"
	tar -C "$src.new" --strip-components=1 -xf "$tarball"
	# Debian's top-level .gitignore ignores the whole tree (it is meant for
	# the packaging repository); drop that stanza so git sees the kernel.
	sed -i '/^# Debian packaging: ignore everything/,/^!\/debian\/$/d' "$src.new/.gitignore"
	src_final=$src
	src=$src.new
	git_ init -q
	git_ add -A
	git_ commit -qm "$pkg $version (pristine)"
	git_ tag pristine
	echo "$version" >"$src/.git/bouncelab-version"
	src=$src_final
	rm -rf "$src"
	mv "$src.new" "$src"
fi

index=$src/.git/bouncelab-series-index
rm -f "$index"
GIT_INDEX_FILE=$index git_ read-tree pristine
list=$("$(dirname "$0")/list.sh" "$patches") || true
[ -n "$list" ] || { echo "error: $patches/series names no patch" >&2; exit 1; }
echo "$list" | while read -r p; do
	GIT_INDEX_FILE=$index git_ apply --cached "$(realpath "$patches/$p")" ||
		{ echo "error: c-patches/$p does not apply to $pkg $version (file and line above)" >&2; exit 1; }
done
tree=$(GIT_INDEX_FILE=$index git_ write-tree)
rm -f "$index"

if [ "$(git_ rev-parse 'HEAD^{tree}')" != "$tree" ]; then
	commit=$(git_ commit-tree -p pristine -m "bouncelab series" "$tree")
	git_ checkout -q --detach "$commit"
	echo "patched tree updated: $src ($(git_ diff --stat pristine HEAD | tail -1))"
fi
# Always: a run stopped between the checkout and this line must not leave
# the previous tree's stamp (the build keys start from it).
echo "$tree" >"$src.stamp"
echo "$version" >"$src.version"
