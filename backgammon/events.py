"""The event log: every game, match and chouette is an append-only list of these value objects.

Each action on a :class:`~backgammon.game.Game` appends one event (the *primary* events:
rolls, plays, cube and resignation actions); the game also logs what follows from them
(*derived* events: an automatic double after equal opening dice, the end of the game). Dice
are events, so replaying a log needs no dice source. Events serialise to JSON-ready dicts
(``{"type": "play", "player": 0, "move": "24/18 13/11"}``) and back.

>>> from backgammon.events import Roll, Play, event_from_dict
>>> from backgammon.move import Move
>>> e = Play(player=1, move=Move.parse("13/11 24/18"))
>>> e.to_dict()
{'type': 'play', 'player': 1, 'move': '24/18 13/11'}
>>> event_from_dict(e.to_dict()) == e
True
>>> event_from_dict({"type": "roll", "player": 0, "dice": [6, 6]})
Roll(player=0, dice=(6, 6))

One framework serves the three logs: every event class derives from :class:`Event` and
registers itself, under its *family* (``"game"`` for games and matches, ``"chouette"`` for
the chouette's own events in :mod:`backgammon.chouette`) and its ``type`` string, so a
chouette's ``"roll"`` and a game's ``"roll"`` do not clash. :func:`event_from_dict` reads
any family back through one table of field converters; :func:`check_same_log` is the
replay check of all three; :meth:`Event.apply` takes a primary event's action again on a
game or chouette; :meth:`Event.visit` lets a reader (a narrator) handle each type in its
own ``on_<type>`` method.
"""

from __future__ import annotations

import json
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, dataclass, fields
from enum import Enum
from typing import Any, ClassVar, Self

from .dice import DiceSource
from .errors import BackgammonError, InvalidMoveError
from .move import Move

__all__ = [
    "FORMAT_VERSION",
    "GAME_EVENT_TYPES",
    "PRIMARY_EVENTS",
    "MatchEvent",
    "Accept",
    "AutomaticDouble",
    "Beaver",
    "Decline",
    "Double",
    "Event",
    "FORFEIT_REASONS",
    "Forfeit",
    "GameEnd",
    "GameEvent",
    "GameResult",
    "GameStart",
    "Logged",
    "MatchEnd",
    "OpeningRoll",
    "Pass",
    "Play",
    "Resign",
    "ResultKind",
    "Roll",
    "SetUp",
    "Take",
    "check_header",
    "check_same_log",
    "event_class",
    "event_from_dict",
    "event_list",
    "load_json",
]

#: Version of the JSON format written by ``to_json()`` of games and matches.
FORMAT_VERSION = 1

_LEVEL_NAMES = {1: "single", 2: "gammon", 3: "backgammon"}


class ResultKind(Enum):
    """How a game ended.

    >>> ResultKind("gammon")
    <ResultKind.GAMMON: 'gammon'>
    """

    SINGLE = "single"  #: R22: the loser has borne off a checker
    GAMMON = "gammon"  #: R23: the loser has borne off nothing
    BACKGAMMON = "backgammon"  #: R24: a gammon with a loser's checker on the bar or in the winner's home
    RESIGNED = "resigned"  #: R31: a resignation was accepted
    PASSED = "passed"  #: R29: a double was passed


@dataclass(frozen=True)
class GameResult:
    """The end of a game: who won, how, and for how many points.

    ``level`` is the nominal size of the win (1 single, 2 gammon, 3 backgammon; for a
    resignation the level offered, for a pass 1). ``cube`` is the cube value that counts
    (for a pass, the value before the refused double). ``multiplier`` is ``level`` after
    the backgammon-as-gammon option (R24) and the Jacoby rule (R25); ``points`` is
    ``cube * multiplier``. In a match ``points`` may take a player past N; see
    :meth:`backgammon.match.Match.capped_points`.

    >>> r = GameResult(winner=0, kind=ResultKind.GAMMON, level=2, cube=2, multiplier=2, points=4)
    >>> r.loser, str(r)
    (1, 'player 0 wins a gammon: 4 points')
    """

    winner: int
    kind: ResultKind
    level: int
    cube: int
    multiplier: int
    points: int

    @property
    def loser(self) -> int:
        """The other player."""
        return 1 - self.winner

    def __str__(self) -> str:
        return self.text()

    def text(self, names: Sequence[str] | None = None) -> str:
        """The result in words, the winner named by ``names`` (by player number) if given.

        >>> GameResult(1, ResultKind.GAMMON, level=2, cube=2, multiplier=2, points=4).text(["ann", "bob"])
        'bob wins a gammon: 4 points'
        """
        what = {
            ResultKind.SINGLE: "a single game",
            ResultKind.GAMMON: "a gammon",
            ResultKind.BACKGAMMON: "a backgammon",
            ResultKind.RESIGNED: f"by resignation ({_LEVEL_NAMES.get(self.level, '?')})",
            ResultKind.PASSED: "as the double is passed",
        }[self.kind]
        who = f"player {self.winner}" if names is None else names[self.winner]
        return f"{who} wins {what}: {self.points} point{'s' if self.points != 1 else ''}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "winner": self.winner,
            "kind": self.kind.value,
            "level": self.level,
            "cube": self.cube,
            "multiplier": self.multiplier,
            "points": self.points,
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> GameResult:
        """Inverse of :meth:`to_dict`."""
        try:
            return cls(
                winner=_player(data["winner"]),
                kind=ResultKind(data["kind"]),
                level=_int(data["level"]),
                cube=_int(data["cube"]),
                multiplier=_int(data["multiplier"]),
                points=_int(data["points"]),
            )
        except (KeyError, TypeError, ValueError) as exc:
            raise BackgammonError(f"game result {dict(data)!r}: {exc}") from None


# -- the framework ------------------------------------------------------------------------

#: Every event class by (family, type): filled as the classes are defined.
_REGISTRY: dict[tuple[str, str], type[Event]] = {}


@typing.dataclass_transform(frozen_default=True)
class Event:
    """Base of every log entry of a game, a match or a chouette.

    A subclass that sets ``type`` registers itself under ``(family, type)`` (the family is
    inherited: ``"game"`` here, ``"chouette"`` for :class:`backgammon.chouette.ChouetteEvent`).
    *Primary* events record an action and are replayed by taking it again (:meth:`apply`);
    the others (``primary = False``) follow from one and are checked on replay.

    >>> event_class("game", "roll") is Roll
    True
    >>> Roll(0, (3, 1)).visit(object()) is None
    True
    """

    type: ClassVar[str]
    #: True for events that record an action (replayed by calling the action); False for
    #: events that follow from one (checked when replaying).
    primary: ClassVar[bool] = True
    #: The namespace of ``type``: ``"game"`` (games and matches) or ``"chouette"``.
    family: ClassVar[str] = "game"
    #: The method of a :class:`~backgammon.game.Game` or
    #: :class:`~backgammon.chouette.Chouette` that takes this action again: for a primary
    #: event the one named like its ``type`` unless the class says otherwise, ``None`` for
    #: a derived one; and the fields passed to it besides ``player=``.
    action: ClassVar[str | None] = None
    arguments: ClassVar[tuple[str, ...]] = ()

    def __init_subclass__(
        cls,
        *,
        type: str | None = None,
        primary: bool | None = None,
        family: str | None = None,
        action: str | None = None,
        arguments: tuple[str, ...] | None = None,
        **kwargs: Any,
    ) -> None:
        super().__init_subclass__(**kwargs)
        given = {"type": type, "primary": primary, "family": family, "action": action, "arguments": arguments}
        for name, value in given.items():
            if value is not None:
                setattr(cls, name, value)
        if "__dataclass_fields__" not in cls.__dict__:
            dataclass(frozen=True)(cls)
        if "type" in cls.__dict__:
            key = (cls.family, cls.type)
            taken = _REGISTRY.get(key)
            if taken is not None and _name_of(taken) != _name_of(cls):
                raise TypeError(f"event type {key!r} is taken by {_name_of(taken)}")
            _REGISTRY[key] = cls
            if cls.primary and "action" not in cls.__dict__:
                cls.action = cls.type

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with a ``type`` key, then the fields in order."""
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):  # type: ignore[arg-type]
            out[f.name] = _to_json(getattr(self, f.name))
        return out

    def apply(self, target: Any) -> None:
        """Take the action this event records again on ``target`` (a game or a chouette):
        call its method :attr:`action` with the :attr:`arguments` and ``player=``."""
        if self.action is None:
            raise BackgammonError(f"{self!r} is not an action here")
        method = getattr(target, self.action)
        args = [getattr(self, name) for name in self.arguments]
        if hasattr(self, "player"):
            method(*args, player=getattr(self, "player"))
        else:
            method(*args)

    def visit(self, visitor: Any) -> Any:
        """Hand this event to ``visitor``'s ``on_<type>`` method (``on_play`` for a play),
        or to its ``on_event`` when it has none; return what it returns (``None`` when it
        has neither)."""
        handler = getattr(visitor, f"on_{self.type}", None) or getattr(visitor, "on_event", None)
        return None if handler is None else handler(self)


def _name_of(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def event_class(family: str, kind: str) -> type[Event]:
    """The event class registered as type ``kind`` in ``family``; raises ``KeyError``."""
    return _REGISTRY[(family, kind)]


def _to_json(value: Any) -> Any:
    if isinstance(value, Move):
        return str(value)
    if isinstance(value, Enum):
        return value.value
    if isinstance(value, tuple):
        return list(value)
    if isinstance(value, GameResult):
        return value.to_dict()
    return value


class _ByPlayer(Event):
    """An event with only the player who acted (a game's player 0 or 1)."""

    player: int


class _CubeByPlayer(Event):
    """A cube action: who acted, and the cube's value after it."""

    player: int
    cube: int


# -- the events of a game and a match -----------------------------------------------------


class SetUp(Event, type="setup"):
    """A game that starts from a given moment rather than the opening (first event only).

    ``position_id`` is seen from ``player``, who is on roll; ``dice`` is ``None`` when the
    player has yet to roll (or double); ``double_offered`` means ``player`` has doubled to
    ``2 * cube`` and the opponent must answer.

    >>> SetUp("4HPwATDgc/ABMA", player=1, dice=(6, 5)).to_dict()["dice"]
    [6, 5]
    """

    action: ClassVar[str | None] = None  # taken again by the game's own set-up
    position_id: str
    player: int
    cube: int = 1
    cube_owner: int | None = None
    dice: tuple[int, int] | None = None
    double_offered: bool = False


class OpeningRoll(Event, type="opening_roll", action="roll", arguments=("dice",)):
    """One throw of the opening roll (R4): ``dice[i]`` is player ``i``'s die. Equal dice are
    thrown again (and may double the cube, R6).

    >>> OpeningRoll((3, 1)).to_dict()
    {'type': 'opening_roll', 'dice': [3, 1]}
    """

    dice: tuple[int, int]


class AutomaticDouble(Event, type="automatic_double", primary=False):
    """R6: equal opening dice doubled the centred cube to ``cube``. Derived.

    >>> AutomaticDouble(2).to_dict()
    {'type': 'automatic_double', 'cube': 2}
    """

    cube: int


class Roll(Event, type="roll", arguments=("dice",)):
    """``player`` rolled ``dice`` (R7).

    >>> Roll(0, (6, 6)).to_dict()
    {'type': 'roll', 'player': 0, 'dice': [6, 6]}
    """

    player: int
    dice: tuple[int, int]


class Play(Event, type="play", arguments=("move",)):
    """``player`` played ``move`` (the empty move when no play was possible).

    >>> Play(0, Move()).to_dict()
    {'type': 'play', 'player': 0, 'move': ''}
    """

    player: int
    move: Move


class Double(_CubeByPlayer, type="double"):
    """``player`` offered the cube at ``cube`` (R27, R28).

    >>> Double(1, 2).to_dict()
    {'type': 'double', 'player': 1, 'cube': 2}
    """


class Take(_CubeByPlayer, type="take"):
    """``player`` took; they own the cube at ``cube`` (R29).

    >>> Take(0, 2).to_dict()
    {'type': 'take', 'player': 0, 'cube': 2}
    """


class Beaver(_CubeByPlayer, type="beaver"):
    """``player`` took and redoubled at once, keeping the cube at ``cube`` (R30).

    >>> Beaver(0, 4).to_dict()
    {'type': 'beaver', 'player': 0, 'cube': 4}
    """


class Pass(_ByPlayer, type="pass", action="pass_double"):
    """``player`` passed the double and lost the game (R29).

    >>> Pass(0).to_dict()
    {'type': 'pass', 'player': 0}
    """


class Resign(Event, type="resign", arguments=("level",)):
    """``player`` offered to resign at ``level`` (1 single, 2 gammon, 3 backgammon; R31).

    >>> Resign(1, 2).to_dict()
    {'type': 'resign', 'player': 1, 'level': 2}
    """

    player: int
    level: int


class Accept(_ByPlayer, type="accept"):
    """``player`` accepted the resignation (R31).

    >>> Accept(0).to_dict()
    {'type': 'accept', 'player': 0}
    """


class Decline(_ByPlayer, type="decline"):
    """``player`` declined the resignation; play goes on (R31).

    >>> Decline(0).to_dict()
    {'type': 'decline', 'player': 0}
    """


class GameEnd(Event, type="game_end", primary=False):
    """The game is over. Derived.

    >>> GameEnd(GameResult(1, ResultKind.PASSED, 1, 2, 1, 2)).to_dict()["result"]["kind"]
    'passed'
    """

    result: GameResult


class GameStart(Event, type="game_start", primary=False):
    """A match log's marker: game ``number`` (from 1) starts at ``score``; ``crawford`` when it
    is the Crawford game (R33). Derived.

    >>> GameStart(3, (4, 2), crawford=True).to_dict()
    {'type': 'game_start', 'number': 3, 'score': [4, 2], 'crawford': True}
    """

    number: int
    score: tuple[int, int]
    crawford: bool = False


#: Why a player forfeits a match: ``"time"`` (their clock ran out) or ``"abandoned"`` (they left).
FORFEIT_REASONS: tuple[str, ...] = ("time", "abandoned")


class Forfeit(Event, type="forfeit", arguments=("reason",)):
    """``player`` lost the match without playing it out, for ``reason`` (one of
    :data:`FORFEIT_REASONS`): the other player wins it (R32); in a money session the session
    ends with the score as it stands. Not a game's event: a match log has it after the
    unfinished game's events, before its :class:`MatchEnd`.

    >>> Forfeit(1, "time").to_dict()
    {'type': 'forfeit', 'player': 1, 'reason': 'time'}
    """

    player: int
    reason: str


class MatchEnd(Event, type="match_end", primary=False):
    """A match log's last event: ``winner`` reached the match length (R32), or the other
    player forfeited (:class:`Forfeit`). Derived.

    >>> MatchEnd(0, (7, 3)).to_dict()
    {'type': 'match_end', 'winner': 0, 'score': [7, 3]}
    """

    winner: int
    score: tuple[int, int]


GameEvent = (
    SetUp
    | OpeningRoll
    | AutomaticDouble
    | Roll
    | Play
    | Double
    | Take
    | Beaver
    | Pass
    | Resign
    | Accept
    | Decline
    | GameEnd
)
#: The events of a match log: a game's, the match's markers, and a forfeit.
MatchEvent = GameEvent | GameStart | Forfeit | MatchEnd

#: The event classes of one game's log, in the order a game meets them.
GAME_EVENT_TYPES: tuple[type[Any], ...] = (
    SetUp,
    OpeningRoll,
    AutomaticDouble,
    Roll,
    Play,
    Double,
    Take,
    Beaver,
    Pass,
    Resign,
    Accept,
    Decline,
    GameEnd,
)

#: The event types of games and matches that record an action.
PRIMARY_EVENTS: frozenset[str] = frozenset(t for (f, t), c in _REGISTRY.items() if f == "game" and c.primary)


# -- reading events back ------------------------------------------------------------------


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{value!r} is not an integer")
    return value


def _player(value: Any) -> int:
    if _int(value) not in (0, 1):
        raise ValueError(f"{value!r} is not a player (0 or 1)")
    return int(value)


def _name(value: Any) -> str:
    if not isinstance(value, str) or not value:
        raise TypeError(f"{value!r} is not a player's name")
    return value


def _names(value: Any) -> tuple[str, ...]:
    if not isinstance(value, list):
        raise TypeError(f"{value!r} is not a list of names")
    return tuple(_name(v) for v in value)


def _pair(value: Any) -> tuple[int, int]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ValueError(f"{value!r} is not a pair")
    return _int(value[0]), _int(value[1])


def _die(value: Any) -> int:
    if not 1 <= _int(value) <= 6:
        raise ValueError("dice are 1-6")
    return int(value)


def _throw(value: Any) -> tuple[int, ...]:
    if not isinstance(value, (list, tuple)) or not value:
        raise TypeError(f"{value!r} is not a list of dice")
    try:
        return tuple(_die(v) for v in value)
    except ValueError as exc:
        raise ValueError(f"{value!r}: {exc}") from None


def _dice(value: Any) -> tuple[int, int]:
    dice = _throw(value)
    if len(dice) != 2:
        raise ValueError(f"{value!r}: a roll is two dice")
    return dice[0], dice[1]


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{value!r} is not text")
    return value


def _reason(value: Any) -> str:
    if value not in FORFEIT_REASONS:
        raise ValueError(f"{value!r} is not a reason to forfeit ({', '.join(FORFEIT_REASONS)})")
    return str(value)


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{value!r} is not true or false")
    return value


#: How a field's JSON value is read back, by the field's type; a field whose name says
#: more than its type (a game's ``player`` is 0 or 1; ``dice`` are 1-6) is read by
#: ``(name, type)`` first. Enumerations are read by value.
_CONVERT: dict[Any, Callable[[Any], Any]] = {
    int: _int,
    bool: _bool,
    str: _name,
    tuple[int, int]: _pair,
    tuple[str, ...]: _names,
    Move: lambda v: Move.parse(_text(v)),
    GameResult: GameResult.from_dict,
    ("player", int): _player,
    ("winner", int): _player,
    ("cube_owner", int): _player,
    ("dice", tuple[int, int]): _dice,
    ("dice", tuple[int, ...]): _throw,
    ("position_id", str): _text,
    ("reason", str): _reason,
}


def _converter(name: str, hint: Any) -> Callable[[Any], Any]:
    if isinstance(hint, types.UnionType):  # ``X | None``
        inner = _converter(name, next(a for a in typing.get_args(hint) if a is not type(None)))
        return lambda v: None if v is None else inner(v)
    found = _CONVERT.get((name, hint)) or _CONVERT.get(hint)
    if found is not None:
        return found
    if isinstance(hint, type) and issubclass(hint, Enum):
        return hint
    raise TypeError(f"no converter for field {name}: {hint!r}")  # pragma: no cover


#: Per event class: (name, converter, required) for each field, in order.
_SPECS: dict[type[Event], list[tuple[str, Callable[[Any], Any], bool]]] = {}


def _spec(cls: type[Event]) -> list[tuple[str, Callable[[Any], Any], bool]]:
    spec = _SPECS.get(cls)
    if spec is None:
        hints = typing.get_type_hints(cls)
        spec = [
            (f.name, _converter(f.name, hints[f.name]), f.default is MISSING and f.default_factory is MISSING)
            for f in fields(cls)  # type: ignore[arg-type]
        ]
        _SPECS[cls] = spec
    return spec


def event_from_dict(data: Mapping[str, Any], family: str = "game") -> Event:
    """Rebuild an event of ``family`` (``"game"`` for game and match logs, ``"chouette"``)
    from :meth:`Event.to_dict`'s output; raises :class:`~backgammon.errors.BackgammonError`
    on anything malformed.

    >>> event_from_dict({"type": "roll", "player": 0, "dice": [7, 1]})
    Traceback (most recent call last):
    ...
    backgammon.errors.BackgammonError: event {'type': 'roll', 'player': 0, 'dice': [7, 1]}: [7, 1]: dice are 1-6
    """
    label = "event" if family == "game" else f"{family} event"
    if not isinstance(data, Mapping):
        raise BackgammonError(f"{label} {data!r}: expected a JSON object")
    kind = data.get("type")
    cls = _REGISTRY.get((family, kind)) if isinstance(kind, str) else None
    if cls is None:
        raise BackgammonError(f"{label} {dict(data)!r}: unknown type {kind!r}")
    spec = _spec(cls)
    extra = sorted(set(data) - {name for name, _, _ in spec} - {"type"})
    missing = [name for name, _, required in spec if required and name not in data]
    if extra or missing:
        what = "unexpected field(s) " + ", ".join(extra) if extra else "missing field(s) " + ", ".join(missing)
        raise BackgammonError(f"{label} {dict(data)!r}: {what}")
    try:
        return cls(**{name: convert(data[name]) for name, convert, _ in spec if name in data})
    except (TypeError, ValueError) as exc:  # InvalidMoveError and BackgammonError are ValueErrors
        raise BackgammonError(f"{label} {dict(data)!r}: {exc}") from None


# -- logs -------------------------------------------------------------------------------------


def check_same_log(got: Sequence[Event], expected: Sequence[Event]) -> None:
    """Raise :class:`~backgammon.errors.BackgammonError` unless a replay's log ``got`` is the
    log ``expected`` (the replay check of games, matches and chouettes)."""
    for i, (a, b) in enumerate(zip(got, expected)):
        if a != b:
            raise BackgammonError(
                f"the log does not replay: event {i} is {b!r} in the log but {a!r} on replay"
            )
    if len(got) != len(expected):
        i = min(len(got), len(expected))
        extra = got[i] if len(got) > i else expected[i]
        where = "on replay but not in the log" if len(got) > i else "in the log but not on replay"
        raise BackgammonError(f"the log does not replay: event {i} {extra!r} is {where}")


def load_json(text: str) -> Any:
    """A saved log's JSON text, parsed; :class:`~backgammon.errors.BackgammonError` if it is
    not JSON."""
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise BackgammonError(f"not JSON: {exc}") from None


def check_header(data: Any, fmt: str, version: int = FORMAT_VERSION) -> None:
    """Check a saved log's header: a JSON object of ``format`` ``fmt`` and a version from 1
    to ``version``."""
    if not isinstance(data, Mapping):
        raise BackgammonError(f"expected a JSON object with format {fmt!r}")
    if data.get("format") != fmt:
        raise BackgammonError(f"format {data.get('format')!r}: expected {fmt!r}")
    found = data.get("version")
    if not isinstance(found, int) or isinstance(found, bool) or not 1 <= found <= version:
        raise BackgammonError(f"format version {found!r}: this library reads versions 1-{version}")


def event_list(data: Mapping[str, Any]) -> list[Any]:
    """The ``events`` list of a saved log (empty when absent)."""
    events = data.get("events", [])
    if not isinstance(events, list):
        raise BackgammonError(f"events {events!r}: expected a list")
    return events


class Logged:
    """What a game, a match and a chouette share as the records of a log: equality of their
    ``_key()`` (rules, state and log; the dice source is not compared), no hash (they
    change), and JSON text through their ``to_dict`` / ``from_dict``."""

    __slots__ = ()

    def _key(self) -> tuple[Any, ...]:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        """Equal when rules, state and log are all equal (the dice source is not compared)."""
        if not isinstance(other, type(self)):
            return NotImplemented
        return self._key() == other._key()

    __hash__ = None  # type: ignore[assignment]

    def to_dict(self) -> dict[str, Any]:
        """The log with its header, JSON-ready."""
        raise NotImplementedError

    def to_json(self, indent: int | None = None) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, data: dict[str, Any], *, dice: DiceSource | None = None) -> Self:
        """Rebuild from :meth:`to_dict`'s output by replaying the log."""
        raise NotImplementedError

    @classmethod
    def from_json(cls, text: str, *, dice: DiceSource | None = None) -> Self:
        """Rebuild from :meth:`to_json`'s output."""
        return cls.from_dict(load_json(text), dice=dice)
