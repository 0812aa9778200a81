"""Accounts of the club: users, passwords, sessions, CSRF, login limits, names, bot accounts.

* Passwords are hashed with argon2id (argon2-cffi; its default is the RFC 9106 low-memory
  profile) in a worker thread, never on the event loop; a login re-hashes a password whose
  parameters are out of date (``check_needs_rehash``).
* A session is a random token (``secrets.token_urlsafe(32)``) in the ``bg_session`` cookie
  (HttpOnly, SameSite=Lax, Path=/, Secure over HTTPS); the database keeps only its SHA-256
  hex, for 30 days. Each session has an anti-CSRF token: ``GET /api/me`` hands it to the page,
  which sends it back as ``X-CSRF-Token`` on every state-changing request
  (:func:`require_csrf`); a request whose ``Origin`` names another host is refused too.
* Failed logins are counted in the database (``login_attempts``), so every server process
  sees them: at most 5 failures per name and 20 per address in 10 minutes, then 429.
* Names: 3-20 characters (ASCII letters, digits, ``_ - .``), starting with a letter, unique
  ignoring case, neither a bot's name nor a reserved word.

Writes go through the server's one writer (:meth:`GroupCommit.run`); reads run in a worker
thread. docs/CLUB-DESIGN.md ("Server: accounts") is the contract.

>>> Accounts.check_name("  Ann_1 ")
'Ann_1'
>>> Accounts.check_name("expert")
Traceback (most recent call last):
...
backgammon.server.accounts.AccountError: "expert" is the name of a bot: choose another name
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import math
import random
import re
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Final
from urllib.parse import urlsplit

import anyio
import anyio.to_thread
import sqlalchemy as sa
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError, VerifyMismatchError
from sqlalchemy.engine import Connection
from sqlalchemy.exc import IntegrityError
from starlette.requests import HTTPConnection, Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Route
from starlette.websockets import WebSocket

from ..bots import available
from .rooms import RoomError
from .store import Store, login_attempts_t, seat_users_t, sessions_t, tables_t, users_t
from .writer import GroupCommit

__all__ = [
    "AccountError",
    "Accounts",
    "BANNED_FOREVER",
    "COOKIE",
    "OPENAPI_PATHS",
    "User",
    "current_user",
    "json_object",
    "origin_ok",
    "require_csrf",
    "routes",
    "websocket_origin_ok",
]

log = logging.getLogger("backgammon.server")

#: The session cookie's name.
COOKIE: Final = "bg_session"
#: How long a session lasts.
SESSION_LIFETIME: Final = timedelta(days=30)
#: The header that carries the session's anti-CSRF token.
CSRF_HEADER: Final = "x-csrf-token"
#: Methods that change something: they need the CSRF token when a session cookie comes along.
UNSAFE_METHODS: Final = frozenset({"POST", "PUT", "PATCH", "DELETE"})
#: Login limits: at most this many failures per name / per address within LOGIN_WINDOW.
NAME_FAILURES: Final = 5
ADDRESS_FAILURES: Final = 20
LOGIN_WINDOW: Final = timedelta(minutes=10)
#: Password lengths (characters).
PASSWORD_MIN: Final = 8
PASSWORD_MAX: Final = 200
#: Names: 3-20 characters, a letter first, then letters, digits, "_", "-", ".".
NAME_PATTERN: Final = re.compile(r"[A-Za-z][A-Za-z0-9_.-]{2,19}")
#: Names nobody may take (compared ignoring case, and with a number after them).
RESERVED: Final = frozenset({"spectator", "admin", "moderator", "server", "guest"})
#: ``banned_until`` of a ban for ever (moderation writes it; anything from year 3000 reads
#: as "for ever").
BANNED_FOREVER: Final = datetime(9999, 12, 31, tzinfo=timezone.utc)
#: The most guest seats one registration may claim.
MAX_SEATS: Final = 200
#: The largest JSON body the account routes read.
MAX_BODY: Final = 16_384
#: At most this many password hashes are computed at once (each takes 64 MiB).
HASHING_AT_ONCE: Final = 4
#: One write in this many also sweeps every expired attempt and session.
SWEEP_ONE_IN: Final = 50

_STATIC = Path(__file__).resolve().parent / "static"
_SESSION_KEY = "backgammon.accounts.session"


# -- values ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class User:
    """An account as the server sees it (never its password)."""

    id: int
    name: str
    role: str  # "player" | "moderator" | "bot"
    rating: float
    experience: int
    banned_until: datetime | None

    def to_dict(self) -> dict[str, Any]:
        """What the API shows of the account: ``{"name", "role", "rating", "experience"}``."""
        return {"name": self.name, "role": self.role, "rating": self.rating, "experience": self.experience}

    def banned(self, now: datetime | None = None) -> bool:
        """Whether a ban holds at ``now`` (default: the present)."""
        return self.banned_until is not None and self.banned_until > (now or _now())


class AccountError(RoomError):
    """A refused account request: a sentence for a person, ``status`` its HTTP status (400,
    401, 403, 409, 429), ``retry_after`` the seconds to wait (429 only)."""

    def __init__(self, message: str, status: int = 400, retry_after: int | None = None) -> None:
        super().__init__(message, status)
        self.retry_after = retry_after


def _now() -> datetime:
    return datetime.now(timezone.utc)


def _utc(value: datetime) -> datetime:
    """``value`` as an aware UTC datetime (SQLite hands naive ones back)."""
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


def hash_token(token: str) -> str:
    """What the database keeps of a token: its SHA-256 hex."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def name_key(name: str) -> str:
    """A name as compared: folded case, no surrounding spaces."""
    return name.strip().casefold()


def _user(row: Any) -> User:
    until = None if row.banned_until is None else _utc(row.banned_until)
    return User(int(row.id), row.name, row.role, float(row.rating), int(row.experience), until)


def ban_text(until: datetime, reason: str | None) -> str:
    """The sentence that refuses a banned account's login."""
    when = "for good" if until.year >= 3000 else f"until {until:%Y-%m-%d %H:%M} UTC"
    why = f" ({reason.strip()})" if reason and reason.strip() else ""
    return f"this account is banned {when}{why}; ask a moderator if you think this is a mistake"


def _bot_like(key: str, bots: Sequence[str]) -> str | None:
    """The bot level ``key`` names or imitates ("expert", "expert 2", "Expert_3"), if any."""
    stem = re.sub(r"[\s_.-]*\d+$", "", key)
    for level in bots:
        if key == level.casefold() or stem == level.casefold():
            return level
    return None


# -- the accounts ------------------------------------------------------------------------------


class Accounts:
    """Users, passwords and sessions over ``store``; every write through ``writer``.
    ``hasher`` hashes passwords (argon2id; tests pass a cheap one)."""

    def __init__(self, store: Store, writer: GroupCommit, hasher: PasswordHasher | None = None) -> None:
        self.store = store
        self.writer = writer
        self.hasher = hasher if hasher is not None else PasswordHasher()
        self._limiter: anyio.CapacityLimiter | None = None
        self._dummy: str | None = None

    # -- names and passwords --------------------------------------------------------------

    @staticmethod
    def check_name(name: str) -> str:
        """The cleaned name (spaces around it dropped), or :class:`AccountError` saying
        what is wrong with it."""
        if not isinstance(name, str):
            raise AccountError("send a name: 3-20 letters, digits, \"_\", \"-\" or \".\"")
        name = name.strip()
        if not 3 <= len(name) <= 20:
            raise AccountError(f"a name has 3-20 characters; {name!r} has {len(name)}")
        if not NAME_PATTERN.fullmatch(name):
            raise AccountError(
                f"{name!r} cannot be a name: it must start with a letter and hold only letters "
                "(a-z), digits and \"_\", \"-\" or \".\""
            )
        key = name_key(name)
        bot = _bot_like(key, available())
        if bot is not None:
            raise AccountError(f'"{name}" is the name of a bot: choose another name')
        if _bot_like(key, sorted(RESERVED)) is not None:
            raise AccountError(f'"{name}" is reserved: choose another name')
        return name

    @staticmethod
    def check_password(password: object, name: str) -> str:
        """``password``, or :class:`AccountError` when it is too short, too long or the name."""
        if not isinstance(password, str) or len(password) < PASSWORD_MIN:
            raise AccountError(f"a password has at least {PASSWORD_MIN} characters")
        if len(password) > PASSWORD_MAX:
            raise AccountError(f"a password has at most {PASSWORD_MAX} characters")
        if password.strip().casefold() == name_key(name):
            raise AccountError("the password cannot be your name: choose something others cannot guess")
        return password

    async def _hash(self, password: str) -> str:
        return await anyio.to_thread.run_sync(self.hasher.hash, password, limiter=self._hashing())

    async def _verify(self, stored: str | None, password: str) -> bool:
        """Whether ``password`` matches ``stored`` (a missing account still costs a hash, so
        that the answer's time does not tell which names exist)."""
        if stored is None:
            if self._dummy is None:
                self._dummy = await self._hash(secrets.token_urlsafe(16))
            stored, password = self._dummy, password + "\x00"

        def verify() -> bool:
            try:
                return self.hasher.verify(stored, password)
            except (VerifyMismatchError, VerificationError, InvalidHashError):
                return False

        return await anyio.to_thread.run_sync(verify, limiter=self._hashing())

    def _hashing(self) -> anyio.CapacityLimiter:
        if self._limiter is None:
            self._limiter = anyio.CapacityLimiter(HASHING_AT_ONCE)
        return self._limiter

    async def _read(self, fn: Any, *args: Any) -> Any:
        return await anyio.to_thread.run_sync(fn, *args)

    # -- register, log in, log out ----------------------------------------------------------

    async def register(self, name: str, password: str, ip: str,
                       seats: Sequence[Mapping[str, Any]] = ()) -> tuple[User, str]:
        """A new account and a session for it: the user and the session token. ``seats``
        (``[{"table": id, "token": TOKEN}]``) are guest seats held under the same name that
        become the account's."""
        user, token, _ = await self.register_session(name, password, ip, seats)
        return user, token

    async def register_session(self, name: str, password: str, ip: str,
                               seats: Sequence[Mapping[str, Any]] = ()) -> tuple[User, str, str]:
        """:meth:`register`, with the session's CSRF token too."""
        name = self.check_name(name)
        self.check_password(password, name)
        claims = _claims(seats)
        hashed = await self._hash(password)
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        user: User = await self.writer.run(self._insert_user, name, hashed, token, csrf, claims)
        log.info("account %s registered from %s", user.name, ip)
        return user, token, csrf

    def _insert_user(self, name: str, hashed: str, token: str, csrf: str,
                     claims: list[tuple[str, str]]) -> User:
        now = _now()
        try:
            with self.store.engine.begin() as c:
                result = c.execute(users_t.insert().values(
                    name=name, name_key=name_key(name), password=hashed, role="player", rating=1500.0,
                    experience=0, created=now, banned_until=None, ban_reason=None))
                key = result.inserted_primary_key
                assert key is not None
                user = User(int(key[0]), name, "player", 1500.0, 0, None)
                _add_session(c, user.id, token, csrf, now)
                _claim_seats(c, user, claims)
        except IntegrityError:
            raise AccountError(f'the name "{name}" is taken: choose another', 409) from None
        return user

    async def login(self, name: str, password: str, ip: str) -> tuple[User, str]:
        """A new session for the account: the user and the session token."""
        user, token, _ = await self.login_session(name, password, ip)
        return user, token

    async def login_session(self, name: str, password: str, ip: str) -> tuple[User, str, str]:
        """:meth:`login`, with the session's CSRF token too."""
        if not isinstance(name, str) or not name.strip() or not isinstance(password, str):
            raise AccountError('send your name and password: {"name": "...", "password": "..."}')
        key = name_key(name)[:64]
        keys = {f"name:{key}": NAME_FAILURES, f"ip:{ip}"[:128]: ADDRESS_FAILURES}
        await self._check_limits(keys)
        row = await self._read(self._user_row, key)
        stored = None if row is None else row.password
        if len(password) > PASSWORD_MAX or not await self._verify(stored, password):
            await self.writer.run(self._record, list(keys), False)
            raise AccountError("wrong name or password", 401)
        assert row is not None
        user = _user(row)
        if user.banned():
            assert user.banned_until is not None
            raise AccountError(ban_text(user.banned_until, row.ban_reason), 403)
        rehashed = None
        if self.hasher.check_needs_rehash(row.password):
            rehashed = await self._hash(password)
        token, csrf = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        await self.writer.run(self._open_session, user.id, token, csrf, rehashed, list(keys))
        return user, token, csrf

    def _open_session(self, user_id: int, token: str, csrf: str, rehashed: str | None,
                      keys: list[str]) -> None:
        now = _now()
        with self.store.engine.begin() as c:
            _add_session(c, user_id, token, csrf, now)
            if rehashed is not None:
                c.execute(users_t.update().where(users_t.c.id == user_id).values(password=rehashed))
            for key in keys:
                c.execute(login_attempts_t.insert().values(key=key, at=now, ok=True))
            _sweep(c, keys, now)

    def _record(self, keys: list[str], ok: bool) -> None:
        """Note a login attempt under each of ``keys``; drop those too old to count."""
        now = _now()
        with self.store.engine.begin() as c:
            for key in keys:
                c.execute(login_attempts_t.insert().values(key=key, at=now, ok=ok))
            _sweep(c, keys, now)

    async def _check_limits(self, limits: dict[str, int]) -> None:
        """:class:`AccountError` 429 when a key has had its limit of failures in the window."""
        now = _now()
        failures: dict[str, list[datetime]] = await self._read(self._failures, list(limits), now - LOGIN_WINDOW)
        wait = 0.0
        for key, limit in limits.items():
            times = sorted(failures.get(key, []))
            if len(times) >= limit:  # the oldest that must age out before one more is allowed
                wait = max(wait, (times[len(times) - limit] + LOGIN_WINDOW - now).total_seconds())
        if wait > 0:
            seconds = max(1, math.ceil(wait))
            minutes = max(1, math.ceil(seconds / 60))
            raise AccountError(
                f"too many failed logins: try again in {minutes} minute{'s' if minutes > 1 else ''}",
                429, retry_after=seconds)

    def _failures(self, keys: list[str], since: datetime) -> dict[str, list[datetime]]:
        query = sa.select(login_attempts_t.c.key, login_attempts_t.c.at).where(
            login_attempts_t.c.key.in_(keys), login_attempts_t.c.at > since,
            login_attempts_t.c.ok.is_(False))
        out: dict[str, list[datetime]] = {}
        with self.store.engine.connect() as c:
            for row in c.execute(query):
                out.setdefault(row.key, []).append(_utc(row.at))
        return out

    async def logout(self, token: str) -> None:
        """End the session of ``token`` (nothing happens for an unknown one)."""
        await self.writer.run(self._delete_session, hash_token(token))

    def _delete_session(self, session_id: str) -> None:
        with self.store.engine.begin() as c:
            c.execute(sessions_t.delete().where(sessions_t.c.id == session_id))

    async def change_password(self, user: User, old: str, new: str, keep: str | None = None) -> None:
        """Set a new password after checking the old one; every session of the account but
        ``keep`` (a session token: the one that asked) ends."""
        if not isinstance(old, str) or not isinstance(new, str):
            raise AccountError('send {"old": "current password", "new": "new password"}')
        self.check_password(new, user.name)
        keys = {f"name:{name_key(user.name)}": NAME_FAILURES}
        await self._check_limits(keys)
        row = await self._read(self._user_row, name_key(user.name))
        if row is None or row.id != user.id:
            raise AccountError("this account no longer exists", 404)
        if len(old) > PASSWORD_MAX or not await self._verify(row.password, old):
            await self.writer.run(self._record, list(keys), False)
            raise AccountError("the current password is not right: nothing changed", 403)
        hashed = await self._hash(new)
        await self.writer.run(self._set_password, user.id, hashed, None if keep is None else hash_token(keep))

    def _set_password(self, user_id: int, hashed: str, keep: str | None) -> None:
        with self.store.engine.begin() as c:
            c.execute(users_t.update().where(users_t.c.id == user_id).values(password=hashed))
            others = sessions_t.delete().where(sessions_t.c.user_id == user_id)
            if keep is not None:
                others = others.where(sessions_t.c.id != keep)
            c.execute(others)

    # -- reads ----------------------------------------------------------------------------------

    async def user_of_session(self, token: str | None) -> tuple[User, str] | None:
        """The account and CSRF token of the session ``token``; ``None`` for no token, an
        unknown or expired session, or a banned account."""
        if not token or len(token) > 256:
            return None
        found: tuple[User, str] | None = await self._read(self._session_row, hash_token(token), _now())
        return found

    def _session_row(self, session_id: str, now: datetime) -> tuple[User, str] | None:
        query = (
            sa.select(users_t, sessions_t.c.csrf)
            .join(sessions_t, sessions_t.c.user_id == users_t.c.id)
            .where(sessions_t.c.id == session_id, sessions_t.c.expires > now)
        )
        with self.store.engine.connect() as c:
            row = c.execute(query).first()
        if row is None:
            return None
        user = _user(row)
        if user.banned(now):
            return None
        return user, str(row.csrf)

    async def by_name(self, name: str) -> User | None:
        """The account called ``name`` (ignoring case), or ``None``."""
        if not isinstance(name, str) or not name.strip():
            return None
        row = await self._read(self._user_row, name_key(name))
        return None if row is None else _user(row)

    def _user_row(self, key: str) -> Any:
        with self.store.engine.connect() as c:
            return c.execute(sa.select(users_t).where(users_t.c.name_key == key)).first()

    # -- bots -----------------------------------------------------------------------------------

    async def ensure_bots(self) -> None:
        """An account (role "bot", no password) for every bot level; idempotent, and safe
        when several server processes run it at once."""
        await self.writer.run(self._insert_bots, available())

    def _insert_bots(self, levels: list[str]) -> None:
        with self.store.engine.connect() as c:
            rows = {r.name_key: r.role for r in c.execute(
                sa.select(users_t.c.name_key, users_t.c.role).where(
                    users_t.c.name_key.in_([lvl.casefold() for lvl in levels])))}
        for level in levels:
            role = rows.get(level.casefold())
            if role is not None:
                if role != "bot":
                    log.warning("the account %r is not a bot's (role %s): bot %s plays unrated", level, role, level)
                continue
            try:
                with self.store.engine.begin() as c:
                    c.execute(users_t.insert().values(
                        name=level, name_key=level.casefold(), password=None, role="bot", rating=1500.0,
                        experience=0, created=_now(), banned_until=None, ban_reason=None))
            except IntegrityError:  # another process made it meanwhile
                pass


# -- writes inside a transaction -------------------------------------------------------------


def _add_session(c: Connection, user_id: int, token: str, csrf: str, now: datetime) -> None:
    c.execute(sessions_t.insert().values(
        id=hash_token(token), user_id=user_id, csrf=csrf, created=now, expires=now + SESSION_LIFETIME))


def _sweep(c: Connection, keys: list[str], now: datetime) -> None:
    """Delete the attempts of ``keys`` too old to count; now and then every old attempt and
    every expired session."""
    old = now - LOGIN_WINDOW
    c.execute(login_attempts_t.delete().where(login_attempts_t.c.key.in_(keys), login_attempts_t.c.at < old))
    if random.randrange(SWEEP_ONE_IN) == 0:
        c.execute(login_attempts_t.delete().where(login_attempts_t.c.at < old))
        c.execute(sessions_t.delete().where(sessions_t.c.expires < now))


def _claims(seats: object) -> list[tuple[str, str]]:
    """``[(table id, token hash)]`` of a registration's ``seats``, or :class:`AccountError`."""
    if seats is None:
        return []
    shape = 'seats are [{"table": ID, "token": TOKEN}, ...]'
    if not isinstance(seats, (list, tuple)):
        raise AccountError(shape)
    if len(seats) > MAX_SEATS:
        raise AccountError(f"at most {MAX_SEATS} seats can be claimed at once")
    out = []
    for seat in seats:
        if not isinstance(seat, Mapping):
            raise AccountError(shape)
        table, token = seat.get("table"), seat.get("token")
        if not isinstance(table, str) or not isinstance(token, str) or len(table) > 32 or len(token) > 256:
            raise AccountError(shape)
        out.append((table, hash_token(token)))
    return out


def _claim_seats(c: Connection, user: User, claims: list[tuple[str, str]]) -> None:
    """Make the account hold each claimed seat whose token matches and whose name is the
    account's (ignoring case); other claims are passed over."""
    key = name_key(user.name)
    for table_id, token_hash in claims:
        tokens = c.execute(sa.select(tables_t.c.tokens).where(tables_t.c.id == table_id)).scalar()
        if not isinstance(tokens, dict):
            continue
        for seat, stored in tokens.items():
            if not (isinstance(stored, str) and hmac.compare_digest(stored, token_hash)):
                continue
            if name_key(seat) != key:
                continue
            held = c.execute(sa.select(seat_users_t.c.user_id).where(
                seat_users_t.c.table_id == table_id, seat_users_t.c.seat == seat)).scalar()
            if held is None:
                c.execute(seat_users_t.insert().values(table_id=table_id, seat=seat, user_id=user.id))


# -- requests: the session, CSRF, origins ----------------------------------------------------


def _accounts(conn: HTTPConnection) -> Accounts:
    accounts: Accounts = conn.app.state.accounts
    return accounts


async def current_session(conn: HTTPConnection) -> tuple[User, str] | None:
    """The account and CSRF token of the request's session cookie (looked up once per
    request), or ``None``."""
    if _SESSION_KEY not in conn.scope:
        token = conn.cookies.get(COOKIE)
        conn.scope[_SESSION_KEY] = None if not token else await _accounts(conn).user_of_session(token)
    found: tuple[User, str] | None = conn.scope[_SESSION_KEY]
    return found


async def current_user(conn: HTTPConnection) -> User | None:
    """The account of the request's (or WebSocket's) session cookie, or ``None``: a guest."""
    found = await current_session(conn)
    return None if found is None else found[0]


def _host(value: str) -> str:
    """A host as compared: lower case, without the default port of its scheme."""
    value = value.strip().lower()
    for port in (":80", ":443"):
        if value.endswith(port):
            return value[: -len(port)]
    return value


def origin_ok(conn: HTTPConnection) -> bool:
    """False when an ``Origin`` header names another host than the request's ``Host`` (or
    ``X-Forwarded-Host``, set by a reverse proxy)."""
    origin = conn.headers.get("origin")
    if origin is None:
        return True
    try:
        netloc = urlsplit(origin).netloc
    except ValueError:
        return False
    if not netloc:  # "null": a sandboxed frame, a file, a redirect across sites
        return False
    hosts = {_host(h) for h in (conn.headers.get("host"), conn.headers.get("x-forwarded-host")) if h}
    return _host(netloc) in hosts


def _refuse_origin(conn: HTTPConnection) -> None:
    if not origin_ok(conn):
        raise AccountError(
            "this request came from another site (its Origin is not this server), so it was "
            "refused; use the club's own pages", 403)


async def require_csrf(request: Request) -> None:
    """Refuse (:class:`AccountError` 403) a state-changing request from another site, or one
    that carries a live session cookie without its ``X-CSRF-Token``."""
    if request.method not in UNSAFE_METHODS:
        return
    _refuse_origin(request)
    found = await current_session(request)
    if found is None:  # a guest (or a stale cookie): nothing to act for
        return
    sent = request.headers.get(CSRF_HEADER, "")
    if not hmac.compare_digest(sent.encode("utf-8"), found[1].encode("utf-8")):
        raise AccountError(
            "this request lacks the session's X-CSRF-Token header (see GET /api/me), so it was "
            "refused; reload the page and try again", 403)


def websocket_origin_ok(websocket: WebSocket) -> bool:
    """Whether a WebSocket may go on: one that carries a session cookie must come from a page
    of this host (``Origin``); without a cookie it acts as a guest and may."""
    if not websocket.cookies.get(COOKIE):
        return True
    return origin_ok(websocket)


def _secure(request: Request) -> bool:
    forwarded = request.headers.get("x-forwarded-proto", "").split(",")[0].strip().lower()
    return request.url.scheme == "https" or forwarded == "https"


def _set_cookie(response: Response, request: Request, token: str) -> None:
    response.set_cookie(COOKIE, token, max_age=int(SESSION_LIFETIME.total_seconds()), path="/",
                        secure=_secure(request), httponly=True, samesite="lax")


def _address(request: Request) -> str:
    return request.client.host if request.client is not None else "unknown"


# -- routes -----------------------------------------------------------------------------------


def _error(exc: RoomError) -> JSONResponse:
    headers = {"Cache-Control": "no-store"}
    retry = getattr(exc, "retry_after", None)
    if retry is not None:
        headers["Retry-After"] = str(retry)
    return JSONResponse({"error": str(exc)}, status_code=exc.status, headers=headers)


def _answer(user: User | None, csrf: str | None) -> JSONResponse:
    return JSONResponse({"user": None if user is None else user.to_dict(), "csrf": csrf},
                        headers={"Cache-Control": "no-store"})


async def json_object(request: Request) -> dict[str, Any]:
    """The request's JSON object body (``{}`` when empty); :class:`AccountError` (400, or 413
    past :data:`MAX_BODY` bytes) with a sentence otherwise. The club's JSON routes read their
    bodies with it."""
    raw = await request.body()
    if len(raw) > MAX_BODY:
        raise AccountError(f"a request body is at most {MAX_BODY} bytes", 413)
    try:
        body = json.loads(raw) if raw else {}
    except ValueError:
        raise AccountError("the request body must be JSON") from None
    if not isinstance(body, dict):
        raise AccountError("the request body must be a JSON object")
    return body


def _handles_errors(handler: Any) -> Any:
    async def wrapped(request: Request) -> Response:
        try:
            response: Response = await handler(request)
            return response
        except RoomError as exc:
            return _error(exc)

    wrapped.__doc__, wrapped.__name__ = handler.__doc__, handler.__name__
    return wrapped


async def _end_previous(request: Request) -> None:
    """A new session replaces the one the browser held (if any): that one ends."""
    token = request.cookies.get(COOKIE)
    if token:
        await _accounts(request).logout(token)


@_handles_errors
async def register_route(request: Request) -> Response:
    """``POST /api/register`` ``{"name", "password", "seats"?}``: a new account, logged in."""
    _refuse_origin(request)
    body = await json_object(request)
    user, token, csrf = await _accounts(request).register_session(
        body.get("name", ""), body.get("password", ""), _address(request), body.get("seats") or ())
    await _end_previous(request)
    response = _answer(user, csrf)
    _set_cookie(response, request, token)
    return response


@_handles_errors
async def login_route(request: Request) -> Response:
    """``POST /api/login`` ``{"name", "password"}``: a new session."""
    _refuse_origin(request)
    body = await json_object(request)
    user, token, csrf = await _accounts(request).login_session(
        body.get("name", ""), body.get("password", ""), _address(request))
    await _end_previous(request)
    response = _answer(user, csrf)
    _set_cookie(response, request, token)
    return response


@_handles_errors
async def logout_route(request: Request) -> Response:
    """``POST /api/logout``: end this session."""
    await require_csrf(request)
    token = request.cookies.get(COOKIE)
    if token:
        await _accounts(request).logout(token)
    response = _answer(None, None)
    response.delete_cookie(COOKIE, path="/", secure=_secure(request), httponly=True, samesite="lax")
    return response


@_handles_errors
async def password_route(request: Request) -> Response:
    """``POST /api/password`` ``{"old", "new"}``: change the password; other sessions end."""
    await require_csrf(request)
    found = await current_session(request)
    if found is None:
        raise AccountError("log in first: only a logged-in account can change its password", 401)
    body = await json_object(request)
    await _accounts(request).change_password(found[0], body.get("old", ""), body.get("new", ""),
                                             keep=request.cookies.get(COOKIE))
    return _answer(*found)


@_handles_errors
async def me_route(request: Request) -> Response:
    """``GET /api/me``: ``{"user": ... | null, "csrf": ... | null}``."""
    found = await current_session(request)
    return _answer(None, None) if found is None else _answer(*found)


async def login_page(request: Request) -> Response:
    """``GET /login``: the page to log in, register and change the password."""
    path = _STATIC / "login.html"
    if not path.is_file():
        return PlainTextResponse("login.html is not there yet", status_code=404)
    return FileResponse(path, media_type="text/html")


def routes() -> list[Route]:
    """The account routes (the application mounts them)."""
    return [
        Route("/login", login_page),
        Route("/api/register", register_route, methods=["POST"]),
        Route("/api/login", login_route, methods=["POST"]),
        Route("/api/logout", logout_route, methods=["POST"]),
        Route("/api/password", password_route, methods=["POST"]),
        Route("/api/me", me_route, methods=["GET"]),
    ]


# -- the OpenAPI description (merged into openapi.py) ----------------------------------------


def _json(schema: dict[str, Any], description: str) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _body_schema(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": {
        "type": "object", "properties": properties, "required": required}}}}


_USER = {"type": "object", "required": ["name", "role", "rating", "experience"], "properties": {
    "name": {"type": "string"}, "role": {"type": "string", "enum": ["player", "moderator", "bot"]},
    "rating": {"type": "number"}, "experience": {"type": "integer"}}}
_ME = {"type": "object", "required": ["user", "csrf"], "properties": {
    "user": {"oneOf": [_USER, {"type": "null"}]},
    "csrf": {"type": ["string", "null"], "description": "send it back as X-CSRF-Token on every POST"}}}
_ERR = {"type": "object", "required": ["error"], "properties": {"error": {"type": "string"}}}
_COOKIE_NOTE = "sets the bg_session cookie (HttpOnly, SameSite=Lax; Secure over HTTPS; 30 days)"
_PASSWORD = {"type": "string", "minLength": PASSWORD_MIN, "maxLength": PASSWORD_MAX}
_NAME = {"type": "string", "minLength": 3, "maxLength": 20, "pattern": "^[A-Za-z][A-Za-z0-9_.-]*$"}
_CSRF_PARAM = {"name": "X-CSRF-Token", "in": "header", "required": False, "schema": {"type": "string"},
               "description": "the session's csrf (GET /api/me); needed with a session cookie"}

#: The account endpoints in OpenAPI 3.1 form (``paths`` entries).
OPENAPI_PATHS: dict[str, Any] = {
    "/api/register": {"post": {
        "summary": "make an account and log in",
        "operationId": "register",
        "requestBody": _body_schema({
            "name": _NAME, "password": _PASSWORD,
            "seats": {"type": "array", "maxItems": MAX_SEATS, "description":
                      "guest seats held under the same name that become the account's",
                      "items": {"type": "object", "required": ["table", "token"], "properties": {
                          "table": {"type": "string"}, "token": {"type": "string"}}}}},
            ["name", "password"]),
        "responses": {
            "200": _json(_ME, f"the new account; {_COOKIE_NOTE}"),
            "400": _json(_ERR, "the name or password is not allowed (the sentence says why)"),
            "403": _json(_ERR, "the request came from another site"),
            "409": _json(_ERR, "the name is taken"),
        },
    }},
    "/api/login": {"post": {
        "summary": "log in",
        "operationId": "login",
        "requestBody": _body_schema({"name": {"type": "string"}, "password": {"type": "string"}},
                                    ["name", "password"]),
        "responses": {
            "200": _json(_ME, f"logged in; {_COOKIE_NOTE}"),
            "401": _json(_ERR, "wrong name or password"),
            "403": _json(_ERR, "the account is banned (until when and why), or another site sent it"),
            "429": {**_json(_ERR, "too many failed logins (5 per name, 20 per address in 10 minutes)"),
                    "headers": {"Retry-After": {"description": "seconds to wait",
                                                "schema": {"type": "integer"}}}},
        },
    }},
    "/api/logout": {"post": {
        "summary": "log out (end this session)",
        "operationId": "logout",
        "parameters": [_CSRF_PARAM],
        "responses": {
            "200": _json(_ME, "logged out (user and csrf are null); the cookie is cleared"),
            "403": _json(_ERR, "the X-CSRF-Token header is missing or wrong"),
        },
    }},
    "/api/password": {"post": {
        "summary": "change the password; the account's other sessions end",
        "operationId": "changePassword",
        "parameters": [_CSRF_PARAM],
        "requestBody": _body_schema({"old": {"type": "string"}, "new": _PASSWORD}, ["old", "new"]),
        "responses": {
            "200": _json(_ME, "changed"),
            "400": _json(_ERR, "the new password is not allowed"),
            "401": _json(_ERR, "not logged in"),
            "403": _json(_ERR, "the current password is wrong, or the X-CSRF-Token header is"),
            "429": _json(_ERR, "too many wrong passwords"),
        },
    }},
    "/api/me": {"get": {
        "summary": "the logged-in account and the session's CSRF token",
        "operationId": "me",
        "responses": {"200": _json(_ME, "the account (null for a guest) and csrf (null without a session)")},
    }},
}
