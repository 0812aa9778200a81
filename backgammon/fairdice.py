"""Provably fair dice for online play: commit to a secret, mix in the players' seeds, reveal.

For every game the server draws a fresh secret **server seed** (32 random bytes) and
publishes its **commitment**, ``SHA-256(server seed)`` as lowercase hex, before any die of
the game is drawn. Players (browsers) may send **client seeds** for that game; the seeds
received before the game's first die is drawn are used, in the order received (a seed sent
twice counts once; at most :data:`MAX_CLIENT_SEEDS` a game). When the game ends the server
seed is revealed, and anyone can recompute every die of the game and compare it with the
rolls in the table's log (:func:`verify_record`, ``backgammon verify FILE``, the ``/verify``
page). The server cannot choose the dice (it committed before the seeds arrived) and the
players cannot predict them (they do not know the secret).

Byte layout (version 1), precise enough to re-implement:

* A client seed is text of 16-128 hexadecimal digits, an even number of them (upper or lower
  case; kept in lower case). Its bytes are the hex-decoded digits (8-64 bytes).
* For block counter ``c`` = 0, 1, 2, ... the message is::

      message(c) = u32(game) || u8(k) || u8(len(s1)) || s1 || ... || u8(len(sk)) || sk || u32(c)

  where ``u32`` is 4 bytes unsigned big-endian, ``u8`` one byte, ``game`` the game number
  (1, 2, ...), ``k`` the number of client seeds and ``s1 .. sk`` their bytes in the order
  received. With no client seed the message is the 4 game bytes, one zero byte and the 4
  counter bytes.
* ``block(c) = HMAC-SHA256(key = server seed (32 bytes), message(c))``: 32 bytes.
* The byte stream is ``block(0) || block(1) || ...``. Each byte ``b`` in order: if
  ``b < 252`` it gives the die ``b % 6 + 1``; bytes 252-255 are skipped (rejection sampling:
  each face comes from exactly 42 of the 252 accepted values, so all faces are equally
  likely).
* Every die the game's dice source hands out is the next die of the stream, in the order the
  game asks for them: the opening roll asks for player 0's die then player 1's (a tie asks
  again), a roll asks for two dice (first die first), a chouette's roll-off one die per
  player in the order the log lists them. So the game's dice are exactly the dice of its
  ``roll_off``, ``opening_roll`` and ``roll`` events, in log order.

Known answer: server seed ``00 01 02 ... 1f`` (bytes 0-31), game 1, client seed
``"0123456789abcdef"``: the first ten dice are 1, 1, 1, 4, 4, 2, 6, 3, 4, 3
(:data:`KNOWN_ANSWER`).

Games: game ``n`` of the fair dice is game ``n`` of the table's log (its ``game_start``
event's ``number``; a chouette's roll-off before game 1 belongs to game 1). The front end
starts the next game of the fair dice (:meth:`FairDice.new_game`, which reveals the ended
one) as soon as a game is over, before any die of the next game is drawn
(:meth:`FairDice.advance_to` does it idempotently).

>>> dice = FairDice.from_dict({"version": 1, "game": 1, "server_seed": bytes(range(32)).hex(),
...                            "client_seeds": [], "dice": [], "revealed": []})
>>> dice.commitment == hashlib.sha256(bytes(range(32))).hexdigest()
True
>>> dice.add_client_seed(1, "0123456789ABCDEF")
True
>>> dice.roll() == tuple(KNOWN_ANSWER[:2])
True
>>> dice.add_client_seed(1, "fedcba9876543210")    # too late: a die of game 1 is drawn
False
>>> revealed = dice.new_game()
>>> revealed["client_seeds"], revealed["dice"] == list(KNOWN_ANSWER[:2]), dice.game
(['0123456789abcdef'], True, 2)
"""

from __future__ import annotations

import hashlib
import hmac
import json
import re
import secrets
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from .dice import DiceSource
from .errors import BackgammonError

__all__ = [
    "FORMAT_VERSION",
    "KNOWN_ANSWER",
    "MAX_CLIENT_SEEDS",
    "FairDice",
    "GameCheck",
    "VerifyReport",
    "check_client_seed",
    "commitment_of",
    "dice_stream",
    "log_rolls",
    "make_record",
    "message",
    "verify_record",
]

#: Version of :meth:`FairDice.to_dict`'s format and of the byte layout.
FORMAT_VERSION = 1
#: The most client seeds one game takes.
MAX_CLIENT_SEEDS = 32
#: Bytes below this give a die; 252 = 42 * 6.
_LIMIT = 252
_SEED_BYTES = 32
_CLIENT_SEED = re.compile(r"(?:[0-9a-fA-F]{2}){8,64}")
_HEX64 = re.compile(r"[0-9a-f]{64}")

#: The first ten dice of the known-answer vector of the module docstring.
KNOWN_ANSWER = (1, 1, 1, 4, 4, 2, 6, 3, 4, 3)


def check_client_seed(seed: object) -> str | None:
    """Why ``seed`` is not a client seed, as a sentence, or ``None`` when it is one.

    >>> check_client_seed("00ff00ff00ff00ff") is None, check_client_seed("xyz")
    (True, "a client seed is 16-128 hexadecimal digits (an even number of them), not 'xyz'")
    """
    if isinstance(seed, str) and _CLIENT_SEED.fullmatch(seed):
        return None
    shown = repr(seed) if len(repr(seed)) <= 40 else repr(seed)[:37] + "..."
    return f"a client seed is 16-128 hexadecimal digits (an even number of them), not {shown}"


def commitment_of(server_seed: bytes) -> str:
    """The commitment to a server seed: its SHA-256 as lowercase hex."""
    return hashlib.sha256(server_seed).hexdigest()


def message(game: int, client_seeds: Sequence[str], counter: int) -> bytes:
    """The HMAC message of block ``counter`` (see the byte layout in the module docstring).

    >>> message(1, ["0123456789ABCDEF"], 2).hex()      # game 1, 1 seed of 8 bytes, counter 2
    '0000000101080123456789abcdef00000002'
    """
    parts = [game.to_bytes(4, "big"), len(client_seeds).to_bytes(1, "big")]
    for seed in client_seeds:
        raw = bytes.fromhex(seed)
        parts += [len(raw).to_bytes(1, "big"), raw]
    parts.append(counter.to_bytes(4, "big"))
    return b"".join(parts)


def dice_stream(server_seed: bytes, game: int, client_seeds: Sequence[str]) -> Iterator[int]:
    """The endless stream of dice of one game (module docstring)."""
    counter = 0
    while True:
        block = hmac.new(server_seed, message(game, client_seeds, counter), hashlib.sha256).digest()
        counter += 1
        for b in block:
            if b < _LIMIT:
                yield b % 6 + 1


class FairDice(DiceSource):
    """A :class:`~backgammon.dice.DiceSource` whose dice anyone can check afterwards.

    ``state`` is :meth:`to_dict`'s output (a restart continues with the same next dice);
    without it the source starts at game 1 with a fresh secret. ``entropy(n)`` gives the
    ``n`` secret bytes of each new server seed (default :func:`secrets.token_bytes`; tests
    pass a reproducible one, a server never should).

    >>> d = FairDice()
    >>> d.game, len(d.commitment), d.public()["revealed"]
    (1, 64, [])
    """

    def __init__(
        self, state: Mapping[str, Any] | None = None, *, entropy: Callable[[int], bytes] = secrets.token_bytes
    ) -> None:
        self._entropy = entropy
        self.game = 1
        self._seed = self._new_seed()
        self._client_seeds: list[str] = []
        self._dice: list[int] = []
        self._revealed: list[dict[str, Any]] = []
        self._stream: Iterator[int] | None = None
        if state is not None:
            self._load(state)

    # -- the current game -----------------------------------------------------------------

    @property
    def commitment(self) -> str:
        """SHA-256 hex of the current game's server seed."""
        return commitment_of(self._seed)

    @property
    def client_seeds(self) -> tuple[str, ...]:
        """The current game's client seeds, in the order received."""
        return tuple(self._client_seeds)

    @property
    def dice(self) -> tuple[int, ...]:
        """The dice drawn so far in the current game."""
        return tuple(self._dice)

    @property
    def revealed(self) -> tuple[dict[str, Any], ...]:
        """The records of the finished games (copies)."""
        return tuple(_copy(r) for r in self._revealed)

    def add_client_seed(self, game: int, seed: str) -> bool:
        """Mix ``seed`` (16-128 hex digits) into game ``game``'s dice. False (nothing changes)
        when ``game`` is not the current game, a die of it is already drawn, or it has
        :data:`MAX_CLIENT_SEEDS` seeds, or ``seed`` is malformed (:func:`check_client_seed`
        says why); a seed it already has is True and counts once."""
        if check_client_seed(seed) is not None:
            return False
        seed = seed.lower()
        if game != self.game or self._dice:
            return False
        if seed in self._client_seeds:
            return True
        if len(self._client_seeds) >= MAX_CLIENT_SEEDS:
            return False
        self._client_seeds.append(seed)
        return True

    def _new_seed(self) -> bytes:
        seed = self._entropy(_SEED_BYTES)
        if not isinstance(seed, bytes) or len(seed) != _SEED_BYTES:
            raise BackgammonError(f"the entropy source gave {seed!r}: a server seed is {_SEED_BYTES} bytes")
        return seed

    def die(self) -> int:
        """The next die of the current game's stream (this freezes its client seeds)."""
        if self._stream is None:
            self._stream = dice_stream(self._seed, self.game, self._client_seeds)
        value = next(self._stream)
        self._dice.append(value)
        return value

    def _current(self) -> dict[str, Any]:
        return {
            "game": self.game,
            "server_seed": self._seed.hex(),
            "commitment": self.commitment,
            "client_seeds": list(self._client_seeds),
            "dice": list(self._dice),
        }

    def new_game(self) -> dict[str, Any]:
        """End the current game: return its record (``game``, ``server_seed``,
        ``commitment``, ``client_seeds``, ``dice``) and start the next with a new secret."""
        record = self._current()
        self._revealed.append(record)
        self.game += 1
        self._seed = self._new_seed()
        self._client_seeds = []
        self._dice = []
        self._stream = None
        return _copy(record)

    def advance_to(self, game: int) -> list[dict[str, Any]]:
        """Call :meth:`new_game` until the current game is ``game`` (nothing when it already
        is or is past it); returns the records revealed.

        A front end keeps the dice in step with a table after every command with
        ``advance_to(contest.game_number + contest.game_over())`` (``table.contest``): a
        match starts its next game at once when one ends, a chouette waits between games,
        and a finished game is revealed as soon as it is over. It is idempotent."""
        out = []
        while self.game < game:
            out.append(self.new_game())
        return out

    # -- views ------------------------------------------------------------------------------

    def public(self) -> dict[str, Any]:
        """The protocol's ``fair`` object: the current game's ``game``, ``commitment``,
        ``client_seeds`` and ``dice`` drawn so far (never its secret), and the ``revealed``
        records of the finished games."""
        return {
            "game": self.game,
            "commitment": self.commitment,
            "client_seeds": list(self._client_seeds),
            "dice": list(self._dice),
            "revealed": [_copy(r) for r in self._revealed],
        }

    def record(self) -> dict[str, Any]:
        """What a ``/api/tables/{id}/record`` download carries under ``"fair"``: :meth:`public`."""
        return self.public()

    def to_dict(self) -> dict[str, Any]:
        """Everything, the current secret included (for the server's store only)."""
        return {"version": FORMAT_VERSION, **self._current(), "revealed": [_copy(r) for r in self._revealed]}

    @classmethod
    def from_dict(
        cls, data: Mapping[str, Any], *, entropy: Callable[[int], bytes] = secrets.token_bytes
    ) -> FairDice:
        """Inverse of :meth:`to_dict`: the same next dice as the source that was saved."""
        return cls(data, entropy=entropy)

    def _load(self, data: Mapping[str, Any]) -> None:
        if not isinstance(data, Mapping):
            raise BackgammonError("saved fair dice: expected an object")
        if data.get("version") != FORMAT_VERSION:
            raise BackgammonError(f"saved fair dice version {data.get('version')!r}: this library reads 1")
        try:
            game = data["game"]
            seed = bytes.fromhex(data["server_seed"])
            client_seeds = [str(s).lower() for s in data["client_seeds"]]
            dice = [int(d) for d in data["dice"]]
            revealed = [_copy(r) for r in data["revealed"]]
        except (KeyError, TypeError, ValueError):
            raise BackgammonError(
                "saved fair dice need 'game', 'server_seed' (hex), 'client_seeds', 'dice' and 'revealed'"
            ) from None
        if not isinstance(game, int) or game < 1 or len(seed) != _SEED_BYTES:
            raise BackgammonError("saved fair dice: 'game' is a number from 1 and 'server_seed' 32 bytes of hex")
        for s in client_seeds:
            reason = check_client_seed(s)
            if reason is not None:
                raise BackgammonError(f"saved fair dice: {reason}")
        self.game, self._seed, self._client_seeds, self._revealed = game, seed, client_seeds, revealed
        self._dice = []
        if dice:
            for expected in dice:
                if self.die() != expected:
                    raise BackgammonError(
                        f"saved fair dice of game {game}: the drawn dice {dice} do not follow from the seeds"
                    )

    def __repr__(self) -> str:
        return f"FairDice(game={self.game}, commitment={self.commitment[:12]}..., dice drawn={len(self._dice)})"


def _copy(record: Mapping[str, Any]) -> dict[str, Any]:
    result: dict[str, Any] = json.loads(json.dumps(dict(record)))
    return result


def make_record(table: Mapping[str, Any], fair: FairDice) -> dict[str, Any]:
    """The ``/api/tables/{id}/record`` download: ``Table.to_dict()`` plus ``"fair"``."""
    return {**table, "fair": fair.record()}


# -- verification -----------------------------------------------------------------------------


def log_rolls(table: Mapping[str, Any]) -> dict[int, list[int]]:
    """The dice of each game in a table's (or a match's or chouette's) log, in the order they
    were drawn: game number -> dice. A chouette's roll-off before game 1 counts in game 1.

    >>> log_rolls({"log": {"events": [{"type": "game_start", "number": 1},
    ...     {"type": "opening_roll", "dice": [3, 3]}, {"type": "opening_roll", "dice": [6, 2]},
    ...     {"type": "roll", "player": 1, "dice": [5, 5]}]}})
    {1: [3, 3, 6, 2, 5, 5]}
    """
    log = table.get("log", table)
    events = log.get("events") if isinstance(log, Mapping) else None
    if not isinstance(events, list):
        raise BackgammonError("the record has no table log: expected 'log' with a list of 'events'")
    games: dict[int, list[int]] = {}
    number = 1
    for event in events:
        if not isinstance(event, Mapping):
            raise BackgammonError(f"log event {event!r} is not an object")
        kind = event.get("type")
        if kind == "game_start":
            number = event.get("number", number + 1 if games else 1)
            if not isinstance(number, int):
                raise BackgammonError(f"log event {dict(event)!r}: the game number is not a number")
            games.setdefault(number, [])
        elif kind in ("roll", "opening_roll", "roll_off"):
            dice = event.get("dice")
            if not isinstance(dice, list) or not all(isinstance(d, int) and 1 <= d <= 6 for d in dice):
                raise BackgammonError(f"log event {dict(event)!r}: its dice are not dice 1-6")
            games.setdefault(number, []).extend(dice)
    return games


@dataclass
class GameCheck:
    """The check of one game: ``revealed`` (its server seed is known), ``commitment_ok``
    (SHA-256 of the seed is the commitment), ``dice_ok`` (the seeds give the dice the server
    says it drew), ``log_ok`` (those dice are the rolls of the table's log, in order);
    ``None`` where the check could not be made. ``messages``: a sentence per failure."""

    game: int
    revealed: bool
    commitment_ok: bool | None = None
    dice_ok: bool | None = None
    log_ok: bool | None = None
    rolls: list[int] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """No failure (an unrevealed game is no failure)."""
        return not self.messages

    def summary(self) -> str:
        """One line, like ``game 1: commitment ok, 37 dice match``."""
        if self.messages:
            return f"game {self.game}: FAILED: " + " ".join(
                m.removeprefix(f"game {self.game}: ") for m in self.messages
            )
        if not self.revealed:
            return f"game {self.game}: not revealed yet (the game is not over; {len(self.rolls)} dice so far)"
        return f"game {self.game}: commitment ok, {len(self.rolls)} dice match"


@dataclass
class VerifyReport:
    """The result of :func:`verify_record`: ``ok`` when every check passed; ``games`` one
    :class:`GameCheck` a game; ``messages`` a sentence per failure (of any game, or of the
    record as a whole)."""

    ok: bool
    games: list[GameCheck] = field(default_factory=list)
    messages: list[str] = field(default_factory=list)

    def lines(self) -> list[str]:
        """The report as lines of text."""
        out = [g.summary() for g in self.games]
        out += [m for m in self.messages if not any(m in g.messages for g in self.games)]
        out.append("all dice check" if self.ok else f"{len(self.messages)} problem(s) found")
        return out


def _check_game(entry: Mapping[str, Any], revealed: bool, logged: list[int]) -> GameCheck:
    game = entry.get("game")
    check = GameCheck(game if isinstance(game, int) else 0, revealed, rolls=list(logged))
    fail = check.messages.append
    client_seeds = entry.get("client_seeds", [])
    dice = entry.get("dice")
    if not isinstance(client_seeds, list) or any(check_client_seed(s) for s in client_seeds):
        fail(f"game {check.game}: its client seeds are not a list of hex seeds.")
        return check
    if dice is not None and (not isinstance(dice, list) or not all(isinstance(d, int) for d in dice)):
        fail(f"game {check.game}: its dice are not a list of numbers.")
        return check
    if revealed:
        try:
            seed = bytes.fromhex(str(entry.get("server_seed")))
        except ValueError:
            seed = b""
        if len(seed) != _SEED_BYTES:
            fail(f"game {check.game}: the revealed server seed is not 64 hexadecimal digits.")
            return check
        check.commitment_ok = commitment_of(seed) == str(entry.get("commitment", "")).lower()
        if not check.commitment_ok:
            fail(
                f"game {check.game}: the revealed server seed does not match the commitment "
                "published before the game (its SHA-256 differs), so its dice cannot be trusted."
            )
            return check
        n = max(len(logged), len(dice or []))
        stream = dice_stream(seed, check.game, [s.lower() for s in client_seeds])
        computed = [next(stream) for _ in range(n)]
        if dice is not None:
            check.dice_ok = computed[: len(dice)] == dice
            if not check.dice_ok:
                fail(
                    f"game {check.game}: the revealed seeds do not give the dice the server drew: "
                    f"they give {_first_diff(computed[: len(dice)], dice)}."
                )
        check.log_ok = computed[: len(logged)] == logged
        if not check.log_ok:
            fail(
                f"game {check.game}: the revealed seeds do not give the log's rolls: "
                f"they give {_first_diff(computed[: len(logged)], logged, 'the log has')}."
            )
    if dice is not None and dice != logged and not check.messages:
        check.log_ok = False
        fail(f"game {check.game}: the server's dice and the log's rolls differ: {_first_diff(dice, logged, 'the log has')}.")
    return check


def _first_diff(computed: list[int], claimed: list[int], other: str = "the record says") -> str:
    for i, (a, b) in enumerate(zip(computed, claimed)):
        if a != b:
            return f"{a} as die {i + 1}, but {other} {b}"
    return f"{len(computed)} dice, but {other} {len(claimed)}"


def verify_record(record: Mapping[str, Any]) -> VerifyReport:
    """Recompute every die of a ``/api/tables/{id}/record`` download (``Table.to_dict()``
    plus ``"fair"``: :meth:`FairDice.public`) and compare it with the table's log.

    A game whose seed is not revealed yet is reported, not failed; its dice so far must still
    be the log's."""
    report = VerifyReport(ok=False)
    if not isinstance(record, Mapping):
        report.messages.append("the record is not a JSON object.")
        return report
    fair = record.get("fair")
    if not isinstance(fair, Mapping) or not isinstance(fair.get("revealed"), list):
        report.messages.append(
            "the record has no fair-dice data ('fair' with 'revealed'): download it from /api/tables/{id}/record."
        )
        return report
    try:
        logged = log_rolls(record)
    except BackgammonError as exc:
        report.messages.append(f"{exc}.")
        return report
    entries: list[tuple[Mapping[str, Any], bool]] = [(r, True) for r in fair["revealed"] if isinstance(r, Mapping)]
    if len(entries) != len(fair["revealed"]):
        report.messages.append("a revealed game in 'fair' is not an object.")
    entries.append((fair, False))
    seen: set[int] = set()
    for entry, revealed in entries:
        game = entry.get("game")
        if not isinstance(game, int) or game in seen:
            report.messages.append(f"the fair-dice record has a bad or repeated game number {game!r}.")
            continue
        seen.add(game)
        if not revealed and game not in logged and not entry.get("dice"):
            continue  # the next game, not started (a finished match)
        check = _check_game(entry, revealed, logged.get(game, []))
        report.games.append(check)
        report.messages += check.messages
    for game, dice in sorted(logged.items()):
        if game not in seen and dice:
            report.messages.append(f"game {game} has {len(dice)} dice in the log but no fair-dice record.")
    report.games.sort(key=lambda g: g.game)
    report.ok = not report.messages
    return report
