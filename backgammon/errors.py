"""The exception hierarchy.

Every error the library raises for bad input is a :class:`ValueError` subclass, so
``except ValueError`` catches them all, and each message quotes the offending input
(and, where there is one, the Position ID it was checked against).

>>> from backgammon.errors import IllegalMoveError
>>> issubclass(IllegalMoveError, ValueError)
True
"""

from __future__ import annotations

__all__ = [
    "BackgammonError",
    "InvalidIdError",
    "InvalidPositionError",
    "InvalidMoveError",
    "IllegalMoveError",
    "AmbiguousMoveError",
    "IllegalActionError",
    "DiceExhaustedError",
]


class BackgammonError(ValueError):
    """Base class of every error raised by the library for bad input or a bad action."""


class InvalidIdError(BackgammonError):
    """A Position ID, Match ID or XGID that cannot be decoded."""


class InvalidPositionError(BackgammonError):
    """A board that breaks the rules of R1 (checker counts, both colours on a point...)."""


class InvalidMoveError(BackgammonError):
    """Move text that is not valid notation at all (``24/x``, ``3/9``)."""


class IllegalMoveError(BackgammonError):
    """A well-formed play that is not legal in this position with these dice."""


class AmbiguousMoveError(BackgammonError):
    """Move text that fits two or more legal plays with different resulting positions."""


class IllegalActionError(BackgammonError):
    """A game action taken out of turn or against the rules (doubling after rolling...)."""


class DiceExhaustedError(BackgammonError):
    """A scripted dice source (:class:`~backgammon.dice.ScriptedDice`) has no rolls left."""
