"""Bot strength: two bots play cubeless money games with duplicate dice.

Usage (from the repository root)::

    PYTHONPATH=. .venv/bin/python benchmarks/strength.py pubeval random --games 1000
    PYTHONPATH=. .venv/bin/python benchmarks/strength.py pubeval pubeval --games 1000 --seed 7

Each dice sequence is played twice with the sides swapped: in the first game of a pair the
first bot sits in seat 0 and the second in seat 1, in the second game they change seats and
the seats get the same dice (the same opening roll, then the same rolls in the same order),
so luck largely cancels. ``--games`` counts games (an odd number is rounded up to a whole
pair); all sequences derive from ``--seed``, and so do the bots' own random streams, so a
run is reproducible whatever ``--workers`` is.

A game is played on a :class:`backgammon.table.Table` (a money session of one game, the
two bots at its seats, :func:`play_table_game`): every decision is
:func:`backgammon.table.decide`'s, as in the terminal and on the web. The opening roll (R4)
— each seat throws one die, equal dice are thrown again, the higher die moves first and
plays both numbers — then the seats alternate, rolling two dice; the bot picks one of the
legal plays and a seat with none loses its turn (R11). The winner (R21) scores 1, a gammon
2, a backgammon 3 (R22–R24); there is no cube (the cube limit is 1, so nobody may double).
A bot may offer to resign when one result is left (the ``expert`` in a race; R31), which
the other accepts or declines by its own policy. The figure printed is the first bot's mean
points per game, with its standard error computed over the duplicate pairs (the two games
of a pair are not independent). A progress bar goes to stderr (``rich`` when it is
installed, plain text otherwise).

The dice of pair ``k`` are :class:`~backgammon.dice.SeededDice` seeded ``"{seed}:{k}:dice"``
(``random.Random`` with that seed: the same rolls as before the games moved onto the
table), restarted for the second game of the pair. The game hands the opening dice to the
winner higher die first, where the former loop of this file kept seat 0's die first: a bot
that picks by index among the legal plays (``random``) may so open differently than it did
then; bots that pick by evaluation play the same games.

Opponents ``gnubg``, ``gnubg1`` and ``gnubg2``: GNU Backgammon's neural net through PyPI's
``gnubg-nn`` (the ``bench`` extra; GPL, so they are registered here in the benchmark only,
never in the package), choosing with ``gnubg_nn.best_move(board, d1, d2, n=...)`` at 0, 1
and 2 plies (gnubg-nn's own move filters)::

    PYTHONPATH=. .venv/bin/python benchmarks/strength.py expert gnubg --games 2000
    PYTHONPATH=. .venv/bin/python benchmarks/strength.py grandmaster gnubg1 --games 1000 --workers 1
    PYTHONPATH=. .venv/bin/python benchmarks/strength.py grandmaster gnubg2 --games 200 --workers 1

Luck-adjusted points (:mod:`luck`, on unless ``--no-luck``): the shipped network values
every roll of each game before it is thrown, and each game's points minus its luck are
printed beside the raw figure — the same expected value, far less variance (gnubg's and
XG's variance reduction). ``expert`` against gnubg-nn 0 ply over the 4,000 games of seed
191: raw +0.029 ± 0.019, luck-adjusted +0.0191 ± 0.0027 (seven times narrower, for three
times the time: measuring the luck costs about 0.1 s a game on this machine, next to
nothing beside the 2-ply bots' games). Between bots far apart (``pubeval`` against
``random``) the adjusted error is wider, not narrower: the luck terms then add noise.

A bot may be named ``NAME@FILE``: that bot with the network weights of ``FILE``, so a
candidate network plays without being shipped. ``--compare BOT`` plays ``BOT`` against the
same opponent on the same dice after the first run and prints the first bot's difference
with it, paired by duplicate pair, with the standard error of the per-pair differences
(raw and luck-adjusted).
Pairing does not make it much smaller than two separate runs would (two networks' games
part at their first different play, and the dice then fall on different positions):
telling apart networks 0.01 points per game apart takes tens of thousands of games;
``benchmarks/judge.py`` separates them per decision::

    PYTHONPATH=. .venv/bin/python benchmarks/strength.py expert@training/runs/sl15/best.npz gnubg --games 4000 --compare expert
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import random
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # stats.py, beside this file

from backgammon import LegalMoves, Move, Step
from backgammon.bots import Bot, available, load
from backgammon.bots.registry import register
from backgammon.dice import DiceSource, SeededDice
from backgammon.engine.evaluator import Evaluator, default_evaluator
from backgammon.progress import Progress
from backgammon.rules import Rules
from backgammon.table import Seat, Table, decide
from backgammon.table.commands import Play
from luck import game_luck
from stats import mean_stderr


class GnubgNN(Bot):
    """gnubg-nn's ``best_move`` at ``PLIES`` plies (0 here), as a Bot (benchmark only:
    gnubg-nn is GPL)."""

    name = "gnubg"
    #: the ``n`` of ``gnubg_nn.best_move``: 0, 1 or 2 plies of look-ahead
    PLIES = 0

    def __init__(self, *, seed: Any = None) -> None:
        super().__init__(seed=seed)
        import gnubg_nn  # imported here: a missing extra fails only when this bot is asked for

        self._gnubg = gnubg_nn

    def choose_index(self, legal: LegalMoves) -> int:
        pos = legal.origin
        d1, d2 = legal.dice
        board = self._gnubg.board_from_position_id(pos.position_id())
        steps = self._gnubg.best_move(board, d1, d2, n=self.PLIES)
        after = pos
        for src, dst in steps:  # one hop at a time, so hits on the way are kept
            after = after.play(Move([Step(src, dst)])).swap()
        target = after.swap()
        for i in range(len(legal)):
            if legal.position(i) == target:
                return i
        raise RuntimeError(f"gnubg-nn chose {steps} in {pos.position_id()} {legal.dice}: not a legal play")


class GnubgNN1(GnubgNN):
    """gnubg-nn's ``best_move(..., n=1)``: 1 ply."""

    name = "gnubg1"
    PLIES = 1


class GnubgNN2(GnubgNN):
    """gnubg-nn's ``best_move(..., n=2)``: 2 plies."""

    name = "gnubg2"
    PLIES = 2


#: The gnubg-nn opponents by name.
GNUBG_BOTS: dict[str, type[GnubgNN]] = {"gnubg": GnubgNN, "gnubg1": GnubgNN1, "gnubg2": GnubgNN2}


def register_gnubg() -> None:
    """Make ``gnubg``, ``gnubg1`` and ``gnubg2`` loadable by name in this process, when
    gnubg-nn is installed.

    Called by :func:`main` and in each worker, not at import, so that importing this module
    (the tests do) leaves the package's registry as it was.
    """
    try:
        import gnubg_nn  # noqa: F401
    except ImportError:  # the bench extra is not installed: the gnubg opponent is unavailable
        return
    for name, cls in GNUBG_BOTS.items():
        register(name, replace=True)(cls)

#: A game longer than this many plays is a bug in a bot or in the move generator.
MAX_PLIES = 10_000


@dataclass(frozen=True)
class GameOutcome:
    """One game: the winning seat (0 or 1) and the points it scored (1, 2 or 3); ``luck``
    is seat 0's luck over the game (:func:`luck.game_luck`, cubeless equity), NaN when it
    was not measured."""

    winner: int
    points: int
    luck: float = math.nan

    def seat_points(self, seat: int) -> int:
        """The points for ``seat``: positive when it won."""
        return self.points if self.winner == seat else -self.points

    def adjusted(self, seat: int) -> float:
        """``seat``'s luck-adjusted points: its points minus its luck."""
        luck = self.luck if seat == 0 else -self.luck
        return self.seat_points(seat) - luck


#: The names of the two seats of a benchmark table: the bots sit in this order.
SEATS = ("seat 0", "seat 1")


def bot_table(bots: Sequence[Bot], dice: DiceSource, rules: Rules) -> Table:
    """A money-session :class:`~backgammon.table.Table` with ``bots[0]`` in seat 0 and
    ``bots[1]`` in seat 1 (the already built bots, with their own random streams), dice
    from ``dice``."""
    table = Table.match([Seat(name, bot.name) for name, bot in zip(SEATS, bots)], 0, rules, dice=dice)
    for name, bot in zip(SEATS, bots):
        table.use_bot(name, bot)
    return table


def play_table_game(table: Table, max_plies: int = MAX_PLIES) -> int:
    """Let the table's bots play its current game to its end, or until ``max_plies`` plays
    (checker plays, empty ones included) were made; return the plays made
    (:func:`bots_act`)."""
    game = table.contest.game()  # a money session starts the next game at once: watch this one
    return bots_act(table, game.is_over, max_plies)


def bots_act(table: Table, over: Callable[[], bool], max_plies: int = MAX_PLIES) -> int:
    """Let the table's bots act until ``over()`` or ``max_plies`` plays (checker plays,
    empty ones included) were made; return the plays made. Each decision is
    :func:`backgammon.table.decide`'s (the one place where bots decide: cube, plays,
    resignations), submitted from the bot's seat; a refused command raises."""
    plies = 0
    while not over() and plies < max_plies:
        seat = table.bot_to_act()
        if seat is None:  # pragma: no cover - two bot seats always have someone to act
            raise RuntimeError(f"no bot to act at {table!r}")
        command = decide(table.bot(seat), table, seat)
        if isinstance(command, Play):
            plies += 1
        outcome = table.submit(seat, command)
        if outcome.refusal is not None:
            raise RuntimeError(f"{table.bot(seat)!r} at {seat!r} chose {command!r}: {outcome.refusal}")
    return plies


#: Cubeless money play: the cube cannot leave 1, so no double is ever offered.
CUBELESS = Rules(cube_limit=1)


def play_game(bots: tuple[Bot, Bot], dice: DiceSource, judge: Evaluator | None = None) -> GameOutcome:
    """One cubeless game between ``bots[0]`` (seat 0) and ``bots[1]`` (seat 1), with dice
    drawn from ``dice``, played on a :class:`~backgammon.table.Table`; with a ``judge``
    network, seat 0's luck measured by it."""
    table = bot_table(bots, dice, CUBELESS)
    game = table.contest.game()
    play_table_game(table)
    result = game.result
    if result is None:
        raise RuntimeError(f"no result after {MAX_PLIES} plays (position {game.position_id()})")
    return GameOutcome(result.winner, result.points,
                       math.nan if judge is None else game_luck(judge, game))


@dataclass(frozen=True)
class PairResult:
    """The two games of duplicate pair ``index``, as points for the first bot, and its
    luck-adjusted points in each (NaN when luck was not measured)."""

    index: int
    first: int  # first bot in seat 0
    second: int  # first bot in seat 1, same dice
    first_adjusted: float = math.nan
    second_adjusted: float = math.nan


def load_bot(spec: str, seed: Any = None) -> Bot:
    """The bot ``spec`` names: a registered name, or ``NAME@FILE`` — that bot with the
    network weights of ``FILE`` (a training run's ``best.npz``: candidates play without
    being shipped; each process loads a file once)."""
    if "@" in spec:
        name, weights = spec.split("@", 1)
        return load(name, seed=seed, weights=weights)
    return load(spec, seed=seed)


#: A pair to play: the two bots, the seed, the pair's index, and whether to measure luck.
PairTask = tuple[str, str, int, int, bool]


def play_pair(task: PairTask) -> PairResult:
    """Duplicate pair ``index``: both games, dice and bot seeds derived from ``seed``; with
    ``luck``, each game's luck measured by the shipped network (:mod:`luck`)."""
    name_a, name_b, seed, index, with_luck = task
    if {name_a, name_b} & GNUBG_BOTS.keys():
        register_gnubg()
    judge = default_evaluator() if with_luck else None
    results: list[int] = []
    adjusted: list[float] = []
    for game in (0, 1):
        a = load_bot(name_a, seed=random.Random(f"{seed}:{index}:{game}:a"))
        b = load_bot(name_b, seed=random.Random(f"{seed}:{index}:{game}:b"))
        dice = SeededDice(f"{seed}:{index}:dice")  # the same stream for both games
        bots = (a, b) if game == 0 else (b, a)
        outcome = play_game(bots, dice, judge)
        seat_of_a = game
        results.append(outcome.seat_points(seat_of_a))
        adjusted.append(outcome.adjusted(seat_of_a))
    return PairResult(index, results[0], results[1], adjusted[0], adjusted[1])


@dataclass
class Tally:
    """Running totals, from the first bot's side."""

    pairs: list[PairResult] = field(default_factory=list)

    def add(self, pair: PairResult) -> None:
        self.pairs.append(pair)

    @property
    def games(self) -> int:
        return 2 * len(self.pairs)

    def points(self) -> list[int]:
        return [p for pair in sorted(self.pairs, key=lambda r: r.index) for p in (pair.first, pair.second)]

    def mean(self) -> float:
        pts = self.points()
        return sum(pts) / len(pts) if pts else 0.0

    def stderr(self) -> float:
        """Standard error of the mean points per game, over duplicate pairs."""
        per_pair = [(p.first + p.second) / 2 for p in sorted(self.pairs, key=lambda r: r.index)]
        return mean_stderr(per_pair)[1]

    def luck_measured(self) -> bool:
        """Whether every game's luck was measured (so the adjusted figures exist)."""
        return bool(self.pairs) and not any(math.isnan(p.first_adjusted) for p in self.pairs)

    def adjusted(self) -> tuple[float, float]:
        """The luck-adjusted points per game and their standard error over the duplicate
        pairs (NaN when luck was not measured)."""
        if not self.luck_measured():
            return math.nan, math.nan
        return mean_stderr([(p.first_adjusted + p.second_adjusted) / 2
                            for p in sorted(self.pairs, key=lambda r: r.index)])

    def naive_stderr(self) -> float:
        """Standard error as if all games were independent (for comparison)."""
        return mean_stderr(self.points())[1]

    def breakdown(self) -> dict[int, int]:
        """How many games ended with each result (+3 .. -3), from the first bot's side."""
        out: dict[int, int] = {}
        for p in self.points():
            out[p] = out.get(p, 0) + 1
        return out


def run(
    name_a: str,
    name_b: str,
    games: int,
    seed: int,
    workers: int,
    on_pair: Callable[[Tally], None] | None = None,
    luck: bool = False,
) -> Tally:
    """Play ``games`` games (rounded up to whole duplicate pairs); return the tally, with
    each game's luck measured when ``luck`` is true."""
    pairs = max(1, (games + 1) // 2)
    tasks: list[PairTask] = [(name_a, name_b, seed, k, luck) for k in range(pairs)]
    tally = Tally()
    results: Iterable[PairResult]
    if workers <= 1:
        results = map(play_pair, tasks)
        for pair in results:
            tally.add(pair)
            if on_pair:
                on_pair(tally)
        return tally
    chunk = max(1, min(16, pairs // (workers * 20)))
    with multiprocessing.Pool(workers) as pool:
        results = pool.imap_unordered(play_pair, tasks, chunksize=chunk)
        for pair in results:
            tally.add(pair)
            if on_pair:
                on_pair(tally)
    return tally


def _iter_lines(tally: Tally, name_a: str, name_b: str) -> Iterator[str]:
    if name_a == name_b:
        name_a, name_b = f"{name_a} (first)", f"{name_b} (second)"
    counts = tally.breakdown()
    a_wins = sum(v for k, v in counts.items() if k > 0)
    b_wins = sum(v for k, v in counts.items() if k < 0)
    yield (
        f"{name_a}: {tally.mean():+.3f} points per game ± {tally.stderr():.3f} "
        f"(standard error over {len(tally.pairs)} duplicate pairs; "
        f"{tally.naive_stderr():.3f} if the games were independent)"
    )
    if tally.luck_measured():
        m, se = tally.adjusted()
        yield (f"{name_a}: {m:+.4f} points per game ± {se:.4f} luck-adjusted "
               f"(the same games, each game's points minus its luck)")
    yield (
        f"  {name_a} won {a_wins} ({counts.get(1, 0)} single, {counts.get(2, 0)} gammons, "
        f"{counts.get(3, 0)} backgammons); {name_b} won {b_wins} ({counts.get(-1, 0)} single, "
        f"{counts.get(-2, 0)} gammons, {counts.get(-3, 0)} backgammons)"
    )


def match_parser(description: str) -> argparse.ArgumentParser:
    """The arguments of a duplicate-dice match between two bots (this benchmark's and
    ``cubeful.py``'s): ``bot_a``, ``bot_b``, ``--games``, ``--seed``, ``--workers``,
    ``--quiet``. Register benchmark-only bots first: the help lists the bots."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("bot_a", help=f"first bot ({', '.join(available())})")
    ap.add_argument("bot_b", help="second bot")
    ap.add_argument("--games", type=int, default=1000, help="games to play (default 1000)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the dice and the bots (default 1)")
    ap.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 1,
        help="processes (default: one per CPU core)",
    )
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    return ap


def parse_match_args(ap: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    """Parse ``argv`` with a :func:`match_parser`; a bad game count or an unknown bot is a
    usage error."""
    args = ap.parse_args(argv)
    if args.games < 1:
        ap.error("--games must be at least 1")
    for name in (args.bot_a, args.bot_b, *([args.compare] if getattr(args, "compare", None) else [])):
        try:
            load_bot(name)
        except (ValueError, OSError) as exc:
            ap.error(str(exc))
    return args


def paired_difference(tally: Tally, other: Tally, adjusted: bool = False) -> tuple[float, float, int]:
    """``tally``'s first bot minus ``other``'s, in points per game, over the duplicate pairs
    both played (the same dice: pair ``k`` of one seed is the same in every run), with the
    standard error of the per-pair differences, and the number of pairs; ``adjusted``
    compares the luck-adjusted points."""
    theirs = {p.index: p for p in other.pairs}

    def total(p: PairResult) -> float:
        return p.first_adjusted + p.second_adjusted if adjusted else p.first + p.second

    diffs = [(total(p) - total(theirs[p.index])) / 2
             for p in sorted(tally.pairs, key=lambda r: r.index) if p.index in theirs]
    m, se = mean_stderr(diffs)
    return m, se, len(diffs)


def _play_and_print(name_a: str, name_b: str, args: argparse.Namespace) -> Tally:
    """:func:`run` with a progress bar, then its lines and its time printed."""
    pairs = max(1, (args.games + 1) // 2)
    progress = Progress(2 * pairs, f"{name_a} vs {name_b}", unit="games",
                        enabled=False if args.quiet else None)

    def on_pair(tally: Tally) -> None:
        progress.update(tally.games, f"{tally.mean():+.3f} ppg")

    t0 = time.perf_counter()
    try:
        tally = run(name_a, name_b, args.games, args.seed, args.workers, on_pair, luck=args.luck)
    finally:
        progress.close()
    elapsed = time.perf_counter() - t0
    for line in _iter_lines(tally, name_a, name_b):
        print(line)
    print(f"  {tally.games} games in {elapsed:.1f} s ({tally.games / elapsed:.0f} games/s)")
    return tally


def main(argv: list[str] | None = None) -> int:
    register_gnubg()
    ap = match_parser((__doc__ or "").splitlines()[0])
    ap.add_argument("--compare", metavar="BOT", default=None,
                    help="also play BOT against the second bot on the same dice and print "
                         "the first bot's paired difference with it")
    ap.add_argument("--no-luck", dest="luck", action="store_false",
                    help="do not measure each game's luck (faster; no luck-adjusted figures)")
    args = parse_match_args(ap, argv)

    pairs = max(1, (args.games + 1) // 2)
    print(
        f"{args.bot_a} vs {args.bot_b}: {2 * pairs} cubeless money games "
        f"({pairs} duplicate pairs), seed {args.seed}, {args.workers} worker(s)"
    )
    tally = _play_and_print(args.bot_a, args.bot_b, args)
    if args.compare:
        other = _play_and_print(args.compare, args.bot_b, args)
        m, se, n = paired_difference(tally, other)
        print(f"{args.bot_a} - {args.compare}: {m:+.4f} points per game ± {se:.4f} "
              f"(paired over {n} duplicate pairs: the same dice, the same opponent)")
        if args.luck:
            m, se, n = paired_difference(tally, other, adjusted=True)
            print(f"{args.bot_a} - {args.compare}: {m:+.4f} points per game ± {se:.4f} "
                  f"luck-adjusted (paired over {n} duplicate pairs)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
