"""Evaluation-free cube heuristics: pip counts and Keith's race count.

:func:`keith_count` is Tom Keith's adjusted pip count for races (as summarised at
bgonline.org/keith.html and in the bkgm.com glossary, "Keith count"): the pip count plus 2 for each checker beyond one on the
1-point, 1 for each beyond one on the 2-point, 1 for each beyond three on the 3-point, and 1
for each empty 4-, 5- or 6-point. The player on roll then adds one seventh to theirs, rounded down;
with ``lead = K(roller) + ⌊K(roller)/7⌋ − K(other)`` (how far the roller's count *exceeds* the
other's):

* the roller doubles when ``lead <= 4``, redoubles (cube already theirs) when ``lead <= 3``;
* the other side takes when ``lead >= 2``.

>>> from backgammon import Position
>>> keith_count(Position.initial().player)
169
>>> keith_lead(Position.initial(), roller_is_player=True)
24
"""

from __future__ import annotations

from collections.abc import Sequence

from ..position import Position

__all__ = [
    "KEITH_DOUBLE",
    "KEITH_REDOUBLE",
    "KEITH_TAKE",
    "home_points_made",
    "keith_count",
    "keith_lead",
]

#: The roller doubles (cube centred) while ``keith_lead <= KEITH_DOUBLE``.
KEITH_DOUBLE = 4
#: The roller redoubles (cube theirs) while ``keith_lead <= KEITH_REDOUBLE``.
KEITH_REDOUBLE = 3
#: The other side takes while ``keith_lead >= KEITH_TAKE``.
KEITH_TAKE = 2


def keith_count(side: Sequence[int]) -> int:
    """Keith's adjusted pip count of one side (25 counts from that side's own view; the bar,
    index 24, counts 25 pips).

    >>> keith_count([3, 3, 4] + [0] * 22)  # 3 on the 1-point, 3 on the 2, 4 on the 3
    31
    """
    pips = sum((i + 1) * side[i] for i in range(25))
    return (
        pips
        + 2 * max(side[0] - 1, 0)
        + max(side[1] - 1, 0)
        + max(side[2] - 3, 0)
        + (side[3] == 0)
        + (side[4] == 0)
        + (side[5] == 0)
    )


def keith_lead(position: Position, *, roller_is_player: bool) -> int:
    """``K(roller) + ⌊K(roller)/7⌋ − K(other)``: by how much the roller's Keith count exceeds the other
    side's (smaller is better for the roller). ``roller_is_player`` says whether the side
    to roll is ``position.player`` (doubling) or ``position.opponent`` (being doubled).

    >>> race = Position([0, 0, 0, 2, 3, 3] + [0] * 19, [0, 0, 2, 3, 3, 2] + [0] * 19)
    >>> keith_lead(race, roller_is_player=True) <= KEITH_DOUBLE
    True
    """
    me, opp = keith_count(position.player), keith_count(position.opponent)
    roller, other = (me, opp) if roller_is_player else (opp, me)
    return roller + roller // 7 - other


def home_points_made(side: Sequence[int]) -> int:
    """How many of a side's home-board points (1–6) hold two or more of its checkers.

    >>> home_points_made(Position.initial().player)
    1
    """
    return sum(1 for c in side[:6] if c >= 2)
