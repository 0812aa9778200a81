"""Smoke tests of the web pages in a real browser (chromium through Playwright).

A real ``backgammon serve`` runs on a free port with a SQLite file under ``tmp_path``; the
tests drive the lobby and the table page as a person would. They skip when
``/usr/bin/chromium`` is missing, unless ``BACKGAMMON_REQUIRE_BROWSER`` is set (CI), which
makes a missing browser a failure.

Stable hooks for end-to-end tests (see the pages): action buttons ``[data-action=roll]``...,
``#play-input``, ``#log``, ``#status``, ``#chat-input``, ``#board``, ``#options-form``,
``[data-table-id=ID]`` rows in the lobby, ``#create-form``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.browser_support import CHROMIUM, REQUIRED, Server, browser, server  # noqa: F401  (fixtures)

if not CHROMIUM.exists() and not REQUIRED:
    pytest.skip(
        "chromium is not installed (set BACKGAMMON_REQUIRE_BROWSER to fail instead)", allow_module_level=True
    )

from playwright.sync_api import Browser, ConsoleMessage, Page  # noqa: E402


@pytest.fixture
def page(browser: Browser, server: Server) -> Iterator[Page]:
    """A fresh browser context (empty localStorage) whose page errors fail the test."""
    context = browser.new_context(base_url=server.url, viewport={"width": 1280, "height": 900})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))

    def console(message: ConsoleMessage) -> None:
        if message.type == "error" and "favicon" not in message.text:
            errors.append(message.text)

    pg.on("console", console)
    pg.set_default_timeout(15_000)
    yield pg
    context.close()
    assert errors == [], f"the page reported errors: {errors}"


def _create(server: Server, body: dict[str, Any]) -> dict[str, Any]:
    answer = httpx.post(f"{server.url}/api/tables", json=body, timeout=10)
    assert answer.status_code < 300, answer.text
    data: dict[str, Any] = answer.json()
    return data


def _keep_tokens(page: Page, table_id: str, tokens: dict[str, str]) -> None:
    """Put seat tokens where the pages keep them (the page must be on the server's origin)."""
    key = f"bg.tokens.{table_id}"
    page.evaluate("([key, value]) => localStorage.setItem(key, value)", [key, json.dumps(tokens)])


def test_lobby_lists_a_table_created_through_the_api(page: Page, server: Server) -> None:
    two = [{"kind": "human"}, {"kind": "human"}]
    created = _create(server, {"kind": "match", "length": 3, "name": "ann", "seats": two})
    table_id = created["table"]["id"]
    page.goto("/")
    row = page.locator(f'[data-table-id="{table_id}"]')
    row.wait_for()
    assert "Match to 3 points" in row.inner_text()
    assert "ann" in row.inner_text()
    assert row.locator('[data-action="join"]').is_visible()  # the second seat is free


def test_create_form_starts_a_match_against_a_bot(page: Page, server: Server, tmp_path: Path) -> None:
    bots = httpx.get(f"{server.url}/api/bots", timeout=10).json()["bots"]
    page.goto("/")
    page.fill("#guest-name", "zoe")
    page.check('input[name="kind"][value="match"]')
    page.fill('input[name="length"]', "3")
    page.check('input[name="opponent"][value="bot"]')
    page.select_option('select[name="bot"]', bots[0])
    page.click('[data-testid="create-table"]')
    page.wait_for_url("**/t/*", wait_until="commit")
    table_id = page.url.rsplit("/", 1)[1]
    assert "token" not in page.url
    page.locator("#board svg").first.wait_for()
    page.locator('#actions [data-action="roll"]').wait_for()  # the opening roll (R4)
    assert page.locator("#status").inner_text() == "Your turn: throw the opening roll."
    tokens = json.loads(page.evaluate(f"localStorage.getItem('bg.tokens.{table_id}')"))
    assert list(tokens) == ["zoe"] and len(tokens["zoe"]) >= 40
    assert page.evaluate("localStorage.getItem('bg.name')") == '"zoe"'
    assert page.locator("#you-are").inner_text() == "You play as zoe"
    page.screenshot(path=str(tmp_path / "table.png"))


def test_options_change_the_corner(page: Page, server: Server, tmp_path: Path) -> None:
    two = [{"kind": "human"}, {"kind": "human"}]
    created = _create(server, {"kind": "money", "name": "ann", "seats": two, "same_screen": True})
    table_id = created["table"]["id"]
    page.goto("/")
    _keep_tokens(page, table_id, created["tokens"])
    page.goto(f"/t/{table_id}")
    board = page.locator("#board")
    board.locator("svg").first.wait_for()
    page.wait_for_timeout(300)
    before = board.screenshot(path=str(tmp_path / "bottom-right.png"))
    page.click("#options-panel summary")
    page.check('input[name="corner"][value="top-left"]')
    page.wait_for_timeout(500)
    after = board.screenshot(path=str(tmp_path / "top-left.png"))
    assert before != after
    stored = json.loads(page.evaluate("localStorage.getItem('bg.options')"))
    assert stored["corner"] == "top-left"
    page.reload()  # the option is kept in this browser
    page.locator("#board svg").first.wait_for()
    assert page.locator('input[name="corner"][value="top-left"]').is_checked()


def test_invite_link_offers_join_or_watch(page: Page, server: Server) -> None:
    two = [{"kind": "human"}, {"kind": "human"}]
    created = _create(server, {"kind": "match", "length": 1, "name": "ann", "seats": two})
    table_id = created["table"]["id"]
    page.goto("/")
    page.evaluate("localStorage.setItem('bg.name', JSON.stringify('bob'))")
    page.goto(f"/t/{table_id}")
    join = page.locator('[data-testid="join"]')
    join.wait_for()
    assert join.inner_text() == "Join as bob"
    page.click('[data-testid="watch"]')
    page.wait_for_function("document.getElementById('you-are').textContent === 'You are watching'")
    page.locator("#board svg").first.wait_for()
    assert page.evaluate(f"localStorage.getItem('bg.tokens.{table_id}')") is None


def test_phone_width_puts_the_panels_under_the_board(page: Page, server: Server, tmp_path: Path) -> None:
    seats = [{"kind": "human"}, {"kind": "bot", "bot": "random"}]
    created = _create(server, {"kind": "money", "name": "ann", "seats": seats})
    table_id = created["table"]["id"]
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto("/")
    _keep_tokens(page, table_id, created["tokens"])
    page.goto(f"/t/{table_id}")
    page.locator("#board svg").first.wait_for()
    board = page.locator("#board").bounding_box()
    log = page.locator("#log").bounding_box()
    assert board is not None and log is not None
    assert board["width"] <= 360 and log["y"] > board["y"] + board["height"]
    assert page.evaluate("document.documentElement.scrollWidth") <= 360  # nothing wider than the phone
    page.screenshot(path=str(tmp_path / "phone.png"), full_page=True)


def test_chat_reaches_the_table_and_players_can_mute_spectators(
    page: Page, browser: Browser, server: Server
) -> None:
    two = [{"kind": "human"}, {"kind": "human"}]
    created = _create(server, {"kind": "match", "length": 1, "name": "ann", "seats": two})
    table_id = created["table"]["id"]
    page.goto("/")
    _keep_tokens(page, table_id, created["tokens"])
    page.goto(f"/t/{table_id}")
    page.locator("#invite:not([hidden])").wait_for()  # the second seat is open
    context = browser.new_context(base_url=server.url)
    try:
        watcher = context.new_page()
        watcher.goto(f"/t/{table_id}?watch=1")
        watcher.wait_for_function("document.getElementById('you-are').textContent === 'You are watching'")
        page.fill("#chat-input", "hello, table")
        page.press("#chat-input", "Enter")
        watcher.locator("#chat-lines li", has_text="ann: hello, table").wait_for()
        watcher.fill("#chat-input", "good luck")
        watcher.press("#chat-input", "Enter")
        page.locator("#chat-lines li.spectator", has_text="good luck").wait_for()
        page.check("#mute-spectators")
        watcher.wait_for_function("document.getElementById('chat-input').disabled")
    finally:
        context.close()
