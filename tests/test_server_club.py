"""The club wired into the server (issue 12): accounts at tables, rated matches and their
ratings, clocks that flag, leaving a match, guests and account names, and two server
processes over one database (a stale commit reloads and tries again; with Redis, each
process tells the other's connections)."""

from __future__ import annotations

import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import redis
from argon2 import PasswordHasher
from starlette.testclient import TestClient

from backgammon import clock as clock_module
from backgammon.clock import TimeControl
from backgammon.server.app import create_app
from tests.test_store import pg_schema
from tests.test_server import TWO_PEOPLE, create, hello, my_turn, recv, seeded, until

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

CHEAP = PasswordHasher(time_cost=1, memory_cost=8, parallelism=1)
PASSWORD = "correct horse"


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path}/club.sqlite3"


def app(db: str, **more: Any) -> TestClient:
    return TestClient(create_app(db, dice_factory=seeded("club"), message_rate=1000, message_burst=1000,
                                 hasher=CHEAP, **more))


@pytest.fixture
def client(db: str) -> Iterator[TestClient]:
    with app(db) as c:
        yield c


def register(client: TestClient, name: str) -> dict[str, str]:
    """Register ``name`` on ``client`` (its cookie jar keeps the session): the CSRF header."""
    r = client.post("/api/register", json={"name": name, "password": PASSWORD})
    assert r.status_code == 200, r.text
    return {"X-CSRF-Token": r.json()["csrf"]}


def rated_v_bot(client: TestClient, headers: dict[str, str], clock: str = "blitz") -> dict[str, Any]:
    r = client.post("/api/tables", headers=headers, json={
        "kind": "match", "length": 1, "name": "ignored", "rated": True, "clock": clock,
        "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}]})
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


def profile(client: TestClient, name: str) -> dict[str, Any]:
    r = client.get(f"/api/users/{name}")
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


# -- rated matches ------------------------------------------------------------------------------


def test_a_rated_match_needs_an_account_and_a_clock(client: TestClient) -> None:
    body = {"kind": "match", "length": 3, "name": "zoe", "rated": True, "clock": "rapid",
            "seats": [{"kind": "human"}, {"kind": "human"}]}
    guest = client.post("/api/tables", json=body)
    assert guest.status_code == 401 and "log in" in guest.json()["error"]
    headers = register(client, "ann")
    no_clock = client.post("/api/tables", headers=headers, json={**body, "clock": "none"})
    assert no_clock.status_code == 400 and "needs a clock" in no_clock.json()["error"]
    money = client.post("/api/tables", headers=headers, json={**body, "kind": "money"})
    assert money.status_code == 400
    made = client.post("/api/tables", headers=headers, json=body)
    assert made.status_code == 200, made.text
    info = made.json()["table"]
    # the creator sits under the account's name whatever the body said
    assert made.json()["seat"] == "ann" and info["rated"] is True
    assert info["clock"] == {"name": "rapid", "delay": 10.0, "per_point": 60.0}
    assert info["players"] == {"ann": {"name": "ann", "rating": 1500.0, "experience": 0}}
    # a guest cannot take the free seat of a rated match
    with app(client.app.state.store.url.render_as_string(hide_password=False)) as other:  # type: ignore[attr-defined]
        refused = other.post(f"/api/tables/{info['id']}/join", json={"name": "bob"})
        assert refused.status_code == 401 and "rated" in refused.json()["error"]


def test_a_post_with_the_session_cookie_needs_the_csrf_header(client: TestClient) -> None:
    register(client, "ann")
    r = client.post("/api/tables", json={**TWO_PEOPLE})
    assert r.status_code == 403 and "X-CSRF-Token" in r.json()["error"]


def test_a_guest_cannot_sit_under_an_accounts_name(client: TestClient, db: str) -> None:
    register(client, "ann")
    with app(db) as guest:
        taken = guest.post("/api/tables", json={**TWO_PEOPLE, "name": "Ann"})
        assert taken.status_code == 409 and "name of an account" in taken.json()["error"]
        assert guest.post("/api/tables", json={**TWO_PEOPLE, "name": "cy"}).status_code == 200


def test_leaving_a_rated_match_loses_it_and_the_ratings_move(client: TestClient) -> None:
    """Newcomers (K = 5) of equal rating, a 1-point match: the winner gains 4·5·√1·½ = 10."""
    headers = register(client, "ann")
    made = rated_v_bot(client, headers)
    table_id, token = made["table"]["id"], made["token"]
    assert made["table"]["players"]["random"] == {"name": "random", "rating": 1500.0, "experience": 0}
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        _, state = hello(ws, [token])
        assert state["clock"]["control"]["name"] == "blitz" and set(state["clock"]["seats"]) == {"ann", "random"}
        ws.send_json({"type": "leave", "seat": "random", "id": 1})
        assert "do not hold the seat" in until(ws, "error")["error"]
        ws.send_json({"type": "leave", "seat": "ann", "id": 2})
        assert until(ws, "ack")["id"] == 2
        over = until(ws, "state", lambda m: m["table"]["status"] == "over")
    result = over["table"]["result"]
    assert result["winner"] == "random" and result["reason"] == "abandoned"
    assert result["ratings"]["ann"]["after"] == pytest.approx(1490.0)
    assert result["ratings"]["random"]["after"] == pytest.approx(1510.0)
    assert "left" in " ".join(line["text"] for line in over["log"]).lower()
    ann = profile(client, "ann")
    assert (round(ann["rating"], 2), ann["experience"], ann["lost"], ann["abandoned"]) == (1490.0, 1, 1, 1)
    assert round(profile(client, "random")["rating"], 2) == 1510.0


def test_a_clock_running_out_loses_the_match_on_time(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(clock_module.PRESETS, "blitz", TimeControl("blitz", 0.3, 0.4))
    headers = register(client, "ann")
    made = rated_v_bot(client, headers)
    with client.websocket_connect(f"/ws/tables/{made['table']['id']}") as ws:
        hello(ws, [made["token"]])
        started = time.monotonic()
        over = until(ws, "state", lambda m: m["table"]["status"] == "over")
        waited = time.monotonic() - started
    result = over["table"]["result"]
    # ann never acted: the opening waits for both, the bot rolled at once, ann's 0.7 s ran out
    assert result["winner"] == "random" and result["reason"] == "time", result
    assert 0.3 < waited < 10, waited
    assert over["clock"]["running"] == [] and over["clock"]["seats"]["ann"]["reserve"] == 0.0
    assert "time" in " ".join(line["text"] for line in over["log"])
    assert profile(client, "ann")["lost"] == 1


def test_the_clock_charges_only_the_seat_to_act(client: TestClient) -> None:
    created = create(client, {**TWO_PEOPLE, "clock": "blitz"})
    table_id = created["table"]["id"]
    bob = client.post(f"/api/tables/{table_id}/join", json={"name": "bob"}).json()["token"]
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        _, state = hello(ws, [created["token"], bob])
        clock = state["clock"]
        assert clock["control"] == {"name": "blitz", "delay": 8.0, "per_point": 20.0}
        assert sorted(clock["running"]) == ["ann", "bob"]  # the opening roll waits for both
        assert clock["seats"]["ann"]["reserve"] == 60.0  # 20 s a point, a 3-point match
        ws.send_json({"type": "command", "seat": "ann", "id": 1, "command": {"type": "roll"}})
        until(ws, "ack")
        state = until(ws, "state")
        running = state["clock"]["running"]
        # the clock runs for the seats the game waits for, and only for them
        assert running and all(state["snapshots"][seat]["actions"] for seat in running)
        waiting = [seat for seat in ("ann", "bob") if seat not in running]
        assert all(not state["snapshots"][seat]["actions"] for seat in waiting)
    record = client.app.state.store.load(table_id)  # type: ignore[attr-defined]
    assert record.state["clock"]["running"] == running


def test_health_says_the_database_and_the_bus_answer(client: TestClient) -> None:
    answer = client.get("/api/health")
    assert answer.status_code == 200 and answer.json()["ok"] is True and answer.json()["problems"] == []


# -- two processes over one database --------------------------------------------------------------


def _play_one(ws: Any, seat: str, state: dict[str, Any]) -> None:
    """``seat`` does the first thing it may: roll, else the first legal play (confirmed)."""
    actions = state["snapshots"][seat]["actions"]
    if "roll" in actions:
        ws.send_json({"type": "command", "seat": seat, "command": {"type": "roll"}})
    elif "play" in actions:
        ws.send_json({"type": "command", "seat": seat, "command": {"type": "play", "move": state["plays"][0]["move"] if state["plays"] else "", "confirm": True}})
    elif "take" in actions:
        ws.send_json({"type": "command", "seat": seat, "command": {"type": "take"}})
    else:
        ws.send_json({"type": "command", "seat": seat, "command": {"type": "confirm"}})


def test_a_stale_room_reloads_and_applies_the_command_again(db: str) -> None:
    """Two servers on one database and no bus: bob's server never hears of ann's moves, so its
    room is stale; bob's commands are committed all the same (reload, apply again)."""
    with app(db) as a, app(db) as b:
        created = create(a, TWO_PEOPLE)
        table_id = created["table"]["id"]
        bob_token = a.post(f"/api/tables/{table_id}/join", json={"name": "bob"}).json()["token"]
        with a.websocket_connect(f"/ws/tables/{table_id}") as ann, b.websocket_connect(f"/ws/tables/{table_id}") as bob:
            hello(ann, [created["token"]])
            hello(bob, [bob_token])  # server b reads the table now, before ann's roll
            ann.send_json({"type": "command", "seat": "ann", "id": 1, "command": {"type": "roll"}})
            until(ann, "ack")
            # bob's server still shows the opening as it was before ann's roll
            bob.send_json({"type": "command", "seat": "bob", "id": 2, "command": {"type": "roll"}})
            reply = recv(bob)
            while reply["type"] not in ("ack", "refused", "error"):
                reply = recv(bob)
            # stale at first: reloaded, applied again to the table as it is (ack or a refusal
            # by the rules, never an error), and bob's page is shown the table as it is
            assert reply["type"] in ("ack", "refused") and reply["id"] == 2, reply
            state = until(bob, "state")
            stored = a.app.state.store.load(table_id)  # type: ignore[attr-defined]
            assert state["seq"] == stored.seq >= 2
        events = a.app.state.store.events(table_id)  # type: ignore[attr-defined]
        assert [e.seq for e in events] == list(range(1, len(events) + 1)) and events[1].seat == "ann"


def _redis_url() -> str:
    try:
        redis.Redis.from_url("redis://127.0.0.1:6379/0", socket_connect_timeout=2).ping()
    except redis.RedisError as exc:
        import os

        if os.environ.get("BACKGAMMON_REQUIRE_REDIS") == "1":
            pytest.fail(f"no Redis at 127.0.0.1:6379 ({exc})")
        pytest.skip(f"no Redis at 127.0.0.1:6379 ({exc})")
    return f"redis://127.0.0.1:6379/0?prefix=test-club-{uuid.uuid4().hex[:8]}"


def test_two_processes_with_redis_show_each_player_the_others_moves(tmp_path: Path) -> None:
    bus = _redis_url()
    with pg_schema("test_club_") as url:
        with app(url, redis_url=bus) as a, app(url, redis_url=bus) as b:
            created = create(a, TWO_PEOPLE)
            table_id = created["table"]["id"]
            bob_token = b.post(f"/api/tables/{table_id}/join", json={"name": "bob"}).json()["token"]
            with a.websocket_connect(f"/ws/tables/{table_id}") as ann, \
                    b.websocket_connect(f"/ws/tables/{table_id}") as bob:
                _, seen_a = hello(ann, [created["token"]])
                _, seen_b = hello(bob, [bob_token])
                if not seen_a["snapshots"]:
                    seen_a = until(ann, "state", lambda m: bool(m["snapshots"]))
                for _ in range(12):  # the opening and a few turns, each player on their own server
                    for ws, seat, seen in ((ann, "ann", seen_a), (bob, "bob", seen_b)):
                        if seen["snapshots"].get(seat, {}).get("actions"):
                            _play_one(ws, seat, seen)
                    target = max(seen_a["seq"], seen_b["seq"]) + 1
                    seen_a = until(ann, "state", lambda m: m["seq"] >= target)
                    seen_b = until(bob, "state", lambda m: m["seq"] >= seen_a["seq"])
                    assert seen_b["seq"] == seen_a["seq"]
                    assert seen_b["snapshots"]["bob"]["board"] is not None
                assert seen_a["seq"] > 8
            events = a.app.state.store.events(table_id)  # type: ignore[attr-defined]
            assert [e.seq for e in events] == list(range(1, len(events) + 1))
            assert {e.seat for e in events} >= {"ann", "bob"}
