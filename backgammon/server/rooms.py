"""Live tables in memory: a :class:`Room` per table (its :class:`~backgammon.table.Table`,
its :class:`~backgammon.fairdice.FairDice`, its :class:`~backgammon.clock.Clock`, the
connections at it and a lock), and the :class:`Club` that holds the rooms, opens tables
(:mod:`~backgammon.server.settings` checks the requests) and keeps the lobby's subscribers
informed.

The order of things for every accepted command (a person's, a bot's, a forfeit on time): the
table applies it, the fair dice start the next game when a game ended, the clock is charged,
the store commits the whole state (one transaction, through the server's one writer:
:class:`~backgammon.server.writer.GroupCommit`; when the match ends the result and the ratings
go in the same transaction), the other server processes are told through the
:class:`~backgammon.server.bus.Bus`, and only then is every connection told (``ack`` to the
sender, then ``state`` to all).

Several processes may hold a room for one table (its players connected to different
processes). A commit refused as stale (another process moved the table on) reloads the room
from the database and applies the command again. Bots and clocks are driven by the process
that holds the table's lease; every process claims, every :data:`TICK` seconds, the tables
that are due (``tables.due``) and whose lease is free, so the tables of a process that died
go on within seconds. Bots decide in a worker thread while the room's lock is held, so a
thinking bot never blocks the server and nothing else changes the table meanwhile.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import secrets
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Literal

import anyio
import sqlalchemy as sa

from ..clock import Clock
from ..errors import BackgammonError
from ..fairdice import FairDice, make_record
from ..table import Narrator, Table, commands as cmd
from ..table.decide import decide
from . import protocol
from .bus import Bus, LocalBus
from .settings import SettingsError, build_table, settings_of, table_info, time_control, unique_name
from .store import Commit, StaleWrite, Store, TableRecord
from .writer import GroupCommit

if TYPE_CHECKING:  # pragma: no cover
    from .accounts import Accounts, User

__all__ = ["Club", "Connection", "DiceFactory", "Room", "RoomError", "hash_token", "new_token"]

log = logging.getLogger(__name__)

#: Seconds a connection may take to accept a message before the room forgets it.
SEND_TIMEOUT = 10.0
#: Seconds a table's lease lasts (the process holding it drives the table's bots and clock).
LEASE_TTL = 10.0
#: The longest a driver waits before renewing its lease.
LEASE_RENEW = 3.0
#: Seconds between two rounds of claiming due tables.
TICK = 2.0
#: How often a command is tried again on a room reloaded after a stale commit.
RETRIES = 3

#: Builds the fair dice of a table: fresh (``None``) or from a saved ``FairDice.to_dict()``.
DiceFactory = Callable[[Mapping[str, Any] | None], FairDice]

_TENTATIVE = (cmd.Step, cmd.Undo, cmd.Play)

_Result = Literal["ok", "stale", "failed"]


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


def _at(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, timezone.utc)


@dataclass(eq=False)
class Connection:
    """One WebSocket at a table (or the lobby): ``send`` delivers a server message; ``seats``
    are the seats it acts for (none: a spectator); ``name`` is what its chat lines are
    signed with; ``user`` the account logged in on it (``None``: a guest)."""

    send: Callable[[dict[str, Any]], Awaitable[None]]
    seats: tuple[str, ...] = ()
    name: str = "spectator"
    greeted: bool = False
    #: how many lines of the record this connection has (of the room's narration ``log_epoch``)
    log_sent: int = 0
    log_epoch: int = -1
    throttle: protocol.Throttle = field(default_factory=protocol.Throttle)
    user: User | None = None
    #: closes the socket with a code and a reason (kicks, bans)
    close: Callable[[int, str], Awaitable[None]] | None = None
    #: the folded names of the accounts whose chat this connection does not see (mute, block)
    muted: frozenset[str] = frozenset()

    @property
    def spectator(self) -> bool:
        """True when the connection holds no seat."""
        return not self.seats


class _Shared:
    """What one broadcast computes once for all its connections: the ``TableInfo``, the fair
    dice's public object, the clock, and each viewer's snapshot (on first use)."""

    def __init__(self, room: Room) -> None:
        self.info = room.info()
        self.fair = room.fair.public()
        self.clock = None if room.clock is None else room.clock.view(time.time())
        self._snapshots: dict[str | None, dict[str, Any]] = {}

    def snapshot(self, table: Table, viewer: str | None) -> dict[str, Any]:
        """``viewer``'s snapshot as a dict (computed once per broadcast)."""
        if viewer not in self._snapshots:
            self._snapshots[viewer] = table.snapshot(viewer).to_dict()
        return self._snapshots[viewer]


def _clock_seats(table: Table) -> tuple[str, ...]:
    """The seats whose clock runs: those the game waits for, else (between games) every seat
    that may act, so nobody can stall a match."""
    contest = table.contest
    if contest.is_over():
        return ()
    awaited = tuple(seat for seat in contest.to_act() if table.actions(seat))
    if awaited:
        return awaited
    return tuple(r.seat for r in table.requests())


# -- a room --------------------------------------------------------------------------------------


class Room:
    """A live table: its record (settings, token hashes, ``seq``, status), the
    :class:`Table` (``None`` while human seats are free), the fair dice, the clock, the
    connections and the lock that orders everything done to it."""

    def __init__(self, club: Club, record: TableRecord, table: Table | None, fair: FairDice,
                 clock: Clock | None = None) -> None:
        self.club = club
        self.record = record
        self.table = table
        self.fair = fair
        self.clock = clock
        self.lock = asyncio.Lock()
        self.connections: set[Connection] = set()
        #: the finished match's result (``results.result_of``), ``None`` before
        self.result: dict[str, Any] | None = None
        self._narrators: dict[str | None, Narrator] = {}
        self._logs: dict[str | None, list[dict[str, str]]] = {}
        #: counts the times the narration was rebuilt (connections then get the whole record again)
        self._log_epoch = 0
        self._driver: asyncio.Task[None] | None = None
        self._changed = asyncio.Event()
        self._refresh: asyncio.Task[None] | None = None
        #: the newest command another process committed that this room has not read yet
        self._wanted: int | None = None
        self._refresh_forced = False
        if table is not None:
            self._start_narration(table)

    @property
    def id(self) -> str:
        """The table's id."""
        return self.record.id

    @property
    def rematch_id(self) -> str | None:
        """The table of this table's rematch, once one was asked for."""
        value = self.record.settings.get("rematch")
        return value if isinstance(value, str) else None

    @classmethod
    def load(cls, club: Club, record: TableRecord) -> Room:
        """The room of a stored table: ``Table.from_dict`` over the saved fair dice."""
        fair = club.dice_factory(record.state["fair"])
        data = record.state.get("table")
        table = None if data is None else Table.from_dict(data, dice=fair)
        saved = record.state.get("clock")
        clock = None if saved is None else Clock.from_dict(saved)
        return cls(club, record, table, fair, clock)

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
        return table_info(self.record, sum(1 for c in self.connections if c.spectator), self.result)

    def state_dict(self) -> dict[str, Any]:
        """What the store keeps: ``{"table": Table.to_dict() or None, "fair": FairDice.to_dict(),
        "clock": Clock.to_dict() or None}``."""
        return {
            "table": None if self.table is None else self.table.to_dict(),
            "fair": self.fair.to_dict(),
            "clock": None if self.clock is None else self.clock.to_dict(),
        }

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
        for every connection (the table's info, the fair dice, the clock, each viewer's
        snapshot)."""
        shared = shared or _Shared(self)
        table = self.table
        if table is None:
            return protocol.state(self.record.seq, {}, [], [], shared.fair, shared.info, clock=shared.clock)
        viewers: tuple[str | None, ...] = conn.seats or (None,)
        snapshots = {viewer or "": shared.snapshot(table, viewer) for viewer in viewers}
        plays: list[dict[str, Any]] = []
        for seat in conn.seats:
            plays = protocol.plays_keys(table, seat)
            if plays:
                break
        log_lines = self._logs.get(viewers[0], [])
        start = conn.log_sent if conn.log_epoch == self._log_epoch and conn.log_sent <= len(log_lines) else 0
        conn.log_sent, conn.log_epoch = len(log_lines), self._log_epoch
        return protocol.state(self.record.seq, snapshots, plays, log_lines[start:], shared.fair, shared.info, start,
                              table.contest.is_over(), shared.clock)

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
        user = conn.user
        if user is not None and user.id in await self.club.kicked_from(self.id):
            await self._kicked(conn, "a moderator removed you from this table")
            return
        if user is not None:
            conn.muted = await self.club.muted_by(user.id)
        async with self.lock:
            problem = None
            try:
                try:
                    conn.seats = self.seats_of(hello.tokens)
                except RoomError:
                    await self._reload()  # a seat taken through another process just now
                    conn.seats = self.seats_of(hello.tokens)
            except RoomError as exc:
                problem = str(exc)
                conn.seats = ()
            if conn.seats:
                conn.name = conn.seats[0]
            elif user is not None:
                conn.name = user.name
            else:
                conn.name = hello.name or "spectator"
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
                if (row.user or row.name).casefold() in conn.muted:
                    continue
                await self._send(conn, protocol.chat(row.name, row.text, row.at.isoformat(), row.spectator, row.user))

    def leave(self, conn: Connection) -> None:
        """``conn`` is gone (its seats' clocks keep running)."""
        self.connections.discard(conn)
        self.club.chat_limiter.forget(f"conn:{id(conn)}")

    # -- commands --------------------------------------------------------------------------

    async def submit(self, conn: Connection, message: protocol.CommandMessage) -> None:
        """Act for ``message.seat`` if ``conn`` holds it: ``ack`` and ``state`` after the
        commit, ``refused`` (nothing changed) or ``error``."""
        async with self.lock:
            seat, command, id = message.seat, message.command, message.id
            if not await self._may_act(conn, seat, id):
                return
            reloaded = False
            for _ in range(RETRIES):
                table = self.table
                assert table is not None
                before = (table.contest.game_number, table.contest.game_over())
                outcome = table.submit(seat, command)
                if outcome.refusal is not None:
                    await self._send(conn, protocol.refused(id, outcome.refusal, seat))
                    if reloaded:  # the table had moved on: show everybody here where it is
                        await self.broadcast_state()
                    return
                result = await self._commit(seat, command.to_dict(), outcome.events, before,
                                            tentative=isinstance(command, _TENTATIVE))
                if result == "stale":
                    reloaded = True
                    continue
                if result == "ok":
                    await self._send(conn, protocol.ack(id))
                    await self.broadcast_state()
                break
            else:
                await self._send(conn, protocol.error("the table is busy (other servers moved it on): "
                                                      "send that again", id))
        self.wake()

    async def _may_act(self, conn: Connection, seat: str, id: Any) -> bool:
        """Whether ``conn`` may act for ``seat`` now (else it was told why)."""
        if seat not in conn.seats:
            if conn.spectator:
                text = "spectators cannot act at the table: join a free seat to play"
            else:
                text = f"you do not hold the seat {seat!r}: you act for {', '.join(conn.seats)} only"
            await self._send(conn, protocol.error(text, id))
            return False
        if self.table is None:
            await self._reload()  # another process may have started it just now
        if self.table is None:
            text = "the table is waiting for players: play starts when every seat is taken"
            await self._send(conn, protocol.error(text, id))
            return False
        return True

    async def leave_match(self, conn: Connection, message: protocol.Leave) -> None:
        """The player at ``message.seat`` leaves: they lose the match (``abandoned``)."""
        async with self.lock:
            if not await self._may_act(conn, message.seat, message.id):
                return
            text = await self._forfeit(message.seat, "abandoned", message.seat)
            if text is not None:
                await self._send(conn, protocol.error(text, message.id))
                return
            await self._send(conn, protocol.ack(message.id))
            await self.broadcast_state()
        self.wake()

    async def _forfeit(self, seat: str, reason: str, by: str | None) -> str | None:
        """``seat`` loses the match (``reason``: ``"time"`` or ``"abandoned"``), committed
        (the lock held); ``None`` when done, else why not."""
        for _ in range(RETRIES):
            table = self.table
            if table is None:
                return "the match has not started"
            if table.contest.is_over():
                return "the match is over already"
            before = (table.contest.game_number, table.contest.game_over())
            try:
                outcome = table.forfeit(seat, reason)
            except BackgammonError as exc:
                return str(exc)
            if outcome.refusal is not None:
                return outcome.refusal.reason
            result = await self._commit(by, {"type": "forfeit", "seat": seat, "reason": reason},
                                        outcome.events, before)
            if result != "stale":
                return None if result == "ok" else "the table could not be saved"
        return "the table is busy (other servers moved it on): try again"

    async def _commit(self, seat: str | None, command: dict[str, Any] | None, events: tuple[Any, ...],
                      before: tuple[int, bool], tentative: bool = False) -> _Result:
        """Store what the table just did (unless it only built a tentative play), narrate
        it, tell the other processes: ``"ok"``; ``"stale"`` when another process had moved
        the table on (the room is reloaded: try again); ``"failed"`` when the store refused
        (the room is reloaded, everybody is told)."""
        table = self.table
        assert table is not None
        if not events and tentative:
            # a tentative play is not stored (R42); other processes show it to their people
            await self.club.publish({"type": "tentative", "table": self.id, "seq": self.record.seq,
                                     "seat": seat, "command": command})
            return "ok"
        contest = table.contest
        number, was_over = before
        if not was_over and (contest.game_over() or contest.game_number != number):
            self.fair.new_game()
        now = time.time()
        over = contest.is_over()
        if self.clock is not None:
            if over:
                self.clock.stop(now)
            else:
                self.clock.update(_clock_seats(table), now)
        status = "over" if over else "playing"
        changed = status != self.record.status
        state = self.state_dict()
        seq = self.record.seq + 1
        after: tuple[Callable[[sa.Connection], None], ...] = ()
        if over and changed and self.record.kind == "match":
            from .results import finish

            kind, settings, table_id, at = self.record.kind, self.record.settings, self.id, _now()
            after = (lambda c: finish(c, table_id, kind, settings, table, at),)
        try:
            await self.club.writer.commit(Commit(
                self.id, seq, seat, command, [e.to_dict() for e in events], state, status,
                due=None if over else self._due(now), after=after,
            ))
        except StaleWrite as exc:
            log.info("table %s: %s; reloading", self.id, exc)
            await self._reload()
            return "stale"
        except Exception as exc:  # the database refused or is gone: back to what it holds
            log.error("table %s: commit %d failed: %s", self.id, seq, exc)
            try:
                await self._reload()
            except Exception as again:  # noqa: BLE001 - the database is gone: forget the room
                log.error("table %s: cannot reload either (%s); it reopens from the database later",
                          self.id, again)
                self.club.rooms.pop(self.id, None)
                await self.broadcast(protocol.error(f"the table could not be saved ({exc}); reconnect in a moment"))
                for conn in list(self.connections):
                    if conn.close is not None:
                        try:
                            await conn.close(1011, "the database is unavailable")
                        except Exception:  # noqa: BLE001 - already closed
                            pass
                return "failed"
            await self.broadcast(protocol.error(f"the table could not be saved ({exc}); it was reloaded"))
            await self.broadcast_state()
            return "failed"
        self.record.seq, self.record.status, self.record.state = seq, status, state
        self._narrate(events)
        await self.club.publish({"type": "table", "table": self.id, "seq": seq})
        if over and changed:
            await self._load_result()
        if changed:
            await self.club.lobby_changed()
        return "ok"

    def _due(self, now: float) -> datetime | None:
        """When the server must next act on the table by itself: now when a bot is to act,
        the clock's deadline when one runs, else never."""
        table = self.table
        if table is None or table.contest.is_over():
            return None
        if table.bot_to_act() is not None:
            return _at(now)
        deadline = None if self.clock is None else self.clock.deadline()
        return None if deadline is None else _at(deadline)

    async def _load_result(self) -> None:
        """Read the finished match's result (written with the final commit)."""
        if self.record.kind != "match" or self.record.status != "over":
            return
        from .results import result_of

        self.result = await anyio.to_thread.run_sync(result_of, self.club.store, self.id)

    async def _reload(self) -> None:
        """Back to what the database holds (another process moved the table on, or a commit
        failed). The narration is rebuilt from the same events, so connections keep theirs."""
        record = await anyio.to_thread.run_sync(self.club.store.load, self.id)
        if record is None:  # pragma: no cover - tables are never deleted
            return
        fresh = Room.load(self.club, record)
        self.record, self.table, self.fair, self.clock = fresh.record, fresh.table, fresh.fair, fresh.clock
        if self._narrators and fresh.table is not None:
            self._narrators, self._logs = fresh._narrators, fresh._logs
        elif fresh.table is not None:
            self._start_narration(fresh.table)
        if record.status == "over" and self.result is None:
            await self._load_result()

    # -- what other processes did ----------------------------------------------------------

    def refresh(self, seq: int | None) -> None:
        """Another process committed command ``seq`` (``None``: changed the seats): reload
        and tell this process's connections (in the background, coalesced)."""
        if seq is not None and seq <= self.record.seq:
            return
        if seq is None:
            self._refresh_forced = True
        else:
            self._wanted = max(seq, self._wanted or 0)
        if self._refresh is not None and not self._refresh.done():
            return  # the running reload reads again if a newer command arrived meanwhile
        self._refresh = asyncio.get_running_loop().create_task(self._refreshed())

    async def _refreshed(self) -> None:
        try:
            while self._refresh_forced or (self._wanted is not None and self.record.seq < self._wanted):
                self._refresh_forced, self._wanted = False, None
                async with self.lock:
                    started = self.table is not None
                    await self._reload()
                    if not started and self.table is not None:
                        await self.club.lobby_changed(local=True)
                    await self.broadcast_state()
            self.wake()
        except Exception:  # pragma: no cover - a bug: keep the server up, say it in the log
            log.exception("table %s: reloading after another process's commit failed", self.id)

    async def remote_tentative(self, message: Mapping[str, Any]) -> None:
        """Another process's player built a tentative play: show it here too."""
        async with self.lock:
            table = self.table
            if table is None or message.get("seq") != self.record.seq or not message.get("seat"):
                return
            try:
                command = cmd.command_from_dict(message["command"])
            except (BackgammonError, KeyError, TypeError):
                return
            if table.submit(str(message["seat"]), command).refusal is None:
                await self.broadcast_state()

    # -- bots and clocks -------------------------------------------------------------------

    def _pending(self) -> tuple[str, float] | None:
        """What the server must do by itself here: ``("bot", 0)`` or ``("clock", deadline)``."""
        table = self.table
        if table is None or self.record.status == "over" or table.contest.is_over():
            return None
        if table.bot_to_act() is not None:
            return ("bot", 0.0)
        deadline = None if self.clock is None else self.clock.deadline()
        return None if deadline is None else ("clock", deadline)

    def wake(self) -> None:
        """Let the bots act and watch the clock (in a background task) while there is
        something to do and this process holds the table's lease."""
        self._changed.set()
        if self._driver is not None and not self._driver.done():
            return
        if self._pending() is None:
            return
        self._driver = asyncio.get_running_loop().create_task(self._drive())

    @property
    def idle(self) -> bool:
        """Nothing is being done by the server here, and no bot is to act: the table waits
        for people (or a clock)."""
        busy = self._driver is not None and not self._driver.done()
        return not busy and (self.table is None or self.table.bot_to_act() is None)

    async def _drive(self) -> None:
        try:
            while True:
                self._changed.clear()
                pending = self._pending()
                if pending is None:
                    return
                if not await self.club.lease(self.id):
                    return
                kind, when = pending
                if kind == "bot":
                    if self.club.bot_delay > 0:
                        await asyncio.sleep(self.club.bot_delay)
                    await self._bot_acts()
                    continue
                wait = when - time.time()
                if wait > 0:
                    try:
                        await asyncio.wait_for(self._changed.wait(), min(wait + 0.01, LEASE_RENEW))
                    except TimeoutError:
                        pass
                    continue
                async with self.lock:
                    flagged = None if self.clock is None else self.clock.flagged(time.time())
                    if flagged is not None and self.table is not None and not self.table.contest.is_over():
                        if await self._forfeit(flagged, "time", None) is None:
                            await self.broadcast_state()
        except asyncio.CancelledError:
            raise
        except Exception:  # pragma: no cover - a bug: keep the server up, say it in the log
            log.exception("table %s: the bots and the clock stopped", self.id)

    async def _bot_acts(self) -> None:
        """The bot to act decides and acts (one command)."""
        async with self.lock:
            table = self.table
            seat = None if table is None else table.bot_to_act()
            if table is None or seat is None:
                return
            command = await anyio.to_thread.run_sync(_decide, table, seat)
            before = (table.contest.game_number, table.contest.game_over())
            outcome = table.submit(seat, command)
            if outcome.refusal is not None:  # pragma: no cover - decide chooses allowed commands
                log.error("table %s: bot %s chose %r, refused: %s", self.id, seat, command, outcome.refusal)
                return
            if await self._commit(seat, command.to_dict(), outcome.events, before) == "ok":
                await self.broadcast_state()

    async def stop(self) -> None:
        """Cancel the driver (server shutdown)."""
        for task in (self._driver, self._refresh):
            if task is not None and not task.done():
                task.cancel()
                try:
                    await task
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
        """Store and relay a chat line (spectators only while they are not muted; at most
        five lines in ten seconds)."""
        if conn.spectator and self.record.settings.get("mute_spectators"):
            await self._send(conn, protocol.error("the players have muted spectators' chat at this table"))
            return
        key = f"user:{conn.user.id}" if conn.user is not None else f"conn:{id(conn)}"
        if not self.club.chat_limiter.allow(key):
            await self._send(conn, protocol.error(self.club.chat_limiter.refusal()))
            return
        store = self.club.store
        user = None if conn.user is None else conn.user.name
        row = await self.club.writer.run(store.add_chat, self.id, conn.name, text, conn.spectator, user)
        line = protocol.chat(row.name, row.text, row.at.isoformat(), row.spectator, row.user)
        await self.relay_chat(line)
        await self.club.publish({"type": "chat", "table": self.id, "line": line})

    async def relay_chat(self, line: dict[str, Any]) -> None:
        """Send a chat line to this process's connections, except those that mute its author."""
        author = str(line.get("user") or line.get("from") or "").casefold()
        await asyncio.gather(*(self._send(c, line) for c in list(self.connections) if author not in c.muted))

    async def mute(self, conn: Connection, mute: bool) -> None:
        """A player stops or restarts spectators' chat."""
        if conn.spectator:
            await self._send(conn, protocol.error("only players can mute spectators"))
            return
        async with self.lock:
            self.record.settings["mute_spectators"] = mute
            r = self.record
            await self.club.writer.run(self.club.store.update_seats, r.id, r.settings, r.tokens, r.status)
            await self.club.publish({"type": "seats", "table": self.id})
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

    # -- kicks and bans ----------------------------------------------------------------------

    async def _kicked(self, conn: Connection, reason: str) -> None:
        """Tell ``conn`` it was removed, and close it."""
        self.connections.discard(conn)
        await self._send(conn, {"type": "kicked", "reason": reason})
        if conn.close is not None:
            try:
                await conn.close(4403, reason[:120])
            except Exception:  # noqa: BLE001 - already closed
                pass

    async def remove_user(self, user_id: int, reason: str) -> None:
        """Close every connection of account ``user_id`` here (a kick or a ban)."""
        for conn in [c for c in self.connections if c.user is not None and c.user.id == user_id]:
            await self._kicked(conn, reason)

    async def kick(self, user_id: int, reason: str) -> None:
        """A moderator removed ``user_id`` from this table: a seat they hold in a live match
        is lost (``abandoned``); their connections everywhere are closed."""
        seats = await anyio.to_thread.run_sync(self.club.store.seats_of_user, self.id, user_id)
        async with self.lock:
            for seat in seats:
                table = self.table
                if table is not None and not table.contest.is_over() and self.record.kind != "chouette":
                    if await self._forfeit(seat, "abandoned", None) is None:
                        await self.broadcast_state()
                    break
        await self.remove_user(user_id, f"a moderator removed you from this table: {reason}")

    # -- seats -----------------------------------------------------------------------------

    async def join(self, name: str, user: User | None = None) -> tuple[str, str]:
        """Seat a person called ``name`` (the account ``user`` when logged in) at the first
        free human seat: its name and token."""
        await self.club.check_person(name, user)
        settings = self.record.settings
        if settings.get("rated") and user is None:
            raise RoomError("this match is rated: log in (or register) to play it", 401)
        if user is not None:
            if user.id in await self.club.kicked_from(self.id):
                raise RoomError("a moderator removed you from this table", 403)
            held = await anyio.to_thread.run_sync(self.club.store.users_of_table, self.id)
            if user.id in held.values():
                raise RoomError("you already hold a seat at this table: open it from the lobby", 409)
            from .moderation import blocked_between

            for other in set(held.values()):
                if await blocked_between(self.club.store, user.id, other):
                    raise RoomError("you cannot sit at this table: you and a player there have blocked "
                                    "each other (or one of you the other)", 403)
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
            if user is not None:
                settings.setdefault("players", {})[seat_name] = _player(user)
                await self.club.writer.run(self.club.store.seat_user, self.id, seat_name, user.id)
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
        await self.club.publish({"type": "seats", "table": self.id})
        await self.broadcast_state()
        await self.club.lobby_changed()
        self.wake()

    async def _start(self) -> None:
        """Build the table (every seat is taken) and commit it (a chouette's roll-off is in
        its log already); the clock starts."""
        table = build_table(self.record.kind, self.record.settings, self.fair)
        self.table = table
        control = time_control(self.record.settings)
        now = time.time()
        if control is not None and self.clock is None:
            self.clock = Clock(control, [s.name for s in table.seats], self.record.settings["length"])
            self.clock.update(_clock_seats(table), now)
        self._start_narration(table)
        state = self.state_dict()
        seq = self.record.seq + 1
        events = [e.to_dict() for e in table.contest.events]
        await self.club.writer.commit(Commit(self.id, seq, None, None, events, state, self.record.status,
                                             due=self._due(now)))
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


def _player(user: User) -> dict[str, Any]:
    """What a table's settings keep of the account at a seat."""
    return {"id": user.id, "name": user.name, "rating": user.rating, "experience": user.experience}


def _decide(table: Table, seat: str) -> cmd.Command:
    """The bot at ``seat`` chooses (run in a worker thread)."""
    return decide(table.bot(seat), table, seat)


# -- the club ------------------------------------------------------------------------------------


class Club:
    """Every live room of one server process, over one :class:`Store` and one
    :class:`~backgammon.server.bus.Bus` to the other processes; the lobby's subscribers."""

    def __init__(self, store: Store, dice_factory: DiceFactory | None = None, bot_delay: float = 0.0,
                 bus: Bus | None = None) -> None:
        from .moderation import ChatLimiter

        self.store = store
        #: the one writer of commands (group commit)
        self.writer = GroupCommit(store)
        self.dice_factory: DiceFactory = dice_factory or FairDice
        self.bot_delay = bot_delay
        self.bus: Bus = bus or LocalBus()
        #: the accounts (set by the application; ``None``: guests only)
        self.accounts: Accounts | None = None
        self.chat_limiter = ChatLimiter()
        self.rooms: dict[str, Room] = {}
        self.lobby: set[Connection] = set()
        self._lock = asyncio.Lock()
        self._ticker: asyncio.Task[None] | None = None
        self._tasks: set[asyncio.Task[None]] = set()

    # -- the other processes ---------------------------------------------------------------

    async def publish(self, message: dict[str, Any]) -> None:
        """Tell the other server processes (never fails: a lost message only delays them)."""
        try:
            await self.bus.publish(message)
        except Exception as exc:  # noqa: BLE001 - the bus logs and reconnects by itself
            log.warning("the bus did not take a %s message: %s", message.get("type"), exc)

    async def lease(self, table_id: str) -> bool:
        """Take or renew the lease of ``table_id``: whether this process drives it."""
        try:
            return await self.bus.lease(f"table:{table_id}", LEASE_TTL)
        except Exception as exc:  # noqa: BLE001 - without the bus, nobody may drive the table
            log.warning("no lease for table %s: %s", table_id, exc)
            return False

    async def _on_bus(self, message: dict[str, Any]) -> None:
        """A message of another process (see docs/CLUB-DESIGN.md), handled in the background
        so one busy room never holds up the others' messages."""
        task = asyncio.get_running_loop().create_task(self._handle(message))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _handle(self, message: dict[str, Any]) -> None:
        try:
            await self._handle_message(message)
        except Exception:  # pragma: no cover - a bug: keep the server up, say it in the log
            log.exception("a message of another process failed: %r", message.get("type"))

    async def _handle_message(self, message: dict[str, Any]) -> None:
        kind = message.get("type")
        table_id = message.get("table")
        room = self.rooms.get(table_id) if isinstance(table_id, str) else None
        if kind == "table" and room is not None:
            seq = message.get("seq")
            room.refresh(seq if isinstance(seq, int) else None)
        elif kind == "seats" and room is not None:
            room.refresh(None)
        elif kind == "tentative" and room is not None:
            await room.remote_tentative(message)
        elif kind == "chat" and room is not None and isinstance(message.get("line"), dict):
            await room.relay_chat(message["line"])
        elif kind == "lobby":
            await self.lobby_changed(local=True)
        elif kind == "kick" and room is not None and isinstance(message.get("user"), int):
            await room.remove_user(message["user"], str(message.get("reason") or "removed by a moderator"))
        elif kind == "ban" and isinstance(message.get("user"), int):
            for each in list(self.rooms.values()):
                await each.remove_user(message["user"], str(message.get("reason") or "banned"))
        elif kind == "relations" and isinstance(message.get("user"), int):
            await self._relations_local(message["user"])
        elif kind == "reconnected":  # messages were lost while Redis was away: catch up
            for each in list(self.rooms.values()):
                each.refresh(None)
        elif kind == "rematch" and room is not None:
            await self._tell_rematch(room, str(message.get("new")), message.get("tokens") or {})

    async def _tick(self) -> None:
        """Every :data:`TICK` seconds: wake the rooms here, and claim the due tables nobody
        drives (a process that died leaves its leases to expire)."""
        while True:
            await asyncio.sleep(TICK)
            try:
                for room in list(self.rooms.values()):
                    room.wake()
                for table_id in await anyio.to_thread.run_sync(self.store.due, _now()):
                    if table_id in self.rooms:
                        continue
                    if await self.lease(table_id):
                        try:
                            await self.room(table_id)
                        except RoomError as exc:
                            log.error("table %s is due but cannot be opened: %s", table_id, exc)
            except asyncio.CancelledError:
                raise
            except Exception:  # pragma: no cover - keep ticking; say it in the log
                log.exception("claiming due tables failed")

    # -- accounts, moderation ----------------------------------------------------------------

    async def check_person(self, name: str, user: User | None) -> None:
        """A guest may not sit under an account's name or a bot's."""
        if user is not None or self.accounts is None:
            return
        if await self.accounts.by_name(name) is not None:
            raise RoomError(f"{name!r} is the name of an account: log in as {name}, or choose another name", 409)

    async def muted_by(self, user_id: int) -> frozenset[str]:
        """The folded names of the accounts ``user_id`` mutes or blocks (their chat is not
        sent to ``user_id``)."""
        from .moderation import relation_names

        names = await relation_names(self.store, user_id)
        return frozenset(name.casefold() for kind in ("mute", "block") for name in names.get(kind, []))

    async def relations_changed(self, user_id: int) -> None:
        """``user_id`` muted, blocked or forgave someone: their open connections (on every
        process) filter chat by the new lists at once."""
        await self.publish({"type": "relations", "user": user_id})
        await self._relations_local(user_id)

    async def _relations_local(self, user_id: int) -> None:
        conns = [c for room in self.rooms.values() for c in room.connections
                 if c.user is not None and c.user.id == user_id]
        if conns:
            muted = await self.muted_by(user_id)
            for conn in conns:
                conn.muted = muted

    async def kicked_from(self, table_id: str) -> set[int]:
        """The accounts a moderator removed from ``table_id``."""
        from .moderation import kicked_from

        return await kicked_from(self.store, table_id)

    async def kick(self, table_id: str, user_id: int, reason: str) -> None:
        """A moderator removed ``user_id`` from ``table_id`` (logged by the moderation module):
        a seat they hold in a live match is lost, their connections are closed everywhere."""
        await self.publish({"type": "kick", "table": table_id, "user": user_id, "reason": reason})
        try:
            room = await self.room(table_id)
        except RoomError:
            return
        await room.kick(user_id, reason)

    async def ban(self, user_id: int, reason: str) -> None:
        """``user_id`` was banned: close their connections on every process."""
        await self.publish({"type": "ban", "user": user_id, "reason": reason})
        for room in list(self.rooms.values()):
            await room.remove_user(user_id, f"your account is banned: {reason}")

    # -- rooms -----------------------------------------------------------------------------

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
            await room._load_result()
            self.rooms[table_id] = room
        room.wake()
        return room

    async def start(self) -> None:
        """Listen to the other processes, reopen the live tables (a restart: their bots act
        where they stopped), then claim due tables every :data:`TICK` seconds."""
        await self.bus.start(self._on_bus)
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
                room.wake()
        self._ticker = asyncio.get_running_loop().create_task(self._tick())

    async def create(self, body: Any, user: User | None = None) -> tuple[Room, str, dict[str, str]]:
        """A new table from a ``CreateTable`` request (``user``: the account creating it):
        the room, the creator's first seat and the tokens of the creator's seats."""
        if user is not None and isinstance(body, dict):
            body = {**body, "name": user.name}
        try:
            kind, settings = settings_of(body)
        except SettingsError as exc:
            raise RoomError(str(exc)) from None
        if settings.get("rated") and user is None:
            raise RoomError("log in (or register) to play a rated match", 401)
        if user is None:
            first = next(s["name"] for s in settings["seats"] if s["kind"] == "human" and s["name"] is not None)
            await self.check_person(first, None)
        return await self._open(kind, settings, user)

    async def _open(self, kind: str, settings: dict[str, Any], user: User | None = None,
                    seat_users: Mapping[str, int] | None = None) -> tuple[Room, str, dict[str, str]]:
        fair = self.dice_factory(None)
        people = [s["name"] for s in settings["seats"] if s["kind"] == "human" and s["name"] is not None]
        tokens = {name: new_token() for name in people}
        accounts: dict[str, int] = dict(seat_users or {})
        players: dict[str, Any] = {}
        if user is not None and people:
            accounts[people[0]] = user.id
        if self.accounts is not None:
            for seat in settings["seats"]:
                if seat["kind"] == "bot":
                    bot = await self.accounts.by_name(seat["bot"])
                    if bot is not None:
                        accounts[seat["name"]] = bot.id
                        players[seat["name"]] = _player(bot)
            for seat_name, uid in accounts.items():
                if seat_name not in players:
                    found = await anyio.to_thread.run_sync(self.store.user_by_id, uid)
                    if found is not None:
                        players[seat_name] = found
        settings["players"] = players
        full = all(s["name"] is not None for s in settings["seats"])
        table = build_table(kind, settings, fair) if full else None
        clock = None
        control = time_control(settings)
        now = _now()
        if table is not None and control is not None:
            clock = Clock(control, [s.name for s in table.seats], settings["length"])
            clock.update(_clock_seats(table), now.timestamp())
        record = TableRecord(
            id=secrets.token_urlsafe(8)[:10],
            kind=kind,
            settings=settings,
            tokens={name: hash_token(t) for name, t in tokens.items()},
            state={"table": None if table is None else table.to_dict(), "fair": fair.to_dict(),
                   "clock": None if clock is None else clock.to_dict()},
            seq=0,
            status="playing" if full else "waiting",
            created=now,
            updated=now,
        )
        room = Room(self, record, table, fair, clock)
        record.due = room._due(now.timestamp())
        await self.writer.run(self.store.create, record, accounts)
        self.rooms[record.id] = room
        await self.lobby_changed()
        room.wake()
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
        settings.pop("rematch", None)
        held = await anyio.to_thread.run_sync(self.store.users_of_table, table_id)
        kept = {s["name"] for s in settings["seats"] if s["kind"] == "human" and s["name"] is not None}
        room, _, all_tokens = await self._open(old.record.kind, settings, None,
                                               {seat: uid for seat, uid in held.items() if seat in kept})
        async with old.lock:
            old.record.settings["rematch"] = room.id
            r = old.record
            await self.writer.run(self.store.update_seats, r.id, r.settings, r.tokens, r.status)
        others = {s: t for s, t in all_tokens.items() if s not in mine}
        await self.publish({"type": "rematch", "table": old.id, "new": room.id, "tokens": others})
        await self._tell_rematch(old, room.id, others)
        return room, {s: all_tokens[s] for s in mine if s in all_tokens}

    async def _tell_rematch(self, old: Room, new_id: str, tokens: Mapping[str, str]) -> None:
        """Tell ``old``'s connections here about the rematch (players get their tokens)."""
        for conn in list(old.connections):
            theirs = {s: tokens[s] for s in conn.seats if s in tokens}
            message: dict[str, Any] = {"type": "rematch", "table": new_id}
            if theirs:
                message["tokens"] = theirs
            await old._send(conn, message)

    async def lobby_infos(self) -> list[dict[str, Any]]:
        """The lobby: tables that are not over, the most recently active first."""
        records = await anyio.to_thread.run_sync(self.store.lobby)
        out = []
        for record in records:
            room = self.rooms.get(record.id)
            out.append(room.info() if room is not None else table_info(record))
        return out

    async def lobby_changed(self, local: bool = False) -> None:
        """Send the lobby to every subscriber (``local``: of this process only; else the
        other processes are told too)."""
        if not local:
            await self.publish({"type": "lobby"})
        if not self.lobby:
            return
        message = {"type": "lobby", "tables": await self.lobby_infos()}
        for conn in list(self.lobby):
            try:
                await conn.send(message)
            except Exception:
                self.lobby.discard(conn)

    async def close(self) -> None:
        """Stop ticking and every room's driver, write what is pending, leave the bus."""
        if self._ticker is not None:
            self._ticker.cancel()
            try:
                await self._ticker
            except (asyncio.CancelledError, Exception):
                pass
        for room in list(self.rooms.values()):
            await room.stop()
        await anyio.to_thread.run_sync(self.writer.close)
        try:
            await self.bus.close()
        except Exception:  # noqa: BLE001 - shutting down anyway
            log.warning("the bus did not close cleanly", exc_info=True)
