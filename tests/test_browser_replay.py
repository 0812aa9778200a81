"""The replay page /r/{id} in chromium (Playwright): a match a person played against a bot over
the WebSocket, stepped through with the buttons, the keys, the slider, the record and the list
of games; the board the page draws (read from its SVG) is each frame's board.

The server is the real application (``create_app``) under uvicorn, with the replay's routes
added when the application does not mount them itself yet.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from backgammon.server.app import create_app
from tests.browser_support import CHROMIUM, REQUIRED, Board, browser, free_port, read_board
from tests.test_server_replay import play_against_a_bot, seeded, with_replay

__all__ = ["browser"]

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.skipif(not CHROMIUM.exists() and not REQUIRED, reason="Debian chromium is not installed"),
]

SCREENSHOTS = Path(os.environ.get("BACKGAMMON_SCREENSHOTS", "/tmp/replay-screenshots"))

#: The server: the application with the replay's routes (unless it mounts them), on a port.
SERVE = """
import sys, uvicorn
from backgammon.server import replay
from backgammon.server.app import create_app
app = create_app(sys.argv[1])
if not any(getattr(r, "path", None) == "/api/tables/{id}/replay" for r in app.router.routes):
    app.router.routes[0:0] = replay.routes()
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[2]), log_level="warning")
"""


class Site:
    """A finished match in the database and the server over it."""

    def __init__(self, url: str, table_id: str, replay: dict[str, Any]) -> None:
        self.url = url
        self.table_id = table_id
        self.replay = replay

    @property
    def frames(self) -> list[dict[str, Any]]:
        frames: list[dict[str, Any]] = self.replay["frames"]
        return frames


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    folder = tmp_path_factory.mktemp("replay")
    database = f"sqlite:///{folder}/club.sqlite3"
    app = create_app(database, dice_factory=seeded("browser replay"), message_rate=1000, message_burst=1000)
    with TestClient(with_replay(app)) as client:
        table_id = play_against_a_bot(client, 3)
        data = client.get(f"/api/tables/{table_id}/replay").json()
    port = free_port()
    log = (folder / "serve.log").open("wb")
    process = subprocess.Popen([sys.executable, "-c", SERVE, database, str(port)], stdout=log, stderr=subprocess.STDOUT)
    try:
        deadline = time.monotonic() + 30
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the server exited: {(folder / 'serve.log').read_text()}")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                    break
            except OSError:
                if time.monotonic() > deadline:
                    raise RuntimeError("the server did not listen within 30 s") from None
                time.sleep(0.05)
        yield Site(f"http://127.0.0.1:{port}", table_id, data)
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        log.close()


@pytest.fixture
def page(browser: Any, site: Site) -> Iterator[Any]:
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    p = context.new_page()
    errors: list[str] = []
    p.on("pageerror", lambda e: errors.append(str(e)))
    p.goto(f"{site.url}/r/{site.table_id}")
    p.wait_for_selector("#board svg .bg-checker")
    yield p
    context.close()
    assert errors == [], errors


def shown_board(page: Any) -> Board:
    return read_board(page)[0]


def frame_board(frame: dict[str, Any]) -> Board:
    return Board.of(frame["snapshot"]["board"])


def at(page: Any) -> int:
    return int(page.locator("#slider").input_value())


def current_lines(page: Any) -> list[str]:
    texts: list[str] = page.locator("#log li.current").all_inner_texts()
    return texts


def expect_frame(page: Any, site: Site, index: int) -> None:
    """The page shows frame ``index``: its board, its place, its line highlighted."""
    page.wait_for_function(f"() => document.querySelector('#slider').value === '{index}'")
    frame = site.frames[index]
    assert shown_board(page) == frame_board(frame), index
    assert page.locator("#where").inner_text() == f"{index + 1} / {len(site.frames)}"
    lines = [line["text"] for line in frame["lines"]]
    if lines:
        assert current_lines(page) == lines
    dice = frame["snapshot"]["dice"]
    faces = [d["face"] for d in read_board(page)[1]]
    if dice:
        assert faces[:2] == dice or sorted(faces[:2], reverse=True) == dice


def test_stepping_with_buttons_and_keys_shows_each_frame(page: Any, site: Site) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    n = len(site.frames)
    assert n > 20
    expect_frame(page, site, 0)
    assert page.locator("#prev").is_disabled() and page.locator("#first").is_disabled()
    assert page.locator("#line").inner_text() == "Game 1"
    boards = [shown_board(page)]
    for i in range(1, 6):
        page.click("#next")
        expect_frame(page, site, i)
        boards.append(shown_board(page))
    # the opening roll and the first play change the board
    assert any(b != boards[0] for b in boards)
    page.screenshot(path=str(SCREENSHOTS / "replay-step.png"), full_page=True)
    page.click("#prev")
    expect_frame(page, site, 4)
    page.keyboard.press("ArrowRight")
    expect_frame(page, site, 5)
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowLeft")
    expect_frame(page, site, 3)
    page.keyboard.press("End")
    expect_frame(page, site, n - 1)
    assert page.locator("#next").is_disabled() and page.locator("#last").is_disabled()
    page.keyboard.press("Home")
    expect_frame(page, site, 0)
    page.click("#last")
    expect_frame(page, site, n - 1)
    # the last frame is the final position: the match is over
    final = site.frames[-1]["snapshot"]
    assert final["over"] and shown_board(page) == Board.of(final["board"])
    assert "match is over" in page.locator("#status").inner_text()
    page.screenshot(path=str(SCREENSHOTS / "replay-last.png"), full_page=True)
    page.click("#first")
    expect_frame(page, site, 0)


def test_the_record_the_slider_and_the_games_jump(page: Any, site: Site) -> None:
    frames = site.frames
    # a click on a line of the record goes to its event
    plays = [i for i, f in enumerate(frames) if f["kind"] == "play" and f["lines"]]
    target = plays[len(plays) // 2]
    page.locator(f'#log li[data-frame="{target}"] button').first.click()
    expect_frame(page, site, target)
    # a frame without a line of its own keeps the last line before it highlighted
    silent = [i for i, f in enumerate(frames) if not f["lines"] and i > 0]
    if silent:
        page.evaluate(f"() => {{ const s = document.querySelector('#slider'); s.value = '{silent[0]}'; "
                      "s.dispatchEvent(new Event('input')); }")
        page.wait_for_function(f"() => document.querySelector('#slider').value === '{silent[0]}'")
        before = max(i for i in range(silent[0]) if frames[i]["lines"])
        assert current_lines(page) == [frames[before]["lines"][-1]["text"]]
    # the slider
    middle = len(frames) // 2
    page.locator("#slider").focus()
    page.evaluate(f"() => {{ const s = document.querySelector('#slider'); s.value = '{middle}'; "
                  "s.dispatchEvent(new Event('input')); }")
    expect_frame(page, site, middle)
    page.keyboard.press("ArrowRight")  # the focused slider steps by itself
    expect_frame(page, site, middle + 1)
    # the games: one button per game, each goes to its start
    starts = [i for i, f in enumerate(frames) if f["kind"] == "start"]
    buttons = page.locator("#games button")
    assert buttons.count() == len(starts) >= 1
    for number, start in enumerate(starts, 1):
        buttons.nth(number - 1).click()
        expect_frame(page, site, start)
        assert buttons.nth(number - 1).get_attribute("aria-current") == "true"
        assert shown_board(page) == frame_board(frames[start])
        assert page.locator("#line").inner_text() == frames[start]["line"]
    if len(starts) > 1:
        page.locator("body").focus()
        page.keyboard.press("PageUp")
        expect_frame(page, site, starts[-2])
        page.keyboard.press("PageDown")
        expect_frame(page, site, starts[-1])


def test_play_steps_by_itself_and_pauses(page: Any, site: Site) -> None:
    page.select_option("#speed", "400")
    page.click("#play")
    assert page.locator("#play").get_attribute("aria-pressed") == "true"
    page.wait_for_function("() => Number(document.querySelector('#slider').value) >= 3", timeout=10_000)
    page.keyboard.press("Space")  # focus is on the play button: its own click pauses
    assert page.locator("#play").get_attribute("aria-pressed") == "false"
    stopped = at(page)
    page.wait_for_timeout(1000)
    assert at(page) == stopped
    expect_frame(page, site, stopped)


def test_fair_dice_panel_and_links(page: Any, site: Site) -> None:
    proof = site.replay["fair"]
    assert proof["proven"]
    assert "Verified ✓" in page.locator("#fair-verdict").inner_text()
    games = page.locator("#fair-games > li")
    assert games.count() == len(proof["games"])
    for i, game in enumerate(proof["games"]):
        text = games.nth(i).inner_text()
        assert f"Game {game['game']}: verified ✓" in text
        assert game["commitment"] in text and game["server_seed"] in text
    assert page.locator("#verify-link").get_attribute("href") == f"/verify?table={site.table_id}"
    record = page.locator("#record-link")
    assert record.get_attribute("href") == f"/api/tables/{site.table_id}/record"
    assert ".mat" in page.locator("aside").inner_text()
    assert page.locator("header a", has_text="Lobby").get_attribute("href") == "/"
    assert page.locator("#account").count() == 1
    page.locator("#fair").scroll_into_view_if_needed()
    page.screenshot(path=str(SCREENSHOTS / "replay-fair.png"), full_page=True)


def test_an_unknown_table_says_so(browser: Any, site: Site) -> None:
    context = browser.new_context()
    p = context.new_page()
    p.goto(f"{site.url}/r/nosuchtable")
    message = p.locator("#message")
    message.wait_for(state="visible")
    assert "no table" in message.inner_text()
    assert p.locator("#replay-main").is_hidden()
    context.close()


def test_a_phone_sized_screen_has_no_sideways_scroll(browser: Any, site: Site) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    context = browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    p = context.new_page()
    p.goto(f"{site.url}/r/{site.table_id}#10")
    p.wait_for_selector("#board svg .bg-checker")
    p.wait_for_function("() => document.querySelector('#slider').value === '10'")
    assert p.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    box = p.locator("#board svg").bounding_box()
    assert box is not None and box["width"] > 300
    p.locator("#next").tap()
    p.wait_for_function("() => document.querySelector('#slider').value === '11'")
    assert read_board(p)[0] == frame_board(site.frames[11])
    p.screenshot(path=str(SCREENSHOTS / "replay-phone.png"), full_page=False)
    context.close()
