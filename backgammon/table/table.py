"""The :class:`Table`: a contest, its seats, its dice, and the flow of play, without any I/O.

A front end (the terminal, a web server) holds a table, shows :meth:`Table.snapshot` and
:meth:`Table.requests` to the people at it, turns what they type or click into
:mod:`commands <backgammon.table.commands>` and hands each to :meth:`Table.submit` with the
seat it came from. The table checks the command against the rules *and* the seat (nobody
acts out of turn or for another seat, R43), applies it, and says what happened
(:class:`Outcome`: the new log events, or a :class:`~backgammon.errors.Refusal`). A refused
command changes nothing. Bots sit at seats like people: :meth:`Table.bot_to_act` says which
bot must act and :meth:`Table.play_bot` makes it act (through
:func:`backgammon.table.decide.decide`, the one place where bots decide).

A player who runs out of time or leaves loses the match: the front end (not a seat) calls
:meth:`Table.forfeit`.

A play is tentative until confirmed (R42): ``Play(move)`` or ``Step(origin, die)`` build it,
``Undo`` takes back the last part, ``Confirm`` plays it. The tentative play is part of the
table's state (it is saved and shown in the snapshot), not of the game's log.

>>> from backgammon.dice import ScriptedDice
>>> from backgammon.table import Seat, Table, commands as cmd
>>> t = Table.match([Seat("ann"), Seat("bob")], length=3, dice=ScriptedDice([(3, 1), (6, 5)]))
>>> t.submit("ann", cmd.Roll()).accepted            # the opening roll: ann 3, bob 1
True
>>> t.submit("bob", cmd.Play("8/5 6/5")).refusal.reason
"it is ann's turn, not yours"
>>> t.submit("ann", cmd.Play("8/5 6/5")).events      # tentative: nothing logged yet
()
>>> t.submit("ann", cmd.Undo()).accepted, t.tentative
(True, None)
>>> t.submit("ann", cmd.Step(8, 3)).accepted, str(t.tentative.move)
(True, '8/5')
>>> t.submit("ann", cmd.Step(6, 1)).accepted, t.tentative.complete
(True, True)
>>> [e.type for e in t.submit("ann", cmd.Confirm()).events]
['play']
>>> Table.from_dict(t.to_dict()) == t
True
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..dice import DiceSource, SecureDice
from ..errors import BackgammonError, Refusal
from ..events import FORMAT_VERSION
from ..move import Move
from ..position import LegalMoves
from ..rules import Rules
from . import commands as cmd
from .contest import ChouetteContest, Contest, MatchContest, Offer, contest_from_dict
from .tentative import Tentative

if TYPE_CHECKING:
    from ..bots.base import Bot
    from .snapshot import Snapshot

__all__ = ["HUMAN", "Outcome", "Request", "Seat", "Table"]

#: The ``kind`` of a seat where a person sits.
HUMAN = "human"

_SIMPLE = {
    cmd.Roll: "roll",
    cmd.Double: "double",
    cmd.ProposeDouble: "propose_double",
    cmd.Consent: "consent",
    cmd.Refuse: "refuse",
    cmd.Take: "take",
    cmd.Pass: "pass",
    cmd.Beaver: "beaver",
    cmd.Accept: "accept",
    cmd.Decline: "decline",
    cmd.NextGame: "next_game",
}


@dataclass(frozen=True)
class Seat:
    """A place at the table: ``name`` (unique at the table), ``kind`` (``"human"`` or the
    name of a bot, :func:`backgammon.bots.available`) and the bot's ``seed``.

    >>> Seat("gnu", "expert", seed=3).is_bot, Seat("ann").is_bot
    (True, False)
    """

    name: str
    kind: str = HUMAN
    seed: int | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name.strip():
            raise BackgammonError(f"seat name {self.name!r}: a name is needed")
        if not isinstance(self.kind, str) or not self.kind:
            raise BackgammonError(f"seat {self.name!r}: kind {self.kind!r} must be 'human' or a bot's name")
        if self.seed is not None and (not isinstance(self.seed, int) or isinstance(self.seed, bool)):
            raise BackgammonError(f"seat {self.name!r}: seed {self.seed!r} must be a whole number")

    @property
    def is_bot(self) -> bool:
        """True when a bot sits here."""
        return self.kind != HUMAN

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"name": self.name, "kind": self.kind, "seed": self.seed}

    @classmethod
    def from_dict(cls, data: Any) -> Seat:
        """Inverse of :meth:`to_dict`."""
        if not isinstance(data, Mapping) or not isinstance(data.get("name"), str):
            raise BackgammonError(f"seat {data!r}: expected an object with a name")
        return cls(data["name"], data.get("kind", HUMAN), data.get("seed"))


@dataclass(frozen=True)
class Request:
    """What one seat may do now. ``awaited``: the game waits for this seat (otherwise the
    actions are optional, like a team member's proposal of a double, R39). ``legal``: the
    legal plays (when ``"play"`` is among the actions), ``tentative``: the play being built."""

    seat: str
    actions: frozenset[str]
    awaited: bool
    dice: tuple[int, int] | None = None
    legal: tuple[str, ...] = ()
    offer: Offer | None = None
    tentative: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "seat": self.seat,
            "actions": sorted(self.actions),
            "awaited": self.awaited,
            "dice": None if self.dice is None else list(self.dice),
            "legal": list(self.legal),
            "offer": None if self.offer is None else self.offer.to_dict(),
            "tentative": self.tentative,
        }


@dataclass(frozen=True)
class Outcome:
    """What :meth:`Table.submit` did: the log ``events`` the command added (none for a
    tentative step), or the ``refusal`` that stopped it (and then nothing changed).
    ``command`` is ``None`` for what no seat asked for (:meth:`Table.forfeit`)."""

    seat: str
    command: cmd.Command | None
    events: tuple[Any, ...] = ()
    refusal: Refusal | None = None

    @property
    def accepted(self) -> bool:
        """True unless the command was refused."""
        return self.refusal is None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "seat": self.seat,
            "command": None if self.command is None else self.command.to_dict(),
            "events": [e.to_dict() for e in self.events],
            "refusal": None if self.refusal is None else self.refusal.to_dict(),
        }


class Table:
    """A contest (:class:`~backgammon.table.contest.MatchContest` or
    :class:`~backgammon.table.contest.ChouetteContest`) with its seats and dice source.

    Make one with :meth:`match` or :meth:`chouette`; the seats are named as the contest's
    players (a match: player 0, then player 1)."""

    def __init__(self, contest: Contest, seats: Sequence[Seat], *, dice: DiceSource | None = None) -> None:
        by_name = {s.name: s for s in seats}
        if len(by_name) != len(seats) or set(by_name) != set(contest.seats):
            raise BackgammonError(
                f"seats {[s.name for s in seats]!r} are not the contest's players {list(contest.seats)!r}"
            )
        self._contest = contest
        self._seats = tuple(by_name[name] for name in contest.seats)
        self._dice: DiceSource = SecureDice() if dice is None else dice
        self._tentative: Tentative | None = None
        self._tentative_at = -1
        self._consulted: set[tuple[str, tuple[int, int]]] = set()
        self._bots: dict[str, Bot] = {}

    @classmethod
    def match(
        cls, seats: Sequence[Seat], length: int = 0, rules: Rules | None = None, *, dice: DiceSource | None = None
    ) -> Table:
        """A match to ``length`` points (0: a money session) between two seats."""
        source = SecureDice() if dice is None else dice
        return cls(MatchContest([s.name for s in seats], length, rules, dice=source), seats, dice=source)

    @classmethod
    def chouette(cls, seats: Sequence[Seat], rules: Rules | None = None, *, dice: DiceSource | None = None) -> Table:
        """A chouette of three or more seats (the roll-off is thrown at once, R35)."""
        source = SecureDice() if dice is None else dice
        return cls(ChouetteContest([s.name for s in seats], rules, dice=source), seats, dice=source)

    # -- reading ------------------------------------------------------------------------

    @property
    def contest(self) -> Contest:
        """What is played here."""
        return self._contest

    @property
    def seats(self) -> tuple[Seat, ...]:
        """The seats, in the contest's order."""
        return self._seats

    def seat(self, name: str) -> Seat:
        """The seat called ``name``."""
        for seat in self._seats:
            if seat.name == name:
                return seat
        raise BackgammonError(f"{name!r} is not a seat of this table ({', '.join(s.name for s in self._seats)})")

    @property
    def dice_source(self) -> DiceSource:
        """Where the dice come from."""
        return self._dice

    @property
    def tentative(self) -> Tentative | None:
        """The play being built for the current roll, if any part of it was entered."""
        if self._tentative is None or self._tentative_at != self._contest.log_size():
            return None
        return self._tentative if self._tentative.entries else None

    def _tentative_or_new(self) -> Tentative:
        current = self.tentative
        if current is not None:
            return current
        dice = self._contest.dice
        assert dice is not None
        return Tentative.of(self._contest.legal_moves(), dice)

    def bot(self, seat: str) -> Bot:
        """The bot at ``seat`` (loaded on first use, with the seat's seed)."""
        if seat not in self._bots:
            spec = self.seat(seat)
            if not spec.is_bot:
                raise BackgammonError(f"{seat!r} is a person's seat, not a bot's")
            from ..bots import load

            self._bots[seat] = load(spec.kind, seed=spec.seed)
        return self._bots[seat]

    def use_bot(self, seat: str, bot: Bot) -> None:
        """Seat ``bot`` (an already built :class:`~backgammon.bots.base.Bot`) at the bot seat
        ``seat`` instead of loading one by the seat's kind (benchmarks, custom bots)."""
        if not self.seat(seat).is_bot:
            raise BackgammonError(f"{seat!r} is a person's seat, not a bot's")
        self._bots[seat] = bot

    def actions(self, seat: str) -> frozenset[str]:
        """What ``seat`` may do now: the contest's actions and the table's (``step``,
        ``undo``, ``confirm`` while playing; ``ready`` to let a bot captain roll)."""
        self.seat(seat)
        actions = set(self._contest.actions(seat))
        if "play" in actions:
            actions.add("step")
            tentative = self.tentative
            if tentative is not None:
                actions.add("undo")
                if tentative.complete:
                    actions.add("confirm")
            elif len(self._contest.legal_moves()) <= 1:
                actions.add("confirm")
        if self._contest.has_options and "propose_double" in actions and seat not in self._contest.to_act():
            if (seat, self._contest.turn_key()) not in self._consulted:
                actions.add("ready")
        return frozenset(actions)

    def requests(self) -> tuple[Request, ...]:
        """Every seat that may act now, with what it may do (awaited seats first)."""
        awaited = self._contest.to_act()
        offer = self._contest.offer()
        dice = self._contest.dice
        out = []
        others = [s for s in self._contest.seats if s not in awaited]
        for seat in (*awaited, *others):
            actions = self.actions(seat)
            if not actions:
                continue
            legal: tuple[str, ...] = ()
            tentative = None
            if "play" in actions:
                legal = self._contest.legal_moves().texts()
                t = self.tentative
                tentative = None if t is None else str(t.move)
            out.append(Request(seat, actions, seat in awaited, dice, legal, offer, tentative))
        return tuple(out)

    # -- acting -------------------------------------------------------------------------

    def check(self, seat: str, command: cmd.Command) -> Refusal | None:
        """Why ``command`` from ``seat`` would be refused now, or ``None`` (nothing changes)."""
        try:
            self._run(seat, command, dry=True)
        except BackgammonError as exc:
            return _refusal_of(command, seat, exc)
        return None

    def submit(self, seat: str, command: cmd.Command) -> Outcome:
        """Apply ``command`` from ``seat``: the :class:`Outcome` has the events it added or
        the refusal (then nothing changed)."""
        contest = self._contest
        before = contest.log_size()
        try:
            self._run(seat, command, dry=False)
        except BackgammonError as exc:
            return Outcome(seat, command, (), _refusal_of(command, seat, exc))
        if contest.has_options and not isinstance(command, (cmd.Step, cmd.Undo)):
            self._consulted.add((seat, contest.turn_key()))
        after = contest.log_size()
        return Outcome(seat, command, tuple(contest.events[before:]) if after != before else ())

    def _run(self, seat: str, command: cmd.Command, *, dry: bool) -> None:
        self.seat(seat)
        contest = self._contest
        if not isinstance(command, cmd.Command):
            raise BackgammonError(f"{command!r} is not a command")
        action = _SIMPLE.get(type(command))
        if action is not None:
            refusal = contest.why_not(seat, action)
            if refusal is not None:
                raise _error(refusal)
            if not dry:
                contest.apply(seat, action)
            return
        if isinstance(command, cmd.Resign):
            refusal = contest.why_not(seat, "resign")
            if refusal is None and command.level not in (1, 2, 3):
                refusal = Refusal("resign", seat, "R31", "a resignation is of a single game, a gammon or a backgammon (1-3)")
            if refusal is not None:
                raise _error(refusal)
            if not dry:
                contest.apply(seat, "resign", command.level)
            return
        if isinstance(command, cmd.Ready):
            if "ready" not in self.actions(seat):
                raise _error(Refusal("ready", seat, None, "there is nothing to let go by now"))
            if not dry:
                self._consulted.add((seat, contest.turn_key()))
            return
        # the play: Play, Step, Undo, Confirm
        refusal = contest.why_not(seat, "play")
        if refusal is not None:
            raise _error(Refusal(command.type, refusal.player, refusal.rule, refusal.reason))
        tentative = self._tentative_or_new()
        legal = tentative.legal
        if isinstance(command, cmd.Play):
            text = command.move
            move = _legal_play(legal, tentative, text) or (
                tentative.origin.parse_move(text, tentative.dice) if text.strip() or len(legal) else Move()
            )
            if command.confirm or not len(legal):
                new = None
                if not dry:
                    contest.apply(seat, "play", move)
            else:
                index = legal.find_position(tentative.origin.play(move))
                assert index is not None
                new = tentative.whole(legal[index])
        elif isinstance(command, cmd.Step):
            new = tentative.step(command.origin, command.die)
        elif isinstance(command, cmd.Undo):
            new = tentative.undo()
        elif isinstance(command, cmd.Confirm):
            if tentative.entries:
                index = tentative.index()
                if not tentative.complete or index is None:
                    left = "-".join(map(str, tentative.remaining))
                    raise _error(Refusal("confirm", seat, "R11", f"the play {tentative.move} is not complete: play the rest of the roll ({left})"))
                move = legal[index]
            elif len(legal) == 0:
                move = Move()
            elif len(legal) == 1:
                move = legal[0]
            else:
                raise _error(Refusal("confirm", seat, "R42", "there is no tentative play to confirm: make a play first"))
            new = None
            if not dry:
                contest.apply(seat, "play", move)
        else:  # pragma: no cover - every command type is handled above
            raise BackgammonError(f"{command!r}: unknown command")
        if not dry:
            self._tentative = new
            self._tentative_at = contest.log_size()

    def forfeit(self, seat: str, reason: str) -> Outcome:
        """``seat`` loses the match: ``reason`` is ``"time"`` (its clock ran out) or
        ``"abandoned"`` (it left). The other seat wins the match, its score the match length
        (R32); a money session ends with the score as it stands. Not a command a seat sends:
        the front end calls it. Raises :class:`~backgammon.errors.BackgammonError` for a
        chouette, an unknown seat or reason, and once the match is over.

        >>> t = Table.match([Seat("ann"), Seat("bob")], length=5)
        >>> [e.to_dict() for e in t.forfeit("ann", "time").events]
        [{'type': 'forfeit', 'player': 0, 'reason': 'time'}, {'type': 'match_end', 'winner': 1, 'score': [0, 5]}]
        >>> t.contest.is_over(), t.requests(), t.bot_to_act()
        (True, (), None)
        """
        self.seat(seat)
        contest = self._contest
        if not isinstance(contest, MatchContest):
            refusal = Refusal("forfeit", seat, None, "only a match or a money session can be forfeited, not a chouette")
            raise _error(refusal)
        before = contest.log_size()
        contest.forfeit(seat, reason)
        return Outcome(seat, None, tuple(contest.events[before:]))

    # -- bots ---------------------------------------------------------------------------

    def bot_to_act(self) -> str | None:
        """The bot seat that should act now, or ``None`` (people must act, or the game is
        between games: starting the next one is the front end's call). Bots with an
        optional say (a team member's proposal, R39) are asked once a turn, before the
        captain rolls; a bot captain waits for the people of the team to let it roll."""
        contest = self._contest
        if contest.is_over() or contest.game_over():
            return None
        awaited = contest.to_act()
        people_first = False
        if contest.has_options:
            key = contest.turn_key()
            for seat in self._seats:
                if seat.is_bot and seat.name not in awaited and (seat.name, key) not in self._consulted:
                    if "propose_double" in contest.actions(seat.name):
                        return seat.name
            people_first = any(not s.is_bot and "ready" in self.actions(s.name) for s in self._seats)
        if contest.phase() == "opening":
            if all(self.seat(s).is_bot for s in awaited):
                return awaited[0] if awaited else None
            return None
        for name in awaited:
            if self.seat(name).is_bot:
                if people_first and "roll" in contest.actions(name):
                    return None
                return name
        return None

    def play_bot(self, seat: str) -> Outcome:
        """Let the bot at ``seat`` decide (:func:`~backgammon.table.decide.decide`) and act."""
        from .decide import decide

        command = decide(self.bot(seat), self, seat)
        outcome = self.submit(seat, command)
        if outcome.refusal is not None:  # pragma: no cover - decide only returns allowed commands
            raise BackgammonError(f"bot {seat!r} chose {command!r}, refused: {outcome.refusal}")
        return outcome

    # -- views --------------------------------------------------------------------------

    def snapshot(self, viewer: str | None = None) -> Snapshot:
        """A frozen, JSON-ready view of the table for ``viewer`` (a seat's name; ``None``
        for a spectator): numbered from the viewer's side."""
        from .snapshot import snapshot

        return snapshot(self, viewer)

    # -- saving -------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        """The table as JSON-ready data: the seats, the contest's log and the tentative play."""
        tentative = self.tentative
        return {
            "format": "backgammon-table",
            "version": FORMAT_VERSION,
            "seats": [s.to_dict() for s in self._seats],
            "contest": self._contest.kind,
            "log": self._contest.to_dict(),
            "tentative": None
            if tentative is None
            else [[str(m), list(d)] for m, d in tentative.entries],
            "consulted": sorted([s, list(k)] for s, k in self._consulted),
        }

    def to_json(self, indent: int | None = None) -> str:
        """:meth:`to_dict` as JSON text."""
        return json.dumps(self.to_dict(), indent=indent)

    @classmethod
    def from_dict(cls, data: Any, *, dice: DiceSource | None = None) -> Table:
        """Rebuild a table from :meth:`to_dict` (``dice``: where later rolls come from).
        A plain match or chouette log (``backgammon-match``, ``backgammon-chouette``) is
        taken too, with a person at every seat."""
        if not isinstance(data, Mapping):
            raise BackgammonError("not a saved table: expected a JSON object")
        fmt = data.get("format")
        if fmt in ("backgammon-match", "backgammon-chouette"):
            return cls._from_log(data, dice)
        if fmt != "backgammon-table":
            raise BackgammonError(
                f"format {fmt!r}: expected a saved table ('backgammon-table'), match or chouette"
            )
        version = data.get("version")
        if not isinstance(version, int) or not 1 <= version <= FORMAT_VERSION:
            raise BackgammonError(f"table format version {version!r}: this library reads 1-{FORMAT_VERSION}")
        raw_seats = data.get("seats")
        if not isinstance(raw_seats, list):
            raise BackgammonError("a saved table needs its seats (a list)")
        seats = [Seat.from_dict(s) for s in raw_seats]
        source: DiceSource = SecureDice() if dice is None else dice
        log = data.get("log")
        if not isinstance(log, Mapping):
            raise BackgammonError("a saved table needs the contest's log (an object)")
        contest = contest_from_dict(str(data.get("contest")), [s.name for s in seats], log, dice=source)
        table = cls(contest, seats, dice=source)
        try:
            for seat, key in data.get("consulted") or ():
                table._consulted.add((str(seat), (int(key[0]), int(key[1]))))
            entries = data.get("tentative") or ()
            if entries:
                tentative = table._tentative_or_new()
                for text, used in entries:
                    move = Move.parse(text)
                    if used:
                        (step,) = move.steps
                        tentative = tentative.step(step.src, int(used[0]))
                    else:
                        tentative = tentative.whole(move)
                table._tentative = tentative
                table._tentative_at = len(contest.events)
        except BackgammonError as exc:
            raise BackgammonError(f"the saved tentative play does not fit the game: {exc}") from None
        except (TypeError, ValueError, IndexError, AssertionError):
            raise BackgammonError(
                "a saved table's 'tentative' and 'consulted' entries are lists like [[\"13/8\", [5]]] "
                "and [[\"ann\", [1, 4]]]"
            ) from None
        return table

    @classmethod
    def _from_log(cls, data: Mapping[str, Any], dice: DiceSource | None) -> Table:
        source: DiceSource = SecureDice() if dice is None else dice
        if data.get("format") == "backgammon-match":
            contest: Contest = MatchContest.from_dict(("X", "O"), data, dice=source)
        else:
            from ..chouette import Chouette

            chouette = Chouette.from_dict(data, dice=source)
            contest = ChouetteContest(chouette.players, chouette=chouette)
        return cls(contest, [Seat(n) for n in contest.seats], dice=source)

    @classmethod
    def from_json(cls, text: str, *, dice: DiceSource | None = None) -> Table:
        """Rebuild a table from :meth:`to_json`'s output."""
        try:
            data = json.loads(text)
        except json.JSONDecodeError as exc:
            raise BackgammonError(f"not a saved table (not JSON: {exc})") from None
        return cls.from_dict(data, dice=dice)

    def __eq__(self, other: object) -> bool:
        """Equal seats, contest (state and log) and tentative play; dice sources and loaded
        bots are not compared."""
        if not isinstance(other, Table):
            return NotImplemented
        return (
            self._seats == other._seats
            and self._contest == other._contest
            and self.tentative == other.tentative
            and self._consulted == other._consulted
        )

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"<Table {self._contest.kind} seats={[s.name for s in self._seats]} events={len(self._contest.events)}>"


def _legal_play(legal: LegalMoves, tentative: Tentative, text: str) -> Move | None:
    """The legal play written exactly ``text`` (as a bot or a client sends it), found
    without the notation's shorthand and ambiguity checks; ``None`` otherwise."""
    try:
        index = legal.find_position(tentative.origin.play(Move.parse(text)))
    except BackgammonError:
        return None
    return None if index is None else legal[index]


def _error(refusal: Refusal) -> BackgammonError:
    from ..errors import IllegalActionError

    return IllegalActionError(f"{refusal.action}: {refusal}", refusal)


def _refusal_of(command: cmd.Command, seat: str, exc: BackgammonError) -> Refusal:
    refusal = getattr(exc, "refusal", None)
    if isinstance(refusal, Refusal):
        return refusal
    return Refusal(command.type, seat, None, str(exc))
