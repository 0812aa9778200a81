"""Matches played by a seeded random bot through :class:`backgammon.match.Match`, for the
match-file tests: random legal plays, doubles, takes, passes, beavers and resignations."""

from __future__ import annotations

import random

from backgammon.dice import DiceSource
from backgammon.game import Action, Phase
from backgammon.match import Match
from backgammon.rules import Rules


class NoTieDice(DiceSource):
    """Seeded dice whose opening throws never tie (a ``.mat`` file keeps no tied throw)."""

    def __init__(self, seed: int) -> None:
        self._rng = random.Random(seed)
        self._first: int | None = None

    def die(self) -> int:  # only the opening throws come here, in pairs
        if self._first is None:
            self._first = self._rng.randint(1, 6)
            return self._first
        other = self._rng.choice([d for d in range(1, 7) if d != self._first])
        self._first = None
        return other

    def roll(self) -> tuple[int, int]:
        return self._rng.randint(1, 6), self._rng.randint(1, 6)


def random_match(
    seed: int,
    length: int = 5,
    rules: Rules | None = None,
    *,
    games: int = 3,
    actions: int | None = None,
    double: float = 0.08,
    drop: float = 0.3,
    beaver: float = 0.3,
    resign: float = 0.01,
    resign_in: tuple[str, ...] = ("roll", "play", "cube"),
    max_level: int = 3,
) -> Match:
    """A match (``length`` >= 1) or a money session of ``games`` games played by a random bot;
    with ``actions`` it stops after that many actions (mid-game). Resignations (in the phases
    ``resign_in``, of level 1 to ``max_level``) are always accepted."""
    rng = random.Random(seed)
    match = Match(length, rules, dice=NoTieDice(seed))
    done = 0
    while not match.is_over() and (length or len(match.results) < games):
        if actions is not None and done >= actions:
            break
        done += 1
        game = match.game
        phase = game.phase
        legal = game.legal_actions()
        if phase is Phase.RESIGN:
            game.accept()
        elif phase is Phase.CUBE:
            r = rng.random()
            if Action.BEAVER in legal and r < beaver:
                game.beaver()
            elif r < resign * 10 and "cube" in resign_in:
                game.resign(rng.randint(1, max_level))
            elif r < drop:
                game.pass_double()
            else:
                game.take()
        elif phase is Phase.OPENING:
            game.roll()
        elif phase is Phase.ROLL:
            r = rng.random()
            if Action.DOUBLE in legal and r < double:
                game.double()
            elif r > 1 - resign and "roll" in resign_in:
                game.resign(rng.randint(1, max_level))
            else:
                game.roll()
        else:
            moves = game.legal_moves()
            if rng.random() < resign and "play" in resign_in:
                game.resign(rng.randint(1, max_level))
            else:
                game.play(moves[rng.randrange(len(moves))] if len(moves) else "")
    return match
