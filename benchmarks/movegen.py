"""Move-generation speed: ``len(position.legal_moves(dice))`` against gnubg-nn's ``moves()``.

Usage (from the repository root, after ``make test`` has installed the bench extra)::

    .venv/bin/python benchmarks/movegen.py [--cases 5000] [--repeat 9]

Both generators run over the same fixed, seeded set of (position, roll) cases taken from
random games; each rate is resulting positions per second, best of ``--repeat`` passes, the
passes of ours and gnubg-nn's alternating so that both see the same load. Two figures:

* the public API — ``len(position.legal_moves(dice))``, a Position method call that checks
  the dice and returns a LegalMoves sequence — against gnubg-nn's ``moves()``, which
  returns the resulting keys as a tuple (the ratio the speed goal is about);
* the compiled kernel alone, called from Python as the engine's batch code calls it inside
  numba (``backgammon._movegen.generate_rows`` on the position's key).
"""

from __future__ import annotations

import argparse
import os
import random
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from backgammon import Position, _movegen


def cases(n: int, seed: int = 1) -> list[tuple[Position, tuple[int, int]]]:
    rng = random.Random(seed)
    out: list[tuple[Position, tuple[int, int]]] = []
    while len(out) < n:
        pos = Position.initial()
        while not pos.is_game_over() and len(out) < n:
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            out.append((pos, dice))
            plays = pos.legal_moves(dice)
            pos = plays.position(rng.randrange(len(plays))) if plays else pos.swap()
    return out


def best_rate(fn: object, repeat: int) -> tuple[float, int]:
    best = 0.0
    total = 0
    for _ in range(repeat):
        t0 = time.perf_counter()
        total = fn()  # type: ignore[operator]
        dt = time.perf_counter() - t0
        best = max(best, total / dt)
    return best, total


def startup() -> None:
    """Time ``import backgammon`` and the first ``legal_moves`` call in a fresh process."""
    code = (
        "import time; t0 = time.perf_counter(); import backgammon; t1 = time.perf_counter(); "
        "backgammon.Position.initial().legal_moves((3, 1)); t2 = time.perf_counter(); "
        "print(f'{t1 - t0:.3f} {t2 - t1:.3f}')"
    )
    root = str(Path(__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=root)
    subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True)  # warm the cache
    runs = [
        subprocess.run([sys.executable, "-c", code], env=env, check=True, capture_output=True, text=True)
        .stdout.split()
        for _ in range(3)
    ]
    imp = min(float(r[0]) for r in runs)
    first = min(float(r[1]) for r in runs)
    print(f"new process: import backgammon {imp:.3f} s, first legal_moves {first:.3f} s (best of 3)")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--cases", type=int, default=5000)
    ap.add_argument("--repeat", type=int, default=9)
    args = ap.parse_args()

    startup()

    data = cases(args.cases)
    print(f"{len(data)} (position, roll) cases from seeded random games")

    def ours() -> int:
        return sum(len(pos.legal_moves(d)) for pos, d in data)

    buf = _movegen.scratch_rows()
    kernel = _movegen.generate_rows
    keys = [(pos._key, d[0], d[1]) for pos, d in data]

    def ours_kernel() -> int:
        return sum(kernel(key, d1, d2, buf) for key, d1, d2 in keys)

    try:
        import gnubg_nn
    except ImportError:
        print("gnubg-nn is not installed (pip install '.[bench]'): no reference to compare with")
        return 1
    boards = [(gnubg_nn.board_from_position_id(pos.position_id()), d) for pos, d in data]

    def theirs() -> int:
        return sum(len(gnubg_nn.moves(b, d[0], d[1])) for b, d in boards)

    ours()  # warm the compiled kernel
    ours_kernel()
    rates: dict[str, float] = {}
    counts: dict[str, int] = {}
    for _ in range(args.repeat):  # alternate, so that a burst of load hits all three alike
        for name, fn in (("api", ours), ("kernel", ours_kernel), ("ref", theirs)):
            rate, counts[name] = best_rate(fn, 1)
            rates[name] = max(rates.get(name, 0.0), rate)
    print(f"backgammon legal_moves: {rates['api']:,.0f} resulting positions/s ({counts['api']} per pass)")
    print(f"backgammon kernel:      {rates['kernel']:,.0f} resulting positions/s ({counts['kernel']} per pass)")
    print(f"gnubg-nn moves():       {rates['ref']:,.0f} resulting positions/s ({counts['ref']} per pass)")
    if len(set(counts.values())) != 1:
        print(f"warning: the generators disagree on the number of plays ({counts})")
    print(f"ratio kernel/gnubg-nn: {rates['kernel'] / rates['ref']:.2f}")
    print(f"ratio backgammon/gnubg-nn: {rates['api'] / rates['ref']:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
