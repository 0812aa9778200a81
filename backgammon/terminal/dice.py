"""The dice of a terminal session: a script first, then seeded or secure dice.

``backgammon play --dice 31,62,55`` plays the scripted rolls first (each item a roll like
``31`` or ``3-1``, or a single die like ``5``; an opening roll takes one die per player, so
``31`` opens with player X throwing 3 and player O throwing 1); when the script runs out the
game goes on with ``--seed``'s dice, or with secure random dice. :class:`SessionDice` counts
every die it hands out, so a saved game resumes with exactly the dice it would have had.

>>> dice = SessionDice(parse_script("31, 6-2"), seed=7)
>>> dice.die(), dice.die(), dice.roll()
(3, 1, (6, 2))
>>> dice.scripted_left, dice.drawn
(0, 4)
>>> later = dice.roll()
>>> again = SessionDice.from_state(SessionDice(parse_script("31 62"), seed=7).state())
>>> again.skip(4); again.roll() == later
True
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ..dice import DiceSource, ScriptedDice, SecureDice, SeededDice
from ..errors import BackgammonError

__all__ = ["SessionDice", "parse_script"]


def parse_script(text: str) -> tuple[int, ...]:
    """The dice of a script such as ``"31,62,55"`` or ``"3-1 6-2 5"``: rolls of two dice
    (``31``, ``3-1``) or single dice (``5``), separated by commas, semicolons or spaces.

    >>> parse_script("31,6-2, 5")
    (3, 1, 6, 2, 5)
    >>> parse_script("31,72")
    Traceback (most recent call last):
    ...
    backgammon.errors.BackgammonError: '72' is not a roll: write two dice 1-6 like 31 or 3-1
    """
    items = [item for item in re.split(r"[,;\s]+", text.strip()) if item]
    script = ScriptedDice(items)
    return tuple(script.die() for _ in range(script.remaining))


class SessionDice(DiceSource):
    """Scripted dice (``script``), then :class:`~backgammon.dice.SeededDice` (``seed``) or
    :class:`~backgammon.dice.SecureDice` (no seed). :attr:`drawn` counts the dice handed out;
    :meth:`state` and :meth:`from_state` with :meth:`skip` restore the stream.

    ``on_script_end`` is called once, when the first die after the script is drawn.

    >>> SessionDice((6, 5)).roll()
    (6, 5)
    """

    def __init__(
        self,
        script: Sequence[int] = (),
        seed: int | None = None,
        *,
        on_script_end: Callable[[], None] | None = None,
    ) -> None:
        self.script = tuple(script)
        self.seed = seed
        self._scripted = ScriptedDice(self.script)
        self._fallback: DiceSource = SecureDice() if seed is None else SeededDice(seed)
        self.drawn = 0
        self.on_script_end = on_script_end

    @property
    def scripted_left(self) -> int:
        """How many scripted dice are still to come."""
        return self._scripted.remaining

    def die(self) -> int:
        self.drawn += 1
        if self._scripted.remaining:
            return self._scripted.die()
        if self.drawn == len(self.script) + 1 and self.script and self.on_script_end is not None:
            self.on_script_end()
        return self._fallback.die()

    def skip(self, count: int) -> None:
        """Draw and forget ``count`` dice (to take up a saved stream where it stopped)."""
        callback, self.on_script_end = self.on_script_end, None
        try:
            for _ in range(count):
                self.die()
        finally:
            self.on_script_end = callback

    def state(self) -> dict[str, Any]:
        """JSON-ready: the script, the seed and how many dice were drawn.

        >>> SessionDice((3, 1), seed=2).state()
        {'script': [3, 1], 'seed': 2, 'drawn': 0}
        """
        return {"script": list(self.script), "seed": self.seed, "drawn": self.drawn}

    @classmethod
    def from_state(cls, data: Mapping[str, Any]) -> SessionDice:
        """A fresh source with :meth:`state`'s script and seed, taken up after the dice
        already drawn."""
        try:
            script = data.get("script", [])
            seed = data.get("seed")
            drawn = data.get("drawn", 0)
            if not isinstance(script, list) or not all(
                isinstance(d, int) and not isinstance(d, bool) and 1 <= d <= 6 for d in script
            ):
                raise TypeError(f"script {script!r} is not a list of dice 1-6")
            if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
                raise TypeError(f"seed {seed!r} is not an integer")
            if not isinstance(drawn, int) or isinstance(drawn, bool) or drawn < 0:
                raise TypeError(f"drawn {drawn!r} is not a count")
        except (AttributeError, TypeError) as exc:
            raise BackgammonError(f"dice {data!r}: {exc}") from None
        dice = cls(script, seed)
        dice.skip(drawn)
        return dice

    def __repr__(self) -> str:
        return f"SessionDice(script={list(self.script)!r}, seed={self.seed!r}, drawn={self.drawn})"
