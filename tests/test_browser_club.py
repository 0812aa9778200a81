"""The club in a real browser: accounts, rated matches, clocks, leaving (issue 12).

A real ``backgammon serve`` (tests/browser_support.py: a SQLite file, bot delay 0) and chromium
through Playwright, as people use them:

* register, log out, log in, create a rated 1-point match against a bot with a clock in the
  lobby, play it to its end (a resignation through the menu, R31), and the profile shows a
  rating moved from 1500 and an experience of 1 (the FIBS formula: a match of n points adds n);
* two accounts in a rated blitz match (8 s a move + 20 s a point); nobody moves; the clock
  of the seat to act runs out, the page shows "... lost on time — ... wins the match" and
  both rating changes;
* Leave match asks first ("You lose the match and rating points") and ends a rated match;
* a guest cannot tick Rated (the lobby says why); a logged-in person can, and a clock is chosen;
* the clocks count down in the page from the state's "clock" object, whatever the browser's own
  clock says (the state's messages are rewritten on their way to the page, so the values are
  known: a delay, then the reserve, the warning colour under 10 s).

Skipped when ``/usr/bin/chromium`` is missing, unless ``BACKGAMMON_REQUIRE_BROWSER`` is set.
"""

from __future__ import annotations

import json
import re
import secrets
import subprocess
import sys
import time
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

from playwright.sync_api import (  # noqa: E402
    Browser,
    BrowserContext,
    ConsoleMessage,
    Dialog,
    Page,
    ViewportSize,
    WebSocketRoute,
    expect,
)

LAPTOP: ViewportSize = {"width": 1280, "height": 860}
PASSWORD = "correct horse battery"
BLITZ_SECONDS = 8 + 20  # delay + the reserve of a 1-point match (backgammon/clock.py PRESETS)

#: The state the page shows: {seq, seat, snap, plays, table} (null before a state).
VIEW_JS = """() => {
  const t = window.bgTable;
  if (!t || !t.state) return null;
  return {seq: t.state.seq, seat: t.seat, snap: t.state.snapshots[t.seat] ?? null,
          table: t.state.table ?? null};
}"""


class People:
    """Browser contexts (one per person, each with its own cookies) whose page errors fail the test."""

    def __init__(self, browser: Browser, base_url: str) -> None:
        self.browser = browser
        self.base_url = base_url
        self.contexts: list[BrowserContext] = []
        self.errors: list[str] = []

    def page(self) -> Page:
        """A fresh person's page (empty storage, no cookie), animations off."""
        context = self.browser.new_context(base_url=self.base_url, viewport=LAPTOP, reduced_motion="reduce")
        self.contexts.append(context)
        pg = context.new_page()
        pg.on("pageerror", lambda exc: self.errors.append(f"{pg.url}: {exc}"))

        def console(message: ConsoleMessage) -> None:
            if message.type == "error" and "favicon" not in message.text:
                self.errors.append(f"{pg.url}: {message.text}")

        pg.on("console", console)
        pg.set_default_timeout(15_000)
        return pg

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def people(browser: Browser, server: Server) -> Iterator[People]:
    """Make a person's page with ``people.page()``; every page error fails the test."""
    crowd = People(browser, server.url)
    yield crowd
    crowd.close()
    assert crowd.errors == [], f"the pages reported errors: {crowd.errors}"


def unique(prefix: str) -> str:
    """An account name not used before on this server (the server lives for the module)."""
    return f"{prefix}{secrets.token_hex(3)}"


# -- accounts through the pages -----------------------------------------------------------------


def register(page: Page, name: str) -> None:
    """Register ``name`` on the login page; back in the lobby, logged in."""
    page.goto("/login")
    page.fill("#register-name", name)
    form = page.locator("#register-form")
    form.locator('[name="password"]').fill(PASSWORD)
    form.locator('[name="confirm"]').fill(PASSWORD)
    form.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"/$"))
    expect(page.locator('#account [data-testid="account-name"]')).to_have_text(name)


def log_out(page: Page) -> None:
    """Log out with the account bar's button (the page reloads as a guest's)."""
    page.locator('#account [data-testid="logout"]').click()
    expect(page.locator('#account [data-testid="login-link"]')).to_be_visible()


def log_in(page: Page, name: str) -> None:
    """Log in on the login page; back in the lobby, logged in."""
    page.goto("/login")
    form = page.locator("#login-form")
    form.locator('[name="name"]').fill(name)
    form.locator('[name="password"]').fill(PASSWORD)
    form.locator("button[type=submit]").click()
    page.wait_for_url(re.compile(r"/$"))
    expect(page.locator('#account [data-testid="account-name"]')).to_have_text(name)


def lobby_ready(page: Page) -> None:
    """Open the lobby and wait until its form knows who is there and the bot levels."""
    page.goto("/")
    page.wait_for_function("document.body.dataset.account !== undefined")
    page.locator('select[name="bot"] option').first.wait_for(state="attached")


def create_rated(page: Page, opponent: str, clock: str | None = None, bot: str = "random") -> str:
    """Create a rated 1-point match in the lobby (a logged-in page); the table's id."""
    lobby_ready(page)
    page.check('input[name="kind"][value="match"]')
    page.fill('input[name="length"]', "1")
    page.check(f'input[name="opponent"][value="{opponent}"]')
    if opponent == "bot":
        page.select_option('select[name="bot"]', bot)
    rated = page.locator('input[name="rated"]')
    expect(rated).to_be_enabled()
    rated.check()
    expect(page.locator('select[name="clock"]')).to_have_value("rapid")  # a rated match needs a clock
    if clock:
        page.select_option('select[name="clock"]', clock)
    page.click('[data-testid="create-table"]')
    try:
        page.wait_for_url("**/t/*")
    except Exception as exc:
        error = page.locator("#create-error").inner_text()
        raise AssertionError(f"the lobby did not open the table: {error!r}") from exc
    page.locator("#table-main").wait_for()
    return page.url.rsplit("/", 1)[1]


def profile(server: Server, name: str) -> dict[str, Any]:
    """GET /api/users/NAME."""
    answer = httpx.get(f"{server.url}/api/users/{name}", timeout=10)
    assert answer.status_code == 200, answer.text
    data: dict[str, Any] = answer.json()
    return data


def view(page: Page) -> dict[str, Any]:
    data: dict[str, Any] | None = page.evaluate(VIEW_JS)
    assert data is not None and data["snap"] is not None, "the page shows no game"
    return data


def wait_action(page: Page, action: str, timeout: float = 20_000) -> None:
    """Until the page's button for ``action`` is shown and enabled."""
    page.wait_for_function(
        "(a) => { const b = document.querySelector(`#actions [data-action='${a}']`);"
        " return b && !b.hidden && !b.disabled; }",
        arg=action,
        timeout=timeout,
    )


# -- the tests ----------------------------------------------------------------------------------


def test_a_guest_cannot_tick_rated_and_an_account_can(people: People) -> None:
    """The lobby's Rated box is for accounts (CLUB-DESIGN: every human seat of a rated match is
    an account), and for a two-seat match only; ticking it chooses a clock, and "none" is then
    refused (a rated match cannot be stalled)."""
    guest = people.page()
    lobby_ready(guest)
    rated = guest.locator('input[name="rated"]')
    expect(rated).to_be_disabled()
    expect(guest.locator('[data-testid="rated-note"]')).to_contain_text("Log in to play rated matches")
    expect(guest.locator('#account [data-testid="login-link"]')).to_be_visible()
    expect(guest.locator("header a[href='/leaderboard']")).to_be_visible()
    guest.check('input[name="kind"][value="money"]')
    expect(guest.locator('select[name="clock"]')).to_be_disabled()  # clocks are for matches only

    person = people.page()
    name = unique("rater")
    register(person, name)
    lobby_ready(person)
    expect(person.locator("#guest-name")).to_have_value(name)
    expect(person.locator("#guest-name")).not_to_be_editable()
    rated = person.locator('input[name="rated"]')
    expect(rated).to_be_enabled()
    expect(person.locator('select[name="clock"]')).to_have_value("none")
    rated.check()
    expect(person.locator('select[name="clock"]')).to_have_value("rapid")
    assert person.locator('select[name="clock"] option[value="none"]').is_disabled()
    person.check('input[name="opponent"][value="same_screen"]')  # one screen: no second account
    expect(rated).to_be_disabled()
    expect(rated).not_to_be_checked()
    expect(person.locator('[data-testid="rated-note"]')).to_contain_text("cannot be rated")
    person.check('input[name="opponent"][value="bot"]')
    person.check('input[name="kind"][value="chouette"]')
    expect(rated).to_be_disabled()
    expect(person.locator('[data-testid="rated-note"]')).to_contain_text("Only a match can be rated")

    # the guest opens the invite to a rated match: told to log in, Join is off
    table_id = create_rated(person, "online")
    guest.goto(f"/t/{table_id}")
    expect(guest.locator("#join-error")).to_contain_text("This match is rated: only accounts play it.")
    expect(guest.locator('[data-testid="join-login"]')).to_have_attribute("href", f"/login?next=%2Ft%2F{table_id}")
    expect(guest.locator('[data-testid="join"]')).to_be_disabled()
    expect(guest.locator('[data-testid="watch"]')).to_be_enabled()


def test_register_log_in_play_a_rated_match_and_see_the_rating_change(
    people: People, server: Server, tmp_path: Path
) -> None:
    """Register, log out, log in; a rated 1-point match against the random bot with the rapid
    clock, created in the lobby; both clocks beside the names; the match is played to its end
    by a resignation (R31: the bot accepts); the banner gives both rating changes; the profile
    shows a rating other than 1500 and an experience of 1 (a 1-point match)."""
    page = people.page()
    name = unique("ann")
    register(page, name)
    log_out(page)
    log_in(page, name)
    table_id = create_rated(page, "bot")
    # the lobby lists it as rated, with its clock and the players' ratings
    lobby = people.page()
    lobby_ready(lobby)
    row = lobby.locator(f'[data-table-id="{table_id}"]')
    expect(row.locator('[data-testid="rated-badge"]')).to_have_text("rated")
    expect(row).to_contain_text("rapid")
    expect(row).to_contain_text(f"{name} 1500")

    expect(page.locator('[data-testid="rated-badge"]')).to_be_visible()
    wait_action(page, "roll")
    clocks = page.locator('#scoreboard [data-testid="clock"]')
    expect(clocks).to_have_count(2)
    expect(page.locator(f'#scoreboard a.name[href="/u/{name}"]')).to_be_visible()
    expect(page.locator(f'#scoreboard li[data-seat="{name}"] [data-testid="rating"]')).to_have_text("1500")
    mine = page.locator(f'#scoreboard [data-clock-seat="{name}"]')
    expect(mine).to_have_class(re.compile(r"\brunning\b"))  # the opening roll is ours to throw
    expect(mine.locator(".reserve")).to_have_text("01:00")  # rapid: 1 min a point
    page.screenshot(path=str(tmp_path / "table-rated.png"))

    page.click('#actions [data-action="roll"]')
    wait_action(page, "resign")
    page.click('#actions [data-action="resign"]')
    page.click('#resign-menu [data-resign-level="1"]')
    banner = page.locator('[data-testid="result-banner"]')
    expect(banner).to_be_visible()
    expect(banner.locator(".result-text")).to_have_text(f"{name} resigned — random wins the match")
    ratings = banner.locator(".result-ratings")
    expect(ratings).to_contain_text(re.compile(rf"{name} 1500 → \d+ \(−\d+\.\d\d\)"))
    expect(banner.locator('[data-testid="replay-link"]')).to_have_attribute("href", f"/r/{table_id}")
    expect(banner.locator('[data-testid="history-link"]')).to_have_attribute("href", f"/u/{name}/history")
    expect(page.locator('#actions [data-action="leave"]')).to_be_hidden()
    page.screenshot(path=str(tmp_path / "table-over.png"))

    data = profile(server, name)
    user = data.get("user", data)
    assert user["rating"] < 1500 and user["experience"] == 1, data
    page.goto(f"/u/{name}")
    expect(page.locator("body")).to_contain_text(str(round(user["rating"])))
    expect(page.locator("body")).to_contain_text(re.compile(r"[Ee]xperience\D{0,20}1\b"))


def test_leaving_a_rated_match_asks_first_and_loses_it(people: People, server: Server) -> None:
    """Leave match: the confirmation says what it costs (the match and rating points); no
    answer keeps the match going; yes loses it by "abandoned" (the banner says so) and the
    profile counts it."""
    page = people.page()
    name = unique("cy")
    register(page, name)
    create_rated(page, "bot", clock="blitz")
    wait_action(page, "roll")
    asked: list[str] = []

    def decline(dialog: Dialog) -> None:
        asked.append(dialog.message)
        dialog.dismiss()

    page.once("dialog", decline)
    page.click('#actions [data-action="leave"]')
    expect(page.locator('#actions [data-action="leave"]')).to_be_visible()
    assert asked == ["Leave the match? You lose the match and rating points."]
    assert not view(page)["snap"]["over"]

    page.once("dialog", lambda dialog: dialog.accept())
    page.click('#actions [data-action="leave"]')
    banner = page.locator('[data-testid="result-banner"]')
    expect(banner.locator(".result-text")).to_have_text(f"{name} left the match — random wins the match")
    expect(banner.locator(".result-ratings")).to_contain_text(name)
    expect(page.locator('#actions [data-action="leave"]')).to_be_hidden()
    data = profile(server, name)
    user = data.get("user", data)
    assert user["experience"] == 1 and user["rating"] < 1500, data
    assert data.get("abandoned", user.get("abandoned")) == 1, data


def test_a_clock_running_out_loses_the_match(people: People, server: Server, tmp_path: Path) -> None:
    """Two accounts in a rated 1-point blitz match (8 s a move + 20 s a point); nobody acts.
    The running clock counts down in both pages (the warning colour under 10 s); when it
    runs out, the server ends the match: both pages say who lost on time and who wins, with
    the rating changes."""
    ann, bob = people.page(), people.page()
    ann_name, bob_name = unique("ann"), unique("bob")
    register(ann, ann_name)
    register(bob, bob_name)
    table_id = create_rated(ann, "online", clock="blitz")
    link = ann.locator("#invite-link").input_value()
    assert link.endswith(f"/t/{table_id}")
    bob.goto(link)
    expect(bob.locator("#join-name")).to_have_value(bob_name)
    bob.click('[data-testid="join"]')
    for pg in (ann, bob):
        expect(pg.locator('#scoreboard [data-testid="clock"]')).to_have_count(2)
        expect(pg.locator("#scoreboard .clock.running")).not_to_have_count(0)
    started = time.monotonic()
    running = ann.locator("#scoreboard .clock.running").first
    seat = running.get_attribute("data-clock-seat")
    assert seat in (ann_name, bob_name)
    expect(running.locator(".delay")).to_have_text(re.compile(r"^\+[1-8]s$"))
    expect(running.locator(".reserve")).to_have_text("00:20")
    expect(running).to_have_class(re.compile(r"\blow\b"), timeout=BLITZ_SECONDS * 1000)  # under 10 s left
    assert time.monotonic() - started >= 8 + 10 - 2  # the delay first, then 10 s of the reserve
    ann.screenshot(path=str(tmp_path / "clock-low.png"))
    texts = ann.locator(f'#scoreboard [data-clock-seat="{seat}"] .reserve')
    first = texts.inner_text()
    ann.wait_for_timeout(1500)
    assert texts.inner_text() < first  # "00:07" < "00:09": still counting down
    loser, winner = (ann_name, bob_name) if seat == ann_name else (bob_name, ann_name)
    for pg in (ann, bob):
        banner = pg.locator('[data-testid="result-banner"]')
        expect(banner.locator(".result-text")).to_have_text(
            f"{loser} lost on time — {winner} wins the match", timeout=(BLITZ_SECONDS + 15) * 1000
        )
        # two new accounts (K = 5) in a 1-point match: 4 * 5 * sqrt(1) * 0.5 = 10 points each way
        expect(banner.locator(".result-ratings")).to_contain_text(f"{winner} 1500 → 1510 (+10.00)")
        expect(banner.locator(".result-ratings")).to_contain_text(f"{loser} 1500 → 1490 (−10.00)")
        expect(pg.locator(f'#scoreboard [data-clock-seat="{seat}"] .reserve')).to_have_text("00:00")
    ann.screenshot(path=str(tmp_path / "lost-on-time.png"))
    assert profile(server, loser).get("user", {}).get("experience", 1) == 1


# -- the clock's display, from known values --------------------------------------------------------


def rewrite_states(page: Page, change: Any) -> None:
    """Pass the table's WebSocket through, with ``change(state)`` applied to each state message."""

    def handler(ws: WebSocketRoute) -> None:
        server_side = ws.connect_to_server()

        def from_server(message: str | bytes) -> None:
            data = json.loads(message)
            if data.get("type") == "state":
                change(data)
            ws.send(json.dumps(data))

        server_side.on_message(from_server)

    page.route_web_socket(re.compile(r"/ws/tables/"), handler)


def test_the_clocks_count_down_from_the_servers_values(people: People, server: Server) -> None:
    """The state's clock says what was left at "at": the running seat's delay (3 s) runs out
    first, then its reserve (12 s) counts down in mm:ss, in the warning colour under 10 s;
    the other seat's clock stands at its reserve. "at" is an hour behind the browser's clock:
    the page counts from the message's arrival, not from its own clock. Accounts' names link
    to their profiles with their ratings; the header says rated and which clock."""
    created = httpx.post(
        f"{server.url}/api/tables",
        json={"kind": "match", "length": 1, "name": "zed", "same_screen": True,
              "seats": [{"kind": "human"}, {"kind": "human", "name": "yan"}]},
        timeout=10,
    )
    assert created.status_code < 300, created.text
    table_id = created.json()["table"]["id"]
    tokens = created.json()["tokens"]
    skew_ms = 3_600_000

    def change(state: dict[str, Any]) -> None:
        state["clock"] = {
            "control": {"name": "blitz", "delay": 8, "per_point": 20},
            "running": ["zed"],
            "at": time.time() * 1000 - skew_ms,
            "seats": {"zed": {"delay": 3.0, "reserve": 12.0}, "yan": {"delay": 8.0, "reserve": 20.0}},
        }
        info = state["table"]
        info["rated"] = True
        info["clock"] = {"name": "blitz", "delay": 8, "per_point": 20}
        info["players"] = {"zed": {"name": "zed", "rating": 1623.4, "experience": 120}, "yan": None}

    page = people.page()
    rewrite_states(page, change)
    page.goto("/verify")
    page.evaluate("([k, v]) => localStorage.setItem(k, v)", [f"bg.tokens.{table_id}", json.dumps(tokens)])
    page.goto(f"/t/{table_id}")
    zed = page.locator('#scoreboard [data-clock-seat="zed"]')
    yan = page.locator('#scoreboard [data-clock-seat="yan"]')
    expect(zed).to_have_class(re.compile(r"\brunning\b"))
    expect(zed.locator(".reserve")).to_have_text("00:12")
    expect(zed.locator(".delay")).to_have_text(re.compile(r"^\+[23]s$"))
    expect(zed).not_to_have_class(re.compile(r"\blow\b"))
    expect(yan.locator(".reserve")).to_have_text("00:20")
    expect(yan.locator(".delay")).to_have_text("")
    expect(yan).not_to_have_class(re.compile(r"\brunning\b"))
    expect(page.locator('#scoreboard a.name[href="/u/zed"]')).to_have_text("zed")
    expect(page.locator('#scoreboard li[data-seat="zed"] [data-testid="rating"]')).to_have_text("1623")
    expect(page.locator('#scoreboard li[data-seat="yan"] a.name')).to_have_count(0)
    expect(page.locator('#table-badges [data-testid="rated-badge"]')).to_have_text("rated")
    badges = page.locator("#table-badges")
    expect(badges.locator('[data-testid="clock-badge"]')).to_contain_text("blitz: 8 s + 20 s/point")
    # the delay runs out (3 s), then the reserve: 00:11 by about 4 s after the state
    expect(zed.locator(".delay")).to_have_text("", timeout=6_000)
    expect(zed.locator(".reserve")).to_have_text(re.compile(r"^00:1[01]$"))
    expect(zed).to_have_class(re.compile(r"\blow\b"), timeout=8_000)  # under 10 s: about 5 s after the state
    expect(zed.locator(".reserve")).to_have_text(re.compile(r"^00:0\d$"))
    expect(yan.locator(".reserve")).to_have_text("00:20")
    assert zed.get_attribute("aria-label", timeout=1000) is not None


#: Counts the page's WebSockets (window.__sockets), to see that a page stops reconnecting.
SOCKETS_JS = """(() => {
  const Native = window.WebSocket;
  window.__sockets = [];
  window.WebSocket = class extends Native {
    constructor(...args) { super(...args); window.__sockets.push(this); }
  };
})();"""


def say_in_chat(page: Page, text: str) -> None:
    page.fill("#chat-input", text)
    page.press("#chat-input", "Enter")


def test_chat_menu_mute_report_limits_and_a_kick(people: People, server: Server) -> None:
    """At an online match of two accounts: a line by the other account has a menu; Report
    asks for a reason and records it; Mute hides that account's lines, now and later (the
    server does not send them); a sixth line within 10 s is refused and the page says so in
    the chat, giving the text back; a moderator's kick shows a banner on the kicked page,
    which stops reconnecting, and the match is lost by leaving (the other page's banner)."""
    ann, bob, mod = people.page(), people.page(), people.page()
    ann_name, bob_name, mod_name = unique("ann"), unique("bob"), unique("mod")
    register(ann, ann_name)
    register(bob, bob_name)
    register(mod, mod_name)
    bob.add_init_script(SOCKETS_JS)
    lobby_ready(ann)
    ann.check('input[name="kind"][value="match"]')
    ann.fill('input[name="length"]', "3")
    ann.check('input[name="opponent"][value="online"]')
    ann.click('[data-testid="create-table"]')
    ann.wait_for_url("**/t/*")
    table_id = ann.url.rsplit("/", 1)[1]
    bob.goto(f"/t/{table_id}")
    bob.click('[data-testid="join"]')
    expect(bob.locator("#you-are")).to_have_text(f"You play as {bob_name}")
    expect(bob.locator("#chat-input")).to_have_attribute("maxlength", "300")

    say_in_chat(bob, "hello there")
    line = ann.locator("#chat-lines li", has_text="hello there")
    expect(line).to_have_attribute("data-user", bob_name)
    own = bob.locator("#chat-lines li", has_text="hello there")
    expect(own.locator(".chat-menu")).to_have_count(0)  # no menu on one's own lines

    line.locator(".chat-menu summary").click()
    ann.once("dialog", lambda dialog: dialog.accept("rude words"))
    line.locator('[data-chat-action="report"]').click()
    notes = ann.locator('#chat-lines [data-testid="chat-note"]')
    expect(notes.last).to_contain_text(f"Your report about {bob_name} is recorded")

    line.locator(".chat-menu summary").click()
    line.locator('[data-chat-action="mute"]').click()
    expect(notes.last).to_have_text(
        f"You muted {bob_name}: their chat lines are hidden from you.")
    expect(ann.locator("#chat-lines li", has_text="hello there")).to_have_count(0)
    say_in_chat(bob, "can you hear me")
    expect(bob.locator("#chat-lines li", has_text="can you hear me")).to_have_count(1)
    say_in_chat(ann, "all quiet")
    expect(bob.locator("#chat-lines li", has_text="all quiet")).to_have_count(1)  # ann's lines reach bob
    expect(ann.locator("#chat-lines li", has_text="all quiet")).to_have_count(1)
    expect(ann.locator("#chat-lines li", has_text="can you hear me")).to_have_count(0)
    ann.reload()  # a new connection: the server leaves out the muted account's lines itself
    expect(ann.locator("#chat-lines li", has_text="all quiet")).to_have_count(1)
    expect(ann.locator("#chat-lines li", has_text="hello there")).to_have_count(0)
    expect(ann.locator("#chat-lines li", has_text="can you hear me")).to_have_count(0)

    for n in range(3, 7):  # bob's lines 3, 4, 5 pass; the sixth within 10 s is refused
        say_in_chat(bob, f"line {n}")
        if n < 6:
            expect(bob.locator("#chat-lines li", has_text=f"line {n}")).to_have_count(1)
    expect(bob.locator('#chat-lines [data-testid="chat-note"].error')).to_have_count(1)
    expect(bob.locator("#chat-input")).to_have_value("line 6")

    promoted = subprocess.run(
        [str(Path(sys.executable).with_name("backgammon")), "moderator", mod_name,
         "--database", server.database],
        capture_output=True, text=True, timeout=60,
    )
    assert promoted.returncode == 0, promoted.stderr
    sockets = bob.evaluate("window.__sockets.length")
    kicked = mod.evaluate(
        "(b) => import('/static/account.js')"
        ".then((m) => m.postJSON('/api/moderation/kick', b)).then(() => 'ok', (e) => e.message)",
        {"table": table_id, "name": bob_name, "reason": "testing kicks"},
    )
    assert kicked == "ok"
    banner = bob.locator("#banner")
    expect(banner).to_have_text("A moderator removed you from this table: testing kicks.")
    expect(banner).to_have_attribute("data-testid", "kicked")
    bob.wait_for_timeout(2500)  # the page would have reconnected by now (0.5 s, then 1 s)
    assert bob.evaluate("window.__sockets.length") == sockets
    expect(banner).to_have_text("A moderator removed you from this table: testing kicks.")
    expect(ann.locator('[data-testid="result-banner"] .result-text')).to_have_text(
        f"{bob_name} left the match — {ann_name} wins the match")
