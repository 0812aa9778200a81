"""End-to-end tests in a real browser: whole games through the pages against ``backgammon serve``.

A real server runs as a subprocess (bot delay 0, a SQLite file under the test's temporary
folder); chromium (through Playwright) plays as people do: the lobby form, clicks on the
checkers, the dice and the buttons, Enter, the notation input, the invite link. The server
rolls the dice, so the tests read the situation from the page (``window.bgTable.state``, the
state message the page shows, and the board's DOM) and choose legal actions accordingly.

Skipped when ``/usr/bin/chromium`` is missing, unless ``BACKGAMMON_REQUIRE_BROWSER`` is set.
"""

from __future__ import annotations

import json
import os
import random
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.browser_support import (
    CHROMIUM,
    OFF,
    READ_BOARD_JS,
    REQUIRED,
    Board,
    Server,
    apply_hop,
    browser,  # noqa: F401  (fixture)
    complete,
    legal_hops,
    preferred_hop,
    read_board,
    server,  # noqa: F401  (fixture)
)

if not CHROMIUM.exists() and not REQUIRED:
    pytest.skip("chromium is not installed (set BACKGAMMON_REQUIRE_BROWSER to fail instead)", allow_module_level=True)

from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, ViewportSize, expect  # noqa: E402

DESKTOP: ViewportSize = {"width": 1280, "height": 860}
PHONE: ViewportSize = {"width": 390, "height": 844}
DOCS_IMG = Path(__file__).resolve().parent.parent / "docs" / "img"

#: What the page shows now: the seat's snapshot, the plays, the seq (null before a state).
VIEW_JS = """() => {
  const t = window.bgTable;
  if (!t || !t.state) return null;
  return {seq: t.state.seq, seat: t.seat, snap: t.state.snapshots[t.seat] ?? null, plays: t.state.plays ?? []};
}"""

#: True when the page lets its person act (a button of an action is enabled, or the board
#: takes a play) or the match is over. Argument: the actions the test handles.
READY_JS = """(handled) => {
  const t = window.bgTable;
  if (!t || !t.state) return false;
  const s = t.state.snapshots[t.seat];
  if (!s) return false;
  if (s.over) return true;
  if (s.actions.includes('play')) return document.getElementById('board').classList.contains('bg-interactive');
  return s.actions.some((a) => handled.includes(a) && (() => {
    const b = document.querySelector(`#actions [data-action="${a}"]`);
    return b && !b.hidden && !b.disabled;
  })());
}"""


# -- fixtures -------------------------------------------------------------------------------


class People:
    """Browser contexts (one per person) whose page errors fail the test."""

    def __init__(self, browser: Browser) -> None:
        self.browser = browser
        self.contexts: list[BrowserContext] = []
        self.errors: list[str] = []
        self.allowed: list[str] = []

    def page(self, base_url: str, viewport: ViewportSize | None = None, motion: bool = False) -> Page:
        """A fresh context's page (empty storage); animations off unless ``motion``."""
        context = self.browser.new_context(
            base_url=base_url, viewport=viewport or DESKTOP, reduced_motion="no-preference" if motion else "reduce"
        )
        self.contexts.append(context)
        pg = context.new_page()
        pg.on("pageerror", lambda exc: self.errors.append(str(exc)))

        def console(message: ConsoleMessage) -> None:
            text = message.text
            if message.type == "error" and "favicon" not in text and not any(a in text for a in self.allowed):
                self.errors.append(text)

        pg.on("console", console)
        pg.set_default_timeout(15_000)
        return pg

    def close(self) -> None:
        for context in self.contexts:
            context.close()


@pytest.fixture
def people(browser: Browser) -> Iterator[People]:
    """Make pages with ``people.page(url)``; every page error fails the test."""
    crowd = People(browser)
    yield crowd
    crowd.close()
    assert crowd.errors == [], f"the pages reported errors: {crowd.errors}"


# -- reading the page -----------------------------------------------------------------------


def peek(page: Page) -> dict[str, Any] | None:
    """The page's last state as :func:`view` reads it, or None while it shows no game yet."""
    data: dict[str, Any] | None = page.evaluate(VIEW_JS)
    return None if data is None or data["snap"] is None else data


def view(page: Page) -> dict[str, Any]:
    """The seat shown, its snapshot, the plays and the seq (the page's last state)."""
    data = peek(page)
    assert data is not None, "the page shows no game"
    return data


def wait_ready(page: Page, handled: list[str], timeout: float = 15_000) -> dict[str, Any]:
    """Wait until the page offers one of ``handled`` (or a play, or the end); the view then."""
    try:
        page.wait_for_function(READY_JS, arg=handled, timeout=timeout)
    except Exception as exc:
        data = page.evaluate(VIEW_JS)
        status = page.locator("#status").inner_text()
        raise AssertionError(f"the page offers none of {handled}: status {status!r}, view {data}") from exc
    return view(page)


def wait_seq(page: Page, above: int, timeout: float = 15_000) -> None:
    """Wait until the page has shown a state with a seq above ``above``."""
    try:
        page.wait_for_function("(n) => window.bgTable.state && window.bgTable.state.seq > n", arg=above, timeout=timeout)
    except Exception as exc:
        status, message = page.locator("#status").inner_text(), page.locator("#message").inner_text()
        raise AssertionError(f"no new state after seq {above}: status {status!r}, message {message!r}, "
                             f"view {page.evaluate(VIEW_JS)}") from exc


def wait_board(page: Page, board: Board, timeout: float = 15_000) -> None:
    """Wait until the board's DOM shows ``board``."""
    page.wait_for_function(
        f"(want) => {{ const b = ({READ_BOARD_JS})(); return JSON.stringify([...b.points, ...b.bar, ...b.off]) === want; }}",
        arg=json.dumps(list(board.key()), separators=(",", ":")),
        timeout=timeout,
    )


def keys_of(plays: list[dict[str, Any]]) -> set[tuple[int, ...]]:
    return {tuple(p["key"]) for p in plays}


def click_action(page: Page, action: str) -> None:
    page.click(f'#actions [data-action="{action}"]')


# -- playing ----------------------------------------------------------------------------------


def play_by_clicks(page: Page, rng: random.Random, confirm_with_enter: bool, undo_once: bool = False) -> str:
    """Build a legal play on the board by clicking checkers (and the dice to swap them), check
    the board after every click against the expected hop (with ``undo_once``, the first hop is
    undone and redone with the buttons), then confirm; the play's text."""
    data = view(page)
    snap, plays = data["snap"], data["plays"]
    keys = keys_of(plays)
    board, dice_shown = read_board(page)
    assert board == Board.of(snap["board"]), "the board's DOM differs from the snapshot"
    d1, d2 = snap["dice"]
    assert sorted(d["face"] for d in dice_shown) == sorted([d1, d2] * (2 if d1 == d2 else 1))
    dice = [d1] * 4 if d1 == d2 else [d1, d2]
    swapped = False
    last: tuple[int, int] | None = None  # the last click's point and where it went
    while not complete(board, dice, keys):
        order = sorted(dice, reverse=not swapped)
        hop = rng.choice(legal_hops(board, dice, keys))
        if preferred_hop(board, order, keys, hop.src) != hop:
            page.locator("#board .bg-dice").click()  # swap: the other die first
            swapped = not swapped
            order = sorted(dice, reverse=not swapped)
            assert preferred_hop(board, order, keys, hop.src) == hop
        if last is not None and (last[1] == OFF or hop.src in last):
            # the board takes a quick second click on the same point as a double-click (a
            # bear-off where one is possible): click again after the double-click window
            page.wait_for_timeout(420)
        page.wait_for_function("document.getAnimations().every((a) => a.playState !== 'running')")
        box = page.locator(f'#board [data-top="{hop.src}"].bg-checker').bounding_box()
        assert box is not None
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        last = (hop.src, hop.dst)
        before = board
        board = apply_hop(board, hop.src, hop.dst)
        dice = list(dice)
        dice.remove(hop.die)
        expected = board
        try:
            wait_board(page, expected)
        except Exception:
            seen, _ = read_board(page)
            raise AssertionError(f"after {hop} in {order} expected {expected} saw {seen}; "
                                 f"message {page.locator('#message').inner_text()!r}")
        seen, _ = read_board(page)
        assert seen == expected
        if undo_once:  # R42: take the hop back and make it again, without the server
            undo_once = False
            click_action(page, "undo")
            wait_board(page, before)
            click_action(page, "redo")
            wait_board(page, expected)
    move = next(p["move"] for p in plays if tuple(p["key"]) == board.key())
    seq = data["seq"]
    confirm = page.locator('#actions [data-action="confirm"]')
    expect(confirm).to_be_enabled()
    if confirm_with_enter and move:
        page.keyboard.press("Enter")
    else:
        confirm.click()
    wait_seq(page, seq)
    return str(move)


def type_play(page: Page, rng: random.Random, avoid_hits: bool = True) -> str:
    """Enter a legal play through ``#play-input`` (Enter submits); plays that hit are avoided
    when possible, so the games end sooner."""
    data = view(page)
    plays = data["plays"]
    quiet = [p for p in plays if p["key"][25] == data["snap"]["board"]["bar"][1]] if avoid_hits else plays
    move = str(rng.choice(quiet or plays)["move"])
    field = page.locator("#play-input")
    field.fill(move)
    field.press("Enter")
    page.wait_for_function(
        "(n) => window.bgTable.state.seq > n || document.getElementById('message').textContent.includes('is not a legal')",
        arg=data["seq"],
    )
    if view(page)["seq"] == data["seq"]:
        # board.js refuses some legal plays written in notation (see
        # test_a_typed_play_whose_hops_interleave): build the play by clicks instead
        field.fill("")
        return play_by_clicks(page, rng, confirm_with_enter=False)
    return move


def create_in_lobby(page: Page, name: str, kind: str, length: int = 1, opponent: str = "bot", bot: str = "random") -> str:
    """Create a table with the lobby's form; the new table's id."""
    page.goto("/")
    page.locator('select[name="bot"] option').first.wait_for(state="attached")  # the lobby has started
    page.fill("#guest-name", name)
    page.check(f'input[name="kind"][value="{kind}"]')
    if kind == "match":
        page.fill('input[name="length"]', str(length))
    if kind != "chouette":
        page.check(f'input[name="opponent"][value="{opponent}"]')
        if opponent == "bot":
            page.select_option('select[name="bot"]', bot)
    page.click('[data-testid="create-table"]')
    try:
        page.wait_for_url("**/t/*")
    except Exception as exc:
        raise AssertionError(f"the lobby did not open the table: {page.locator('#create-error').inner_text()!r}") from exc
    page.locator("#board svg").first.wait_for()
    return page.url.rsplit("/", 1)[1]


def invite_link(page: Page) -> str:
    """The invite link the table page shows, once it shows one."""
    expect(page.locator("#invite-link")).to_have_value(re.compile(r"/t/"))
    return page.locator("#invite-link").input_value()


def join_by_link(page: Page, link: str, name: str) -> None:
    """Open an invite link and join under ``name``."""
    page.goto(link)
    try:
        page.locator("#join-name").wait_for(state="visible")
    except Exception as exc:
        raise AssertionError(f"no join form at {link}: {page.locator('body').inner_text()[:400]!r}") from exc
    page.fill("#join-name", name)
    page.click('[data-testid="join"]')
    expect(page.locator("#you-are")).to_have_text(f"You play as {name}")


# -- the tests --------------------------------------------------------------------------------


SOCKETS_JS = """(() => {
  const Native = window.WebSocket;
  window.__sockets = [];
  window.WebSocket = class extends Native {
    constructor(...args) { super(...args); window.__sockets.push(this); }
  };
})();"""


def wait_any(pages: list[Page], handled: list[str], timeout: float = 20.0) -> tuple[Page, dict[str, Any]]:
    """The first of ``pages`` that offers one of ``handled`` (or a play, or the end)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        for pg in pages:
            if pg.evaluate(READY_JS, handled):
                return pg, view(pg)
        pages[0].wait_for_timeout(30)
    raise AssertionError(f"no page offers any of {handled}: {[pg.locator('#status').inner_text() for pg in pages]}")


def keep_screenshot(page: Page, tmp_path: Path, name: str) -> None:
    """A screenshot of the page under ``tmp_path``; also into docs/img with BACKGAMMON_DOCS_IMG set."""
    shot = tmp_path / name
    page.screenshot(path=str(shot))
    if os.environ.get("BACKGAMMON_DOCS_IMG"):
        DOCS_IMG.mkdir(parents=True, exist_ok=True)
        (DOCS_IMG / name).write_bytes(shot.read_bytes())


def act(page: Page, data: dict[str, Any], action: str) -> None:
    """Click the button of ``action`` and wait for the state it makes."""
    click_action(page, action)
    wait_seq(page, data["seq"])


def test_a_whole_match_against_a_bot_by_clicks(people: People, server: Server, browser: Browser, tmp_path: Path) -> None:
    """A 1-point match against the random bot, created in the lobby and played by clicks on
    the board (checkers, dice, the board's Roll) and Enter or the Confirm button, to the end."""
    rng = random.Random(11)
    page = people.page(server.url)
    table_id = create_in_lobby(page, "ann", "match", 1, bot="random")
    handled = ["roll", "take", "accept", "next_game"]
    turns = 0
    log_before = page.locator("#log li").count()
    while True:
        data = wait_ready(page, handled)
        snap = data["snap"]
        if snap["over"]:
            break
        actions = snap["actions"]
        if "play" in actions:
            if turns == 3 and snap["dice"][0] != snap["dice"][1]:
                screenshots(page, browser, server, table_id, tmp_path)
            move = play_by_clicks(page, rng, confirm_with_enter=turns % 2 == 0, undo_once=turns == 1)
            turns += 1
            if move:
                expect(page.locator("#log")).to_contain_text(move)
        elif "take" in actions:
            act(page, data, "take")
        elif "accept" in actions:
            act(page, data, "accept")
        elif "roll" in actions:
            if turns % 2:
                page.locator("#board .bg-roll").click()  # the board's own Roll
                wait_seq(page, data["seq"])
            else:
                act(page, data, "roll")
        else:
            act(page, data, "next_game")
    assert turns >= 5
    snap = view(page)["snap"]
    assert snap["over"] and snap["result"]
    expect(page.locator("#status")).to_have_text(re.compile(r"^The match is over: .* wins "))
    assert page.locator("#log li").count() > log_before + 2 * turns - 2
    expect(page.locator('#actions [data-action="rematch"]')).to_be_visible()
    expect(page.locator('#actions [data-action="roll"]')).to_be_hidden()
    expect(page.locator("#status")).to_have_text(re.compile(r"^The match is over: (ann|random) wins "))


def screenshots(page: Page, browser: Browser, server: Server, table_id: str, tmp_path: Path) -> None:
    """docs/img/table.png (desktop, a checker moved) and docs/img/phone.png (390x844)."""
    data = view(page)
    keys = keys_of(data["plays"])
    board, _ = read_board(page)
    d1, d2 = data["snap"]["dice"]
    hop = legal_hops(board, [d1, d2], keys)[0]
    order = sorted([d1, d2], reverse=True)
    if preferred_hop(board, order, keys, hop.src) == hop:  # one checker moved, the play not sent
        page.locator(f'#board [data-top="{hop.src}"].bg-checker').click()
        wait_board(page, apply_hop(board, hop.src, hop.dst))
        page.mouse.move(5, 5)
        page.wait_for_timeout(350)  # the checker's slide
    page.evaluate("window.scrollTo(0, 0)")
    keep_screenshot(page, tmp_path, "table.png")
    tokens = page.evaluate(f"localStorage.getItem('bg.tokens.{table_id}')")
    phone = browser.new_context(base_url=server.url, viewport=PHONE, device_scale_factor=2, is_mobile=True, has_touch=True)
    try:
        pg = phone.new_page()
        pg.goto("/")
        pg.evaluate("([id, t]) => localStorage.setItem('bg.tokens.' + id, t)", [table_id, tokens])
        pg.goto(f"/t/{table_id}")
        pg.wait_for_function("window.bgTable && window.bgTable.state && window.bgTable.state.plays.length > 0")
        pg.wait_for_timeout(300)
        keep_screenshot(pg, tmp_path, "phone.png")
    finally:
        phone.close()
    if page.locator('#actions [data-action="undo"]').is_enabled():
        click_action(page, "undo")  # back to the position as the server shows it
    wait_board(page, board)


def test_resigning_ends_the_match(people: People, server: Server) -> None:
    """R31: ann resigns a single game through the menu; the bot accepts and the match is over."""
    page = people.page(server.url)
    create_in_lobby(page, "ann", "match", 1, bot="random")
    data = wait_ready(page, ["roll"])
    act(page, data, "roll")
    data = wait_ready(page, ["resign"], timeout=20_000)
    page.click('#actions [data-action="resign"]')
    page.click('#resign-menu [data-resign-level="1"]')
    expect(page.locator("#status")).to_have_text(re.compile("^The match is over"))
    expect(page.locator("#status")).to_contain_text("random wins")


def cube_seen(page: Page) -> tuple[str, str]:
    """The cube on the board (its face, its place: own/other/centre) as this page draws it."""
    cube = page.locator("#board .bg-cube")
    return str(cube.locator("text").text_content()), str(cube.get_attribute("data-owner"))


def test_an_online_match_with_a_double_and_a_take(people: People, server: Server) -> None:
    """ann creates an online 1-point match, bob joins through the invite link; ann (or bob)
    doubles on roll, the other takes (R29): both pages show the cube at 2 and its owner; the
    match is played to the end through the notation input, both pages show the result."""
    rng = random.Random(22)
    ann = people.page(server.url)
    create_in_lobby(ann, "ann", "match", 1, opponent="online")
    expect(ann.locator("#invite")).to_be_visible()
    link = invite_link(ann)
    assert re.fullmatch(rf"{re.escape(server.url)}/t/[\w-]+", link)
    bob = people.page(server.url)
    join_by_link(bob, link, "bob")
    pages = [ann, bob]
    names = {id(ann): "ann", id(bob): "bob"}
    doubled = False
    handled = ["roll", "double", "take", "accept"]
    while True:
        page, data = wait_any(pages, handled)
        snap = data["snap"]
        if snap["over"]:
            break
        actions = snap["actions"]
        if "take" in actions:
            act(page, data, "take")
            taker = names[id(page)]
            other = bob if page is ann else ann
            for pg in pages:
                expect(pg.locator("#scoreboard .cube-line")).to_contain_text(f"cube 2 ({taker})")
            assert cube_seen(page) == ("2", "own")
            other.wait_for_function("document.querySelector('#board .bg-cube').getAttribute('data-owner') === 'other'")
            assert cube_seen(other) == ("2", "other")
        elif "double" in actions and not doubled and snap["phase"] == "roll":
            doubled = True
            act(page, data, "double")
        elif "play" in actions:
            type_play(page, rng)
        elif "roll" in actions:
            act(page, data, "roll")
        else:
            act(page, data, "accept")
    assert doubled
    for pg in pages:
        pg.wait_for_function("window.bgTable.state.snapshots[window.bgTable.seat].over")
        expect(pg.locator("#status")).to_have_text(re.compile(r"^The match is over: (ann|bob) wins the 1-point match"))
    snap = view(ann)["snap"]
    assert sorted(snap["score"])[0] == 0 and sorted(snap["score"])[1] >= 1
    assert any("2" in line for line in ann.locator("#log li").all_inner_texts()[-3:])  # won at the cube's value


def test_a_chouette_with_a_team_double(people: People, server: Server) -> None:
    """Three people at a chouette (R35-R41): the roll-off decides the box and the captain; a
    team member proposes a double, the other agrees (R39), the box takes; the game is played
    to the end, then every page shows the ledger, and after the next game the new rotation."""
    rng = random.Random(33)
    ann = people.page(server.url)
    ann.goto("/")
    ann.locator('select[name="bot"] option').first.wait_for(state="attached")
    ann.fill("#guest-name", "ann")
    ann.check('input[name="kind"][value="chouette"]')
    ann.select_option('select[name="seat2"]', "human")
    ann.select_option('select[name="seat3"]', "human")
    ann.click('[data-testid="create-table"]')
    ann.wait_for_url("**/t/*")
    link = invite_link(ann)
    bob, cy = people.page(server.url), people.page(server.url)
    join_by_link(bob, link, "bob")
    join_by_link(cy, link, "cy")
    pages = [ann, bob, cy]
    proposed = taken = False
    handled = ["roll", "ready", "propose_double", "consent", "take", "next_game", "accept"]
    while True:
        page, data = wait_any(pages, handled)
        if not proposed:  # a team member's chance to propose comes before the captain's roll
            for pg in pages:
                seen = peek(pg)
                if seen is None:
                    continue  # a page still loading its table offers nothing yet; seen next time round
                mine = next(s for s in seen["snap"]["seats"] if s["name"] == seen["seat"])
                if "propose_double" in seen["snap"]["actions"] and mine["role"] != "captain":
                    page, data = pg, seen
                    break
        snap = data["snap"]
        actions = snap["actions"]
        if snap["phase"] == "over" or "next_game" in actions:
            break
        me = next(s for s in snap["seats"] if s["name"] == data["seat"])
        if "propose_double" in actions and not proposed and me["role"] != "captain":
            proposed = True
            act(page, data, "propose_double")
            for pg in pages:
                expect(pg.locator("#chouette-offer")).to_contain_text(f"{data['seat']} proposes a team double to 2")
        elif "consent" in actions:
            act(page, data, "consent")
        elif "take" in actions:
            assert me["role"] == "box" and proposed
            taken = True
            act(page, data, "take")
        elif "play" in actions:
            type_play(page, rng)
        elif "ready" in actions:
            act(page, data, "ready")
        elif "roll" in actions:
            act(page, data, "roll")
        else:
            act(page, data, "accept")
    assert proposed and taken
    snap = view(ann)["snap"]
    ledgers = {s["name"]: s["ledger"] for s in snap["seats"]}
    assert sum(ledgers.values()) == 0 and all(v != 0 for v in ledgers.values())  # R41: stakes of 2 settled
    box = next(s["name"] for s in snap["seats"] if s["role"] == "box")
    for pg in pages:
        rows = pg.locator("#chouette-seats tr")
        expect(rows).to_have_count(3)
        for name, value in ledgers.items():
            row = pg.locator(f'#chouette-seats tr:has(th:text-is("{name}"))')
            expect(row.locator("td").last).to_have_text(f"{value:+d}" if value else "0")
        expect(pg.locator("#chouette-rotation")).to_contain_text(f"Game 1: {box} in the box")
    page, data = wait_any(pages, ["next_game"])
    act(page, data, "next_game")
    for pg in pages:
        expect(pg.locator("#chouette-rotation")).to_contain_text("Game 2: ")
        pg.wait_for_function("window.bgTable.state.snapshots[window.bgTable.seat].game_number === 2")
    after = {s["name"]: s["role"] for s in view(bob)["snap"]["seats"]}
    assert after != {s["name"]: s["role"] for s in snap["seats"]}  # R37/R38: the rotation moved


def test_the_page_reconnects_after_the_server_is_killed(people: People, tmp_path: Path) -> None:
    """SIGKILL the server in the middle of a game against a bot, start it again on the same
    port and database: the page says it is reconnecting, then shows the same seq, position,
    dice and score by itself, and the game goes on."""
    rng = random.Random(44)
    srv = Server(tmp_path)
    srv.start()
    people.allowed.append("WebSocket")  # the browser logs the refused connections
    try:
        page = people.page(srv.url)
        create_in_lobby(page, "ann", "match", 3, bot="random")
        plays = 0
        while plays < 2:
            data = wait_ready(page, ["roll", "take"])
            if "play" in data["snap"]["actions"]:
                type_play(page, rng)
                plays += 1
            else:
                act(page, data, "take" if "take" in data["snap"]["actions"] else "roll")
        data = wait_ready(page, ["roll", "take"])
        if "roll" in data["snap"]["actions"]:
            act(page, data, "roll")
            data = wait_ready(page, ["take"])
        before = view(page)
        board_before, dice_before = read_board(page)
        page.evaluate("window.__before = window.bgTable.state")
        srv.kill()
        expect(page.locator("#banner")).to_be_visible()
        expect(page.locator("#banner")).to_have_text("Reconnecting…")
        srv.start()
        expect(page.locator("#banner")).to_be_hidden(timeout=20_000)
        page.wait_for_function("window.bgTable.state !== window.__before")
        after = view(page)
        assert after["seq"] == before["seq"]
        assert after["snap"] == before["snap"]
        assert after["plays"] == before["plays"]
        assert read_board(page) == (board_before, dice_before)
        assert "play" in after["snap"]["actions"] or "take" in after["snap"]["actions"]
        if "play" in after["snap"]["actions"]:
            type_play(page, rng)
        else:
            act(page, after, "take")
        assert view(page)["seq"] > before["seq"]
    finally:
        srv.stop()


@pytest.mark.parametrize("corner", ["bottom-right", "bottom-left", "top-right", "top-left"])
def test_the_home_board_in_each_corner(people: People, server: Server, tmp_path: Path, corner: str) -> None:
    """R46: the options panel puts the viewer's home board (points 1-6) in the chosen corner."""
    page = people.page(server.url)
    create_in_lobby(page, "ann", "match", 1, bot="random")
    page.click("#options-panel summary")
    page.check(f'input[name="corner"][value="{corner}"]')
    page.wait_for_function("(c) => (JSON.parse(localStorage.getItem('bg.options')) || {corner: 'bottom-right'}).corner === c",
                           arg=corner)
    svg = page.locator("#board svg").bounding_box()
    assert svg is not None
    mid_x, mid_y = svg["x"] + svg["width"] / 2, svg["y"] + svg["height"] / 2
    want_bottom, want_right = corner.startswith("bottom"), corner.endswith("right")
    for point in range(1, 25):
        box = page.locator(f'#board polygon.bg-point[data-point="{point}"]').bounding_box()
        assert box is not None
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        home = point <= 6
        bottom = point <= 12  # the viewer's side of the board: points 1-12
        right = point <= 6 or point >= 19
        assert (y > mid_y) == (bottom == want_bottom), (point, corner)
        assert (x > mid_x) == (right == want_right), (point, corner)
        if home:
            assert (y > mid_y) == want_bottom and (x > mid_x) == want_right
    page.locator("#board").screenshot(path=str(tmp_path / f"{corner}.png"))


def test_refusals_are_shown_in_the_page(people: People, server: Server) -> None:
    """R43: a command out of turn, sent on the page's own connection, is refused by the server
    and the page shows the reason; a command for a seat the page does not hold gets an error."""
    ann = people.page(server.url)
    create_in_lobby(ann, "ann", "match", 1, opponent="online")
    link = invite_link(ann)
    bob = people.page(server.url)
    bob.add_init_script(SOCKETS_JS)
    ann.add_init_script(SOCKETS_JS)
    join_by_link(bob, link, "bob")
    ann.reload()
    ann.locator("#board svg").first.wait_for()
    page, data = wait_any([ann, bob], ["roll"])
    act(page, data, "roll")  # the opening roll: someone is to play
    page, data = wait_any([ann, bob], [])
    mover = data["seat"]
    idle = bob if page is ann else ann
    idle_name = "bob" if mover == "ann" else "ann"
    idle.wait_for_function("window.__sockets.length > 0 && window.bgTable.state !== null")
    command = {"type": "command", "seat": idle_name, "id": 901, "command": {"type": "roll"}}
    idle.evaluate("(m) => window.__sockets.at(-1).send(JSON.stringify(m))", command)
    expect(idle.locator("#message")).to_have_text(f"Not allowed (R43): it is {mover}'s turn, not yours.")
    stolen = {"type": "command", "seat": mover, "id": 902, "command": {"type": "roll"}}
    idle.evaluate("(m) => window.__sockets.at(-1).send(JSON.stringify(m))", stolen)
    expect(idle.locator("#message")).to_contain_text(f"you do not hold the seat '{mover}'")
    assert view(page)["seq"] == data["seq"]  # nothing changed


#: bob's view in a bear-off: 11 (1), 6 (2), 5 (3), 4 (3), 2 (2), 1 (4) against 19, 22, 24;
#: with 6-6 the only legal play is 11/off 6/off(2) (11/5, 6/off twice, then 5/off: R19).
INTERLEAVED = {
    "kind": "match", "viewer": "bob", "side": 1,
    "board": {"points": [4, 2, 0, 3, 3, 2, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, -3, 0, 0, -7, 0, -4],
              "bar": [0, 0], "off": [0, 1], "pips": [58, 43]},
    "dice": [6, 6], "on_roll": "bob", "phase": "play", "cube": 1, "cube_owner": None, "match_length": 1,
    "score": [0, 0], "crawford": False, "post_crawford": False, "game_number": 1, "to_act": ["bob"],
    "actions": ["confirm", "play", "resign", "step"], "legal": ["11/off 6/off(2)"], "tentative": None,
    "offer": None, "position_id": "zx8HAIA3d4MAAA", "match_id": None, "result": None, "over": False,
    "seats": [{"name": "ann", "kind": "human", "side": 0, "role": "player"},
              {"name": "bob", "kind": "human", "side": 1, "role": "player"}],
}
INTERLEAVED_PLAYS = [{"move": "11/off 6/off(2)",
                      "key": [4, 2, 0, 3, 3, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, -3, 0, 0, -7, 0, -4, 0, 0, 3, 1]}]


def test_a_typed_play_whose_hops_interleave(people: People, server: Server) -> None:
    """Seen in an online match: the server's only legal play, typed as the server writes it,
    is refused by the page (\u201c11/off 6/off(2)\u201d is not a legal play with these dice)."""
    people.allowed.append("status of 404")  # the demo page names no icon: the browser asks for /favicon.ico
    page = people.page(server.url)
    page.goto("/static/board-demo.html?animate=0")
    page.wait_for_function("window.demoReady === true")
    page.evaluate("([s, p]) => window.showSample(s, p)", [INTERLEAVED, INTERLEAVED_PLAYS])
    assert page.evaluate("() => window.board.interactive") is True
    assert page.evaluate("(t) => window.board.playText(t)", "11/off 6/off(2)") is True
    assert page.evaluate("() => window.board.complete") is True
