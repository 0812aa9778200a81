"""Bots built on the neural engine (:mod:`backgammon.engine`).

* ``expert`` — 0 ply: every play of the roll is evaluated in one batched call (the
  resulting position from the opponent's side, on roll, then flipped) and the play with the
  best cubeless equity is made;
* ``worldclass`` — 1 ply with a move filter (:class:`WorldClassBot`): up to 5 plays within
  0.16 of the best at 0 ply are evaluated over every opponent roll and reply.

Options: ``weights`` (a path to an ``.npz`` weights file or training checkpoint; default the
shipped weights) and ``seed`` (unused: the bot is deterministic).

Cube (money play only, from cubeless equity; a crude first policy): double when the
cubeless equity on roll is at least 0.45 and below 0.95 (too good: play on for the gammon),
take when the bot's cubeless equity is above −0.5. In match play it never doubles and
always takes (cubeful / match-winning-chance decisions are still to come).

>>> from backgammon import Position
>>> from backgammon.bots import load
>>> bot = load("expert")
>>> bot.choose_move(Position.initial(), (3, 1)) in Position.initial().legal_moves((3, 1))
True
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from ..engine.evaluator import Evaluator, default_evaluator
from ..matchid import MatchState
from ..position import LegalMoves, Position
from .base import Bot, CubeResponse, Seed, may_double
from .registry import register

__all__ = ["ExpertBot"]

_DOUBLE_MIN = 0.45
_TOO_GOOD = 0.95
_TAKE_MIN = -0.5


@register("expert")
class ExpertBot(Bot):
    """The 0-ply neural bot (module docs)."""

    name = "expert"

    def __init__(self, *, weights: str | Path | None = None, seed: Seed = None) -> None:
        super().__init__(seed=seed)
        self.evaluator = default_evaluator() if weights is None else Evaluator.from_file(weights)

    def choose_index(self, legal: LegalMoves) -> int:
        """The first play with the best 0-ply cubeless equity."""
        if len(legal) == 1:
            return 0
        return int(np.argmax(self.evaluator.play_equities(legal)))

    def should_double(self, position: Position, state: MatchState) -> bool:
        """Money play: double with a cubeless equity in ``[0.45, 0.95)``."""
        if not state.is_money or not may_double(state, state.player_on_roll):
            return False
        eq = self.evaluator.equity(position)
        return _DOUBLE_MIN <= eq < _TOO_GOOD

    def respond_to_double(self, position: Position, state: MatchState) -> CubeResponse:
        """Take when the cubeless equity (the doubler on roll) is above −0.5 for the bot."""
        if not state.is_money:
            return CubeResponse.TAKE
        eq = -self.evaluator.equity(position.swap())
        return CubeResponse.TAKE if eq > _TAKE_MIN else CubeResponse.PASS


@register("worldclass")
class WorldClassBot(ExpertBot):
    """1 ply with a move filter: the plays within ``threshold`` (cubeless equity) of the
    best at 0 ply, at most ``candidates`` of them, are evaluated at 1 ply (every opponent
    roll, the opponent's best 0-ply reply, averaged), all in one batched call; the best
    1-ply equity is played. Cube decisions are the ``expert``'s.

    >>> from backgammon import Position
    >>> from backgammon.bots import load
    >>> bot = load("worldclass")
    >>> bot.choose_move(Position.initial(), (6, 4)) in Position.initial().legal_moves((6, 4))
    True
    """

    name = "worldclass"

    def __init__(self, *, weights: str | Path | None = None, candidates: int = 5,
                 threshold: float = 0.16, seed: Seed = None) -> None:
        super().__init__(weights=weights, seed=seed)
        self.candidates = candidates
        self.threshold = threshold

    def choose_index(self, legal: LegalMoves) -> int:
        """The best play at 1 ply among the 0-ply candidates."""
        if len(legal) == 1:
            return 0
        eq0 = self.evaluator.play_equities(legal)
        order = np.argsort(-eq0, kind="stable")[: self.candidates]
        keep = order[eq0[order] >= eq0[order[0]] - self.threshold]
        if len(keep) == 1:
            return int(keep[0])
        # 1-ply for the opponent (on roll after each play), seen by the mover
        outs = self.evaluator.one_ply_outputs(legal.boards[keep])
        eq1 = -(2.0 * outs[:, 0] - 1.0 + outs[:, 1] - outs[:, 3] + outs[:, 2] - outs[:, 4])
        return int(keep[int(np.argmax(eq1))])
