"""The moderators' page (/moderate) in chromium against a real ``backgammon serve``: a report
with its chat, closing it, the ban form; players and guests are told the page is not for
them."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import sqlalchemy as sa

from backgammon.server.moderation import grant_moderator
from backgammon.server.store import Store, users_t
from tests.browser_support import CHROMIUM, REQUIRED, Server, browser, server  # noqa: F401  (fixtures)

if not CHROMIUM.exists() and not REQUIRED:
    pytest.skip(
        "chromium is not installed (set BACKGAMMON_REQUIRE_BROWSER to fail instead)", allow_module_level=True
    )

from playwright.sync_api import Browser, ConsoleMessage, Page, expect  # noqa: E402


class Person:
    """An account registered through the API: its HTTP client (cookie) and CSRF token."""

    def __init__(self, server: Server, name: str) -> None:
        self.name = name
        self.client = httpx.Client(base_url=server.url, timeout=10)
        answer = self.client.post("/api/register", json={"name": name, "password": f"{name}-pass-word-1"})
        assert answer.status_code == 200, answer.text
        self.csrf: str = answer.json()["csrf"]
        self.token: str = self.client.cookies["bg_session"]

    def post(self, path: str, body: dict[str, Any]) -> Any:
        answer = self.client.post(path, json=body, headers={"X-CSRF-Token": self.csrf})
        assert answer.status_code == 200, answer.text
        return answer.json()


@pytest.fixture
def store(server: Server) -> Iterator[Store]:
    s = Store(server.database)
    try:
        yield s
    finally:
        s.close()


def open_page(browser: Browser, server: Server, person: Person | None, errors: list[str]) -> Page:
    """/moderate in a fresh context, logged in as ``person`` (None: a guest)."""
    context = browser.new_context(base_url=server.url)
    if person is not None:
        context.add_cookies([{"name": "bg_session", "value": person.token, "url": server.url}])
    page = context.new_page()
    page.set_default_timeout(15_000)
    page.on("pageerror", lambda exc: errors.append(str(exc)))

    def console(message: ConsoleMessage) -> None:
        if message.type == "error" and "favicon" not in message.text:
            errors.append(message.text)

    page.on("console", console)
    page.goto("/moderate")
    return page


def test_a_moderator_reads_a_report_closes_it_and_bans(browser: Browser, server: Server, store: Store) -> None:
    moderator, annie = Person(server, "modder"), Person(server, "annie")
    grant_moderator(store, "modder")
    two = [{"kind": "human"}, {"kind": "human"}]
    table = annie.post("/api/tables", {"kind": "match", "length": 3, "name": "annie", "seats": two})["table"]["id"]
    joined = httpx.post(f"{server.url}/api/tables/{table}/join", json={"name": "bobby"}, timeout=10)
    assert joined.status_code == 200, joined.text
    store.add_chat(table, "bobby", "you play like a <b>beginner</b>", False)
    annie.post(f"/api/tables/{table}/report", {"name": "bobby", "reason": "insults in chat"})

    errors: list[str] = []
    page = open_page(browser, server, moderator, errors)
    expect(page.locator("#status")).to_have_text("Logged in as modder (moderator).")
    card = page.locator("article.report")
    expect(card).to_have_count(1)
    expect(card.locator("h2")).to_contain_text("annie reported bobby")
    expect(card).to_contain_text("Reason: insults in chat")
    expect(card.locator(".chat li")).to_have_count(1)
    expect(card.locator(".chat li")).to_contain_text("bobby: you play like a <b>beginner</b>")  # text, not HTML
    expect(card.locator(f'a[href="/r/{table}"]')).to_be_visible()
    expect(card.locator(f'a[href="/t/{table}"]')).to_be_visible()
    expect(card.get_by_role("button", name="Kick bobby")).to_be_disabled()   # a guest has no account

    page.once("dialog", lambda dialog: dialog.accept("warned bobby"))
    card.get_by_role("button", name="Close report").click()
    expect(page.locator("article.report")).to_have_count(0)
    expect(page.locator("#empty")).to_be_visible()
    page.select_option("#filter", "closed")
    expect(page.locator("article.report")).to_contain_text("Closed by modder: warned bobby")

    form = page.locator("#ban-form")
    form.locator("input[name=name]").fill("annie")
    form.locator("select[name=hours]").select_option("168")
    form.locator("input[name=reason]").fill("false reports")
    form.get_by_role("button", name="Ban").click()
    expect(page.locator("#form-result")).to_have_text("annie is banned for 168 hours.")
    with store.engine.connect() as connection:
        row = connection.execute(sa.select(users_t).where(users_t.c.name == "annie")).one()
    assert row.banned_until is not None and row.ban_reason == "false reports"

    form.locator("input[name=name]").fill("nobody")
    form.locator("input[name=reason]").fill("x")
    form.get_by_role("button", name="Ban").click()
    expect(page.locator("#form-result")).to_have_text("there is no account named 'nobody': check the spelling")
    page.context.close()
    assert [e for e in errors if "404" not in e] == []


def test_players_and_guests_are_told_the_page_is_for_moderators(browser: Browser, server: Server) -> None:
    errors: list[str] = []
    player = open_page(browser, server, Person(server, "carol"), errors)
    expect(player.locator("#status")).to_contain_text("for moderators only, and carol is not one")
    expect(player.locator("#tools")).to_be_hidden()
    player.context.close()
    guest = open_page(browser, server, None, errors)
    expect(guest.locator("#status")).to_contain_text("This page is for moderators. Log in")
    expect(guest.locator('#status a[href^="/login"]')).to_be_visible()
    guest.context.close()
    assert errors == []
