"""Generate tests/data/movegen_reference.jsonl.gz: gnubg's legal plays for 20,000+ cases.

Run from the repository root (needs Debian's gnubg)::

    PYTHONPATH=. .venv/bin/python -m tests.oracle.make_reference

The cases (all seeded, so the file is reproducible):

* positions met in uniformly random games, one roll each;
* positions met in self-play of our own engine with a simple greedy policy (hit, make points,
  keep blots few, bear off) — more realistic structures: primes, anchors, contact bear-offs;
* every one of the 21 rolls on a few hundred positions drawn from both;
* the hand-made cases of tests/test_movegen_rules.py (R3, R9, R11, R13–R20, 2/1*/off) and a
  few more built by rule, each with all 21 rolls.

Each line of the output is ``{"id": <Position ID>, "dice": [d1, d2], "plays": [gnubg texts]}``.
"""

from __future__ import annotations

import gzip
import json
import random
import sys
from collections.abc import Iterator
from pathlib import Path

from backgammon import Position
from tests.oracle.gnubg_driver import gnubg_legal_plays

OUT = Path(__file__).resolve().parent.parent / "data" / "movegen_reference.jsonl.gz"
ROLLS = [(a, b) for a in range(1, 7) for b in range(a, 7)]


def greedy_score(after: Position) -> float:
    """A crude evaluation of the mover's result (``after`` is from the opponent's view)."""
    me = after.opponent  # the mover, own numbering
    opp = after.player
    score = 0.0
    score += 4.0 * opp[24]  # opponent checkers on the bar
    score += 6.0 * (15 - sum(me))  # borne off
    for i in range(24):
        if me[i] >= 2:
            score += 1.5 if i < 12 else 0.5
        elif me[i] == 1:
            # exposure: opponent checkers in front of the blot (their numbering 25 - p)
            p = i + 1
            shooters = sum(opp[q - 1] for q in range(max(1, 25 - p - 11), 25 - p)) + opp[24]
            score -= 1.0 + 0.2 * min(shooters, 5) + (0.5 if p > 6 else 0.0)
    score -= 0.02 * sum((i + 1) * me[i] for i in range(25))
    return score


def game_positions(rng: random.Random, games: int, greedy: bool) -> Iterator[tuple[Position, tuple[int, int]]]:
    for _ in range(games):
        pos = Position.initial()
        while not pos.is_game_over():
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            yield pos, dice
            plays = pos.legal_moves(dice)
            if not plays:
                pos = pos.swap()
            elif greedy and rng.random() < 0.9:
                results = plays.positions()
                pos = max(results, key=lambda r: (greedy_score(r), rng.random()))
            else:
                pos = plays.position(rng.randrange(len(plays)))


def hand_made() -> list[Position]:
    from tests.test_movegen_rules import CASES

    extra: list[Position] = [case[2] for case in CASES]
    # bear-offs with contact, blots on the 1-point, bar against 5-point boards
    from tests.conftest import board

    extra += [
        board({2: 1, 1: 1}, {1: 0, 3: 1, 13: 14}),
        board({6: 2, 5: 2, 4: 2, 3: 3, 2: 3, 1: 3}, {0: 1, 7: 1, 24: 13}),
        board({25: 3, 8: 12}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 1, 1: 4}),
        board({25: 1, 24: 1, 6: 13}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 18: 5}),
        board({9: 1, 6: 5, 5: 5, 4: 4}, {8: 2, 3: 1, 20: 12}),
        board({1: 15}, {24: 15}),
        board({6: 15}, {5: 1, 13: 14}),
        board({12: 1, 11: 1, 10: 1, 9: 1, 8: 1, 7: 1, 6: 9}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 20: 5}),
    ]
    return extra


def cases() -> list[tuple[str, int, int]]:
    rng = random.Random(20261202)
    out: list[tuple[str, int, int]] = []
    seen: set[tuple[str, int, int]] = set()

    def add(pos: Position, d: tuple[int, int]) -> None:
        key = (pos.position_id(), d[0], d[1])
        if key not in seen:
            seen.add(key)
            out.append(key)

    pool: list[Position] = []
    for pos, d in game_positions(rng, 180, greedy=False):
        add(pos, d)
        pool.append(pos)
    for pos, d in game_positions(rng, 220, greedy=True):
        add(pos, d)
        pool.append(pos)
    for pos in rng.sample(pool, 300):
        for d in ROLLS:
            add(pos, d)
    for pos in hand_made():
        for d in ROLLS:
            add(pos, d)
    return out


def main() -> int:
    todo = cases()
    print(f"{len(todo)} cases; asking gnubg...", file=sys.stderr)
    answers = gnubg_legal_plays(todo, workers=8, chunk=400)
    refused = [c for c, a in zip(todo, answers) if a is None]
    if refused:
        print(f"gnubg refused {len(refused)} cases, e.g. {refused[:3]}", file=sys.stderr)
        return 1
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with gzip.GzipFile(OUT, "wb", mtime=0) as raw:
        for (pid, d1, d2), plays in zip(todo, answers):
            line = json.dumps({"id": pid, "dice": [d1, d2], "plays": plays}, separators=(",", ":"))
            raw.write(line.encode() + b"\n")
    print(f"wrote {OUT} ({OUT.stat().st_size} bytes)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
