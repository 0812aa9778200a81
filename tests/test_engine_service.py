"""The engine service (issue 13, docs/ANALYSIS-DESIGN.md part 4): ``backgammon engine`` and its
HTTP API — best plays, evaluations, cube decisions, every refusal, the OpenAPI document."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import jsonschema  # type: ignore[import-untyped]
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st
from openapi_spec_validator import validate
from starlette.routing import Route
from starlette.testclient import TestClient

from backgammon import Position
from backgammon.bots import analysis
from backgammon.commands import engine as engine_command
from backgammon.matchid import GameState, MatchState
from backgammon.server.engine_service import (
    EngineSettings,
    answer_move,
    engine_app,
    openapi_document,
)
from backgammon.xgid import XGID, CubeOffer

ROOT = Path(__file__).resolve().parent.parent
OPENING = "4HPwATDgc/ABMA"
#: a race, 69 pips against 96, the side on roll far ahead: double, pass
RACE_PASS = "2N1tAAC2uxsAAA"
#: the opening position in a 7-point match at 3-1 for player 1 (bottom), player 1 on roll
MATCH_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:3:1:0:7:10"


@pytest.fixture(scope="module")
def client() -> Iterator[TestClient]:
    with TestClient(engine_app(EngineSettings(warm_up=False))) as c:
        yield c


def refusal(response: httpx.Response, status: int = 400) -> tuple[str | None, str]:
    assert response.status_code == status, response.text
    error = response.json()["error"]
    assert set(error) == {"field", "reason"} and error["reason"]
    return error["field"], error["reason"]


# -- best plays ------------------------------------------------------------------------------------


def test_opening_plays(client: TestClient) -> None:
    a = client.post("/v1/move", json={"position_id": OPENING, "dice": [3, 1]}).json()
    assert a["best"] == "8/5 6/5" and a["unit"] == "equity" and a["money"] and a["legal"] == 16
    assert a["plies"] == 1 and a["deep"] == 5 and a["dice"] == [3, 1] and a["adviser"] == "expert"
    plays = a["plays"]
    assert [p["rank"] for p in plays] == list(range(1, 17)) and len({p["move"] for p in plays}) == 16
    assert [p["plies"] for p in plays] == [1] * 5 + [0] * 11
    assert plays[0]["difference"] == 0.0 and all(p["difference"] <= 0 for p in plays)
    deep = [p["value"] for p in plays[:5]]
    assert deep == sorted(deep, reverse=True)
    assert abs(plays[0]["equity"] - plays[0]["value"]) < 1e-12  # money: cubeless equity
    # the position after 8/5 6/5, seen by the opponent on roll next
    after = Position.from_position_id(plays[0]["position_id"])
    assert after == Position.initial().play(Position.initial().parse_move("8/5 6/5", (3, 1)))
    # dice as text, the best of 6-5 at 0 ply, only the best 2 listed
    b = client.post("/v1/move", json={"position_id": OPENING, "dice": "6-5", "plies": 0, "limit": 2}).json()
    assert b["best"] == "24/13" and b["plies"] == 0 and len(b["plays"]) == 2 and b["legal"] > 2
    assert all(p["plies"] == 0 for p in b["plays"])


def test_dice_from_the_match_id_or_the_xgid(client: TestClient) -> None:
    mid = MatchState(dice=(3, 1)).to_match_id()
    a = client.post("/v1/move", json={"position_id": OPENING, "match_id": mid, "count": 2}).json()
    assert a["best"] == "8/5 6/5" and a["deep"] == 2 and a["match_id"] == mid
    x = client.post("/v1/move", json={"xgid": "XGID=-b----E-C---eE---c-e----B-:0:0:1:31:0:0:0:0:10"}).json()
    assert x["best"] == "8/5 6/5" and x["player"] == 1  # the bottom player is gnubg's player 1
    # the dice of the body agree with the ID's (in either order)
    same = client.post("/v1/move", json={"position_id": OPENING, "match_id": mid, "dice": [1, 3]})
    assert same.status_code == 200 and same.json()["best"] == "8/5 6/5"


def test_no_legal_play() -> None:
    # on the bar against a closed board: the roll has no play
    dance = Position([0] * 24 + [2], [2] * 6 + [0] * 19)
    a = answer_move({"position_id": dance.position_id(), "dice": [3, 1]}, EngineSettings(warm_up=False))
    assert a["best"] is None and a["plays"] == [] and a["legal"] == 0


def test_xgid_and_position_id_with_match_id_agree(client: TestClient) -> None:
    for text in (MATCH_XGID.replace(":00:", ":52:"), "XGID=-b----E-C---eE---c-e----B-:1:-1:-1:64:2:4:0:9:10"):
        x = XGID.from_xgid(text)
        ids = {"position_id": x.position().position_id(), "match_id": x.match_state().to_match_id()}
        for route in ("/v1/move", "/v1/evaluate", "/v1/cube"):
            by_xgid = client.post(route, json={"xgid": text}).json()
            by_ids = client.post(route, json=ids).json()
            assert by_xgid == by_ids, route
            assert by_xgid["xgid"] == text and by_ids["position_id"] == ids["position_id"]


def test_match_play_answers_in_match_winning_chances(client: TestClient) -> None:
    """R32: a match to N points; the values are the mover's match winning chances."""
    move = client.post("/v1/move", json={"xgid": MATCH_XGID, "dice": [3, 1]}).json()
    assert move["unit"] == "mwc" and not move["money"] and move["length"] == 7 and move["score"] == [1, 3]
    assert move["best"] == "8/5 6/5" and all(0.0 <= p["value"] <= 1.0 for p in move["plays"])
    ev = client.post("/v1/evaluate", json={"xgid": MATCH_XGID}).json()
    assert ev["unit"] == "mwc" and ev["cubeful_equity"] is None
    assert 0.0 < ev["cubeless_mwc"] < 1.0 and 0.0 < ev["cubeful_mwc"] < 1.0
    cube = client.post("/v1/cube", json={"xgid": MATCH_XGID}).json()
    assert cube["unit"] == "mwc" and cube["cube"]["action"] == "no double"
    assert all(0.0 <= cube["cube"][k] <= 1.0 for k in ("no_double", "double_take", "double_pass"))
    assert all(0.0 <= cube["take"][k] <= 1.0 for k in ("take", "pass"))
    assert abs(cube["cube"]["no_double"] - ev["cubeful_mwc"]) < 1e-12  # the same depth, the same value


# -- evaluations -----------------------------------------------------------------------------------


def test_evaluate_money(client: TestClient) -> None:
    a = client.post("/v1/evaluate", json={"position_id": OPENING}).json()
    p = a["probabilities"]
    assert 0.45 < p["win"] < 0.6 and abs(p["win"] + p["lose"] - 1.0) < 1e-12
    assert p["win_backgammon"] <= p["win_gammon"] <= p["win"]
    equity = 2 * p["win"] - 1 + p["win_gammon"] - p["lose_gammon"] + p["win_backgammon"] - p["lose_backgammon"]
    assert abs(a["cubeless_equity"] - equity) < 1e-12
    assert a["cube_action"] == "no double" and a["cubeless_mwc"] is None and a["cubeful_mwc"] is None
    assert a["cubeful_equity"] > a["cubeless_equity"]  # owning access to the cube is worth something
    # 0 ply is a different number from 1 ply
    zero = client.post("/v1/evaluate", json={"position_id": OPENING, "plies": 0}).json()
    assert zero["plies"] == 0 and zero["probabilities"] != p


def test_cubeful_equity_is_per_unit_of_cube(client: TestClient) -> None:
    centred = client.post("/v1/evaluate", json={"position_id": RACE_PASS, "plies": 0}).json()
    assert centred["cube_action"] == "double, pass" and centred["cubeful_equity"] == 1.0
    mid = MatchState(cube_value=4, cube_owner=0).to_match_id()
    owned = client.post("/v1/evaluate", json={"position_id": RACE_PASS, "match_id": mid, "plies": 0}).json()
    assert owned["cube_value"] == 4 and owned["cube_owner"] == 0 and owned["cubeful_equity"] == 1.0


def test_batch_is_the_singles(client: TestClient) -> None:
    items = [{"position_id": OPENING}, {"xgid": MATCH_XGID}, {"position_id": RACE_PASS}]
    batch = client.post("/v1/evaluate", json={"positions": items, "plies": 1}).json()["results"]
    singles = [client.post("/v1/evaluate", json={**item, "plies": 1}).json() for item in items]
    assert batch == singles


# -- the cube --------------------------------------------------------------------------------------


def test_obvious_double_pass(client: TestClient) -> None:
    a = client.post("/v1/cube", json={"position_id": RACE_PASS}).json()
    cube, take = a["cube"], a["take"]
    assert cube["action"] == "double, pass" and cube["double"] and cube["available"]
    assert cube["double_pass"] == 1.0 and cube["no_double"] < 1.0 < cube["double_take"]
    assert take["action"] == "pass" and take["pass"] == -1.0 and take["take"] < take["pass"]
    assert a["probabilities"]["win"] > 0.9 and not a["double_offered"]


def test_opening_is_no_double_take(client: TestClient) -> None:
    a = client.post("/v1/cube", json={"position_id": OPENING, "plies": 0}).json()
    assert a["cube"]["action"] == "no double" and a["take"]["action"] == "take"
    assert a["cube"]["double_pass"] == 1.0 and a["take"]["take"] == -a["cube"]["double_take"]


def test_cube_rules(client: TestClient) -> None:
    # R27: the cube is the opponent's, so the player on roll may not double
    mid = MatchState(cube_value=2, cube_owner=1).to_match_id()
    a = client.post("/v1/cube", json={"position_id": RACE_PASS, "match_id": mid, "plies": 0}).json()
    assert a["cube"]["action"] == "no cube action" and not a["cube"]["available"]
    # R33: nobody doubles in the Crawford game
    crawford = MatchState(match_length=5, score=(2, 4), crawford=True).to_match_id()
    b = client.post("/v1/cube", json={"position_id": RACE_PASS, "match_id": crawford, "plies": 0}).json()
    assert b["cube"]["action"] == "no cube action" and b["unit"] == "mwc"
    # R30: beavers only where the XGID allows them (rules field 2), and only in money play
    lost = Position.from_position_id(RACE_PASS).swap()
    board = XGID(lost.player, lost.opponent, beaver=True).to_xgid()
    c = client.post("/v1/cube", json={"xgid": board, "plies": 0}).json()
    assert c["take"]["action"] == "beaver" and c["take"]["beaver"]
    d = client.post("/v1/cube", json={"position_id": lost.position_id(), "plies": 0}).json()
    assert d["take"]["action"] == "take"


def test_a_pending_double_is_the_doublers_decision(client: TestClient) -> None:
    x = XGID.from_xgid(MATCH_XGID)
    pending = XGID(x.player, x.opponent, turn=x.turn, cube_offer=CubeOffer.DOUBLE, score=x.score,
                   match_length=7).to_xgid()
    a = client.post("/v1/cube", json={"xgid": pending}).json()
    b = client.post("/v1/cube", json={"xgid": MATCH_XGID}).json()
    assert a["double_offered"] and not b["double_offered"]
    assert a["cube"] == b["cube"] and a["take"] == b["take"]
    field, reason = refusal(client.post("/v1/move", json={"xgid": pending, "dice": [3, 1]}))
    assert field == "xgid" and "double awaits an answer" in reason


# -- refusals --------------------------------------------------------------------------------------


@pytest.mark.parametrize("body, field, words", [
    ({"position_id": "abc", "dice": [3, 1]}, "position_id", "'abc'"),
    ({"position_id": 42, "dice": [3, 1]}, "position_id", "42 is not a string"),
    ({"position_id": OPENING, "match_id": "cAkAAAAAAA", "dice": [3, 1]}, "match_id", "'cAkAAAAAAA'"),
    ({"xgid": "XGID=nonsense", "dice": [3, 1]}, "xgid", "'XGID=nonsense'"),
    ({"xgid": MATCH_XGID, "position_id": OPENING, "dice": [3, 1]}, "xgid", "not both"),
    ({"dice": [3, 1]}, "position_id", "a position is needed"),
    ({"position_id": OPENING, "dice": [7, 1]}, "dice", "[7, 1] is not a roll"),
    ({"position_id": OPENING, "dice": "77"}, "dice", "'77' is not a roll"),
    ({"position_id": OPENING, "dice": [3]}, "dice", "[3] is not a roll"),
    ({"position_id": OPENING, "dice": [True, 1]}, "dice", "is not a roll"),
    ({"position_id": OPENING}, "dice", "the roll is needed"),
    ({"xgid": MATCH_XGID}, "dice", "the XGID has none"),
    ({"position_id": OPENING, "match_id": MatchState(match_length=5).to_match_id()}, "dice", "Match ID"),
    ({"position_id": OPENING, "match_id": MatchState(dice=(6, 5)).to_match_id(), "dice": [3, 1]}, "dice",
     "is not the roll of the Match ID (6-5)"),
    ({"position_id": OPENING, "dice": [3, 1], "plies": 3}, "plies", "3 is deeper than this service looks"),
    ({"position_id": OPENING, "dice": [3, 1], "plies": -1}, "plies", "-1 is not a look-ahead"),
    ({"position_id": OPENING, "dice": [3, 1], "plies": "1"}, "plies", "'1' is not a look-ahead"),
    ({"position_id": OPENING, "dice": [3, 1], "count": 99}, "count", "99 is not a whole number"),
    ({"position_id": OPENING, "dice": [3, 1], "limit": 0}, "limit", "0 is not a whole number"),
    ({"position_id": OPENING, "dice": [3, 1], "positionid": "x"}, "positionid", "unknown field 'positionid'"),
    ({"position_id": OPENING, "dice": [3, 1], "match_id": MatchState(game_state=GameState.OVER).to_match_id()}, "match_id", "no game in play"),
    ({"position_id": OPENING, "dice": [3, 1], "match_id": MatchState(match_length=5, score=(5, 2)).to_match_id()},
     "match_id", "the match is over at 5-2 of 5"),
    ({"position_id": OPENING, "dice": [3, 1], "match_id": MatchState(turn=1).to_match_id()}, "match_id",
     "the player to act"),
])
def test_move_refusals(client: TestClient, body: dict[str, Any], field: str, words: str) -> None:
    got_field, reason = refusal(client.post("/v1/move", json=body))
    assert got_field == field and words in reason, reason


@pytest.mark.parametrize("route", ["/v1/move", "/v1/evaluate", "/v1/cube"])
def test_body_refusals(client: TestClient, route: str) -> None:
    field, reason = refusal(client.post(route, content=b'{"position_id": "4HPwATDgc/ABMA",'))
    assert field is None and "not JSON" in reason and "4HPwATDgc/ABMA" in reason
    field, reason = refusal(client.post(route, json=["4HPwATDgc/ABMA"]))
    assert field is None and "a JSON object is needed, not a list" in reason
    field, reason = refusal(client.post(route, content=b""))
    assert field is None and "empty" in reason
    field, reason = refusal(client.post(route, content=b"\xff\xfe{}"))
    assert field is None and "not UTF-8" in reason
    field, reason = refusal(client.post(route, content=b"[" * 30_000 + b"]" * 30_000))
    assert field is None and "nests too deeply" in reason
    big = json.dumps({"position_id": OPENING, "pad": "x" * 70_000}).encode()
    field, reason = refusal(client.post(route, content=big), 413)
    assert "over 65536 bytes" in reason
    # without a Content-Length (chunked), the limit holds while reading
    field, reason = refusal(client.post(route, content=iter([big[:40_000], big[40_000:]])), 413)
    assert "over 65536 bytes" in reason


def test_evaluate_and_cube_refusals(client: TestClient) -> None:
    field, reason = refusal(client.post("/v1/evaluate", json={"positions": [{"position_id": OPENING},
                                                                            {"xgid": "XGID=bad"}]}))
    assert field == "positions[1].xgid" and "'XGID=bad'" in reason
    field, reason = refusal(client.post("/v1/evaluate", json={"positions": [{"position_id": OPENING, "plies": 1}]}))
    assert field == "positions[0].plies" and "unknown field" in reason
    field, reason = refusal(client.post("/v1/evaluate", json={"positions": [OPENING]}))
    assert field == "positions[0]" and "not a string" in reason
    field, reason = refusal(client.post("/v1/evaluate", json={"positions": []}))
    assert field == "positions" and "one at least" in reason
    field, reason = refusal(client.post("/v1/evaluate", json={"positions": [{"position_id": OPENING}] * 501}))
    assert field == "positions" and "at most 500" in reason
    field, reason = refusal(client.post("/v1/evaluate", json={"position_id": OPENING, "dice": [3, 1]}))
    assert field == "dice" and "unknown field" in reason  # an evaluation is before the roll
    field, reason = refusal(client.post("/v1/cube", json={"xgid": MATCH_XGID.replace(":00:", ":B:")}))
    assert field == "xgid" and "beaver" in reason


def test_unknown_routes_and_methods(client: TestClient) -> None:
    field, reason = refusal(client.get("/v1/nothing"), 404)
    assert field is None and "GET /v1/nothing: no such route" in reason
    response = client.get("/v1/move")
    field, reason = refusal(response, 405)
    assert "GET /v1/move" in reason and response.headers["allow"] == "POST"


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.recursive(
    st.none() | st.booleans() | st.integers(-10, 10) | st.sampled_from(["", "31", OPENING, MATCH_XGID, "XGID="]),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
        st.sampled_from(["position_id", "match_id", "xgid", "dice", "plies", "count", "limit", "positions"]),
        inner, max_size=4),
    max_leaves=8))
def test_no_body_gets_a_server_error(client: TestClient, body: Any) -> None:
    for route in ("/v1/move", "/v1/evaluate", "/v1/cube"):
        response = client.post(route, json=body)
        assert response.status_code in (200, 400), (route, body, response.text)
        if response.status_code == 400:
            refusal(response)


# -- settings, the engine's absence, the thread pool ------------------------------------------------


def test_settings() -> None:
    with pytest.raises(ValueError, match="plies=3"):
        EngineSettings(plies=3)
    with pytest.raises(ValueError, match="max_plies=5"):
        EngineSettings(max_plies=5)
    with pytest.raises(ValueError, match="workers=0"):
        EngineSettings(workers=0)
    shallow = TestClient(engine_app(EngineSettings(plies=0, max_plies=0, max_body=512, warm_up=False)))
    a = shallow.post("/v1/move", json={"position_id": OPENING, "dice": [3, 1]}).json()
    assert a["plies"] == 0 and a["deep"] == 0
    field, reason = refusal(shallow.post("/v1/move", json={"position_id": OPENING, "dice": [3, 1], "plies": 1}))
    assert field == "plies" and "at most 0" in reason
    refusal(shallow.post("/v1/move", json={"position_id": OPENING, "pad": "x" * 600}), 413)
    health = shallow.get("/v1/health").json()
    assert health["ok"] and health["plies"] == 0 and health["max_body"] == 512


def test_without_the_neural_engine(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(analysis, "engine", lambda: None)
    move = client.post("/v1/move", json={"position_id": OPENING, "dice": [6, 5]}).json()
    assert move["adviser"] == "pubeval" and move["unit"] == "score" and move["best"] == "24/13"
    assert move["plays"][0]["probabilities"] is None and move["plays"][0]["equity"] is None
    refusal(client.post("/v1/evaluate", json={"position_id": OPENING}), 503)
    cube = client.post("/v1/cube", json={"position_id": RACE_PASS}).json()
    assert cube["unit"] == "pubeval" and cube["cube"]["no_double"] is None and cube["take"]["take"] is None


def test_the_event_loop_stays_free_while_the_engine_works() -> None:
    app = engine_app(EngineSettings(warm_up=False, workers=1))
    slow = {"positions": [{"position_id": OPENING}, {"position_id": RACE_PASS}] * 4, "plies": 2}

    async def run() -> None:
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://engine") as c:
            await c.post("/v1/evaluate", json={"position_id": OPENING, "plies": 2})  # compiled
            busy = asyncio.create_task(c.post("/v1/evaluate", json=slow))
            await asyncio.sleep(0.01)
            health = await c.get("/v1/health")
            assert health.status_code == 200 and not busy.done()
            assert (await busy).status_code == 200

    asyncio.run(run())


def test_warm_up_at_start() -> None:
    with TestClient(engine_app(EngineSettings(max_plies=1))) as c:
        deadline = time.monotonic() + 120
        while not c.get("/v1/health").json()["ready"]:
            assert time.monotonic() < deadline
            time.sleep(0.05)
        assert c.get("/v1/health").json()["engine"] == "expert"


# -- the documents ---------------------------------------------------------------------------------


def _schema_validator(document: dict[str, Any], schema: dict[str, Any]) -> jsonschema.Draft202012Validator:
    """A validator of ``schema`` whose ``#/components/...`` references resolve in ``document``."""
    return jsonschema.Draft202012Validator({**schema, "components": document["components"]})


def test_openapi_is_valid_and_covers_every_route(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    validate(document)  # raises with the first problem
    assert document["openapi"].startswith("3.1") and document == openapi_document(EngineSettings())
    app = engine_app(EngineSettings(warm_up=False))
    routes = {(r.path, m.lower()) for r in app.routes if isinstance(r, Route) for m in (r.methods or ()) if m != "HEAD"}
    documented = {(path, method) for path, item in document["paths"].items() for method in item}
    assert routes == documented


def test_openapi_examples_are_real(client: TestClient) -> None:
    document = client.get("/openapi.json").json()
    checked = 0
    for path, item in document["paths"].items():
        for method, op in item.items():
            answer = op["responses"].get("200", {}).get("content", {}).get("application/json")
            if answer is None:
                continue
            check = _schema_validator(document, answer["schema"])
            if "example" in answer:
                check.validate(answer["example"])
            examples = op.get("requestBody", {}).get("content", {}).get("application/json", {}).get("examples", {})
            for example in examples.values():
                _schema_validator(document, op["requestBody"]["content"]["application/json"]["schema"]).validate(
                    example["value"])
                response = client.request(method.upper(), path, json=example["value"])
                assert response.status_code == 200, (path, example, response.text)
                check.validate(response.json())
                checked += 1
            if not examples:
                check.validate(client.request(method.upper(), path).json())
    assert checked == 8
    # the move example is what the service answers (rounded)
    move = document["paths"]["/v1/move"]["post"]
    example = move["responses"]["200"]["content"]["application/json"]["example"]
    real = client.post("/v1/move", json=move["requestBody"]["content"]["application/json"]["examples"]["opening"]["value"]).json()
    assert real["best"] == example["best"] and real["xgid"] == example["xgid"]
    assert abs(real["plays"][0]["value"] - example["plays"][0]["value"]) < 1e-4


def test_docs_page(client: TestClient) -> None:
    response = client.get("/docs")
    assert response.status_code == 200 and response.headers["content-type"].startswith("text/html")
    page = response.text
    for path in ("/v1/move", "/v1/evaluate", "/v1/cube", "/v1/health", "/openapi.json"):
        assert f"{path}</code>" in page
    assert "8/5 6/5" in page and "curl -s -X POST http://testserver/v1/move" in page
    assert "<script" not in page and "https://" not in page  # nothing fetched from elsewhere
    root = client.get("/", follow_redirects=False)
    assert root.status_code == 307 and root.headers["location"] == "/docs"


# -- the command -------------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def test_backgammon_engine_serves_over_http() -> None:
    port = free_port()
    command = [sys.executable, "-m", "backgammon.cli", "engine", "--port", str(port), "--plies", "0"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT)
    try:
        assert process.stdout is not None
        first, second = process.stdout.readline(), process.stdout.readline()
        assert f"http://127.0.0.1:{port}/v1/" in first and f"http://127.0.0.1:{port}/docs" in second
        base = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while True:
            try:
                health = httpx.get(f"{base}/v1/health", timeout=2).json()
                break
            except httpx.TransportError:
                assert process.poll() is None and time.monotonic() < deadline
                time.sleep(0.1)
        assert health["ok"] and health["plies"] == 0
        a = httpx.post(f"{base}/v1/move", json={"position_id": OPENING, "dice": [3, 1]}, timeout=60).json()
        assert a["best"] == "8/5 6/5" and a["plies"] == 0
        bad = httpx.post(f"{base}/v1/move", content=b"{", timeout=10)
        assert bad.status_code == 400 and bad.json()["error"]["field"] is None
        # a second service on the same port: a sentence, exit status 1
        taken = subprocess.run(command, capture_output=True, text=True, cwd=ROOT, timeout=60)
        assert taken.returncode == 1
        assert f"port {port} on 127.0.0.1 is taken" in taken.stderr and "Traceback" not in taken.stderr
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


def test_command_refuses_bad_settings(capsys: pytest.CaptureFixture[str]) -> None:
    assert engine_command.main(["--plies", "3", "--port", "0"]) == 1
    assert "plies=3" in capsys.readouterr().err
    assert engine_command.main(["--host", "no.such.host.invalid", "--port", "0"]) == 1
    assert "--host 'no.such.host.invalid' is not an address here" in capsys.readouterr().err


def test_the_benchmark_runs(capsys: pytest.CaptureFixture[str]) -> None:
    from tests.benchmark_modules import load_benchmark

    bench = load_benchmark("engine_service")
    sample = bench.positions(30)
    assert len(sample) == 30 and all(len(Position.from_position_id(p).legal_moves(d)) > 1 for p, d in sample)
    assert bench.main(["--requests", "6", "--batch", "3", "--concurrency", "2", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    for row in ("evaluate, 0 ply", "move, 0 ply", "move, 1 ply", "batches of 3", "in-process", "HTTP, 2"):
        assert row in out
