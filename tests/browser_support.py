"""Helpers of the end-to-end browser tests: a real ``backgammon serve``, chromium, the board.

* :class:`Server` runs ``backgammon serve`` on a free port with a SQLite file in a folder
  of the test; it can be killed with SIGKILL and started again on the same port and database.
* the fixtures :func:`server` (one :class:`Server` per test module) and :func:`browser`
  (chromium, launched as every browser test launches it): a module imports them by name.
* :func:`launch` starts chromium with the launch conventions of the other browser tests.
* :func:`read_board` reads the board a page draws from the SVG's DOM (the viewer's numbering,
  the viewer's checkers positive), and :func:`legal_hops` / :func:`preferred_hop` say which
  single hops lead to a legal play, as the board decides them, so a test can choose clicks.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import Browser, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
REQUIRED = bool(os.environ.get("BACKGAMMON_REQUIRE_BROWSER"))
BROWSER_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--no-first-run",
    "--disable-sync",
]
BAR = 25
OFF = 0


def free_port() -> int:
    """A TCP port nobody listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


class Server:
    """A ``backgammon serve`` subprocess (bot delay 0) on ``port`` with the database in ``folder``."""

    def __init__(self, folder: Path, port: int | None = None) -> None:
        self.folder = folder
        self.port = port or free_port()
        self.database = f"sqlite:///{folder}/club.sqlite3"
        self.process: subprocess.Popen[bytes] | None = None
        self.log = folder / "serve.log"

    @property
    def url(self) -> str:
        """The base URL, ``http://127.0.0.1:PORT``."""
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 30.0) -> None:
        """Start the server and wait until it listens."""
        program = Path(sys.executable).with_name("backgammon")
        with self.log.open("ab") as out:
            self.process = subprocess.Popen(
                [str(program), "serve", "--port", str(self.port), "--database", self.database, "--bot-delay", "0"],
                stdout=out,
                stderr=subprocess.STDOUT,
            )
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"backgammon serve exited with {self.process.returncode}:\n{self.log.read_text()}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"backgammon serve did not listen on port {self.port} within {timeout} s")

    def kill(self) -> None:
        """SIGKILL the server (no clean shutdown) and reap it."""
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGKILL)
            self.process.wait(timeout=10)
        self.process = None

    def stop(self) -> None:
        """Stop the server politely (SIGTERM, then SIGKILL after 10 s)."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        self.process = None


# -- the board as the page draws it --------------------------------------------------------

#: JavaScript that reads the board of ``#board`` from the DOM: own checkers positive.
READ_BOARD_JS = """() => {
  const svg = document.querySelector('#board svg');
  const points = new Array(24).fill(0), bar = [0, 0], off = [0, 0];
  for (const g of svg.querySelectorAll('.bg-checker[data-top]')) {
    const p = Number(g.getAttribute('data-top')), n = Number(g.getAttribute('data-count'));
    if (p === 25) bar[0] = n; else points[p - 1] = n;
  }
  for (const g of svg.querySelectorAll('.bg-checker[data-other-top]')) {
    const p = Number(g.getAttribute('data-other-top')), n = Number(g.getAttribute('data-count'));
    if (p === 25) bar[1] = n; else points[p - 1] = -n;
  }
  off[0] = svg.querySelectorAll('.bg-slab[data-side="own"]').length;
  off[1] = svg.querySelectorAll('.bg-slab[data-side="other"]').length;
  const dice = [...svg.querySelectorAll('.bg-dice .bg-die')].map(
    (d) => ({face: Number(d.getAttribute('data-face')), used: d.classList.contains('bg-used')}));
  return {points, bar, off, dice};
}"""


@dataclass(frozen=True)
class Board:
    """A board in the viewer's numbering (like the protocol's ``key``): own checkers positive."""

    points: tuple[int, ...]
    bar: tuple[int, int]
    off: tuple[int, int]

    @classmethod
    def of(cls, data: dict[str, Any]) -> Board:
        """From a snapshot's ``board`` or :data:`READ_BOARD_JS`'s answer."""
        return cls(tuple(data["points"]), (data["bar"][0], data["bar"][1]), (data["off"][0], data["off"][1]))

    def key(self) -> tuple[int, ...]:
        """The protocol's key: points, own bar, other bar, own off, other off."""
        return (*self.points, self.bar[0], self.bar[1], self.off[0], self.off[1])


@dataclass(frozen=True)
class Hop:
    """One checker moved by one die."""

    src: int
    dst: int
    die: int


def read_board(page: Any) -> tuple[Board, list[dict[str, Any]]]:
    """The board ``page`` draws and its dice (``{"face", "used"}``)."""
    data: dict[str, Any] = page.evaluate(READ_BOARD_JS)
    return Board.of(data), data["dice"]


def _all_home(b: Board) -> bool:
    return b.bar[0] == 0 and all(n <= 0 for n in b.points[6:])


def hop_target(b: Board, src: int, die: int) -> int | None:
    """Where the viewer's checker on ``src`` lands with ``die`` (R8-R19), or None."""
    if src == BAR:
        if b.bar[0] <= 0:
            return None
        to = BAR - die
        return None if b.points[to - 1] <= -2 else to
    if b.bar[0] > 0 or not 1 <= src <= 24 or b.points[src - 1] <= 0:
        return None
    to = src - die
    if to > 0:
        return None if b.points[to - 1] <= -2 else to
    if not _all_home(b):
        return None
    if to == 0:
        return OFF
    if any(b.points[p - 1] > 0 for p in range(src + 1, 7)):
        return None
    return OFF


def apply_hop(b: Board, src: int, dst: int) -> Board:
    """The board after one hop (a blot on ``dst`` goes to the bar)."""
    points = list(b.points)
    bar = list(b.bar)
    off = list(b.off)
    if src == BAR:
        bar[0] -= 1
    else:
        points[src - 1] -= 1
    if dst == OFF:
        off[0] += 1
    elif points[dst - 1] == -1:
        points[dst - 1] = 1
        bar[1] += 1
    else:
        points[dst - 1] += 1
    return Board(tuple(points), (bar[0], bar[1]), (off[0], off[1]))


def _without(dice: list[int], die: int) -> list[int]:
    out = list(dice)
    out.remove(die)
    return out


def _sources(b: Board) -> list[int]:
    if b.bar[0] > 0:
        return [BAR]
    return [p for p in range(24, 0, -1) if b.points[p - 1] > 0]


def can_reach(b: Board, dice: list[int], keys: set[tuple[int, ...]]) -> bool:
    """True when a legal play's board (a key) can be reached from ``b`` with some of ``dice``."""
    if b.key() in keys:
        return True
    for d in set(dice):
        for src in _sources(b):
            to = hop_target(b, src, d)
            if to is not None and can_reach(apply_hop(b, src, to), _without(dice, d), keys):
                return True
    return False


def legal_hops(b: Board, dice: list[int], keys: set[tuple[int, ...]]) -> list[Hop]:
    """Every single hop that keeps a legal play reachable (the board's own rule)."""
    out = []
    for d in sorted(set(dice), reverse=True):
        for src in _sources(b):
            to = hop_target(b, src, d)
            if to is not None and can_reach(apply_hop(b, src, to), _without(dice, d), keys):
                out.append(Hop(src, to, d))
    return out


def complete(b: Board, dice: list[int], keys: set[tuple[int, ...]]) -> bool:
    """True when ``b`` is a legal play's board and no die left can still be used."""
    return b.key() in keys and (not dice or not legal_hops(b, dice, keys))


def preferred_hop(b: Board, order: list[int], keys: set[tuple[int, ...]], src: int) -> Hop | None:
    """The hop a click on ``src`` makes: the first die in ``order`` that may move it."""
    hops = [h for h in legal_hops(b, order, keys) if h.src == src]
    for d in order:
        for h in hops:
            if h.die == d:
                return h
    return None


# -- fixtures shared by the browser test modules (import them by name) -------------------------


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A ``backgammon serve`` shared by the tests of this module."""
    srv = Server(tmp_path_factory.mktemp("serve"))
    srv.start()
    try:
        yield srv
    finally:
        srv.stop()


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    """Chromium, launched like the other browser tests."""
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=BROWSER_ARGS)
        yield b
        b.close()
