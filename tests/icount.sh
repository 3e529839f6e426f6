#!/bin/sh
# The instructions per 64-byte line of a sync cycle, from a boot of
# guest/plans/icount under -icount shift=0 (make icount-arm64): a Markdown
# table, per cycle kind and size, for upstream and transparent in each
# pass. A result's ns is its instructions; per line = ns / iters /
# (size / 64).
#
# usage: icount.sh GUEST.LOG
set -eu
log=$1
grep -q '^# icount kind=' "$log" || { echo "error: no icount results in $log" >&2; exit 1; }
awk '
/^# icount kind=/ {
	for (i = 3; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
	if (f["size"] == 0) next
	col = f["policy"] (f["policy"] == "upstream" ? "" : " " f["pass"])
	if (!(col in seen)) { seen[col] = 1; cols[++nc] = col }
	row = f["kind"] " " f["size"]
	if (!(row in rseen)) { rseen[row] = 1; rows[++nr] = row }
	v[row, col] = f["ns"] / f["iters"] / (f["size"] / 64)
}
END {
	printf "| cycle | bytes |"
	for (c = 1; c <= nc; c++) printf " %s |", cols[c]
	printf "\n|---|---:|"
	for (c = 1; c <= nc; c++) printf "---:|"
	printf "\n"
	for (r = 1; r <= nr; r++) {
		split(rows[r], rk, " ")
		printf "| %s | %s |", rk[1], rk[2]
		for (c = 1; c <= nc; c++)
			printf((rows[r], cols[c]) in v ? " %.1f |" : " - |", v[rows[r], cols[c]])
		printf "\n"
	}
}' "$log"
