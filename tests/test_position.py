"""Position: construction, gnubg Position ID, reading, swap, and the invariants of plays."""

from __future__ import annotations

import pytest
from hypothesis import given, settings

from backgammon import (
    IllegalMoveError,
    InvalidIdError,
    InvalidPositionError,
    Move,
    Position,
)
from backgammon.position import LegalMoves
from tests.conftest import board
from tests.strategies import dice, positions, random_game_positions


def test_initial_position_r2() -> None:  # R2
    p = Position.initial()
    assert p.player == p.opponent
    assert p.player[23] == 2 and p.player[12] == 5 and p.player[7] == 3 and p.player[5] == 5
    assert sum(p.player) == 15  # R1
    assert p.pip_count() == (167, 167)
    assert p.position_id() == "4HPwATDgc/ABMA"
    assert p.borne_off() == (0, 0) and p.bar() == (0, 0)
    assert not p.is_race() and not p.is_game_over()


KNOWN_IDS = [
    # (Position ID, player's checkers by point, opponent's by the player's numbering)
    ("4HPwATDgc/ABMA", {24: 2, 13: 5, 8: 3, 6: 5}, {1: 2, 12: 5, 17: 3, 19: 5}),
    ("APj/ASACAAAAAA", {2: 1}, {1: 1, 13: 14}),
    ("m20AAD7g/wMAYA", {25: 2, 6: 13}, {19: 2, 20: 2, 21: 2, 23: 2, 24: 2, 1: 5}),
]


@pytest.mark.parametrize("pid,me,opp", KNOWN_IDS)
def test_known_position_ids(pid: str, me: dict[int, int], opp: dict[int, int]) -> None:
    assert board(me, opp).position_id() == pid
    assert Position.from_position_id(pid) == board(me, opp)


@pytest.mark.parametrize(
    "bad",
    ["", "4HPwATDgc/ABM", "4HPwATDgc/ABMAA", "4HPwATDgc/AB!A", "//////////////", "AAAAAAAAAAAAA$"],
)
def test_bad_position_ids_raise(bad: str) -> None:
    with pytest.raises(InvalidIdError) as err:
        Position.from_position_id(bad)
    assert repr(bad) in str(err.value)


def test_position_id_both_colours_on_a_point_raises() -> None:
    # player on their point 1 and the opponent on its own point 24 (the same point)
    me = [1] + [0] * 24
    opp = [0] * 23 + [1, 0]
    with pytest.raises(InvalidPositionError):
        Position(me, opp)


@pytest.mark.parametrize(
    "me,opp",
    [([16] + [0] * 24, [0] * 25), ([5] * 4 + [0] * 21, [0] * 25), ([0] * 24, [0] * 25), ([-1] + [0] * 24, [0] * 25)],
)
def test_invalid_boards_raise(me: list[int], opp: list[int]) -> None:
    with pytest.raises(InvalidPositionError):
        Position(me, opp)


@given(positions())
def test_position_id_round_trip(p: Position) -> None:
    assert Position.from_position_id(p.position_id()) == p
    assert len(p.position_id()) == 14


@given(positions())
def test_swap_is_an_involution(p: Position) -> None:
    assert p.swap().swap() == p
    assert p.swap().pip_count() == p.pip_count()[::-1]
    assert p.swap().bar() == p.bar()[::-1]
    assert p.swap().borne_off() == p.borne_off()[::-1]
    assert hash(p) == hash(Position.from_position_id(p.position_id()))


def test_is_race() -> None:
    assert board({6: 15}, {7: 15}).is_race()
    assert not board({6: 14, 8: 1}, {7: 15}).is_race()  # the 8 must pass the 7
    assert not board({25: 1, 6: 14}, {7: 15}).is_race()
    assert not board({6: 15}, {0: 1, 7: 14}).is_race()


def test_str_diagram_mentions_everything() -> None:
    text = str(Position.initial())
    assert "Position ID: 4HPwATDgc/ABMA" in text
    assert "pips 167" in text and "X5" in text and "O5" in text


def _plays_keep_invariants(p: Position, d: tuple[int, int]) -> None:
    plays = p.legal_moves(d)
    results = plays.positions()
    assert len(set(results)) == len(results)  # R12: each resulting position once
    before = p.pip_count()
    for move, after in zip(plays, results):
        assert p.play(move) == after
        mover = after.swap()
        assert sum(mover.player) + mover.borne_off()[0] == 15  # R1
        assert sum(mover.opponent) + mover.borne_off()[1] == 15
        used = before[0] - mover.pip_count()[0]
        # pips drop by exactly the dice used, except bearing off with a larger die
        if mover.borne_off()[0] == p.borne_off()[0]:
            assert used in _dice_sums(d)
        assert mover.pip_count()[1] >= before[1]  # the opponent never gains from our play
        assert p.parse_move(str(move), d) == move  # text round trip
        assert Move.parse(str(move)) == move


def _dice_sums(d: tuple[int, int]) -> set[int]:
    if d[0] == d[1]:
        return {d[0] * k for k in range(1, 5)}
    return {d[0], d[1], d[0] + d[1]}


@settings(max_examples=300, deadline=None)
@given(positions(), dice)
def test_play_invariants_on_arbitrary_positions(p: Position, d: tuple[int, int]) -> None:
    _plays_keep_invariants(p, d)


def test_play_invariants_along_random_games() -> None:
    for i, (p, d) in enumerate(random_game_positions(seed=7, games=20)):
        _plays_keep_invariants(p, d)
    assert i > 500


def test_full_dice_used_when_possible() -> None:  # R11
    for p, d in random_game_positions(seed=11, games=30):
        plays = p.legal_moves(d)
        if not plays:
            continue
        lengths = {m.pips for m in plays}
        # no play can use fewer dice than another (bear-off pips aside): compare die counts
        dice_used = {_dice_count(plays, i) for i in range(len(plays))}
        assert len(dice_used) == 1, (p.position_id(), d, [str(m) for m in plays], lengths)


def _dice_count(plays: LegalMoves, index: int) -> int:
    # unit steps of play ``index``, as the generator made them
    row = plays._steps[index]
    return sum(1 for k in range(0, 12, 3) if row[k] >= 0)


def test_play_rejects_impossible_hops() -> None:
    p = Position.initial()
    with pytest.raises(IllegalMoveError, match="no checker on 23"):
        p.play(Move.parse("23/20"))
    with pytest.raises(IllegalMoveError, match="blocked"):
        p.play(Move.parse("24/19"))
    with pytest.raises(IllegalMoveError, match="R16"):
        p.play(Move.parse("6/off"))
    with pytest.raises(IllegalMoveError, match="R13"):
        board({25: 1, 6: 14}, {13: 15}).play(Move.parse("6/5"))


def test_dice_are_checked() -> None:
    with pytest.raises(IllegalMoveError):
        Position.initial().legal_moves((0, 3))
    with pytest.raises(IllegalMoveError):
        Position.initial().legal_moves((7, 1))
