"""Cubeful bot strength: two bots play money games with the doubling cube, duplicate dice.

Usage (from the repository root)::

    PYTHONPATH=. .venv/bin/python benchmarks/cubeful.py expert pubeval --games 1000
    PYTHONPATH=. .venv/bin/python benchmarks/cubeful.py expert expert-nocube --games 1000 --seed 7
    PYTHONPATH=. .venv/bin/python benchmarks/cubeful.py expert worldclass --jacoby --beavers

The companion of ``benchmarks/strength.py`` (cubeless): here every game is a money game
with the cube, played on a :class:`backgammon.table.Table` with the two bots at its seats
(:func:`strength.play_table_game`), so every decision is :func:`backgammon.table.decide`'s,
as in the terminal and on the web: ``should_double`` before each roll when the rules let the
player double, ``choose_index`` for the play, ``respond_to_double`` (take, pass, or beaver
when ``--beavers`` is on; a beaver with beavers off counts as a take), and the resignations
(R31: a bot offers one when one result is left, the ``expert`` in a race; the other accepts
or declines; a declined level is not offered again in the game), with the position seen
from the bot and the match's :meth:`~backgammon.match.Match.match_state`. A game ends by
bearing off, by a passed double or by an accepted resignation.

Duplicate dice: each pair of games draws from one seeded dice stream
(:class:`~backgammon.dice.SeededDice`), restarted for the second game, where the bots have
changed seats; the seats get the same opening roll and then the same rolls in the same
order for as long as both games last (cube actions take no dice, so a game that ends
earlier by a pass just uses a shorter prefix of the stream). The bots' own random streams
derive from ``--seed`` too, so a run is reproducible whatever ``--workers`` is.

Rules: money play, the Jacoby rule and beavers off unless ``--jacoby`` / ``--beavers``.
The cube stops at :data:`~backgammon.matchid.MAX_CUBE` (2^15, the largest value a Match ID
holds): without a limit the game lets a double or a beaver go past it, and then
:meth:`~backgammon.game.Game.match_state`, which the bots are asked with, raises (seen with
pubeval against expert and beavers, where the cube reached 65536). A game that reached
the limit is counted in the output. The figure printed is the first bot's mean points per
game, cube included, with its standard error computed over duplicate pairs; then the wins
and losses by kind (accepted resignations apart), the games ended by a passed double, the
final cube values, and each bot's doubles offered and its answers to the doubles it was
offered.

``expert-nocube`` (registered here only): the ``expert``'s checker play, but it never
doubles and always takes, so ``expert`` against ``expert-nocube`` measures what the
expert's cube handling is worth. ``gnubg`` (see strength.py) is available too, with the
default cube policy of :class:`~backgammon.bots.Bot` (never doubles, always takes).

Against ``pubeval`` the cube can run away: its contact rule doubles, and takes, on the pip
ratio alone, even with a checker trapped behind a prime, and the expert redoubles each time;
a few games at cubes of hundreds or thousands then dominate the mean and its standard
error. The final-cube line shows when that happens.

A game still going after :data:`MAX_PLIES` plays is stopped, scored 0, and counted in the
output; it would mean a bug in a bot or in the engine.
"""

from __future__ import annotations

import multiprocessing
import random
import sys
import time
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # strength.py, next to this file

from strength import (  # it also puts the repository on sys.path
    PairResult,
    Tally,
    bot_table,
    match_parser,
    parse_match_args,
    play_table_game,
    register_gnubg,
)

from backgammon.bots import Bot, CubeResponse, load
from backgammon.bots.neural import ExpertBot
from backgammon.bots.registry import register
from backgammon.dice import DiceSource, SeededDice
from backgammon.events import Beaver, Double, OpeningRoll, Pass, Roll, Take
from backgammon.game import ResultKind
from backgammon.matchid import MAX_CUBE, MatchState
from backgammon.position import Position
from backgammon.progress import Progress
from backgammon.rules import Rules

#: Plays (checker moves, empty ones included) after which a game is stopped as endless.
MAX_PLIES = 10_000


class ExpertNoCube(ExpertBot):
    """The ``expert``'s checker play without its cube: never doubles, always takes."""

    name = "expert-nocube"

    def should_double(self, position: Position, state: MatchState) -> bool:
        return False

    def respond_to_double(self, position: Position, state: MatchState) -> CubeResponse:
        return CubeResponse.TAKE


def register_benchmark_bots() -> None:
    """Make ``expert-nocube`` (and ``gnubg`` when gnubg-nn is installed) loadable by name
    in this process. Called by :func:`main` and in each worker, not at import, so that
    importing this module leaves the package's registry as it was."""
    register("expert-nocube", replace=True)(ExpertNoCube)
    register_gnubg()


def benchmark_rules(*, jacoby: bool = False, beavers: bool = False) -> Rules:
    """Money play with the cube limited to ``MAX_CUBE`` (module docs)."""
    return Rules(jacoby=jacoby, beavers=beavers, cube_limit=MAX_CUBE)


@dataclass(frozen=True)
class GameRecord:
    """One game, told from the seats' side (seat 0 is player 0 of the
    :class:`~backgammon.game.Game`)."""

    winner: int | None  # None: stopped at MAX_PLIES
    kind: ResultKind | None
    level: int  # 1 single, 2 gammon, 3 backgammon; resigned: the level; a pass: 1 (0 when stopped)
    points: int  # for the winner, cube included (0 when stopped)
    cube: int  # the cube's final value (for a pass, the value before the refused double)
    plies: int  # plays made
    doubles: tuple[int, int]  # doubles offered by each seat
    takes: tuple[int, int]  # doubles taken by each seat
    passes: tuple[int, int]  # doubles passed by each seat
    beavers: tuple[int, int]  # doubles beavered by each seat
    rolls: tuple[tuple[int, int], ...]  # the dice drawn, opening throws first, in order

    def points_for(self, seat: int) -> int:
        """The game's points from ``seat``'s side: + when it won, - when it lost."""
        if self.winner is None:
            return 0
        return self.points if self.winner == seat else -self.points

    @property
    def capped(self) -> bool:
        return self.winner is None


def play_game(bots: Sequence[Bot], dice: DiceSource, rules: Rules, *, max_plies: int = MAX_PLIES) -> GameRecord:
    """One money game between ``bots[0]`` (seat 0) and ``bots[1]`` (seat 1), with the cube,
    dice from ``dice``, played on a :class:`~backgammon.table.Table`
    (:func:`strength.play_table_game`: every decision is :func:`backgammon.table.decide`'s);
    stopped after ``max_plies`` plays."""
    table = bot_table(bots, dice, rules)
    game = table.contest.game()
    plies = play_table_game(table, max_plies)
    counts: dict[type, list[int]] = {kind: [0, 0] for kind in (Double, Take, Pass, Beaver)}
    rolls: list[tuple[int, int]] = []
    for event in game.events:
        if isinstance(event, (OpeningRoll, Roll)):
            rolls.append(event.dice)
        elif isinstance(event, (Double, Take, Pass, Beaver)):
            counts[type(event)][event.player] += 1
    result = game.result

    def pair(kind: type) -> tuple[int, int]:
        return counts[kind][0], counts[kind][1]

    return GameRecord(
        winner=None if result is None else result.winner,
        kind=None if result is None else result.kind,
        level=0 if result is None else result.level,
        points=0 if result is None else result.points,
        cube=game.cube_value,
        plies=plies,
        doubles=pair(Double),
        takes=pair(Take),
        passes=pair(Pass),
        beavers=pair(Beaver),
        rolls=tuple(rolls),
    )


@dataclass(frozen=True)
class CubefulPair(PairResult):
    """A duplicate pair: :class:`strength.PairResult`'s points for the first bot (``first``:
    it sits in seat 0, ``second``: in seat 1), and both games' records (no luck measured:
    the adjusted points stay NaN)."""

    games: tuple[GameRecord, GameRecord] = field(kw_only=True)


#: (bot A, bot B, seed, pair index, jacoby, beavers)
Task = tuple[str, str, int, int, bool, bool]


def play_pair(task: Task) -> CubefulPair:
    """Duplicate pair ``index``: both games, dice and bot seeds derived from ``seed``."""
    name_a, name_b, seed, index, jacoby, beavers = task
    register_benchmark_bots()
    rules = benchmark_rules(jacoby=jacoby, beavers=beavers)
    records = []
    for game in (0, 1):  # the first bot sits in seat ``game``
        a = load(name_a, seed=random.Random(f"{seed}:{index}:{game}:a"))
        b = load(name_b, seed=random.Random(f"{seed}:{index}:{game}:b"))
        dice = SeededDice(f"{seed}:{index}:dice")  # the same stream for both games
        records.append(play_game((a, b) if game == 0 else (b, a), dice, rules))
    g0, g1 = records
    return CubefulPair(index, g0.points_for(0), g1.points_for(1), games=(g0, g1))


def run(
    name_a: str,
    name_b: str,
    games: int,
    seed: int,
    workers: int,
    on_pair: Callable[[Tally], None] | None = None,
    *,
    jacoby: bool = False,
    beavers: bool = False,
) -> Tally:
    """Play ``games`` games (rounded up to whole duplicate pairs); return the tally, whose
    pairs are :class:`CubefulPair`\\ s."""
    count = max(1, (games + 1) // 2)
    tasks: list[Task] = [(name_a, name_b, seed, k, jacoby, beavers) for k in range(count)]
    tally = Tally()

    def collect(results: Iterator[CubefulPair]) -> Tally:
        for pair in results:
            tally.add(pair)
            if on_pair:
                on_pair(tally)
        return tally

    if workers <= 1:
        return collect(map(play_pair, tasks))
    with multiprocessing.Pool(workers) as pool:
        return collect(pool.imap_unordered(play_pair, tasks, chunksize=max(1, min(8, count // (workers * 20)))))


def seat_records(tally: Tally) -> Iterator[tuple[GameRecord, int]]:
    """Every game with the first bot's seat in it, in pair order."""
    for pair in sorted(tally.pairs, key=lambda p: p.index):
        assert isinstance(pair, CubefulPair)
        yield pair.games[0], 0
        yield pair.games[1], 1


def _wins(records: list[tuple[GameRecord, int]]) -> str:
    """Wins by kind; an accepted resignation counts as the result resigned (its level)."""
    kinds = Counter(
        r.kind if r.kind is not ResultKind.RESIGNED else _LEVEL_KINDS[r.level] for r, _ in records
    )
    resigned = sum(1 for r, _ in records if r.kind is ResultKind.RESIGNED)
    return (
        f"{len(records)} ({kinds[ResultKind.SINGLE]} single, {kinds[ResultKind.GAMMON]} gammons, "
        f"{kinds[ResultKind.BACKGAMMON]} backgammons, {kinds[ResultKind.PASSED]} by a pass; "
        f"{resigned} of them resigned; {sum(r.points for r, _ in records)} points)"
    )


#: The kind of result a resignation at each level gives up.
_LEVEL_KINDS = {1: ResultKind.SINGLE, 2: ResultKind.GAMMON, 3: ResultKind.BACKGAMMON}


def _cube_actions(games: list[tuple[GameRecord, int]], first: bool) -> dict[str, int]:
    """One bot's cube actions over ``games`` (the first bot's when ``first``, else the
    second's), summed by kind."""
    return {
        field: sum(getattr(r, field)[seat if first else 1 - seat] for r, seat in games)
        for field in ("doubles", "takes", "passes", "beavers")
    }


def _iter_lines(tally: Tally, name_a: str, name_b: str) -> Iterator[str]:
    if name_a == name_b:
        name_a, name_b = f"{name_a} (first)", f"{name_b} (second)"
    games = list(seat_records(tally))
    a_won = [(r, s) for r, s in games if r.winner is not None and r.winner == s]
    b_won = [(r, s) for r, s in games if r.winner is not None and r.winner != s]
    capped = [r for r, _ in games if r.capped]
    yield (
        f"{name_a}: {tally.mean():+.3f} points per game ± {tally.stderr():.3f} "
        f"(cube included; standard error over {len(tally.pairs)} duplicate pairs; "
        f"{tally.naive_stderr():.3f} if the games were independent)"
    )
    yield f"  {name_a} won {_wins(a_won)}"
    yield f"  {name_b} won {_wins(b_won)}"
    passes = sum(1 for r, _ in games if r.kind is ResultKind.PASSED)
    cubes = Counter(r.cube for r, _ in games)
    yield (
        f"  {passes} of {len(games)} games ended by a pass; final cube: "
        + ", ".join(f"{v}: {cubes[v]}" for v in sorted(cubes))
        + " (for a pass, the value before the refused double)"
    )
    for name, first in ((name_a, True), (name_b, False)):
        mine = _cube_actions(games, first)
        theirs = _cube_actions(games, not first)
        yield (
            f"  {name}: offered {mine['doubles']} doubles (taken {theirs['takes']}, "
            f"passed {theirs['passes']}, beavered {theirs['beavers']}); "
            f"was offered {theirs['doubles']}: took {mine['takes']}, passed {mine['passes']}, "
            f"beavered {mine['beavers']}"
        )
    plies = [r.plies for r, _ in games]
    yield (
        f"  plays per game: mean {sum(plies) / len(plies):.1f}, longest {max(plies)}; "
        f"{len(capped)} game(s) stopped at the cap of {MAX_PLIES} plays (scored 0); "
        f"{cubes[MAX_CUBE]} reached the cube limit of {MAX_CUBE}"
    )


def main(argv: list[str] | None = None) -> int:
    register_benchmark_bots()
    ap = match_parser((__doc__ or "").splitlines()[0])
    ap.add_argument("--jacoby", action="store_true", help="the Jacoby rule (R25; default off)")
    ap.add_argument("--beavers", action="store_true", help="beavers (R30; default off)")
    args = parse_match_args(ap, argv)

    pairs = max(1, (args.games + 1) // 2)
    rules = ", ".join(f"{word} {'on' if on else 'off'}" for word, on in
                      (("Jacoby", args.jacoby), ("beavers", args.beavers)))
    print(
        f"{args.bot_a} vs {args.bot_b}: {2 * pairs} cubeful money games ({pairs} duplicate pairs; "
        f"{rules}, cube limit {MAX_CUBE}), seed {args.seed}, {args.workers} worker(s)"
    )
    t0 = time.perf_counter()
    with Progress(2 * pairs, f"{args.bot_a} vs {args.bot_b}", unit="games",
                  enabled=False if args.quiet else None) as bar:
        tally = run(args.bot_a, args.bot_b, args.games, args.seed, args.workers,
                    lambda t: bar.update(t.games, f"{t.mean():+.3f} ppg"),
                    jacoby=args.jacoby, beavers=args.beavers)
    elapsed = time.perf_counter() - t0
    for line in _iter_lines(tally, args.bot_a, args.bot_b):
        print(line)
    print(f"  {tally.games} games in {elapsed:.1f} s ({tally.games / elapsed:.1f} games/s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
