"""benchmarks/luck.py: the luck of each roll and the luck-adjusted results of strength.py."""

from __future__ import annotations

import doctest
import math
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backgammon import Position
from backgammon.bots import load
from backgammon.dice import SeededDice
from backgammon.engine import default_evaluator
from backgammon.events import OpeningRoll, Roll
from tests.benchmark_modules import load_benchmark

luck = load_benchmark("luck")
strength = load_benchmark("strength")


def test_the_module_examples_hold() -> None:
    assert doctest.testmod(luck).failed == 0


def test_the_rolls_are_the_36_throws() -> None:
    assert len(luck.ROLLS) == 21 and sum(w for _, w in luck.ROLLS) == 36
    assert {d for d, w in luck.ROLLS if w == 1} == {(i, i) for i in range(1, 7)}


def _positions_of_random_games(seed: int, count: int) -> list[Position]:
    rng = random.Random(seed)
    out = []
    while len(out) < count:
        pos = Position.initial()
        while not pos.is_game_over() and len(out) < count:
            out.append(pos)
            legal = pos.legal_moves((rng.randint(1, 6), rng.randint(1, 6)))
            pos = (legal.position(rng.randrange(len(legal))) if len(legal) else pos).swap()
    return out


POSITIONS = _positions_of_random_games(11, 400)


@settings(max_examples=25, deadline=None)
@given(st.sampled_from(POSITIONS))
def test_the_luck_of_a_turn_has_mean_zero_over_the_throws(position: Position) -> None:
    # What makes the adjusted result unbiased (the mean is taken over exactly the roll's law).
    turns = [luck.Turn(0, position, dice) for dice, _ in luck.ROLLS]
    values = luck.turn_luck(default_evaluator(), turns)
    assert abs(sum(v * w / 36 for v, (_, w) in zip(values, luck.ROLLS))) < 1e-9
    assert all(-3.0 <= v <= 3.0 for v in values)


def test_a_finished_game_counts_its_exact_result() -> None:
    # The mover has one checker left on its 2 point, the opponent all 15 on its own 1 point:
    # every roll bears it off (1-1 too) and wins a gammon, so no roll is luckier than another.
    pos = Position([0, 1] + [0] * 23, [15] + [0] * 24)
    values = luck.turn_luck(default_evaluator(), [luck.Turn(0, pos, d) for d, _ in luck.ROLLS])
    assert values == pytest.approx([0.0] * 21, abs=1e-12)
    # Two checkers on its 6 point: 3-3 to 6-6 win the gammon now (4 throws of 36); any other
    # roll lets the opponent bear off (it cannot win, but it saves the gammon): the mean is
    # 40/36, 6-6 is 2 − 40/36 lucky and 2-1 1 − 40/36.
    pos = Position([0] * 5 + [2] + [0] * 19, [15] + [0] * 24)
    six_six, two_one = luck.turn_luck(default_evaluator(), [luck.Turn(0, pos, (6, 6)), luck.Turn(0, pos, (2, 1))])
    assert six_six == pytest.approx(2 - 40 / 36, abs=1e-6)
    assert two_one == pytest.approx(1 - 40 / 36, abs=1e-6)


def test_the_turns_of_a_game_are_its_throws() -> None:
    table = strength.bot_table((load("expert", seed=1), load("pubeval", seed=2)), SeededDice("4:1:dice"),
                               strength.CUBELESS)
    game = table.contest.game()
    strength.play_table_game(table)
    turns = luck.turns_of(game)
    rolls = [e for e in game.events if isinstance(e, Roll)]
    assert turns[0].opening and not any(t.opening for t in turns[1:])
    assert [(t.player, t.dice) for t in turns[1:]] == [(e.player, e.dice) for e in rolls]
    opening = [e for e in game.events if isinstance(e, OpeningRoll)][-1]
    assert sorted(turns[0].dice) == sorted(opening.dice)
    assert turns[0].position == Position.initial()
    assert math.isfinite(luck.game_luck(default_evaluator(), game))


def test_a_bot_against_itself_cancels_its_luck_too() -> None:
    # The two games of a pair are the same game with the seats swapped: adjusted or not,
    # the pair sums to zero.
    same = strength.run("expert", "expert", games=4, seed=3, workers=1, luck=True)
    assert same.luck_measured()
    for pair in same.pairs:
        assert pair.first == -pair.second
        assert pair.first_adjusted == pytest.approx(-pair.second_adjusted, abs=1e-9)


def test_luck_adjustment_narrows_the_error_between_close_bots() -> None:
    # expert against its noisy self (0.05 equity of noise): the luck-adjusted error is far
    # below the raw one (about six times over thousands of games against gnubg-nn).
    tally = strength.run("expert", "intermediate", games=40, seed=2, workers=1, luck=True)
    raw = tally.stderr()
    m, se = tally.adjusted()
    assert se < raw / 2
    assert abs(m - tally.mean()) < 3 * raw
    plain = strength.run("expert", "intermediate", games=40, seed=2, workers=1)
    assert plain.points() == tally.points() and not plain.luck_measured()
    assert all(math.isnan(v) for v in plain.adjusted())
