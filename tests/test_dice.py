"""Dice sources: secure default, seeded, scripted."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backgammon.dice import DiceSource, ScriptedDice, SecureDice, SeededDice, parse_dice
from backgammon.errors import BackgammonError, DiceExhaustedError


def test_secure_dice_are_dice_and_all_faces_come_up() -> None:
    src = SecureDice()
    seen = Counter(src.die() for _ in range(600))
    assert set(seen) == {1, 2, 3, 4, 5, 6}
    for _ in range(100):
        a, b = src.roll()
        assert 1 <= a <= 6 and 1 <= b <= 6


@given(st.integers())
def test_seeded_dice_are_reproducible(seed: int) -> None:
    a, b = SeededDice(seed), SeededDice(seed)
    assert [a.roll() for _ in range(20)] == [b.roll() for _ in range(20)]
    assert all(1 <= a.die() <= 6 for _ in range(20))


def test_seeded_dice_differ_between_seeds_and_are_roughly_fair() -> None:
    one, two = SeededDice(1), SeededDice(2)
    assert [one.die() for _ in range(20)] != [two.die() for _ in range(20)]
    src = SeededDice(99)
    counts = Counter(src.die() for _ in range(6000))
    assert all(850 < counts[f] < 1150 for f in range(1, 7))


@pytest.mark.parametrize(
    "script, dice",
    [
        ([(3, 1), (6, 6)], [3, 1, 6, 6]),
        (["31", "6-6", "5 2", "(4, 3)", "2,1"], [3, 1, 6, 6, 5, 2, 4, 3, 2, 1]),
        ([5, 4, "3"], [5, 4, 3]),
        ([[2, 2]], [2, 2]),
    ],
)
def test_scripted_dice_flatten_singles_pairs_and_text(script: list[object], dice: list[int]) -> None:
    src = ScriptedDice(script)  # type: ignore[arg-type]
    assert src.remaining == len(dice)
    assert [src.die() for _ in dice] == dice


def test_scripted_pairs_serve_single_dice_and_rolls() -> None:
    src = ScriptedDice([(3, 1), (6, 5)])
    assert src.die() == 3  # an opening roll: one die each
    assert src.die() == 1
    assert src.roll() == (6, 5)


def test_scripted_dice_raise_when_exhausted() -> None:
    src = ScriptedDice([4])
    with pytest.raises(DiceExhaustedError, match="exhausted"):
        src.roll()
    assert src.remaining == 1  # a failed roll consumes nothing
    assert src.die() == 4
    with pytest.raises(DiceExhaustedError):
        src.die()
    src.extend(["62"])
    assert src.roll() == (6, 2)


def test_exhaustion_is_a_value_error_of_the_library() -> None:
    assert issubclass(DiceExhaustedError, BackgammonError)
    assert issubclass(DiceExhaustedError, ValueError)


@pytest.mark.parametrize("bad", [0, 7, "71", "abc", (1, 2, 3), True, None, (0, 1)])
def test_scripted_dice_reject_bad_script_atomically(bad: object) -> None:
    src = ScriptedDice([1])
    with pytest.raises(BackgammonError):
        src.extend([(2, 2), bad])  # type: ignore[list-item]
    assert src.remaining == 1


@pytest.mark.parametrize(
    "text, dice", [("31", (3, 1)), ("3-1", (3, 1)), (" 6 6 ", (6, 6)), ("(5,2)", (5, 2))]
)
def test_parse_dice(text: str, dice: tuple[int, int]) -> None:
    assert parse_dice(text) == dice


@pytest.mark.parametrize("text", ["", "3", "0-1", "3-7", "123", "a-b"])
def test_parse_dice_rejects(text: str) -> None:
    with pytest.raises(BackgammonError, match="not a roll"):
        parse_dice(text)


def test_custom_source() -> None:
    class Loaded(DiceSource):
        def die(self) -> int:
            return 6

    assert Loaded().roll() == (6, 6)
