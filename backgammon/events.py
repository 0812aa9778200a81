"""The event log: every game and match is an append-only list of these value objects.

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
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, fields
from enum import Enum
from typing import Any, ClassVar

from .errors import BackgammonError, InvalidMoveError
from .move import Move

__all__ = [
    "FORMAT_VERSION",
    "GAME_EVENT_TYPES",
    "PRIMARY_EVENTS",
    "Accept",
    "AutomaticDouble",
    "Beaver",
    "Decline",
    "Double",
    "Event",
    "GameEnd",
    "GameEvent",
    "GameResult",
    "GameStart",
    "MatchEnd",
    "OpeningRoll",
    "Pass",
    "Play",
    "Resign",
    "ResultKind",
    "Roll",
    "SetUp",
    "Take",
    "event_from_dict",
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
        what = {
            ResultKind.SINGLE: "a single game",
            ResultKind.GAMMON: "a gammon",
            ResultKind.BACKGAMMON: "a backgammon",
            ResultKind.RESIGNED: f"by resignation ({_LEVEL_NAMES.get(self.level, '?')})",
            ResultKind.PASSED: "as the double is passed",
        }[self.kind]
        return f"player {self.winner} wins {what}: {self.points} point{'s' if self.points != 1 else ''}"

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


# -- events -----------------------------------------------------------------------------


class _EventBase:
    """Shared serialisation; each event class sets ``type`` and ``primary``."""

    type: ClassVar[str]
    #: True for events that record an action (replayed by calling the action); False for
    #: events that follow from one (checked when replaying).
    primary: ClassVar[bool] = True

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict with a ``type`` key."""
        out: dict[str, Any] = {"type": self.type}
        for f in fields(self):  # type: ignore[arg-type]
            name = f.name
            value = getattr(self, name)
            if isinstance(value, Move):
                value = str(value)
            elif isinstance(value, tuple):
                value = list(value)
            elif isinstance(value, GameResult):
                value = value.to_dict()
            out[name] = value
        return out


@dataclass(frozen=True)
class SetUp(_EventBase):
    """A game that starts from a given moment rather than the opening (first event only).

    ``position_id`` is seen from ``player``, who is on roll; ``dice`` is ``None`` when the
    player has yet to roll (or double); ``double_offered`` means ``player`` has doubled to
    ``2 * cube`` and the opponent must answer.

    >>> SetUp("4HPwATDgc/ABMA", player=1, dice=(6, 5)).to_dict()["dice"]
    [6, 5]
    """

    type: ClassVar[str] = "setup"
    position_id: str
    player: int
    cube: int = 1
    cube_owner: int | None = None
    dice: tuple[int, int] | None = None
    double_offered: bool = False


@dataclass(frozen=True)
class OpeningRoll(_EventBase):
    """One throw of the opening roll (R4): ``dice[i]`` is player ``i``'s die. Equal dice are
    thrown again (and may double the cube, R6).

    >>> OpeningRoll((3, 1)).to_dict()
    {'type': 'opening_roll', 'dice': [3, 1]}
    """

    type: ClassVar[str] = "opening_roll"
    dice: tuple[int, int]


@dataclass(frozen=True)
class AutomaticDouble(_EventBase):
    """R6: equal opening dice doubled the centred cube to ``cube``. Derived.

    >>> AutomaticDouble(2).to_dict()
    {'type': 'automatic_double', 'cube': 2}
    """

    type: ClassVar[str] = "automatic_double"
    primary: ClassVar[bool] = False
    cube: int


@dataclass(frozen=True)
class Roll(_EventBase):
    """``player`` rolled ``dice`` (R7).

    >>> Roll(0, (6, 6)).to_dict()
    {'type': 'roll', 'player': 0, 'dice': [6, 6]}
    """

    type: ClassVar[str] = "roll"
    player: int
    dice: tuple[int, int]


@dataclass(frozen=True)
class Play(_EventBase):
    """``player`` played ``move`` (the empty move when no play was possible).

    >>> Play(0, Move()).to_dict()
    {'type': 'play', 'player': 0, 'move': ''}
    """

    type: ClassVar[str] = "play"
    player: int
    move: Move


@dataclass(frozen=True)
class Double(_EventBase):
    """``player`` offered the cube at ``cube`` (R27, R28).

    >>> Double(1, 2).to_dict()
    {'type': 'double', 'player': 1, 'cube': 2}
    """

    type: ClassVar[str] = "double"
    player: int
    cube: int


@dataclass(frozen=True)
class Take(_EventBase):
    """``player`` took; they own the cube at ``cube`` (R29).

    >>> Take(0, 2).to_dict()
    {'type': 'take', 'player': 0, 'cube': 2}
    """

    type: ClassVar[str] = "take"
    player: int
    cube: int


@dataclass(frozen=True)
class Beaver(_EventBase):
    """``player`` took and redoubled at once, keeping the cube at ``cube`` (R30).

    >>> Beaver(0, 4).to_dict()
    {'type': 'beaver', 'player': 0, 'cube': 4}
    """

    type: ClassVar[str] = "beaver"
    player: int
    cube: int


@dataclass(frozen=True)
class Pass(_EventBase):
    """``player`` passed the double and lost the game (R29).

    >>> Pass(0).to_dict()
    {'type': 'pass', 'player': 0}
    """

    type: ClassVar[str] = "pass"
    player: int


@dataclass(frozen=True)
class Resign(_EventBase):
    """``player`` offered to resign at ``level`` (1 single, 2 gammon, 3 backgammon; R31).

    >>> Resign(1, 2).to_dict()
    {'type': 'resign', 'player': 1, 'level': 2}
    """

    type: ClassVar[str] = "resign"
    player: int
    level: int


@dataclass(frozen=True)
class Accept(_EventBase):
    """``player`` accepted the resignation (R31).

    >>> Accept(0).to_dict()
    {'type': 'accept', 'player': 0}
    """

    type: ClassVar[str] = "accept"
    player: int


@dataclass(frozen=True)
class Decline(_EventBase):
    """``player`` declined the resignation; play goes on (R31).

    >>> Decline(0).to_dict()
    {'type': 'decline', 'player': 0}
    """

    type: ClassVar[str] = "decline"
    player: int


@dataclass(frozen=True)
class GameEnd(_EventBase):
    """The game is over. Derived.

    >>> GameEnd(GameResult(1, ResultKind.PASSED, 1, 2, 1, 2)).to_dict()["result"]["kind"]
    'passed'
    """

    type: ClassVar[str] = "game_end"
    primary: ClassVar[bool] = False
    result: GameResult


@dataclass(frozen=True)
class GameStart(_EventBase):
    """A match log's marker: game ``number`` (from 1) starts at ``score``; ``crawford`` when it
    is the Crawford game (R33). Derived.

    >>> GameStart(3, (4, 2), crawford=True).to_dict()
    {'type': 'game_start', 'number': 3, 'score': [4, 2], 'crawford': True}
    """

    type: ClassVar[str] = "game_start"
    primary: ClassVar[bool] = False
    number: int
    score: tuple[int, int]
    crawford: bool = False


@dataclass(frozen=True)
class MatchEnd(_EventBase):
    """A match log's last event: ``winner`` reached the match length (R32). Derived.

    >>> MatchEnd(0, (7, 3)).to_dict()
    {'type': 'match_end', 'winner': 0, 'score': [7, 3]}
    """

    type: ClassVar[str] = "match_end"
    primary: ClassVar[bool] = False
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
Event = GameEvent | GameStart | MatchEnd

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

_CLASSES: dict[str, type[Any]] = {c.type: c for c in GAME_EVENT_TYPES + (GameStart, MatchEnd)}

#: The event types that record an action.
PRIMARY_EVENTS: frozenset[str] = frozenset(t for t, c in _CLASSES.items() if c.primary)


def _int(value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{value!r} is not an integer")
    return value


def _player(value: Any) -> int:
    if _int(value) not in (0, 1):
        raise ValueError(f"{value!r} is not a player (0 or 1)")
    return int(value)


def _pair(value: Any) -> tuple[int, int]:
    if not isinstance(value, (list, tuple)) or len(value) != 2:
        raise ValueError(f"{value!r} is not a pair")
    return _int(value[0]), _int(value[1])


def _dice(value: Any) -> tuple[int, int]:
    a, b = _pair(value)
    if not (1 <= a <= 6 and 1 <= b <= 6):
        raise ValueError(f"{value!r} are not two dice 1-6")
    return a, b


def _text(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError(f"{value!r} is not text")
    return value


def _bool(value: Any) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"{value!r} is not true or false")
    return value


def event_from_dict(data: Mapping[str, Any]) -> Event:
    """Rebuild an event from :meth:`to_dict`'s output; raises
    :class:`~backgammon.errors.BackgammonError` on anything malformed."""
    if not isinstance(data, Mapping):
        raise BackgammonError(f"event {data!r}: expected a JSON object")
    kind = data.get("type")
    cls = _CLASSES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise BackgammonError(f"event {dict(data)!r}: unknown type {kind!r}")
    names = {f.name for f in fields(cls)}
    extra = sorted(set(data) - names - {"type"})
    if extra:
        raise BackgammonError(f"event {dict(data)!r}: unexpected field(s) {', '.join(extra)}")
    convert: dict[str, Any] = {
        "player": _player,
        "winner": _player,
        "dice": _dice,
        "cube": _int,
        "level": _int,
        "number": _int,
        "score": _pair,
        "crawford": _bool,
        "double_offered": _bool,
        "position_id": _text,
        "move": lambda v: Move.parse(_text(v)),
        "result": GameResult.from_dict,
        "cube_owner": lambda v: None if v is None else _player(v),
    }
    kwargs: dict[str, Any] = {}
    try:
        for name in names:
            if name not in data:
                continue  # dataclass default, or a TypeError below
            value = data[name]
            if name == "dice" and value is None and cls is SetUp:
                kwargs[name] = None
            else:
                kwargs[name] = convert[name](value)
        return cls(**kwargs)  # type: ignore[no-any-return]
    except (TypeError, ValueError, InvalidMoveError) as exc:
        raise BackgammonError(f"event {dict(data)!r}: {exc}") from None
