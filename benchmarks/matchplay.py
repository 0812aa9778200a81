"""Match play: two bots play 5- and 7-point matches with the cube and the Crawford rule.

Usage (from the repository root)::

    PYTHONPATH=. .venv/bin/python benchmarks/matchplay.py worldclass expert --length 5 7 --matches 100
    PYTHONPATH=. .venv/bin/python benchmarks/matchplay.py expert intermediate --length 3 --matches 40 --seed 2

Each match is a :class:`backgammon.match.Match` on a :class:`backgammon.table.Table` with
the two bots at its seats, as ``benchmarks/cubeful.py`` plays money games: every decision is
:func:`backgammon.table.decide`'s (doubles, takes and passes, plays, resignations), with the
match's :meth:`~backgammon.match.Match.match_state` — the score, the cube, the Crawford
game (R33: nobody may double in the game right after a player first reaches N − 1) and the
post-Crawford games. The bots' match cube is :mod:`backgammon.engine.met`'s (Janowski's
model on the Kazaross-XG2 table).

Duplicate dice: the matches come in pairs; both matches of pair ``k`` draw from the dice
stream ``"{seed}:{length}:{k}:dice"`` (:class:`~backgammon.dice.SeededDice`), restarted,
with the bots in swapped seats. A match runs over many games and cube actions, so the two
soon part ways; the pairing still takes out some luck, mostly in the first game. The bots'
own random streams derive from ``--seed`` too, so a run is reproducible whatever
``--workers`` is.

Printed per match length: the first bot's share of matches won ± its standard error (over
duplicate pairs), and the cube and Crawford facts, per score situation (*normal* games,
the *Crawford* game, *post-Crawford* games): doubles offered, taken and passed; that no
double was offered in a Crawford game (R33; a double there would have been refused by the
game, and the benchmark would stop with the refusal); post-Crawford, the doubles by the
trailer and the free drops (the leader passing the trailer's double: it gives the trailer
one point, which at an even away score costs the leader nothing); gammons and backgammons; the games per match, and the
checks that each match ended when a player reached the length (R32) and that the scores
add up to the games' points.
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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))  # strength.py, next to this file

from strength import SEATS, bots_act, register_gnubg  # it also puts the repository on sys.path

from backgammon.bots import Bot, available, load
from backgammon.dice import DiceSource, SeededDice
from backgammon.events import Double, Pass, Take
from backgammon.game import ResultKind
from backgammon.progress import Progress
from backgammon.rules import Rules
from backgammon.table import Seat, Table

#: Plays after which a match is stopped as endless (a bug in a bot or in the engine).
MAX_PLIES = 20_000

#: The score situations of a game: before the Crawford game, the Crawford game, after it.
KINDS = ("normal", "crawford", "post-crawford")


@dataclass(frozen=True)
class GameFacts:
    """One game of a match, told from the seats' side (seat 0 is player 0)."""

    kind: str  # one of KINDS
    score: tuple[int, int]  # at its start
    winner: int
    points: int  # for the winner, cube included
    result: ResultKind
    level: int  # 1 single, 2 gammon, 3 backgammon (a pass: 1; a resignation: its level)
    cube: int  # the cube value that counted
    doubles: tuple[tuple[int, int], ...]  # (player, cube offered), in order
    takes: tuple[int, ...]  # the players who took, in order
    passes: tuple[int, ...]  # the players who passed (at most one)
    trailer: int | None  # post-Crawford: the player behind (the one not at N - 1)


@dataclass(frozen=True)
class MatchRecord:
    """One match: its length, winner, final score (uncapped) and games."""

    length: int
    winner: int | None  # None: stopped at MAX_PLIES
    score: tuple[int, int]
    games: tuple[GameFacts, ...]
    plies: int


def match_table(bots: Sequence[Bot], length: int, dice: DiceSource) -> Table:
    """A :class:`~backgammon.table.Table` holding a match to ``length`` points with
    ``bots[0]`` in seat 0 and ``bots[1]`` in seat 1, dice from ``dice``."""
    table = Table.match([Seat(name, bot.name) for name, bot in zip(SEATS, bots)], length, Rules(), dice=dice)
    for name, bot in zip(SEATS, bots):
        table.use_bot(name, bot)
    return table


def play_match(bots: Sequence[Bot], length: int, dice: DiceSource, *, max_plies: int = MAX_PLIES) -> MatchRecord:
    """Play a whole match on a table: every decision is :func:`~backgammon.table.decide`'s,
    submitted from the bot's seat; a refused command (a double in the Crawford game, say)
    raises."""
    table = match_table(bots, length, dice)
    match = table.contest.match  # type: ignore[attr-defined]
    plies = bots_act(table, match.is_over, max_plies)
    games = []
    crawford_seen = False
    for game in match.games:
        result = game.result
        if result is None:  # stopped at MAX_PLIES
            break
        if game.crawford:
            kind, crawford_seen = "crawford", True
        else:
            kind = "post-crawford" if crawford_seen else "normal"
        trailer = None
        if kind == "post-crawford":
            leader = 0 if game.score[0] == length - 1 else 1
            trailer = 1 - leader
        doubles, takes, passes = [], [], []
        for event in game.events:
            if isinstance(event, Double):
                doubles.append((event.player, event.cube))
            elif isinstance(event, Take):
                takes.append(event.player)
            elif isinstance(event, Pass):
                passes.append(event.player)
        games.append(GameFacts(kind, game.score, result.winner, result.points, result.kind,
                               result.level, result.cube, tuple(doubles), tuple(takes),
                               tuple(passes), trailer))
    return MatchRecord(length, match.winner, match.score, tuple(games), plies)


@dataclass(frozen=True)
class MatchPair:
    """Duplicate pair ``index`` of one length: the first bot's match wins (0 or 1) in seat 0
    and in seat 1, and both records."""

    length: int
    index: int
    first: int
    second: int
    matches: tuple[MatchRecord, MatchRecord]


#: (bot A, bot B, length, seed, pair index)
Task = tuple[str, str, int, int, int]


def play_pair(task: Task) -> MatchPair:
    """Both matches of duplicate pair ``index``: the same dice stream, the seats swapped."""
    name_a, name_b, length, seed, index = task
    register_gnubg()
    records = []
    for match in (0, 1):  # the first bot sits in seat ``match``
        a = load(name_a, seed=random.Random(f"{seed}:{length}:{index}:{match}:a"))
        b = load(name_b, seed=random.Random(f"{seed}:{length}:{index}:{match}:b"))
        dice = SeededDice(f"{seed}:{length}:{index}:dice")
        records.append(play_match((a, b) if match == 0 else (b, a), length, dice))
    r0, r1 = records
    return MatchPair(length, index, int(r0.winner == 0), int(r1.winner == 1), (r0, r1))


def run(name_a: str, name_b: str, lengths: Sequence[int], matches: int, seed: int, workers: int,
        on_pair: Callable[[MatchPair], None] | None = None) -> list[MatchPair]:
    """``matches`` matches (rounded up to whole pairs) at each length; the pairs."""
    count = max(1, (matches + 1) // 2)
    tasks: list[Task] = [(name_a, name_b, n, seed, k) for n in lengths for k in range(count)]
    out: list[MatchPair] = []
    if workers <= 1:
        results: Iterator[MatchPair] = map(play_pair, tasks)
        for pair in results:
            out.append(pair)
            if on_pair:
                on_pair(pair)
        return out
    with multiprocessing.Pool(workers) as pool:
        for pair in pool.imap_unordered(play_pair, tasks):
            out.append(pair)
            if on_pair:
                on_pair(pair)
    return out


def share(pairs: Sequence[MatchPair]) -> tuple[float, float]:
    """The first bot's share of matches won and its standard error over the pairs."""
    per_pair = [(p.first + p.second) / 2 for p in pairs]
    n = len(per_pair)
    m = sum(per_pair) / n if n else math.nan
    if n < 2:
        return m, math.nan
    var = sum((x - m) ** 2 for x in per_pair) / (n - 1)
    return m, math.sqrt(var / n)


def cube_counts(records: Sequence[MatchRecord]) -> dict[str, Counter[str]]:
    """Per situation kind: games, doubles, takes, passes, trailer's doubles, free drops,
    gammons (backgammons included) and backgammons."""
    out: dict[str, Counter[str]] = {k: Counter() for k in KINDS}
    for record in records:
        for g in record.games:
            c = out[g.kind]
            c["games"] += 1
            c["doubles"] += len(g.doubles)
            c["takes"] += len(g.takes)
            c["passes"] += len(g.passes)
            if g.trailer is not None:
                c["trailer doubles"] += sum(1 for player, _ in g.doubles if player == g.trailer)
                c["leader doubles"] += sum(1 for player, _ in g.doubles if player != g.trailer)
                c["free drops"] += sum(1 for player in g.passes if player != g.trailer)
            if g.result in (ResultKind.GAMMON, ResultKind.BACKGAMMON) or (
                    g.result is ResultKind.RESIGNED and g.level >= 2):
                c["gammons"] += 1
            if g.result is ResultKind.BACKGAMMON or (g.result is ResultKind.RESIGNED and g.level == 3):
                c["backgammons"] += 1
    return out


def check_record(record: MatchRecord) -> list[str]:
    """What is wrong with a finished match (empty when all is well): it ends when, and only
    when, a player reaches the length (R32); the score is the sum of the games' points; no
    double in the Crawford game (R33); the Crawford game comes once, right after a player
    first reaches N − 1."""
    problems = []
    n = record.length
    if record.winner is None:
        return [f"stopped after {record.plies} plays"]
    score = [0, 0]
    crawford_done = False
    for k, g in enumerate(record.games):
        if tuple(score) != g.score:
            problems.append(f"game {k + 1} starts at {g.score}, the games so far make {tuple(score)}")
        if max(score) >= n:
            problems.append(f"game {k + 1} played after the match was won")
        expect_crawford = not crawford_done and n - 1 in score
        if (g.kind == "crawford") != expect_crawford:
            problems.append(f"game {k + 1} at {g.score}: {g.kind}, expected "
                            f"{'the Crawford game' if expect_crawford else 'not the Crawford game'}")
        crawford_done = crawford_done or g.kind == "crawford"
        if g.kind == "crawford" and g.doubles:
            problems.append(f"game {k + 1}: a double in the Crawford game (R33)")
        score[g.winner] += g.points
    if tuple(score) != record.score:
        problems.append(f"final score {record.score}, the games make {tuple(score)}")
    if score[record.winner] < n or score[1 - record.winner] >= n:
        problems.append(f"winner {record.winner} at {tuple(score)} in a {n}-point match")
    return problems


def _iter_lines(pairs: Sequence[MatchPair], name_a: str, name_b: str) -> Iterator[str]:
    if name_a == name_b:
        name_a, name_b = f"{name_a} (first)", f"{name_b} (second)"
    for n in sorted({p.length for p in pairs}):
        mine = sorted((p for p in pairs if p.length == n), key=lambda p: p.index)
        records = [r for p in mine for r in p.matches]
        m, se = share(mine)
        games = sum(len(r.games) for r in records)
        yield (f"{n}-point matches: {name_a} won {m:.1%} ± {se:.1%} of {len(records)} "
               f"against {name_b} (standard error over {len(mine)} duplicate pairs); "
               f"{games / len(records):.2f} games per match")
        counts = cube_counts(records)
        for kind in KINDS:
            c = counts[kind]
            line = (f"  {kind:<14} {c['games']:>5} games: {c['doubles']:>4} doubles, "
                    f"{c['takes']:>4} taken, {c['passes']:>4} passed; {c['gammons']:>4} gammons "
                    f"({c['backgammons']} backgammons)")
            if kind == "post-crawford":
                line += (f"; doubles by the trailer {c['trailer doubles']}, by the leader "
                         f"{c['leader doubles']}; free drops {c['free drops']}")
            yield line
        bad = [(k, problem) for k, r in enumerate(records) for problem in check_record(r)]
        if counts["crawford"]["doubles"] == 0:
            yield f"  no double was offered in any of the {counts['crawford']['games']} Crawford games (R33)"
        yield (f"  checks (each match ends when a player reaches {n}, the scores add up, one "
               f"Crawford game at the right score): "
               + ("all passed" if not bad else f"{len(bad)} problem(s): {bad[:3]}"))


def main(argv: list[str] | None = None) -> int:
    register_gnubg()
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("bot_a", help=f"first bot ({', '.join(available())})")
    ap.add_argument("bot_b", help="second bot")
    ap.add_argument("--length", type=int, nargs="+", default=[5, 7], help="match lengths (default 5 7)")
    ap.add_argument("--matches", type=int, default=100, help="matches per length (default 100)")
    ap.add_argument("--seed", type=int, default=1, help="seed of the dice and the bots (default 1)")
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="processes (default: one per CPU core)")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    if args.matches < 1 or any(n < 1 for n in args.length):
        ap.error("--matches and --length must be at least 1")
    for name in (args.bot_a, args.bot_b):
        try:
            load(name)
        except ValueError as exc:
            ap.error(str(exc))
    count = max(1, (args.matches + 1) // 2)
    lengths = ", ".join(map(str, args.length))
    print(f"{args.bot_a} vs {args.bot_b}: {2 * count} matches to each of {lengths} points "
          f"({count} duplicate pairs each), seed {args.seed}, {args.workers} worker(s)")
    t0 = time.perf_counter()
    done = 0
    with Progress(2 * count * len(args.length), f"{args.bot_a} vs {args.bot_b}", unit="matches",
                  enabled=False if args.quiet else None) as bar:
        def on_pair(pair: MatchPair) -> None:
            nonlocal done
            done += 2
            bar.update(done)

        pairs = run(args.bot_a, args.bot_b, args.length, args.matches, args.seed, args.workers, on_pair)
    for line in _iter_lines(pairs, args.bot_a, args.bot_b):
        print(line)
    print(f"  ({time.perf_counter() - t0:.1f} s)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
