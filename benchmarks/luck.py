"""Luck-adjusted results of cubeless money games: the variance reduction of the benchmarks
that play bots against each other (``strength.py``).

The dice of a game are luck; a player's skill is what it makes of them. Before each roll
the network (the shipped ``expert``'s, or the one given) values what every one of the 21
rolls would bring with its best 0-ply play (the mover's cubeless equity after it, a
finished game's exact result); the luck of the roll thrown is its value minus the mean
over the 36 rolls. Each luck term has mean zero whatever happened before it (the roll is
independent of the past and the mean is taken over exactly its distribution), so the
game's points minus the sum of its luck terms has the same expected value as the points
themselves — whatever the network, which only decides how much of the variance goes — and
far less variance: gnubg's and XG's "luck-adjusted result", as in the rollouts of
:mod:`backgammon.engine._rollout_kernels`.

The opening roll is measured against the 30 opening throws: both sides are equally likely
to win each, and the position after either side plays it is the other's mirror, so the
mean is zero and the opening's luck is the value of its best play for whoever won it.

>>> from backgammon import Position
>>> from backgammon.engine import default_evaluator
>>> turns = [Turn(0, Position.initial(), (6, 5), opening=True)]
>>> v = turn_luck(default_evaluator(), turns)
>>> 0.05 < v[0] < 0.4  # 6-5 opening: lucky for the side that throws it
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from backgammon import Position
from backgammon.dice import ROLLS
from backgammon.engine.evaluator import Evaluator, equities
from backgammon.events import OpeningRoll, Roll
from backgammon.game import Game

#: Each roll's place in :data:`~backgammon.dice.ROLLS`, either order of the dice.
ROLL_INDEX: dict[tuple[int, int], int] = {
    order: i for i, ((a, b), _) in enumerate(ROLLS) for order in ((a, b), (b, a))
}


@dataclass(frozen=True)
class Turn:
    """A roll to measure: ``player`` (0 or 1) threw ``dice`` in ``position`` (the
    position from its side, before the play); ``opening`` marks the opening roll."""

    player: int
    position: Position
    dice: tuple[int, int]
    opening: bool = False


def turns_of(game: Game) -> list[Turn]:
    """Every roll of ``game`` that was played (the opening roll that decided who starts,
    then each turn's roll), replayed from its event log."""
    replay = Game(game.rules)
    out: list[Turn] = []
    for index, event in enumerate(game.events):
        if not event.primary:
            continue
        replay._dispatch(event, index)  # noqa: SLF001 - Game.replay's step, event by event
        if isinstance(event, OpeningRoll):
            dice, on_roll = replay.dice, replay.on_roll
            if dice is not None and on_roll is not None:  # the throw decided who starts
                out.append(Turn(on_roll, replay.position, dice, opening=True))
        elif isinstance(event, Roll):
            out.append(Turn(event.player, replay.position, event.dice))
    return out


def _result_boards(position: Position, dice: tuple[int, int]) -> np.ndarray:
    """The positions after each legal play (the opponent's side, on roll), or the position
    passed on when there is none."""
    legal = position.legal_moves(dice)
    if not len(legal):
        return np.frombuffer(position.swap()._key, dtype=np.uint8).reshape(1, 50)  # noqa: SLF001
    return legal.boards


def turn_luck(evaluator: Evaluator, turns: Sequence[Turn]) -> list[float]:
    """The luck of each of ``turns`` for the player who threw it (cubeless equity), every
    position evaluated in one batched call. A turn's 21 rolls include the one thrown; the
    opening needs the thrown roll alone."""
    blocks: list[np.ndarray] = []
    spans: list[list[tuple[int, int]]] = []  # per turn, the rows of each roll's plays
    start = 0
    for turn in turns:
        span = []
        for dice in [turn.dice] if turn.opening else [dice for dice, _ in ROLLS]:
            boards = _result_boards(turn.position, dice)
            blocks.append(boards)
            span.append((start, start + len(boards)))
            start += len(boards)
        spans.append(span)
    if not blocks:
        return []
    # each row is evaluated for the opponent, on roll: the mover's equity is its negative
    mover = -equities(evaluator.outputs(np.concatenate(blocks)))
    out = []
    for turn, span in zip(turns, spans):
        best = [float(mover[lo:hi].max()) for lo, hi in span]
        if turn.opening:
            out.append(best[0])
            continue
        mean = 0.0
        for value, (_, weight) in zip(best, ROLLS):
            mean += weight / 36.0 * value
        out.append(best[ROLL_INDEX[turn.dice]] - mean)
    return out


def game_luck(evaluator: Evaluator, game: Game) -> float:
    """Seat 0's luck over ``game``: its rolls' luck minus its opponent's (cubeless equity)."""
    turns = turns_of(game)
    return sum(v if t.player == 0 else -v for t, v in zip(turns, turn_luck(evaluator, turns)))
