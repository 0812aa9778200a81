"""Dice sources: where a :class:`~backgammon.game.Game` gets its rolls.

A source hands out single dice (:meth:`DiceSource.die`, used for the opening roll, R4) and
rolls of two (:meth:`DiceSource.roll`). Three are provided:

* :class:`SecureDice` — the default: the operating system's CSPRNG via :mod:`secrets`.
* :class:`SeededDice` — reproducible: ``random.Random(seed)``, for simulations and tests.
* :class:`ScriptedDice` — a given list of dice, for tests and for entering the rolls of a
  game played with real dice. It raises :class:`~backgammon.errors.DiceExhaustedError`
  when it runs out (more rolls can be appended with :meth:`ScriptedDice.extend`).

>>> from backgammon.dice import ScriptedDice, SeededDice
>>> dice = ScriptedDice([(3, 1), "6-6", 5])
>>> dice.die(), dice.die(), dice.roll(), dice.die()
(3, 1, (6, 6), 5)
>>> SeededDice(7).roll() == SeededDice(7).roll()
True
"""

from __future__ import annotations

import random
import re
import secrets
from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Iterable

from .errors import BackgammonError, DiceExhaustedError

__all__ = ["ROLLS", "DiceSource", "ScriptedDice", "SecureDice", "SeededDice", "parse_dice"]

#: The 21 distinct rolls (higher die first) with how many of the 36 throws give each.
ROLLS: tuple[tuple[tuple[int, int], int], ...] = tuple(
    ((a, b), 1 if a == b else 2) for a in range(1, 7) for b in range(1, a + 1)
)

_DICE_TEXT = re.compile(r"^\s*\(?\s*([1-6])\s*[-,/ x]?\s*([1-6])\s*\)?\s*$")


def parse_dice(text: str) -> tuple[int, int]:
    """Read a roll written as ``31``, ``3-1``, ``3 1``, ``3,1`` or ``(3, 1)``.

    >>> parse_dice("6-5"), parse_dice("21")
    ((6, 5), (2, 1))
    >>> parse_dice("7-1")
    Traceback (most recent call last):
    ...
    backgammon.errors.BackgammonError: '7-1' is not a roll: write two dice 1-6 like 31 or 3-1
    """
    m = _DICE_TEXT.match(text)
    if m is None:
        raise BackgammonError(f"{text!r} is not a roll: write two dice 1-6 like 31 or 3-1")
    return int(m[1]), int(m[2])


class DiceSource(ABC):
    """Where dice come from. Subclasses implement :meth:`die`.

    >>> class AlwaysSix(DiceSource):
    ...     def die(self) -> int:
    ...         return 6
    >>> AlwaysSix().roll()
    (6, 6)
    """

    @abstractmethod
    def die(self) -> int:
        """One die, 1-6."""

    def roll(self) -> tuple[int, int]:
        """Two dice, in the order rolled."""
        return self.die(), self.die()


class SecureDice(DiceSource):
    """Fair dice from the operating system's cryptographically secure generator (:mod:`secrets`).

    >>> 1 <= SecureDice().die() <= 6
    True
    """

    def die(self) -> int:
        return secrets.randbelow(6) + 1

    def __repr__(self) -> str:
        return "SecureDice()"


class SeededDice(DiceSource):
    """Reproducible dice from ``random.Random(seed)``: the same seed gives the same rolls.

    >>> a, b = SeededDice(2024), SeededDice(2024)
    >>> [a.roll() for _ in range(3)] == [b.roll() for _ in range(3)]
    True
    """

    def __init__(self, seed: int | str | bytes | None = None) -> None:
        self.seed = seed
        self._rng = random.Random(seed)

    def die(self) -> int:
        return self._rng.randint(1, 6)

    def __repr__(self) -> str:
        return f"SeededDice({self.seed!r})"


class ScriptedDice(DiceSource):
    """Dice taken in order from a script: single dice (``5``), pairs (``(3, 1)``) or text
    (``"31"``, ``"3-1"``). Pairs are two dice in a row, so ``[(3, 1)]`` can serve an opening
    roll (player 0 rolls 3, player 1 rolls 1) as well as a normal roll.

    When the script runs out, :meth:`die` and :meth:`roll` raise
    :class:`~backgammon.errors.DiceExhaustedError` (a roll consumes nothing unless both
    dice are there).

    >>> dice = ScriptedDice(["52"])
    >>> dice.roll()
    (5, 2)
    >>> dice.roll()
    Traceback (most recent call last):
    ...
    backgammon.errors.DiceExhaustedError: scripted dice exhausted: a roll needs 2 dice, 0 left
    >>> dice.extend([(4, 4)]); dice.remaining
    2
    """

    def __init__(self, script: Iterable[int | tuple[int, int] | str] = ()) -> None:
        self._queue: deque[int] = deque()
        self.extend(script)

    def extend(self, script: Iterable[int | tuple[int, int] | str]) -> None:
        """Append more dice to the script (checked before any is added)."""
        dice: list[int] = []
        for item in script:
            if isinstance(item, str):
                text = item.strip()
                dice.extend((int(text),) if re.fullmatch(r"[1-6]", text) else parse_dice(text))
            elif isinstance(item, int) and not isinstance(item, bool):
                dice.append(item)
            elif isinstance(item, (tuple, list)) and len(item) == 2:
                dice.extend(item)
            else:
                raise BackgammonError(f"{item!r} is not a die, a pair of dice or a roll like '31'")
        for d in dice:
            if not isinstance(d, int) or isinstance(d, bool) or not 1 <= d <= 6:
                raise BackgammonError(f"{d!r} is not a die: dice are 1-6")
        self._queue.extend(dice)

    @property
    def remaining(self) -> int:
        """How many single dice are left."""
        return len(self._queue)

    def die(self) -> int:
        if not self._queue:
            raise DiceExhaustedError("scripted dice exhausted: no die left")
        return self._queue.popleft()

    def roll(self) -> tuple[int, int]:
        if len(self._queue) < 2:
            raise DiceExhaustedError(f"scripted dice exhausted: a roll needs 2 dice, {len(self._queue)} left")
        return self._queue.popleft(), self._queue.popleft()

    def __repr__(self) -> str:
        return f"ScriptedDice({list(self._queue)!r})"
