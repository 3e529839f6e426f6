#!/usr/bin/env python3
"""Print the policy x scenario comparison table of one guest run.

usage: report.py KTAP_LOG EXPECTED_TSV VERSION_FILE REPORT_MD [KTAP_LOG...]

Reads the "# cell ..." diagnostic lines the guest's /init wrote into its
KTAP stream and prints, per policy, the observed outcome of every
scenario and driver, marked where it differs from tests/expected.tsv.
Writes the same table, the raw counts and a legend to REPORT_MD.  More
KTAP logs (other boots; a missing one is skipped) add their cells: S0's
boot is shown beside S1 in a table of its own.
"""
import re
import sys

# The count behind each outcome; "ok" shows how much was checked.
KEY_COUNT = {"LEAK": "nonzero", "LOST": "lost", "STALE": "stale",
             "PHANTOM": "phantom", "DUP": "dup", "CORRUPT": "corrupt",
             "ok": "packets"}


# S0 runs in a boot of its own with sg's zeroing switch in the driver
# column: it is shown beside S1, not in the policy table.
S0, S1 = "s0-sg-pages-leak", "s1-sg-tur-leak"
SG_SWITCH = [("sg-zero-off", "sg zeroing off (before a45b599ad808)"),
             ("sg-zero-on", "sg zeroing on (6.1)")]
TWO_FIXES = (
    "a45b599ad808 (2018) made sg zero the pages it allocates for a "
    "command's data, so a command that transfers less than its buffer no "
    "longer hands their old contents to user space (S0). Under swiotlb the "
    "stale bytes come from the bounce buffer, which is copied over those "
    "zeroed pages at unmap, so sg's fix cannot help there: ddbd89deb7d3 "
    "(2022) had to fill the bounce buffer from the pages at map time (S1: "
    "legacy still leaks with 6.1's sg).")


def two_fixes(cells, policies):
    """Rows: where the data went; columns: sg's zeroing switch."""
    def find(s, d, p=None):
        return next((c for (cp, cs, cd), c in cells.items()
                     if cs == s and cd == d and p in (None, cp)), None)
    rows = [["S0 no bounce"] + [show(find(S0, d)) for d, _ in SG_SWITCH]]
    rows += [[f"S1 swiotlb {p}", "-", show(find(S1, "-", p))] for p in policies]
    return ["data path"] + [h for _, h in SG_SWITCH], rows


def read_expected(path):
    """The legend (comment lines before the header), columns and rows."""
    legend, policies, rows = [], [], []
    for line in open(path):
        line = line.rstrip("\n")
        if line.startswith("# scenario"):
            policies = line.split("\t")[2:]
        elif line.startswith("#    ") and legend:
            legend[-1] += " " + line[5:]
        elif line.startswith("#   "):
            legend.append(line[4:])
        elif line and not line.startswith("#"):
            f = line.split("\t")
            rows.append((f[0], f[1]))
    return legend, policies, rows


def read_cells(path, cells=None):
    cells = {} if cells is None else cells
    for line in open(path, errors="replace"):
        m = re.search(r"# cell (.*)", line)
        if not m:
            continue
        kv = dict(re.findall(r"(\S+?)=(\S*)", m.group(1)))
        cells[(kv.get("policy"), kv.get("scenario"), kv.get("driver"))] = kv
    return cells


def label(scenario):
    """A column's short name: "S1" for s1-sg-tur-leak, else the whole name
    (leak-hunt, r1-blk-verify -> R1)."""
    head = scenario.split("-")[0]
    return head.upper() if re.fullmatch(r"[sr][0-9]+", head) else scenario


def long_label(scenario):
    """"S1 sg-tur-leak", or the whole name when it has no number."""
    head, _, rest = scenario.partition("-")
    return f"{head.upper()} {rest}" if label(scenario) != scenario else scenario


def show(cell):
    """OBSERVED[!] count, '!' where it differs from the expectation."""
    if cell is None:
        return "-"
    mark = "" if cell["observed"] == cell["expected"] else "!"
    key = KEY_COUNT.get(cell["observed"])
    # Real-driver rows (R1, R2) count cases or frames, and R1 leaks in bytes.
    if key not in cell:
        key = next((k for k in ("leak", "frames", "cases") if k in cell and
                    (k != "leak" or cell["observed"] == "LEAK")), key)
    count = f" {cell[key]}" if key in cell else ""
    # Scenarios that check a packet byte by byte (S6-S8) say how many it lacked.
    if cell["observed"] != "ok" and cell.get("missing_bytes", "0") != "0":
        count += f" ({cell['missing_bytes']} B missing)"
    return f"{cell['observed']}{mark}{count}"


def main():
    ktap, expected, version_file, md = sys.argv[1:5]
    legend, policies, rows = read_expected(expected)
    cells = read_cells(ktap)
    for more in sys.argv[5:]:
        try:
            read_cells(more, cells)
        except FileNotFoundError:
            pass
    rows = [(s, d) for s, d in rows if s != S0]
    version = open(version_file).read().strip()
    heads = ["policy"] + [label(s) +
                          ("" if d == "-" else f" {d}") for s, d in rows]
    table = [[p] + [show(cells.get((p, s, d))) for s, d in rows]
             for p in policies]
    widths = [max(len(r[i]) for r in [heads] + table) for i in range(len(heads))]

    def line(r):
        return "  ".join(c.ljust(w) for c, w in zip(r, widths)).rstrip()

    print(f"\nbouncelab: Debian linux-source-6.1 {version}, swiotlb=force, QEMU TCG")
    print(line(heads))
    print(line(["-" * w for w in widths]))
    for r in table:
        print(line(r))
    wrong = sum(1 for c in cells.values() if c["observed"] != c["expected"])
    names = sorted({s for s, _ in rows})
    print("\n" + ", ".join(long_label(s) for s in names)
          + "; c = C poller, rust = Rust driver")
    print(f"{len(cells)} cells run, {wrong} differ from expected ('!'); "
          "'-' = not run; number = the count behind the "
          "outcome (LEAK: non-zero bytes; LOST/STALE/PHANTOM: packets; ok: packets checked)")
    fix_heads, fix_rows = two_fixes(cells, policies)
    fix_widths = [max(len(r[i]) for r in [fix_heads] + fix_rows)
                  for i in range(len(fix_heads))]
    print("\nThe two fixes of CVE-2018-1000204 (S0: its own boot, no bounce; "
          "LEAK counts per round):")
    for r in [fix_heads] + fix_rows:
        print("  ".join(c.ljust(w) for c, w in zip(r, fix_widths)).rstrip())
    print(TWO_FIXES)

    with open(md, "w") as f:
        f.write(f"# bouncelab comparison\n\nKernel: Debian linux-source-6.1 "
                f"{version}, `swiotlb=force`, QEMU TCG.\n\n")
        f.write("| " + " | ".join(heads) + " |\n")
        f.write("|" + "---|" * len(heads) + "\n")
        for r in table:
            f.write("| " + " | ".join(r) + " |\n")
        f.write("\n`!` marks an outcome that differs from the expected one; "
                "the number is the count behind the outcome (LEAK: non-zero bytes returned; LOST, STALE, PHANTOM: packets; ok: packets checked).\n")
        f.write("\n## The two fixes of CVE-2018-1000204\n\n")
        f.write("| " + " | ".join(fix_heads) + " |\n")
        f.write("|" + "---|" * len(fix_heads) + "\n")
        for r in fix_rows:
            f.write("| " + " | ".join(r) + " |\n")
        f.write(f"\n{TWO_FIXES}\n")
        f.write("\n## Legend\n\n")
        for entry in legend:
            f.write(f"- {entry}\n")
        f.write("\n## Counts\n\n")
        for (p, s, d), kv in sorted(cells.items()):
            counts = " ".join(f"{k}={v}" for k, v in kv.items()
                              if k not in ("policy", "scenario", "driver"))
            f.write(f"- {p} {s} {d}: {counts}\n")
    print(f"report: {md}")


if __name__ == "__main__":
    main()
