"""Commands: what a seat at a :class:`~backgammon.table.Table` asks to do.

Commands are small frozen value objects; :meth:`Command.to_dict` and :func:`command_from_dict`
are the wire format of online play (``{"type": "play", "move": "24/18 13/11"}``). A
command says *what*, never *who*: the table is told which seat sent it.

>>> from backgammon.table.commands import Play, Resign, command_from_dict
>>> Play("24/18 13/11").to_dict()
{'type': 'play', 'move': '24/18 13/11', 'confirm': False}
>>> command_from_dict({"type": "resign", "level": 2}) == Resign(2)
True
>>> command_from_dict({"type": "fly"})
Traceback (most recent call last):
...
backgammon.errors.BackgammonError: command {'type': 'fly'}: unknown type 'fly'; one of accept, beaver, confirm, consent, decline, double, next_game, pass, play, propose_double, ready, refuse, resign, roll, step, take, undo
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, dataclass_transform

from ..errors import BackgammonError

__all__ = [
    "COMMAND_TYPES",
    "Accept",
    "Beaver",
    "Command",
    "Confirm",
    "Consent",
    "Decline",
    "Double",
    "NextGame",
    "Pass",
    "Play",
    "ProposeDouble",
    "Ready",
    "Refuse",
    "Resign",
    "Roll",
    "Step",
    "Take",
    "Undo",
    "command_from_dict",
]


_CLASSES: dict[str, type[Command]] = {}


@dataclass_transform(frozen_default=True)
class Command:
    """Base of every command; ``type`` names it on the wire and in
    :attr:`~backgammon.table.Request.actions`. A subclass names its type in its class line
    (``class Roll(Command, type="roll")``) and becomes a frozen dataclass."""

    type: ClassVar[str] = ""

    def __init_subclass__(cls, *, type: str, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls.type = type
        dataclass(frozen=True)(cls)
        _CLASSES[type] = cls

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with a ``type`` key."""
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):  # type: ignore[arg-type]
            out[f.name] = getattr(self, f.name)
        return out


class Roll(Command, type="roll"):
    """Roll the dice (R7), or throw the opening roll (R4). The table rolls them."""


class Play(Command, type="play"):
    """Make ``move`` (notation, ``""`` when no play is possible) the tentative play of the
    roll (R42); with ``confirm`` it is played at once (as :class:`Confirm` would)."""

    move: str
    confirm: bool = False


class Step(Command, type="step"):
    """Move one checker tentatively: from point ``origin`` (the mover's numbering, 25 the
    bar) by one die ``die`` (R8–R20 decide whether the step can start a legal play)."""

    origin: int
    die: int


class Undo(Command, type="undo"):
    """Take back the last tentative step, or the tentative play (R42)."""


class Confirm(Command, type="confirm"):
    """Play the tentative play (R42); with none, the only possible play (empty or forced)."""


class Double(Command, type="double"):
    """Offer the cube before rolling (R27, R28); the box's double in a chouette (R40)."""


class ProposeDouble(Command, type="propose_double"):
    """A chouette team member proposes the team's double (R39)."""


class Consent(Command, type="consent"):
    """Agree to the team double another member proposed (R39)."""


class Refuse(Command, type="refuse"):
    """Refuse the team double another member proposed: the team does not double (R39)."""


class Ready(Command, type="ready"):
    """Nothing from this seat now: a team member lets the (bot) captain roll (R39)."""


class Take(Command, type="take"):
    """Take the double (R29)."""


class Pass(Command, type="pass"):
    """Pass (drop) the double (R29)."""


class Beaver(Command, type="beaver"):
    """Take and redouble at once, keeping the cube (R30; money play with beavers on)."""


class Resign(Command, type="resign"):
    """Offer to resign: 1 a single game, 2 a gammon, 3 a backgammon (R31)."""

    level: int = 1


class Accept(Command, type="accept"):
    """Accept the resignation offered (R31)."""


class Decline(Command, type="decline"):
    """Decline the resignation offered: play goes on (R31)."""


class NextGame(Command, type="next_game"):
    """Start the next game of a chouette after the rotation (R37, R38)."""


#: Every command type, by its wire name.
COMMAND_TYPES: Mapping[str, type[Command]] = _CLASSES

_FIELD_TYPES: dict[str, type] = {"move": str, "confirm": bool, "origin": int, "die": int, "level": int}


def command_from_dict(data: Any) -> Command:
    """The command that ``data`` (a :meth:`Command.to_dict`, e.g. parsed from JSON) describes;
    :class:`~backgammon.errors.BackgammonError` with a sentence for anything malformed.

    >>> command_from_dict({"type": "step", "origin": 13, "die": 5})
    Step(origin=13, die=5)
    >>> command_from_dict({"type": "step", "origin": "13", "die": 5})
    Traceback (most recent call last):
    ...
    backgammon.errors.BackgammonError: command {'type': 'step', 'origin': '13', 'die': 5}: origin must be a whole number
    """
    if not isinstance(data, Mapping):
        raise BackgammonError(f"command {data!r}: expected an object with a 'type'")
    kind = data.get("type")
    cls = _CLASSES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise BackgammonError(
            f"command {dict(data)!r}: unknown type {kind!r}; one of {', '.join(sorted(_CLASSES))}"
        )
    names = {f.name for f in fields(cls)}  # type: ignore[arg-type]
    extra = sorted(set(data) - names - {"type"})
    if extra:
        raise BackgammonError(f"command {dict(data)!r}: unexpected field(s) {', '.join(extra)}")
    kwargs: dict[str, Any] = {}
    for f in fields(cls):  # type: ignore[arg-type]
        if f.name not in data:
            continue
        value = data[f.name]
        want = _FIELD_TYPES[f.name]
        if not isinstance(value, want) or (want is int and isinstance(value, bool)):
            what = {str: "text", bool: "true or false", int: "a whole number"}[want]
            raise BackgammonError(f"command {dict(data)!r}: {f.name} must be {what}")
        kwargs[f.name] = value
    try:
        return cls(**kwargs)
    except TypeError:
        missing = sorted(names - set(kwargs))
        raise BackgammonError(f"command {dict(data)!r}: missing field(s) {', '.join(missing)}") from None
