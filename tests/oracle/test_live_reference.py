"""The full comparison with a live GNU Backgammon (R3, R8–R20, R12): runs in CI.

Every case of ``tests/data/movegen_reference.jsonl.gz`` (36,000+ positions and rolls) is
sent to gnubg again; gnubg's answers must equal the stored table, and our legal plays must
equal gnubg's, as resulting positions and as text. Skips when gnubg is not installed, fails
instead under ``BACKGAMMON_REQUIRE_GNUBG=1`` (set by ``.ci/run``).
"""

from __future__ import annotations

import os

import pytest

from backgammon import Move, Position
from tests.test_movegen_reference import reference

from .gnubg_driver import find_gnubg, gnubg_legal_plays

pytestmark = pytest.mark.gnubg


def test_live_gnubg_agrees_with_table_and_engine() -> None:
    exe = find_gnubg()
    if exe is None:
        if os.environ.get("BACKGAMMON_REQUIRE_GNUBG") == "1":
            pytest.fail("gnubg is required (BACKGAMMON_REQUIRE_GNUBG=1) but not installed")
        pytest.skip("GNU Backgammon is not installed")
    rows = reference()
    answers = gnubg_legal_plays([(pid, d[0], d[1]) for pid, d, _ in rows], workers=8, chunk=500, gnubg=exe)
    stale, wrong = [], []
    for (pid, dice, stored), live in zip(rows, answers):
        assert live is not None, f"gnubg refused {pid} {dice}"
        if sorted(live) != sorted(stored):
            stale.append((pid, dice))
        pos = Position.from_position_id(pid)
        legal = pos.legal_moves(dice)
        if sorted(str(m) for m in legal) != sorted(live) or set(legal.positions()) != {
            pos.play(Move.parse(t)) for t in live
        }:
            wrong.append((pid, dice))
    assert len(rows) >= 20_000
    assert not stale, f"the stored table differs from gnubg in {len(stale)} cases, e.g. {stale[:5]}"
    assert not wrong, f"our plays differ from gnubg in {len(wrong)} cases, e.g. {wrong[:5]}"
