"""The wire protocol of ``backgammon serve`` (docs/PROTOCOL.md): client messages parsed and
checked (:func:`parse`), server messages built (:func:`welcome`, :func:`state`, :func:`ack`,
:func:`refused`, :func:`error`, :func:`chat`), the ``plays`` keys (:func:`plays_keys`) and the
per-connection throttle (:class:`Throttle`).

Nothing here touches a socket or the database: a bad message becomes a
:class:`ProtocolError` whose sentence the server sends back as an ``error`` (and nothing
changes).

>>> parse('{"type": "command", "seat": "ann", "id": 1, "command": {"type": "roll"}}')
CommandMessage(seat='ann', command=Roll(), id=1)
>>> parse('{"type": "dance"}')
Traceback (most recent call last):
...
backgammon.server.protocol.ProtocolError: unknown message type 'dance'; send one of chat, command, hello, hint, leave, mute_spectators, ping, seed
>>> error("slow down")
{'type': 'error', 'error': 'slow down'}
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..errors import BackgammonError, Refusal
from ..fairdice import check_client_seed
from ..position import LegalMoves, Position
from ..table import Command, Table, command_from_dict
from ..table.snapshot import board_view

__all__ = [
    "BURST",
    "CHAT_LIMIT",
    "FLOOD_DROPS",
    "FLOOD_WINDOW",
    "MAX_MESSAGE",
    "PROTOCOL_VERSION",
    "RATE",
    "ChatMessage",
    "ClientMessage",
    "CommandMessage",
    "Hello",
    "Leave",
    "HintRequest",
    "MuteSpectators",
    "Ping",
    "ProtocolError",
    "SeedMessage",
    "Throttle",
    "ack",
    "chat",
    "error",
    "parse",
    "plays_keys",
    "refused",
    "state",
    "welcome",
]

#: The protocol version this server speaks.
PROTOCOL_VERSION = 1
#: The largest client message, in bytes (UTF-8).
MAX_MESSAGE = 4096
#: The longest chat line, in characters.
CHAT_LIMIT = 300
#: Messages a second a connection may send, and the burst it may save up.
RATE = 20.0
BURST = 40.0
#: A connection with this many dropped messages within :data:`FLOOD_WINDOW` seconds is closed.
FLOOD_DROPS = 60
FLOOD_WINDOW = 5.0


class ProtocolError(BackgammonError):
    """A client message that cannot be acted on; ``id`` is the message's ``id`` when known."""

    def __init__(self, message: str, id: Any = None) -> None:
        super().__init__(message)
        self.id = id


@dataclass(frozen=True)
class Hello:
    """``hello``: the first message (seat tokens, a client seed for the dice, a spectator's name)."""

    protocol: int
    tokens: tuple[str, ...] = ()
    client_seed: str | None = None
    name: str | None = None


@dataclass(frozen=True)
class CommandMessage:
    """``command``: act for ``seat``; ``id`` is echoed in the ``ack`` or ``refused``."""

    seat: str
    command: Command
    id: Any = None


@dataclass(frozen=True)
class ChatMessage:
    """``chat``: a line said at the table."""

    text: str


@dataclass(frozen=True)
class MuteSpectators:
    """``mute_spectators``: a player stops (``True``) or restarts spectators' chat."""

    mute: bool


@dataclass(frozen=True)
class SeedMessage:
    """``seed``: the browser's contribution (hex) to the dice of game ``game``."""

    game: int
    seed: str


@dataclass(frozen=True)
class HintRequest:
    """``hint``: the analysis of ``seat``'s decision now (against bots only)."""

    seat: str
    id: Any = None


@dataclass(frozen=True)
class Leave:
    """``leave``: the player at ``seat`` leaves the match and loses it (``abandoned``)."""

    seat: str
    id: Any = None


@dataclass(frozen=True)
class Ping:
    """``ping``: answered by ``pong``."""


ClientMessage = Hello | CommandMessage | ChatMessage | MuteSpectators | SeedMessage | HintRequest | Leave | Ping


def _field(data: Mapping[str, Any], name: str, kind: type | tuple[type, ...], what: str, *,
           required: bool = True, id: Any = None) -> Any:
    """``data[name]`` checked against ``kind`` (bools are never whole numbers)."""
    if name not in data or data[name] is None:
        if required:
            raise ProtocolError(f"a {data.get('type')} message needs '{name}' ({what})", id)
        return None
    value = data[name]
    if not isinstance(value, kind) or (isinstance(value, bool) and bool not in _as_tuple(kind)):
        raise ProtocolError(f"'{name}' of a {data.get('type')} message must be {what}", id)
    return value


def _as_tuple(kind: type | tuple[type, ...]) -> tuple[type, ...]:
    return kind if isinstance(kind, tuple) else (kind,)


def _hello(data: Mapping[str, Any]) -> Hello:
    version = _field(data, "protocol", int, f"the protocol version, {PROTOCOL_VERSION}")
    if version != PROTOCOL_VERSION:
        raise ProtocolError(f"this server speaks protocol {PROTOCOL_VERSION}, not {version}: reload the page")
    tokens = _field(data, "tokens", list, "a list of seat tokens", required=False) or []
    if len(tokens) > 8 or not all(isinstance(t, str) and 0 < len(t) <= 100 for t in tokens):
        raise ProtocolError("'tokens' of a hello message must be at most 8 seat tokens (text)")
    seed = _field(data, "client_seed", str, "hex text", required=False)
    if seed is not None:
        _check_seed(seed)
    name = _field(data, "name", str, "a name (text)", required=False)
    if name is not None:
        name = name.strip()
        if not 0 < len(name) <= 40:
            raise ProtocolError("a spectator's name is 1-40 characters")
    return Hello(version, tuple(tokens), seed, name)


def _check_seed(seed: str) -> None:
    if check_client_seed(seed) is not None:
        raise ProtocolError("a client seed is 16-128 hex digits (0-9, a-f), an even number of them")


def _command(data: Mapping[str, Any]) -> CommandMessage:
    id = data.get("id")
    if isinstance(id, (dict, list)):
        raise ProtocolError("the 'id' of a command is a number or text")
    seat = _field(data, "seat", str, "the name of a seat you hold", id=id)
    raw = _field(data, "command", dict, 'a command object like {"type": "roll"}', id=id)
    try:
        command = command_from_dict(raw)
    except BackgammonError as exc:
        raise ProtocolError(str(exc), id) from None
    return CommandMessage(seat, command, id)


def _chat(data: Mapping[str, Any]) -> ChatMessage:
    text = _field(data, "text", str, "text")
    text = text.strip()
    if not 0 < len(text) <= CHAT_LIMIT:
        raise ProtocolError(f"a chat line is 1-{CHAT_LIMIT} characters")
    return ChatMessage(text)


def _seed(data: Mapping[str, Any]) -> SeedMessage:
    game = _field(data, "game", int, "a game number")
    seed = _field(data, "seed", str, "hex text")
    _check_seed(seed)
    return SeedMessage(game, seed.lower())


_PARSERS: dict[str, Callable[[Mapping[str, Any]], ClientMessage]] = {
    "hello": _hello,
    "command": _command,
    "chat": _chat,
    "mute_spectators": lambda d: MuteSpectators(_field(d, "mute", bool, "true or false")),
    "seed": _seed,
    "hint": lambda d: HintRequest(_field(d, "seat", str, "the name of a seat you hold", id=d.get("id")),
                                  _plain_id(d)),
    "leave": lambda d: Leave(_field(d, "seat", str, "the name of a seat you hold", id=d.get("id")),
                             _plain_id(d)),
    "ping": lambda d: Ping(),
}


def _plain_id(data: Mapping[str, Any]) -> Any:
    id = data.get("id")
    if isinstance(id, (dict, list)):
        raise ProtocolError("the 'id' of a message is a number or text")
    return id


def parse(raw: str | bytes) -> ClientMessage:
    """The client message in ``raw`` (a WebSocket text frame); :class:`ProtocolError` with a
    sentence when it is too long, not a JSON object, of an unknown type or has a bad field.

    >>> parse(b'{"type": "chat", "text": " hi "}')
    ChatMessage(text='hi')
    >>> parse("[1]")
    Traceback (most recent call last):
    ...
    backgammon.server.protocol.ProtocolError: a message is a JSON object with a 'type'
    """
    size = len(raw) if isinstance(raw, bytes) else len(raw.encode("utf-8", "surrogatepass"))
    if size > MAX_MESSAGE:
        raise ProtocolError(f"a message is at most {MAX_MESSAGE} bytes; this one has {size}")
    try:
        data = json.loads(raw)
    except (ValueError, UnicodeDecodeError):
        raise ProtocolError("a message is JSON text (this one is not)") from None
    if not isinstance(data, dict) or "type" not in data:
        raise ProtocolError("a message is a JSON object with a 'type'")
    kind = data["type"]
    parser = _PARSERS.get(kind) if isinstance(kind, str) else None
    if parser is None:
        known = ", ".join(sorted(_PARSERS))
        raise ProtocolError(f"unknown message type {kind!r}; send one of {known}", data.get("id"))
    return parser(data)


# -- server messages ---------------------------------------------------------------------------


def plays_keys(table: Table, seat: str) -> list[dict[str, Any]]:
    """The ``plays`` of ``seat`` (empty unless it is to play): each legal play with the key of
    the board after it, seen by the mover: points 1-24 (own checkers positive, the other
    side's negative), own bar, other bar, own off, other off. When the dice allow no play,
    the one legal play is the empty play ``""`` (the board unchanged), which the page confirms.

    >>> from backgammon.dice import ScriptedDice
    >>> from backgammon.table import Seat, commands as cmd
    >>> t = Table.match([Seat("ann"), Seat("bob")], dice=ScriptedDice([(3, 1)]))
    >>> _ = t.submit("ann", cmd.Roll())
    >>> plays = plays_keys(t, "ann")
    >>> first = next(p for p in plays if p["move"] == "8/5 6/5")
    >>> first["key"][4], first["key"][5], first["key"][7], first["key"][24:]
    (2, 4, 2, [0, 0, 0, 0])
    >>> plays_keys(t, "bob")
    []
    """
    if "play" not in table.actions(seat):
        return []
    legal = table.contest.legal_moves()
    found = _KEYS.get((legal.origin, legal.dice))
    if found is None:
        found = _keys(legal)
        if len(_KEYS) >= 2048:  # a small cache: every connection of a seat, every reconnect
            _KEYS.pop(next(iter(_KEYS)))
        _KEYS[(legal.origin, legal.dice)] = found
    return [{"move": move, "key": list(key)} for move, key in found]


_KEYS: dict[tuple[Position, tuple[int, int]], tuple[tuple[str, tuple[int, ...]], ...]] = {}


def _keys(legal: LegalMoves) -> tuple[tuple[str, tuple[int, ...]], ...]:
    """The plays of ``legal`` with their keys (the texts are the game's own, computed once)."""
    if not len(legal):  # no legal play: the empty play is the only one (the board stays as it is)
        return (("", _key(legal.origin)),)
    return tuple((move, _key(legal.position(index).swap())) for index, move in enumerate(legal.texts()))


def _key(position: Position) -> tuple[int, ...]:
    """The key of a board seen by the mover: points 1-24, own bar, other bar, own off, other off."""
    view = board_view(position)
    return (*view.points, view.bar[0], view.bar[1], view.off[0], view.off[1])


def fair_view(public: Mapping[str, Any], over: bool = False) -> dict[str, Any]:
    """The ``fair`` object of a ``state``: the current game (commitment, client seeds, dice so
    far), how many games are revealed, and the last revealed game in full (its seed and
    dice). Every revealed game is in the table's ``/record``; a state does not repeat them
    all (a long match would send thousands of dice with every move). When the contest is
    ``over``, no game is to come: ``game`` and ``commitment`` are null.

    >>> fair_view({"game": 3, "commitment": "c3", "client_seeds": [], "dice": [4],
    ...            "revealed": [{"game": 1}, {"game": 2}]})["last_revealed"]
    {'game': 2}
    """
    revealed = list(public.get("revealed") or ())
    out = {k: v for k, v in public.items() if k != "revealed"}
    out["revealed_count"] = len(revealed)
    out["last_revealed"] = revealed[-1] if revealed else None
    if over:
        out.update(game=None, commitment=None, client_seeds=[], dice=[])
    return out


def welcome(info: Mapping[str, Any], seats: Sequence[str], you: str) -> dict[str, Any]:
    """The answer to ``hello``: the table, the seats this connection acts for and its name."""
    return {
        "type": "welcome", "protocol": PROTOCOL_VERSION, "table": dict(info), "seats": list(seats), "you": you,
    }


def state(
    seq: int,
    snapshots: Mapping[str, Any],
    plays: list[dict[str, Any]],
    log: list[dict[str, str]],
    fair: Mapping[str, Any],
    info: Mapping[str, Any],
    log_start: int = 0,
    over: bool = False,
    clock: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """The whole view of one connection; ``log`` holds the record's lines from number
    ``log_start`` on (the lines before it were sent to this connection already); ``clock``
    is the match clock's view (``backgammon.clock.Clock.view``) or ``None``."""
    return {
        "type": "state",
        "seq": seq,
        "snapshots": dict(snapshots),
        "plays": plays,
        "log": log,
        "log_start": log_start,
        "fair": fair_view(fair, over),
        "table": dict(info),
        "clock": None if clock is None else dict(clock),
    }


def ack(id: Any) -> dict[str, Any]:
    """A command was accepted."""
    return {"type": "ack", "id": id}


def refused(id: Any, refusal: Refusal, player: str | None) -> dict[str, Any]:
    """A command was refused by the rules; nothing changed. ``player``: the seat's name (a
    :class:`~backgammon.errors.Refusal` of a match names the side, 0 or 1)."""
    return {
        "type": "refused",
        "id": id,
        "refusal": {
            "action": refusal.action, "player": player, "rule": refusal.rule, "reason": refusal.reason,
        },
    }


def error(text: str, id: Any = None) -> dict[str, Any]:
    """A message that was not acted on, and why."""
    out: dict[str, Any] = {"type": "error", "error": text}
    if id is not None:
        out["id"] = id
    return out


def chat(name: str, text: str, at: str, spectator: bool, user: str | None = None) -> dict[str, Any]:
    """A chat line (``at``: ISO 8601 time; ``user``: the account that said it, ``None`` for
    a guest)."""
    return {"type": "chat", "from": name, "text": text, "at": at, "spectator": spectator, "user": user}


# -- throttling --------------------------------------------------------------------------------


@dataclass
class Throttle:
    """A token bucket: :data:`RATE` messages a second, bursts of :data:`BURST`.
    :meth:`allow` says whether a message may pass; :attr:`flooding` turns true when more
    than :data:`FLOOD_DROPS` messages were dropped within :data:`FLOOD_WINDOW` seconds.

    >>> t = Throttle(clock=lambda: 0.0)
    >>> sum(t.allow() for _ in range(50))
    40
    >>> t.flooding
    False
    """

    rate: float = RATE
    burst: float = BURST
    clock: Callable[[], float] = time.monotonic
    tokens: float = field(default=-1.0)
    _last: float = field(default=0.0, repr=False)
    _drops: deque[float] = field(default_factory=deque, repr=False)

    def __post_init__(self) -> None:
        if self.tokens < 0:
            self.tokens = self.burst
        self._last = self.clock()

    def allow(self) -> bool:
        """Take a token for one message; ``False`` (and a drop counted) when none is left."""
        now = self.clock()
        self.tokens = min(self.burst, self.tokens + (now - self._last) * self.rate)
        self._last = now
        while self._drops and self._drops[0] < now - FLOOD_WINDOW:
            self._drops.popleft()
        if self.tokens >= 1.0:
            self.tokens -= 1.0
            return True
        self._drops.append(now)
        return False

    @property
    def flooding(self) -> bool:
        """Too many drops lately: the connection should be closed (code 1008)."""
        return len(self._drops) > FLOOD_DROPS
