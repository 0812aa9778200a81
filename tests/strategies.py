"""Hypothesis strategies and seeded generators of positions for the tests."""

from __future__ import annotations

import random
from collections.abc import Iterator

from hypothesis import strategies as st

from backgammon import Position


def random_game_positions(seed: int, games: int) -> Iterator[tuple[Position, tuple[int, int]]]:
    """(position, dice) pairs met while playing uniformly random legal plays."""
    rng = random.Random(seed)
    for _ in range(games):
        pos = Position.initial()
        while not pos.is_game_over():
            dice = (rng.randint(1, 6), rng.randint(1, 6))
            yield pos, dice
            plays = pos.legal_moves(dice)
            pos = plays.position(rng.randrange(len(plays))) if plays else pos.swap()


@st.composite
def positions(draw: st.DrawFn) -> Position:
    """Any legal-looking position: up to 15 checkers a side, never two colours on a point."""
    points = list(range(1, 26))  # player's numbering; 25 = bar
    me = [0] * 25
    opp = [0] * 25
    n_me = draw(st.integers(1, 15))
    n_opp = draw(st.integers(1, 15))
    for _ in range(n_me):
        p = draw(st.sampled_from(points))
        me[p - 1] += 1
    owned = {p for p in range(1, 25) if me[p - 1]}
    free = [p for p in range(25) if p not in owned]  # 0 = opponent's bar
    for _ in range(n_opp):
        p = draw(st.sampled_from(free))
        if p == 0:
            opp[24] += 1
        else:
            opp[24 - p] += 1
    return Position(me, opp)


dice = st.tuples(st.integers(1, 6), st.integers(1, 6))
