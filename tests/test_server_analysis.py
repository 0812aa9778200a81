"""The analysis of finished matches on the server (backgammon.server.analysis_api) and the match
files it writes, over the real application on SQLite and on a real PostgreSQL.

A person plays the random bot over the WebSocket until the match (or the money session) is
over; the analysis is then asked for over HTTP: 202 with its progress, 200 with
``MatchAnalysis.to_dict()`` (docs/ANALYSIS-DESIGN.md part 2) once done, computed once however
many requests come, kept in the database (migration 0004) for every later request and every
other process. The ``.mat`` and ``.sgf`` downloads read back, through
``backgammon.formats.loads``, into the match that was played.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator, Mapping
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
import sqlalchemy as sa
from starlette.routing import Route
from starlette.testclient import TestClient

from backgammon import formats
from backgammon.errors import BackgammonError
from backgammon.match import Match
from backgammon.server import analysis_api
from backgammon.server.analysis_api import Analyses, analyse
from backgammon.server.app import create_app
from backgammon.server.openapi import OPENAPI
from backgammon.server.store import Store, analyses_t, tables_t

from .test_server_replay import a_match, play, seeded
from .test_store import pg_url, url  # noqa: F401  (fixtures: each test on SQLite and PostgreSQL)

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

#: The kind of the replay frame each decision lands on (its ``event``), by kind and action.
FRAME_OF = {("play", None): "play", ("cube", "double"): "double", ("cube", "no double"): "roll",
            ("take", "take"): "take", ("take", "pass"): "pass", ("take", "beaver"): "beaver"}


class Counting:
    """An analyser (the real one by default) that counts its calls (``calls``)."""

    def __init__(self, analyser: analysis_api.Analyser = analyse) -> None:
        self.analyser = analyser
        self.calls = 0
        self.lock = threading.Lock()

    def __call__(self, match: Match, plies: int, names: tuple[str, str],
                 progress: Callable[[int, int], None]) -> dict[str, Any]:
        with self.lock:
            self.calls += 1
        return self.analyser(match, plies, names, progress)


def _app(database: str, analyser: Counting) -> TestClient:
    app = create_app(database, dice_factory=seeded("analysis"), message_rate=1000, message_burst=1000)
    client = TestClient(app)
    client.__enter__()
    app.state.analyses.analyser = analyser
    app.state.analyses.heartbeat = 0.05
    return client


@pytest.fixture
def counting() -> Counting:
    return Counting()


@pytest.fixture
def client(url: str, counting: Counting) -> Iterator[TestClient]:  # noqa: F811
    c = _app(url, counting)
    try:
        yield c
    finally:
        c.__exit__(None, None, None)


def wait_done(client: TestClient, table_id: str, query: str = "?ply=0", timeout: float = 120) -> dict[str, Any]:
    """Poll the analysis until it is done; every answer before is a 202 with its progress."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        got = client.get(f"/api/tables/{table_id}/analysis{query}")
        if got.status_code == 200:
            body: dict[str, Any] = got.json()
            return body
        assert got.status_code == 202, got.text
        progress = got.json()
        assert progress["status"] in ("queued", "running") and 0 <= progress["done"] <= max(progress["total"], 0)
        assert got.headers["retry-after"] == "1"
        time.sleep(0.05)
    raise AssertionError("the analysis did not finish")


def played_match(client: TestClient, table_id: str) -> tuple[Match, list[str]]:
    record = client.get(f"/api/tables/{table_id}/record").json()
    return Match.from_dict(record["log"]), [s["name"] for s in record["seats"]]


def check_analysis(client: TestClient, table_id: str, body: Mapping[str, Any], plies: int) -> None:
    """``body`` is the contract's analysis of the table's match, its decisions on the replay's
    frames."""
    match, names = played_match(client, table_id)
    assert body["format"] == "backgammon-analysis" and body["version"] == 1
    assert body["plies"] == plies and body["names"] == names
    assert body["money"] == match.is_money and body["length"] == match.length
    assert [p["name"] for p in body["players"]] == names
    frames = client.get(f"/api/tables/{table_id}/replay").json()["frames"]
    decisions = body["decisions"]
    assert decisions and [d["index"] for d in decisions] == list(range(len(decisions)))
    for d in decisions:
        frame = frames[d["event"]]
        action = None if d["kind"] == "play" else d["action"]
        assert frame["kind"] == FRAME_OF[(d["kind"], action)], (d, frame["kind"])
        assert frame["event"].get("player", d["player"]) == d["player"] or frame["kind"] == "roll"
        if d["kind"] == "play":
            assert frame["event"]["move"] == d["action"] or (d["action"] == "" and frame["event"]["move"] in ("", None))
        assert d["error"] >= 0 and d["game"] == frame["game"]


# -- the analysis -------------------------------------------------------------------------------


def test_the_analysis_answers_202_with_progress_then_200_and_is_kept(
        client: TestClient, counting: Counting, url: str) -> None:  # noqa: F811
    table_id = play(client, length=1)
    path = f"/api/tables/{table_id}/analysis"
    absent = client.get(f"{path}?start=false")
    assert absent.status_code == 404 and absent.json()["status"] == "absent"
    assert counting.calls == 0  # looking starts nothing
    first = client.get(f"{path}?ply=0")
    assert first.status_code == 202, first.text
    assert first.json()["status"] in ("queued", "running") and first.json()["plies"] == 0
    body = wait_done(client, table_id)
    check_analysis(client, table_id, body, 0)
    # kept: answered again (and with start=false, the deepest there is) without computing
    assert client.get(f"{path}?ply=0").json() == body
    assert client.get(f"{path}?start=false").json() == body
    assert counting.calls == 1
    with Store(url) as store, store.engine.connect() as connection:
        row = connection.execute(sa.select(analyses_t)).one()
    assert (row.table_id, row.plies, row.status, row.result) == (table_id, 0, "done", body)
    # another process over the same database answers it at once
    other = Counting()
    second = _app(url, other)
    try:
        again = second.get(f"{path}?ply=0")
        assert again.status_code == 200 and again.json() == body
        assert other.calls == 0
    finally:
        second.__exit__(None, None, None)


def test_another_depth_is_another_analysis(tmp_path: Path, counting: Counting) -> None:
    client = _app(f"sqlite:///{tmp_path}/club.sqlite3", counting)
    try:
        table_id = play(client, length=1)
        path = f"/api/tables/{table_id}/analysis"
        shallow = wait_done(client, table_id, "?ply=0")
        assert client.get(f"{path}?start=false&ply=1").status_code == 404
        deeper = wait_done(client, table_id, "")  # 1 ply by default
        check_analysis(client, table_id, deeper, 1)
        assert shallow["plies"] == 0 and counting.calls == 2
        assert client.get(f"{path}?start=false").json() == deeper  # the deepest there is
        assert client.get(f"{path}?ply=0").json() == shallow
    finally:
        client.__exit__(None, None, None)


def test_concurrent_requests_from_two_processes_compute_once(url: str) -> None:  # noqa: F811
    one, two = Counting(), Counting()
    first, second = _app(url, one), _app(url, two)
    try:
        table_id = play(first, length=1)
        barrier = threading.Barrier(8)
        answers: list[int] = []

        def ask(client: TestClient) -> None:
            barrier.wait()
            answers.append(client.get(f"/api/tables/{table_id}/analysis?ply=0").status_code)

        threads = [threading.Thread(target=ask, args=(first if i % 2 else second,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert answers == [202] * 8
        done = [wait_done(c, table_id) for c in (first, second)]
        assert done[0] == done[1]
        assert one.calls + two.calls == 1
    finally:
        first.__exit__(None, None, None)
        second.__exit__(None, None, None)


def test_a_money_session_left_after_two_games_is_analysed_in_equity(tmp_path: Path, counting: Counting) -> None:
    client = _app(f"sqlite:///{tmp_path}/club.sqlite3", counting)
    try:
        money_session(client)
    finally:
        client.__exit__(None, None, None)


def money_session(client: TestClient) -> None:
    table_id = play(client, kind="money", games=2)
    info = client.get(f"/api/tables/{table_id}").json()
    assert info["status"] == "over" and info["length"] == 0
    body = wait_done(client, table_id)
    check_analysis(client, table_id, body, 0)
    assert body["money"] is True and all(d["error_mwc"] is None for d in body["decisions"])
    # the files: SGF keeps everything, the leaving too; a .mat file keeps the games played
    match, names = played_match(client, table_id)
    sgf = formats.loads(client.get(f"/api/tables/{table_id}/match.sgf").text, "sgf")
    assert sgf.match == match and list(sgf.names) == names
    mat = formats.loads(client.get(f"/api/tables/{table_id}/match.mat").text, "mat")
    assert mat.match.is_money and list(mat.names) == names
    assert [g.events for g in mat.match.games] == [g.events for g in without_opening_ties(match).games]


def test_refusals(client: TestClient) -> None:
    missing = client.get("/api/tables/nosuchtable/analysis")
    assert missing.status_code == 404 and "no table" in missing.json()["error"]
    for fmt in ("mat", "sgf"):
        assert client.get(f"/api/tables/nosuchtable/match.{fmt}").status_code == 404
    # a table that waits for a player; a match under way; a chouette
    waiting = client.post("/api/tables", json={"kind": "match", "length": 3, "name": "ann",
                                               "seats": [{"kind": "human"}, {"kind": "human"}]}).json()["table"]["id"]
    got = client.get(f"/api/tables/{waiting}/analysis")
    assert got.status_code == 409 and "every seat must be taken" in got.json()["error"]
    assert client.get(f"/api/tables/{waiting}/match.mat").status_code == 409
    playing = client.post("/api/tables", json={"kind": "match", "length": 3, "name": "ann",
                                               "seats": [{"kind": "human"}, {"kind": "bot", "bot": "random"}]}
                          ).json()["table"]["id"]
    got = client.get(f"/api/tables/{playing}/analysis")
    assert got.status_code == 409 and "not over yet" in got.json()["error"]
    assert client.get(f"/api/tables/{playing}/analysis?start=false").status_code == 409
    chouette = client.post("/api/tables", json={"kind": "chouette", "name": "ann", "seats": [
        {"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]}).json()["table"]["id"]
    for path in ("analysis", "match.mat", "match.sgf"):
        got = client.get(f"/api/tables/{chouette}/{path}")
        assert got.status_code == 409 and "chouette" in got.json()["error"], path
    # wrong parameters
    finished = play(client, length=1)
    for query, words in (("?ply=3", "ply='3'"), ("?ply=x", "ply='x'"), ("?start=maybe", "start='maybe'")):
        got = client.get(f"/api/tables/{finished}/analysis{query}")
        assert got.status_code == 400 and words in got.json()["error"], query


# -- the computations' claims, failures and shutdown ---------------------------------------------


@pytest.fixture
def store(url: str) -> Iterator[Store]:  # noqa: F811
    """A store with one table, ``t1``, holding a finished 1-point match of bots."""
    s = Store(url)
    add_table(s, "t1")
    try:
        yield s
    finally:
        s.close()


def add_table(store: Store, table_id: str) -> None:
    now = datetime.now(timezone.utc)
    with store.engine.begin() as connection:
        connection.execute(tables_t.insert().values(id=table_id, kind="match", settings={}, tokens={}, state={},
                                                    seq=0, status="over", created=now, updated=now))


@pytest.fixture(scope="module")
def match1() -> Match:
    match: Match = a_match(1, seed=2).table.contest.match  # type: ignore[attr-defined]
    return match


def wait(analyses: Analyses, status: str, table_id: str = "t1", total: int | None = None,
         timeout: float = 60) -> analysis_api.Progress:
    """Wait until the analysis of ``table_id`` at 0 ply has ``status`` (and ``total``)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        progress = analyses.lookup(table_id, 0)
        if progress.status == status and total in (None, progress.total):
            return progress
        time.sleep(0.02)
    raise AssertionError(f"the analysis never became {status}: {analyses.lookup(table_id, 0)}")


def test_a_computation_that_died_is_taken_over(store: Store, match1: Match) -> None:
    old = datetime.now(timezone.utc) - timedelta(minutes=5)
    with store.engine.begin() as connection:
        connection.execute(analyses_t.insert().values(
            table_id="t1", plies=0, status="running", owner="dead", done=3, total=50, result=None, error=None,
            started=old, updated=old))
    counting = Counting()
    analyses = Analyses(store, analyser=counting, stale_after=60)
    try:
        assert analyses.lookup("t1", 0).status == "absent"  # a dead computation is as good as none
        data = (match1.to_dict(), ("ann", "bob"))
        assert analyses.request("t1", 0, lambda: data).status == "queued"
        assert analyses.request("t1", 0, lambda: data).status in ("queued", "running")  # now alive: no second
        done = wait(analyses, "done")
        assert counting.calls == 1 and done.result is not None and done.result["names"] == ["ann", "bob"]
        assert done.done == done.total == len(done.result["decisions"])
    finally:
        analyses.close()


def test_a_failure_is_kept_and_tried_again_later(store: Store, match1: Match) -> None:
    def broken(match: Match, plies: int, names: tuple[str, str], progress: Callable[[int, int], None]) -> dict[str, Any]:
        raise BackgammonError("the engine's weights are missing")

    analyses = Analyses(store, analyser=broken, retry_after=3600)
    data = (match1.to_dict(), ("ann", "bob"))
    try:
        analyses.request("t1", 0, lambda: data)
        failed = wait(analyses, "failed")
        assert failed.error == "BackgammonError: the engine's weights are missing"
        assert analyses.request("t1", 0, lambda: data).status == "failed"  # not again before retry_after
        analyses.retry_after = 0
        analyses.analyser = Counting()
        assert analyses.request("t1", 0, lambda: data).status == "queued"
        assert wait(analyses, "done").result is not None
    finally:
        analyses.close()


def test_closing_stops_the_computations_and_drops_their_rows(store: Store, match1: Match) -> None:
    started = threading.Event()

    def endless(match: Match, plies: int, names: tuple[str, str], progress: Callable[[int, int], None]) -> dict[str, Any]:
        started.set()
        while True:
            progress(1, 2)
            time.sleep(0.01)

    analyses = Analyses(store, analyser=endless, workers=1, heartbeat=0.01)
    data = (match1.to_dict(), ("ann", "bob"))
    analyses.request("t1", 0, lambda: data)
    assert started.wait(30)
    assert wait(analyses, "running", total=2).done == 1
    assert analyses.running() == [("t1", 0)]
    analyses.close(timeout=10)
    assert analyses.running() == []
    assert analyses.lookup("t1", 0).status == "absent"
    with pytest.raises(ValueError, match="workers=0"):
        Analyses(store, workers=0)


def test_one_worker_at_a_time_the_others_queue(store: Store, match1: Match) -> None:
    add_table(store, "t2")
    gate = threading.Event()

    def gated(match: Match, plies: int, names: tuple[str, str], progress: Callable[[int, int], None]) -> dict[str, Any]:
        progress(0, 1)
        assert gate.wait(30)
        return analyse(match, plies, names, progress)

    analyses = Analyses(store, analyser=gated, workers=1, heartbeat=0.01)
    data = (match1.to_dict(), ("ann", "bob"))
    try:
        analyses.request("t1", 0, lambda: data)
        wait(analyses, "running")
        analyses.request("t2", 0, lambda: data)
        time.sleep(0.3)
        assert analyses.lookup("t2", 0).status == "queued"  # waits for the worker, alive
        gate.set()
        wait(analyses, "done")
        wait(analyses, "done", "t2")
    finally:
        gate.set()
        analyses.close()


# -- the match files ----------------------------------------------------------------------------


def without_opening_ties(match: Match) -> Match:
    """``match`` without its tied opening rolls (R4), which a .mat file has no words for."""
    data = match.to_dict()
    data["events"] = [e for e in data["events"] if not (e["type"] == "opening_roll" and e["dice"][0] == e["dice"][1])]
    return Match.from_dict(data)


def test_the_match_files_read_back_into_the_match_played(tmp_path: Path) -> None:
    app = create_app(f"sqlite:///{tmp_path}/club.sqlite3", dice_factory=seeded("files"),
                     message_rate=1000, message_burst=1000)
    with TestClient(app) as client:
        for _ in range(10):  # the server seeds its bots itself: a match may end in one game
            table_id = play(client, length=3)
            match, names = played_match(client, table_id)
            if len(match.games) > 1:
                break
        assert len(match.games) > 1
        for fmt in ("mat", "sgf"):
            got = client.get(f"/api/tables/{table_id}/match.{fmt}")
            assert got.status_code == 200, got.text
            assert got.headers["content-type"] == analysis_api.FILE_TYPES[fmt]
            assert got.headers["content-disposition"] == f'attachment; filename="table-{table_id}.{fmt}"'
            record = formats.loads(got.text, fmt)
            assert record.match == (without_opening_ties(match) if fmt == "mat" else match), fmt
            assert list(record.names) == names, fmt


# -- the OpenAPI document -----------------------------------------------------------------------


def test_the_routes_are_in_the_openapi_document() -> None:
    paths = {r.path for r in analysis_api.routes() if isinstance(r, Route)}
    assert paths == set(analysis_api.OPENAPI_PATHS)
    assert paths <= set(OPENAPI["paths"])
    responses = OPENAPI["paths"]["/api/tables/{id}/analysis"]["get"]["responses"]
    assert {"200", "202", "404", "409"} <= set(responses)
