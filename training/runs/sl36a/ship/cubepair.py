"""Cube decisions of networks paired on the same decisions (session 26): ``benchmarks/cube.py``'s
400 positions of the shipped network's self-play (seed 1) at its 11 score situations, gnubg-nn
2 ply the reference; each network's doubler and taker cost minus the first one's, paired.

    PYTHONPATH=. .venv/bin/python training/runs/sl36a/ship/cubepair.py \\
        training/runs/sl31s/best.npz backgammon/engine/weights/expert.npz training/runs/sl36b/round-0.npz
"""

from __future__ import annotations

import math
import sys

from tests.benchmark_modules import load_benchmark


def mean_stderr(xs: list[float]) -> tuple[float, float]:
    n = len(xs)
    m = sum(xs) / n
    return m, math.sqrt(sum((x - m) ** 2 for x in xs) / (n - 1) / n)


def main(files: list[str]) -> None:
    cube = load_benchmark("cube")
    positions = cube.sample_positions(400, 1)
    runs = [cube.evaluate(positions, cube.SITUATIONS, cube.load_bot(f"worldclass@{f}"), 2) for f in files]
    for f, run in zip(files, runs):
        for name, cost, field in (("doubler", cube.doubler_cost, "ours"), ("taker", cube.taker_cost, "our_take")):
            own = [1000 * cost(getattr(r, field), r.ref) for r in run]
            line = f"{f}: {name} {sum(own) / len(own):.2f} mMWC a decision"
            if run is not runs[0]:
                diff = [a - 1000 * cost(getattr(b, field), b.ref) for a, b in zip(own, runs[0])]
                line += " - {}: {:+.3f} ± {:.3f} paired".format(files[0], *mean_stderr(diff))
            print(line)


if __name__ == "__main__":
    main(sys.argv[1:])
