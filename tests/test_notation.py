"""Move notation: parsing, printing, and reading a player's text against a position."""

from __future__ import annotations

import pytest

from backgammon import AmbiguousMoveError, IllegalMoveError, InvalidMoveError, Move, Position, Step
from tests.conftest import board

ROUND_TRIPS = [
    "24/18 13/11",
    "bar/22*",
    "8/5*/1",
    "6/off",
    "13/7(2)",
    "24/20(2) 13/9(2)",
    "bar/20 6/off",
    "24/23 13/10",
    "6/2(4)",
    "bar/22*/16",
    "24/13",
    "5/off 3/off",
]


@pytest.mark.parametrize("text", ROUND_TRIPS)
def test_text_round_trips(text: str) -> None:
    assert str(Move.parse(text)) == text
    assert Move.parse(str(Move.parse(text))) == Move.parse(text)


@pytest.mark.parametrize(
    "text,canonical",
    [
        ("13/11 24/18", "24/18 13/11"),
        ("24/18 18/13", "24/13"),
        ("24/18/13", "24/13"),
        ("13/7 13/7", "13/7(2)"),
        ("BAR/22*", "bar/22*"),
        ("25/22", "bar/22"),
        ("6/0", "6/off"),
        ("24-20(2), 13-9(2)", "24/20(2) 13/9(2)"),
        ("b/22 6/o", "bar/22 6/off"),
        ("8/5* 5/1", "8/5*/1"),
        ("", ""),
        ("pass", ""),
    ],
)
def test_parse_normalises(text: str, canonical: str) -> None:
    assert str(Move.parse(text)) == canonical


@pytest.mark.parametrize(
    "bad",
    ["24", "24/", "/18", "24/18/", "26/20", "13/18", "6/off/3", "off/3", "12/bar", "24/x", "13/7(5)", "6/off*",
     "24*/18", "hello"],
)
def test_invalid_syntax_raises(bad: str) -> None:
    with pytest.raises(InvalidMoveError) as err:
        Move.parse(bad)
    assert repr(bad) in str(err.value)


def test_steps_and_pips() -> None:
    m = Move.parse("8/5*/1 6/off")
    assert m.steps == (Step(8, 5, True), Step(5, 1), Step(6, 0))
    assert m.pips == 13
    assert Move.parse("").is_pass()
    assert hash(Move.parse("13/11 24/18")) == hash(Move.parse("24/18 13/11"))


OPENING = Position.initial()


@pytest.mark.parametrize(
    "text,dice,expected",
    [
        ("8/5 6/5", (3, 1), "8/5 6/5"),
        ("6/5 8/5", (3, 1), "8/5 6/5"),
        ("24/13", (6, 5), "24/13"),
        ("24/18 18/13", (6, 5), "24/13"),
        ("24/18/13", (6, 5), "24/13"),
        ("24/20 13/9", (2, 2), "24/20 13/9"),
    ],
)
def test_parse_move_accepts_shorthand(text: str, dice: tuple[int, int], expected: str) -> None:
    assert str(OPENING.parse_move(text, dice)) == expected


def test_parse_move_adds_missing_hit_star() -> None:
    p = board({13: 2, 6: 13}, {11: 1, 20: 14})
    move = p.parse_move("13/11 6/5", (2, 1))
    assert str(move) == "13/11* 6/5"


def test_parse_move_intermediate_hit_and_pass_over() -> None:
    # blot on 5, 4 open: 8/1 with 4-3 passes over (no hit); 8/5*/1 hits
    p = board({8: 1, 6: 14}, {5: 1, 20: 14})
    assert str(p.parse_move("8/1", (4, 3))) == "8/1"
    assert str(p.parse_move("8/5*/1", (4, 3))) == "8/5*/1"
    assert str(p.parse_move("8/5/1", (4, 3))) == "8/5*/1"  # stopping on a blot hits it


def test_parse_move_forced_hit_via_shorthand() -> None:
    # 4 blocked, blot on 5: the only way to play 8/1 is via 5, hitting
    p = board({8: 1, 6: 14}, {5: 1, 4: 2, 20: 12})
    assert str(p.parse_move("8/1", (4, 3))) == "8/5*/1"


def test_parse_move_ambiguous() -> None:
    # blots on 8 and 7: 13/2 with 6-5 hits one or the other
    p = board({13: 1, 6: 14}, {8: 1, 7: 1, 20: 13})
    with pytest.raises(AmbiguousMoveError) as err:
        p.parse_move("13/2", (6, 5))
    assert "13/2" in str(err.value) and p.position_id() in str(err.value)
    assert str(p.parse_move("13/8*/2", (6, 5))) == "13/8*/2"


def test_parse_move_illegal() -> None:
    with pytest.raises(IllegalMoveError) as err:
        OPENING.parse_move("24/18", (6, 5))  # uses one die only
    assert OPENING.position_id() in str(err.value) and "24/18" in str(err.value)
    with pytest.raises(IllegalMoveError):
        OPENING.parse_move("6/1 6/1", (6, 5))
    with pytest.raises(IllegalMoveError):
        OPENING.parse_move("", (6, 5))
    with pytest.raises(IllegalMoveError):
        OPENING.parse_move("13/8* 13/7", (6, 5))  # nothing to hit on 8
    with pytest.raises(InvalidMoveError):
        OPENING.parse_move("13/8 13/", (6, 5))


def test_parse_move_no_legal_play() -> None:  # R11, R15
    p = board({25: 1, 6: 14}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 1: 3})
    assert p.legal_moves((6, 6)) == []
    assert p.parse_move("", (6, 6)).is_pass()
    with pytest.raises(IllegalMoveError):
        p.parse_move("bar/19", (6, 6))


@pytest.mark.parametrize(
    "text,expected",
    [
        ("24/20 13/9", "24/20 13/9"),  # one checker moving twice for 2-2, written as one hop
        ("24/22/20 13/11/9", "24/20 13/9"),  # the same with the stops written out
        ("13/9 24/22 22/20", "24/20 13/9"),  # any order, hops of one checker apart
        ("6/4(2) 8/6(2)", "8/4(2)"),  # two checkers 8/6/4: the stops on 6 merge
    ],
)
def test_parse_move_double_shorthand(text: str, expected: str) -> None:  # R9
    assert str(OPENING.parse_move(text, (2, 2))) == expected
