#!/bin/sh
# Write the commits of a `make tree` work tree (pristine..HEAD) back into
# PATCHDIR with git format-patch and rewrite PATCHDIR/series in commit order.
# A patch keeps its file name while its subject stays the same: the series
# is numbered in groups (00xx swiotlb, 001x C sample, 002x Rust, ...), and
# a new patch takes the number after the one before it. The comments of
# the series (its two parts) stay before the patch they preceded.
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
# The cover letter (0000-cover-letter.patch) is written by hand and kept.
find "$dir" -maxdepth 1 -name '[0-9]*.patch' ! -name '0000-cover-letter.patch' -delete
mv "$tmp"/*.patch "$dir"/
# The series keeps its comment lines (the parts) where they were: before
# the patch they preceded, or at the end.
awk -v new="$tmp/series" '
	BEGIN { while ((getline l < new) > 0) { n++; name[n] = l; have[l] = 1 } }
	/^#/ || /^[[:space:]]*$/ { pending = pending $0 "\n"; next }
	{ before[$0] = pending; pending = "" }
	END {
		for (i = 1; i <= n; i++) { printf "%s", before[name[i]]; print name[i] }
		printf "%s", pending
	}' "$dir/series" >"$tmp/series.full"
mv "$tmp/series.full" "$dir/series"
cat "$dir/series"
