"""The server's database: tables, their committed commands (events) and chat.

SQLAlchemy 2 Core over SQLite (the default, one file) or PostgreSQL (by URL). The schema is
made and upgraded by the Alembic revisions in ``backgammon/server/migrations/``, run by
:class:`Store` itself when it opens the database; nothing else creates tables.

Every command of a table is one transaction (:meth:`Store.commit`): the event row and the
table's new state go in together or not at all, and a second writer that read the same
``seq`` is refused (:class:`StaleWrite`) instead of overwriting the first.

>>> import tempfile, os
>>> from datetime import datetime, timezone
>>> folder = tempfile.mkdtemp()
>>> store = Store(f"sqlite:///{folder}/club.sqlite3")
>>> now = datetime.now(timezone.utc)
>>> store.create(TableRecord("abcdefghij", "match", {"length": 3}, {}, {"table": {}}, 0,
...                          "waiting", now, now))
>>> store.commit("abcdefghij", 1, "ann", {"type": "roll"}, [{"type": "rolled"}], {"table": 1}, "playing")
>>> store.load("abcdefghij").seq
1
>>> [e.command for e in store.events("abcdefghij")]
[{'type': 'roll'}]
>>> store.commit("abcdefghij", 1, "bob", None, [], {}, "playing")  # doctest: +ELLIPSIS
Traceback (most recent call last):
...
backgammon.server.store.StaleWrite: table abcdefghij has moved on: command 1 is already committed ...
>>> store.close()
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import URL, Connection, Engine, make_url
from sqlalchemy.exc import IntegrityError
from sqlalchemy.pool import StaticPool

from ..errors import BackgammonError
from ..paths import state_dir

__all__ = [
    "TableRecord",
    "EventRow",
    "ChatRow",
    "Commit",
    "Store",
    "StoreError",
    "StaleWrite",
    "UnknownTable",
    "metadata",
    "tables_t",
    "events_t",
    "chat_t",
    "users_t",
    "sessions_t",
    "login_attempts_t",
    "seat_users_t",
    "results_t",
    "relations_t",
    "reports_t",
    "moderation_log_t",
    "analyses_t",
    "state_dir",
    "default_url",
    "normalize_url",
    "upgrade",
    "MIGRATIONS",
]

#: The folder of the Alembic environment (``env.py``, ``versions/``).
MIGRATIONS = Path(__file__).resolve().parent / "migrations"
#: How long (ms) a SQLite writer waits for another one before giving up.
SQLITE_BUSY_MS = 10_000

# -- the schema (the Alembic revisions must build exactly this; a test compares them) --------

metadata = sa.MetaData()

tables_t = sa.Table(
    "tables",
    metadata,
    sa.Column("id", sa.String(32), primary_key=True),
    sa.Column("kind", sa.String(16), nullable=False),
    sa.Column("settings", sa.JSON, nullable=False),
    sa.Column("tokens", sa.JSON, nullable=False),
    sa.Column("state", sa.JSON, nullable=False),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
    #: when the server must next act on the table by itself (a bot's turn, a clock's flag);
    #: NULL when it waits for people only. Any server process may claim a due table.
    sa.Column("due", sa.DateTime(timezone=True), nullable=True),
    sa.Index("ix_tables_status", "status"),
    sa.Index("ix_tables_updated", "updated"),
    sa.Index("ix_tables_due", "due"),
)

events_t = sa.Table(
    "events",
    metadata,
    sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seq", sa.Integer, primary_key=True),
    sa.Column("seat", sa.Text, nullable=True),
    sa.Column("command", sa.JSON(none_as_null=True), nullable=True),
    sa.Column("events", sa.JSON, nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
)

chat_t = sa.Table(
    "chat",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column(
        "table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("spectator", sa.Boolean, nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    #: the account that said it (NULL: a guest)
    sa.Column("user", sa.Text, nullable=True),
    sa.Index("ix_chat_table_id", "table_id", "id"),
)


# -- the club (issue 12): accounts, sessions, seats held by accounts, results, moderation ------

users_t = sa.Table(
    "users",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.String(32), nullable=False),
    #: the name folded for comparison (``name.casefold()``): unique
    sa.Column("name_key", sa.String(32), nullable=False, unique=True),
    #: the argon2id hash; NULL for bots (they never log in)
    sa.Column("password", sa.Text, nullable=True),
    #: "player" | "moderator" | "bot"
    sa.Column("role", sa.String(16), nullable=False),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("experience", sa.Integer, nullable=False),
    sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    sa.Column("banned_until", sa.DateTime(timezone=True), nullable=True),
    sa.Column("ban_reason", sa.Text, nullable=True),
    sa.Index("ix_users_rating", "rating"),
)

sessions_t = sa.Table(
    "sessions",
    metadata,
    #: sha256 hex of the session cookie's token (never the token itself)
    sa.Column("id", sa.String(64), primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    #: the session's anti-CSRF token (sent back in the X-CSRF-Token header)
    sa.Column("csrf", sa.String(64), nullable=False),
    sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    sa.Column("expires", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_sessions_user_id", "user_id"),
)

login_attempts_t = sa.Table(
    "login_attempts",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    #: what is limited: "name:<name_key>" or "ip:<address>"
    sa.Column("key", sa.String(128), nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
    sa.Column("ok", sa.Boolean, nullable=False),
    sa.Index("ix_login_attempts_key_at", "key", "at"),
)

seat_users_t = sa.Table(
    "seat_users",
    metadata,
    sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("seat", sa.Text, primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Index("ix_seat_users_user_id", "user_id"),
)

results_t = sa.Table(
    "results",
    metadata,
    sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("length", sa.Integer, nullable=False),
    sa.Column("winner_seat", sa.Text, nullable=False),
    sa.Column("loser_seat", sa.Text, nullable=False),
    sa.Column("winner_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
    sa.Column("loser_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
    #: {seat: points}
    sa.Column("score", sa.JSON, nullable=False),
    #: "played" | "resigned" | "time" | "abandoned"
    sa.Column("reason", sa.String(16), nullable=False),
    #: {seat: {"before": r, "after": r, "experience_before": e, "experience_after": e}} when rated
    sa.Column("ratings", sa.JSON(none_as_null=True), nullable=True),
    sa.Column("finished", sa.DateTime(timezone=True), nullable=False),
    sa.Index("ix_results_winner_id", "winner_id"),
    sa.Index("ix_results_loser_id", "loser_id"),
    sa.Index("ix_results_finished", "finished"),
)

relations_t = sa.Table(
    "relations",
    metadata,
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("other_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    #: "mute" | "block"
    sa.Column("kind", sa.String(8), primary_key=True),
    sa.Column("created", sa.DateTime(timezone=True), nullable=False),
)

reports_t = sa.Table(
    "reports",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("reporter_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
    sa.Column("reporter", sa.Text, nullable=False),
    sa.Column("table_id", sa.String(32), nullable=False),
    sa.Column("target", sa.Text, nullable=False),
    sa.Column("target_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
    sa.Column("reason", sa.Text, nullable=False),
    #: what the moderator sees: the chat lines and the table's seq at the time of the report
    sa.Column("chat", sa.JSON, nullable=False),
    sa.Column("seq", sa.Integer, nullable=False),
    sa.Column("created", sa.DateTime(timezone=True), nullable=False),
    #: "open" | "closed"
    sa.Column("status", sa.String(16), nullable=False),
    sa.Column("handled_by", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
    sa.Column("resolution", sa.Text, nullable=True),
    sa.Index("ix_reports_status", "status", "id"),
)

moderation_log_t = sa.Table(
    "moderation_log",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("moderator_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
    #: "kick" | "ban" | "unban" | "close_report" | "role"
    sa.Column("action", sa.String(16), nullable=False),
    sa.Column("target_id", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True),
    sa.Column("table_id", sa.String(32), nullable=True),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("at", sa.DateTime(timezone=True), nullable=False),
)


# -- analyses of finished matches (issue 13; backgammon.server.analysis_api) ------------------

analyses_t = sa.Table(
    "analyses",
    metadata,
    sa.Column("table_id", sa.String(32), sa.ForeignKey("tables.id", ondelete="CASCADE"), primary_key=True),
    #: the depth of the analysis (0, 1 or 2 ply)
    sa.Column("plies", sa.Integer, primary_key=True),
    #: "queued" | "running" | "done" | "failed"
    sa.Column("status", sa.String(16), nullable=False),
    #: the computation that holds the row (a random id; another takes over a stale one)
    sa.Column("owner", sa.String(32), nullable=False),
    sa.Column("done", sa.Integer, nullable=False),
    sa.Column("total", sa.Integer, nullable=False),
    #: MatchAnalysis.to_dict() once done
    sa.Column("result", sa.JSON(none_as_null=True), nullable=True),
    #: why it failed
    sa.Column("error", sa.Text, nullable=True),
    sa.Column("started", sa.DateTime(timezone=True), nullable=False),
    #: the last sign of life of its computation (a heartbeat), or when it ended
    sa.Column("updated", sa.DateTime(timezone=True), nullable=False),
)


# -- records ---------------------------------------------------------------------------------


@dataclass
class TableRecord:
    """One table as stored.

    ``tokens`` maps each seat name to the sha256 hex of its token (never the token itself);
    ``state`` is ``{"table": Table.to_dict(), "fair": FairDice.to_dict()}``; ``seq`` counts
    the commands committed so far. Datetimes come back timezone-aware (UTC).
    """

    id: str
    kind: str
    settings: dict[str, Any]
    tokens: dict[str, str]
    state: dict[str, Any]
    seq: int
    status: str
    created: datetime
    updated: datetime
    #: when the server must next act by itself (see the ``due`` column); ``None``: never
    due: datetime | None = None


@dataclass(frozen=True)
class EventRow:
    """One committed command: number ``seq`` (1, 2, ...) of its table, who sent it (``seat``,
    ``None`` for the server itself), the command and the events it produced."""

    table_id: str
    seq: int
    seat: str | None
    command: dict[str, Any] | None
    events: list[dict[str, Any]]
    at: datetime


@dataclass(frozen=True)
class ChatRow:
    """One chat line; ``id`` grows with time across the whole database."""

    id: int
    table_id: str
    name: str
    text: str
    spectator: bool
    at: datetime
    #: the account that said it (``None``: a guest)
    user: str | None = None


@dataclass(frozen=True)
class Commit:
    """One command's write (the arguments of :meth:`Store.commit`), for :meth:`Store.commit_many`."""

    table_id: str
    seq: int
    seat: str | None
    command: dict[str, Any] | None
    events: list[dict[str, Any]]
    state: dict[str, Any]
    status: str
    #: the table's new ``due`` time (when the server must act on it by itself), or None
    due: datetime | None = None
    #: more writes that belong to this command, run in its transaction after it (e.g. the
    #: result and the ratings when a match ends); each must be safe to run again after a
    #: rollback
    after: tuple[Callable[[Connection], None], ...] = ()


class StoreError(BackgammonError):
    """The database refused an operation (the message says why)."""


class StaleWrite(StoreError):
    """A commit whose ``seq`` is not the stored one plus one: another writer got there first."""


class UnknownTable(StoreError):
    """An operation on a table id that is not in the database."""


# -- where the database lives ----------------------------------------------------------------


def default_url() -> str:
    """``sqlite:///<state_dir()>/club.sqlite3`` (``./club.sqlite3`` without a state folder).

    >>> old = os.environ.get("XDG_STATE_HOME")
    >>> os.environ["XDG_STATE_HOME"] = "/state"; default_url()
    'sqlite:////state/backgammon/club.sqlite3'
    >>> if old is None: del os.environ["XDG_STATE_HOME"]
    ... else: os.environ["XDG_STATE_HOME"] = old
    """
    folder = state_dir()
    path = (folder if folder is not None else Path(".")) / "club.sqlite3"
    return f"sqlite:///{path}"


def normalize_url(url: str | URL) -> URL:
    """The URL SQLAlchemy should open: ``postgresql://`` and ``postgres://`` use psycopg 3.

    >>> normalize_url("postgresql://bob@db/club").render_as_string()
    'postgresql+psycopg://bob@db/club'
    >>> normalize_url("sqlite:///x.db").drivername
    'sqlite'
    """
    try:
        parsed = make_url(url)
    except sa.exc.ArgumentError as exc:
        raise StoreError(
            f"{str(url)!r} is not a database URL; use sqlite:///PATH or postgresql://USER@HOST/DB"
        ) from exc
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername="postgresql+psycopg")
    return parsed


def _utc(value: datetime) -> datetime:
    """``value`` as an aware UTC datetime (SQLite hands naive ones back)."""
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _sqlite_pragmas(dbapi_connection: Any, _record: Any) -> None:
    """Durable, checked SQLite: WAL journal, fsync on every commit, foreign keys, waiting
    writers."""
    if not isinstance(dbapi_connection, sqlite3.Connection):  # pragma: no cover - other drivers
        return
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute("PRAGMA journal_mode=WAL")
        cursor.execute("PRAGMA synchronous=FULL")
        cursor.execute("PRAGMA foreign_keys=ON")
        cursor.execute(f"PRAGMA busy_timeout={SQLITE_BUSY_MS}")
    finally:
        cursor.close()


def _make_engine(url: URL) -> Engine:
    """The engine for ``url``, with SQLite set up (folders made, pragmas on connect)."""
    if url.get_backend_name() != "sqlite":
        try:
            return sa.create_engine(url, pool_pre_ping=True)
        except ModuleNotFoundError as exc:
            raise StoreError(
                f"the database driver {exc.name} is not installed; the server runs on SQLite or "
                "on PostgreSQL through psycopg 3 (pip install 'backgammon[postgres]')"
            ) from exc
    database = url.database
    if not database or database == ":memory:" or url.query.get("mode") == "memory":
        # One shared in-memory database for every thread of the process.
        engine = sa.create_engine(
            url, poolclass=StaticPool, connect_args={"check_same_thread": False}
        )
    else:
        folder = Path(database).expanduser().parent
        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise StoreError(f"cannot create the database folder {str(folder)!r}: {exc.strerror}") from exc
        engine = sa.create_engine(url, connect_args={"timeout": SQLITE_BUSY_MS / 1000})
    sa.event.listen(engine, "connect", _sqlite_pragmas)
    return engine


def upgrade(connection: Connection) -> None:
    """Run the Alembic revisions up to head on ``connection`` (idempotent)."""
    from alembic import command
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    cfg.attributes["connection"] = connection
    if connection.dialect.name == "postgresql":
        # several server processes starting at once: one migrates, the others wait for it
        connection.execute(sa.text("select pg_advisory_xact_lock(4242001)"))
    command.upgrade(cfg, "head")


# -- the store -------------------------------------------------------------------------------


def _record(row: sa.Row[Any]) -> TableRecord:
    return TableRecord(
        id=row.id,
        kind=row.kind,
        settings=row.settings,
        tokens=row.tokens,
        state=row.state,
        seq=row.seq,
        status=row.status,
        created=_utc(row.created),
        updated=_utc(row.updated),
        due=None if row.due is None else _utc(row.due),
    )


class Store:
    """The database at ``url`` (``sqlite:///PATH`` or ``postgresql://...``), upgraded to the
    newest schema on opening. Safe to share between threads; every method is one
    transaction."""

    def __init__(self, url: str | URL) -> None:
        self.url = normalize_url(url)
        self.engine = _make_engine(self.url)
        try:
            with self.engine.begin() as connection:
                upgrade(connection)
        except sa.exc.OperationalError as exc:
            self.engine.dispose()
            raise StoreError(
                f"cannot open the database {self.url.render_as_string(hide_password=True)}: "
                f"{exc.orig}".strip()
            ) from exc

    def __enter__(self) -> Store:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({self.url.render_as_string(hide_password=True)!r})"

    def create(self, record: TableRecord, seat_users: Mapping[str, int] | None = None) -> None:
        """Store a new table (and which account holds each seat of ``seat_users``, seat name
        to user id); :class:`StoreError` if its id is taken."""
        try:
            with self.engine.begin() as connection:
                connection.execute(
                    tables_t.insert().values(
                        id=record.id,
                        kind=record.kind,
                        settings=record.settings,
                        tokens=record.tokens,
                        state=record.state,
                        seq=record.seq,
                        status=record.status,
                        created=_utc(record.created),
                        updated=_utc(record.updated),
                        due=None if record.due is None else _utc(record.due),
                    )
                )
                for seat, user_id in (seat_users or {}).items():
                    connection.execute(seat_users_t.insert().values(table_id=record.id, seat=seat, user_id=user_id))
        except IntegrityError as exc:
            raise StoreError(f"a table with id {record.id} already exists; choose another id") from exc

    def commit(
        self,
        table_id: str,
        seq: int,
        seat: str | None,
        command: dict[str, Any] | None,
        events: list[dict[str, Any]],
        state: dict[str, Any],
        status: str,
    ) -> None:
        """Commit command number ``seq`` of the table: in ONE transaction, the event row
        ``(table_id, seq, seat, command, events)`` and the table's new ``state``, ``seq`` and
        ``status``. :class:`StaleWrite` (nothing written) unless the stored ``seq`` is
        ``seq - 1``; :class:`UnknownTable` if there is no such table."""
        with self.engine.begin() as connection:
            self._commit_in(connection, Commit(table_id, seq, seat, command, events, state, status), _now())

    def commit_many(self, commits: Sequence[Commit]) -> list[StoreError | None]:
        """Group commit: every commit of ``commits`` in ONE transaction (one disk flush for
        all), each checked as :meth:`commit` checks it. When one of them is refused, the
        transaction is rolled back and each is committed on its own, so a stale write refuses
        only itself. Returns, in order, None for each commit written and the error of each
        refused one.

        The server's writer (:class:`backgammon.server.writer.GroupCommit`) calls this with
        whatever commands of all its tables arrived while the previous flush ran."""
        now = _now()
        try:
            with self.engine.begin() as connection:
                for c in commits:
                    self._commit_in(connection, c, now)
            return [None] * len(commits)
        except StoreError:
            if len(commits) == 1:
                raise
        results: list[StoreError | None] = []
        for c in commits:
            try:
                with self.engine.begin() as connection:
                    self._commit_in(connection, c, now)
                results.append(None)
            except StoreError as exc:
                results.append(exc)
        return results

    def _commit_in(self, connection: Connection, c: Commit, now: datetime) -> None:
        # The conditional UPDATE first: it takes the row's write lock, so of two writers
        # with the same seq the second matches no row once the first has committed.
        result = connection.execute(
            tables_t.update()
            .where(tables_t.c.id == c.table_id, tables_t.c.seq == c.seq - 1)
            .values(state=c.state, seq=c.seq, status=c.status, updated=now,
                    due=None if c.due is None else _utc(c.due))
        )
        if result.rowcount != 1:
            raise self._stale(connection, c.table_id, c.seq)
        try:
            connection.execute(
                events_t.insert().values(
                    table_id=c.table_id, seq=c.seq, seat=c.seat, command=c.command, events=c.events, at=now
                )
            )
        except IntegrityError as exc:
            raise StaleWrite(
                f"table {c.table_id} already has a command {c.seq} in its log, so this write was "
                "dropped; reload the table and try again"
            ) from exc
        for write in c.after:
            write(connection)

    def _stale(self, connection: Connection, table_id: str, seq: int) -> StoreError:
        """The error for a refused commit of command ``seq``: why the UPDATE matched nothing."""
        stored = connection.execute(sa.select(tables_t.c.seq).where(tables_t.c.id == table_id)).scalar()
        if stored is None:
            return UnknownTable(f"there is no table {table_id} in the database")
        if stored >= seq:
            return StaleWrite(
                f"table {table_id} has moved on: command {seq} is already committed (the table is "
                f"at {stored}), so this write was dropped; reload the table and try again"
            )
        return StaleWrite(
            f"table {table_id} is at command {stored}, so command {seq} cannot follow it "
            f"(the next is {stored + 1}); reload the table and try again"
        )

    def update_seats(
        self, table_id: str, settings: dict[str, Any], tokens: dict[str, str], status: str
    ) -> None:
        """Replace the table's settings (seats), seat token hashes and status;
        :class:`UnknownTable` if there is no such table."""
        with self.engine.begin() as connection:
            result = connection.execute(
                tables_t.update()
                .where(tables_t.c.id == table_id)
                .values(settings=settings, tokens=tokens, status=status, updated=_now())
            )
            if result.rowcount != 1:
                raise UnknownTable(f"there is no table {table_id} in the database")

    def seat_user(self, table_id: str, seat: str, user_id: int) -> None:
        """Record that the account ``user_id`` holds ``seat`` at the table."""
        with self.engine.begin() as connection:
            connection.execute(seat_users_t.delete().where(seat_users_t.c.table_id == table_id,
                                                           seat_users_t.c.seat == seat))
            connection.execute(seat_users_t.insert().values(table_id=table_id, seat=seat, user_id=user_id))

    def users_of_table(self, table_id: str) -> dict[str, int]:
        """Seat name to account id, for the seats of the table that accounts hold."""
        query = sa.select(seat_users_t.c.seat, seat_users_t.c.user_id).where(seat_users_t.c.table_id == table_id)
        with self.engine.connect() as connection:
            return {row.seat: row.user_id for row in connection.execute(query)}

    def seats_of_user(self, table_id: str, user_id: int) -> list[str]:
        """The seats the account ``user_id`` holds at the table."""
        query = sa.select(seat_users_t.c.seat).where(seat_users_t.c.table_id == table_id,
                                                     seat_users_t.c.user_id == user_id)
        with self.engine.connect() as connection:
            return [row.seat for row in connection.execute(query)]

    def user_by_id(self, user_id: int) -> dict[str, Any] | None:
        """``{"id", "name", "rating", "experience"}`` of an account, or ``None``."""
        query = sa.select(users_t.c.id, users_t.c.name, users_t.c.rating, users_t.c.experience).where(
            users_t.c.id == user_id)
        with self.engine.connect() as connection:
            row = connection.execute(query).first()
        if row is None:
            return None
        return {"id": row.id, "name": row.name, "rating": row.rating, "experience": row.experience}

    def set_due(self, table_id: str, due: datetime | None) -> None:
        """Set when the server must next act on the table by itself (``None``: never)."""
        with self.engine.begin() as connection:
            connection.execute(
                tables_t.update().where(tables_t.c.id == table_id)
                .values(due=None if due is None else _utc(due))
            )

    def due(self, now: datetime, limit: int = 100) -> list[str]:
        """The ids of at most ``limit`` tables that are not over and whose ``due`` time has
        come by ``now``, the most overdue first."""
        query = (
            sa.select(tables_t.c.id)
            .where(tables_t.c.status != "over", tables_t.c.due.is_not(None), tables_t.c.due <= _utc(now))
            .order_by(tables_t.c.due)
            .limit(limit)
        )
        with self.engine.connect() as connection:
            return [row.id for row in connection.execute(query)]

    def load(self, table_id: str) -> TableRecord | None:
        """The table ``table_id``, or ``None``."""
        with self.engine.connect() as connection:
            row = connection.execute(sa.select(tables_t).where(tables_t.c.id == table_id)).first()
        return None if row is None else _record(row)

    def live(self) -> list[TableRecord]:
        """Every table that is not over (to reopen them on restart), oldest first."""
        query = (
            sa.select(tables_t)
            .where(tables_t.c.status != "over")
            .order_by(tables_t.c.created, tables_t.c.id)
        )
        with self.engine.connect() as connection:
            return [_record(row) for row in connection.execute(query)]

    def lobby(self, limit: int = 100) -> list[TableRecord]:
        """At most ``limit`` tables that are not over, the most recently active
        (``updated``) first."""
        query = (
            sa.select(tables_t)
            .where(tables_t.c.status != "over")
            .order_by(tables_t.c.updated.desc(), tables_t.c.id.desc())
            .limit(limit)
        )
        with self.engine.connect() as connection:
            return [_record(row) for row in connection.execute(query)]

    def events(self, table_id: str) -> list[EventRow]:
        """The table's committed commands, in order (``seq`` 1, 2, ...)."""
        query = sa.select(events_t).where(events_t.c.table_id == table_id).order_by(events_t.c.seq)
        with self.engine.connect() as connection:
            return [
                EventRow(row.table_id, row.seq, row.seat, row.command, row.events, _utc(row.at))
                for row in connection.execute(query)
            ]

    def add_chat(self, table_id: str, name: str, text: str, spectator: bool, user: str | None = None) -> ChatRow:
        """Store a chat line of the table (``user``: the account that said it);
        :class:`UnknownTable` if there is no such table."""
        now = _now()
        try:
            with self.engine.begin() as connection:
                result = connection.execute(
                    chat_t.insert().values(
                        table_id=table_id, name=name, text=text, spectator=spectator, at=now, user=user
                    )
                )
                key = result.inserted_primary_key
        except IntegrityError as exc:
            raise UnknownTable(f"there is no table {table_id} in the database") from exc
        assert key is not None
        return ChatRow(int(key[0]), table_id, name, text, spectator, now, user)

    def chat(self, table_id: str, limit: int = 100) -> list[ChatRow]:
        """The table's last ``limit`` chat lines, oldest first."""
        query = (
            sa.select(chat_t).where(chat_t.c.table_id == table_id).order_by(chat_t.c.id.desc()).limit(limit)
        )
        with self.engine.connect() as connection:
            rows = list(connection.execute(query))
        return [
            ChatRow(row.id, row.table_id, row.name, row.text, row.spectator, _utc(row.at), row.user)
            for row in reversed(rows)
        ]

    def close(self) -> None:
        """Close every connection (the store cannot be used afterwards)."""
        self.engine.dispose()
