"""The FIBS rating formula: :class:`Rating`, :func:`win_probability`, :func:`rate`.

A player has a rating (1500 to start) and an experience (the match points played so far).
For a match to ``n`` points between ratings differing by ``D``, the underdog wins with
probability ``1 / (10 ** (D * sqrt(n) / 2000) + 1)``. After the match the winner gains
``4 * K * sqrt(n) * P`` and the loser loses ``4 * K * sqrt(n) * P``, where ``P`` is the
probability that the loser would have won and each player's ``K`` is
``max(1, 5 - experience / 100)`` (newcomers move faster); each experience grows by ``n``.

Worked example: two experienced players rated 1500 play a 1-point match. Each had
``P = 0.5``, ``K = 1``, so the winner gains ``4 * 1 * 1 * 0.5 = 2.00`` and the loser loses
as much:

>>> from backgammon.rating import Rating, rate, win_probability
>>> winner, loser = rate(Rating(1500, 500), Rating(1500, 500), 1)
>>> f"{winner.rating:.2f} {loser.rating:.2f}", winner.experience, loser.experience
('1502.00 1498.00', 501, 501)
>>> win_probability(1500, 1500, 7)
0.5
>>> round(win_probability(1400, 1600, 1), 4)
0.4427
>>> Rating(1500, 0).k, Rating(1500, 250).k, Rating(1500, 900).k
(5.0, 2.5, 1.0)
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from .errors import BackgammonError

__all__ = ["Rating", "win_probability", "rate"]


@dataclass(frozen=True)
class Rating:
    """A player's FIBS rating and experience (match points played)."""

    rating: float = 1500.0
    experience: int = 0

    @property
    def k(self) -> float:
        """The weight of the next result: ``max(1, 5 - experience / 100)``."""
        return max(1.0, 5.0 - self.experience / 100.0)


def _check_length(length: int) -> None:
    if isinstance(length, bool) or not isinstance(length, int) or length < 1:
        raise BackgammonError(f"a match length must be a whole number of points, 1 or more; got {length!r}")


def win_probability(a: float, b: float, length: int) -> float:
    """The probability that the player rated ``a`` beats the one rated ``b`` in a match
    to ``length`` points (the FIBS formula; the two sides' probabilities sum to 1).

    >>> p = win_probability(1700, 1500, 5)
    >>> round(p, 4), round(p + win_probability(1500, 1700, 5), 12)
    (0.6259, 1.0)
    """
    _check_length(length)
    underdog = 1.0 / (math.pow(10.0, abs(a - b) * math.sqrt(length) / 2000.0) + 1.0)
    return underdog if a < b else 1.0 - underdog


def rate(winner: Rating, loser: Rating, length: int) -> tuple[Rating, Rating]:
    """The winner's and the loser's ratings after a match to ``length`` points.

    >>> w, l = rate(Rating(1500, 0), Rating(1500, 0), 1)   # two newcomers: K = 5
    >>> round(w.rating - 1500, 2), round(l.rating - 1500, 2)
    (10.0, -10.0)
    """
    _check_length(length)
    upset = win_probability(loser.rating, winner.rating, length)
    step = 4.0 * math.sqrt(length) * upset
    return (
        Rating(winner.rating + winner.k * step, winner.experience + length),
        Rating(loser.rating - loser.k * step, loser.experience + length),
    )
