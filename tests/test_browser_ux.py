"""What a demanding player notices on the table pages (a real ``backgammon serve`` and chromium).

* on a laptop screen (1280x860) the board leaves the buttons under it in view, and Hint is
  not shown greyed when there is nothing to advise on;
* a cube answer that just happened ("bob takes: the cube is at 2") is said in the status line;
* a chouette's team is named on the board by whoever moves for it ("cy +1");
* a spectator whom the players muted cannot press Send, and sends no seed;
* the lobby's chouette bots start at the level the match opponent starts at.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

import httpx
import pytest

from tests.browser_support import CHROMIUM, REQUIRED, Server, browser, server  # noqa: F401  (fixtures)

if not CHROMIUM.exists() and not REQUIRED:
    pytest.skip("chromium is not installed (set BACKGAMMON_REQUIRE_BROWSER to fail instead)", allow_module_level=True)

from playwright.sync_api import Browser, Page, ViewportSize  # noqa: E402

LAPTOP: ViewportSize = {"width": 1280, "height": 860}


@pytest.fixture
def page(browser: Browser, server: Server) -> Iterator[Page]:
    """A fresh laptop-sized page on the server (animations off); page errors fail the test."""
    context = browser.new_context(base_url=server.url, viewport=LAPTOP, reduced_motion="reduce")
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.set_default_timeout(15_000)
    yield pg
    context.close()
    assert errors == []


def create(server: Server, body: dict[str, Any]) -> dict[str, Any]:
    """POST /api/tables."""
    answer = httpx.post(f"{server.url}/api/tables", json=body, timeout=10)
    assert answer.status_code < 300, answer.text
    data: dict[str, Any] = answer.json()
    return data


def open_table(page: Page, created: dict[str, Any]) -> str:
    """Keep the creator's tokens in the page's storage and open the table."""
    table_id: str = created["table"]["id"]
    page.goto("/verify")  # any page of the origin, to reach its storage
    page.evaluate(
        "([key, value]) => localStorage.setItem(key, value)",
        [f"bg.tokens.{table_id}", json.dumps(created["tokens"])],
    )
    page.goto(f"/t/{table_id}")
    return table_id


def actions(page: Page) -> list[str]:
    """The actions of the seat the page shows now ([] before a state)."""
    found: list[str] = page.evaluate(
        "() => { const t = window.bgTable; const s = t && t.state && t.state.snapshots[t.seat];"
        " return s ? s.actions : []; }"
    )
    return found


def wait_for_buttons(page: Page) -> None:
    """Until a button of the actions row is shown and enabled (the page waits for nothing)."""
    page.wait_for_function(
        "() => [...document.querySelectorAll('#actions button')].some((b) => !b.hidden && !b.disabled)"
    )


def test_the_buttons_under_the_board_stay_in_view_on_a_laptop(page: Page, server: Server) -> None:
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "random"}]
    created = create(server, {"kind": "match", "length": 3, "name": "ann", "seats": seats})
    open_table(page, created)
    wait_for_buttons(page)
    bottom = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('#actions button')].filter((b) => !b.hidden)"
        ".map((b) => b.getBoundingClientRect().bottom))"
    )
    assert bottom <= LAPTOP["height"], f"the buttons end at {bottom}px, below the window"
    if actions(page) == ["roll"]:  # the opening throw: nothing to advise on, so no greyed Hint
        assert page.locator('#actions [data-action="hint"]').is_hidden()
    width = page.locator("#board").bounding_box()
    assert width is not None and width["width"] <= (LAPTOP["height"] - 16 * 16) * 1.17 + 1


def test_a_take_is_said_in_the_status_line(page: Page, browser: Browser, server: Server) -> None:
    """Two people at one screen, money: the first who may double doubles, the other takes;
    the doubler, to roll now, reads the take in the status line, not only in the record. A
    spectator reads once, not twice, whom the double waits for."""
    two = [{"kind": "human"}, {"kind": "human"}]
    created = create(server, {"kind": "money", "name": "ann", "seats": two, "same_screen": True})
    table_id = open_table(page, created)
    context = browser.new_context(base_url=server.url, viewport=LAPTOP)
    watcher = context.new_page()
    watcher.goto(f"/t/{table_id}?watch=1")
    for _ in range(40):
        wait_for_buttons(page)
        now = actions(page)
        if "double" in now:
            break
        seq = page.evaluate("() => window.bgTable.state.seq")
        if "roll" in now:
            page.click('#actions [data-action="roll"]')
        elif "play" in now:
            move = page.evaluate("() => window.bgTable.state.plays[0].move")
            if move:
                page.fill("#play-input", move)
                page.press("#play-input", "Enter")
            else:
                page.click('#actions [data-action="confirm"]')
        page.wait_for_function("(seq) => window.bgTable.state.seq > seq", arg=seq)
    else:
        pytest.fail("nobody could double within 40 steps")
    doubler = page.evaluate("() => window.bgTable.seat")
    page.click('#actions [data-action="double"]')
    watcher.wait_for_function("() => document.getElementById('status').textContent.includes('doubles to 2')")
    assert watcher.inner_text("#status").lower().count("waiting for") == 1, watcher.inner_text("#status")
    context.close()
    page.locator('#actions [data-action="take"]:not([hidden]):not([disabled])').click()
    page.wait_for_function("(name) => window.bgTable.seat === name", arg=doubler)
    said = "() => document.getElementById('status').textContent.includes('takes: the cube is at 2')"
    page.wait_for_function(said)
    assert "your turn: roll" in page.inner_text("#status")


def test_a_chouette_team_is_named_by_its_captain_on_the_board(page: Page, server: Server) -> None:
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "random"}, {"kind": "bot", "bot": "random"}]
    created = create(server, {"kind": "chouette", "name": "ann", "seats": seats})
    open_table(page, created)
    page.wait_for_function(
        "() => window.bgTable && window.bgTable.state && window.bgTable.state.snapshots[window.bgTable.seat]"
    )
    snap = page.evaluate("() => window.bgTable.state.snapshots[window.bgTable.seat]")
    lead = next(s["name"] for s in snap["seats"] if s["role"] in ("acting captain", "captain"))
    names = page.evaluate("() => [...document.querySelectorAll('#board .bg-name')].map((t) => t.textContent)")
    assert f"{lead} +1" in names, names


def test_a_muted_spectator_cannot_press_send_and_sends_no_seed(
    page: Page, browser: Browser, server: Server
) -> None:
    two = [{"kind": "human"}, {"kind": "human"}]
    created = create(server, {"kind": "money", "name": "ann", "seats": two, "same_screen": True})
    table_id = open_table(page, created)
    wait_for_buttons(page)
    context = browser.new_context(base_url=server.url, viewport={"width": 390, "height": 844})
    try:
        watcher = context.new_page()
        watcher.goto(f"/t/{table_id}?watch=1")
        watcher.locator("#fair-seed", has_text="none (watching)").wait_for()
        page.check("#mute-spectators")
        watcher.wait_for_function("document.querySelector('#chat-form button').disabled")
        assert watcher.get_attribute("#chat-input", "placeholder") == "Spectators are muted"
        page.uncheck("#mute-spectators")
        watcher.wait_for_function("!document.querySelector('#chat-form button').disabled")
    finally:
        context.close()


def test_the_lobby_chouette_bots_start_at_intermediate(page: Page) -> None:
    page.goto("/")
    page.check('input[name="kind"][value="chouette"]')
    page.wait_for_function("() => document.querySelector('select[name=seat3]')")
    assert page.input_value('select[name="seat2"]') == "intermediate"
    assert page.input_value('select[name="seat3"]') == "intermediate"
