"""Accounts of the club (backgammon.server.accounts): registering, logging in and out, the
session cookie, CSRF and Origin checks, login limits across server processes, name and
password rules, bans, bot accounts and guest seats claimed on registering; over SQLite and
the real PostgreSQL, through the HTTP routes (Starlette's TestClient) and directly."""

from __future__ import annotations

import asyncio
import hashlib
import threading
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager, contextmanager
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any, Literal, TypeVar

import pytest
import sqlalchemy as sa
from argon2 import PasswordHasher, Type, profiles
from openapi_spec_validator import validate
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route, WebSocketRoute
from starlette.testclient import TestClient
from starlette.websockets import WebSocket

from backgammon.bots import available
from backgammon.server import accounts as accounts_module
from backgammon.server.accounts import (
    COOKIE,
    OPENAPI_PATHS,
    AccountError,
    Accounts,
    User,
    current_user,
    require_csrf,
    routes,
    websocket_origin_ok,
)
from backgammon.server.openapi import OPENAPI
from backgammon.server.rooms import RoomError
from backgammon.server.store import (
    Store,
    TableRecord,
    login_attempts_t,
    seat_users_t,
    sessions_t,
    users_t,
)
from backgammon.server.writer import GroupCommit

from .test_store import pg_url, url  # noqa: F401  (fixtures)

T = TypeVar("T")

#: A cheap argon2id hasher: the tests hash many passwords on a small machine.
CHEAP = PasswordHasher.from_parameters(profiles.CHEAPEST)
PASSWORD = "correct horse battery"


# -- the application under test ----------------------------------------------------------------


async def echo(request: Request) -> Response:
    """A state-changing route of another module: it checks CSRF, then says who asked."""
    await require_csrf(request)
    user = await current_user(request)
    return JSONResponse({"user": None if user is None else user.name})


def _guarded(handler: Callable[[Request], Awaitable[Response]]) -> Callable[[Request], Awaitable[Response]]:
    async def wrapped(request: Request) -> Response:
        try:
            return await handler(request)
        except RoomError as exc:  # what app.py does with every RoomError
            return JSONResponse({"error": str(exc)}, status_code=exc.status)

    return wrapped


async def socket(websocket: WebSocket) -> None:
    await websocket.accept()
    user = await current_user(websocket)
    await websocket.send_json({"ok": websocket_origin_ok(websocket), "user": None if user is None else user.name})
    await websocket.close()


def make_app(database: str, hasher: PasswordHasher = CHEAP) -> Starlette:
    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        store = Store(database)
        writer = GroupCommit(store)
        app.state.accounts = Accounts(store, writer, hasher)
        app.state.store = store
        try:
            yield
        finally:
            writer.close()
            store.close()

    extra = [Route("/api/echo", _guarded(echo), methods=["GET", "POST"]), WebSocketRoute("/ws/echo", socket)]
    return Starlette(routes=routes() + extra, lifespan=lifespan)


@pytest.fixture
def client(url: str) -> Iterator[TestClient]:  # noqa: F811
    with TestClient(make_app(url)) as c:
        yield c


def store_of(client: TestClient) -> Store:
    store: Store = client.app.state.store  # type: ignore[attr-defined]
    return store


def register(client: TestClient, name: str = "ann", password: str = PASSWORD, **more: Any) -> Any:
    return client.post("/api/register", json={"name": name, "password": password, **more})


def login(client: TestClient, name: str = "ann", password: str = PASSWORD, **headers: str) -> Any:
    return client.post("/api/login", json={"name": name, "password": password}, headers=headers)


def me(client: TestClient, token: str | None) -> Any:
    client.cookies.clear()
    if token is not None:
        client.cookies.set(COOKIE, token)
    return client.get("/api/me").json()


def set_cookie_header(response: Any) -> str:
    headers = [v for k, v in response.headers.multi_items() if k.lower() == "set-cookie"]
    assert len(headers) == 1, headers
    return str(headers[0])


@contextmanager
def accounts_on(database: str, hasher: PasswordHasher = CHEAP) -> Iterator[Accounts]:
    """An Accounts object with its own store and writer: one server process."""
    store = Store(database)
    writer = GroupCommit(store)
    try:
        yield Accounts(store, writer, hasher)
    finally:
        writer.close()
        store.close()


def run(awaitable: Awaitable[T]) -> T:
    async def main() -> T:
        return await awaitable

    return asyncio.run(main())


def rows(store: Store, table: sa.Table) -> list[Any]:
    with store.engine.connect() as c:
        return list(c.execute(sa.select(table)))


# -- register, log in, log out ------------------------------------------------------------------


def test_register_login_logout_and_me(client: TestClient) -> None:
    assert client.get("/api/me").json() == {"user": None, "csrf": None}
    answer = register(client, "Ann")
    assert answer.status_code == 200, answer.text
    body = answer.json()
    assert body["user"] == {"name": "Ann", "role": "player", "rating": 1500.0, "experience": 0}
    assert isinstance(body["csrf"], str) and len(body["csrf"]) >= 40
    assert client.get("/api/me").json() == body                     # the cookie is the session
    assert client.get("/api/me").headers["cache-control"] == "no-store"

    out = client.post("/api/logout", headers={"X-CSRF-Token": body["csrf"]})
    assert out.status_code == 200 and out.json() == {"user": None, "csrf": None}
    assert 'bg_session=""' in set_cookie_header(out) or "Max-Age=0" in set_cookie_header(out)
    assert client.get("/api/me").json() == {"user": None, "csrf": None}

    again = login(client, "ANN")                                     # names ignore case
    assert again.status_code == 200 and again.json()["user"]["name"] == "Ann"
    assert again.json()["csrf"] != body["csrf"]                      # a new session, a new token
    assert client.get("/api/me").json()["user"]["name"] == "Ann"
    assert len(rows(store_of(client), sessions_t)) == 1


def test_a_new_login_ends_the_session_the_browser_held(client: TestClient) -> None:
    register(client)
    first = client.cookies[COOKIE]
    assert login(client).status_code == 200          # the browser still sends the first cookie
    second = client.cookies[COOKIE]
    assert second != first
    assert me(client, first)["user"] is None and me(client, second)["user"]["name"] == "ann"
    assert len(rows(store_of(client), sessions_t)) == 1


def test_logout_deletes_the_session_itself(client: TestClient) -> None:
    register(client)
    token = client.cookies[COOKIE]
    csrf = client.get("/api/me").json()["csrf"]
    client.post("/api/logout", headers={"X-CSRF-Token": csrf})
    assert rows(store_of(client), sessions_t) == []
    assert me(client, token)["user"] is None                         # a kept copy of the cookie is dead


def test_a_wrong_password_and_an_unknown_name_get_the_same_answer(client: TestClient) -> None:
    register(client)
    client.cookies.clear()
    wrong = login(client, "ann", "not the password")
    unknown = login(client, "nobody", PASSWORD)
    assert wrong.status_code == unknown.status_code == 401
    assert wrong.json() == unknown.json() == {"error": "wrong name or password"}
    assert COOKIE not in client.cookies


def test_the_name_is_taken_ignoring_case(client: TestClient) -> None:
    assert register(client, "Ann").status_code == 200
    taken = register(client, "aNN")
    assert taken.status_code == 409 and "taken" in taken.json()["error"]


def test_a_missing_or_odd_body_is_refused_with_a_sentence(client: TestClient) -> None:
    assert client.post("/api/login", content=b"{not json").status_code == 400
    assert client.post("/api/login", json=[1, 2]).json() == {"error": "the request body must be a JSON object"}
    assert "name and password" in client.post("/api/login", json={}).json()["error"]
    assert client.post("/api/register", json={"name": "ann", "password": 12345678}).status_code == 400
    assert client.post("/api/register", json={"name": "ann", "password": PASSWORD, "seats": "x"}).status_code == 400
    assert client.post("/api/register", content=b"x" * 20_000).status_code == 413


# -- the cookie ---------------------------------------------------------------------------------


def _attributes(header: str) -> dict[str, str]:
    parts = [p.strip() for p in header.split(";")]
    out = {}
    for part in parts[1:]:
        key, _, value = part.partition("=")
        out[key.lower()] = value
    return out


def test_the_cookie_is_httponly_lax_rooted_for_30_days_and_not_secure_over_http(client: TestClient) -> None:
    answer = register(client)
    header = set_cookie_header(answer)
    assert header.startswith(f"{COOKIE}=")
    attributes = _attributes(header)
    assert "httponly" in attributes
    assert attributes["samesite"].lower() == "lax"
    assert attributes["path"] == "/"
    assert attributes["max-age"] == str(30 * 24 * 3600)
    assert "secure" not in attributes


def test_the_cookie_is_secure_behind_an_https_proxy(client: TestClient) -> None:
    register(client)
    client.cookies.clear()
    answer = login(client, **{"X-Forwarded-Proto": "https"})
    assert answer.status_code == 200
    assert "secure" in _attributes(set_cookie_header(answer))


def test_the_cookie_is_secure_over_https(tmp_path: Path) -> None:
    with TestClient(make_app(f"sqlite:///{tmp_path}/club.sqlite3"), base_url="https://testserver") as client:
        answer = register(client)
        assert "secure" in _attributes(set_cookie_header(answer))
        assert client.get("/api/me").json()["user"]["name"] == "ann"   # and the browser sends it back


# -- CSRF and Origin ----------------------------------------------------------------------------


def test_a_post_with_the_session_cookie_needs_the_csrf_header(client: TestClient) -> None:
    csrf = register(client).json()["csrf"]
    refused = client.post("/api/echo")
    assert refused.status_code == 403
    assert "X-CSRF-Token" in refused.json()["error"]
    assert client.post("/api/echo", headers={"X-CSRF-Token": ("y" if csrf[0] == "x" else "x") + csrf[1:]}).status_code == 403
    assert client.post("/api/logout").status_code == 403               # logging out needs it too
    assert client.get("/api/me").json()["user"]["name"] == "ann"      # ... so the session lives on
    accepted = client.post("/api/echo", headers={"X-CSRF-Token": csrf})
    assert accepted.status_code == 200 and accepted.json() == {"user": "ann"}
    assert client.get("/api/echo").json() == {"user": "ann"}           # reading needs no token


def test_a_guest_or_a_dead_session_needs_no_csrf_header(client: TestClient) -> None:
    assert client.post("/api/echo").json() == {"user": None}
    client.cookies.set(COOKIE, "a-session-that-ended")
    assert client.post("/api/echo").json() == {"user": None}


@pytest.mark.parametrize("origin", ["http://evil.example", "http://testserver.evil.example", "null",
                                    "https://testserver:8443"])
def test_a_request_from_another_origin_is_refused(client: TestClient, origin: str) -> None:
    csrf = register(client).json()["csrf"]
    for response in (
        client.post("/api/echo", headers={"X-CSRF-Token": csrf, "Origin": origin}),
        client.post("/api/login", json={"name": "ann", "password": PASSWORD}, headers={"Origin": origin}),
        client.post("/api/register", json={"name": "bob", "password": PASSWORD}, headers={"Origin": origin}),
    ):
        assert response.status_code == 403, response.text
        assert "another site" in response.json()["error"]
    client.cookies.clear()
    assert client.post("/api/echo", headers={"Origin": origin}).status_code == 403   # guests too


def test_a_request_from_this_origin_passes(client: TestClient) -> None:
    answer = client.post("/api/register", json={"name": "ann", "password": PASSWORD},
                         headers={"Origin": "http://testserver"})
    assert answer.status_code == 200
    csrf = answer.json()["csrf"]
    assert client.post("/api/echo", headers={"X-CSRF-Token": csrf, "Origin": "http://testserver"}).status_code == 200
    # behind a reverse proxy that rewrites Host but says which host was asked for
    proxied = {"X-CSRF-Token": csrf, "Origin": "https://club.example", "Host": "127.0.0.1:8000",
               "X-Forwarded-Host": "club.example"}
    assert client.post("/api/echo", headers=proxied).status_code == 200


def test_a_websocket_with_a_session_must_come_from_this_origin(client: TestClient) -> None:
    with client.websocket_connect("/ws/echo", headers={"Origin": "http://evil.example"}) as ws:
        assert ws.receive_json() == {"ok": True, "user": None}          # a guest: nothing to steal
    register(client)
    with client.websocket_connect("/ws/echo", headers={"Origin": "http://evil.example"}) as ws:
        assert ws.receive_json()["ok"] is False
    with client.websocket_connect("/ws/echo", headers={"Origin": "http://testserver"}) as ws:
        assert ws.receive_json() == {"ok": True, "user": "ann"}


# -- login limits -------------------------------------------------------------------------------


def test_the_sixth_failure_for_a_name_is_refused_for_a_while(client: TestClient) -> None:
    register(client)
    register(client, "bob")
    client.cookies.clear()
    for _ in range(5):
        assert login(client, "ann", "wrong password").status_code == 401
    limited = login(client, "ann", "wrong password")
    assert limited.status_code == 429
    assert "too many failed logins" in limited.json()["error"]
    assert 590 <= int(limited.headers["Retry-After"]) <= 600
    assert login(client, "Ann", PASSWORD).status_code == 429           # even the right password waits
    assert login(client, "bob", PASSWORD).status_code == 200           # another name is not affected


def test_login_limits_hold_across_server_processes(url: str) -> None:  # noqa: F811
    with accounts_on(url) as one, accounts_on(url) as two:
        run(one.register("ann", PASSWORD, "10.0.0.1"))
        for i in range(5):
            with pytest.raises(AccountError) as wrong:
                run((one if i % 2 else two).login("ann", "wrong password", f"10.0.0.{i}"))
            assert wrong.value.status == 401
        for process in (one, two):
            with pytest.raises(AccountError) as limited:
                run(process.login("ann", PASSWORD, "10.9.9.9"))
            assert limited.value.status == 429 and limited.value.retry_after is not None
            assert isinstance(limited.value, RoomError)


def test_twenty_failures_from_one_address_stop_it(url: str) -> None:  # noqa: F811
    with accounts_on(url) as accounts:
        run(accounts.register("zed", PASSWORD, "10.0.0.1"))
        for i in range(20):
            with pytest.raises(AccountError) as wrong:
                run(accounts.login(f"name{i % 4}", "wrong password", "10.0.0.66"))
            assert wrong.value.status == 401
        with pytest.raises(AccountError) as limited:
            run(accounts.login("zed", PASSWORD, "10.0.0.66"))
        assert limited.value.status == 429
        user, token = run(accounts.login("zed", PASSWORD, "10.0.0.67"))   # another address may
        assert user.name == "zed" and token


def test_only_the_last_ten_minutes_count_and_retry_after_says_when(url: str) -> None:  # noqa: F811
    with accounts_on(url) as accounts:
        run(accounts.register("ann", PASSWORD, "10.0.0.1"))
        now = datetime.now(timezone.utc)
        with accounts.store.engine.begin() as c:
            for minutes in (30, 20, 11):  # too old to count
                c.execute(login_attempts_t.insert().values(key="name:ann", at=now - timedelta(minutes=minutes), ok=False))
            for seconds in (570, 300, 200, 100, 10):  # five within the window, the oldest 9.5 minutes ago
                c.execute(login_attempts_t.insert().values(key="name:ann", at=now - timedelta(seconds=seconds), ok=False))
        with pytest.raises(AccountError) as limited:
            run(accounts.login("ann", PASSWORD, "10.0.0.1"))
        assert limited.value.status == 429
        assert limited.value.retry_after is not None and 25 <= limited.value.retry_after <= 31
        assert "1 minute" in str(limited.value)
        # a failure elsewhere sweeps this name's attempts too old to count
        with accounts.store.engine.begin() as c:
            c.execute(login_attempts_t.delete().where(login_attempts_t.c.at > now - timedelta(seconds=400)))
        with pytest.raises(AccountError):
            run(accounts.login("ann", "wrong password", "10.0.0.1"))
        left = sorted(r.at for r in rows(accounts.store, login_attempts_t) if r.key == "name:ann")
        assert len(left) == 2  # the one 570 s ago and the new failure; the three old ones are gone


# -- names and passwords ----------------------------------------------------------------------


@pytest.mark.parametrize("name", ["ann", "Ann", "ann_1", "a.b-c", "Zoe99", "a" * 20, "  bob  ", "Guesthouse",
                                  "experts", "randomly"])
def test_good_names(name: str) -> None:
    assert Accounts.check_name(name) == name.strip()


@pytest.mark.parametrize("name", ["ab", "a" * 21, "1ann", "_ann", ".ann", "ann bob", "ann!", "änn", "an\nn",
                                  "", "  ", "expert", "Expert", "expert 2", "expert2", "expert_2", "GrandMaster",
                                  "random", "pubeval", "spectator", "Admin", "moderator", "server", "guest",
                                  "guest7"])
def test_bad_names(name: str) -> None:
    with pytest.raises(AccountError) as refused:
        Accounts.check_name(name)
    assert refused.value.status == 400
    assert len(str(refused.value)) > 20   # a sentence a person can act on


def test_every_bot_level_and_its_numbered_seats_are_refused() -> None:
    for level in available():
        for name in (level, level.upper(), f"{level}2", f"{level}-3"):
            with pytest.raises(AccountError, match="bot"):
                Accounts.check_name(name)


def test_a_bad_name_is_refused_by_the_route(client: TestClient) -> None:
    answer = register(client, "expert")
    assert answer.status_code == 400 and "bot" in answer.json()["error"]
    assert rows(store_of(client), users_t) == []


@pytest.mark.parametrize(("password", "why"), [("short12", "at least 8"), ("x" * 201, "at most 200"),
                                               ("annabel1", "your name"), ("ANNABEL1", "your name")])
def test_bad_passwords(client: TestClient, password: str, why: str) -> None:
    answer = register(client, "annabel1", password)
    assert answer.status_code == 400 and why in answer.json()["error"]


def test_a_password_of_8_and_of_200_characters_is_taken(client: TestClient) -> None:
    assert register(client, "ann", "12345678").status_code == 200
    assert register(client, "bob", "y" * 200).status_code == 200


def test_the_password_is_stored_as_argon2id_and_the_token_never_in_clear(client: TestClient) -> None:
    register(client)
    token = client.cookies[COOKIE]
    store = store_of(client)
    (user,) = rows(store, users_t)
    assert user.password.startswith("$argon2id$") and PASSWORD not in user.password
    assert CHEAP.verify(user.password, PASSWORD)
    (session,) = rows(store, sessions_t)
    assert session.id == hashlib.sha256(token.encode()).hexdigest()
    assert token not in repr(tuple(session)) and token not in repr(tuple(user))
    assert session.expires - session.created == timedelta(days=30)


def test_the_default_hasher_is_argon2id_rfc_9106_low_memory(tmp_path: Path) -> None:
    with Store(f"sqlite:///{tmp_path}/c.sqlite3") as store:
        accounts = Accounts(store, GroupCommit(store))
        assert accounts.hasher.type is Type.ID
        assert accounts.hasher.memory_cost == profiles.RFC_9106_LOW_MEMORY.memory_cost


class ThreadRecordingHasher(PasswordHasher):
    """A cheap hasher that notes which thread hashed and verified."""

    def __init__(self) -> None:
        p = profiles.CHEAPEST
        super().__init__(p.time_cost, p.memory_cost, p.parallelism, p.hash_len, p.salt_len, type=p.type)
        self.threads: set[int] = set()

    def hash(self, password: str | bytes, *, salt: bytes | None = None) -> str:
        self.threads.add(threading.get_ident())
        return super().hash(password, salt=salt)

    def verify(self, hash: str | bytes, password: str | bytes) -> Literal[True]:  # noqa: A002
        self.threads.add(threading.get_ident())
        return super().verify(hash, password)


def test_hashing_runs_in_worker_threads_never_on_the_event_loop(tmp_path: Path) -> None:
    hasher = ThreadRecordingHasher()
    with accounts_on(f"sqlite:///{tmp_path}/c.sqlite3", hasher) as accounts:
        async def main() -> int:
            loop_thread = threading.get_ident()
            await accounts.register("ann", PASSWORD, "1.2.3.4")
            await accounts.login("ann", PASSWORD, "1.2.3.4")
            with pytest.raises(AccountError):
                await accounts.login("nobody", PASSWORD, "1.2.3.4")
            return loop_thread

        loop_thread = asyncio.run(main())
    assert hasher.threads and loop_thread not in hasher.threads


def test_a_login_rehashes_a_password_with_old_parameters(url: str) -> None:  # noqa: F811
    stronger = PasswordHasher(time_cost=2, memory_cost=64, parallelism=1)
    with accounts_on(url) as old:
        run(old.register("ann", PASSWORD, "1.2.3.4"))
        before = rows(old.store, users_t)[0].password
    with accounts_on(url, stronger) as new:
        run(new.login("ann", PASSWORD, "1.2.3.4"))
        after = rows(new.store, users_t)[0].password
    assert after != before and CHEAP.check_needs_rehash(after) and not stronger.check_needs_rehash(after)
    assert stronger.verify(after, PASSWORD)


# -- change of password -------------------------------------------------------------------------


def test_changing_the_password_ends_the_other_sessions(client: TestClient) -> None:
    register(client)
    first = client.cookies[COOKIE]
    client.cookies.clear()
    login(client)
    second = client.cookies[COOKIE]
    csrf = me(client, second)["csrf"]

    wrong = client.post("/api/password", json={"old": "not it at all", "new": "a new password"},
                        headers={"X-CSRF-Token": csrf})
    assert wrong.status_code == 403 and "current password" in wrong.json()["error"]
    short = client.post("/api/password", json={"old": PASSWORD, "new": "short"}, headers={"X-CSRF-Token": csrf})
    assert short.status_code == 400
    assert client.post("/api/password", json={"old": PASSWORD, "new": "a new password"}).status_code == 403  # no CSRF

    changed = client.post("/api/password", json={"old": PASSWORD, "new": "a new password"},
                          headers={"X-CSRF-Token": csrf})
    assert changed.status_code == 200 and changed.json()["user"]["name"] == "ann"
    assert me(client, second)["user"]["name"] == "ann"      # the session that asked lives on
    assert me(client, first)["user"] is None                # the other one ended
    client.cookies.clear()
    assert login(client, "ann", PASSWORD).status_code == 401
    assert login(client, "ann", "a new password").status_code == 200


def test_changing_the_password_needs_a_session(client: TestClient) -> None:
    answer = client.post("/api/password", json={"old": PASSWORD, "new": "a new password"})
    assert answer.status_code == 401 and "log in" in answer.json()["error"]


# -- bans, expiry -------------------------------------------------------------------------------


def _ban(store: Store, name: str, until: datetime | None, reason: str | None) -> None:
    with store.engine.begin() as c:
        c.execute(users_t.update().where(users_t.c.name_key == name).values(banned_until=until, ban_reason=reason))


def test_a_banned_account_cannot_log_in_and_its_sessions_stop_working(client: TestClient) -> None:
    register(client)
    token = client.cookies[COOKIE]
    store = store_of(client)
    until = datetime(2099, 5, 4, 3, 2, tzinfo=timezone.utc)
    _ban(store, "ann", until, "insults in chat")
    assert me(client, token)["user"] is None
    client.cookies.clear()
    refused = login(client)
    assert refused.status_code == 403
    assert refused.json()["error"].startswith("this account is banned until 2099-05-04 03:02 UTC (insults in chat)")
    assert COOKIE not in client.cookies

    _ban(store, "ann", accounts_module.BANNED_FOREVER, "cheating")
    assert "banned for good (cheating)" in login(client).json()["error"]

    _ban(store, "ann", datetime.now(timezone.utc) - timedelta(minutes=1), "over")   # a ban that ended
    assert login(client).status_code == 200
    assert me(client, client.cookies[COOKIE])["user"]["name"] == "ann"


def test_an_expired_session_is_no_session(client: TestClient) -> None:
    register(client)
    token = client.cookies[COOKIE]
    with store_of(client).engine.begin() as c:
        c.execute(sessions_t.update().values(expires=datetime.now(timezone.utc) - timedelta(seconds=1)))
    assert me(client, token) == {"user": None, "csrf": None}


# -- bots ---------------------------------------------------------------------------------------


def test_ensure_bots_makes_one_account_per_level_idempotently_even_from_two_processes(url: str) -> None:  # noqa: F811
    with accounts_on(url) as one, accounts_on(url) as two:
        async def both() -> None:
            await asyncio.gather(one.ensure_bots(), two.ensure_bots())

        run(both())
        run(one.ensure_bots())
        users = rows(one.store, users_t)
        assert sorted(u.name for u in users) == sorted(available())
        assert {u.role for u in users} == {"bot"} and {u.password for u in users} == {None}
        expert = run(two.by_name("Expert"))
        assert expert is not None and expert.role == "bot" and expert.rating == 1500.0
        with pytest.raises(AccountError) as refused:
            run(one.login("expert", "", "1.2.3.4"))       # a bot never logs in
        assert refused.value.status == 401
        with pytest.raises(AccountError) as refused:
            run(one.login("expert", "anything at all", "1.2.3.4"))
        assert refused.value.status == 401


def test_by_name_ignores_case_and_knows_no_stranger(url: str) -> None:  # noqa: F811
    with accounts_on(url) as accounts:
        made, _ = run(accounts.register("Ann", PASSWORD, "1.2.3.4"))
        assert run(accounts.by_name("aNN ")) == made
        assert run(accounts.by_name("bob")) is None
        assert isinstance(made, User) and made.to_dict() == {"name": "Ann", "role": "player", "rating": 1500.0,
                                                            "experience": 0}


# -- guest seats --------------------------------------------------------------------------------


def _table(store: Store, table_id: str, tokens: dict[str, str]) -> None:
    now = datetime.now(timezone.utc)
    hashed = {seat: hashlib.sha256(token.encode()).hexdigest() for seat, token in tokens.items()}
    store.create(TableRecord(table_id, "match", {"length": 3}, hashed, {}, 0, "playing", now, now))


def test_registering_claims_the_guest_seats_held_under_the_same_name(client: TestClient) -> None:
    store = store_of(client)
    _table(store, "t1", {"ann": "tok-ann-1", "bob": "tok-bob-1"})
    _table(store, "t2", {"expert": "tok-bot", "Ann": "tok-ann-2"})
    _table(store, "t3", {"ann": "tok-ann-3"})
    _table(store, "t4", {"ann 2": "tok-ann-4"})
    seats = [
        {"table": "t1", "token": "tok-ann-1"},   # mine: claimed
        {"table": "t1", "token": "tok-bob-1"},   # someone else's name: passed over
        {"table": "t2", "token": "tok-ann-2"},   # "Ann" is "ann" ignoring case: claimed
        {"table": "t3", "token": "a wrong token"},
        {"table": "t4", "token": "tok-ann-4"},   # another name ("ann 2")
        {"table": "nowhere", "token": "tok-ann-1"},
    ]
    answer = register(client, "ANN", seats=seats)
    assert answer.status_code == 200, answer.text
    (user,) = rows(store, users_t)
    held = sorted((r.table_id, r.seat, r.user_id) for r in rows(store, seat_users_t))
    assert held == [("t1", "ann", user.id), ("t2", "Ann", user.id)]


def test_a_seat_already_held_by_an_account_stays_with_it(client: TestClient) -> None:
    store = store_of(client)
    _table(store, "t1", {"ann": "tok-ann-1"})
    register(client, "ann", seats=[{"table": "t1", "token": "tok-ann-1"}])
    (first,) = rows(store, seat_users_t)
    with store.engine.begin() as c:   # the first account is renamed; a second "ann" tries the same seat
        c.execute(users_t.update().values(name="ann_old", name_key="ann_old"))
    client.cookies.clear()
    assert register(client, "ann", seats=[{"table": "t1", "token": "tok-ann-1"}]).status_code == 200
    assert rows(store, seat_users_t) == [first]


# -- the page and the OpenAPI paths ---------------------------------------------------------------


def test_the_login_page_is_served(client: TestClient) -> None:
    page = client.get("/login")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    for needle in ('id="login-form"', 'id="register-form"', 'id="password-form"', "/static/account.js",
                   'autocomplete="current-password"', 'autocomplete="new-password"'):
        assert needle in page.text
    script = (Path(accounts_module.__file__).parent / "static" / "account.js").read_text()
    for export in ("export function me(", "export async function csrfHeaders(", "export async function postJSON(",
                   "export async function renderAccountBar(", "X-CSRF-Token"):
        assert export in script


def test_the_openapi_paths_cover_every_route_and_validate_merged() -> None:
    api = {r.path for r in routes() if isinstance(r, Route) and r.path.startswith("/api/")}
    assert api == set(OPENAPI_PATHS)
    merged = {**OPENAPI, "paths": {**OPENAPI["paths"], **OPENAPI_PATHS}}
    validate(merged)
