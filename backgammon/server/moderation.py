"""Etiquette and moderation: chat limits, mute and block, reports, kicks and bans.

Players mute (their lines are not shown to me) or block (not shown to me, and
:func:`blocked_between` says the two should not be seated or chat together) other accounts.
A logged-in player reports someone at a table: the report keeps the table's last
:data:`REPORT_CHAT` chat lines and its ``seq`` at that moment, so a moderator sees what was
said and can replay the match up to that point (``/r/{table}``). Moderators (role
``"moderator"``, granted by ``backgammon moderator NAME``) kick an account from a table, ban it
for some hours or for ever, lift a ban and close reports; every one of these actions is a row
of ``moderation_log``.

The writes are plain synchronous functions over a :class:`~backgammon.server.store.Store`,
each one transaction, run by the server through its one writer
(``await club.writer.run(fn, *args)``); the reads are async and run in a worker thread.

>>> limiter = ChatLimiter(clock=lambda: 0.0)
>>> [limiter.allow("ann") for _ in range(6)]
[True, True, True, True, True, False]
"""

from __future__ import annotations

import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import anyio
import sqlalchemy as sa
from sqlalchemy.engine import Connection
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route

from .accounts import User, current_user, json_object, name_key, require_csrf
from .protocol import CHAT_LIMIT
from .rooms import RoomError
from .store import (
    Store,
    chat_t,
    moderation_log_t,
    relations_t,
    reports_t,
    sessions_t,
    tables_t,
    users_t,
)

__all__ = [
    "CHAT_MAX",
    "CHAT_LINES",
    "CHAT_WINDOW",
    "REPORT_CHAT",
    "SWEEP_EVERY",
    "REASON_MAX",
    "BAN_HOURS_MAX",
    "FOREVER",
    "KINDS",
    "OPENAPI_PATHS",
    "ChatLimiter",
    "ModerationError",
    "Report",
    "relations_of",
    "blocked_between",
    "kicked_from",
    "relation_names",
    "reports",
    "set_relation",
    "add_report",
    "close_report",
    "ban",
    "unban",
    "kick",
    "grant_moderator",
    "routes",
]

#: The longest chat line, in characters (the protocol's limit: one number for both).
CHAT_MAX = CHAT_LIMIT
#: At most this many chat lines ...
CHAT_LINES = 5
#: ... within this many seconds, per connection or account.
CHAT_WINDOW = 10.0
#: The chat lines a report keeps (the table's last ones).
REPORT_CHAT = 100
#: The longest reason (of a report, a kick, a ban) or resolution, in characters.
REASON_MAX = 500
#: The longest ban in hours (ten years); a longer one is a ban for ever (``"hours": null``).
BAN_HOURS_MAX = 87_600
#: ``banned_until`` of a ban for ever.
FOREVER = datetime(9999, 1, 1, tzinfo=timezone.utc)
#: The kinds of relation: "mute" hides their chat from me; "block" hides it too and keeps us
#: apart (:func:`blocked_between`).
KINDS = ("mute", "block")
#: The chat limiter forgets idle keys every this many lines.
SWEEP_EVERY = 1024
#: How many reports one listing returns at most.
REPORTS_LIMIT = 200


class ModerationError(RoomError):
    """A moderation request that cannot be done (the sentence says why); ``status`` is the
    HTTP status (400, 401, 403, 404, 409)."""


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _utc(value: datetime) -> datetime:
    """``value`` as an aware UTC datetime (SQLite hands naive ones back)."""
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value.astimezone(timezone.utc)


# -- chat limits -----------------------------------------------------------------------------


class ChatLimiter:
    """At most ``lines`` chat lines within any ``window`` seconds per key (a connection or an
    account); ``clock`` gives the time in seconds (tests pass their own)."""

    def __init__(self, lines: int = CHAT_LINES, window: float = CHAT_WINDOW,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.lines = lines
        self.window = window
        self.clock = clock
        self._said: dict[str, deque[float]] = {}
        self._calls = 0

    def allow(self, key: str) -> bool:
        """True (and the line counts) when ``key`` may say one more line now; False when it
        said ``lines`` lines within the last ``window`` seconds."""
        now = self.clock()
        self._calls += 1
        if self._calls % SWEEP_EVERY == 0:
            self._sweep(now)
        said = self._said.setdefault(key, deque())
        while said and said[0] <= now - self.window:
            said.popleft()
        if len(said) >= self.lines:
            return False
        said.append(now)
        return True

    def _sweep(self, now: float) -> None:
        """Forget the keys that said nothing within the window (so keys do not pile up)."""
        for key in [k for k, said in self._said.items() if not said or said[-1] <= now - self.window]:
            del self._said[key]

    def __len__(self) -> int:
        """How many keys are remembered."""
        return len(self._said)

    def refusal(self) -> str:
        """The sentence for a line :meth:`allow` refused."""
        return (f"slow down: at most {self.lines} chat lines in {self.window:g} seconds; "
                "this line was not sent")

    def forget(self, key: str) -> None:
        """Drop what is known of ``key`` (its connection closed)."""
        self._said.pop(key, None)


# -- reading ---------------------------------------------------------------------------------


def _user_row(connection: Connection, name: str) -> sa.Row[Any]:
    """The account named ``name`` (compared case-insensitively); 404 if there is none."""
    cleaned = name.strip() if isinstance(name, str) else ""
    if not cleaned:
        raise ModerationError("send an account's name", 400)
    row = connection.execute(sa.select(users_t).where(users_t.c.name_key == name_key(cleaned))).first()
    if row is None:
        raise ModerationError(f"there is no account named {cleaned!r}: check the spelling", 404)
    return row


def _read_relations(store: Store, user_id: int) -> tuple[set[int], set[int]]:
    query = sa.select(relations_t.c.other_id, relations_t.c.kind).where(relations_t.c.user_id == user_id)
    muted: set[int] = set()
    blocked: set[int] = set()
    with store.engine.connect() as connection:
        for row in connection.execute(query):
            (muted if row.kind == "mute" else blocked).add(row.other_id)
    return muted, blocked


async def relations_of(store: Store, user_id: int) -> tuple[set[int], set[int]]:
    """The ids of the accounts ``user_id`` mutes and of those it blocks. A line of either
    kind is not delivered to ``user_id``."""
    return await anyio.to_thread.run_sync(_read_relations, store, user_id)


def _read_blocked(store: Store, a: int, b: int) -> bool:
    query = sa.select(sa.func.count()).select_from(relations_t).where(
        relations_t.c.kind == "block",
        sa.or_(
            sa.and_(relations_t.c.user_id == a, relations_t.c.other_id == b),
            sa.and_(relations_t.c.user_id == b, relations_t.c.other_id == a),
        ),
    )
    with store.engine.connect() as connection:
        return bool(connection.execute(query).scalar())


async def blocked_between(store: Store, a: int, b: int) -> bool:
    """Whether either of the accounts ``a`` and ``b`` blocks the other."""
    return await anyio.to_thread.run_sync(_read_blocked, store, a, b)


def _read_kicked(store: Store, table_id: str) -> set[int]:
    query = sa.select(moderation_log_t.c.target_id).where(
        moderation_log_t.c.action == "kick", moderation_log_t.c.table_id == table_id,
        moderation_log_t.c.target_id.is_not(None))
    with store.engine.connect() as connection:
        return {row.target_id for row in connection.execute(query)}


async def kicked_from(store: Store, table_id: str) -> set[int]:
    """The ids of the accounts a moderator kicked from ``table_id`` (kept out of it for good;
    every server process can ask, as the kicks are in ``moderation_log``)."""
    return await anyio.to_thread.run_sync(_read_kicked, store, table_id)


def _read_relation_names(store: Store, user_id: int) -> dict[str, list[str]]:
    query = (
        sa.select(relations_t.c.kind, users_t.c.name)
        .join(users_t, users_t.c.id == relations_t.c.other_id)
        .where(relations_t.c.user_id == user_id)
        .order_by(users_t.c.name_key)
    )
    out: dict[str, list[str]] = {kind: [] for kind in KINDS}
    with store.engine.connect() as connection:
        for row in connection.execute(query):
            out[row.kind].append(row.name)
    return out


async def relation_names(store: Store, user_id: int) -> dict[str, list[str]]:
    """``{"mute": [names], "block": [names]}``: whom ``user_id`` mutes and blocks, by name."""
    return await anyio.to_thread.run_sync(_read_relation_names, store, user_id)


@dataclass(frozen=True)
class Report:
    """One report as a moderator sees it."""

    id: int
    reporter: str
    table: str
    target: str
    target_id: int | None
    reason: str
    chat: list[dict[str, Any]]
    seq: int
    created: datetime
    status: str
    handled_by: str | None
    resolution: str | None
    #: when the target's ban ends (None: not banned)
    target_banned_until: datetime | None

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON, with the links to the table (``/t/``) and its replay (``/r/``)."""
        return {
            "id": self.id, "reporter": self.reporter, "table": self.table, "target": self.target,
            "reason": self.reason, "chat": self.chat, "seq": self.seq,
            "created": self.created.isoformat(), "status": self.status,
            "handled_by": self.handled_by, "resolution": self.resolution,
            "target_account": self.target_id is not None,
            "target_banned_until": None if self.target_banned_until is None
            else self.target_banned_until.isoformat(),
            "links": {"table": f"/t/{self.table}", "replay": f"/r/{self.table}"},
        }


def _read_reports(store: Store, status: str) -> list[Report]:
    target = users_t.alias("target")
    handler = users_t.alias("handler")
    query = (
        sa.select(reports_t, target.c.banned_until, handler.c.name.label("handler_name"))
        .outerjoin(target, target.c.id == reports_t.c.target_id)
        .outerjoin(handler, handler.c.id == reports_t.c.handled_by)
    )
    if status == "open":  # a queue: the oldest first
        query = query.where(reports_t.c.status == "open").order_by(reports_t.c.id)
    else:
        if status == "closed":
            query = query.where(reports_t.c.status == "closed")
        query = query.order_by(reports_t.c.id.desc())
    now = _now()
    with store.engine.connect() as connection:
        rows = list(connection.execute(query.limit(REPORTS_LIMIT)))
    out = []
    for row in rows:
        until = None if row.banned_until is None else _utc(row.banned_until)
        out.append(Report(
            id=row.id, reporter=row.reporter, table=row.table_id, target=row.target,
            target_id=row.target_id, reason=row.reason, chat=row.chat, seq=row.seq,
            created=_utc(row.created), status=row.status, handled_by=row.handler_name,
            resolution=row.resolution, target_banned_until=until if until and until > now else None,
        ))
    return out


async def reports(store: Store, status: str = "open") -> list[Report]:
    """The reports whose status is ``status`` ("open": oldest first; "closed" or "all":
    newest first), at most :data:`REPORTS_LIMIT`."""
    if status not in ("open", "closed", "all"):
        raise ModerationError(f"status is open, closed or all, not {status!r}")
    return await anyio.to_thread.run_sync(_read_reports, store, status)


# -- writing (each one transaction; the server runs them through its writer) ------------------


def _reason(reason: Any, what: str = "reason") -> str:
    """``reason`` cleaned; :class:`ModerationError` unless it is 1-500 characters of text."""
    text = reason.strip() if isinstance(reason, str) else ""
    if not 0 < len(text) <= REASON_MAX:
        raise ModerationError(f"give a {what} (1-{REASON_MAX} characters)")
    return text


def _acting_moderator(connection: Connection, moderator: User) -> None:
    """Refuse (403) unless ``moderator`` still has the moderator role in the database."""
    role = connection.execute(sa.select(users_t.c.role).where(users_t.c.id == moderator.id)).scalar()
    if role != "moderator":
        raise ModerationError(f"{moderator.name} is not a moderator: only moderators can do that", 403)


def _log(connection: Connection, moderator_id: int | None, action: str, target_id: int | None,
         table_id: str | None, reason: str, at: datetime) -> None:
    connection.execute(moderation_log_t.insert().values(
        moderator_id=moderator_id, action=action, target_id=target_id, table_id=table_id,
        reason=reason, at=at))


def set_relation(store: Store, user_id: int, other_name: str, kind: str, on: bool) -> str:
    """``user_id`` mutes or blocks (``on``) the account named ``other_name``, or stops;
    returns that account's name. Idempotent. 404 for an unknown name, 400 for oneself or an
    unknown kind."""
    if kind not in KINDS:
        raise ModerationError(f'kind is "mute" or "block", not {kind!r}')
    with store.engine.begin() as connection:
        other = _user_row(connection, other_name)
        if other.id == user_id:
            raise ModerationError(f"you cannot {kind} yourself")
        where = sa.and_(relations_t.c.user_id == user_id, relations_t.c.other_id == other.id,
                        relations_t.c.kind == kind)
        exists = connection.execute(sa.select(relations_t.c.user_id).where(where)).first() is not None
        if on and not exists:
            connection.execute(relations_t.insert().values(
                user_id=user_id, other_id=other.id, kind=kind, created=_now()))
        elif not on and exists:
            connection.execute(relations_t.delete().where(where))
        return str(other.name)


def add_report(store: Store, reporter: User | None, reporter_name: str, table_id: str, target: str,
               reason: str) -> Report:
    """Record ``reporter_name``'s report of ``target`` (a name seated or chatting at the
    table) at ``table_id``, keeping the table's last :data:`REPORT_CHAT` chat lines and its
    ``seq``. 404 for an unknown table or a name nobody used there; 409 when the same reporter
    already has an open report of that name at that table."""
    why = _reason(reason)
    target_name = target.strip() if isinstance(target, str) else ""
    if not target_name:
        raise ModerationError("send the name of the person you report")
    if target_name.casefold() == reporter_name.casefold():
        raise ModerationError("you cannot report yourself")
    now = _now()
    with store.engine.begin() as connection:
        table = connection.execute(
            sa.select(tables_t.c.seq, tables_t.c.settings).where(tables_t.c.id == table_id)).first()
        if table is None:
            raise ModerationError(f"there is no table {table_id!r}: check the address", 404)
        rows = list(connection.execute(
            sa.select(chat_t).where(chat_t.c.table_id == table_id)
            .order_by(chat_t.c.id.desc()).limit(REPORT_CHAT)))
        chat = [{"from": r.name, "text": r.text, "at": _utc(r.at).isoformat(), "spectator": r.spectator}
                for r in reversed(rows)]
        seated = [s.get("name") for s in table.settings.get("seats", []) if isinstance(s, dict)]
        present = {str(n).casefold() for n in seated if isinstance(n, str)}
        present |= {line["from"].casefold() for line in chat}
        if target_name.casefold() not in present:
            raise ModerationError(
                f"nobody named {target_name!r} played or chatted at table {table_id}: report a name "
                "from the table's seats or chat", 404)
        key = target_name.casefold()
        account = connection.execute(sa.select(users_t.c.id, users_t.c.name)
                                     .where(users_t.c.name_key == key)).first()
        reporter_id = None if reporter is None else reporter.id
        duplicate = connection.execute(sa.select(reports_t.c.id, reports_t.c.target).where(
            reports_t.c.table_id == table_id, reports_t.c.status == "open",
            reports_t.c.reporter == reporter_name)).all()
        for earlier in duplicate:
            if str(earlier.target).casefold() == key:
                raise ModerationError(f"you already reported {earlier.target} at this table (report "
                                      f"{earlier.id}); a moderator will look at it", 409)
        result = connection.execute(reports_t.insert().values(
            reporter_id=reporter_id, reporter=reporter_name, table_id=table_id, target=target_name,
            target_id=None if account is None else account.id, reason=why, chat=chat, seq=table.seq,
            created=now, status="open", handled_by=None, resolution=None))
        key_row = result.inserted_primary_key
        assert key_row is not None
        return Report(int(key_row[0]), reporter_name, table_id, target_name,
                      None if account is None else account.id, why, chat, table.seq, now, "open",
                      None, None, None)


def close_report(store: Store, moderator: User, report_id: int, resolution: str) -> None:
    """Close the report (a moderator looked at it): what was done, logged. 404 for an
    unknown report, 409 for one already closed."""
    text = _reason(resolution, "resolution")
    with store.engine.begin() as connection:
        _acting_moderator(connection, moderator)
        row = connection.execute(sa.select(reports_t).where(reports_t.c.id == report_id)).first()
        if row is None:
            raise ModerationError(f"there is no report {report_id}", 404)
        if row.status != "open":
            raise ModerationError(f"report {report_id} is already closed: {row.resolution}", 409)
        connection.execute(reports_t.update().where(reports_t.c.id == report_id).values(
            status="closed", handled_by=moderator.id, resolution=text))
        _log(connection, moderator.id, "close_report", row.target_id, row.table_id, text, _now())


def _target(connection: Connection, moderator: User, name: str, action: str) -> sa.Row[Any]:
    """The account ``moderator`` acts on: not oneself, not a bot, not another moderator."""
    row = _user_row(connection, name)
    if row.id == moderator.id:
        raise ModerationError(f"you cannot {action} yourself")
    if row.role == "bot":
        raise ModerationError(f"{row.name} is a bot: there is no one to {action}")
    if row.role == "moderator":
        raise ModerationError(
            f"{row.name} is a moderator: revoke the role first (backgammon moderator {row.name} --revoke)",
            409)
    return row


def ban(store: Store, moderator: User, name: str, hours: float | None, reason: str) -> tuple[int, datetime]:
    """Ban the account ``name`` for ``hours`` hours (``None``: for ever): its sessions end and
    it cannot log in until the ban ends. Returns its id and when the ban ends."""
    why = _reason(reason)
    if hours is not None and (isinstance(hours, bool) or not isinstance(hours, (int, float))
                              or not 0 < hours <= BAN_HOURS_MAX):
        raise ModerationError(
            f"hours is a number of hours from 0 to {BAN_HOURS_MAX}, or null for a ban for ever")
    now = _now()
    until = FOREVER if hours is None else now + timedelta(hours=hours)
    with store.engine.begin() as connection:
        _acting_moderator(connection, moderator)
        row = _target(connection, moderator, name, "ban")
        connection.execute(users_t.update().where(users_t.c.id == row.id)
                           .values(banned_until=until, ban_reason=why))
        connection.execute(sessions_t.delete().where(sessions_t.c.user_id == row.id))
        length = "for ever" if hours is None else f"for {hours:g} hours"
        _log(connection, moderator.id, "ban", row.id, None, f"{length}: {why}", now)
        return int(row.id), until


def unban(store: Store, moderator: User, name: str, reason: str = "ban lifted") -> int:
    """Lift the ban of the account ``name`` (409 if it is not banned); returns its id."""
    why = _reason(reason)
    now = _now()
    with store.engine.begin() as connection:
        _acting_moderator(connection, moderator)
        row = _user_row(connection, name)
        if row.banned_until is None or _utc(row.banned_until) <= now:
            raise ModerationError(f"{row.name} is not banned", 409)
        connection.execute(users_t.update().where(users_t.c.id == row.id)
                           .values(banned_until=None, ban_reason=None))
        _log(connection, moderator.id, "unban", row.id, None, why, now)
        return int(row.id)


def kick(store: Store, moderator: User, table_id: str, name: str, reason: str) -> int:
    """Log ``moderator``'s kick of the account ``name`` from ``table_id`` (the club closes
    its connections there and keeps it out: :func:`kicked_from`); returns its id. 404 for an
    unknown table or account."""
    why = _reason(reason)
    with store.engine.begin() as connection:
        _acting_moderator(connection, moderator)
        if connection.execute(sa.select(tables_t.c.id).where(tables_t.c.id == table_id)).first() is None:
            raise ModerationError(f"there is no table {table_id!r}: check the address", 404)
        row = _target(connection, moderator, name, "kick")
        _log(connection, moderator.id, "kick", row.id, table_id, why, _now())
        return int(row.id)


def grant_moderator(store: Store, name: str, revoke: bool = False) -> str:
    """Give the account ``name`` the moderator role (``revoke``: take it back, making it a
    player); logged with no moderator (the command line did it). Returns the account's
    name. 404 for an unknown account, 400 for a bot."""
    with store.engine.begin() as connection:
        row = _user_row(connection, name)
        if row.role == "bot":
            raise ModerationError(f"{row.name} is a bot account: bots cannot be moderators")
        role = "player" if revoke else "moderator"
        if row.role != role:
            connection.execute(users_t.update().where(users_t.c.id == row.id).values(role=role))
            what = "revoked the moderator role" if revoke else "granted the moderator role"
            _log(connection, None, "role", row.id, None, f"{what} (command line)", _now())
        return str(row.name)


# -- routes ----------------------------------------------------------------------------------

_Handler = Callable[[Request], Awaitable[Response]]


def _handles_errors(handler: _Handler) -> _Handler:
    async def wrapped(request: Request) -> Response:
        try:
            return await handler(request)
        except RoomError as exc:
            return JSONResponse({"error": str(exc)}, status_code=exc.status)

    wrapped.__doc__ = handler.__doc__
    wrapped.__name__ = handler.__name__
    return wrapped


def _store(request: Request) -> Store:
    store: Store = request.app.state.club.store
    return store


async def _write(request: Request, fn: Callable[..., Any], *args: Any) -> Any:
    """Run the write ``fn(store, *args)`` through the club's one writer."""
    club = request.app.state.club
    return await club.writer.run(fn, club.store, *args)


async def _user(request: Request, what: str) -> User:
    """The logged-in user (401 otherwise); for a POST, its CSRF header is checked first."""
    if request.method == "POST":
        await require_csrf(request)
    user = await current_user(request)
    if user is None:
        raise ModerationError(f"log in to {what}", 401)
    return user


async def _moderator(request: Request) -> User:
    user = await _user(request, "moderate")
    if user.role != "moderator":
        raise ModerationError("only moderators can do that", 403)
    return user


def _text(body: dict[str, Any], key: str) -> str:
    value = body.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ModerationError(f'send "{key}" (text)')
    return value


@_handles_errors
async def relations_route(request: Request) -> Response:
    """``GET /api/relations``: the names I mute and block; ``POST`` one change."""
    user = await _user(request, "mute or block people")
    if request.method == "POST":
        body = await json_object(request)
        on = body.get("on", True)
        if not isinstance(on, bool):
            raise ModerationError('"on" is true (mute or block) or false (stop)')
        kind = body.get("kind")
        if not isinstance(kind, str):
            raise ModerationError('send "kind": "mute" or "block"')
        await _write(request, set_relation, user.id, _text(body, "name"), kind, on)
        hook = getattr(request.app.state.club, "relations_changed", None)
        if hook is not None:  # the club refreshes the live connections' mutes
            await hook(user.id)
    return JSONResponse(await relation_names(_store(request), user.id))


@_handles_errors
async def report_route(request: Request) -> Response:
    """``POST /api/tables/{id}/report``: report someone at the table to the moderators."""
    if request.method == "POST":
        await require_csrf(request)
    user = await current_user(request)
    if user is None:
        raise ModerationError(
            "log in to report someone: a report needs an account so that moderators can answer it "
            "and reports cannot be sent anonymously in bulk", 401)
    body = await json_object(request)
    report = await _write(request, add_report, user, user.name, request.path_params["id"],
                          _text(body, "name"), _text(body, "reason"))
    return JSONResponse({"report": report.to_dict()})


@_handles_errors
async def reports_route(request: Request) -> Response:
    """``GET /api/moderation/reports?status=open``."""
    await _moderator(request)
    status = request.query_params.get("status", "open")
    found = await reports(_store(request), status)
    return JSONResponse({"reports": [r.to_dict() for r in found]})


@_handles_errors
async def close_route(request: Request) -> Response:
    """``POST /api/moderation/reports/{rid}/close`` ``{"resolution"}``."""
    moderator = await _moderator(request)
    body = await json_object(request)
    try:
        report_id = int(request.path_params["rid"])
    except ValueError:
        raise ModerationError("a report's id is a number", 404) from None
    await _write(request, close_report, moderator, report_id, body.get("resolution"))
    return JSONResponse({"closed": report_id})


@_handles_errors
async def kick_route(request: Request) -> Response:
    """``POST /api/moderation/kick`` ``{"table", "name", "reason"}``."""
    moderator = await _moderator(request)
    body = await json_object(request)
    table_id, reason = _text(body, "table"), body.get("reason")
    user_id = await _write(request, kick, moderator, table_id, _text(body, "name"), reason)
    hook = getattr(request.app.state.club, "kick", None)
    if hook is not None:
        await hook(table_id, user_id, _reason(reason))
    return JSONResponse({"kicked": _text(body, "name").strip(), "table": table_id})


@_handles_errors
async def ban_route(request: Request) -> Response:
    """``POST /api/moderation/ban`` ``{"name", "hours": n | null, "reason"}``."""
    moderator = await _moderator(request)
    body = await json_object(request)
    if "hours" not in body:
        raise ModerationError('send "hours": a number, or null for a ban for ever')
    user_id, until = await _write(request, ban, moderator, _text(body, "name"), body["hours"],
                                  body.get("reason"))
    hook = getattr(request.app.state.club, "ban", None)
    if hook is not None:
        await hook(user_id, _reason(body.get("reason")))
    return JSONResponse({"banned": _text(body, "name").strip(), "until": until.isoformat(),
                         "forever": until == FOREVER})


@_handles_errors
async def unban_route(request: Request) -> Response:
    """``POST /api/moderation/unban`` ``{"name", "reason"?}``."""
    moderator = await _moderator(request)
    body = await json_object(request)
    reason = body.get("reason") or "ban lifted"
    await _write(request, unban, moderator, _text(body, "name"), reason)
    return JSONResponse({"unbanned": _text(body, "name").strip()})


async def moderate_page(request: Request) -> Response:
    """``GET /moderate``: the moderators' page (it tells anyone else it is for moderators)."""
    path = Path(__file__).resolve().parent / "static" / "moderate.html"
    if not path.is_file():
        return PlainTextResponse("moderate.html is not there yet", status_code=404)
    return FileResponse(path, media_type="text/html")


def routes() -> list[Route]:
    """The moderation routes, to mount in the application."""
    return [
        Route("/api/relations", relations_route, methods=["GET", "POST"]),
        Route("/api/tables/{id}/report", report_route, methods=["POST"]),
        Route("/api/moderation/reports", reports_route),
        Route("/api/moderation/reports/{rid}/close", close_route, methods=["POST"]),
        Route("/api/moderation/kick", kick_route, methods=["POST"]),
        Route("/api/moderation/ban", ban_route, methods=["POST"]),
        Route("/api/moderation/unban", unban_route, methods=["POST"]),
        Route("/moderate", moderate_page),
    ]


# -- OpenAPI ---------------------------------------------------------------------------------


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _obj(required: tuple[str, ...] = (), **properties: Any) -> dict[str, Any]:
    out: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        out["required"] = list(required)
    return out


def _request(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


_STR = {"type": "string"}
_ERROR = {"$ref": "#/components/schemas/Error"}
_REASON = {"type": "string", "minLength": 1, "maxLength": REASON_MAX}
_CSRF = [{"name": "X-CSRF-Token", "in": "header", "required": True, "schema": _STR,
          "description": "the session's CSRF token (GET /api/me)"}]
_AUTH_ERRORS = {
    "400": _json(_ERROR, "the request was not acted on (the sentence says why)"),
    "401": _json(_ERROR, "not logged in"),
    "403": _json(_ERROR, "not a moderator, or the CSRF header is missing or wrong"),
    "404": _json(_ERROR, "no such account, table or report"),
}
_NAMES = _obj(("mute", "block"), mute={"type": "array", "items": _STR}, block={"type": "array", "items": _STR})
_CHAT_LINE = _obj(("from", "text", "at", "spectator"), **{"from": _STR}, text=_STR,
                  at={"type": "string", "format": "date-time"}, spectator={"type": "boolean"})
_REPORT = _obj(
    ("id", "reporter", "table", "target", "reason", "chat", "seq", "created", "status", "links"),
    id={"type": "integer"}, reporter=_STR, table=_STR, target=_STR, reason=_STR,
    chat={"type": "array", "items": _CHAT_LINE, "description": f"the table's last {REPORT_CHAT} chat lines"},
    seq={"type": "integer", "description": "the table's seq when the report was made"},
    created={"type": "string", "format": "date-time"}, status={"enum": ["open", "closed"]},
    handled_by={"type": ["string", "null"]}, resolution={"type": ["string", "null"]},
    target_account={"type": "boolean"},
    target_banned_until={"type": ["string", "null"], "format": "date-time"},
    links=_obj(("table", "replay"), table=_STR, replay=_STR),
)

#: The moderation endpoints as OpenAPI 3.1 path items (merged into the server's document).
OPENAPI_PATHS: dict[str, Any] = {
    "/api/relations": {
        "get": {
            "summary": "the accounts I mute and block",
            "operationId": "listRelations",
            "responses": {"200": _json(_NAMES, "names, by kind"), "401": _AUTH_ERRORS["401"]},
        },
        "post": {
            "summary": "mute or block an account, or stop",
            "operationId": "setRelation",
            "parameters": _CSRF,
            "requestBody": _request(_obj(("name", "kind"), name=_STR, kind={"enum": list(KINDS)},
                                         on={"type": "boolean", "default": True})),
            "responses": {"200": _json(_NAMES, "the names I mute and block now"), **_AUTH_ERRORS},
        },
    },
    "/api/tables/{id}/report": {"post": {
        "summary": "report someone at a table to the moderators (logged-in accounts only)",
        "operationId": "report",
        "parameters": [{"name": "id", "in": "path", "required": True, "schema": _STR,
                        "description": "the table's id"}, *_CSRF],
        "requestBody": _request(_obj(("name", "reason"), name=_STR, reason=_REASON)),
        "responses": {
            "200": _json(_obj(("report",), report=_REPORT), "the report, with the chat it keeps"),
            "409": _json(_ERROR, "you already reported that name at this table"),
            **_AUTH_ERRORS,
        },
    }},
    "/api/moderation/reports": {"get": {
        "summary": "reports (moderators)",
        "operationId": "listReports",
        "parameters": [{"name": "status", "in": "query", "required": False,
                        "schema": {"enum": ["open", "closed", "all"], "default": "open"}}],
        "responses": {"200": _json(_obj(("reports",), reports={"type": "array", "items": _REPORT}),
                                   "open reports oldest first; closed or all newest first"),
                      **_AUTH_ERRORS},
    }},
    "/api/moderation/reports/{rid}/close": {"post": {
        "summary": "close a report (moderators)",
        "operationId": "closeReport",
        "parameters": [{"name": "rid", "in": "path", "required": True, "schema": {"type": "integer"}}, *_CSRF],
        "requestBody": _request(_obj(("resolution",), resolution=_REASON)),
        "responses": {"200": _json(_obj(("closed",), closed={"type": "integer"}), "closed"),
                      "409": _json(_ERROR, "already closed"), **_AUTH_ERRORS},
    }},
    "/api/moderation/kick": {"post": {
        "summary": "put an account out of a table for good (moderators)",
        "operationId": "kick",
        "parameters": _CSRF,
        "requestBody": _request(_obj(("table", "name", "reason"), table=_STR, name=_STR, reason=_REASON)),
        "responses": {"200": _json(_obj(("kicked", "table"), kicked=_STR, table=_STR), "kicked"),
                      "409": _json(_ERROR, "a moderator cannot be kicked"), **_AUTH_ERRORS},
    }},
    "/api/moderation/ban": {"post": {
        "summary": "ban an account for some hours or for ever (moderators)",
        "operationId": "ban",
        "parameters": _CSRF,
        "requestBody": _request(_obj(
            ("name", "hours", "reason"), name=_STR, reason=_REASON,
            hours={"type": ["number", "null"], "exclusiveMinimum": 0, "maximum": BAN_HOURS_MAX,
                   "description": "null: for ever"})),
        "responses": {"200": _json(_obj(("banned", "until", "forever"), banned=_STR,
                                        until={"type": "string", "format": "date-time"},
                                        forever={"type": "boolean"}), "banned"),
                      "409": _json(_ERROR, "a moderator cannot be banned"), **_AUTH_ERRORS},
    }},
    "/api/moderation/unban": {"post": {
        "summary": "lift a ban (moderators)",
        "operationId": "unban",
        "parameters": _CSRF,
        "requestBody": _request(_obj(("name",), name=_STR, reason=_REASON)),
        "responses": {"200": _json(_obj(("unbanned",), unbanned=_STR), "the ban is lifted"),
                      "409": _json(_ERROR, "the account is not banned"), **_AUTH_ERRORS},
    }},
}
