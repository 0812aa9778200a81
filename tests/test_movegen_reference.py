"""Legal plays against GNU Backgammon's, over the stored reference table (R3, R8–R20, R12).

``tests/data/movegen_reference.jsonl.gz`` holds gnubg's ``hint`` list for 36,000+ (position,
roll) cases (random games, greedy self-play, all 21 rolls on 300 positions, hand-made rule
cases); ``tests/oracle/make_reference.py`` regenerates it and
``tests/oracle/test_live_reference.py`` checks it against a live gnubg in CI.
"""

from __future__ import annotations

import gzip
import json
from functools import cache
from pathlib import Path

import pytest

from backgammon import Move, Position

TABLE = Path(__file__).parent / "data" / "movegen_reference.jsonl.gz"


@cache
def reference() -> list[tuple[str, tuple[int, int], list[str]]]:
    out = []
    with gzip.open(TABLE, "rt") as fh:
        for line in fh:
            row = json.loads(line)
            out.append((row["id"], (row["dice"][0], row["dice"][1]), row["plays"]))
    return out


def test_table_is_big_and_varied() -> None:
    rows = reference()
    assert len(rows) >= 20_000
    rolls = {tuple(sorted(d)) for _, d, _ in rows}
    assert len(rolls) == 21
    assert sum(1 for _, _, plays in rows if not plays) > 50  # no-play cases
    assert any("2/1*/off" in plays for _, _, plays in rows)  # R20
    assert any(any(p.startswith("bar/") for p in plays) for _, _, plays in rows)  # R13
    assert any(any("off" in p for p in plays) for _, _, plays in rows)  # R16-R19
    assert max(len(plays) for _, _, plays in rows) > 300


def test_resulting_positions_equal_gnubgs() -> None:
    """The set of resulting positions equals gnubg's for every case (R12: each once)."""
    bad = []
    for pid, dice, plays in reference():
        pos = Position.from_position_id(pid)
        legal = pos.legal_moves(dice)
        ours = legal.positions()
        theirs = {pos.play(Move.parse(text)) for text in plays}
        if set(ours) != theirs or len(ours) != len(plays):
            bad.append((pid, dice, len(ours), len(plays)))
    assert not bad, f"{len(bad)} cases differ, e.g. {bad[:5]}"


def test_move_texts_equal_gnubgs() -> None:
    """Our text for each play is gnubg's text, character for character."""
    bad = []
    for pid, dice, plays in reference():
        ours = sorted(str(m) for m in Position.from_position_id(pid).legal_moves(dice))
        if ours != sorted(plays):
            bad.append((pid, dice, sorted(set(ours) - set(plays))[:3], sorted(set(plays) - set(ours))[:3]))
    assert not bad, f"{len(bad)} cases differ in notation, e.g. {bad[:5]}"


def test_gnubg_texts_parse_to_our_plays() -> None:
    """Every gnubg text, read by parse_move, gives the play with the same result."""
    rows = reference()[::7]
    for pid, dice, plays in rows:
        pos = Position.from_position_id(pid)
        legal = pos.legal_moves(dice)
        for text in plays:
            move = pos.parse_move(text, dice)
            assert move in legal
            assert pos.play(move) == pos.play(Move.parse(text))


def test_against_gnubg_nn_boards() -> None:
    """A second oracle, PyPI gnubg-nn's move generator, on the same cases (boards, not texts)."""
    gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn (the bench extra) is not installed")
    bad = []
    for pid, dice, _ in reference()[::3]:
        pos = Position.from_position_id(pid)
        board = gnubg_nn.board_from_position_id(pid)
        keys = gnubg_nn.moves(board, dice[0], dice[1])
        theirs = set()
        for key in keys:
            opp, mover = gnubg_nn.board_from_position_key(key)
            theirs.add(Position(list(opp), list(mover)))
        if pos.is_game_over():
            continue
        ours = set(pos.legal_moves(dice).positions())
        if ours != theirs and not (not ours and theirs == {pos.swap()}):
            bad.append((pid, dice))
    assert not bad, f"{len(bad)} cases differ from gnubg-nn, e.g. {bad[:5]}"
