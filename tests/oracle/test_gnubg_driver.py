"""Self-test of the gnubg / gnubg_nn oracle driver (skips when the tools are missing).

Set ``BACKGAMMON_REQUIRE_GNUBG=1`` to make a missing gnubg or gnubg_nn a failure instead.
"""

from __future__ import annotations

import base64
import importlib
import itertools
import logging
import os
import random
from collections.abc import Sequence
from types import ModuleType

import pytest

from .gnubg_driver import find_gnubg, gnubg_legal_plays, gnubg_nn_legal_keys

pytestmark = pytest.mark.gnubg

OPENING = "4HPwATDgc/ABMA"


def _missing(what: str) -> None:
    if os.environ.get("BACKGAMMON_REQUIRE_GNUBG") == "1":
        pytest.fail(f"{what} is required (BACKGAMMON_REQUIRE_GNUBG=1) but not installed")
    pytest.skip(f"{what} not installed")


@pytest.fixture(scope="module")
def gnubg() -> str:
    exe = find_gnubg()
    if exe is None:
        _missing("GNU Backgammon (gnubg: /usr/games/gnubg or on PATH)")
    assert exe is not None
    return exe


@pytest.fixture(scope="module")
def nn() -> ModuleType:
    try:
        return importlib.import_module("gnubg_nn")
    except ImportError:
        _missing("PyPI gnubg-nn (import gnubg_nn)")
        raise


# --- a tiny test-only Position ID encoder (bit layout of docs/ARCHITECTURE.md) -----------------


def encode_pid(player: Sequence[int], opponent: Sequence[int]) -> str:
    """Position ID of ``player`` on roll: opponent's 25 slots then player's, unary, LSB first."""
    bits: list[int] = []
    for side in (opponent, player):
        for n in side:
            bits += [1] * n + [0]
    raw = bytearray(10)
    for i, bit in enumerate(bits):
        if bit:
            raw[i // 8] |= 1 << (i % 8)
    return base64.b64encode(bytes(raw)).decode("ascii")[:14]


def side(points: dict[int, int]) -> list[int]:
    """25 slots from a {own point (1..24, 25 = bar): count} map."""
    s = [0] * 25
    for p, n in points.items():
        s[p - 1] += n
    return s


def random_cases(nn: ModuleType, n: int, seed: int) -> list[tuple[str, int, int]]:
    """(pid, d1, d2) of the side on roll along seeded random games played with gnubg_nn."""
    rng = random.Random(seed)
    start = nn.board_from_position_id(OPENING)
    board = start
    cases: list[tuple[str, int, int]] = []
    while len(cases) < n:
        d1, d2 = rng.randint(1, 6), rng.randint(1, 6)
        opp, me = board
        pid = encode_pid(me, opp)
        assert pid == nn.position_id(board)  # our encoder agrees with gnubg_nn's
        cases.append((pid, d1, d2))
        keys = nn.moves(board, d1, d2)
        if not keys:
            board = [me, opp]  # no play: the other side rolls
            continue
        opp_after, mover_after = nn.board_from_position_key(rng.choice(keys))
        if sum(mover_after) == 0:  # game over: start again
            board = start
        else:
            board = [list(mover_after), list(opp_after)]
    return cases


def apply_gnubg_text(player: Sequence[int], opponent: Sequence[int], text: str) -> tuple[
        tuple[int, ...], tuple[int, ...]]:
    """Apply a gnubg move text (``bar/24*/23 13/11(2)``) to a board (test-only, naive)."""
    me, opp = list(player), list(opponent)
    for token in text.split():
        times = 1
        if token.endswith(")"):
            token, _, count = token[:-1].partition("(")
            times = int(count)
        points = [25 if p.rstrip("*") == "bar" else 0 if p == "off" else int(p.rstrip("*"))
                  for p in token.split("/")]
        for _ in range(times):
            for a, b in itertools.pairwise(points):
                me[a - 1] -= 1
                assert me[a - 1] >= 0, text
                if b > 0:
                    if opp[24 - b] == 1:
                        opp[24 - b] = 0
                        opp[24] += 1
                    assert opp[24 - b] == 0, text
                    me[b - 1] += 1
    return tuple(me), tuple(opp)


# --- gnubg CLI ------------------------------------------------------------------------------


def test_find_gnubg_returns_executable(gnubg: str) -> None:
    assert os.access(gnubg, os.X_OK)


def test_opening_rolls(gnubg: str) -> None:
    r31, r65, r44, r21 = gnubg_legal_plays(
        [(OPENING, 3, 1), (OPENING, 6, 5), (OPENING, 4, 4), (OPENING, 1, 2)])
    assert r31 is not None and len(r31) == 16 and len(set(r31)) == 16
    assert "8/5 6/5" in r31
    assert r31[0] == "8/5 6/5"  # gnubg's best 0-ply play, listed first
    assert r65 is not None and len(r65) == 7 and "24/13" in r65 and "24/18 13/8" in r65
    assert r44 is not None and len(r44) == 52 and "24/20(2) 13/9(2)" in r44
    assert r21 is not None and len(r21) == 15  # order of the dice does not matter


def test_no_legal_play(gnubg: str) -> None:
    # All 15 checkers on the 24-point behind a six-prime on points 18-23.
    blocked = encode_pid(side({24: 15}), side({25 - q: 2 for q in range(18, 24)} | {13: 3}))
    # One checker on the bar against a closed board.
    on_bar = encode_pid(side({25: 1, 6: 14}), side({p: 2 for p in range(1, 7)} | {13: 3}))
    res = gnubg_legal_plays([(blocked, 6, 6), (blocked, 5, 1), (on_bar, 6, 5), (on_bar, 1, 1)])
    assert res == [[], [], [], []]


def test_forced_and_edge_plays(gnubg: str) -> None:
    # One checker on the 2-point, an opposing blot on our 1-point: 4-1 must play 2/1*/off.
    hit_off = encode_pid(side({2: 1}), side({24: 1, 6: 14}))
    # Last checker on the 1-point: a single play.
    last = encode_pid(side({1: 1}), side({1: 15}))
    # Four on the bar, a blot on our 24-point, 1-1: gnubg writes the hit once with a multiplicity.
    bar4 = encode_pid(side({25: 4, 6: 3, 8: 3, 10: 3, 11: 2}), side({1: 1, 25: 4, 13: 10}))
    assert gnubg_legal_plays([(hit_off, 4, 1), (last, 3, 1), (bar4, 1, 1)]) == [
        ["2/1*/off"], ["1/off"], ["bar/24*(4)"]]


def test_refused_cases_give_none_and_do_not_poison_the_batch(
        gnubg: str, caplog: pytest.LogCaptureFixture) -> None:
    too_many = encode_pid(side({6: 16}), side({6: 15}))  # "Illegal position." in gnubg
    overlap = encode_pid(side({6: 15}), side({19: 15}))  # both colours on our 6-point
    cases: list[tuple[str, int, int]] = [
        (OPENING, 3, 1), (too_many, 3, 1), (OPENING, 6, 5), ("garbage", 3, 1),
        (overlap, 2, 2), ("4HPwATDgc/ABMA\nnew game", 3, 1), (OPENING, 4, 0), (OPENING, 4, 4)]
    with caplog.at_level(logging.WARNING):
        res = gnubg_legal_plays(cases, chunk=3)
    assert [None if r is None else len(r) for r in res] == [16, None, 7, None, None, None, None, 52]
    assert "Illegal position." in caplog.text


def test_finished_positions(gnubg: str) -> None:
    # Side on roll has borne off everything: gnubg says no legal moves.
    done = encode_pid(side({}), side({1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}))
    # Opponent has borne off everything: gnubg still lists the plays.
    opp_done = encode_pid(side({25: 1, 6: 14}), side({}))
    res = gnubg_legal_plays([(done, 3, 1), (opp_done, 6, 5)])
    assert res[0] == []
    assert res[1] is not None and sorted(res[1]) == ["bar/14", "bar/19 6/1"]


# --- gnubg_nn -------------------------------------------------------------------------------


def test_gnubg_nn_conventions(nn: ModuleType) -> None:
    boards = gnubg_nn_legal_keys(OPENING, 3, 1)
    assert len(boards) == 16
    start = tuple(side({24: 2, 13: 5, 8: 3, 6: 5}))
    # Player = the side that just moved; the opponent is unchanged and seen from its own side.
    assert all(opp == start for _, opp in boards)
    assert (tuple(side({24: 2, 13: 5, 8: 2, 6: 4, 5: 2})), start) in boards
    # A hit puts the opponent's checker on its bar (index 24).
    pid = encode_pid(side({24: 2, 6: 13}), side({7: 1, 13: 14}))  # opposing blot on our 18
    hits = [b for b in gnubg_nn_legal_keys(pid, 6, 5) if b[1][24] == 1]
    assert hits and all(b[1][6] == 0 for b in hits)
    assert gnubg_nn_legal_keys(encode_pid(side({25: 1, 6: 14}), side({p: 2 for p in range(1, 7)}
                                                                     | {13: 3})), 6, 5) == []
    with pytest.raises(ValueError):
        gnubg_nn_legal_keys(encode_pid(side({6: 16}), side({6: 15})), 3, 1)


# --- gnubg vs gnubg_nn on random positions ---------------------------------------------------


def test_batch_agrees_with_gnubg_nn(gnubg: str, nn: ModuleType) -> None:
    cases = random_cases(nn, 600, seed=20240611)
    res = gnubg_legal_plays(cases, workers=2, chunk=150)
    assert all(r is not None for r in res)
    assert any(r == [] for r in res) and any(r is not None and len(r) > 100 for r in res)
    for (pid, d1, d2), texts in zip(cases, res):
        assert texts is not None
        nn_boards = gnubg_nn_legal_keys(pid, d1, d2)
        assert len(texts) == len(nn_boards), (pid, d1, d2)
        # Every gnubg move text, applied to the board, gives one of gnubg_nn's results.
        opp, me = nn.board_from_position_id(pid)
        applied = {apply_gnubg_text(me, opp, t) for t in texts}
        assert applied == set(nn_boards), (pid, d1, d2)


def test_retry_pass_with_fresh_games(gnubg: str) -> None:
    # The second pass (``new game`` / ``set turn 1`` before every case) parses the same way.
    from .gnubg_driver import _run_batch

    batch = [(0, (OPENING, 3, 1)), (1, (OPENING, 6, 5)), (2, (OPENING, 1, 1))]
    first = _run_batch(gnubg, batch, fresh_game=False)
    again = _run_batch(gnubg, batch, fresh_game=True)
    assert first == again
    assert [len(v) for v in first.values() if isinstance(v, list)] == [16, 7, 42]


def test_empty_input(gnubg: str) -> None:
    assert gnubg_legal_plays([]) == []
