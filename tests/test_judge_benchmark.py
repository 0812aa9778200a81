"""benchmarks/judge.py: the reference set's orientation and contents, and the losses it gives."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from backgammon import LegalMoves, Position
from backgammon.bots import Bot
from backgammon.bots.registry import register, unregister

from .benchmark_modules import load_benchmark

pytest.importorskip("gnubg_nn", reason="gnubg-nn (the bench extra) is not installed")


@pytest.fixture(scope="module")
def judge() -> ModuleType:
    return load_benchmark("judge")


@pytest.fixture(scope="module")
def tiny(judge: ModuleType, tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """Six decisions judged at 0 ply (cheap), saved and read back."""
    path = tmp_path_factory.mktemp("judge") / "tiny.json.gz"
    judge.save(judge.build(6, seed=3, ply=0, sample=0.5), path)
    data: dict[str, Any] = judge.read_set(path)
    return data


def test_tiny_set_is_built_as_asked(judge: ModuleType, tiny: dict[str, Any]) -> None:
    built = tiny["built"]
    assert (built["seed"], built["ply"], built["sample"]) == (3, 0, 0.5)
    assert built["gnubg_nn"] == judge.gnubg_version() and built["games"] >= 1
    rows = tiny["decisions"]
    assert len(rows) == 6
    for row in rows:
        equities = [eq for _, eq in row["plays"]]
        assert len(equities) >= 2 and equities == sorted(equities, reverse=True)
        assert all(-3.0 <= eq <= 3.0 for eq in equities)


def test_a_larger_set_starts_with_the_smaller_one(judge: ModuleType, tiny: dict[str, Any]) -> None:
    more = judge.build(8, seed=3, ply=0, sample=0.5, reuse=tiny)
    assert more["decisions"][:6] == tiny["decisions"]


def test_losses_are_never_negative(judge: ModuleType, tiny: dict[str, Any]) -> None:
    decisions = judge.decisions_of(tiny)
    scores = judge.judge(decisions, ["expert", "pubeval", "random", "gnubg1"])
    for score in scores:
        assert score.n == 6
        assert all(loss >= 0.0 for loss in score.losses)
    assert max(judge.Score("x", [0.0, 0.1]).losses) > judge.BLUNDER


def test_gnubg_at_the_judges_own_ply_loses_nothing(judge: ModuleType, tiny: dict[str, Any]) -> None:
    """The set is judged at 0 ply: gnubg 0-ply's choice (live and stored) is the table's top,
    which it can only be if the probabilities were turned to the mover."""
    decisions = judge.decisions_of(tiny)
    for decision in decisions:
        assert decision.loss(judge.gnubg_choice(decision.legal, 0)) < 1e-4
    (score,) = judge.judge(decisions, ["gnubg0"])
    assert max(score.losses) < 1e-4


class TableBest(Bot):
    """Picks the play the reference table rates best (given the tables up front)."""

    name = "table-best"
    tables: dict[tuple[str, tuple[int, int]], dict[str, float]] = {}

    def choose_index(self, legal: LegalMoves) -> int:
        table = self.tables[(legal.origin.position_id(), legal.dice)]
        return max(range(len(legal)), key=lambda i: table[legal.position(i).position_id()])


@pytest.fixture
def table_best(tiny: dict[str, Any]) -> Iterator[None]:
    TableBest.tables = {
        (row["position"], tuple(row["roll"])): dict(map(tuple, row["plays"])) for row in tiny["decisions"]
    }
    register("table-best", replace=True)(TableBest)
    yield
    unregister("table-best")


@pytest.mark.usefixtures("table_best")
def test_the_tables_best_play_loses_nothing(judge: ModuleType, tiny: dict[str, Any]) -> None:
    best, rnd = judge.judge(judge.decisions_of(tiny), ["table-best", "random"])
    assert best.losses == [0.0] * 6 and best.mean() == 0.0 and best.share(0.0) == 0.0
    assert rnd.mean() >= best.mean()
    lines = list(judge.report([best, rnd], reference="table-best"))
    assert len(lines) == 3 and lines[1].startswith("table-best")


def test_the_opening_31_makes_the_five_point(judge: ModuleType) -> None:
    row = judge.evaluate_decision((Position.initial().position_id(), (3, 1), 2))
    start = Position.initial()
    assert row["plays"][0][0] == start.play(start.parse_move("8/5 6/5", (3, 1))).position_id()
    assert row["gnubg2"] == row["plays"][0][0]
    assert len(row["plays"]) == 16


def test_bearing_off_the_last_checker_scores_the_result(judge: ModuleType) -> None:
    # the mover (on roll here) has one checker left on their 1 point
    for loser, points in (
        ([0] * 18 + [14, 0, 0, 0, 0, 0, 0], 1.0),  # the loser bore one off: a single game
        ([0] * 17 + [15, 0, 0, 0, 0, 0, 0, 0], 2.0),  # none off, none in the winner's home: gammon
        ([0] * 18 + [14, 0, 0, 0, 0, 0, 1], 3.0),  # one on the bar: backgammon
        ([0] * 17 + [14, 1, 0, 0, 0, 0, 0, 0], 3.0),  # one on the loser's 19 point, the winner's 6: backgammon
    ):
        pos = Position([1] + [0] * 24, loser)
        legal = pos.legal_moves((2, 1))
        after = next(a for a in legal.positions() if a.borne_off()[1] == 15)
        assert judge.finished_result(after) == points
        assert judge.play_equity(after, 2) == points
    assert judge.finished_result(Position.initial()) is None


def test_the_committed_set_matches_our_legal_plays(judge: ModuleType) -> None:
    data = judge.read_set()
    built = data["built"]
    assert built["ply"] == 2 and built["games"] >= 1 and built["gnubg_nn"]
    rows = data["decisions"]
    assert len(rows) >= 300
    decisions = judge.decisions_of(data)  # raises when a row's plays are not ours
    start = Position.initial()
    choice_losses = []
    for row, decision in zip(rows, decisions):
        pos = Position.from_position_id(row["position"])
        legal = pos.legal_moves((row["roll"][0], row["roll"][1]))
        assert len(legal) >= 2 and len(row["plays"]) == len(legal)
        assert {pid for pid, _ in row["plays"]} == {a.position_id() for a in legal.positions()}
        choice_losses.append(decision.loss(legal.find_position(Position.from_position_id(row["gnubg2"]))))
        if pos == start and tuple(row["roll"]) == (3, 1):
            assert row["plays"][0][0] == start.play(start.parse_move("8/5 6/5", (3, 1))).position_id()
    # gnubg 2-ply's own choice (with its move filters) tops the table nearly always, and is
    # never far from its top: a play seen from the wrong side would lose far more. Its move
    # filters may drop the table's best play before the 2-ply stage (2 of the 5,000: 0.069
    # and 0.079), so a few small losses are gnubg's, not the set's.
    top = sum(1 for row in rows if row["gnubg2"] == row["plays"][0][0])
    assert top >= 0.9 * len(rows)
    assert max(choice_losses) < 0.1 and sum(loss >= 0.02 for loss in choice_losses) <= len(rows) // 500


def test_reading_an_unknown_format_fails(judge: ModuleType, tmp_path: Path) -> None:
    path = tmp_path / "old.json.gz"
    judge.save({"format": 0, "built": {}, "decisions": []}, path)
    with pytest.raises(ValueError, match="format 0"):
        judge.read_set(path)


def test_a_bot_with_named_weights_is_judged_under_its_run(judge: ModuleType) -> None:
    """``NAME@FILE``: the bot with those weights (the shipped file here: the same choices as
    the plain bot), shown as ``NAME@<run>`` for a run's checkpoint."""
    from backgammon.engine.evaluator import DEFAULT_WEIGHTS

    assert judge.label("expert@training/runs/sl13/best.npz") == "expert@sl13"
    assert judge.label("expert@/tmp/ft1.npz") == "expert@ft1"
    assert judge.label("expert") == "expert"
    decisions = judge.decisions_of(judge.read_set())[:40]
    plain, named = judge.judge(decisions, ["expert", f"expert@{DEFAULT_WEIGHTS}"])
    assert named.name == "expert@expert" and plain.losses == named.losses
    lines = list(judge.report([plain, named], reference="expert"))
    assert lines[2].startswith("expert@expert") and "+0.00 ± 0.00" in lines[2]
