"""Live tables in memory: a :class:`Room` per table (its :class:`~backgammon.table.Table`,
its :class:`~backgammon.fairdice.FairDice`, the connections at it and a lock), and the
:class:`Club` that holds the rooms, opens tables (:mod:`~backgammon.server.settings` checks
the requests) and keeps the lobby's subscribers informed.

The order of things for every accepted command (a person's or a bot's): the table applies it,
the fair dice start the next game when a game ended, the store commits the whole state (one
transaction, through the server's one writer: :class:`~backgammon.server.writer.GroupCommit`
writes the commands of every table that acted meanwhile together), and only then is every connection told (``ack`` to the sender, then ``state``
to all). Bots decide in a worker thread (:func:`anyio.to_thread.run_sync`) while the room's
lock is held, so a thinking bot never blocks the server and nothing else changes the table
meanwhile.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

import anyio

from ..errors import BackgammonError
from ..fairdice import FairDice, make_record
from ..table import Narrator, Table, commands as cmd
from ..table.decide import decide
from . import protocol
from .settings import SettingsError, build_table, settings_of, table_info, unique_name
from .store import Commit, Store, TableRecord
from .writer import GroupCommit

__all__ = ["Club", "Connection", "DiceFactory", "Room", "RoomError", "hash_token", "new_token"]

log = logging.getLogger(__name__)

#: Seconds a connection may take to accept a message before the room forgets it.
SEND_TIMEOUT = 10.0

#: Builds the fair dice of a table: fresh (``None``) or from a saved ``FairDice.to_dict()``.
DiceFactory = Callable[[Mapping[str, Any] | None], FairDice]

_TENTATIVE = (cmd.Step, cmd.Undo, cmd.Play)


class RoomError(BackgammonError):
    """A request the club cannot do (the sentence says why); ``status`` is the HTTP status."""

    def __init__(self, message: str, status: int = 400) -> None:
        super().__init__(message)
        self.status = status


def new_token() -> str:
    """A fresh seat token (43 URL-safe characters)."""
    return secrets.token_urlsafe(32)


def hash_token(token: str) -> str:
    """What the store keeps of a token: its SHA-256 hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _now() -> datetime:
    return datetime.now(timezone.utc)


@dataclass(eq=False)
class Connection:
    """One WebSocket at a table (or the lobby): ``send`` delivers a server message; ``seats``
    are the seats it acts for (none: a spectator); ``name`` is what its chat lines are
    signed with."""

    send: Callable[[dict[str, Any]], Awaitable[None]]
    seats: tuple[str, ...] = ()
    name: str = "spectator"
    greeted: bool = False
    #: how many lines of the record this connection has (of the room's narration ``log_epoch``)
    log_sent: int = 0
    log_epoch: int = -1
    throttle: protocol.Throttle = field(default_factory=protocol.Throttle)

    @property
    def spectator(self) -> bool:
        """True when the connection holds no seat."""
        return not self.seats


class _Shared:
    """What one broadcast computes once for all its connections: the ``TableInfo``, the fair
    dice's public object, and each viewer's snapshot (on first use)."""

    def __init__(self, room: Room) -> None:
        self.info = room.info()
        self.fair = room.fair.public()
        self._snapshots: dict[str | None, dict[str, Any]] = {}

    def snapshot(self, table: Table, viewer: str | None) -> dict[str, Any]:
        """``viewer``'s snapshot as a dict (computed once per broadcast)."""
        if viewer not in self._snapshots:
            self._snapshots[viewer] = table.snapshot(viewer).to_dict()
        return self._snapshots[viewer]


# -- a room --------------------------------------------------------------------------------------


class Room:
    """A live table: its record (settings, token hashes, ``seq``, status), the
    :class:`Table` (``None`` while human seats are free), the fair dice, the connections and
    the lock that orders everything done to it."""

    def __init__(self, club: Club, record: TableRecord, table: Table | None, fair: FairDice) -> None:
        self.club = club
        self.record = record
        self.table = table
        self.fair = fair
        self.lock = asyncio.Lock()
        self.connections: set[Connection] = set()
        self.rematch_id: str | None = None
        self._narrators: dict[str | None, Narrator] = {}
        self._logs: dict[str | None, list[dict[str, str]]] = {}
        #: counts the times the narration was rebuilt (connections then get the whole record again)
        self._log_epoch = 0
        self._bots: asyncio.Task[None] | None = None
        if table is not None:
            self._start_narration(table)

    @property
    def id(self) -> str:
        """The table's id."""
        return self.record.id

    @classmethod
    def load(cls, club: Club, record: TableRecord) -> Room:
        """The room of a stored table: ``Table.from_dict`` over the saved fair dice."""
        fair = club.dice_factory(record.state["fair"])
        data = record.state.get("table")
        table = None if data is None else Table.from_dict(data, dice=fair)
        room = cls(club, record, table, fair)
        return room

    def _start_narration(self, table: Table) -> None:
        self._log_epoch += 1
        for viewer in (None, *(s.name for s in table.seats)):
            narrator = Narrator(table, viewer)
            self._narrators[viewer] = narrator
            self._logs[viewer] = [line.to_dict() for line in narrator.lines(table.contest.events)]

    def _narrate(self, events: tuple[Any, ...]) -> None:
        for viewer, narrator in self._narrators.items():
            self._logs[viewer].extend(line.to_dict() for line in narrator.lines(events))

    # -- views -----------------------------------------------------------------------------

    def info(self) -> dict[str, Any]:
        """The ``TableInfo`` of docs/PROTOCOL.md."""
        return table_info(self.record, sum(1 for c in self.connections if c.spectator))

    def state_dict(self) -> dict[str, Any]:
        """What the store keeps: ``{"table": Table.to_dict() or None, "fair": FairDice.to_dict()}``."""
        return {"table": None if self.table is None else self.table.to_dict(), "fair": self.fair.to_dict()}

    def download(self) -> dict[str, Any]:
        """The ``/record`` download: ``Table.to_dict()`` plus ``"fair"`` (public)."""
        if self.table is None:
            raise RoomError("the table has not started yet: every seat must be taken first", 409)
        return make_record(self.table.to_dict(), self.fair)

    def spectator_snapshot(self) -> dict[str, Any] | None:
        """The spectator's snapshot, ``None`` while the table waits for players."""
        return None if self.table is None else self.table.snapshot(None).to_dict()

    def _view(self, conn: Connection, shared: _Shared | None = None) -> dict[str, Any]:
        """The ``state`` message for ``conn``; ``shared`` holds what a broadcast computes once
        for every connection (the table's info, the fair dice, each viewer's snapshot)."""
        shared = shared or _Shared(self)
        table = self.table
        if table is None:
            return protocol.state(self.record.seq, {}, [], [], shared.fair, shared.info)
        viewers: tuple[str | None, ...] = conn.seats or (None,)
        snapshots = {viewer or "": shared.snapshot(table, viewer) for viewer in viewers}
        plays: list[dict[str, Any]] = []
        for seat in conn.seats:
            plays = protocol.plays_keys(table, seat)
            if plays:
                break
        log_lines = self._logs.get(viewers[0], [])
        start = conn.log_sent if conn.log_epoch == self._log_epoch else 0
        conn.log_sent, conn.log_epoch = len(log_lines), self._log_epoch
        return protocol.state(self.record.seq, snapshots, plays, log_lines[start:], shared.fair, shared.info, start,
                              table.contest.is_over())

    async def _send(self, conn: Connection, message: dict[str, Any]) -> None:
        """Send ``message`` to ``conn``; a closed or stalled connection (not reading for
        :data:`SEND_TIMEOUT` seconds) is forgotten, so it never holds up the table."""
        try:
            await asyncio.wait_for(conn.send(message), SEND_TIMEOUT)
        except Exception:
            self.connections.discard(conn)

    async def broadcast_state(self) -> None:
        """Send every connection its ``state``."""
        shared = _Shared(self)
        messages = [(c, self._view(c, shared)) for c in list(self.connections)]
        await asyncio.gather(*(self._send(c, m) for c, m in messages))

    async def broadcast(self, message: dict[str, Any]) -> None:
        """Send ``message`` to every connection."""
        await asyncio.gather(*(self._send(c, message) for c in list(self.connections)))

    # -- connections -----------------------------------------------------------------------

    def seats_of(self, tokens: tuple[str, ...] | list[str]) -> tuple[str, ...]:
        """The seats ``tokens`` hold, in table order; :class:`RoomError` for a token that
        holds none."""
        held: set[str] = set()
        for token in tokens:
            digest = hash_token(token)
            seat = next((s for s, h in self.record.tokens.items() if hmac.compare_digest(h, digest)), None)
            if seat is None:
                raise RoomError("a seat token you sent holds no seat at this table: it may belong to "
                                "another table; you are connected as a spectator", 403)
            held.add(seat)
        return tuple(s["name"] for s in self.record.settings["seats"] if s["name"] in held)

    async def hello(self, conn: Connection, hello: protocol.Hello) -> None:
        """Seat ``conn`` (its tokens) and send ``welcome``, ``state`` and the recent chat."""
        async with self.lock:
            problem = None
            try:
                conn.seats = self.seats_of(hello.tokens)
            except RoomError as exc:
                problem = str(exc)
                conn.seats = ()
            conn.name = conn.seats[0] if conn.seats else (hello.name or "spectator")
            conn.greeted = True
            self.connections.add(conn)
            if hello.client_seed is not None and conn.seats:
                self.fair.add_client_seed(self.fair.game, hello.client_seed)
            if problem is not None:
                await self._send(conn, protocol.error(problem))
            await self._send(conn, protocol.welcome(self.info(), conn.seats, conn.name))
            await self._send(conn, self._view(conn))
            rows = await anyio.to_thread.run_sync(self.club.store.chat, self.id)
            for row in rows:
                await self._send(conn, protocol.chat(row.name, row.text, row.at.isoformat(), row.spectator))

    def leave(self, conn: Connection) -> None:
        """``conn`` is gone."""
        self.connections.discard(conn)

    # -- commands --------------------------------------------------------------------------

    async def submit(self, conn: Connection, message: protocol.CommandMessage) -> None:
        """Act for ``message.seat`` if ``conn`` holds it: ``ack`` and ``state`` after the
        commit, ``refused`` (nothing changed) or ``error``."""
        async with self.lock:
            seat, command, id = message.seat, message.command, message.id
            if seat not in conn.seats:
                if conn.spectator:
                    text = "spectators cannot act at the table: join a free seat to play"
                else:
                    text = f"you do not hold the seat {seat!r}: you act for {', '.join(conn.seats)} only"
                await self._send(conn, protocol.error(text, id))
                return
            table = self.table
            if table is None:
                text = "the table is waiting for players: play starts when every seat is taken"
                await self._send(conn, protocol.error(text, id))
                return
            before = (table.contest.game_number, table.contest.game_over())
            outcome = table.submit(seat, command)
            if outcome.refusal is not None:
                await self._send(conn, protocol.refused(id, outcome.refusal, seat))
                return
            if await self._commit(seat, command, outcome.events, before):
                await self._send(conn, protocol.ack(id))
                await self.broadcast_state()
        self.drive_bots()

    async def _commit(self, seat: str | None, command: cmd.Command | None, events: tuple[Any, ...],
                      before: tuple[int, bool]) -> bool:
        """Store what the table just did (unless it only built a tentative play), narrate
        it; ``False`` when the store refused (the room is reloaded from the store)."""
        table = self.table
        assert table is not None
        if not events and isinstance(command, _TENTATIVE):
            return True  # a tentative play is not stored (R42): nothing to commit
        contest = table.contest
        number, was_over = before
        if not was_over and (contest.game_over() or contest.game_number != number):
            self.fair.new_game()
        status = "over" if contest.is_over() else "playing"
        changed = status != self.record.status
        state = self.state_dict()
        seq = self.record.seq + 1
        try:
            await self.club.writer.commit(Commit(
                self.id, seq, seat, None if command is None else command.to_dict(),
                [e.to_dict() for e in events], state, status,
            ))
        except Exception as exc:  # the database refused or is gone: back to what it holds
            log.error("table %s: commit %d failed: %s", self.id, seq, exc)
            await self._reload()
            await self.broadcast(protocol.error(f"the table could not be saved ({exc}); it was reloaded"))
            await self.broadcast_state()
            return False
        self.record.seq, self.record.status, self.record.state = seq, status, state
        self._narrate(events)
        if changed:
            await self.club.lobby_changed()
        return True

    async def _reload(self) -> None:
        record = await anyio.to_thread.run_sync(self.club.store.load, self.id)
        if record is None:  # pragma: no cover - tables are never deleted
            return
        fresh = Room.load(self.club, record)
        self.record, self.table, self.fair = fresh.record, fresh.table, fresh.fair
        self._narrators, self._logs = fresh._narrators, fresh._logs

    # -- bots ------------------------------------------------------------------------------

    def drive_bots(self) -> None:
        """Let the bots act (in a background task) while one is to act."""
        if self.table is None or (self._bots is not None and not self._bots.done()):
            return
        if self.table.bot_to_act() is None:
            return
        self._bots = asyncio.get_running_loop().create_task(self._run_bots())

    @property
    def idle(self) -> bool:
        """No bot is acting, and none is to act: the table waits for people."""
        busy = self._bots is not None and not self._bots.done()
        return not busy and (self.table is None or self.table.bot_to_act() is None)

    async def _run_bots(self) -> None:
        try:
            while True:
                if self.club.bot_delay > 0:
                    await asyncio.sleep(self.club.bot_delay)
                async with self.lock:
                    table = self.table
                    seat = None if table is None else table.bot_to_act()
                    if table is None or seat is None:
                        return
                    command = await anyio.to_thread.run_sync(_decide, table, seat)
                    before = (table.contest.game_number, table.contest.game_over())
                    outcome = table.submit(seat, command)
                    if outcome.refusal is not None:  # pragma: no cover - decide chooses allowed commands
                        log.error("table %s: bot %s chose %r, refused: %s",
                                  self.id, seat, command, outcome.refusal)
                        return
                    if not await self._commit(seat, command, outcome.events, before):
                        return
                    await self.broadcast_state()
        except asyncio.CancelledError:
            raise
        except Exception:  # pragma: no cover - a bug: keep the server up, say it in the log
            log.exception("table %s: the bots stopped", self.id)

    async def stop(self) -> None:
        """Cancel the bots' task (server shutdown)."""
        if self._bots is not None and not self._bots.done():
            self._bots.cancel()
            try:
                await self._bots
            except (asyncio.CancelledError, Exception):
                pass

    # -- hints, chat, seeds, mute -----------------------------------------------------------

    async def hint(self, conn: Connection, request: protocol.HintRequest) -> None:
        """The analysis of the seat's decision (:mod:`backgammon.server.hints`), computed in a
        worker thread while the table cannot change; against bots only."""
        from .hints import hint, why_no_hint

        seat, id = request.seat, request.id
        if seat not in conn.seats:
            text = f"you can ask for hints only for your own seat, not {seat!r}"
            await self._send(conn, protocol.error(text, id))
            return
        async with self.lock:
            table = self.table
            reason = "the table is waiting for players" if table is None else why_no_hint(table, seat)
            if reason is not None or table is None:
                await self._send(conn, protocol.error(f"no hint: {reason}", id))
                return
            advice = await anyio.to_thread.run_sync(lambda: hint(table, seat))
            await self._send(conn, {"type": "hint", "id": id, "seat": seat, "hint": advice})

    async def chat(self, conn: Connection, text: str) -> None:
        """Store and relay a chat line (spectators only while they are not muted)."""
        if conn.spectator and self.record.settings.get("mute_spectators"):
            await self._send(conn, protocol.error("the players have muted spectators' chat at this table"))
            return
        store = self.club.store
        row = await self.club.writer.run(store.add_chat, self.id, conn.name, text, conn.spectator)
        await self.broadcast(protocol.chat(row.name, row.text, row.at.isoformat(), row.spectator))

    async def mute(self, conn: Connection, mute: bool) -> None:
        """A player stops or restarts spectators' chat."""
        if conn.spectator:
            await self._send(conn, protocol.error("only players can mute spectators"))
            return
        async with self.lock:
            self.record.settings["mute_spectators"] = mute
            r = self.record
            await self.club.writer.run(self.club.store.update_seats, r.id, r.settings, r.tokens, r.status)
            await self.broadcast_state()

    async def seed(self, conn: Connection, message: protocol.SeedMessage) -> None:
        """Mix a player's seed into the current game's dice (see docs/PROTOCOL.md)."""
        if conn.spectator:
            await self._send(conn, protocol.error("only players send seeds for the dice"))
            return
        async with self.lock:
            fair = self.fair
            if not fair.add_client_seed(message.game, message.seed):
                if message.game != fair.game:
                    why = f"game {message.game} is not the current game ({fair.game})"
                else:
                    why = f"the dice of game {fair.game} are already being drawn (or it has all its seeds)"
                await self._send(conn, protocol.error(f"your seed was not used: {why}"))
                return
            await self.broadcast_state()

    # -- seats -----------------------------------------------------------------------------

    async def join(self, name: str) -> tuple[str, str]:
        """Seat a person called ``name`` at the first free human seat: its name and token."""
        async with self.lock:
            settings = self.record.settings
            free = [s for s in settings["seats"] if s["kind"] == "human" and s["name"] is None]
            if not free:
                raise RoomError("this table has no free seat: watch it as a spectator, or start a table", 409)
            taken = {s["name"] for s in settings["seats"] if s["name"] is not None}
            seat_name = unique_name(name, taken)
            free[0]["name"] = seat_name
            token = new_token()
            self.record.tokens[seat_name] = hash_token(token)
            await self._seats_changed()
            return seat_name, token

    async def _seats_changed(self) -> None:
        """Store the seats; start the table when every seat is taken; tell everybody."""
        r = self.record
        full = all(s["name"] is not None for s in r.settings["seats"])
        if full and self.table is None:
            r.status = "playing"
        await self.club.writer.run(self.club.store.update_seats, r.id, r.settings, r.tokens, r.status)
        if full and self.table is None:
            await self._start()
        await self.broadcast_state()
        await self.club.lobby_changed()
        self.drive_bots()

    async def _start(self) -> None:
        """Build the table (every seat is taken) and commit it (a chouette's roll-off is in
        its log already)."""
        table = build_table(self.record.kind, self.record.settings, self.fair)
        self.table = table
        self._start_narration(table)
        state = self.state_dict()
        seq = self.record.seq + 1
        events = [e.to_dict() for e in table.contest.events]
        await self.club.writer.commit(Commit(self.id, seq, None, None, events, state, self.record.status))
        self.record.seq, self.record.state = seq, state

    async def reissue(self, seats: list[int], names: list[str]) -> dict[str, str]:
        """New tokens for the seats at positions ``seats`` (a rematch asked again): a free
        one is filled with the matching name of ``names``."""
        async with self.lock:
            out: dict[str, str] = {}
            settings_seats = self.record.settings["seats"]
            taken = {s["name"] for s in settings_seats if s["name"] is not None}
            for index, name in zip(seats, names):
                seat = settings_seats[index]
                if seat["name"] is None:
                    seat["name"] = unique_name(name, taken)
                    taken.add(seat["name"])
                token = new_token()
                self.record.tokens[seat["name"]] = hash_token(token)
                out[seat["name"]] = token
            await self._seats_changed()
            return out


def _decide(table: Table, seat: str) -> cmd.Command:
    """The bot at ``seat`` chooses (run in a worker thread)."""
    return decide(table.bot(seat), table, seat)


# -- the club ------------------------------------------------------------------------------------


class Club:
    """Every live room of one server, over one :class:`Store`; the lobby's subscribers."""

    def __init__(self, store: Store, dice_factory: DiceFactory | None = None, bot_delay: float = 0.0) -> None:
        self.store = store
        #: the one writer of commands (group commit)
        self.writer = GroupCommit(store)
        self.dice_factory: DiceFactory = dice_factory or FairDice
        self.bot_delay = bot_delay
        self.rooms: dict[str, Room] = {}
        self.lobby: set[Connection] = set()
        self._lock = asyncio.Lock()

    async def room(self, table_id: str) -> Room:
        """The room of ``table_id`` (loaded from the store on first use); :class:`RoomError`
        (404) for an unknown table."""
        room = self.rooms.get(table_id)
        if room is not None:
            return room
        async with self._lock:
            room = self.rooms.get(table_id)
            if room is not None:
                return room
            record = await anyio.to_thread.run_sync(self.store.load, table_id)
            if record is None:
                raise RoomError(f"there is no table {table_id!r}: check the address, or see the lobby", 404)
            try:
                room = Room.load(self, record)
            except (BackgammonError, KeyError, TypeError, ValueError) as exc:
                text = f"table {table_id} cannot be reopened: its stored state is damaged ({exc})"
                raise RoomError(text, 500) from None
            self.rooms[table_id] = room
        room.drive_bots()
        return room

    async def start(self) -> None:
        """Reopen the live tables (a restart): their bots act where they stopped."""
        for record in await anyio.to_thread.run_sync(self.store.live):
            if record.id not in self.rooms:
                try:
                    room = Room.load(self, record)
                except (BackgammonError, KeyError, TypeError, ValueError) as exc:
                    log.error("table %s cannot be reopened (left as it is in the database): %s",
                              record.id, exc)
                    continue
                self.rooms[record.id] = room
                if room.table is None and all(s["name"] is not None for s in record.settings["seats"]):
                    async with room.lock:
                        await room._start()  # the seats were stored, the start was not
                room.drive_bots()

    async def create(self, body: Any) -> tuple[Room, str, dict[str, str]]:
        """A new table from a ``CreateTable`` request: the room, the creator's first seat and
        the tokens of the creator's seats."""
        try:
            kind, settings = settings_of(body)
        except SettingsError as exc:
            raise RoomError(str(exc)) from None
        return await self._open(kind, settings)

    async def _open(self, kind: str, settings: dict[str, Any]) -> tuple[Room, str, dict[str, str]]:
        fair = self.dice_factory(None)
        people = [s["name"] for s in settings["seats"] if s["kind"] == "human" and s["name"] is not None]
        tokens = {name: new_token() for name in people}
        full = all(s["name"] is not None for s in settings["seats"])
        table = build_table(kind, settings, fair) if full else None
        now = _now()
        record = TableRecord(
            id=secrets.token_urlsafe(8)[:10],
            kind=kind,
            settings=settings,
            tokens={name: hash_token(t) for name, t in tokens.items()},
            state={"table": None if table is None else table.to_dict(), "fair": fair.to_dict()},
            seq=0,
            status="playing" if full else "waiting",
            created=now,
            updated=now,
        )
        await self.writer.run(self.store.create, record)
        room = Room(self, record, table, fair)
        self.rooms[record.id] = room
        await self.lobby_changed()
        room.drive_bots()
        first = next(iter(tokens))
        return room, first, tokens

    async def rematch(self, table_id: str, tokens: list[str]) -> tuple[Room, dict[str, str]]:
        """A new table with the settings and people of ``table_id``; tokens for the seats the
        caller's ``tokens`` hold (the other players' connections get theirs in a ``rematch``
        message, spectators are told the new table's id)."""
        old = await self.room(table_id)
        mine = old.seats_of(tokens)
        if not mine:
            raise RoomError("send a seat token of this table to start a rematch", 403)
        seats = old.record.settings["seats"]
        indexes = [i for i, s in enumerate(seats) if s["name"] in mine]
        if old.rematch_id is not None:
            new = await self.room(old.rematch_id)
            return new, await new.reissue(indexes, list(mine))
        connected = {seat for c in old.connections for seat in c.seats}
        settings = {
            **old.record.settings,
            "mute_spectators": False,
            "seats": [
                {**s, "seed": secrets.randbelow(2**31)} if s["kind"] == "bot"
                else {"name": s["name"] if s["name"] in (*mine, *connected) else None, "kind": "human"}
                for s in seats
            ],
        }
        room, _, all_tokens = await self._open(old.record.kind, settings)
        old.rematch_id = room.id
        for conn in list(old.connections):
            theirs = {s: all_tokens[s] for s in conn.seats if s in all_tokens}
            message: dict[str, Any] = {"type": "rematch", "table": room.id}
            if theirs:
                message["tokens"] = theirs
            await old._send(conn, message)
        return room, {s: all_tokens[s] for s in mine if s in all_tokens}

    async def lobby_infos(self) -> list[dict[str, Any]]:
        """The lobby: tables that are not over, the most recently active first."""
        records = await anyio.to_thread.run_sync(self.store.lobby)
        out = []
        for record in records:
            room = self.rooms.get(record.id)
            out.append(room.info() if room is not None else table_info(record))
        return out

    async def lobby_changed(self) -> None:
        """Send the lobby to every subscriber."""
        if not self.lobby:
            return
        message = {"type": "lobby", "tables": await self.lobby_infos()}
        for conn in list(self.lobby):
            try:
                await conn.send(message)
            except Exception:
                self.lobby.discard(conn)

    async def close(self) -> None:
        """Stop every room's bots, then write what is pending."""
        for room in list(self.rooms.values()):
            await room.stop()
        await anyio.to_thread.run_sync(self.writer.close)
