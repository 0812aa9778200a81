"""Where a bot loses points to gnubg-nn: the same games with gnubg's choice in one phase.

Usage (from the repository root)::

    PYTHONPATH=. .venv/bin/python benchmarks/phases.py
    PYTHONPATH=. .venv/bin/python benchmarks/phases.py worldclass --games 2000 --seeds 111 121

The bot (default ``expert``) plays cubeless money games against gnubg-nn at 0 ply
(``benchmarks/strength.py``'s ``gnubg``: ``gnubg_nn.best_move(board, d1, d2)``), on
duplicate dice. Then, on the same dice, one **hybrid** per phase: the bot, except that in
the positions of that phase it plays gnubg-nn 0-ply's choice. The hybrid's points minus the
bot's, paired by duplicate pair (same dice), is what the bot's own play in that phase costs
against gnubg's (positive: gnubg's choices there would have scored more). The phases of
the position on roll (checked in this order, every position in exactly one):

* ``race``: no contact (bear-offs included);
* ``opening``: contact, both pip counts together above 280 (the start is 2 × 167);
* ``bar``: contact, a checker of either side on the bar (entering, blitzes);
* ``bear-in``: contact, either side has borne off checkers (bearing in or off against an
  anchor, a back game's end);
* ``lopsided``: contact, the pip counts more than 60 apart (back games, prime v prime
  after many hits);
* ``middle``: the rest of the contact positions.

Printed per line: the player, the points per game against gnubg-nn ± the standard error
over duplicate pairs, and for a hybrid the paired difference with the bot ± its standard
error, then the same two figures luck-adjusted (``strength.py``'s luck, measured by the
shipped network: the same expected values, several times narrower, for about three times
the time of the games alone); first, the share of the bot's decisions (plays with two or more legal moves) in each
phase. A hybrid changes the games from the first swapped decision on, so the differences
are noisier than the decisions' share suggests, and they need not add up to the bot's whole
deficit: play in one phase leads into the next. Use several seeds.

Measured with ``sl13`` (2026-12-04, 4,000 games a seed, seeds 111 and 121, 7.5 minutes on
two cores) and with ``sl31s`` (2026-12-05, the same dice, luck measured, 38 minutes):
README.md, "A short tour", beside the strength table.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # strength.py, beside this file

from stats import mean_stderr  # noqa: E402
from strength import GnubgNN, play_game  # noqa: E402

from backgammon.engine.evaluator import default_evaluator  # noqa: E402

from backgammon import LegalMoves, Position  # noqa: E402
from backgammon.bots import Bot, CubeResponse, load  # noqa: E402
from backgammon.dice import SeededDice  # noqa: E402
from backgammon.matchid import MatchState, Resignation  # noqa: E402
from backgammon.progress import Progress  # noqa: E402

#: The phases, in the order they are checked (module docs).
PHASES = ("race", "opening", "bar", "bear-in", "lopsided", "middle")


def phase(pos: Position) -> str:
    """The phase of the position on roll (module docs).

    >>> phase(Position.initial())
    'opening'
    >>> phase(Position.from_position_id("AQAAAAAAAAAAAA"))  # a checker each, no contact
    'race'
    """
    if pos.is_race():
        return "race"
    mine, theirs = pos.pip_count()
    if mine + theirs > 280:
        return "opening"
    if any(pos.bar()):
        return "bar"
    if any(pos.borne_off()):
        return "bear-in"
    if abs(mine - theirs) > 60:
        return "lopsided"
    return "middle"


class Hybrid(Bot):
    """``bot`` everywhere but in ``swapped``'s phase, where gnubg-nn 0 ply chooses the
    checker play; counts its checker-play decisions per phase. The cube and resignations
    are always the bot's."""

    name = "hybrid"

    def __init__(self, bot: Bot, gnubg: Bot | None, swapped: str | None) -> None:
        super().__init__()
        self.bot, self.gnubg, self.swapped = bot, gnubg, swapped
        self.decisions: Counter[str] = Counter()

    def choose_index(self, legal: LegalMoves) -> int:
        if len(legal) < 2:
            return self.bot.choose_index(legal)
        kind = phase(legal.origin)
        self.decisions[kind] += 1
        if kind == self.swapped and self.gnubg is not None:
            return self.gnubg.choose_index(legal)
        return self.bot.choose_index(legal)

    def should_double(self, position: Position, state: MatchState) -> bool:
        return self.bot.should_double(position, state)

    def respond_to_double(self, position: Position, state: MatchState) -> CubeResponse:
        return self.bot.respond_to_double(position, state)

    def accept_resignation(self, position: Position, state: MatchState,
                           offer: Resignation | int | str) -> bool:
        return self.bot.accept_resignation(position, state, offer)

    def offer_resignation(self, position: Position, state: MatchState) -> int:
        return self.bot.offer_resignation(position, state)


@dataclass(frozen=True)
class PairResult:
    """Duplicate pair ``index`` of dice seed ``seed`` for one player (``swapped`` None: the
    bot itself): its points in both games and its decisions per phase."""

    swapped: str | None
    seed: int
    index: int
    points: tuple[int, int]
    decisions: dict[str, int]
    #: the player's luck-adjusted points in both games (``strength.py``'s luck, by the
    #: shipped network)
    adjusted: tuple[float, float] = (math.nan, math.nan)

    @property
    def mean(self) -> float:
        return (self.points[0] + self.points[1]) / 2

    @property
    def adjusted_mean(self) -> float:
        return (self.adjusted[0] + self.adjusted[1]) / 2


def play_pair(task: tuple[str, str | None, int, int]) -> PairResult:
    """Both games of duplicate pair ``index`` against gnubg-nn 0 ply, the bot's seeds and the
    dice derived as ``strength.py`` derives them: the bot alone plays ``strength.py``'s
    games of the same seed."""
    name, swapped, seed, index = task
    points = []
    adjusted = []
    decisions: Counter[str] = Counter()
    for game in (0, 1):
        own = load(name, seed=random.Random(f"{seed}:{index}:{game}:a"))
        gnubg = GnubgNN(seed=random.Random(f"{seed}:{index}:{game}:b"))
        player = Hybrid(own, GnubgNN() if swapped else None, swapped)
        dice = SeededDice(f"{seed}:{index}:dice")
        outcome = play_game((player, gnubg) if game == 0 else (gnubg, player), dice, default_evaluator())
        points.append(outcome.seat_points(game))
        adjusted.append(outcome.adjusted(game))
        decisions.update(player.decisions)
    return PairResult(swapped, seed, index, (points[0], points[1]), dict(decisions),
                      (adjusted[0], adjusted[1]))


def run(name: str, games: int, seeds: Sequence[int], workers: int,
        on_pair: Callable[[], None] | None = None) -> list[PairResult]:
    """The bot, then a hybrid per phase, each on ``games`` games (whole duplicate pairs) of
    every seed."""
    pairs = max(1, (games + 1) // 2)
    tasks = [(name, swapped, seed, k) for swapped in (None, *PHASES) for seed in seeds
             for k in range(pairs)]
    out: list[PairResult] = []

    def collect(results: Iterable[PairResult]) -> None:
        for r in results:
            out.append(r)
            if on_pair:
                on_pair()

    if workers <= 1:
        collect(map(play_pair, tasks))
    else:
        chunk = max(1, min(16, len(tasks) // (workers * 20)))
        with multiprocessing.Pool(workers) as pool:
            collect(pool.imap_unordered(play_pair, tasks, chunksize=chunk))
    return out


def report(results: Sequence[PairResult], name: str) -> list[str]:
    """The printed table (module docs): decision shares, then one line per player."""
    by: dict[str | None, dict[tuple[int, int], PairResult]] = {}
    for r in results:
        by.setdefault(r.swapped, {})[(r.seed, r.index)] = r
    own = by.get(None, {})
    counts: Counter[str] = Counter()
    for r in own.values():
        counts.update(r.decisions)
    total = sum(counts.values()) or 1
    lines = [f"{name}'s decisions by phase: " + ", ".join(
        f"{p} {100 * counts[p] / total:.1f}%" for p in PHASES)]
    lines.append(f"{'player':<28}{'games':>7}{'v gnubg-nn 0 ply':>20}{'− ' + name + ' (paired)':>24}"
                 f"{'luck-adjusted':>20}{'− ' + name + ' (adjusted)':>24}")
    for swapped in (None, *PHASES):
        rows = by.get(swapped)
        if not rows:
            continue
        m, se = mean_stderr([r.mean for r in rows.values()])
        am, ase = mean_stderr([r.adjusted_mean for r in rows.values()])
        label = name if swapped is None else f"{name}, gnubg in {swapped}"
        paired = adjusted = "–"
        if swapped is not None:
            diffs = [r.mean - own[k].mean for k, r in rows.items() if k in own]
            if diffs:
                d, dse = mean_stderr(diffs)
                paired = f"{d:+.4f} ± {dse:.4f}"
                d, dse = mean_stderr([r.adjusted_mean - own[k].adjusted_mean for k, r in rows.items() if k in own])
                adjusted = f"{d:+.4f} ± {dse:.4f}"
        lines.append(f"{label:<28}{2 * len(rows):>7}{f'{m:+.4f} ± {se:.4f}':>20}{paired:>24}"
                     f"{f'{am:+.4f} ± {ase:.4f}':>20}{adjusted:>24}")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("bot", nargs="?", default="expert", help="the bot (default expert)")
    ap.add_argument("--games", type=int, default=4000, help="games per seed and player (default 4000)")
    ap.add_argument("--seeds", type=int, nargs="+", default=[111, 121], help="dice seeds (default 111 121)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="processes (default: one per core)")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("--games must be at least 1")
    try:
        load(args.bot)
        GnubgNN()
    except (ValueError, ImportError) as exc:
        ap.error(str(exc))
    pairs = max(1, (args.games + 1) // 2)
    players = 1 + len(PHASES)
    print(f"{args.bot} and its {len(PHASES)} hybrids v gnubg-nn 0 ply: {2 * pairs} cubeless money "
          f"games each per seed, seeds {' '.join(map(str, args.seeds))}, {args.workers} worker(s)")
    bar = Progress(players * pairs * len(args.seeds), "phases", unit="pairs",
                   enabled=False if args.quiet else None)
    t0 = time.perf_counter()
    try:
        results = run(args.bot, args.games, args.seeds, args.workers, on_pair=lambda: bar.update(bar.done + 1))
    finally:
        bar.close()
    for line in report(results, args.bot):
        print(line)
    print(f"  {2 * len(results)} games in {time.perf_counter() - t0:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
