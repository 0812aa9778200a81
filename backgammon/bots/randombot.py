"""The ``random`` bot: a uniformly random legal play; the simplest possible cube policy.

Checker play: each legal play (each distinct resulting position, R12) is equally likely,
drawn from the bot's own :class:`random.Random`, so a seeded bot replays the same game.

Cube and resignations — the evaluation-free defaults of :class:`~backgammon.bots.Bot`:
it never doubles, always takes (never beavers), and accepts a resignation only when it
gives up nothing (the offer is worth at least the most it could still win).

>>> from backgammon import Position
>>> from backgammon.bots import load
>>> a, b = load("random", seed=42), load("random", seed=42)
>>> pos = Position.initial()
>>> [str(a.choose_move(pos, (6, 5))) for _ in range(3)] == [str(b.choose_move(pos, (6, 5))) for _ in range(3)]
True
"""

from __future__ import annotations

from ..position import LegalMoves
from .base import Bot, Seed
from .registry import register

__all__ = ["RandomBot"]


@register("random")
class RandomBot(Bot):
    """Plays a uniformly random legal play; never doubles, always takes.

    >>> from backgammon import Position
    >>> legal = Position.initial().legal_moves((2, 1))
    >>> 0 <= RandomBot(seed=1).choose_index(legal) < len(legal)
    True
    """

    name = "random"

    def __init__(self, *, seed: Seed = None) -> None:
        super().__init__(seed=seed)

    def choose_index(self, legal: LegalMoves) -> int:
        """A uniformly random index into ``legal``."""
        return self.rng.randrange(len(legal))
