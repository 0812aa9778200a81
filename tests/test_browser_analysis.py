"""The analysis beside the replay (/r/{id}) in chromium (Playwright): the Analyse button and its
progress, the per-player summary, the decision of the frame shown, the worst decisions that
jump to their frames, the graph of player 0's match-winning chances (click to jump), the
match-file links, and a phone-sized screen.

Two matches a person played against the random bot over the WebSocket: a 1-point match that
the first test analyses through the page's button, and a 3-point match analysed beforehand
over HTTP (0 ply: fast) for the others. The server is ``create_app`` under uvicorn.
Screenshots go to ``$BACKGAMMON_SCREENSHOTS`` (default /tmp/analysis-screenshots).
"""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from decimal import ROUND_HALF_UP, Decimal
from pathlib import Path
from typing import Any

import pytest
from starlette.testclient import TestClient

from backgammon.server.app import create_app
from tests.browser_support import CHROMIUM, REQUIRED, Board, Server, browser, read_board
from tests.test_server_replay import play_against_a_bot, seeded

__all__ = ["browser"]

pytestmark = [
    pytest.mark.filterwarnings("ignore::DeprecationWarning"),
    pytest.mark.skipif(not CHROMIUM.exists() and not REQUIRED, reason="Debian chromium is not installed"),
]

SCREENSHOTS = Path(os.environ.get("BACKGAMMON_SCREENSHOTS", "/tmp/analysis-screenshots"))

def get_json(url: str) -> tuple[int, Any]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


class Site:
    """The server, a fresh 1-point match (``fresh``) and an analysed 3-point match (``table_id``,
    its ``frames`` and ``analysis``)."""

    def __init__(self, url: str, fresh: str, table_id: str) -> None:
        self.url = url
        self.fresh = fresh
        self.table_id = table_id
        self.frames: list[dict[str, Any]] = get_json(f"{url}/api/tables/{table_id}/replay")[1]["frames"]
        deadline = time.monotonic() + 120
        while True:
            status, body = get_json(f"{url}/api/tables/{table_id}/analysis?ply=0")
            if status == 200:
                break
            assert status == 202 and time.monotonic() < deadline, body
            time.sleep(0.2)
        self.analysis: dict[str, Any] = body

    def decision_frames(self) -> list[int]:
        return sorted({d["event"] for d in self.analysis["decisions"]})


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Site]:
    srv = Server(tmp_path_factory.mktemp("analysis"))
    app = create_app(srv.database, dice_factory=seeded("browser analysis"), message_rate=1000, message_burst=1000)
    with TestClient(app) as client:
        fresh = play_against_a_bot(client, 1)
        table_id = play_against_a_bot(client, 3, name="alpha")
    srv.start()
    try:
        yield Site(srv.url, fresh, table_id)
    finally:
        srv.stop()


def open_page(browser: Any, url: str, **context: Any) -> tuple[Any, Any, list[str]]:
    ctx = browser.new_context(**(context or {"viewport": {"width": 1280, "height": 900}}))
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.goto(url)
    page.wait_for_selector("#board svg .bg-checker")
    return ctx, page, errors


@pytest.fixture
def page(browser: Any, site: Site) -> Iterator[Any]:
    ctx, p, errors = open_page(browser, f"{site.url}/r/{site.table_id}")
    p.wait_for_selector("#worst .worst-step")
    yield p
    ctx.close()
    assert errors == [], errors


def at(page: Any) -> int:
    return int(page.locator("#slider").input_value())


def expect_at(page: Any, site: Site, index: int) -> None:
    page.wait_for_function(f"() => document.querySelector('#slider').value === '{index}'")
    assert read_board(page)[0] == Board.of(site.frames[index]["snapshot"]["board"])


def test_the_analyse_button_shows_progress_then_the_analysis(browser: Any, site: Site) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    ctx, page, errors = open_page(browser, f"{site.url}/r/{site.fresh}")
    button = page.locator("#analyse")
    button.wait_for(state="visible")
    assert "Not analysed yet" in page.locator("#analysis-state").inner_text()
    assert page.locator("#graph-card").is_hidden() and page.locator("#worst-card").is_hidden()
    page.screenshot(path=str(SCREENSHOTS / "analysis-absent.png"))
    page.select_option("#analysis-ply", "0")
    button.click()
    # the progress line says what happens (the page polls) until the analysis is there
    page.wait_for_function("() => /Analys|Waiting|Asking/.test(document.querySelector('#analysis-state').textContent)")
    page.wait_for_selector("#worst-card:not([hidden])", timeout=120_000)
    assert page.locator("#analysis-progress").is_hidden() and button.is_hidden()
    status, analysis = get_json(f"{site.url}/api/tables/{site.fresh}/analysis?ply=0")
    assert status == 200
    assert f"Analysed at 0 ply: {len(analysis['decisions'])} decisions" in page.locator("#analysis-state").inner_text()
    page.screenshot(path=str(SCREENSHOTS / "analysis-done.png"), full_page=True)
    ctx.close()
    assert errors == [], errors


def to_fixed(x: float, digits: int) -> str:
    """``x.toFixed(digits)`` as the page's JavaScript writes it: the exact binary value rounded,
    a tie going up (Python's format sends a tie to the even digit: 171.25 -> "171.2", "171.3"
    in the page).

    >>> to_fixed(171.25, 1), to_fixed(0.125, 2), to_fixed(-2.5, 0)
    ('171.3', '0.13', '-3')
    """
    step = Decimal(1).scaleb(-digits)
    return str(Decimal(x).quantize(step, rounding=ROUND_HALF_UP))


def test_the_summary_and_the_decision_of_each_frame(page: Any, site: Site) -> None:
    analysis = site.analysis
    heads = page.locator("#analysis-summary thead th").all_inner_texts()
    assert [h.strip() for h in heads[1:]] == analysis["names"]
    rows = {r.split("\t")[0].strip(): r for r in page.locator("#analysis-summary tbody tr").all_inner_texts()}
    assert {"Rating", "PR", "Error rate", "Errors", "Luck"} <= set(rows)
    for player in analysis["players"]:
        assert player["rating"] in rows["Rating"]
        assert to_fixed(player["pr"], 2) in rows["PR"]
        assert f"{to_fixed(player['rate'], 1)} mEMG" in rows["Error rate"]
    # a frame without a decision says so; "Next decision" goes to the first one
    page.keyboard.press("Home")
    expect_at(page, site, 0)
    assert "No decision on this step" in page.locator("#decision").inner_text()
    frames = site.decision_frames()
    page.click("#next-decision")
    expect_at(page, site, frames[0])
    page.click("#next-decision")
    expect_at(page, site, frames[1])
    page.click("#prev-decision")
    expect_at(page, site, frames[0])
    # a play with an error: its words, its error and the best play, the candidates
    wrong = next(d for d in analysis["decisions"] if d["kind"] == "play" and d["error"] > 0.001 and not d["forced"])
    page.evaluate(f"() => {{ const s = document.querySelector('#slider'); s.value = '{wrong['event']}'; "
                  "s.dispatchEvent(new Event('input')); }")
    expect_at(page, site, wrong["event"])
    text = page.locator("#decision").inner_text()
    assert f"played {wrong['action']}" in text and f"Error {wrong['error']:.3f}" in text and wrong["best"] in text
    moves = page.locator("#decision .candidates li code").all_inner_texts()
    assert moves == [c["move"] for c in wrong["candidates"]]
    assert page.locator("#decision .candidates li.played code").inner_text() == wrong["action"]
    # the record marks the labelled decisions
    labelled = [d for d in analysis["decisions"] if d["label"]]
    assert labelled
    for d in labelled[:5]:
        assert page.locator(f'#log li[data-frame="{d["event"]}"][data-label]').count() == 1


def test_the_worst_decisions_jump_to_their_frames(page: Any, site: Site) -> None:
    worst = sorted((d for d in site.analysis["decisions"] if d["error"] > 0),
                   key=lambda d: (-d["error"], d["index"]))[:10]
    items = page.locator("#worst .worst-step")
    assert items.count() == len(worst) > 0
    for i in (0, len(worst) - 1, len(worst) // 2):
        d = worst[i]
        assert f"−{d['error']:.3f}" in items.nth(i).inner_text()
        items.nth(i).click()
        expect_at(page, site, d["event"])
        assert items.nth(i).get_attribute("aria-current") == "step"
        assert page.locator(f'#decision .decision[data-decision="{d["index"]}"]').count() == 1
    # keyboard: focus an item, Enter
    items.nth(1).focus()
    page.keyboard.press("Enter")
    expect_at(page, site, worst[1]["event"])


def test_the_graph_of_match_winning_chances(page: Any, site: Site) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    graph = page.locator("#graph svg")
    assert graph.get_attribute("role") == "img" and "match-winning chances" in (graph.get_attribute("aria-label") or "")
    assert page.locator("#graph-title").inner_text() == f"{site.analysis['names'][0]}'s match-winning chances"
    points = (page.locator("#graph .graph-line").get_attribute("points") or "").split()
    assert len(points) == len(site.decision_frames()) + 1
    games = len({f["game"] for f in site.frames})
    assert page.locator("#graph .graph-game").count() == games - 1
    assert page.locator("#graph .graph-dot").count() == sum(1 for d in site.analysis["decisions"] if d["label"])
    # the marker follows the frame shown
    page.keyboard.press("End")
    expect_at(page, site, len(site.frames) - 1)
    end_x = float(page.locator("#graph .graph-now").get_attribute("x1") or "nan")
    page.keyboard.press("Home")
    expect_at(page, site, 0)
    start_x = float(page.locator("#graph .graph-now").get_attribute("x1") or "nan")
    assert start_x < end_x
    # a click goes to the decision nearest to it
    graph.scroll_into_view_if_needed()
    box = graph.bounding_box()
    assert box is not None
    page.mouse.click(box["x"] + box["width"] * 0.6, box["y"] + box["height"] / 2)
    page.wait_for_function("() => document.querySelector('#slider').value !== '0'")
    assert at(page) in site.decision_frames()
    assert float(page.locator("#graph .graph-now").get_attribute("x1") or "nan") > start_x
    page.locator("#graph-card").screenshot(path=str(SCREENSHOTS / "analysis-graph.png"))
    page.locator("#analysis").screenshot(path=str(SCREENSHOTS / "analysis-panel.png"))
    page.screenshot(path=str(SCREENSHOTS / "analysis-replay.png"), full_page=True)


def test_the_match_file_links(page: Any, site: Site) -> None:
    for fmt in ("mat", "sgf"):
        link = page.locator(f"#{fmt}-link")
        assert link.get_attribute("href") == f"/api/tables/{site.table_id}/match.{fmt}"
        assert link.get_attribute("download") == f"table-{site.table_id}.{fmt}"
    with page.expect_download() as info:
        page.click("#mat-link")
    text = Path(info.value.path()).read_text()
    assert "point match" in text


def test_a_phone_sized_screen_shows_the_analysis_without_sideways_scroll(browser: Any, site: Site) -> None:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    ctx, page, errors = open_page(browser, f"{site.url}/r/{site.table_id}#12",
                                  viewport={"width": 390, "height": 844}, is_mobile=True, has_touch=True)
    page.wait_for_selector("#worst .worst-step")
    assert page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    box = page.locator("#graph svg").bounding_box()
    assert box is not None and 250 < box["width"] <= 390
    page.locator("#worst .worst-step").first.tap()
    worst = max(site.analysis["decisions"], key=lambda d: (d["error"], -d["index"]))
    expect_at(page, site, worst["event"])
    page.screenshot(path=str(SCREENSHOTS / "analysis-phone.png"), full_page=True)
    page.locator("#analysis").screenshot(path=str(SCREENSHOTS / "analysis-phone-panel.png"))
    ctx.close()
    assert errors == [], errors
