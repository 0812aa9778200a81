"""The login page and the account bar in a real browser (chromium through Playwright): register
(claiming this browser's guest seats), the bar, change the password, log out, log in and go
back where the person came from. The account routes run in a uvicorn of this test (the lead
mounts them in ``backgammon serve``). Skips without /usr/bin/chromium unless
``BACKGAMMON_REQUIRE_BROWSER`` is set."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import datetime, timezone
from pathlib import Path

import pytest
import sqlalchemy as sa
import uvicorn
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import HTMLResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from backgammon.server.accounts import hash_token
from backgammon.server.store import Store, TableRecord, seat_users_t
from tests.browser_support import BROWSER_ARGS, CHROMIUM, REQUIRED, free_port

from .test_server_accounts import make_app

if not CHROMIUM.exists() and not REQUIRED:
    pytest.skip("chromium is not installed (set BACKGAMMON_REQUIRE_BROWSER to fail instead)", allow_module_level=True)

from playwright.sync_api import Page, expect, sync_playwright  # noqa: E402

STATIC = Path(__file__).resolve().parent.parent / "backgammon" / "server" / "static"
ANY_PAGE = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>a page</title>
<link rel="icon" href="data:,"><link rel="stylesheet" href="/static/style.css"></head>
<body><header class="top"><a class="brand" href="/">Backgammon</a>
<div id="account" data-testid="account"></div></header>
<script type="module">
import { renderAccountBar } from "/static/account.js";
renderAccountBar(document.getElementById("account"));
</script></body></html>"""


async def any_page(request: Request) -> Response:
    """A page of the club with the account bar (the lobby stands in)."""
    return HTMLResponse(ANY_PAGE)


@pytest.fixture
def site(tmp_path: Path) -> Iterator[tuple[str, Store]]:
    database = f"sqlite:///{tmp_path}/club.sqlite3"
    store = Store(database)
    now = datetime.now(timezone.utc)
    store.create(TableRecord("t1", "match", {"length": 3}, {"ann": hash_token("tok-ann")}, {}, 0, "playing", now, now))
    app = make_app(database)
    app.router.routes.extend([Route("/", any_page), Route("/elsewhere", any_page),
                              Mount("/static", StaticFiles(directory=STATIC), name="static")])
    port = free_port()
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started:
        assert time.monotonic() < deadline, "uvicorn did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}", store
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        store.close()


@pytest.fixture
def page(site: tuple[str, Store]) -> Iterator[Page]:
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        context = browser.new_context(base_url=site[0])
        pg = context.new_page()
        errors: list[str] = []
        pg.on("pageerror", lambda exc: errors.append(str(exc)))
        try:
            yield pg
        finally:
            browser.close()
        assert errors == [], errors


def test_register_bar_password_logout_and_login(page: Page, site: tuple[str, Store]) -> None:
    _, store = site
    page.goto("/")
    page.evaluate("""() => {
        localStorage.setItem("bg.tokens.t1", JSON.stringify({ann: "tok-ann"}));
        localStorage.setItem("bg.name", JSON.stringify("ann"));
    }""")
    expect(page.get_by_test_id("login-link")).to_have_text("Log in / Register")
    page.get_by_test_id("login-link").click()
    expect(page).to_have_url("/login?next=%2F")

    expect(page.get_by_test_id("register-name")).to_have_value("ann")   # the guest name, offered
    page.get_by_test_id("register-password").fill("a good password")
    page.get_by_test_id("register-confirm").fill("another password")
    page.get_by_test_id("register-submit").click()
    expect(page.locator("#register-form .error")).to_contain_text("differ")
    page.get_by_test_id("register-confirm").fill("a good password")
    page.get_by_test_id("register-submit").click()
    page.wait_for_url("/")

    bar = page.get_by_test_id("account")
    expect(bar).to_contain_text("ann (1500) · Profile · Log out")
    expect(page.get_by_test_id("profile-link")).to_have_attribute("href", "/u/ann")
    with store.engine.connect() as c:
        assert [(r.table_id, r.seat) for r in c.execute(sa.select(seat_users_t))] == [("t1", "ann")]

    page.goto("/login")
    expect(page.get_by_test_id("me-name")).to_have_text("ann")
    form = page.get_by_test_id("password-form")
    form.locator("[name=old]").fill("not the password")
    form.locator("[name=new]").fill("a better password")
    form.locator("[name=confirm]").fill("a better password")
    page.get_by_test_id("password-submit").click()
    expect(form.locator(".error")).to_contain_text("current password")
    form.locator("[name=old]").fill("a good password")
    page.get_by_test_id("password-submit").click()
    expect(page.locator("#password-done")).to_contain_text("password is changed")

    page.goto("/elsewhere")
    page.get_by_test_id("logout").click()
    expect(page.get_by_test_id("login-link")).to_be_visible()
    page.get_by_test_id("login-link").click()
    page.get_by_test_id("login-name").fill("ANN")
    page.get_by_test_id("login-password").fill("a good password")
    page.get_by_test_id("login-submit").click()
    expect(page.locator("#login-form .error")).to_have_text("wrong name or password")
    page.get_by_test_id("login-password").fill("a better password")
    page.get_by_test_id("login-submit").click()
    page.wait_for_url("/elsewhere")                                   # back where the person was
    expect(page.get_by_test_id("account-name")).to_have_text("ann")
