"""The profile, history and leaderboard pages in chromium, over the routes of
backgammon/server/results.py served by uvicorn (with the static files) on a SQLite store
filled by real matches."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from playwright.sync_api import Browser, expect
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from backgammon.server import results
from backgammon.server.app import STATIC
from backgammon.server.store import Store

from .browser_support import browser, free_port  # noqa: F401  (the fixture)
from .test_server_results import T0, add_table, add_user, played, run_finish, settings_of, winner_of

PAGE = 25  # history.js's page size


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Any]]:
    """A server of the records pages: ann and bob played one rated 1-point match, then 27
    unrated ones (more than a page of history)."""
    folder = tmp_path_factory.mktemp("records")
    store = Store(f"sqlite:///{folder}/club.sqlite3")
    ann, bob = add_user(store, "ann"), add_user(store, "bob")
    table = played(1, 0)
    rated = settings_of(table)
    first = add_table(store, table, rated, {"ann": ann, "bob": bob}, created=T0)
    run_finish(store, first, rated, table)
    unrated = settings_of(table, rated=False)
    for i in range(1, PAGE + 3):
        tid = add_table(store, table, unrated, {"ann": ann, "bob": bob}, created=T0 + timedelta(minutes=i))
        run_finish(store, tid, unrated, table, at=T0 + timedelta(minutes=i))
    app = Starlette(routes=[*results.routes(), Mount("/static", StaticFiles(directory=STATIC))])
    app.state.store = store
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield {"url": f"http://127.0.0.1:{port}", "winner": winner_of(table)[0], "first": first}
    finally:
        server.should_exit = True
        thread.join(10)
        store.close()


def test_profile_page(site: dict[str, Any], browser: Browser) -> None:  # noqa: F811
    page = browser.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(site["url"] + "/u/ANN")
    expect(page.get_by_test_id("player-name")).to_have_text("ann")
    ann_won = site["winner"] == "ann"
    expect(page.get_by_test_id("rating")).to_have_text("1510.00" if ann_won else "1490.00")
    expect(page.get_by_test_id("experience")).to_have_text("1")
    won, lost = page.get_by_test_id("won").inner_text(), page.get_by_test_id("lost").inner_text()
    assert int(won) + int(lost) == PAGE + 3
    rows = page.locator("#recent tbody tr")
    expect(rows).to_have_count(10)
    expect(rows.first.locator("td").nth(1)).to_have_text("bob")
    rows.first.get_by_role("link", name="bob").click()
    expect(page).to_have_url(site["url"] + "/u/bob")
    expect(page.get_by_test_id("player-name")).to_have_text("bob")
    assert errors == []
    page.close()


def test_history_page_pages_back(site: dict[str, Any], browser: Browser) -> None:  # noqa: F811
    page = browser.new_page()
    page.goto(site["url"] + "/u/ann/history")
    rows = page.locator("#history tbody tr")
    expect(rows).to_have_count(PAGE)
    expect(page.locator("h1")).to_have_text("ann's matches")
    page.get_by_test_id("more").click()
    expect(rows).to_have_count(PAGE + 3)
    expect(page.get_by_test_id("more")).to_be_hidden()
    oldest = page.locator(f'#history tbody tr[data-table="{site["first"]}"]')
    expect(oldest).to_contain_text("1-point match · rated")
    expect(oldest).to_contain_text("+10.00 → 1510.00" if site["winner"] == "ann" else "−10.00 → 1490.00")
    expect(oldest.get_by_role("link", name="Replay")).to_have_attribute("href", f"/r/{site['first']}")
    page.close()


def test_leaderboard_page(site: dict[str, Any], browser: Browser) -> None:  # noqa: F811
    page = browser.new_page()
    page.goto(site["url"] + "/leaderboard")
    rows = page.locator("#leaderboard tbody tr")
    expect(rows).to_have_count(2)
    loser = "bob" if site["winner"] == "ann" else "ann"
    expect(rows.nth(0)).to_have_attribute("data-name", site["winner"])
    expect(rows.nth(0).locator("td").nth(2)).to_have_text("1510.00")
    expect(rows.nth(1)).to_have_attribute("data-name", loser)
    page.close()


def test_an_unknown_player_is_said_so(site: dict[str, Any], browser: Browser) -> None:  # noqa: F811
    page = browser.new_page()
    page.goto(site["url"] + "/u/nobody")
    expect(page.locator("#status")).to_have_text("There is no player called 'nobody'")
    expect(page.locator("#profile")).to_be_hidden()
    page.close()
