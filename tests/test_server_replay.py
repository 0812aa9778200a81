"""Replays (backgammon.server.replay): a table's history as frames, one per log event.

Bots play real matches, money sessions and chouettes through :mod:`backgammon.table` with real
fair dice; the frames are rebuilt from ``Table.to_dict()`` alone and compared with the table as
it was played (its spectator snapshot, its narration, its rolls). The route runs over the real
application: a person plays a bot through the WebSocket, then the replay is fetched.
"""

from __future__ import annotations

import copy
import hashlib
import random
import time
from collections import Counter
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest
from starlette.applications import Starlette
from starlette.routing import Route
from starlette.testclient import TestClient

from backgammon.bots.base import CubeResponse
from backgammon.bots.randombot import RandomBot
from backgammon.fairdice import FairDice
from backgammon.matchid import MatchState
from backgammon.position import Position
from backgammon.rules import Rules
from backgammon.server import replay
from backgammon.server.app import create_app
from backgammon.server.openapi import OPENAPI
from backgammon.server.replay import ReplayError, frames
from backgammon.table import Narrator, Seat, Table
from backgammon.table import commands as cmd

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

REPLAY_PATH = "/api/tables/{id}/replay"


class CubeBot(RandomBot):
    """Random plays, and a random cube: doubles now and then, takes most doubles, beavers some
    (money only: a match's front end treats a beaver as a take)."""

    def should_double(self, position: Position, state: MatchState) -> bool:
        return self.rng.random() < 0.2

    def respond_to_double(self, position: Position, state: MatchState) -> CubeResponse:
        r = self.rng.random()
        if r < 0.15 and not state.match_length:
            return CubeResponse.BEAVER
        return CubeResponse.TAKE if r < 0.75 else CubeResponse.PASS


def fair_dice(seed: int) -> FairDice:
    """Fair dice whose server seeds are reproducible (a server never does this)."""
    rng = random.Random(seed)
    return FairDice(entropy=rng.randbytes)


class Played:
    """A table played by bots, with its fair dice and the narration told as it was played."""

    def __init__(self, table: Table, fair: FairDice) -> None:
        self.table = table
        self.fair = fair
        self.narrator = Narrator(table, None)
        self.lines = [line.to_dict() for line in self.narrator.lines(table.contest.events)]

    def keep_up(self, events: tuple[Any, ...]) -> None:
        """Narrate ``events`` and move the fair dice on as the server does."""
        self.lines += [line.to_dict() for line in self.narrator.lines(events)]
        contest = self.table.contest
        self.fair.advance_to(contest.game_number + contest.game_over())

    def drive(self, until: Callable[[Table], bool], limit: int = 20_000) -> None:
        """Let the bots act until ``until(table)`` (a chouette's next game is started here)."""
        t = self.table
        for _ in range(limit):
            if until(t) or t.contest.is_over():
                return
            seat = t.bot_to_act()
            if seat is None:
                assert t.contest.game_over(), "the bots stopped in the middle of a game"
                outcome = t.submit(t.contest.seats[0], cmd.NextGame())
                assert outcome.accepted, outcome.refusal
            else:
                outcome = t.play_bot(seat)
            self.keep_up(outcome.events)
        raise AssertionError("the bots never stopped")

    def record(self) -> tuple[dict[str, Any], dict[str, Any]]:
        """``Table.to_dict()`` and the public fair dice, as the record route gives them."""
        return self.table.to_dict(), self.fair.public()


def bots(names: list[str], seed: int) -> list[Seat]:
    return [Seat(name, "random", seed=seed + i) for i, name in enumerate(names)]


def cube_bots(table: Table, seed: int) -> None:
    for i, seat in enumerate(table.seats):
        table.use_bot(seat.name, CubeBot(seed=seed + i))


def a_match(length: int = 7, seed: int = 1) -> Played:
    fair = fair_dice(seed)
    table = Table.match(bots(["ann", "bob"], seed), length=length, dice=fair)
    cube_bots(table, seed)
    played = Played(table, fair)
    played.drive(lambda t: False)
    assert table.contest.is_over()
    return played


@pytest.fixture(scope="module")
def match7() -> Played:
    return a_match(7, seed=1)


def check_frames(played: Played, out: dict[str, Any]) -> list[dict[str, Any]]:
    """What every replay must be: a frame per event, in order, ending at the table as it is,
    with the narration told live."""
    t = played.table
    log = t.to_dict()["log"]["events"]
    shown: list[dict[str, Any]] = out["frames"]
    assert len(shown) == len(log)
    assert [f["index"] for f in shown] == list(range(len(log)))
    assert [f["event"] for f in shown] == log
    assert shown[-1]["snapshot"] == t.snapshot(None).to_dict()
    assert [line for f in shown for line in f["lines"]] == played.lines
    assert all(f["line"] == " ".join(line["text"] for line in f["lines"]) for f in shown)
    games = [f["game"] for f in shown]
    assert games == sorted(games) and games[0] == 1 and games[-1] == t.contest.game_number
    # every roll is shown: its frame has those dice on the board, the higher first
    rolls = [(i, e) for i, e in enumerate(log) if e["type"] == "roll"]
    assert rolls
    for i, event in rolls:
        assert shown[i]["kind"] == "roll"
        assert shown[i]["snapshot"]["dice"] == sorted(event["dice"], reverse=True)
    return shown


def test_a_match_of_bots_replays_event_by_event(match7: Played) -> None:
    t = match7.table
    table_data, fair = match7.record()
    out = frames(table_data, fair)
    shown = check_frames(match7, out)
    first = shown[0]
    fresh = Table.match([Seat("ann", "random", seed=1), Seat("bob", "random", seed=2)], length=7)
    assert first["kind"] == "start" and first["snapshot"] == fresh.snapshot(None).to_dict()
    assert first["snapshot"]["phase"] == "opening" and first["score"] == [0, 0]
    kinds = Counter(f["kind"] for f in shown)
    assert {"start", "roll", "play", "double", "take", "game", "match"} <= set(kinds), kinds
    assert kinds["start"] == t.contest.game_number
    assert kinds["match"] == 1 and shown[-1]["kind"] == "match"
    # the frame of a take shows the cube turned (R29); the double's frame shows it offered
    for i, f in enumerate(shown):
        if f["kind"] == "take":
            assert f["snapshot"]["cube"] == f["event"]["cube"]
            assert shown[i - 1]["snapshot"]["offer"]["cube"] == f["event"]["cube"]
    # each game's start frame has the score of its game_start event (R32)
    for f in shown:
        if f["kind"] == "start":
            assert f["score"] == f["event"]["score"]
    # every game but the last ends on its own final board, then the next starts afresh
    for i, f in enumerate(shown):
        if f["kind"] == "game" and i + 1 < len(shown) and shown[i + 1]["kind"] == "start":
            board = f["snapshot"]["board"]
            assert f["snapshot"]["phase"] == "over" and f["snapshot"]["dice"] is None
            assert f["game"] == shown[i + 1]["game"] - 1
            result = f["event"]["result"]
            if result["kind"] != "passed" and result["kind"] != "resigned":
                assert board["off"][result["winner"]] == 15  # the winner bore off every checker
            assert shown[i + 1]["snapshot"]["board"]["pips"] == [167, 167]
    # the fair dice: every game committed, revealed and verified
    proof = out["fair"]
    assert proof["verified"] and proof["proven"], proof["report"]
    assert [g["game"] for g in proof["games"]] == list(range(1, t.contest.game_number + 1))
    for g in proof["games"]:
        assert g["ok"] and g["revealed"]
        assert hashlib.sha256(bytes.fromhex(g["server_seed"])).hexdigest() == g["commitment"]
        assert shown[g["frame"]]["kind"] == "start" and shown[g["frame"]]["game"] == g["game"]
    assert sum(len(g["rolls"]) for g in proof["games"]) == sum(
        len(e["dice"]) for e in table_data["log"]["events"] if "dice" in e)


def test_a_seven_point_match_builds_well_under_a_second(match7: Played) -> None:
    table_data, fair = match7.record()
    frames(table_data, fair)  # warm up (imports, caches)
    start = time.perf_counter()
    out = frames(table_data, fair)
    took = time.perf_counter() - start
    assert len(out["frames"]) == len(table_data["log"]["events"]) > 100
    assert took < 1.0, f"{len(out['frames'])} frames took {took:.2f} s"


def test_a_money_session_with_beavers_replays() -> None:
    fair = fair_dice(5)
    table = Table.match(bots(["ann", "bob"], 5), length=0, rules=Rules(beavers=True, jacoby=True), dice=fair)
    cube_bots(table, 5)
    played = Played(table, fair)
    played.drive(lambda t: t.contest.game_number > 6)
    out = frames(*played.record())
    shown = check_frames(played, out)
    kinds = {f["kind"] for f in shown}
    assert {"start", "roll", "play", "double", "take", "beaver", "game"} <= kinds, kinds
    assert "match" not in kinds and shown[0]["snapshot"]["kind"] == "money"
    assert shown[-1]["score"] == list(table.contest.match.score)  # type: ignore[attr-defined]
    # a money session goes on: the current game's seed is not revealed yet, so nothing is
    # proven although everything checks
    proof = out["fair"]
    assert proof["verified"] and not proof["proven"]
    assert [g["revealed"] for g in proof["games"]] == [True] * 6 + [False]


def test_a_chouette_replays_with_its_roll_off_and_rotation() -> None:
    fair = fair_dice(3)
    names = ["ann", "bob", "cy", "dee"]
    table = Table.chouette(bots(names, 3), Rules(beavers=True), dice=fair)
    cube_bots(table, 3)
    played = Played(table, fair)
    played.drive(lambda t: t.contest.game_number > 3 and not t.contest.game_over())
    out = frames(*played.record())
    shown = check_frames(played, out)
    kinds = Counter(f["kind"] for f in shown)
    assert {"rolloff", "start", "roll", "play", "game", "next_game", "payment"} <= set(kinds), kinds
    assert kinds["start"] == 4 and kinds["game"] == 3
    assert shown[0]["kind"] == "rolloff" and shown[0]["snapshot"]["kind"] == "chouette"
    # the box of each game is the one its start event names (R37, R38)
    for f in shown:
        if f["kind"] == "start":
            box = next(s for s in f["snapshot"]["seats"] if s["role"] == "box")
            assert box["name"] == f["event"]["box"]
    proof = out["fair"]
    assert proof["verified"], proof["report"]
    assert [g["revealed"] for g in proof["games"]] == [True, True, True, False]


def test_a_forfeited_match_ends_with_the_forfeit() -> None:
    fair = fair_dice(12)
    table = Table.match(bots(["ann", "bob"], 12), length=5, dice=fair)  # random bots: no cube
    played = Played(table, fair)
    played.drive(lambda t: t.contest.game_number > 2)
    assert not table.contest.is_over()
    played.keep_up(table.forfeit("bob", "time").events)
    out = frames(*played.record())
    shown = check_frames(played, out)
    assert [f["kind"] for f in shown[-2:]] == ["forfeit", "match"]
    assert shown[-1]["snapshot"]["over"] and shown[-1]["score"][0] == 5


def test_a_log_that_breaks_the_rules_is_refused_with_the_event_named(match7: Played) -> None:
    table_data, fair = match7.record()
    damaged = copy.deepcopy(table_data)
    events = damaged["log"]["events"]
    i = next(i for i, e in enumerate(events) if e["type"] == "play" and e["move"])
    events[i]["move"] = "24/1"
    with pytest.raises(ReplayError, match=f"event {i} "):
        frames(damaged, fair)
    with pytest.raises(ReplayError, match="not a saved table"):
        frames({"format": "backgammon-table"}, fair)


def test_a_tampered_seed_is_reported_not_proven(match7: Played) -> None:
    table_data, fair = match7.record()
    bad = copy.deepcopy(fair)
    seed = bad["revealed"][0]["server_seed"]
    bad["revealed"][0]["server_seed"] = ("0" if seed[0] != "0" else "1") + seed[1:]
    proof = frames(table_data, bad)["fair"]
    assert not proof["verified"] and not proof["proven"]
    assert not proof["games"][0]["ok"] and proof["games"][1]["ok"]
    assert "does not match the commitment" in " ".join(proof["messages"])


# -- the route over the real application ---------------------------------------------------------


def seeded(seed: str) -> Callable[[Mapping[str, Any] | None], FairDice]:
    """A dice factory whose first game's server seed is fixed."""

    def factory(state: Mapping[str, Any] | None) -> FairDice:
        if state is not None:
            return FairDice.from_dict(state)
        secret = hashlib.sha256(seed.encode()).hexdigest()
        return FairDice.from_dict(
            {"version": 1, "game": 1, "server_seed": secret, "client_seeds": [], "dice": [], "revealed": []})

    return factory


def with_replay(app: Starlette) -> Starlette:
    """``app`` with the replay's routes, unless the application mounts them itself."""
    if not any(getattr(r, "path", None) == REPLAY_PATH for r in app.router.routes):
        app.router.routes[0:0] = replay.routes()
    return app


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    app = create_app(f"sqlite:///{tmp_path}/club.sqlite3", dice_factory=seeded("replay"),
                     message_rate=1000, message_burst=1000)
    with TestClient(with_replay(app)) as c:
        yield c


def _until(ws: Any, pred: Callable[[dict[str, Any]], bool], limit: int = 1000) -> dict[str, Any]:
    for _ in range(limit):
        message: dict[str, Any] = ws.receive_json()
        if pred(message):
            return message
    raise AssertionError("the message never came")


def play(client: TestClient, kind: str = "match", length: int = 1, games: int = 0, name: str = "ann",
         limit: int = 5000) -> str:
    """``name`` plays the random bot over the WebSocket (always the first legal play, always
    taking) until the match is over or, with ``games``, until that many games are over; then
    leaves (a money session ends so). The table's id; at most ``limit`` commands."""
    body: dict[str, Any] = {"kind": kind, "name": name, "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}]}
    if kind == "match":
        body["length"] = length
    created = client.post("/api/tables", json=body).json()
    table_id: str = created["table"]["id"]
    with client.websocket_connect(f"/ws/tables/{table_id}") as ws:
        ws.send_json({"type": "hello", "protocol": 1, "tokens": [created["token"]]})
        state = _until(ws, lambda m: m["type"] == "state")
        for n in range(limit):
            snap = state["snapshots"][name]
            if snap["over"]:
                return table_id
            if games and (snap["game_number"] > games or (snap["game_number"] == games and snap["phase"] == "over")):
                ws.send_json({"type": "leave", "seat": name, "id": "bye"})
                assert _until(ws, lambda m: m["type"] in ("ack", "error")) == {"type": "ack", "id": "bye"}
                return table_id
            actions = snap["actions"]
            if not actions:
                state = _until(ws, lambda m: m["type"] == "state" and (
                    bool(m["snapshots"][name]["actions"]) or m["snapshots"][name]["over"]))
                continue
            if "play" in actions:
                command = {"type": "play", "move": state["plays"][0]["move"] if state["plays"] else "", "confirm": True}
            else:
                command = {"type": next(a for a in ("roll", "take", "accept", "next_game") if a in actions)}
            ws.send_json({"type": "command", "seat": name, "id": n, "command": command})
            assert _until(ws, lambda m: m["type"] in ("ack", "refused", "error")) == {"type": "ack", "id": n}
            state = _until(ws, lambda m: m["type"] == "state")
    raise AssertionError("the match did not end")


def play_against_a_bot(client: TestClient, length: int = 3, name: str = "ann") -> str:
    """A person (``name``) plays a ``length``-point match against the random bot over the
    WebSocket, always the first legal play, always taking; the table's id once it is over."""
    return play(client, "match", length, name=name, limit=3000)


def test_the_replay_route_gives_the_frames_of_a_match_played_online(client: TestClient) -> None:
    table_id = play_against_a_bot(client, 3)
    got = client.get(f"/api/tables/{table_id}/replay")
    assert got.status_code == 200, got.text
    data = got.json()
    record = client.get(f"/api/tables/{table_id}/record").json()
    live = client.get(f"/api/tables/{table_id}").json()
    assert data["id"] == table_id and data["info"]["status"] == "over"
    assert len(data["frames"]) == len(record["log"]["events"])
    assert data["frames"][-1]["snapshot"] == live["snapshot"]
    assert data["frames"][0]["kind"] == "start"
    assert data["fair"]["verified"] and data["fair"]["proven"], data["fair"]["report"]
    assert {"roll", "play", "game", "match"} <= {f["kind"] for f in data["frames"]}
    page = client.get(f"/r/{table_id}")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]
    assert "/static/replay.js" in page.text and 'id="account"' in page.text
    assert client.get("/static/replay.js").status_code == 200


def test_the_replay_route_refuses_a_waiting_or_unknown_table(client: TestClient) -> None:
    body = {"kind": "match", "length": 3, "name": "ann", "seats": [{"kind": "human"}, {"kind": "human"}]}
    waiting = client.post("/api/tables", json=body).json()["table"]["id"]
    got = client.get(f"/api/tables/{waiting}/replay")
    assert got.status_code == 409 and "every seat must be taken" in got.json()["error"]
    missing = client.get("/api/tables/nosuchtable/replay")
    assert missing.status_code == 404 and "no table" in missing.json()["error"]


def test_the_openapi_paths_describe_the_route() -> None:
    paths = replay.OPENAPI_PATHS
    assert set(paths) == {REPLAY_PATH}
    assert REPLAY_PATH in {r.path for r in replay.routes() if isinstance(r, Route)}
    operation = paths[REPLAY_PATH]["get"]
    assert {"200", "404", "409"} <= set(operation["responses"])

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

    for ref in refs(paths):
        name = ref.removeprefix("#/components/schemas/")
        assert name in OPENAPI["components"]["schemas"], ref
