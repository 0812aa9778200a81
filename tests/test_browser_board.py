"""The browser's board (backgammon/server/static/board.js) in Chromium, through board-demo.html.

The demo page is served by an ``http.server`` thread (ES modules need http). Snapshots and
plays are built here from :class:`backgammon.position.Position` exactly as the protocol
builds them (``key``: the board after the play from the mover's side), injected with
``window.showSample`` and read back through the DOM, ``window.lastInfo`` and
``window.lastPlay``.

Run ``python -m tests.test_browser_board`` to regenerate the samples embedded in the demo
page; ``BACKGAMMON_BOARD_IMAGES=1 pytest tests/test_browser_board.py`` also writes
``docs/img/board-<corner>.png``.
"""

from __future__ import annotations

import functools
import http.server
import json
import os
import re
import shutil
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from backgammon.position import Position
from backgammon.table.snapshot import board_view
from tests.conftest import board as make_board
from tests.browser_support import BROWSER_ARGS
from tests.browser_support import CHROMIUM as CHROMIUM_PATH
from tests.strategies import random_game_positions

ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "backgammon" / "server" / "static"
DEMO = STATIC / "board-demo.html"
CHROMIUM = str(CHROMIUM_PATH)
CORNERS = ("bottom-right", "bottom-left", "top-right", "top-left")


# -- snapshots and plays, the way the protocol builds them --------------------------------


def play_key(position: Position, move: Any) -> list[int]:
    """The protocol's ``key`` of ``move``: the board after it, from the mover's side."""
    after = board_view(position.play(move).swap())
    return [*after.points, *after.bar, *after.off]


def plays_of(position: Position, dice: tuple[int, int]) -> list[dict[str, Any]]:
    """The state's ``plays`` for the player on roll of ``position``."""
    return [{"move": str(m), "key": play_key(position, m)} for m in position.legal_moves(dice)]


def snapshot_of(
    position: Position,
    dice: tuple[int, int] | None,
    *,
    on_roll: str | None = "ann",
    cube: int = 1,
    cube_owner: str | None = None,
    score: tuple[int, int] = (0, 0),
    match_length: int = 5,
    crawford: bool = False,
    actions: tuple[str, ...] | None = None,
) -> dict[str, Any]:
    """A ``Snapshot.to_dict()`` for ann (side 0, ``position``'s player) against bob."""
    view = board_view(position)
    if actions is None:
        actions = ("play", "resign") if dice and on_roll == "ann" else ()
    return {
        "kind": "match",
        "viewer": "ann",
        "side": 0,
        "board": view.to_dict(),
        "dice": None if dice is None else [max(dice), min(dice)],
        "on_roll": on_roll,
        "phase": "play" if dice else "roll",
        "cube": cube,
        "cube_owner": cube_owner,
        "match_length": match_length,
        "score": list(score),
        "crawford": crawford,
        "post_crawford": False,
        "game_number": 1,
        "to_act": [on_roll] if on_roll else [],
        "actions": list(actions),
        "legal": [],
        "tentative": None,
        "offer": None,
        "seats": [
            {"name": "ann", "kind": "human", "side": 0, "role": "player"},
            {"name": "bob", "kind": "human", "side": 1, "role": "player"},
        ],
        "position_id": position.position_id(),
        "match_id": None,
        "result": None,
        "over": False,
    }


def bar_position() -> Position:
    """Ann on the bar; bob has a blot on ann's 22-point (her entry with a 3 hits it)."""
    return make_board({25: 1, 24: 1, 13: 5, 8: 3, 6: 5}, {22: 1, 19: 5, 17: 3, 12: 5, 1: 1})


def bearoff_position() -> Position:
    """Ann bearing off, bob still far back."""
    return make_board({6: 4, 5: 4, 4: 3, 3: 2, 2: 2}, {24: 2, 20: 3, 19: 5, 13: 5})


def stacks_position() -> Position:
    """Tall stacks (counts drawn on the top checker) and checkers borne off on both sides."""
    return make_board({6: 8, 5: 3, 4: 2}, {19: 7, 20: 3, 21: 2, 22: 1})


def demo_samples() -> dict[str, dict[str, Any]]:
    """The samples embedded in board-demo.html."""
    initial = Position.initial()
    return {
        "opening": {
            "title": "Opening 3-1 (ann to play)",
            "snapshot": snapshot_of(initial, (3, 1)),
            "plays": plays_of(initial, (3, 1)),
        },
        "double": {
            "title": "6-6 (ann to play a double)",
            "snapshot": snapshot_of(initial, (6, 6)),
            "plays": plays_of(initial, (6, 6)),
        },
        "bar": {
            "title": "On the bar, 3-1: enter and hit",
            "snapshot": snapshot_of(bar_position(), (3, 1), cube=2, cube_owner="bob", score=(1, 2)),
            "plays": plays_of(bar_position(), (3, 1)),
        },
        "bearoff": {
            "title": "Bearing off, 2-1",
            "snapshot": snapshot_of(bearoff_position(), (2, 1), cube=4, cube_owner="ann", score=(3, 4), crawford=True),
            "plays": plays_of(bearoff_position(), (2, 1)),
        },
        "stacks": {
            "title": "Tall stacks, bob to play 5-2",
            "snapshot": snapshot_of(stacks_position(), (5, 2), on_roll="bob", score=(2, 4), match_length=7),
            "plays": [],
        },
        "roll": {
            "title": "Ann to roll or double",
            "snapshot": snapshot_of(initial, None, actions=("double", "roll", "resign")),
            "plays": [],
        },
    }


SAMPLES_RE = re.compile(r'(<script id="samples" type="application/json">\n)(.*?)(\n  </script>)', re.S)


def embedded_samples() -> Any:
    """The samples JSON inside board-demo.html."""
    match = SAMPLES_RE.search(DEMO.read_text(encoding="utf-8"))
    assert match is not None, "board-demo.html has no samples script"
    return json.loads(match.group(2))


def write_samples() -> None:
    """Regenerate the samples embedded in board-demo.html."""
    text = DEMO.read_text(encoding="utf-8")
    data = json.dumps({"samples": demo_samples()}, separators=(",", ":"))
    DEMO.write_text(SAMPLES_RE.sub(lambda m: m.group(1) + data + m.group(3), text, count=1), encoding="utf-8")


# -- the browser ---------------------------------------------------------------------------


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - the base's name
        """No request log on stderr."""


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """The static folder over http on a free port."""
    handler = functools.partial(_Quiet, directory=str(STATIC))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/board-demo.html"
    finally:
        httpd.shutdown()
        httpd.server_close()
        thread.join(5)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium through Playwright; skipped without /usr/bin/chromium unless required."""
    if not os.path.exists(CHROMIUM) or shutil.which(CHROMIUM) is None:
        if os.environ.get("BACKGAMMON_REQUIRE_BROWSER"):
            pytest.fail(f"{CHROMIUM} is missing but BACKGAMMON_REQUIRE_BROWSER is set: install chromium")
        pytest.skip(f"{CHROMIUM} is not installed (set BACKGAMMON_REQUIRE_BROWSER to make this a failure)")
    from playwright.sync_api import sync_playwright

    pw = sync_playwright().start()
    chromium = pw.chromium.launch(
        executable_path=CHROMIUM,
        args=BROWSER_ARGS,
    )
    try:
        yield chromium
    finally:
        chromium.close()
        pw.stop()


@pytest.fixture
def page(browser: Any, server: str) -> Iterator[Any]:
    """The demo page (desktop size, no animation), ready."""
    context = browser.new_context(viewport={"width": 1100, "height": 1000})
    pg = context.new_page()
    errors: list[str] = []
    pg.on("pageerror", lambda e: errors.append(str(e)))
    pg.goto(server + "?animate=0")
    pg.wait_for_function("window.demoReady === true")
    try:
        yield pg
    finally:
        context.close()
    assert not errors, f"JavaScript errors on the page: {errors}"


def show(page: Any, snapshot: dict[str, Any], plays: list[dict[str, Any]]) -> None:
    """Put a snapshot and its plays on the board."""
    page.evaluate("([s, p]) => window.showSample(s, p)", [snapshot, plays])


def info(page: Any) -> dict[str, Any]:
    """The last onChange info."""
    result: dict[str, Any] = page.evaluate("window.lastInfo")
    return result


def centre(page: Any, selector: str) -> tuple[float, float]:
    """The centre of the first element matching ``selector`` on the screen."""
    box = page.locator(selector).first.bounding_box()
    assert box is not None, f"{selector} is not drawn"
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def click_point(page: Any, point: int | str) -> None:
    """Click the viewer's top checker on ``point`` (a number, or 25 for the bar)."""
    x, y = centre(page, f'[data-top="{point}"]')
    page.mouse.click(x, y)


def drag(page: Any, source: str, target: str) -> None:
    """Drag from the centre of ``source`` to the centre of ``target`` (pointer events)."""
    x0, y0 = centre(page, source)
    x1, y1 = centre(page, target)
    page.mouse.move(x0, y0)
    page.mouse.down()
    for k in range(1, 6):
        page.mouse.move(x0 + (x1 - x0) * k / 5, y0 + (y1 - y0) * k / 5)
    page.mouse.up()


# -- tests -----------------------------------------------------------------------------------


def test_demo_samples_are_current() -> None:
    """The demo page embeds exactly what demo_samples() builds (regenerate if not)."""
    assert embedded_samples() == {"samples": demo_samples()}, "run: python -m tests.test_browser_board"


@pytest.mark.parametrize("corner", CORNERS)
def test_home_board_in_each_corner(page: Any, corner: str, tmp_path: Path) -> None:
    """R46: the home board (points 1-6) is drawn in the chosen corner; point 24 opposite it."""
    initial = Position.initial()
    show(page, snapshot_of(initial, (3, 1)), plays_of(initial, (3, 1)))
    page.evaluate("c => window.setCorner(c)", corner)
    svg = page.locator("svg.bg-svg").bounding_box()
    assert svg is not None
    mid_x, mid_y = svg["x"] + svg["width"] / 2, svg["y"] + svg["height"] / 2
    x6, y6 = centre(page, '[data-top="6"]')
    x24, y24 = centre(page, '[data-top="24"]')
    right = corner.endswith("right")
    bottom = corner.startswith("bottom")
    assert (x6 > mid_x) == right and (y6 > mid_y) == bottom
    assert (x24 > mid_x) == right and (y24 > mid_y) != bottom  # the back checkers across the board
    assert page.locator('[data-point="24"][data-side="own"]').count() == 2
    assert page.locator('[data-point="19"][data-side="other"]').count() == 5
    label = page.locator("svg.bg-svg").get_attribute("aria-label") or ""
    assert "dice 3 and 1" in label and "167" in label
    page.screenshot(path=str(tmp_path / f"board-{corner}.png"))
    if os.environ.get("BACKGAMMON_BOARD_IMAGES"):
        page.set_viewport_size({"width": 900, "height": 800})
        page.locator("#board-box").screenshot(path=str(ROOT / "docs" / "img" / f"board-{corner}.png"))


def test_phone_size(browser: Any, server: str, tmp_path: Path) -> None:
    """The board fits a 360 px wide phone without scrolling sideways."""
    context = browser.new_context(viewport={"width": 360, "height": 740}, device_scale_factor=2, has_touch=True)
    try:
        pg = context.new_page()
        pg.goto(server + "?animate=0")
        pg.wait_for_function("window.demoReady === true")
        box = pg.locator("svg.bg-svg").bounding_box()
        assert box is not None and box["width"] <= 360 and box["height"] > 250
        assert pg.evaluate("document.documentElement.scrollWidth") <= 360
        pg.locator("#board-box").screenshot(path=str(tmp_path / "board-phone.png"))
        # a tap moves a checker (touch pointer events)
        x, y = centre(pg, '[data-top="8"]')
        pg.touchscreen.tap(x, y)
        pg.wait_for_function("window.lastInfo && window.lastInfo.text === '8/5'")
        # a touch drag (real touch events through the DevTools protocol): 6 to 5
        x0, y0 = centre(pg, '[data-top="6"]')
        x1, y1 = centre(pg, 'polygon[data-point="5"]')
        cdp = context.new_cdp_session(pg)
        cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x0, "y": y0}]})
        for k in range(1, 8):
            point = {"x": x0 + (x1 - x0) * k / 7, "y": y0 + (y1 - y0) * k / 7}
            cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
        cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})
        pg.wait_for_function("window.lastInfo && window.lastInfo.text === '8/5 6/5'")
        assert pg.evaluate("window.lastInfo.complete") is True
        assert pg.evaluate("window.scrollY") == 0
    finally:
        context.close()


def test_click_8_then_6_makes_the_point(page: Any) -> None:
    """3-1 at the start: 8 (the 3) then 6 (the 1) is 8/5 6/5, complete (R8, R11)."""
    initial = Position.initial()
    plays = plays_of(initial, (3, 1))
    assert len(plays) == 16
    show(page, snapshot_of(initial, (3, 1)), plays)
    click_point(page, 8)
    assert info(page)["text"] == "8/5" and not info(page)["complete"]
    assert info(page)["dice"] == [1]
    click_point(page, 6)
    got = info(page)
    assert got["text"] == "8/5 6/5" and got["complete"] and got["canUndo"] and not got["canRedo"]
    assert page.locator('[data-point="5"][data-side="own"]').count() == 2
    # undo and redo locally (R42)
    page.evaluate("window.board.undo()")
    assert info(page)["text"] == "8/5" and info(page)["canRedo"]
    page.locator("svg.bg-svg").focus()
    page.keyboard.press("Backspace")
    assert info(page)["text"] == "" and not info(page)["canUndo"]
    page.evaluate("window.board.redo(); window.board.redo()")
    assert info(page)["text"] == "8/5 6/5" and info(page)["complete"]
    page.keyboard.press("Enter")
    assert page.evaluate("window.lastPlay") == "8/5 6/5"


def test_swap_dice_and_playing_the_low_die(page: Any) -> None:
    """A click on the dice swaps which die a click plays first."""
    initial = Position.initial()
    show(page, snapshot_of(initial, (3, 1)), plays_of(initial, (3, 1)))
    page.locator(".bg-dice").click()
    click_point(page, 24)
    assert info(page)["text"] == "24/23" and info(page)["dice"] == [3]
    click_point(page, 13)
    assert info(page)["text"] == "24/23 13/10" and info(page)["complete"]
    page.evaluate("window.board.confirm()")
    assert page.evaluate("window.lastPlay") == "24/23 13/10"


def test_drag_one_die_and_two_dice(page: Any) -> None:
    """Drops on a point one die away, or two dice away through a legal point, are taken."""
    initial = Position.initial()
    show(page, snapshot_of(initial, (3, 1)), plays_of(initial, (3, 1)))
    drag(page, '[data-top="13"]', 'polygon[data-point="9"]')
    assert info(page)["text"] == "13/9" and info(page)["complete"]
    page.evaluate("window.board.undo(); window.board.undo()")
    assert info(page)["text"] == ""
    drag(page, '[data-top="13"]', 'polygon[data-point="10"]')
    assert info(page)["text"] == "13/10"


def test_illegal_drop_is_refused(page: Any) -> None:
    """6/1 with 3-1 is no play: the checker stays and a message says why (R8)."""
    initial = Position.initial()
    show(page, snapshot_of(initial, (3, 1)), plays_of(initial, (3, 1)))
    drag(page, '[data-top="6"]', 'polygon[data-point="1"]')
    got = info(page)
    assert got["text"] == "" and "cannot go to point 1" in got["message"]
    assert page.locator('[data-point="6"][data-side="own"]').count() == 5
    assert page.locator('[data-point="1"][data-side="own"]').count() == 0


def test_destinations_highlighted_while_picked_up(page: Any) -> None:
    """Pressing on a checker lights its legal destinations."""
    initial = Position.initial()
    show(page, snapshot_of(initial, (3, 1)), plays_of(initial, (3, 1)))
    x, y = centre(page, '[data-top="8"]')
    page.mouse.move(x, y)
    page.mouse.down()
    lit = sorted(int(p) for p in page.locator("polygon.bg-dest").evaluate_all("es => es.map(e => e.dataset.point)"))
    page.mouse.move(x + 200, y + 200)  # a drag, dropped off the board: nothing happens
    page.mouse.up()
    assert lit == [4, 5, 7]
    assert info(page)["text"] == ""


def test_bar_entry_and_hit(page: Any) -> None:
    """R13: other checkers wait until the bar is empty; entering on a blot hits it (R10)."""
    pos = bar_position()
    show(page, snapshot_of(pos, (3, 1), cube=2, cube_owner="bob"), plays_of(pos, (3, 1)))
    click_point(page, 13)
    assert info(page)["text"] == "" and "bar first" in info(page)["message"]
    click_point(page, 25)
    got = info(page)
    assert got["text"] == "bar/22*"
    assert page.locator('[data-point="bar"][data-side="other"]').count() == 1
    assert page.locator('[data-point="22"][data-side="own"]').count() == 1
    assert page.locator(".bg-cube").get_attribute("data-owner") == "other"
    click_point(page, 6)
    assert info(page)["text"] == "bar/22* 6/5" and info(page)["complete"]
    page.evaluate("window.board.confirm()")
    assert page.evaluate("window.lastPlay") in {p["move"] for p in plays_of(pos, (3, 1))}


def test_bear_off_by_double_click(page: Any) -> None:
    """R17-R19: a double-click bears a checker off with the dice that allow it."""
    pos = bearoff_position()
    show(page, snapshot_of(pos, (2, 1), cube=4, cube_owner="ann", crawford=True), plays_of(pos, (2, 1)))
    x, y = centre(page, '[data-top="2"]')
    page.mouse.dblclick(x, y)
    got = info(page)
    assert got["text"] == "2/off" and got["dice"] == [1]
    assert page.locator('.bg-slab[data-side="own"]').count() == 1
    page.evaluate("window.board.undo()")
    x, y = centre(page, '[data-top="3"]')
    page.mouse.dblclick(x, y)  # the 3 is borne off with both dice: 3/2/off or 3/1/off
    page.wait_for_function("window.lastInfo && window.lastInfo.complete")
    assert info(page)["text"] == "3/off"
    assert page.locator(".bg-cube").get_attribute("data-owner") == "own"
    assert "Crawford" in (page.locator(".bg-match").text_content() or "")


def test_single_click_in_bear_off_moves_by_the_higher_die(page: Any) -> None:
    """A single click waits out the double-click, then moves by the higher die (3/1)."""
    pos = bearoff_position()
    show(page, snapshot_of(pos, (2, 1)), plays_of(pos, (2, 1)))
    click_point(page, 3)
    page.wait_for_function("window.lastInfo && window.lastInfo.text === '3/1'")


def test_stacks_show_a_count(page: Any) -> None:
    """More than five checkers on a point: five are drawn, the top one carries the count."""
    pos = stacks_position()
    show(page, snapshot_of(pos, (5, 2), on_roll="bob"), [])
    six = page.locator('[data-point="6"][data-side="own"]')
    assert six.count() == 5
    assert page.locator('[data-top="6"] .bg-count').text_content() == "8"
    nineteen = page.locator('[data-point="19"][data-side="other"][data-count]')
    assert nineteen.locator(".bg-count").text_content() == "7"
    assert page.locator('.bg-slab[data-side="own"]').count() == 2
    assert page.locator('.bg-slab[data-side="other"]').count() == 2
    # not the viewer's turn: clicks do nothing
    click_point(page, 6)
    assert info(page)["text"] == "" and not info(page)["canUndo"]


def test_play_text(page: Any) -> None:
    """playText takes any order or compression of a legal play and refuses others."""
    initial = Position.initial()
    show(page, snapshot_of(initial, (6, 6)), plays_of(initial, (6, 6)))
    assert page.evaluate("window.board.playText('13/7 24/18(2) 13/7')") is True
    assert info(page)["text"] == "24/18(2) 13/7(2)" and info(page)["complete"]
    assert page.evaluate("window.board.playText('24/12')") is False
    assert "not a legal play" in info(page)["message"]
    assert page.evaluate("window.board.playText('13/1(2)')") is False  # through 7 onto bob's 2 on the 1
    assert page.evaluate("window.board.playText('13/7')") is False  # not the whole roll (R11)
    assert page.evaluate("window.board.playText('24-18, 24-18, 13-7, 13-7')") is True
    assert info(page)["text"] == "24/18(2) 13/7(2)"
    show(page, snapshot_of(initial, (3, 1)), plays_of(initial, (3, 1)))
    assert page.evaluate("window.board.playText('6/5 8/5')") is True
    assert info(page)["text"] == "8/5 6/5"
    assert page.evaluate("window.board.playText('hello')") is False


def test_legal_hops_agree_with_the_engine(page: Any) -> None:
    """Every legal play is reachable hop by hop in JS, and no hop leads outside them."""
    positions = [Position.initial(), bar_position(), bearoff_position(), stacks_position()]
    for pos in positions:
        for dice in [(3, 1), (6, 6), (5, 2), (2, 1), (4, 4), (6, 5)]:
            plays = plays_of(pos, dice)
            if not plays:
                continue
            v = board_view(pos)
            start = {"points": list(v.points), "bar": list(v.bar), "off": list(v.off)}
            (reached,) = page.evaluate(
                WALK_JS, [[start, [dice[0]] * 4 if dice[0] == dice[1] else list(dice), plays]]
            )
            assert reached == sorted(",".join(map(str, p["key"])) for p in plays), (pos.position_id(), dice)


WALK_JS = """(cases) => {
    const { legalHops, boardKey, applyHop } = window.boardLib;
    const apply = (b, h) => applyHop(b, h.from, h.to).board;
    return cases.map(([b, dice, plays]) => {
      const finals = new Set();
      const seen = new Set();
      const walk = (b, left) => {
        const id = boardKey(b).join(",") + "|" + left.join("");
        if (seen.has(id)) return;
        seen.add(id);
        const hops = legalHops(b, left, plays);
        if (hops.length === 0) { finals.add(boardKey(b).join(",")); return; }
        for (const h of hops) {
          const i = left.indexOf(h.die);
          walk(apply(b, h), [...left.slice(0, i), ...left.slice(i + 1)]);
        }
      };
      walk(b, dice);
      return [...finals].sort();
    });
}"""


def test_legal_hops_over_random_games(page: Any) -> None:
    """R8-R20 in JS: from positions of random games, hop by hop reaches exactly the legal plays."""
    cases = []
    expected = []
    for pos, dice in random_game_positions(seed=11, games=3):
        plays = plays_of(pos, dice)
        if not plays:
            continue
        v = board_view(pos)
        start = {"points": list(v.points), "bar": list(v.bar), "off": list(v.off)}
        cases.append([start, [dice[0]] * 4 if dice[0] == dice[1] else sorted(dice, reverse=True), plays])
        expected.append(sorted(",".join(map(str, p["key"])) for p in plays))
    assert len(cases) > 100
    got = page.evaluate(WALK_JS, cases)
    for case, want, have in zip(cases, expected, got):
        assert have == want, case[0]


def test_show_nothing_then_again(page: Any) -> None:
    """show(null) forgets everything (table.js does so after a refused play); showing the
    state again starts a fresh play."""
    initial = Position.initial()
    show(page, snapshot_of(initial, (3, 1)), plays_of(initial, (3, 1)))
    click_point(page, 8)
    page.evaluate("window.board.show(null)")
    assert page.locator(".bg-checker").count() == 0
    show(page, snapshot_of(initial, (3, 1)), plays_of(initial, (3, 1)))
    assert info(page)["text"] == "" and not info(page)["canUndo"]
    # the same state shown twice keeps the tentative play
    click_point(page, 8)
    show(page, snapshot_of(initial, (3, 1)), plays_of(initial, (3, 1)))
    assert info(page)["text"] == "8/5"


def test_roll_and_double_callbacks(page: Any) -> None:
    """Before the roll the board offers Roll, and the cube doubles when allowed."""
    show(page, snapshot_of(Position.initial(), None, actions=("double", "roll")), [])
    page.locator(".bg-roll").click()
    page.locator(".bg-cube").click()
    assert page.evaluate("[window.rolled, window.doubled]") == [1, 1]


def test_keyboard_moves_the_selected_point(page: Any) -> None:
    """Arrow keys select a point, Enter moves its checker by the preferred die."""
    initial = Position.initial()
    show(page, snapshot_of(initial, (3, 1)), plays_of(initial, (3, 1)))
    page.locator("svg.bg-svg").focus()
    for _ in range(16):  # from 24 down to 8
        page.keyboard.press("ArrowLeft")
    assert page.locator(".bg-focus").count() == 1
    page.keyboard.press("Enter")
    assert info(page)["text"] == "8/5"


def test_animations(page: Any) -> None:
    """With animationMs, the viewer's hops and the other side's moves are animated."""
    initial = Position.initial()
    show(page, snapshot_of(initial, (3, 1)), plays_of(initial, (3, 1)))
    page.evaluate("window.board.setOptions({animationMs: 400})")
    click_point(page, 8)
    assert page.evaluate("document.querySelector('[data-top=\"5\"]').getAnimations().length") == 1
    # bob (on roll next, seen from ann's side) plays 13/7 from his 13-point, ann's 12
    before = snapshot_of(initial, (6, 1), on_roll="bob", actions=())
    moved = json.loads(json.dumps(before))
    moved["board"]["points"][11] += 1  # one fewer of bob's on ann's 12
    moved["board"]["points"][17] -= 1  # one more on ann's 18
    moved["dice"] = None
    show(page, before, [])
    show(page, moved, [])
    assert page.evaluate("document.querySelector('[data-other-top=\"18\"]').getAnimations().length") == 1
    pairs = page.evaluate("([a, b]) => window.boardLib.otherMoves(a, b)", [before["board"], moved["board"]])
    assert pairs == [{"from": 12, "to": 18}]


if __name__ == "__main__":
    write_samples()
    print(f"wrote the samples into {DEMO}")
