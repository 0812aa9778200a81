"""Evaluation speed of the neural engine, beside gnubg-nn's, in the same run.

Usage (from the repository root)::

    PYTHONPATH=. .venv/bin/python benchmarks/evalspeed.py
    PYTHONPATH=. .venv/bin/python benchmarks/evalspeed.py --positions 5000 --decisions 1000

Figures:

* positions evaluated per second (on ``--positions`` positions met in seeded random games),
  one call per position (``Evaluator.outputs`` of a batch of one) and batched (one call per
  batch of ``--batch`` positions, the size of a typical roll's list of plays, and one call
  for all of them); 1-ply evaluations per second (:meth:`Evaluator.one_ply_outputs`: every
  roll, the best reply);
* the bots' median time per checker-play decision (``choose_move``: move generation, the
  evaluations, the filters) on decisions from realistic games: positions met in seeded
  ``expert`` self-play (:func:`backgammon.engine._search_kernels.sample_positions` without
  noise), each with a seeded roll. ``expert`` (0 ply) on ``--decisions`` of them,
  ``worldclass`` (1 ply) and ``grandmaster`` (2 ply, the strongest level) on
  ``--deep`` others each;
* the same for gnubg-nn (PyPI ``gnubg-nn``, GPL, used here only as a yardstick):
  ``gnubg_nn.probabilities(board, 0)`` per position and ``gnubg_nn.best_move(board, d1, d2,
  n=0|1|2)`` per decision, on the very decisions our bot of that depth was timed on, and
  the ratios ours / gnubg-nn per depth (below 1: ours is faster). Decisions are timed in
  CPU time of the thread (both engines compute in the calling thread), so that a busy
  machine's waits stay out of the medians. gnubg-nn caches
  evaluations, so each depth gets its own decisions (gnubg-nn has not seen them at that
  depth before). Skipped when gnubg-nn is not installed.
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
from backgammon.engine import _search_kernels as S  # noqa: E402
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


def self_play_decisions(n: int, seed: int) -> list[tuple[Position, tuple[int, int]]]:
    """``n`` decisions with a choice (two plays or more) from seeded ``expert`` self-play
    at 0 ply: the positions met (side on roll), shuffled, each with a seeded roll."""
    ev = default_evaluator()
    out = np.zeros((max(4 * n, 200), 50), np.uint8)
    kernel: Any = S.sample_positions  # a numba dispatcher: its stub types no arguments
    count = kernel(seed, 0, 10 * n + 20, 0.0, *ev._weights, ev.bearoff, *ev._bearoff_tables(), out)
    rng = random.Random(seed + 1)
    rows = list(range(count))
    rng.shuffle(rows)
    cases: list[tuple[Position, tuple[int, int]]] = []
    for r in rows:
        key = bytes(out[r])
        pos = Position(list(key[:25]), list(key[25:]))
        roll = (rng.randint(1, 6), rng.randint(1, 6))
        if len(pos.legal_moves(roll)) >= 2:
            cases.append((pos, roll))
            if len(cases) == n:
                break
    return cases


#: The strongest level's median decision must stay under this (milliseconds).
STRONGEST_BOUND_MS = 100.0


def rate(fn: Callable[[], Any], count: int, repeat: int = 3) -> float:
    """Best of ``repeat`` timings of ``fn`` (which handles ``count`` items), items/s."""
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return count / best


def median_ms(fn: Callable[[Position, tuple[int, int]], Any], cases: list[tuple[Position, tuple[int, int]]]) -> float:
    """Median CPU time (this thread's: a busy machine's waits left out) of
    ``fn(position, roll)`` over ``cases``, in milliseconds."""
    times = []
    for pos, roll in cases:
        t = time.thread_time()
        fn(pos, roll)
        times.append(time.thread_time() - t)
    return 1000 * statistics.median(times)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--positions", type=int, default=3000)
    ap.add_argument("--decisions", type=int, default=500, help="0-ply decisions (default 500)")
    ap.add_argument("--deep", type=int, default=100,
                    help="1-ply and 2-ply decisions, each (default 100)")
    ap.add_argument("--batch", type=int, default=30)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    positions = sample(args.positions, args.seed)
    keys = np.concatenate([key_of(p) for p in positions])
    ev = default_evaluator()
    ev.outputs(keys[:50])  # load weights, bear-off table, compiled kernels

    rows: list[tuple[str, str]] = []

    def single() -> None:
        for i in range(len(keys)):
            ev.outputs(keys[i:i + 1])

    def batched() -> None:
        for i in range(0, len(keys), args.batch):
            ev.outputs(keys[i:i + args.batch])

    n = len(keys)
    rows.append(("engine: one position per call", f"{rate(single, n):,.0f} pos/s"))
    rows.append((f"engine: batches of {args.batch}", f"{rate(batched, n):,.0f} pos/s"))
    batch_rate = rate(lambda: ev.outputs(keys), n)
    rows.append(("engine: one batch of all", f"{batch_rate:,.0f} pos/s"))
    one_ply = keys[: max(1, n // 10)]
    rows.append(("engine: 1-ply evaluations (21 rolls each)",
                 f"{rate(lambda: ev.one_ply_outputs(one_ply), len(one_ply)):,.0f} pos/s"))

    # decisions from expert self-play: one set per depth (gnubg-nn caches evaluations)
    deep = args.deep
    cases = self_play_decisions(args.decisions + 2 * deep, args.seed)
    sets = {0: cases[:args.decisions], 1: cases[args.decisions:args.decisions + deep],
            2: cases[args.decisions + deep:]}
    ours: dict[int, float] = {}
    for depth, name in ((0, "expert"), (1, "worldclass"), (2, "grandmaster")):
        bot = load(name)
        for pos, roll in sets[depth][:5]:  # compile, load the tables
            bot.choose_move(pos, roll)
        ours[depth] = median_ms(bot.choose_move, sets[depth])
        rows.append((f"{name} ({depth} ply): median per decision", f"{ours[depth]:.3f} ms"))
    plays = statistics.mean(len(p.legal_moves(r)) for p, r in sets[0])
    rows.append(("  (mean plays per decision)", f"{plays:.1f}"))
    bound = "under" if ours[2] < STRONGEST_BOUND_MS else "NOT under"
    rows.append(("strongest level (grandmaster): median decision",
                 f"{ours[2]:.3f} ms ({bound} {STRONGEST_BOUND_MS:.0f} ms)"))

    try:
        import gnubg_nn
    except ImportError:
        rows.append(("gnubg-nn", "not installed (pip install gnubg-nn)"))
    else:
        gboards = [gnubg_nn.board_from_position_id(p.position_id()) for p in positions]

        def gsingle() -> None:
            for b in gboards:
                gnubg_nn.probabilities(b, 0)

        # one pass only: gnubg-nn caches evaluations, a repeat would time its cache
        gnubg_rate = rate(gsingle, n, repeat=1)
        rows.append(("gnubg-nn: probabilities(board, 0)", f"{gnubg_rate:,.0f} pos/s"))
        theirs: dict[int, float] = {}
        for depth in (0, 1, 2):
            times = []
            for p, (d1, d2) in sets[depth]:
                b = gnubg_nn.board_from_position_id(p.position_id())
                t = time.thread_time()
                gnubg_nn.best_move(b, d1, d2, n=depth)
                times.append(time.thread_time() - t)
            theirs[depth] = 1000 * statistics.median(times)
            rows.append((f"gnubg-nn: best_move {depth} ply, median per decision",
                         f"{theirs[depth]:.3f} ms"))
        rows.append(("ratio batch evaluation ours/gnubg-nn (rates)", f"{batch_rate / gnubg_rate:.2f}"))
        for depth in (0, 1, 2):
            rows.append((f"ratio ours/gnubg-nn, {depth} ply (times)", f"{ours[depth] / theirs[depth]:.2f}"))

    print(f"{n} positions from random games (seed {args.seed}); decisions from expert self-play: "
          f"{len(sets[0])} at 0 ply, {len(sets[1])} at 1 ply, {len(sets[2])} at 2 ply")
    width = max(len(r[0]) for r in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
