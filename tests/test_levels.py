"""The weaker levels of the neural bot: expert plus equity noise (issue: beginner..expert)."""

from __future__ import annotations

import random

from backgammon import Position
from backgammon.bots import load
from backgammon.bots.neural import NOISE_LEVELS, NoisyBot
from tests.strategies import random_game_positions


def test_levels_are_registered_with_increasing_noise() -> None:
    noises = [load(name).noise for name in ("intermediate", "casual", "beginner")]  # type: ignore[attr-defined]
    assert noises == sorted(noises) and noises[0] > 0
    assert set(NOISE_LEVELS) == {"intermediate", "casual", "beginner"}


def test_noisy_bots_play_legal_moves_reproducibly() -> None:
    cases = list(random_game_positions(seed=5, games=3))
    for name in NOISE_LEVELS:
        a, b = load(name, seed=9), load(name, seed=9)
        for pos, dice in cases:
            legal = pos.legal_moves(dice)
            ma, mb = a.choose_move(pos, dice), b.choose_move(pos, dice)
            assert ma == mb
            assert (ma is None) == (len(legal) == 0)
            assert ma is None or ma in legal


def test_zero_noise_is_expert_and_noise_changes_choices() -> None:
    expert = load("expert")
    quiet = NoisyBot(noise=0.0, seed=1)
    loud = load("beginner", seed=random.Random(1))
    differ = 0
    for pos, dice in random_game_positions(seed=6, games=4):
        legal = pos.legal_moves(dice)
        if len(legal) < 2:
            continue
        assert quiet.choose_index(legal) == expert.choose_index(legal)
        differ += loud.choose_index(legal) != expert.choose_index(legal)
    assert differ > 10  # a beginner really plays differently


def test_beginner_still_plays_the_opening() -> None:
    move = load("beginner", seed=2).choose_move(Position.initial(), (3, 1))
    assert move is not None and move in Position.initial().legal_moves((3, 1))
