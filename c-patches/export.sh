#!/bin/sh
# Write the commits of a `make tree` work tree (pristine..HEAD) back into
# PATCHDIR with git format-patch and rewrite PATCHDIR/series in commit order.
# A patch keeps its file name while its subject stays the same: the series
# is numbered in groups (00xx swiotlb, 001x C sample, 002x Rust, ...), and
# a new patch takes the number after the one before it.
#
# usage: export.sh TREE PATCHDIR
set -eu
tree=$1 dir=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
git -C "$tree" format-patch -q --zero-commit --no-signature --no-numbered \
	-o "$tmp/new" pristine..HEAD

# subject PATCH: its Subject header, unfolded, without the [PATCH ...] tag.
subject() {
	awk '/^Subject: / { s = $0; getline; while (/^ /) { s = s $0; getline } }
		END { sub(/^Subject: (\[PATCH[^]]*\] )?/, "", s); print s }' "$1"
}

prev=0
for p in "$tmp"/new/*.patch; do
	s=$(subject "$p")
	name=
	for old in "$dir"/*.patch; do
		[ -e "$old" ] && [ "$(subject "$old")" = "$s" ] && name=${old##*/}
	done
	if [ -z "$name" ]; then
		base=${p##*/}
		name=$(printf '%04d' $((prev + 1)))-${base#*-}
	fi
	num=$(echo "${name%%-*}" | sed 's/^0*//')
	if [ "${num:-0}" -le "$prev" ]; then
		echo "error: $name would sort before the patch it follows; rename it" >&2
		exit 1
	fi
	prev=${num:-0}
	cp "$p" "$tmp/$name"
	echo "$name" >>"$tmp/series"
done
rm -f "$dir"/*.patch
mv "$tmp"/*.patch "$dir"/
{ echo '# Kernel patches against Debian linux-source-6.1, in order.'; cat "$tmp/series"; } >"$dir/series"
cat "$dir/series"
