"""The online server end to end (docs/PROTOCOL.md): HTTP, WebSockets, bots, the database.

Every test runs the real Starlette application in-process (Starlette's TestClient) over a
temporary SQLite file (PostgreSQL where said), with real fair dice (seeded for game 1 where the
test wants the same dice every time). One test starts ``backgammon serve`` as a process, kills
it with SIGKILL and checks that the table comes back exactly as it was.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from starlette.testclient import TestClient
from starlette.websockets import WebSocketDisconnect

from backgammon.fairdice import FairDice, verify_record
from backgammon.server.app import create_app
from backgammon.server.openapi import OPENAPI
from backgammon.server.rooms import hash_token

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def seeded(seed: str) -> Callable[[Mapping[str, Any] | None], FairDice]:
    """A dice factory whose first game's server seed is fixed (the same dice every run)."""

    def factory(state: Mapping[str, Any] | None) -> FairDice:
        if state is not None:
            return FairDice.from_dict(state)
        secret = hashlib.sha256(seed.encode()).hexdigest()
        return FairDice.from_dict(
            {"version": 1, "game": 1, "server_seed": secret, "client_seeds": [], "dice": [], "revealed": []}
        )

    return factory


@pytest.fixture
def db(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path}/club.sqlite3"


@pytest.fixture
def client(db: str) -> Iterator[TestClient]:
    with TestClient(create_app(db, dice_factory=seeded("test"), message_rate=1000, message_burst=1000)) as c:
        yield c


@pytest.fixture
def strict(db: str) -> Iterator[TestClient]:
    """The server with the protocol's burst (40) but a slow refill (1 a second), so that a
    loaded test machine cannot let a flood through (the rate itself: test_server_protocol)."""
    with TestClient(create_app(db, message_rate=1.0)) as c:
        yield c


VS_BOT = {"kind": "match", "length": 1, "name": "ann", "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}]}
TWO_PEOPLE = {"kind": "match", "length": 3, "name": "ann", "seats": [{"kind": "human"}, {"kind": "human"}]}


def create(client: TestClient, body: Mapping[str, Any] = VS_BOT) -> dict[str, Any]:
    r = client.post("/api/tables", json=dict(body))
    assert r.status_code == 200, r.text
    data: dict[str, Any] = r.json()
    return data


_LOGS: dict[int, list[dict[str, str]]] = {}


def whole_log(ws: Any, message: dict[str, Any]) -> dict[str, Any]:
    """A ``state`` message with its ``log`` made whole: the server sends each connection only
    the record's new lines, from ``log_start`` on (the page joins them the same way)."""
    if message.get("type") == "state":
        start = message["log_start"]
        before = _LOGS.get(id(ws), [])
        assert start == 0 or start == len(before), (start, len(before))  # no line lost or repeated
        message["log"] = _LOGS[id(ws)] = before[:start] + message["log"]
    return message


def recv(ws: Any) -> dict[str, Any]:
    """The next message (a ``state``'s log made whole)."""
    return whole_log(ws, ws.receive_json())


def until(ws: Any, kind: str, pred: Callable[[dict[str, Any]], bool] = lambda m: True, limit: int = 500) -> dict[str, Any]:
    """The first message of type ``kind`` that ``pred`` accepts (others are skipped)."""
    for _ in range(limit):
        message: dict[str, Any] = recv(ws)
        if message["type"] == kind and pred(message):
            return message
    raise AssertionError(f"no {kind} message in {limit}")


def hello(ws: Any, tokens: list[str], **extra: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    ws.send_json({"type": "hello", "protocol": 1, "tokens": tokens, **extra})
    welcome = until(ws, "welcome")
    return welcome, until(ws, "state")


def my_turn(seat: str) -> Callable[[dict[str, Any]], bool]:
    """A state where ``seat`` has something to do, or the contest is over."""
    return lambda m: bool(m["snapshots"][seat]["actions"]) or m["snapshots"][seat]["over"]


def stored(client: TestClient, table_id: str) -> tuple[int, Any]:
    record = client.app.state.store.load(table_id)  # type: ignore[attr-defined]
    return record.seq, json.dumps(record.state, sort_keys=True)


def two_people(client: TestClient) -> tuple[str, str, str]:
    """A table of ann and bob: its id and their tokens."""
    created = create(client, TWO_PEOPLE)
    table_id = created["table"]["id"]
    joined = client.post(f"/api/tables/{table_id}/join", json={"name": "bob"}).json()
    return table_id, created["token"], joined["token"]


# -- creating and joining ---------------------------------------------------------------------


def test_tables_of_every_kind_are_created_and_listed(client: TestClient) -> None:
    match = create(client)
    assert match["table"]["status"] == "playing" and match["seat"] == "ann"
    assert match["tokens"] == {"ann": match["token"]} and len(match["token"]) == 43
    assert [s["name"] for s in match["table"]["seats"]] == ["ann", "random"]

    money = create(client, {"kind": "money", "name": "ann", "seats": [{"kind": "human"}, {"kind": "bot", "bot": "pubeval"}],
                            "rules": {"jacoby": True, "beavers": True, "automatic_doubles": True, "cube_limit": 64}})
    rules = money["table"]["rules"]
    assert (rules["jacoby"], rules["beavers"], rules["cube_limit"], rules["match_length"]) == (True, True, 64, 0)

    chouette = create(client, {"kind": "chouette", "name": "ann", "seats": [
        {"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]})
    assert [s["name"] for s in chouette["table"]["seats"]] == ["ann", "random", "random 2"]
    assert chouette["table"]["status"] == "playing"

    waiting = create(client, TWO_PEOPLE)
    assert waiting["table"]["status"] == "waiting"
    assert waiting["table"]["seats"][1] == {"name": None, "kind": "human", "free": True}

    lobby = client.get("/api/tables").json()["tables"]
    assert {t["id"] for t in lobby} == {match["table"]["id"], money["table"]["id"], chouette["table"]["id"],
                                        waiting["table"]["id"]}
    # the database keeps only hashes of the tokens
    record = client.app.state.store.load(match["table"]["id"])  # type: ignore[attr-defined]
    assert record.tokens == {"ann": hash_token(match["token"])}
    assert match["token"] not in json.dumps(record.state)


@pytest.mark.parametrize(("body", "words"), [
    ({**TWO_PEOPLE, "rules": {"jacoby": True}}, "money play only (R34)"),
    ({**TWO_PEOPLE, "length": 30}, "1-25 points"),
    ({**TWO_PEOPLE, "kind": "poker"}, "'match', 'money' or 'chouette'"),
    ({**TWO_PEOPLE, "seats": [{"kind": "human"}]}, "2 seats"),
    ({**TWO_PEOPLE, "seats": [{"kind": "human"}, {"kind": "bot", "bot": "gnu"}]}, "the bots are"),
    ({**TWO_PEOPLE, "seats": [{"kind": "bot", "bot": "random"}] * 2}, "at least one person"),
    ({**TWO_PEOPLE, "name": ""}, "a name is needed"),
    ({**TWO_PEOPLE, "rules": {"cube_limit": 48}}, "power of 2"),
    ({**TWO_PEOPLE, "rules": {"doubling": True}}, "unknown rule option"),
])
def test_bad_create_requests_get_a_sentence(client: TestClient, body: dict[str, Any], words: str) -> None:
    r = client.post("/api/tables", json=body)
    assert r.status_code == 400 and words in r.json()["error"]
    assert client.get("/api/tables").json()["tables"] == []


def test_join_fills_the_free_seat_and_starts_the_table(client: TestClient) -> None:
    created = create(client, TWO_PEOPLE)
    table_id = created["table"]["id"]
    with client.websocket_connect(f"/ws/tables/{table_id}") as ann:
        welcome, state = hello(ann, [created["token"]])
        assert welcome["seats"] == ["ann"] and state["snapshots"] == {} and state["table"]["status"] == "waiting"
        ann.send_json({"type": "command", "seat": "ann", "id": 1, "command": {"type": "roll"}})
        assert "waiting for players" in until(ann, "error")["error"]
        joined = client.post(f"/api/tables/{table_id}/join", json={"name": "ann"})
        assert joined.status_code == 200 and joined.json()["seat"] == "ann 2"  # names are unique
        state = until(ann, "state", lambda m: bool(m["snapshots"]))
        assert state["table"]["status"] == "playing" and state["snapshots"]["ann"]["phase"] == "opening"
    again = client.post(f"/api/tables/{table_id}/join", json={"name": "cy"})
    assert again.status_code == 409 and "no free seat" in again.json()["error"]
    assert client.post("/api/tables/nope/join", json={"name": "cy"}).status_code == 404


def test_a_chouette_starts_when_its_last_person_joins_and_survives_a_restart(db: str) -> None:
    body = {"kind": "chouette", "name": "ann", "seats": [{"kind": "human"}, {"kind": "human"}, {"kind": "bot", "bot": "random"}]}
    with TestClient(create_app(db)) as first:
        created = create(first, body)
        table_id = created["table"]["id"]
        joined = first.post(f"/api/tables/{table_id}/join", json={"name": "bob"}).json()
        assert joined["table"]["status"] == "playing"
        room = first.app.state.club.rooms[table_id]  # type: ignore[attr-defined]
        for _ in range(200):
            if room.idle:
                break
            time.sleep(0.05)
        with first.websocket_connect(f"/ws/tables/{table_id}") as ws:
            _, seen = hello(ws, [created["token"], joined["token"]])
            assert set(seen["snapshots"]) == {"ann", "bob"} and seen["log"][0]["text"].startswith("Roll-off")
            assert seen["snapshots"]["ann"]["actions"] or seen["snapshots"]["bob"]["actions"]
    with TestClient(create_app(db)) as second:
        with second.websocket_connect(f"/ws/tables/{table_id}") as ws:
            _, state = hello(ws, [created["token"], joined["token"]])
            assert (state["seq"], state["snapshots"], state["log"]) == (seen["seq"], seen["snapshots"], seen["log"])


def test_same_screen_gives_the_creator_every_human_seat(client: TestClient) -> None:
    created = create(client, {**TWO_PEOPLE, "same_screen": True})
    assert created["table"]["status"] == "playing" and list(created["tokens"]) == ["ann", "ann 2"]
    with client.websocket_connect(f"/ws/tables/{created['table']['id']}") as ws:
        welcome, state = hello(ws, list(created["tokens"].values()))
        assert welcome["seats"] == ["ann", "ann 2"] and set(state["snapshots"]) == {"ann", "ann 2"}
        ws.send_json({"type": "command", "seat": "ann 2", "id": "r", "command": {"type": "roll"}})
        assert until(ws, "ack")["id"] == "r"
        state = until(ws, "state")
        mover = state["snapshots"]["ann"]["on_roll"]
        assert state["plays"] and state["plays"][0]["move"] in state["snapshots"][mover]["legal"]


# -- playing ------------------------------------------------------------------------------------


def play_turn(ws: Any, seat: str, state: dict[str, Any], n: int) -> None:
    """Send whatever ``seat`` should do in ``state`` (first legal play, take, accept...)."""
    actions = state["snapshots"][seat]["actions"]
    if "play" in actions:
        command = {"type": "play", "move": state["plays"][0]["move"] if state["plays"] else "", "confirm": True}
    else:
        kind = next(a for a in ("roll", "take", "accept", "next_game") if a in actions)
        command = {"type": kind}
    ws.send_json({"type": "command", "seat": seat, "id": n, "command": command})


@pytest.mark.parametrize("length", [1, 3])
def test_a_whole_match_against_a_bot_over_the_websocket(client: TestClient, length: int) -> None:
    created = create(client, {**VS_BOT, "length": length})
    table_id = created["table"]["id"]
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        _, state = hello(ws, [created["token"]])
        seq = state["seq"]
        for n in range(2000):
            if state["snapshots"]["ann"]["over"]:
                break
            if not state["snapshots"]["ann"]["actions"]:
                state = until(ws, "state", my_turn("ann"))
                continue
            play_turn(ws, "ann", state, n)
            reply = recv(ws)
            assert reply == {"type": "ack", "id": n}, reply
            state = until(ws, "state")
            assert state["seq"] > seq
            assert stored(client, table_id)[0] >= state["seq"]  # told only after the commit
            seq = state["seq"]
        else:
            raise AssertionError("the match did not end")
        assert state["table"]["status"] == "over"
        assert any(f"{length}-point match" in line["text"] for line in state["log"])
    assert client.get("/api/tables").json()["tables"] == []  # over: not in the lobby
    record = client.get(f"/api/tables/{table_id}/record").json()
    report = verify_record(record)
    assert report.ok, report.lines()
    assert len(record["fair"]["revealed"]) == state["snapshots"]["ann"]["game_number"]  # every game's seed
    events = client.app.state.store.events(table_id)  # type: ignore[attr-defined]
    assert [e.seq for e in events] == list(range(1, len(events) + 1)) and len(events) == stored(client, table_id)[0]
    assert {e.seat for e in events} == {"ann", "random"}


def test_a_chouette_with_bots_comes_to_the_person(client: TestClient) -> None:
    created = create(client, {"kind": "chouette", "name": "ann", "seats": [
        {"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]})
    with client.websocket_connect(f"/ws/tables/{created['table']['id']}") as ws:
        _, state = hello(ws, [created["token"]])
        assert state["log"][0]["text"].startswith("Roll-off")
        acted = 0
        for n in range(200):  # the bots act until the person must
            snap = state["snapshots"]["ann"]
            choice = next((a for a in ("roll", "play", "take", "ready", "accept", "consent", "next_game")
                           if a in snap["actions"]), None)
            if choice is None or ("ann" not in snap["to_act"] and choice != "ready"):
                state = until(ws, "state", lambda m: m["seq"] > state["seq"] or m["snapshots"]["ann"] != snap)
                continue
            command: dict[str, Any] = {"type": choice}
            if choice == "play":
                command = {"type": "play", "move": state["plays"][0]["move"] if state["plays"] else "", "confirm": True}
            ws.send_json({"type": "command", "seat": "ann", "id": n, "command": command})
            while (message := recv(ws))["type"] not in ("ack", "refused"):
                if message["type"] == "state":
                    state = message  # a bot acted first (a team member's say, R39)
            if message["type"] == "ack":
                state = until(ws, "state")
                acted += 1
                if acted == 25:
                    break
        assert acted == 25
        assert state["seq"] > 25
    record = client.get(f"/api/tables/{created['table']['id']}/record").json()
    assert record["format"] == "backgammon-table" and verify_record(record).ok


def test_out_of_turn_is_refused_R43_and_changes_nothing(client: TestClient) -> None:
    table_id, ann_token, bob_token = two_people(client)
    with client.websocket_connect(f"/ws/tables/{table_id}") as ann, \
            client.websocket_connect(f"/ws/tables/{table_id}") as bob:
        hello(ann, [ann_token])
        hello(bob, [bob_token])
        ann.send_json({"type": "command", "seat": "ann", "id": 1, "command": {"type": "roll"}})
        state = until(ann, "state")
        until(bob, "state", lambda m: m["seq"] == state["seq"])
        mover = state["snapshots"]["ann"]["on_roll"]
        other, ws = ("bob", bob) if mover == "ann" else ("ann", ann)
        before = stored(client, table_id)
        ws.send_json({"type": "command", "seat": other, "id": 7, "command": {"type": "play", "move": "8/5 6/5", "confirm": True}})
        reply = recv(ws)
        assert reply["type"] == "refused" and reply["id"] == 7
        assert reply["refusal"] == {"action": "play", "player": other, "rule": "R43", "reason": f"it is {mover}'s turn, not yours"}
        assert stored(client, table_id) == before


def test_nobody_acts_for_another_seat_or_as_a_spectator(client: TestClient) -> None:
    table_id, ann_token, _ = two_people(client)
    before = stored(client, table_id)
    with client.websocket_connect(f"/ws/tables/{table_id}") as ann, \
            client.websocket_connect(f"/ws/tables/{table_id}") as watcher:
        hello(ann, [ann_token])
        welcome, state = hello(watcher, [], name="zoe")
        assert welcome["seats"] == [] and welcome["you"] == "zoe" and list(state["snapshots"]) == [""]
        assert state["plays"] == [] and state["snapshots"][""]["actions"] == []
        for seat in ("bob", "nobody"):
            ann.send_json({"type": "command", "seat": seat, "id": seat, "command": {"type": "roll"}})
            reply = recv(ann)
            assert reply["type"] == "error" and reply["id"] == seat and "you act for ann only" in reply["error"]
        for seat in ("ann", "bob"):
            watcher.send_json({"type": "command", "seat": seat, "id": 3, "command": {"type": "roll"}})
            assert "spectators cannot act" in recv(watcher)["error"]
        # a token of another table holds no seat here
        other = create(client)
        with client.websocket_connect(f"/ws/tables/{table_id}") as thief:
            thief.send_json({"type": "hello", "protocol": 1, "tokens": [other["token"]]})
            assert "holds no seat at this table" in recv(thief)["error"]
            assert recv(thief)["seats"] == []
    assert stored(client, table_id) == before


BAD_MESSAGES = [
    ("not json", "JSON text"),
    ("[1, 2]", "JSON object with a 'type'"),
    ('{"text": "no type"}', "JSON object with a 'type'"),
    ('{"type": "fly"}', "unknown message type 'fly'"),
    ('{"type": "command", "seat": "ann", "id": 1}', "needs 'command'"),
    ('{"type": "command", "seat": 5, "command": {"type": "roll"}}', "'seat' of a command message"),
    ('{"type": "command", "seat": "ann", "command": {"type": "jump"}}', "unknown type 'jump'"),
    ('{"type": "command", "seat": "ann", "command": {"type": "resign", "level": "2"}}', "level must be a whole number"),
    ('{"type": "command", "seat": "ann", "command": {"type": "roll", "dice": [6, 6]}}', "unexpected field(s) dice"),
    ('{"type": "chat", "text": ""}', "1-300 characters"),
    ('{"type": "chat", "text": 5}', "must be text"),
    ('{"type": "mute_spectators", "mute": "yes"}', "true or false"),
    ('{"type": "seed", "game": 1, "seed": "xyz"}', "16-128 hex digits"),
    ('{"type": "hello", "protocol": 2}', "speaks protocol 1"),
    (json.dumps({"type": "chat", "text": "x" * 5000}), "at most 4096 bytes"),
]


def test_malformed_oversized_and_unknown_messages_get_an_error_and_change_nothing(client: TestClient) -> None:
    created = create(client)
    table_id = created["table"]["id"]
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        ws.send_json({"type": "command", "seat": "ann", "command": {"type": "roll"}})
        assert "say hello first" in recv(ws)["error"]
        hello(ws, [created["token"]])
        before = stored(client, table_id)
        for text, words in BAD_MESSAGES:
            ws.send_text(text)
            reply = recv(ws)
            assert reply["type"] == "error" and words in reply["error"], (text, reply)
        ws.send_json({"type": "hello", "protocol": 1, "tokens": []})
        assert "already said hello" in recv(ws)["error"]
        assert stored(client, table_id) == before
        assert client.app.state.store.chat(table_id) == []  # type: ignore[attr-defined]
        ws.send_json({"type": "ping"})
        assert recv(ws) == {"type": "pong"}


def test_a_flood_is_throttled_then_closed_while_others_play_on(strict: TestClient) -> None:
    client = strict
    created = create(client)
    table_id = created["table"]["id"]
    with client.websocket_connect(f"/ws/tables/{table_id}") as flood, \
            client.websocket_connect(f"/ws/tables/{table_id}") as calm:
        hello(flood, [])
        hello(calm, [created["token"]])
        for _ in range(60):
            flood.send_json({"type": "ping"})
        replies = [recv(flood) for _ in range(60)]
        slow = [r for r in replies if r["type"] == "error"]
        assert len(slow) >= 15 and all("slow down" in r["error"] for r in slow)
        assert sum(r == {"type": "pong"} for r in replies) == 60 - len(slow)
        calm.send_json({"type": "ping"})
        assert recv(calm) == {"type": "pong"}
        for _ in range(200):
            flood.send_json({"type": "ping"})
        with pytest.raises(WebSocketDisconnect) as closed:
            for _ in range(400):
                recv(flood)
        assert closed.value.code == 1008
        calm.send_json({"type": "command", "seat": "ann", "id": 1, "command": {"type": "roll"}})
        assert recv(calm) == {"type": "ack", "id": 1}


def test_seeds_from_players_go_into_the_dice_until_the_first_die(client: TestClient) -> None:
    table_id, ann_token, bob_token = two_people(client)
    with client.websocket_connect(f"/ws/tables/{table_id}") as ann:
        _, state = hello(ann, [ann_token], client_seed="ab" * 16)
        assert state["fair"]["client_seeds"] == ["ab" * 16] and state["fair"]["game"] == 1
        ann.send_json({"type": "seed", "game": 1, "seed": "cd" * 8})
        assert until(ann, "state")["fair"]["client_seeds"] == ["ab" * 16, "cd" * 8]
        ann.send_json({"type": "seed", "game": 2, "seed": "cd" * 8})
        assert "not the current game" in recv(ann)["error"]
        ann.send_json({"type": "command", "seat": "ann", "id": 1, "command": {"type": "roll"}})
        until(ann, "state")
        ann.send_json({"type": "seed", "game": 1, "seed": "ef" * 8})
        assert "already being drawn" in recv(ann)["error"]
    record = client.get(f"/api/tables/{table_id}/record").json()
    assert record["fair"]["client_seeds"] == ["ab" * 16, "cd" * 8] and verify_record(record).ok


def test_a_tentative_play_is_applied_but_not_stored(client: TestClient) -> None:
    created = create(client, {**TWO_PEOPLE, "same_screen": True})
    table_id = created["table"]["id"]
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        hello(ws, list(created["tokens"].values()))
        ws.send_json({"type": "command", "seat": "ann", "id": 1, "command": {"type": "roll"}})
        state = until(ws, "state")
        mover = state["snapshots"]["ann"]["on_roll"]
        before = stored(client, table_id)
        move = state["plays"][0]["move"]
        ws.send_json({"type": "command", "seat": mover, "id": 2, "command": {"type": "play", "move": move}})
        assert recv(ws) == {"type": "ack", "id": 2}
        state = until(ws, "state")
        assert state["snapshots"][mover]["tentative"] is not None and state["seq"] == before[0]
        assert stored(client, table_id) == before
        ws.send_json({"type": "command", "seat": mover, "id": 3, "command": {"type": "confirm"}})
        assert recv(ws) == {"type": "ack", "id": 3}
        assert until(ws, "state")["seq"] == before[0] + 1


def test_hints_against_bots_only(client: TestClient) -> None:
    created = create(client)
    with client.websocket_connect(f"/ws/tables/{created['table']['id']}") as ws:
        _, state = hello(ws, [created["token"]])
        ws.send_json({"type": "hint", "seat": "random", "id": 1})
        assert "only for your own seat" in recv(ws)["error"]
        while "play" not in state["snapshots"]["ann"]["actions"]:
            if state["snapshots"]["ann"]["actions"]:
                play_turn(ws, "ann", state, 0)
            state = until(ws, "state", my_turn("ann"))
        ws.send_json({"type": "hint", "seat": "ann", "id": 2})
        reply = until(ws, "hint")
        assert reply["id"] == 2 and reply["seat"] == "ann" and reply["hint"]["kind"] == "plays"
        assert reply["hint"]["plays"][0]["move"] in state["snapshots"]["ann"]["legal"]
    people = create(client, {**TWO_PEOPLE, "same_screen": True})
    with client.websocket_connect(f"/ws/tables/{people['table']['id']}") as ws:
        hello(ws, list(people["tokens"].values()))
        ws.send_json({"type": "hint", "seat": "ann", "id": 3})
        reply = recv(ws)
        assert reply["id"] == 3 and "only against bots" in reply["error"]


# -- chat, spectators, rematch, lobby -------------------------------------------------------------


def test_chat_is_stored_and_players_can_mute_spectators(client: TestClient) -> None:
    created = create(client)
    table_id = created["table"]["id"]
    with client.websocket_connect(f"/ws/tables/{table_id}") as ann, \
            client.websocket_connect(f"/ws/tables/{table_id}") as zoe:
        hello(ann, [created["token"]])
        hello(zoe, [], name="zoe")
        ann.send_json({"type": "chat", "text": "  good luck "})
        for ws in (ann, zoe):
            line = until(ws, "chat")
            assert (line["from"], line["text"], line["spectator"]) == ("ann", "good luck", False)
        zoe.send_json({"type": "chat", "text": "hi from the rail"})
        assert until(ann, "chat")["spectator"] is True
        zoe.send_json({"type": "mute_spectators", "mute": True})
        assert "only players" in until(zoe, "error")["error"]
        ann.send_json({"type": "mute_spectators", "mute": True})
        assert until(zoe, "state")["table"]["spectators_muted"] is True
        zoe.send_json({"type": "chat", "text": "can you hear me?"})
        assert "muted spectators" in until(zoe, "error")["error"]
        ann.send_json({"type": "mute_spectators", "mute": False})
        until(zoe, "state", lambda m: not m["table"]["spectators_muted"])
        zoe.send_json({"type": "chat", "text": "thanks"})
        assert until(ann, "chat")["text"] == "thanks"
    rows = client.app.state.store.chat(table_id)  # type: ignore[attr-defined]
    assert [(r.name, r.text) for r in rows] == [("ann", "good luck"), ("zoe", "hi from the rail"), ("zoe", "thanks")]
    with client.websocket_connect(f"/ws/tables/{table_id}") as late:
        hello(late, [])
        assert [until(late, "chat")["text"] for _ in range(3)] == ["good luck", "hi from the rail", "thanks"]
    assert client.get(f"/api/tables/{table_id}").json()["spectators_muted"] is False


def test_rematch_gives_each_player_a_seat_at_the_new_table(client: TestClient) -> None:
    table_id, ann_token, bob_token = two_people(client)
    with client.websocket_connect(f"/ws/tables/{table_id}") as ann, \
            client.websocket_connect(f"/ws/tables/{table_id}") as bob, \
            client.websocket_connect(f"/ws/tables/{table_id}") as zoe:
        hello(ann, [ann_token])
        hello(bob, [bob_token])
        hello(zoe, [])
        assert client.post(f"/api/tables/{table_id}/rematch", json={"token": "forged"}).status_code == 403
        r = client.post(f"/api/tables/{table_id}/rematch", json={"token": ann_token})
        assert r.status_code == 200
        new = r.json()
        new_id = new["table"]["id"]
        assert new_id != table_id and list(new["tokens"]) == ["ann"] and new["table"]["status"] == "playing"
        assert new["table"]["length"] == 3 and [s["name"] for s in new["table"]["seats"]] == ["ann", "bob"]
        pushed = until(bob, "rematch")
        assert pushed["table"] == new_id and list(pushed["tokens"]) == ["bob"]
        assert until(zoe, "rematch") == {"type": "rematch", "table": new_id}
        with client.websocket_connect(f"/ws/tables/{new_id}") as bob2:
            welcome, _ = hello(bob2, [pushed["tokens"]["bob"]])
            assert welcome["seats"] == ["bob"]
        # asking again gives the same new table (a fresh token for the caller's seat)
        again = client.post(f"/api/tables/{table_id}/rematch", json={"token": bob_token}).json()
        assert again["table"]["id"] == new_id and list(again["tokens"]) == ["bob"]


def test_the_lobby_socket_hears_of_every_create_and_join(client: TestClient) -> None:
    with client.websocket_connect("/ws/lobby") as lobby:
        assert recv(lobby) == {"type": "lobby", "tables": []}
        created = create(client, TWO_PEOPLE)
        table_id = created["table"]["id"]
        tables = until(lobby, "lobby")["tables"]
        assert [(t["id"], t["status"]) for t in tables] == [(table_id, "waiting")]
        client.post(f"/api/tables/{table_id}/join", json={"name": "bob"})
        until(lobby, "lobby", lambda m: m["tables"][0]["status"] == "playing")
        second = create(client)
        tables = until(lobby, "lobby")["tables"]
        assert [t["id"] for t in tables] == [second["table"]["id"], table_id]  # the newest first


# -- HTTP odds and ends -------------------------------------------------------------------------


def test_pages_api_and_openapi(client: TestClient) -> None:
    assert client.get("/api/bots").json()["bots"][:2] == ["beginner", "casual"]
    for page in ("/", "/t/abc", "/verify"):
        assert client.get(page).status_code in (200, 404)
    missing = client.get("/api/tables/nope")
    assert missing.status_code == 404 and "no table 'nope'" in missing.json()["error"]
    with client.websocket_connect("/ws/tables/nope") as ws:
        assert "no table" in recv(ws)["error"]
    created = create(client, TWO_PEOPLE)
    waiting = client.get(f"/api/tables/{created['table']['id']}").json()
    assert waiting["snapshot"] is None and waiting["status"] == "waiting"
    assert client.get(f"/api/tables/{created['table']['id']}/record").status_code == 409
    assert client.post("/api/tables", content=b"{not json").status_code == 400
    document = client.get("/api/openapi.json").json()
    assert document == json.loads(json.dumps(OPENAPI)) and document["openapi"].startswith("3.")
    api_paths = {r.path for r in client.app.routes if getattr(r, "path", "").startswith("/api")}  # type: ignore[attr-defined]
    assert api_paths == set(document["paths"])
    for path, item in document["paths"].items():
        for method, operation in item.items():
            assert operation["responses"]["200"]["description"], (path, method)
            if "{id}" in path:
                assert operation["parameters"][0]["name"] == "id"

    def refs(node: Any) -> Iterator[str]:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "$ref":
                    yield value
                else:
                    yield from refs(value)
        elif isinstance(node, list):
            for value in node:
                yield from refs(value)

    names = set(document["components"]["schemas"])
    assert {r.rsplit("/", 1)[1] for r in refs(document)} <= names


# -- persistence --------------------------------------------------------------------------------


def play_some(client: TestClient, created: dict[str, Any], commands: int) -> dict[str, Any]:
    """Play ``commands`` commands of ann's against the bot; the last state seen."""
    with client.websocket_connect(f"/ws/tables/{created['table']['id']}") as ws:
        _, state = hello(ws, [created["token"]])
        for n in range(commands):
            if not state["snapshots"]["ann"]["actions"]:
                state = until(ws, "state", my_turn("ann"))
            play_turn(ws, "ann", state, n)
            assert recv(ws)["type"] == "ack"
            state = until(ws, "state", my_turn("ann"))
        return state


def check_resumes(url: str, dice: Any = None) -> None:
    with TestClient(create_app(url, dice_factory=dice, message_rate=1000, message_burst=1000)) as first:
        created = create(first)
        table_id = created["table"]["id"]
        seen = play_some(first, created, 6)
        record_before = first.get(f"/api/tables/{table_id}/record").json()
        info_before = first.get(f"/api/tables/{table_id}").json()
    with TestClient(create_app(url, dice_factory=dice)) as second:
        info_after = second.get(f"/api/tables/{table_id}").json()
        assert info_after == info_before
        assert second.get(f"/api/tables/{table_id}/record").json() == record_before
        with second.websocket_connect(f"/ws/tables/{table_id}") as ws:
            _, state = hello(ws, [created["token"]])
            assert state["seq"] == seen["seq"] and state["snapshots"] == seen["snapshots"]
            assert state["plays"] == seen["plays"] and state["fair"] == seen["fair"]
            assert state["log"] == seen["log"]
            play_turn(ws, "ann", state, 99)  # and play goes on
            assert recv(ws) == {"type": "ack", "id": 99}


def test_a_table_resumes_exactly_over_the_same_sqlite_file(db: str) -> None:
    check_resumes(db, seeded("resume"))


def test_a_damaged_table_does_not_stop_the_server(db: str) -> None:
    with TestClient(create_app(db)) as first:
        good, bad = create(first), create(first)
        engine = sa.create_engine(db)
        with engine.begin() as connection:
            connection.execute(sa.text("update tables set state = :s where id = :i"),
                               {"s": json.dumps({"table": {"format": "nonsense"}, "fair": {}}), "i": bad["table"]["id"]})
        engine.dispose()
    with TestClient(create_app(db)) as second:
        assert {t["id"] for t in second.get("/api/tables").json()["tables"]} == {good["table"]["id"], bad["table"]["id"]}
        broken = second.get(f"/api/tables/{bad['table']['id']}")
        assert broken.status_code == 500 and "cannot be reopened" in broken.json()["error"]
        assert second.get(f"/api/tables/{good['table']['id']}").json()["status"] == "playing"


@pytest.fixture
def pg_url() -> Iterator[str]:
    """PostgreSQL (a fresh schema, dropped afterwards)."""
    base = os.environ.get("BACKGAMMON_TEST_POSTGRES", "postgresql+psycopg://postgres@127.0.0.1:5432/test")
    admin = sa.create_engine(base, connect_args={"connect_timeout": 3})
    schema = "test_server_" + uuid.uuid4().hex[:12]
    try:
        with admin.begin() as connection:
            connection.execute(sa.text(f'create schema "{schema}"'))
    except sa.exc.OperationalError as exc:
        admin.dispose()
        if os.environ.get("BACKGAMMON_REQUIRE_POSTGRES") == "1":
            pytest.fail(f"PostgreSQL is unreachable at {base}: {exc.orig}")
        pytest.skip(f"PostgreSQL is unreachable at {base}: {exc.orig}")
    try:
        yield f"{base}?options=-csearch_path%3D{schema}"
    finally:
        with admin.begin() as connection:
            connection.execute(sa.text(f'drop schema "{schema}" cascade'))
        admin.dispose()


def test_a_table_resumes_exactly_over_postgresql(pg_url: str) -> None:
    check_resumes(pg_url)


# -- the real server ----------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def start_server(port: int, url: str) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "backgammon.cli", "serve", "--port", str(port), "--database", url, "--bot-delay", "0"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT,
    )
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                return process
        except OSError:
            if process.poll() is not None:
                raise AssertionError(f"the server did not start: {process.stdout.read() if process.stdout else ''}")
            time.sleep(0.1)
    process.kill()
    raise AssertionError("the server did not open its port within 30 s")


def test_serve_survives_sigkill_with_the_table_exactly_as_it_was(tmp_path: Path) -> None:
    import httpx
    import websockets

    url = f"sqlite:///{tmp_path}/club.sqlite3"
    port = free_port()
    base = f"http://127.0.0.1:{port}"

    async def session(token: str, table_id: str, commands: int) -> dict[str, Any]:
        async with websockets.connect(f"ws://127.0.0.1:{port}/ws/tables/{table_id}") as ws:
            await ws.send(json.dumps({"type": "hello", "protocol": 1, "tokens": [token]}))
            state: dict[str, Any] = {}

            async def next_state(pred: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
                while True:
                    message = json.loads(await asyncio.wait_for(ws.recv(), 20))
                    if message["type"] == "state" and pred(message):
                        return message

            state = await next_state(lambda m: True)
            for n in range(commands):
                if not state["snapshots"]["ann"]["actions"]:
                    state = await next_state(my_turn("ann"))
                actions = state["snapshots"]["ann"]["actions"]
                if "play" in actions:
                    command = {"type": "play", "move": state["plays"][0]["move"] if state["plays"] else "", "confirm": True}
                else:
                    command = {"type": next(a for a in ("roll", "take", "accept") if a in actions)}
                await ws.send(json.dumps({"type": "command", "seat": "ann", "id": n, "command": command}))
                state = await next_state(my_turn("ann"))
            return state

    server = start_server(port, url)
    try:
        created = httpx.post(f"{base}/api/tables", json=VS_BOT).json()
        table_id, token = created["table"]["id"], created["token"]
        before = asyncio.run(session(token, table_id, 5))
        assert before["seq"] >= 5
        server.send_signal(signal.SIGKILL)
        server.wait(10)
        server = start_server(port, url)
        after = asyncio.run(session(token, table_id, 0))
        assert (after["seq"], after["snapshots"], after["plays"]) == (before["seq"], before["snapshots"], before["plays"])
        assert asyncio.run(session(token, table_id, 1))["seq"] > before["seq"]
        server.send_signal(signal.SIGINT)  # Ctrl-C stops it cleanly
        assert server.wait(15) == 0
    finally:
        if server.poll() is None:
            server.kill()
            server.wait(10)


def test_same_screen_seats_may_be_named(client: TestClient) -> None:
    created = create(client, {**TWO_PEOPLE, "same_screen": True,
                              "seats": [{"kind": "human"}, {"kind": "human", "name": "  bob  "}]})
    assert sorted(created["tokens"]) == ["ann", "bob"]
    clash = create(client, {**TWO_PEOPLE, "same_screen": True,
                            "seats": [{"kind": "human"}, {"kind": "human", "name": "ann"}]})
    assert sorted(clash["tokens"]) == ["ann", "ann 2"]
    r = client.post("/api/tables", json={**TWO_PEOPLE, "same_screen": True,
                                         "seats": [{"kind": "human"}, {"kind": "human", "name": ""}]})
    assert r.status_code == 400 and "a name is needed" in r.json()["error"]
