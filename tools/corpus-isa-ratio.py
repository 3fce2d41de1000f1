#!/usr/bin/env python3
"""Compare runs of the corpus bench (benches/corpus.rs) on two ISAs.

The bench's batch sizes differ per ISA (wave64 runs half as many waves),
so raw times are not comparable; each case's simulated time over the host
reference's time for the same batch ("sim/host") is. This prints, per
kernel build present on both sides, the ratio of those figures (side A
over side B) and their geometric mean: with A gfx942 runs and B gfx1100
runs, how many times slower gfx942 emulates the same work per host core.

On a shared machine one run's times are noisy; given several runs of a
side, each case takes its fastest simulated time and its fastest host
time over them (the least disturbed figures).

Usage: tools/corpus-isa-ratio.py A_OUTPUT... -- B_OUTPUT...
e.g.   tools/corpus-isa-ratio.py gfx942-*.txt -- gfx1100-*.txt
"""

import math
import sys


def best(paths):
    """kernel build -> (fastest sim ms, fastest host ms) over `paths`."""
    out = {}
    for path in paths:
        with open(path) as f:
            for line in f:
                parts = line.split()
                # name opt wave-insts sim-ms M/s host-ms sim/host
                if len(parts) < 7 or parts[0] in ("kernel", "ALL"):
                    continue
                try:
                    sim, host = float(parts[3]), float(parts[5])
                except ValueError:
                    continue
                key = (parts[0], parts[1])
                old = out.get(key, (math.inf, math.inf))
                out[key] = (min(old[0], sim), min(old[1], host))
    return out


def main(args):
    if "--" not in args:
        sys.exit(__doc__)
    split = args.index("--")
    a, b = best(args[:split]), best(args[split + 1 :])
    ratios = {}
    for key in a.keys() & b.keys():
        (sa, ha), (sb, hb) = a[key], b[key]
        if min(ha, hb) > 0:
            ratios[key] = (sa / ha) / (sb / hb)
    if not ratios:
        sys.exit("no kernel build on both sides")
    for key, r in sorted(ratios.items(), key=lambda kv: -kv[1]):
        print(f"{key[0]:<28} {key[1]:>3} {r:7.2f}x")
    geo = math.exp(sum(math.log(r) for r in ratios.values()) / len(ratios))
    print(f"geometric mean over {len(ratios)} common cases: {geo:.2f}x")


if __name__ == "__main__":
    main(sys.argv[1:])
