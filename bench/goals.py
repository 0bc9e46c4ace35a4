#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# goals.py - issue 43's goals for one site of unknown use, read off what
# bench (summary.txt) or copybench (its text output) measured on a CPU:
# per shape, each shipped routine's geometric mean over the published
# distributions (the worst placement's), the envelope (the best single
# routine there), auto's standing against it, and auto's worst
# (distribution, shape) cell against glibc.
#   bench/goals.py summary.txt AUTO          (memset: bench -o DIR)
#   bench/goals.py --copy copyshapes.txt... AUTO
#   bench/goals.py --copy --fixed copyshapes.txt...   (the fixed sizes'
#                  rows, each cell the median over the files)
# AUTO: the routine the CPU's row chose (a column name without site-).
# With several files (runs in separate processes: a figure back to back
# moves with the address-space layout), each cell is their median.
# Columns that are no shipped routine (copybench's benchmark-only
# candidates) are listed after the envelope, outside it.
import math
import re
import statistics
import sys

SHIPPED = ("vec", "avx2", "avx512", "avx512_split", "avx512_plain", "avx512_fwd",
           "stosb_avx2", "inline", "rep-movsb")


def set_tables(text):
    """{shape: {placement: {cand: {dist: ratio}}}} from summary.txt."""
    out = {}
    head = re.compile(r"^speedup vs glibc .*\), (.*), destination (.*), fill 0x5a$")
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = head.match(line)
        if not m:
            continue
        cands = lines[i + 1].split()[2:]
        t = out.setdefault(m.group(1), {}).setdefault(m.group(2), {})
        for row in lines[i + 2:]:
            f = row.split()
            if not f or not (f[0][0].isdigit() or f[0] in ("mix",) or f[0].startswith("dist-")):
                break
            if f[0].startswith("dist-"):
                for c, v in zip(cands, f[2:]):
                    t.setdefault(c.replace("site-", ""), {})[f[0]] = float(v)
    return out


def copy_rows(text):
    """copybench's output as (shape line, its config line, row fields),
    one a row of figures: '## shape' blocks, 'config ...' heads."""
    shape = head = None
    for line in text.splitlines():
        if line.startswith("## "):
            shape = line
            continue
        f = line.split()
        if f and f[0] == "config":
            head = line
            continue
        if shape and head and len(f) > 2 and (f[0][0].isdigit() or
                                              f[0].startswith("dist-")):
            yield shape, head, f


def copy_tables(text):
    """The same as set_tables from copybench's output: its 'dist-X pl'
    rows."""
    out = {}
    for shape, head, f in copy_rows(text):
        if not f[0].startswith("dist-"):
            continue
        t = out.setdefault(shape[3:].split(":")[0], {}).setdefault(f[1], {})
        # f[2] is glibc's ns a call, the ratios follow
        for c, v in zip(head.split()[2:], f[3:]):
            t.setdefault(c, {})[f[0]] = float(v)
    return out


def fixed_rows(texts):
    """Each shape's fixed-size rows of copybench's output, the median of
    every cell over the texts, printed as copybench prints them."""
    cells = {}
    heads = {}
    for text in texts:
        for shape, head, f in copy_rows(text):
            if not f[0][0].isdigit():
                continue
            heads[shape] = head
            row = cells.setdefault((shape, f[0], f[1]), {})
            for i, v in enumerate(f[2:]):
                if v != "-":
                    row.setdefault(i, []).append(float(v))
    shape = None
    for key, row in cells.items():
        if key[0] != shape:
            shape = key[0]
            print(f"\n{shape}\n{heads[shape]}")
        vals = [f"{statistics.median(row[i]):.2f}" if i in row else "-"
                for i in range(max(row) + 1)]
        print(f"{key[1] + ' ' + key[2]:17s}" + "".join(f"{v:>9s}" for v in vals))


def geo(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else 0


def medians(runs):
    """One table from several runs' tables: each cell its median."""
    out = {}
    for shape, places in runs[0].items():
        for p, cands in places.items():
            for c, dists in cands.items():
                for d in dists:
                    vs = [r[shape][p][c][d] for r in runs
                          if d in r.get(shape, {}).get(p, {}).get(c, {})]
                    out.setdefault(shape, {}).setdefault(p, {}).setdefault(
                        c, {})[d] = statistics.median(vs)
    return out


def main():
    args = sys.argv[1:]
    copy = args and args[0] == "--copy"
    if copy:
        args = args[1:]
    if args and args[0] == "--fixed":
        return fixed_rows([open(f).read() for f in args[1:]])
    if len(args) < 2:
        sys.exit("usage: goals.py [--copy] FILE... AUTO")
    files, auto = args[:-1], args[-1]
    read = copy_tables if copy else set_tables
    tables = medians([read(open(f).read()) for f in files])
    what = files[0] if len(files) == 1 else \
        f"{files[0]} and {len(files) - 1} more (medians of {len(files)} runs)"
    print(f"# {what}: auto = {auto}; per shape, the worst placement's "
          "geomean over the distributions, glibc = 1")
    worst_cell = (9, "", "", "")
    for shape, places in tables.items():
        every = list(next(iter(places.values())))
        cands = [c for c in every if c in SHIPPED]
        tried = [c for c in every if c not in SHIPPED and c != "glibc"]
        g = {}
        for c in cands + tried:
            g[c] = min(geo(list(places[p][c].values())) for p in places)
            for p in places:
                for d, v in places[p][c].items():
                    if c == auto and v < worst_cell[0]:
                        worst_cell = (v, shape, d, p)
        env = max(cands, key=g.get)
        print(f"{shape:28s} auto {g[auto]:.2f}x  envelope {env} {g[env]:.2f}x  "
              f"auto/envelope {g[auto] / g[env]:.2f}  ("
              + ", ".join(f"{c} {g[c]:.2f}" for c in cands) + ")"
              + ("  not shipped: " + ", ".join(
                  f"{c} {g[c]:.2f} ({g[c] / g[env]:.2f})" for c in tried)
                 if tried else ""))
    print(f"auto's worst cell: {worst_cell[0]:.2f}x glibc ({worst_cell[1]}, "
          f"{worst_cell[2]}, {worst_cell[3]})")


main()
