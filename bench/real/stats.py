#!/usr/bin/env python3
"""stats.py RAW - the tables of bench/real/real.sh from its raw data.

RAW has one line per timed run, tab-separated:
    round  load1  program  metric  config  seconds
(lines starting with # are comments: the round's /proc/loadavg; a
"# configs A B ..." line gives the order of the tables' rows).  For
each program and metric: per configuration the median time with min..max
over the rounds, and the median over rounds of that round's ratio
plain / config (>1: faster than plain); a Friedman test over the
configurations (ranked within each round: do they differ at all?), and
each configuration against plain, a Wilcoxon signed-rank test on the
per-round log ratios (exact below 26 rounds with no ties, else the
normal approximation), its p-values Holm-adjusted over the comparisons
of that metric, and the sign test's count (rounds where the config beat
plain).  Verdict: faster or slower when the adjusted p < 0.05, else
"same (noise)".  Only rounds where every configuration ran count.
`stats.py -x WORD RAW` leaves out every configuration whose name ends
in /WORD (e.g. -x libc: the adaptor's cost, see README), to ask whether
the rest differ.  Standard library only: the chi-square tail is the regularized upper
incomplete gamma function, written out below.
"""
import math
import sys
from collections import defaultdict

ALPHA = 0.05


def gamma_q(a, x):
    """Q(a, x) = Gamma(a, x) / Gamma(a): series below a + 1, Lentz's
    continued fraction above (Numerical Recipes, 6.2)."""
    if x <= 0:
        return 1.0
    gln = math.lgamma(a)
    if x < a + 1:
        ap, s, d = a, 1.0 / a, 1.0 / a
        for _ in range(10000):
            ap += 1
            d *= x / ap
            s += d
            if abs(d) < abs(s) * 1e-15:
                break
        return max(0.0, 1.0 - s * math.exp(-x + a * math.log(x) - gln))
    tiny = 1e-300
    b = x + 1 - a
    c, d = 1 / tiny, 1 / b
    h = d
    for i in range(1, 10000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return math.exp(-x + a * math.log(x) - gln) * h


def ranks(xs):
    """Ranks 1..n of xs, ties given their mean rank."""
    order = sorted(range(len(xs)), key=lambda i: xs[i])
    r = [0.0] * len(xs)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and xs[order[j + 1]] == xs[order[i]]:
            j += 1
        for k in range(i, j + 1):
            r[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return r


def friedman(table):
    """table[round][config]: chi-square (tie-corrected), df, p."""
    n, k = len(table), len(table[0])
    sums = [0.0] * k
    ties = 0.0
    for row in table:
        r = ranks(row)
        for j in range(k):
            sums[j] += r[j]
        counts = defaultdict(int)
        for v in row:
            counts[v] += 1
        ties += sum(t ** 3 - t for t in counts.values())
    chi = 12 / (n * k * (k + 1)) * sum(s * s for s in sums) - 3 * n * (k + 1)
    corr = 1 - ties / (n * (k ** 3 - k))
    if corr > 0:
        chi /= corr
    return chi, k - 1, gamma_q((k - 1) / 2, chi / 2), [s / n for s in sums]


def wilcoxon(d):
    """Two-sided signed-rank p for differences d (zeros dropped)."""
    d = [x for x in d if x != 0]
    n = len(d)
    if n == 0:
        return 1.0
    r = ranks([abs(x) for x in d])
    wplus = sum(ri for ri, x in zip(r, d) if x > 0)
    if n < 26 and all(ri == int(ri) for ri in r):
        # exact: the number of subsets of 1..n with each rank sum
        top = n * (n + 1) // 2
        ways = [1] + [0] * top
        for i in range(1, n + 1):
            for s in range(top, i - 1, -1):
                ways[s] += ways[s - i]
        w = min(wplus, top - wplus)
        tail = sum(ways[: int(w) + 1]) / 2 ** n
        return min(1.0, 2 * tail)
    mean = n * (n + 1) / 4
    counts = defaultdict(int)
    for ri in r:
        counts[ri] += 1
    var = n * (n + 1) * (2 * n + 1) / 24 - sum(t ** 3 - t for t in counts.values()) / 48
    if var <= 0:
        return 1.0
    z = (abs(wplus - mean) - 0.5) / math.sqrt(var)
    return math.erfc(max(z, 0) / math.sqrt(2))


def holm(ps):
    order = sorted(range(len(ps)), key=lambda i: ps[i])
    adj = [0.0] * len(ps)
    run = 0.0
    for rank, i in enumerate(order):
        run = max(run, min(1.0, (len(ps) - rank) * ps[i]))
        adj[i] = run
    return adj


def median(xs):
    s = sorted(xs)
    n = len(s)
    return s[n // 2] if n % 2 else (s[n // 2 - 1] + s[n // 2]) / 2


def main():
    data = defaultdict(lambda: defaultdict(dict))   # (prog, metric) -> round -> config -> s
    order = defaultdict(list)
    loads = []
    args = sys.argv[1:]
    skip = []
    while len(args) > 1 and args[0] == "-x":
        skip.append("/" + args[1])
        args = args[2:]
    canon = []
    for line in open(args[0]):
        if line.startswith("# configs "):
            canon = line.split()[2:]
        if line.startswith("#") or not line.strip():
            continue
        rnd, load, prog, metric, config, secs = line.split("\t")
        if any(config.endswith(w) for w in skip):
            continue
        key = (prog, metric)
        data[key][int(rnd)][config] = float(secs)
        if config not in order[key]:
            order[key].append(config)
        loads.append(float(load))
    for key in data:
        prog, metric = key
        # the order the raw data names (plain first), else as they came
        known = [c for c in canon if c in order[key]]
        configs = ["plain"] + [c for c in known + order[key] if c != "plain"]
        configs = list(dict.fromkeys(configs))
        rounds = sorted(r for r in data[key] if all(c in data[key][r] for c in configs))
        dropped = len(data[key]) - len(rounds)
        if len(rounds) < 2:
            print(f"{prog} {metric}: fewer than 2 complete rounds\n")
            continue
        table = [[data[key][r][c] for c in configs] for r in rounds]
        chi, df, p, mean_rank = friedman(table)
        print(f"{prog} ({metric}): {len(rounds)} rounds"
              + (f" ({dropped} incomplete, left out)" if dropped else "")
              + f", {len(configs)} configurations; Friedman chi2 {chi:.1f}, df {df},"
              f" p {p:.2g}: " + ("they differ" if p < ALPHA else "no difference shown"))
        ps, rows = [], []
        for j, c in enumerate(configs):
            col = [t[j] for t in table]
            ratio = [t[0] / t[j] for t in table]
            lr = [math.log(x) for x in ratio]
            wins = sum(1 for x in ratio if x > 1)
            rows.append((c, median(col), min(col), max(col), median(ratio), wins, mean_rank[j]))
            ps.append(wilcoxon(lr) if j else 1.0)
        adj = holm(ps[1:])
        print(f"  {'config':<22} {'median s':>9} {'min..max s':>17} {'plain/cfg':>9}"
              f" {'wins':>6} {'rank':>5} {'p (Holm)':>9}  verdict")
        for j, (c, med, lo, hi, rat, wins, mr) in enumerate(rows):
            if j == 0:
                verdict, pv, w = "(the bar)", "", ""
            else:
                pa = adj[j - 1]
                pv = f"{pa:.2g}"
                w = f"{wins}/{len(rounds)}"
                verdict = ("faster" if rat > 1 else "slower") if pa < ALPHA else "same (noise)"
            print(f"  {c:<22} {med:9.4f} {lo:8.4f}..{hi:<8.4f} {rat:9.3f} {w:>6} {mr:5.1f} {pv:>9}  {verdict}")
        print()
    if loads:
        print(f"load (1-minute average at each run's start): median {median(loads):.2f},"
              f" min {min(loads):.2f}, max {max(loads):.2f}")


if __name__ == "__main__":
    main()
