"""Checker-play judge: the equity each bot gives away per decision, by gnubg's 2-ply verdict.

Usage (from the repository root)::

    PYTHONPATH=. .venv/bin/python benchmarks/judge.py
    PYTHONPATH=. .venv/bin/python benchmarks/judge.py --bots expert worldclass gnubg0 --decisions 300
    PYTHONPATH=. .venv/bin/python benchmarks/judge.py --build --decisions 1000 --workers 2

**The reference set** (``benchmarks/data/judge-gnubg2.json.gz``, built once by ``--build``
and committed): checker-play decisions — a position and a roll with at least two legal
plays — met in GNU Backgammon 0-ply self-play (PyPI's ``gnubg-nn``, ``best_move(board, d1,
d2)``), every decision of a game kept with probability ``--sample`` (default 1/4, so a set
spreads over many games and every stage of them). Game ``g``'s dice come from
``random.Random(f"{seed}:{g}:dice")`` and its sampling from ``"{seed}:{g}:sample"``, so a
larger set starts with the decisions of a smaller one. For each decision, every legal play
(our :meth:`~backgammon.Position.legal_moves`) is scored by gnubg at 2 plies: the resulting
position, with the opponent on roll, goes to ``gnubg_nn.probabilities(board, 2)``, whose
five probabilities (win, gammon, backgammon won, gammon, backgammon lost) belong to the
player on roll (``board[1]`` of ``board_from_position_id``, which is our Position ID's
player on roll); the mover's cubeless equity is minus that side's ``2w - 1 + wg - lg + wbg -
lbg``. A play that bears off the last checker scores the result itself (+1, +2 or +3). The
file stores per decision the Position ID, the roll, and per play the Position ID of the
resulting position (seen by the opponent, as :meth:`~backgammon.LegalMoves.position`) with
its equity, plus gnubg 2-ply's own choice (``best_move(..., n=2)``, with gnubg's move
filters) as a check of the orientation; and how it was built (seed, games, gnubg-nn
version, date). ``--build`` reuses the decisions already in the file when it was built
with the same seed, sample and ply, so a set grows by building again with a larger
``--decisions``. The committed set: 5,000 decisions (102,501 plays) from 452 games, about
0.6 s of CPU a decision (grown from 1,000 to 3,000 in 634 s with two workers and to 5,000
in 1,234 s with one, both beside other work on a 2-core machine), 899 KiB; gnubg 2-ply's
own choice tops its table in 4,956 of them (its move filters may drop the table's best
play before the 2-ply stage: it gives away 0.069 and 0.079 in two decisions).

**The judging**: each bot named (default ``expert worldclass grandmaster gnubg0 gnubg1``;
any registered bot, through :func:`backgammon.bots.load` and ``choose_index``, and
``NAME@FILE`` that bot with the network weights of ``FILE`` — a training run's
``best.npz``, shown as ``NAME@<run folder>`` —, so candidate networks are judged side by
side without being shipped: ``--bots expert@training/runs/sl13/best.npz
expert@/tmp/new.npz gnubg0``, seconds for 5,000 decisions at 0 ply; ``gnubgN`` is
``gnubg_nn.best_move(board, d1, d2, n=N)`` matched to our play by its resulting position;
``gnubg2`` reads gnubg 2-ply's choice stored in the set) chooses a play in every decision,
and gives away ``best equity of the table - equity of its play`` (0 when it picks gnubg
2-ply's favourite). Printed per bot: the decisions, the mean loss in millipoints (1 point =
1000) ± its standard error, the share of decisions with any loss and of blunders (a loss
above 0.080), the ratio of its mean loss to gnubg 0-ply's in the same run and the paired
difference with it (± the standard error of the per-decision differences), and its time per
decision. A progress bar goes to stderr.

The judge is gnubg 2-ply, a stronger but not perfect player: a loss is "worse than gnubg
2-ply's favourite", and gnubg 0-ply and 1-ply are judged by a deeper search of their own
network, which favours them over a bot with another network.
"""

from __future__ import annotations

import argparse
import datetime
import gzip
import json
import math
import multiprocessing
import random
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))  # stats.py, beside this file

from backgammon import LegalMoves, Position
from backgammon.bots import Bot
from backgammon.progress import Progress
from stats import mean_stderr
from strength import load_bot

#: The committed reference set.
DATA = Path(__file__).resolve().parent / "data" / "judge-gnubg2.json.gz"
#: The bots judged when none is named.
DEFAULT_BOTS = ("expert", "worldclass", "grandmaster", "gnubg0", "gnubg1")
#: A loss above this (in points) is a blunder.
BLUNDER = 0.080
#: Version of the file layout.
FORMAT = 1


def _gnubg() -> Any:
    import gnubg_nn  # benchmark-only (GPL): imported when needed, never by the package

    return gnubg_nn


def gnubg_version() -> str:
    """The installed gnubg-nn's version."""
    from gnubg_nn import __version__ as version

    return str(version.version)


def cubeless_equity(probs: Sequence[float]) -> float:
    """The cubeless equity of gnubg's five probabilities (win, win gammon, win backgammon,
    lose gammon, lose backgammon), for the side they belong to."""
    w, wg, wbg, lg, lbg = probs
    return 2.0 * w - 1.0 + wg - lg + wbg - lbg


def finished_result(after: Position) -> float | None:
    """The mover's points when their play ended the game, else None.

    ``after`` is seen by the opponent (the mover is its ``opponent`` side). The mover has
    borne off all 15: a gammon when the loser bore off none, a backgammon when the loser
    also has a checker on the bar or in the winner's home board (R22-R24).
    """
    if after.borne_off()[1] < 15:
        return None
    loser = after.player
    if after.borne_off()[0] > 0:
        return 1.0
    return 3.0 if any(loser[18:25]) else 2.0


def play_equity(after: Position, ply: int) -> float:
    """The mover's cubeless equity after their play, by gnubg at ``ply`` plies (or the
    result itself when the play ended the game)."""
    done = finished_result(after)
    if done is not None:
        return done
    g = _gnubg()
    return -cubeless_equity(g.probabilities(g.board_from_position_id(after.position_id()), ply))


def gnubg_choice(legal: LegalMoves, ply: int) -> int:
    """The index in ``legal`` of gnubg's ``best_move`` at ``ply`` plies (matched by the
    resulting position)."""
    g = _gnubg()
    d1, d2 = legal.dice
    _, key = g.best_move(g.board_from_position_id(legal.origin.position_id()), d1, d2, n=ply, b=1)
    board = g.board_from_position_key(key)  # still the mover's view: board[0] the mover
    index = legal.find_position(Position(board[1], board[0]))
    if index is None:
        raise RuntimeError(f"gnubg-nn {ply}-ply chose a play not in our list: {legal.origin.position_id()} {legal.dice}")
    return index


# -- building the reference set ------------------------------------------------------------


def self_play_decisions(seed: int, sample: float) -> Iterator[tuple[int, Position, tuple[int, int]]]:
    """(game, position, roll) of the sampled decisions with at least two legal plays, in
    gnubg-nn 0-ply self-play games 0, 1, 2 ... (endless)."""
    game = 0
    while True:
        dice = random.Random(f"{seed}:{game}:dice")
        pick = random.Random(f"{seed}:{game}:sample")
        pos = Position.initial()
        d1, d2 = dice.randint(1, 6), dice.randint(1, 6)
        while d1 == d2:  # the opening roll (R4): equal dice are thrown again
            d1, d2 = dice.randint(1, 6), dice.randint(1, 6)
        while not pos.is_game_over():
            roll = (max(d1, d2), min(d1, d2))
            legal = pos.legal_moves(roll)
            if len(legal) >= 2 and pick.random() < sample:
                yield game, pos, roll
            pos = legal.position(gnubg_choice(legal, 0)) if len(legal) else pos.swap()
            d1, d2 = dice.randint(1, 6), dice.randint(1, 6)
        game += 1


def evaluate_decision(task: tuple[str, tuple[int, int], int]) -> dict[str, Any]:
    """The stored row of one decision: every legal play's resulting Position ID and gnubg
    equity at ``ply``, best first, and gnubg's own choice at that ply."""
    pid, roll, ply = task
    legal = Position.from_position_id(pid).legal_moves(roll)
    scored = [(after.position_id(), round(play_equity(after, ply), 5)) for after in legal.positions()]
    plays = [[pid, eq] for pid, eq in sorted(scored, key=lambda row: -row[1])]
    choice = legal.position(gnubg_choice(legal, ply)).position_id()
    return {"position": pid, "roll": list(roll), "plays": plays, f"gnubg{ply}": choice}


def build(decisions: int, *, seed: int = 1, ply: int = 2, sample: float = 0.25, workers: int = 1,
          reuse: dict[str, Any] | None = None, on_row: Callable[[int], None] | None = None) -> dict[str, Any]:
    """A reference set of ``decisions`` decisions (see the module's docstring); rows of
    ``reuse`` (an earlier set) built alike are kept rather than evaluated again."""
    found: list[tuple[int, Position, tuple[int, int]]] = []
    for item in self_play_decisions(seed, sample):
        if len(found) >= decisions:
            break
        found.append(item)
    old: dict[tuple[str, tuple[int, int]], dict[str, Any]] = {}
    if reuse is not None and {k: reuse["built"].get(k) for k in ("seed", "ply", "sample")} == {
            "seed": seed, "ply": ply, "sample": sample}:
        old = {(row["position"], tuple(row["roll"])): row for row in reuse["decisions"]}
    tasks = [(pos.position_id(), roll, ply) for _, pos, roll in found]
    todo = [t for t in tasks if (t[0], t[1]) not in old]
    new: dict[tuple[str, tuple[int, int]], dict[str, Any]] = {}
    done = len(tasks) - len(todo)
    if on_row:
        on_row(done)
    rows: Iterator[dict[str, Any]]
    pool = multiprocessing.Pool(workers) if workers > 1 and todo else None
    try:
        rows = pool.imap(evaluate_decision, todo) if pool else map(evaluate_decision, todo)
        for row in rows:
            new[(row["position"], tuple(row["roll"]))] = row
            done += 1
            if on_row:
                on_row(done)
    finally:
        if pool:
            pool.close()
            pool.join()
    out_rows = []
    for (game, _, _), (pid, roll, _) in zip(found, tasks):
        row = dict(old.get((pid, roll)) or new[(pid, roll)])
        row["game"] = game
        out_rows.append(row)
    return {
        "format": FORMAT,
        "built": {
            "judge": f"gnubg-nn {ply}-ply cubeless equity of every legal play",
            "players": "gnubg-nn 0-ply self-play (best_move(board, d1, d2))",
            "seed": seed, "ply": ply, "sample": sample,
            "games": found[-1][0] + 1 if found else 0,
            "gnubg_nn": gnubg_version(),
            "date": datetime.date.today().isoformat(),
        },
        "decisions": out_rows,
    }


def save(data: dict[str, Any], path: Path) -> None:
    """Write a reference set as gzip-compressed JSON (one decision a line)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    head = {k: v for k, v in data.items() if k != "decisions"}
    lines = [json.dumps(head, separators=(",", ":"))[:-1] + ',"decisions":[']
    lines.append(",\n".join(json.dumps(row, separators=(",", ":")) for row in data["decisions"]))
    lines.append("]}\n")
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=9) as f:
        f.write("\n".join(lines))


def read_set(path: Path = DATA) -> dict[str, Any]:
    """Read a reference set written by :func:`save`."""
    with gzip.open(path, "rt", encoding="utf-8") as f:
        data: dict[str, Any] = json.load(f)
    if data.get("format") != FORMAT:
        raise ValueError(f"{path}: format {data.get('format')!r}, expected {FORMAT}")
    return data


# -- judging ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    """One decision of a set: the legal plays and gnubg's equity of each (same order)."""

    legal: LegalMoves
    equities: tuple[float, ...]
    stored: dict[str, Any]

    @property
    def best(self) -> float:
        return max(self.equities)

    def loss(self, index: int) -> float:
        """The equity play ``index`` gives away against the table's best."""
        return self.best - self.equities[index]


def decisions_of(data: dict[str, Any]) -> list[Decision]:
    """The set's decisions with our legal plays; a stored row whose plays are not exactly
    ours (same count, same resulting positions) raises ValueError."""
    out = []
    for row in data["decisions"]:
        pos = Position.from_position_id(row["position"])
        roll = (row["roll"][0], row["roll"][1])
        legal = pos.legal_moves(roll)
        table = {pid: eq for pid, eq in row["plays"]}
        ids = [after.position_id() for after in legal.positions()]
        if len(table) != len(row["plays"]) or sorted(table) != sorted(ids):
            raise ValueError(f"{row['position']} {roll}: the stored plays are not our {len(ids)} legal plays")
        out.append(Decision(legal, tuple(table[pid] for pid in ids), row))
    return out


class Chooser:
    """A judged player: picks an index in a decision's legal plays."""

    def __init__(self, name: str, seed: int = 1) -> None:
        self.name = name
        self._bot: Bot | None = None
        self._ply: int | None = None
        if name.startswith("gnubg") and name[5:].isdigit():
            self._ply = int(name[5:])
        else:  # a bot's name, or NAME@FILE: that bot with those weights (strength.load_bot)
            bot = name.split("@", 1)[0]
            self._bot = load_bot(name, seed=random.Random(f"judge:{seed}:{bot}"))

    def choose(self, decision: Decision) -> int:
        legal = decision.legal
        if self._bot is not None:
            return self._bot.choose_index(legal)
        assert self._ply is not None
        stored = decision.stored.get(f"gnubg{self._ply}")
        if stored is not None:  # the set holds this ply's own choice
            index = legal.find_position(Position.from_position_id(stored))
            assert index is not None
            return index
        return gnubg_choice(legal, self._ply)


@dataclass
class Score:
    """One bot's losses (points) per decision and the seconds it spent choosing."""

    name: str
    losses: list[float] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def n(self) -> int:
        return len(self.losses)

    def mean(self) -> float:
        return sum(self.losses) / self.n if self.n else math.nan

    def stderr(self) -> float:
        return mean_stderr(self.losses)[1]

    def share(self, above: float) -> float:
        return sum(1 for x in self.losses if x > above) / self.n if self.n else math.nan


def label(name: str) -> str:
    """A player's name in the table: ``NAME@FILE`` shortened to ``NAME@<run>`` for a
    checkpoint (``best``, ``latest`` or ``round-k`` in a run's folder), else ``NAME@<file
    stem>``.

    >>> label("expert@training/runs/sl13/best.npz"), label("expert@/tmp/ft1.npz"), label("gnubg0")
    ('expert@sl13', 'expert@ft1', 'gnubg0')
    """
    if "@" not in name:
        return name
    bot, weights = name.split("@", 1)
    path = Path(weights)
    checkpoint = path.stem in ("best", "latest") or path.stem.startswith("round-")
    return f"{bot}@{path.parent.name if checkpoint and path.parent.name else path.stem}"


def judge(decisions: Sequence[Decision], names: Sequence[str], *, seed: int = 1,
          on_decision: Callable[[int], None] | None = None) -> list[Score]:
    """Every named player's loss in every decision."""
    choosers = [Chooser(name, seed) for name in names]
    scores = [Score(label(name)) for name in names]
    for k, decision in enumerate(decisions):
        for chooser, score in zip(choosers, scores):
            t0 = time.perf_counter()
            index = chooser.choose(decision)
            score.seconds += time.perf_counter() - t0
            score.losses.append(decision.loss(index))
        if on_decision:
            on_decision(k + 1)
    return scores


def report(scores: Sequence[Score], reference: str = "gnubg0") -> Iterator[str]:
    """The printed table: one line per player."""
    ref = next((s for s in scores if s.name == reference), None)
    width = max([13, *(len(s.name) + 1 for s in scores)])
    rw = max(10, len(reference) + 3)
    pw = max(22, len(reference) + 12)
    yield (f"{'player':<{width}}{'decisions':>10}{'mEMG/decision':>19}{'any loss':>10}{'blunders':>10}"
           f"{'× ' + reference:>{rw}}{'− ' + reference + ' (paired)':>{pw}}{'ms/decision':>13}")
    for s in scores:
        ratio = f"{s.mean() / ref.mean():.2f}" if ref is not None and ref.mean() > 0 else "–"
        if ref is not None and s is not ref:
            diff = [a - b for a, b in zip(s.losses, ref.losses)]
            paired = f"{1000 * sum(diff) / len(diff):+.2f} ± {1000 * mean_stderr(diff)[1]:.2f}"
        else:
            paired = "–"
        yield (f"{s.name:<{width}}{s.n:>10}{f'{1000 * s.mean():.2f} ± {1000 * s.stderr():.2f}':>19}"
               f"{100 * s.share(0.0):>9.1f}%{100 * s.share(BLUNDER):>9.1f}%{ratio:>{rw}}{paired:>{pw}}"
               f"{1000 * s.seconds / max(1, s.n):>13.2f}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    ap.add_argument("--bots", nargs="+", default=list(DEFAULT_BOTS),
                    help=f"players to judge (default: {' '.join(DEFAULT_BOTS)}; gnubgN = gnubg-nn at N plies)")
    ap.add_argument("--decisions", type=int, default=None,
                    help="judge only the first N decisions (with --build: build N, default 1000)")
    ap.add_argument("--data", type=Path, default=DATA, help=f"the reference set (default {DATA.name})")
    ap.add_argument("--seed", type=int, default=1, help="seed of the self-play games and of the bots (default 1)")
    ap.add_argument("--build", action="store_true", help="build the reference set (gnubg-nn) instead of judging")
    ap.add_argument("--ply", type=int, default=2, help="with --build: gnubg's plies for the verdicts (default 2)")
    ap.add_argument("--sample", type=float, default=0.25,
                    help="with --build: the share of a game's decisions kept (default 0.25)")
    ap.add_argument("--workers", type=int, default=1, help="with --build: processes (default 1)")
    ap.add_argument("--reference", default="gnubg0",
                    help="the player the ratio and the paired difference are against (default gnubg0)")
    ap.add_argument("--quiet", action="store_true", help="no progress bar")
    args = ap.parse_args(argv)
    bar_on = False if args.quiet else None

    if args.build:
        n = args.decisions or 1000
        reuse = read_set(args.data) if args.data.exists() else None
        bar = Progress(n, f"gnubg {args.ply}-ply verdicts", unit="decisions", enabled=bar_on)
        t0 = time.perf_counter()
        try:
            data = build(n, seed=args.seed, ply=args.ply, sample=args.sample, workers=args.workers,
                         reuse=reuse, on_row=bar.update)
        finally:
            bar.close()
        save(data, args.data)
        rows = data["decisions"]
        plays = sum(len(r["plays"]) for r in rows)
        decisions = decisions_of(data)
        top = sum(1 for d in decisions if d.loss(Chooser(f"gnubg{args.ply}").choose(d)) == 0)
        print(f"{len(rows)} decisions ({plays} plays) from {data['built']['games']} games in "
              f"{time.perf_counter() - t0:.0f} s -> {args.data} ({args.data.stat().st_size // 1024} KiB)")
        print(f"gnubg {args.ply}-ply's own best_move is the top of the table in {top} of {len(rows)} decisions")
        return 0

    data = read_set(args.data)
    decisions = decisions_of(data)[: args.decisions]
    b = data["built"]
    print(f"{len(decisions)} checker-play decisions from gnubg-nn 0-ply self-play ({b['games']} games, seed "
          f"{b['seed']}), every legal play judged by gnubg-nn {b['gnubg_nn']} at {b['ply']} plies "
          f"(built {b['date']}); loss = the table's best equity - the chosen play's (cubeless, 1 point = 1000)")
    bar = Progress(len(decisions), "judging", unit="decisions", enabled=bar_on)
    try:
        scores = judge(decisions, args.bots, seed=args.seed, on_decision=bar.update)
    finally:
        bar.close()
    for line in report(scores, reference=label(args.reference)):
        print(line)
    print(f"blunders: a loss above {1000 * BLUNDER:.0f} mEMG")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
