"""Hand-made positions for the move rules R3, R8–R20, each with its exact legal plays.

The same positions are in the gnubg reference table (tests/data/), so gnubg agrees too.
"""

from __future__ import annotations

import pytest

from backgammon import Position
from tests.conftest import board

# (rule, description, position, dice, expected plays as text)
CASES: list[tuple[str, str, Position, tuple[int, int], set[str]]] = [
    ("R20", "2/1*/off must use both dice (x-1)",
     board({2: 1}, {1: 1, 13: 14}), (3, 1), {"2/1*/off"}),
    ("R20", "2/1*/off with 2-1",
     board({2: 1}, {1: 1, 13: 14}), (2, 1), {"2/1*/off"}),
    ("R20", "bearing off is not forced while another play of the die exists",
     board({6: 1, 4: 1}, {13: 15}), (4, 2), {"6/off", "6/2 4/2"}),
    ("R11", "either die alone but not both: the larger (6) must be played",
     board({13: 1, 1: 14}, {2: 2, 20: 13}), (6, 5), {"13/7"}),
    ("R11", "only the smaller die can be played",
     board({13: 1, 1: 14}, {2: 2, 7: 2, 20: 11}), (6, 5), {"13/8"}),
    ("R11", "neither die can be played: no play",
     board({13: 1, 1: 14}, {7: 2, 8: 2, 20: 11}), (6, 5), set()),
    ("R11", "a double blocked after two moves: play the two",
     board({24: 1, 1: 14}, {12: 2, 22: 13}), (4, 4), {"24/16"}),
    ("R9", "a double played by four checkers, or one, or any mix",
     board({24: 1, 13: 1, 1: 13}, {22: 15}), (1, 1), {"24/23 13/10", "13/9"}),
    ("R13", "two on the bar, only one can enter: enter it and forfeit the rest",
     board({25: 2, 6: 13}, {19: 2, 20: 2, 21: 2, 23: 2, 24: 2, 1: 5}), (3, 5), {"bar/22"}),
    ("R14", "after entering, the other die is played by any checker, the entered one included",
     board({25: 1, 6: 14}, {19: 2, 20: 2, 21: 2, 23: 2, 24: 2, 1: 5}), (3, 6), {"bar/16"}),
    ("R15", "closed board: no play at all",
     board({25: 1, 6: 14}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 1: 3}), (6, 6), set()),
    ("R3", "a checker may not stop on a blocked point when using both dice",
     board({24: 1, 1: 14}, {18: 2, 19: 2, 10: 11}), (6, 5), set()),
    ("R16", "a checker coming home with one die lets the other bear off",
     board({7: 1, 5: 14}, {20: 15}), (1, 6), {"7/off", "7/1 5/4"}),
    ("R17", "a die equal to an occupied point bears off",
     board({5: 1, 3: 1}, {20: 15}), (5, 3), {"5/off 3/off", "5/2 3/off"}),
    ("R18", "a die larger than the highest point bears off from the highest",
     board({5: 1, 3: 1}, {20: 15}), (6, 6), {"5/off 3/off"}),
    ("R19", "a smaller die is played inside the board, not off a higher point",
     board({6: 1, 5: 1}, {20: 15}), (4, 1), {"5/off", "6/2 5/4", "6/1"}),
]


@pytest.mark.parametrize("rule,desc,pos,dice,expected", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_rule_case(rule: str, desc: str, pos: Position, dice: tuple[int, int], expected: set[str]) -> None:
    got = {str(m) for m in pos.legal_moves(dice)}
    assert got == expected, f"{rule} {desc}: {pos.position_id()} {dice}"
