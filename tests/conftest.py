"""Shared test helpers: build positions by hand in the player's own numbering."""

from __future__ import annotations

import os

import pytest

from backgammon import Position


def board(player: dict[int, int], opponent: dict[int, int] | None = None) -> Position:
    """A position from the player on roll's view.

    ``player`` maps the player's points (1-24, 25 = bar) to counts; ``opponent`` maps the
    *player's* point numbers (1-24; 0 = the opponent's bar) to the opponent's counts. Missing
    checkers are borne off.
    """
    me = [0] * 25
    for p, n in player.items():
        me[p - 1] += n
    opp = [0] * 25
    for p, n in (opponent or {}).items():
        if p == 0:
            opp[24] += n
        else:
            opp[25 - p - 1] += n
    return Position(me, opp)


def require_gnubg() -> bool:
    """True when CI demands the live gnubg tests (they fail instead of skipping)."""
    return os.environ.get("BACKGAMMON_REQUIRE_GNUBG") == "1"


@pytest.fixture
def make_board():  # type: ignore[no-untyped-def]
    return board
