"""The /verify page (backgammon/server/static/verify.html + verify.js) in Chromium: it
recomputes the fair dice with WebCrypto exactly as backgammon.fairdice does, and shows
tampering. The page is served by a tiny local http.server (the static folder and one fake
/api/tables/{id}/record route)."""

from __future__ import annotations

import copy
import hashlib
import hmac
import itertools
import json
import os
import threading
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from backgammon.fairdice import KNOWN_ANSWER, FairDice, make_record, verify_record
from backgammon.table import Seat, Table
from backgammon.table import commands as cmd
from tests.browser_support import BROWSER_ARGS
from tests.browser_support import CHROMIUM as CHROMIUM_PATH

sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = str(CHROMIUM_PATH)
SERVER_DIR = Path(__file__).resolve().parent.parent / "backgammon" / "server"

pytestmark = pytest.mark.skipif(not os.path.exists(CHROMIUM), reason="needs Chromium at /usr/bin/chromium")


def played_record(kind: str = "match", games: int = 3) -> dict[str, Any]:
    """A record download of bots playing with FairDice (the room's reveal rule after each action)."""
    counter = itertools.count()
    fair = FairDice(entropy=lambda n: hashlib.sha256(f"{kind}/{next(counter)}".encode()).digest()[:n])
    fair.add_client_seed(1, "0123456789abcdef")
    if kind == "chouette":
        table = Table.chouette([Seat(n, "beginner", seed=i) for i, n in enumerate(["ann", "bob", "cy"])], dice=fair)
    else:
        table = Table.match([Seat("ann", "beginner", seed=1), Seat("bob", "beginner", seed=2)], 0, dice=fair)
    while True:
        contest = table.contest
        fair.advance_to(contest.game_number + contest.game_over())
        if fair.game > games:
            break
        seat = table.bot_to_act()
        if seat is not None:
            table.play_bot(seat)
            continue
        starter = next(s.name for s in table.seats if "next_game" in table.actions(s.name))
        table.submit(starter, cmd.NextGame())
    # one more unfinished game with a few rolls
    for _ in range(4):
        seat = table.bot_to_act()
        if seat is not None:
            table.play_bot(seat)
        fair.advance_to(table.contest.game_number + table.contest.game_over())
    record: dict[str, Any] = json.loads(json.dumps(make_record(table.to_dict(), fair)))
    return record


RECORDS: dict[str, bytes] = {}


class Handler(SimpleHTTPRequestHandler):
    """The static folder under /static/, plus /api/tables/{id}/record from RECORDS."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, directory=str(SERVER_DIR), **kwargs)

    def do_GET(self) -> None:  # noqa: N802 - http.server's name
        parts = self.path.split("?")[0].strip("/").split("/")
        if parts[:2] == ["api", "tables"] and len(parts) == 4 and parts[3] == "record":
            body = RECORDS.get(parts[2])
            status = 200
            if body is None:
                status, body = 404, json.dumps({"error": f"there is no table {parts[2]}"}).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
            return
        super().do_GET()

    def log_message(self, format: str, *args: Any) -> None:
        pass


@pytest.fixture(scope="module")
def base_url() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture(scope="module")
def page(base_url: str) -> Iterator[Any]:
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        try:
            pg = browser.new_page()
            errors: list[str] = []
            pg.on("pageerror", lambda e: errors.append(str(e)))
            pg.goto(f"{base_url}/static/verify.html")
            yield pg
            assert not errors, errors
        finally:
            browser.close()


@pytest.fixture(scope="module")
def record() -> dict[str, Any]:
    return played_record()


def check_text(page: Any, text: str) -> dict[str, Any]:
    page.evaluate("window.lastReport = null")
    page.fill("#record-text", text)
    page.click("[data-testid=verify]")
    page.wait_for_function("window.lastReport !== null")
    report: dict[str, Any] = page.evaluate("window.lastReport")
    return report


def test_js_matches_python_stream_and_hashes(page: Any) -> None:
    seed = bytes(range(32)).hex()
    dice = page.evaluate(
        """async (seed) => { const m = await import('/static/verify.js');
             return await m.diceOf(m.hexToBytes(seed), 1, ['0123456789ABCDEF'], 10); }""",
        seed,
    )
    assert dice == list(KNOWN_ANSWER)
    # the built-in SHA-256 and HMAC (used without WebCrypto) agree with Python's
    for data in [b"", b"abc", bytes(range(55)), bytes(range(56)), bytes(range(64)), bytes(range(200)) * 3]:
        got = page.evaluate(
            """async (hex) => { const m = await import('/static/verify.js'); const b = m.hexToBytes(hex);
                 return [m.bytesToHex(m.sha256Plain(b)), m.bytesToHex(m.hmacPlain(b.slice(0, 32), b))]; }""",
            data.hex(),
        )
        assert got == [hashlib.sha256(data).hexdigest(), hmac.new(data[:32], data, "sha256").hexdigest()]


def test_good_record_checks(page: Any, record: dict[str, Any]) -> None:
    python = verify_record(record)
    assert python.ok
    report = check_text(page, json.dumps(record))
    assert report["ok"] is True and report["messages"] == []
    assert [g["game"] for g in report["games"]] == [g.game for g in python.games] == [1, 2, 3, 4]
    assert [g["rolls"] for g in report["games"]] == [g.rolls for g in python.games]
    assert "All dice check" in page.text_content("#summary")
    assert page.locator(".game.ok").count() == 3
    assert page.locator(".game.pending").count() == 1  # the unfinished game is not a failure
    first = page.locator(".game[data-game='1']")
    assert "dice match" in first.locator("h2").text_content()
    assert first.locator("[data-check=commitment]").text_content().endswith("ok")
    assert first.locator(".rolls li").first.text_content().startswith("1. opening")


def test_tampered_die_and_seed_fail(page: Any, record: dict[str, Any]) -> None:
    bad = copy.deepcopy(record)
    event = next(e for e in bad["log"]["events"] if e["type"] == "roll")
    event["dice"][1] = event["dice"][1] % 6 + 1
    report = check_text(page, json.dumps(bad))
    assert report["ok"] is False and not verify_record(bad).ok
    assert any("log's rolls" in m for m in report["messages"])
    assert page.locator(".game.fail").count() == 1 and "problem" in page.text_content("#summary")
    assert page.locator(".game.fail .rolls li.bad").count() == 1  # the changed throw is marked

    bad = copy.deepcopy(record)
    seed = bad["fair"]["revealed"][1]["server_seed"]
    bad["fair"]["revealed"][1]["server_seed"] = seed[:-1] + ("0" if seed[-1] != "0" else "1")
    report = check_text(page, json.dumps(bad))
    assert report["ok"] is False and report["games"][1]["commitmentOk"] is False
    assert "FAILED" in page.locator(".game[data-game='2'] [data-check=commitment]").text_content()

    page.fill("#record-text", "{not json")
    page.click("[data-testid=verify]")
    page.wait_for_function("document.getElementById('status').textContent.includes('not JSON')")
    assert page.text_content("#summary") == "" and page.locator(".game").count() == 0


def test_chouette_and_fetch_by_table_id(page: Any, base_url: str) -> None:
    record = played_record("chouette", games=2)
    RECORDS["abc123"] = json.dumps(record).encode()
    page.goto(f"{base_url}/static/verify.html?table=abc123")
    page.wait_for_function("document.getElementById('summary').textContent !== ''")
    report = page.evaluate("window.lastReport")
    assert report["ok"] is True, report["messages"]
    assert report["games"][0]["throws"][0]["type"] == "roll_off"
    assert "roll-off" in page.locator(".game[data-game='1'] .rolls li").first.text_content()
    page.fill("#table-id", "nope")
    page.click("#table-form button")
    page.wait_for_function("document.getElementById('status').textContent.includes('there is no table')")
