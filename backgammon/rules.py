"""Game settings as a value object: :class:`Rules`.

Every option of RULES.md that changes how a game is played or scored is a field here, with
the default the spec names. A game in a match (``match_length > 0``) ignores automatic
doubles, the Jacoby rule and beavers (R34); the ``*_apply`` properties say what is in force.

>>> from backgammon.rules import Rules
>>> money = Rules(jacoby=True, beavers=True)
>>> money.jacoby_applies, money.beavers_apply
(True, True)
>>> match = Rules(match_length=7, jacoby=True)
>>> match.is_money, match.jacoby_applies
(False, False)
>>> Rules.from_dict(money.to_dict()) == money
True
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields
from typing import Any

from .errors import BackgammonError

__all__ = ["Rules"]


@dataclass(frozen=True)
class Rules:
    """The options of a game (defaults as in RULES.md).

    * ``match_length`` — 0 for money play, else the match length N (R32).
    * ``opening_reroll`` — R5: the winner of the opening roll rolls both dice afresh
      instead of playing the opening dice. Default off.
    * ``automatic_doubles`` / ``automatic_double_limit`` — R6 (money only): equal opening
      dice double the centred cube, at most ``automatic_double_limit`` times a game.
    * ``jacoby`` — R25 (money only): with the cube still centred, gammons and
      backgammons count as a single game.
    * ``beavers`` — R30 (money only): the taker may redouble at once, keeping the cube.
    * ``backgammon_counts_as_gammon`` — R24 option: a backgammon scores 2×, not 3×.
    * ``cube_limit`` — R26: the highest cube value allowed (a power of 2), ``None`` for
      no limit. Doubles (and beavers, automatic doubles) that would pass it are refused.

    >>> Rules(cube_limit=64).may_double_to(128)
    False
    >>> Rules(cube_limit=48)
    Traceback (most recent call last):
    ...
    backgammon.errors.BackgammonError: cube_limit=48: the cube limit is a power of 2 (1, 2, 4 ... 64 ...) or None
    """

    match_length: int = 0
    opening_reroll: bool = False
    automatic_doubles: bool = False
    automatic_double_limit: int = 1
    jacoby: bool = False
    beavers: bool = False
    backgammon_counts_as_gammon: bool = False
    cube_limit: int | None = None

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if f.type == "bool" and not isinstance(value, bool):
                raise BackgammonError(f"{f.name}={value!r}: must be True or False")
        if not _is_int(self.match_length) or self.match_length < 0:
            raise BackgammonError(
                f"match_length={self.match_length!r}: 0 for money play or a length N >= 1 (R32)"
            )
        if not _is_int(self.automatic_double_limit) or self.automatic_double_limit < 0:
            raise BackgammonError(
                f"automatic_double_limit={self.automatic_double_limit!r}: a number of doubles >= 0 (R6)"
            )
        limit = self.cube_limit
        if limit is not None and (not _is_int(limit) or limit < 1 or limit & (limit - 1)):
            raise BackgammonError(
                f"cube_limit={limit!r}: the cube limit is a power of 2 (1, 2, 4 ... 64 ...) or None"
            )

    # -- what is in force --------------------------------------------------------------

    @property
    def is_money(self) -> bool:
        """True for money play (``match_length == 0``)."""
        return self.match_length == 0

    @property
    def jacoby_applies(self) -> bool:
        """The Jacoby rule is on and this is money play (R25, R34)."""
        return self.jacoby and self.is_money

    @property
    def beavers_apply(self) -> bool:
        """Beavers are on and this is money play (R30, R34)."""
        return self.beavers and self.is_money

    @property
    def automatic_doubles_apply(self) -> bool:
        """Automatic doubles are on (with a limit above 0) and this is money play (R6, R34)."""
        return self.automatic_doubles and self.automatic_double_limit > 0 and self.is_money

    def may_double_to(self, value: int) -> bool:
        """True when the cube may reach ``value`` under the cube limit (R26)."""
        return self.cube_limit is None or value <= self.cube_limit

    def multiplier(self, level: int, cube_centred: bool) -> int:
        """Points per cube unit for a win of ``level`` (1 single, 2 gammon, 3 backgammon),
        after the backgammon-as-gammon option (R24) and the Jacoby rule (R25).

        >>> Rules().multiplier(3, cube_centred=True)
        3
        >>> Rules(backgammon_counts_as_gammon=True).multiplier(3, cube_centred=False)
        2
        >>> Rules(jacoby=True).multiplier(2, cube_centred=True)
        1
        """
        if level not in (1, 2, 3):
            raise BackgammonError(f"level={level!r}: 1 (single), 2 (gammon) or 3 (backgammon)")
        if level == 3 and self.backgammon_counts_as_gammon:
            level = 2
        if level > 1 and cube_centred and self.jacoby_applies:
            level = 1
        return level

    # -- serialisation ------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The fields as a JSON-ready dict."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Rules:
        """Build from :meth:`to_dict`'s output; unknown keys are an error, missing ones take
        their defaults."""
        if not isinstance(data, dict):
            raise BackgammonError(f"rules {data!r}: expected a JSON object")
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise BackgammonError(f"rules {data!r}: unknown option(s) {', '.join(unknown)}")
        return cls(**data)


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)
