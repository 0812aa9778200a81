"""Evaluation speed of the neural engine, beside gnubg-nn's, in the same run.

Usage (from the repository root)::

    PYTHONPATH=. .venv/bin/python benchmarks/evalspeed.py
    PYTHONPATH=. .venv/bin/python benchmarks/evalspeed.py --positions 5000 --decisions 1000

Figures, on positions met in random games (seeded):

* positions evaluated per second, one call per position (``Evaluator.outputs`` of a batch
  of one) and batched (one call per batch of ``--batch`` positions, the size of a typical
  roll's list of plays, and one call for all of them);
* the ``expert`` bot's median time per checker-play decision (``choose_move``: move
  generation, then one batched evaluation of every play);
* 1-ply evaluations per second (:meth:`Evaluator.one_ply_outputs`: every roll, the best
  reply) and the ``worldclass`` bot's median time per decision (1 ply on its candidates);
* the same for gnubg-nn (PyPI ``gnubg-nn``, GPL, used here only as a yardstick):
  ``gnubg_nn.probabilities(board, 0)`` per position and ``gnubg_nn.best_move(board, d1, d2)``
  (0 ply, and 1 ply) per decision. Skipped when gnubg-nn is not installed.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import numpy as np  # noqa: E402

from backgammon import Position  # noqa: E402
from backgammon.bots import load  # noqa: E402
from backgammon.engine import default_evaluator, key_of  # noqa: E402


def sample(n: int, seed: int) -> list[Position]:
    """``n`` positions (side on roll) from random games."""
    rng = random.Random(seed)
    out: list[Position] = []
    while len(out) < n:
        pos = Position.initial()
        while not pos.is_game_over() and len(out) < n:
            out.append(pos)
            legal = pos.legal_moves((rng.randint(1, 6), rng.randint(1, 6)))
            pos = legal.position(rng.randrange(len(legal))) if legal else pos.swap()
    return out


def rate(fn: Callable[[], Any], count: int, repeat: int = 3) -> float:
    """Best of ``repeat`` timings of ``fn`` (which handles ``count`` items), items/s."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return count / best


def median_ms(fn: Callable[[Position, tuple[int, int]], Any], cases: list[tuple[Position, tuple[int, int]]]) -> float:
    """Median wall time of ``fn(position, roll)`` over ``cases``, in milliseconds."""
    times = []
    for pos, roll in cases:
        t = time.perf_counter()
        fn(pos, roll)
        times.append(time.perf_counter() - t)
    return 1000 * statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=3000)
    ap.add_argument("--decisions", type=int, default=500)
    ap.add_argument("--batch", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    positions = sample(args.positions, args.seed)
    keys = np.concatenate([key_of(p) for p in positions])
    ev = default_evaluator()
    ev.outputs(keys[:50])  # load weights, bear-off table, compiled kernels
    rng = random.Random(args.seed + 1)
    cases = [(p, (rng.randint(1, 6), rng.randint(1, 6))) for p in rng.sample(positions, min(args.decisions, len(positions)))]
    cases = [c for c in cases if c[0].legal_moves(c[1])]

    rows: list[tuple[str, str, str]] = []

    def single() -> None:
        for i in range(len(keys)):
            ev.outputs(keys[i:i + 1])

    def batched() -> None:
        for i in range(0, len(keys), args.batch):
            ev.outputs(keys[i:i + args.batch])

    n = len(keys)
    rows.append(("engine: one position per call", f"{rate(single, n):,.0f} pos/s", ""))
    rows.append((f"engine: batches of {args.batch}", f"{rate(batched, n):,.0f} pos/s", ""))
    rows.append(("engine: one batch of all", f"{rate(lambda: ev.outputs(keys), n):,.0f} pos/s", ""))
    bot = load("expert")
    for pos, roll in cases[:20]:
        bot.choose_move(pos, roll)
    rows.append(("expert (0 ply): median per decision", f"{median_ms(bot.choose_move, cases):.3f} ms", ""))
    plays = statistics.mean(len(p.legal_moves(r)) for p, r in cases)
    rows.append(("  (mean plays per decision)", f"{plays:.1f}", ""))
    one_ply = keys[: max(1, n // 10)]
    rows.append(("engine: 1-ply evaluations (21 rolls each)",
                 f"{rate(lambda: ev.one_ply_outputs(one_ply), len(one_ply)):,.0f} pos/s", ""))
    wc = load("worldclass")
    wcases = cases[: max(1, len(cases) // 5)]
    for pos, roll in wcases[:5]:
        wc.choose_move(pos, roll)
    rows.append(("worldclass (1 ply): median per decision",
                 f"{median_ms(wc.choose_move, wcases):.3f} ms", ""))

    try:
        import gnubg_nn
    except ImportError:
        rows.append(("gnubg-nn", "not installed (pip install gnubg-nn)", ""))
    else:
        gboards = [gnubg_nn.board_from_position_id(p.position_id()) for p in positions]

        def gsingle() -> None:
            for b in gboards:
                gnubg_nn.probabilities(b, 0)

        # one pass only: gnubg-nn caches evaluations, a repeat would time its cache
        rows.append(("gnubg-nn: probabilities(board, 0)", f"{rate(gsingle, n, repeat=1):,.0f} pos/s", ""))
        gcases = [(gnubg_nn.board_from_position_id(p.position_id()), r) for p, r in cases]
        times = []
        for b, (d1, d2) in gcases:
            t = time.perf_counter()
            gnubg_nn.best_move(b, d1, d2)
            times.append(time.perf_counter() - t)
        rows.append(("gnubg-nn: best_move 0 ply, median per decision",
                     f"{1000 * statistics.median(times):.3f} ms", ""))
        times = []
        for b, (d1, d2) in gcases[: len(wcases)]:
            t = time.perf_counter()
            gnubg_nn.best_move(b, d1, d2, n=1)
            times.append(time.perf_counter() - t)
        rows.append(("gnubg-nn: best_move 1 ply, median per decision",
                     f"{1000 * statistics.median(times):.3f} ms", ""))

    print(f"{n} positions from random games (seed {args.seed}), {len(cases)} decisions")
    width = max(len(r[0]) for r in rows)
    for name, value, _ in rows:
        print(f"{name:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
