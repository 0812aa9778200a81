"""Etiquette and moderation (backgammon.server.moderation): chat limits, mute and block,
reports, kicks and bans, the moderators' routes. Every test runs on a SQLite file and on the
real PostgreSQL (a fresh schema each; see tests/test_store.py)."""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from typing import Any

import anyio
import pytest
import sqlalchemy as sa
from starlette.applications import Starlette
from starlette.testclient import TestClient
from argon2 import PasswordHasher

from backgammon.server import accounts, moderation
from backgammon.server.accounts import User
from backgammon.server.app import create_app
from backgammon.server.moderation import (
    CHAT_MAX,
    FOREVER,
    REPORT_CHAT,
    SWEEP_EVERY,
    ChatLimiter,
    ModerationError,
    add_report,
    ban,
    blocked_between,
    close_report,
    grant_moderator,
    kick,
    kicked_from,
    relation_names,
    relations_of,
    reports,
    set_relation,
    unban,
)
from backgammon.server.store import (
    Store,
    TableRecord,
    moderation_log_t,
    sessions_t,
    users_t,
)

from .test_store import pg_url, store, url  # noqa: F401  (fixtures: each test on SQLite and PostgreSQL)

NOW = datetime.now(timezone.utc)


# -- helpers ---------------------------------------------------------------------------------


def make_user(store: Store, name: str, role: str = "player") -> User:
    """An account written straight into ``users`` (bots have no password)."""
    with store.engine.begin() as connection:
        key = connection.execute(users_t.insert().values(
            name=name, name_key=name.casefold(), password=None if role == "bot" else "x", role=role,
            rating=1500.0, experience=0, created=NOW, banned_until=None, ban_reason=None,
        )).inserted_primary_key
    assert key is not None
    uid = int(key[0])
    return User(id=uid, name=name, role=role, rating=1500.0, experience=0, banned_until=None)


def make_session(store: Store, user: User) -> tuple[str, str]:
    """A session of ``user`` as the accounts module stores it: (cookie token, csrf)."""
    token, csrf = secrets.token_urlsafe(32), secrets.token_hex(16)
    with store.engine.begin() as connection:
        connection.execute(sessions_t.insert().values(
            id=hashlib.sha256(token.encode()).hexdigest(), user_id=user.id, csrf=csrf, created=NOW,
            expires=NOW + timedelta(days=30)))
    return token, csrf


def make_table(store: Store, table_id: str = "tbl0000001", seats: tuple[str, ...] = ("ann", "bob")) -> str:
    store.create(TableRecord(
        table_id, "match", {"length": 3, "seats": [{"name": n, "kind": "human"} for n in seats]},
        {}, {"table": {}}, 0, "playing", NOW, NOW))
    return table_id


def log_rows(store: Store) -> list[sa.Row[Any]]:
    with store.engine.connect() as connection:
        return list(connection.execute(sa.select(moderation_log_t).order_by(moderation_log_t.c.id)))


def user_row(store: Store, user_id: int) -> sa.Row[Any]:
    with store.engine.connect() as connection:
        row = connection.execute(sa.select(users_t).where(users_t.c.id == user_id)).first()
    assert row is not None
    return row


def session_count(store: Store, user_id: int) -> int:
    with store.engine.connect() as connection:
        return int(connection.execute(
            sa.select(sa.func.count()).select_from(sessions_t).where(sessions_t.c.user_id == user_id)
        ).scalar_one())


def run(fn: Any, *args: Any) -> Any:
    """Run the coroutine function ``fn(*args)`` to its end."""
    return anyio.run(fn, *args)


def as_utc(value: datetime) -> datetime:
    return value.replace(tzinfo=timezone.utc) if value.tzinfo is None else value


# -- the chat limit --------------------------------------------------------------------------


def test_chat_limiter_five_lines_in_ten_seconds() -> None:
    now = [1000.0]
    limiter = ChatLimiter(clock=lambda: now[0])
    assert [limiter.allow("ann") for _ in range(5)] == [True] * 5
    assert limiter.allow("ann") is False          # the sixth line within 10 s
    assert limiter.allow("bob") is True           # each key counts on its own
    now[0] += 9.9
    assert limiter.allow("ann") is False          # still within the window
    now[0] += 0.1
    assert limiter.allow("ann") is True           # 10 s after the first lines: room again
    assert "5 chat lines in 10 seconds" in limiter.refusal()
    assert CHAT_MAX == 300


def test_chat_limiter_window_slides() -> None:
    now = [0.0]
    limiter = ChatLimiter(clock=lambda: now[0])
    for t in (0, 2, 4, 6, 8):
        now[0] = t
        assert limiter.allow("k")
    now[0] = 9.0
    assert not limiter.allow("k")
    now[0] = 10.0                                  # only the line at 0 s has left the window
    assert limiter.allow("k")
    assert not limiter.allow("k")
    limiter.forget("k")
    assert limiter.allow("k")


def test_chat_limiter_forgets_idle_keys() -> None:
    now = [0.0]
    limiter = ChatLimiter(clock=lambda: now[0])
    for i in range(SWEEP_EVERY - 1):
        assert limiter.allow(f"conn:{i}")
    assert len(limiter) == SWEEP_EVERY - 1
    now[0] = 10.0
    assert limiter.allow("late")                  # the sweep: everyone idle for 10 s goes
    assert len(limiter) == 1


# -- mute and block --------------------------------------------------------------------------


def test_relations_set_unset_list(store: Store) -> None:
    ann, bob, cat = make_user(store, "Ann"), make_user(store, "bob"), make_user(store, "cat")
    assert set_relation(store, ann.id, "BOB", "mute", True) == "bob"   # names fold case
    set_relation(store, ann.id, "bob", "mute", True)                   # idempotent
    set_relation(store, ann.id, "cat", "block", True)
    assert run(relations_of, store, ann.id) == ({bob.id}, {cat.id})
    assert run(relation_names, store, ann.id) == {"mute": ["bob"], "block": ["cat"]}
    assert run(relations_of, store, bob.id) == (set(), set())
    assert run(blocked_between, store, ann.id, cat.id)
    assert run(blocked_between, store, cat.id, ann.id)               # either way round
    assert not run(blocked_between, store, ann.id, bob.id)           # a mute is not a block
    set_relation(store, ann.id, "bob", "mute", False)
    set_relation(store, ann.id, "bob", "mute", False)                  # idempotent too
    set_relation(store, ann.id, "cat", "block", False)
    assert run(relations_of, store, ann.id) == (set(), set())
    assert not run(blocked_between, store, ann.id, cat.id)


def test_relations_refusals(store: Store) -> None:
    ann = make_user(store, "ann")
    make_user(store, "bob")
    with pytest.raises(ModerationError, match="cannot mute yourself") as refused:
        set_relation(store, ann.id, "ANN", "mute", True)
    assert refused.value.status == 400
    with pytest.raises(ModerationError, match="no account named 'zed'") as unknown:
        set_relation(store, ann.id, "zed", "block", True)
    assert unknown.value.status == 404
    with pytest.raises(ModerationError, match='"mute" or "block"'):
        set_relation(store, ann.id, "bob", "ignore", True)


# -- reports ---------------------------------------------------------------------------------


def test_a_report_keeps_the_last_chat_lines_and_the_seq(store: Store) -> None:
    ann = make_user(store, "ann")
    table = make_table(store)
    store.commit(table, 1, "ann", {"type": "roll"}, [], {"table": {}}, "playing")
    store.commit(table, 2, "ann", {"type": "move"}, [], {"table": {}}, "playing")
    for i in range(REPORT_CHAT + 5):
        store.add_chat(table, "bob" if i % 2 else "ann", f"line {i}", False)
    store.add_chat(table, "zoe", "a spectator", True)
    report = add_report(store, ann, "ann", table, "bob", "  rude all game  ")
    assert report.seq == 2 and report.reason == "rude all game" and report.target_id is None
    assert len(report.chat) == REPORT_CHAT
    assert report.chat[0]["text"] == "line 6" and report.chat[-1] == {
        "from": "zoe", "text": "a spectator", "at": report.chat[-1]["at"], "spectator": True}
    # later lines are not part of it
    store.add_chat(table, "bob", "after the report", False)
    [stored] = run(reports, store, "open")
    assert stored.id == report.id and stored.chat == report.chat and stored.seq == 2
    data = stored.to_dict()
    assert data["links"] == {"table": f"/t/{table}", "replay": f"/r/{table}"}
    assert data["reporter"] == "ann" and data["target"] == "bob" and data["status"] == "open"
    # a spectator who chatted can be reported too; an account is linked when the name has one
    make_user(store, "Zoe")
    second = add_report(store, ann, "ann", table, "ZOE", "spam")
    assert second.target_id is not None
    assert [r.id for r in run(reports, store, "open")] == [report.id, second.id]


def test_report_refusals(store: Store) -> None:
    ann = make_user(store, "ann")
    table = make_table(store)
    with pytest.raises(ModerationError, match="no table 'nope'") as unknown:
        add_report(store, ann, "ann", "nope", "bob", "rude")
    assert unknown.value.status == 404
    with pytest.raises(ModerationError, match="nobody named 'carl'") as absent:
        add_report(store, ann, "ann", table, "carl", "rude")
    assert absent.value.status == 404
    with pytest.raises(ModerationError, match="cannot report yourself"):
        add_report(store, ann, "ann", table, "Ann", "rude")
    for reason in ("", "   ", "x" * 501):
        with pytest.raises(ModerationError, match="1-500 characters"):
            add_report(store, ann, "ann", table, "bob", reason)
    add_report(store, ann, "ann", table, "bob", "x" * 500)
    with pytest.raises(ModerationError, match="already reported bob") as twice:
        add_report(store, ann, "ann", table, "BOB", "again")
    assert twice.value.status == 409


def test_closing_a_report(store: Store) -> None:
    ann, mod = make_user(store, "ann"), make_user(store, "mo", "moderator")
    table = make_table(store)
    report = add_report(store, ann, "ann", table, "bob", "rude")
    close_report(store, mod, report.id, "warned bob")
    assert run(reports, store, "open") == []
    [closed] = run(reports, store, "closed")
    assert (closed.status, closed.handled_by, closed.resolution) == ("closed", "mo", "warned bob")
    with pytest.raises(ModerationError, match="already closed") as again:
        close_report(store, mod, report.id, "twice")
    assert again.value.status == 409
    with pytest.raises(ModerationError, match="no report 999") as unknown:
        close_report(store, mod, 999, "x")
    assert unknown.value.status == 404
    [row] = log_rows(store)
    assert (row.action, row.moderator_id, row.table_id, row.reason) == ("close_report", mod.id, table, "warned bob")
    with pytest.raises(ModerationError, match="status is open, closed or all"):
        run(reports, store, "pending")


# -- bans, kicks, the moderator role ---------------------------------------------------------


def test_a_ban_ends_sessions_and_sets_banned_until(store: Store) -> None:
    mod, bob, ann = make_user(store, "mo", "moderator"), make_user(store, "bob"), make_user(store, "ann")
    make_session(store, bob)
    make_session(store, bob)
    make_session(store, ann)
    before = datetime.now(timezone.utc)
    uid, until = ban(store, mod, "BOB", 24, "abuse in chat")
    assert uid == bob.id
    assert before + timedelta(hours=24) <= until <= datetime.now(timezone.utc) + timedelta(hours=24)
    row = user_row(store, bob.id)
    assert abs(as_utc(row.banned_until) - until) < timedelta(seconds=1)
    assert row.ban_reason == "abuse in chat"
    assert session_count(store, bob.id) == 0
    assert session_count(store, ann.id) == 1                    # nobody else's
    [log] = log_rows(store)
    assert (log.action, log.moderator_id, log.target_id) == ("ban", mod.id, bob.id)
    assert log.reason == "for 24 hours: abuse in chat"


def test_a_ban_for_ever_and_unban(store: Store) -> None:
    mod, bob = make_user(store, "mo", "moderator"), make_user(store, "bob")
    _, until = ban(store, mod, "bob", None, "cheating")
    assert until == FOREVER
    assert as_utc(user_row(store, bob.id).banned_until) == FOREVER
    assert unban(store, mod, "bob", "appeal accepted") == bob.id
    row = user_row(store, bob.id)
    assert row.banned_until is None and row.ban_reason is None
    with pytest.raises(ModerationError, match="bob is not banned") as again:
        unban(store, mod, "bob")
    assert again.value.status == 409
    assert [(r.action, r.target_id, r.reason) for r in log_rows(store)] == [
        ("ban", bob.id, "for ever: cheating"), ("unban", bob.id, "appeal accepted")]


def test_ban_refusals(store: Store) -> None:
    mod, other = make_user(store, "mo", "moderator"), make_user(store, "mi", "moderator")
    make_user(store, "gnu", "bot")
    make_user(store, "bob")
    for name, words in (("mo", "cannot ban yourself"), ("mi", "revoke the role first"),
                        ("gnu", "is a bot"), ("zed", "no account named")):
        with pytest.raises(ModerationError, match=words):
            ban(store, mod, name, 1, "x")
    for hours in (0, -1, 87_601, True, "2"):
        with pytest.raises(ModerationError, match="number of hours"):
            ban(store, mod, "bob", hours, "x")  # type: ignore[arg-type]
    with pytest.raises(ModerationError, match="give a reason"):
        ban(store, mod, "bob", 1, "")
    assert log_rows(store) == [] and other.role == "moderator"


def test_kick_is_logged_and_keeps_the_account_out(store: Store) -> None:
    mod, bob = make_user(store, "mo", "moderator"), make_user(store, "bob")
    table = make_table(store)
    assert kick(store, mod, table, "Bob", "insults") == bob.id
    [row] = log_rows(store)
    assert (row.action, row.moderator_id, row.target_id, row.table_id, row.reason) == (
        "kick", mod.id, bob.id, table, "insults")
    assert run(kicked_from, store, table) == {bob.id}
    assert run(kicked_from, store, "other") == set()
    with pytest.raises(ModerationError, match="no table 'nope'") as unknown:
        kick(store, mod, "nope", "bob", "x")
    assert unknown.value.status == 404


def test_grant_and_revoke_the_moderator_role(store: Store) -> None:
    bob = make_user(store, "bob")
    make_user(store, "gnu", "bot")
    cat = make_user(store, "cat")
    assert grant_moderator(store, "BOB") == "bob"
    assert user_row(store, bob.id).role == "moderator"
    grant_moderator(store, "bob")                                # no change, no log row
    mod = User(bob.id, "bob", "moderator", 1500.0, 0, None)
    ban(store, mod, "cat", 1, "spam")                            # bob can act now
    assert grant_moderator(store, "bob", revoke=True) == "bob"
    assert user_row(store, bob.id).role == "player"
    with pytest.raises(ModerationError, match="bob is not a moderator") as revoked:
        unban(store, mod, "cat")                                 # a stale User cannot act
    assert revoked.value.status == 403
    with pytest.raises(ModerationError, match="bots cannot be moderators"):
        grant_moderator(store, "gnu")
    with pytest.raises(ModerationError, match="no account named 'zed'"):
        grant_moderator(store, "zed")
    assert [(r.action, r.moderator_id, r.target_id) for r in log_rows(store)] == [
        ("role", None, bob.id), ("ban", bob.id, cat.id),
        ("role", None, bob.id)]
    assert [r.reason for r in log_rows(store) if r.action == "role"] == [
        "granted the moderator role (command line)", "revoked the moderator role (command line)"]


# -- the routes ------------------------------------------------------------------------------


def build_app(database_url: str) -> Starlette:
    """The server with the moderation and account routes mounted (added here while the
    application does not mount them itself)."""
    app = create_app(database_url)
    have = {getattr(route, "path", None) for route in app.router.routes}
    for route in [*moderation.routes(), *accounts.routes()]:
        if route.path not in have:
            app.router.routes.insert(0, route)
    return app


class Site:
    """A running server and its store; people register through the accounts routes."""

    def __init__(self, client: TestClient) -> None:
        self.client = client
        self.store: Store = client.app.state.club.store  # type: ignore[attr-defined]

    def register(self, name: str, role: str = "player") -> tuple[User, dict[str, str]]:
        """A new account (``POST /api/register``; a moderator is then granted the role) and
        the headers of its requests: its session cookie and CSRF token."""
        answer = self.client.post("/api/register", json={"name": name, "password": f"{name}-pass-word-1"})
        assert answer.status_code == 200, answer.text
        token = self.client.cookies["bg_session"]
        self.client.cookies.clear()   # each request names its account itself
        if role == "moderator":
            grant_moderator(self.store, name)
        with self.store.engine.connect() as connection:
            row = connection.execute(sa.select(users_t).where(users_t.c.name == name)).one()
        user = User(row.id, row.name, row.role, row.rating, row.experience, None)
        return user, {"Cookie": f"bg_session={token}", "X-CSRF-Token": answer.json()["csrf"]}


@pytest.fixture
def site(url: str) -> Iterator[Site]:
    with TestClient(build_app(url)) as client:
        state = client.app.state  # type: ignore[attr-defined]
        if not hasattr(state, "accounts"):  # until the application makes its own
            cheap = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
            state.accounts = accounts.Accounts(state.club.store, state.club.writer, cheap)
        yield Site(client)


def test_routes_relations(site: Site) -> None:
    ann, me = site.register("ann")
    site.register("bob")
    c = site.client
    assert c.get("/api/relations", headers=me).json() == {"mute": [], "block": []}
    got = c.post("/api/relations", headers=me, json={"name": "Bob", "kind": "block", "on": True})
    assert got.status_code == 200 and got.json() == {"mute": [], "block": ["bob"]}
    c.post("/api/relations", headers=me, json={"name": "bob", "kind": "mute"})   # "on" defaults to true
    assert c.get("/api/relations", headers=me).json() == {"mute": ["bob"], "block": ["bob"]}
    changed: list[int] = []

    async def relations_changed(user_id: int) -> None:
        changed.append(user_id)

    c.app.state.club.relations_changed = relations_changed  # type: ignore[attr-defined]
    c.post("/api/relations", headers=me, json={"name": "bob", "kind": "block", "on": False})
    assert changed == [ann.id]                     # the club hears of it (live mutes)
    assert c.get("/api/relations", headers=me).json() == {"mute": ["bob"], "block": []}
    unknown = c.post("/api/relations", headers=me, json={"name": "zed", "kind": "mute", "on": True})
    assert unknown.status_code == 404 and "no account named 'zed'" in unknown.json()["error"]
    myself = c.post("/api/relations", headers=me, json={"name": "ann", "kind": "mute", "on": True})
    assert myself.status_code == 400 and "yourself" in myself.json()["error"]
    bad = c.post("/api/relations", headers=me, json={"name": "bob", "kind": "mute", "on": "yes"})
    assert bad.status_code == 400
    guest = c.get("/api/relations")
    assert guest.status_code == 401 and "log in" in guest.json()["error"]


def test_a_post_without_the_csrf_header_is_refused(site: Site) -> None:
    ann, headers = site.register("ann")
    site.register("bob")
    del headers["X-CSRF-Token"]
    refused = site.client.post("/api/relations", headers=headers,
                               json={"name": "bob", "kind": "mute", "on": True})
    assert refused.status_code == 403 and "error" in refused.json()
    wrong = site.client.post("/api/relations", headers={**headers, "X-CSRF-Token": "0" * 32},
                             json={"name": "bob", "kind": "mute", "on": True})
    assert wrong.status_code == 403
    assert run(relations_of, site.store, ann.id) == (set(), set())


def test_reporting_and_the_moderators_queue(site: Site) -> None:
    _, his = site.register("ann")
    _, bobs = site.register("bob")
    _, mo = site.register("mod", "moderator")
    table = make_table(site.store)
    site.store.add_chat(table, "bob", "you are terrible", False)
    c = site.client
    guest = c.post(f"/api/tables/{table}/report", json={"name": "bob", "reason": "rude"})
    assert guest.status_code == 401 and "log in to report" in guest.json()["error"]
    made = c.post(f"/api/tables/{table}/report", headers=his, json={"name": "bob", "reason": "rude"})
    assert made.status_code == 200
    report = made.json()["report"]
    assert report["chat"][0]["text"] == "you are terrible" and report["seq"] == 0
    # only moderators see the queue
    assert c.get("/api/moderation/reports").status_code == 401
    player = c.get("/api/moderation/reports", headers=bobs)
    assert player.status_code == 403 and "only moderators" in player.json()["error"]
    [listed] = c.get("/api/moderation/reports?status=open", headers=mo).json()["reports"]
    assert listed["id"] == report["id"] and listed["chat"] == report["chat"]
    assert listed["links"] == {"table": f"/t/{table}", "replay": f"/r/{table}"}
    assert c.post(f"/api/moderation/reports/{report['id']}/close", headers=bobs,
                  json={"resolution": "x"}).status_code == 403
    closed = c.post(f"/api/moderation/reports/{report['id']}/close", headers=mo, json={"resolution": "warned"})
    assert closed.status_code == 200
    assert c.get("/api/moderation/reports", headers=mo).json()["reports"] == []
    [done] = c.get("/api/moderation/reports?status=all", headers=mo).json()["reports"]
    assert (done["status"], done["handled_by"], done["resolution"]) == ("closed", "mod", "warned")
    no_reason = c.post(f"/api/moderation/reports/{report['id']}/close", headers=mo, json={})
    assert no_reason.status_code == 400 and "resolution" in no_reason.json()["error"]


def test_ban_kick_unban_over_http(site: Site) -> None:
    bob, his = site.register("bob")
    mod, mo = site.register("mod", "moderator")
    table = make_table(site.store)
    c = site.client
    calls: list[tuple[Any, ...]] = []
    club = c.app.state.club  # type: ignore[attr-defined]

    async def record_kick(*args: Any) -> None:
        calls.append(("kick", *args))

    async def record_ban(*args: Any) -> None:
        calls.append(("ban", *args))

    club.kick, club.ban = record_kick, record_ban   # the club's hooks for live connections
    assert c.get("/api/relations", headers=his).status_code == 200
    # a player cannot ban, kick or unban; a guest is told to log in
    assert c.post("/api/moderation/ban", headers=his, json={"name": "mod", "hours": 1, "reason": "x"}).status_code == 403
    assert c.post("/api/moderation/kick", json={"table": table, "name": "mod", "reason": "x"}).status_code == 401
    kicked = c.post("/api/moderation/kick", headers=mo, json={"table": table, "name": "bob", "reason": "insults"})
    assert kicked.status_code == 200 and kicked.json() == {"kicked": "bob", "table": table}
    banned = c.post("/api/moderation/ban", headers=mo, json={"name": "bob", "hours": None, "reason": "cheating"})
    assert banned.status_code == 200 and banned.json()["forever"] is True
    assert session_count(site.store, bob.id) == 0
    assert calls == [("kick", table, bob.id, "insults"), ("ban", bob.id, "cheating")]
    assert c.get("/api/relations", headers=his).status_code == 401      # his session is gone
    missing = c.post("/api/moderation/ban", headers=mo, json={"name": "bob", "reason": "x"})
    assert missing.status_code == 400 and "hours" in missing.json()["error"]
    assert c.post("/api/moderation/unban", headers=mo, json={"name": "bob"}).status_code == 200
    assert user_row(site.store, bob.id).banned_until is None
    again = c.post("/api/moderation/unban", headers=mo, json={"name": "bob"})
    assert again.status_code == 409
    assert [(r.action, r.moderator_id, r.target_id, r.table_id) for r in log_rows(site.store)] == [
        ("role", None, mod.id, None), ("kick", mod.id, bob.id, table), ("ban", mod.id, bob.id, None), ("unban", mod.id, bob.id, None)]


def test_the_moderate_page(site: Site) -> None:
    page = site.client.get("/moderate")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert "moderate.js" in page.text and "moderators" in page.text
    script = site.client.get("/static/moderate.js")
    assert script.status_code == 200 and "/api/moderation/reports" in script.text


def test_openapi_paths_cover_the_routes() -> None:
    api_paths = {r.path for r in moderation.routes() if r.path.startswith("/api/")}
    assert api_paths == set(moderation.OPENAPI_PATHS)
    for path, item in moderation.OPENAPI_PATHS.items():
        route = next(r for r in moderation.routes() if r.path == path)
        assert {m.lower() for m in (route.methods or ())} - {"head"} == set(item), path
