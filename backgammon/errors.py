"""The exception hierarchy.

Every error the library raises for bad input is a :class:`ValueError` subclass, so
``except ValueError`` catches them all, and each message quotes the offending input
(and, where there is one, the Position ID it was checked against).

>>> from backgammon.errors import IllegalMoveError
>>> issubclass(IllegalMoveError, ValueError)
True
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

_RULE_AT_END = re.compile(r"\s*\((R\d+)\)$")

__all__ = [
    "Refusal",
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
    """Base class of every error raised by the library for bad input or a bad action.

    :attr:`refusal` says why as data (:class:`Refusal`) where the library knows it: every
    :class:`IllegalActionError` of a game, match or chouette, and the
    :class:`IllegalMoveError` (or :class:`AmbiguousMoveError`, :class:`InvalidMoveError`) of
    a play; ``None`` otherwise.
    """

    def __init__(self, message: str = "", refusal: Refusal | None = None) -> None:
        super().__init__(message)
        self.refusal = refusal


class InvalidIdError(BackgammonError):
    """A Position ID, Match ID or XGID that cannot be decoded."""


class InvalidPositionError(BackgammonError):
    """A board that breaks the rules of R1 (checker counts, both colours on a point...)."""


class InvalidMoveError(BackgammonError):
    """Move text that is not valid notation at all (``24/x``, ``3/9``)."""


class IllegalMoveError(BackgammonError):
    """A well-formed play that is not legal in this position with these dice.

    >>> from backgammon import Position
    >>> try:
    ...     Position.initial().parse_move("24/21", (6, 5))
    ... except IllegalMoveError as e:
    ...     print(e.refusal)
    24/21 is not a legal play of 6-5 here
    """


class AmbiguousMoveError(BackgammonError):
    """Move text that fits two or more legal plays with different resulting positions."""


@dataclass(frozen=True)
class Refusal:
    """Why an action is not allowed now, as data: a front end shows :attr:`reason` (a
    sentence about the situation, with no Position ID and no rule number) and may cite
    :attr:`rule` (``"R33"``; ``None`` when no numbered rule is involved).

    ``action`` is the action's name (``"double"``, ``"roll"``, ``"play"``, ...) and
    ``player`` who tried it (0 or 1 in a game or match, a name in a chouette; ``None`` when
    not known).

    >>> r = Refusal("double", 1, "R33", "nobody may double in the Crawford game")
    >>> str(r)
    'nobody may double in the Crawford game (R33)'
    >>> Refusal.from_dict(r.to_dict()) == r
    True
    """

    action: str
    player: int | str | None
    rule: str | None
    reason: str

    def __str__(self) -> str:
        return self.reason if self.rule is None else f"{self.reason} ({self.rule})"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the wire format of a refusal)."""
        return {"action": self.action, "player": self.player, "rule": self.rule, "reason": self.reason}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Refusal:
        """Inverse of :meth:`to_dict`."""
        return cls(data["action"], data.get("player"), data.get("rule"), data["reason"])

    @classmethod
    def from_text(cls, action: str, player: int | str | None, text: str) -> Refusal:
        """The refusal that a sentence ending in its rule number states: the inverse of
        ``str()``.

        >>> Refusal.from_text("roll", 0, "roll the dice first")
        Refusal(action='roll', player=0, rule=None, reason='roll the dice first')
        >>> Refusal.from_text("double", "ann", "the box doubles on its own turn (R28)").rule
        'R28'
        """
        found = _RULE_AT_END.search(text)
        if found is None:
            return cls(action, player, None, text)
        return cls(action, player, found[1], text[: found.start()])


class IllegalActionError(BackgammonError):
    """A game action taken out of turn or against the rules (doubling after rolling...).

    :attr:`refusal` says why as data (:class:`Refusal`) where the library knows it.

    >>> e = IllegalActionError("double by player 1: ...", Refusal("double", 1, "R33", "no"))
    >>> e.refusal.rule
    'R33'
    """


class DiceExhaustedError(BackgammonError):
    """A scripted dice source (:class:`~backgammon.dice.ScriptedDice`) has no rolls left."""
