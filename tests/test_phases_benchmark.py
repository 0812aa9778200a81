"""The phase benchmark (benchmarks/phases.py): hybrids of a bot and gnubg-nn, one phase
swapped at a time, on the dice of benchmarks/strength.py."""

from __future__ import annotations

from collections.abc import Iterator
from types import ModuleType
from typing import Any

import pytest

from backgammon import LegalMoves, Position
from backgammon.bots import Bot, CubeResponse, load
from backgammon.dice import SeededDice
from tests.benchmark_modules import load_benchmark
from tests.test_analysis_match import side

pytest.importorskip("gnubg_nn", reason="gnubg-nn (the bench extra) is not installed")


@pytest.fixture(scope="module")
def phases() -> Iterator[ModuleType]:
    from backgammon.bots import available, unregister

    before = set(available())
    yield load_benchmark("phases")
    for name in set(available()) - before:
        unregister(name)


def test_each_phase_by_its_definition(phases: ModuleType) -> None:
    phase = phases.phase
    assert phase(Position.initial()) == "opening"
    # no contact: a race, however many checkers are left
    assert phase(Position(side({6: 5, 5: 5, 4: 5}), side({6: 5, 5: 5, 4: 5}))) == "race"
    # contact, 3 + 3 checkers far back but few pips in all, a checker on the bar
    on_bar = Position(side({25: 1, 6: 5, 5: 5, 4: 4}), side({24: 2, 6: 5, 5: 5, 4: 3}))
    assert phase(on_bar) == "bar"
    # the opponent has borne off five and still holds its 24-point anchor
    bear_in = Position(side({6: 5, 5: 5, 4: 3, 3: 2}), side({24: 2, 6: 5, 5: 3}))
    assert sum(bear_in.pip_count()) <= 280 and phase(bear_in) == "bear-in"
    # a back game: the player on roll is far behind
    back = Position(side({24: 2, 23: 2, 13: 5, 8: 3, 6: 3}), side({6: 5, 5: 4, 4: 3, 3: 3}))
    mine, theirs = back.pip_count()
    assert mine - theirs > 60 and mine + theirs <= 280 and phase(back) == "lopsided"
    middle = Position(side({24: 2, 8: 3, 6: 5, 5: 3, 4: 2}), side({24: 2, 8: 3, 6: 5, 5: 3, 4: 2}))
    assert sum(middle.pip_count()) <= 280 and phase(middle) == "middle"


def test_every_decision_of_a_game_has_one_phase(phases: ModuleType) -> None:
    strength = load_benchmark("strength")
    seen: set[str] = set()
    for k in range(4):
        players = (phases.Hybrid(load("expert", seed=k), None, None),
                   phases.Hybrid(load("expert", seed=k + 10), None, None))
        strength.play_game(players, SeededDice(f"phases:{k}"))
        for p in players:
            assert set(p.decisions) <= set(phases.PHASES) and sum(p.decisions.values()) > 0
            seen |= set(p.decisions)
    assert {"opening", "race", "middle"} <= seen


class Last(Bot):
    """Always the last legal play (a stand-in for gnubg-nn)."""

    def choose_index(self, legal: LegalMoves) -> int:
        return len(legal) - 1


class Resigner(Last):
    """Doubles, passes, resigns a gammon and accepts nothing: to see the hybrid ask it."""

    def should_double(self, position: Position, state: Any) -> bool:
        return True

    def respond_to_double(self, position: Position, state: Any) -> CubeResponse:
        return CubeResponse.PASS

    def accept_resignation(self, position: Position, state: Any, offer: Any) -> bool:
        return False

    def offer_resignation(self, position: Position, state: Any) -> int:
        return 2


def test_the_hybrid_leaves_the_cube_and_resignations_to_the_bot(phases: ModuleType) -> None:
    hybrid = phases.Hybrid(Resigner(), Last(), "opening")
    pos, state = Position.initial(), None
    assert hybrid.should_double(pos, state) is True
    assert hybrid.respond_to_double(pos, state) is CubeResponse.PASS
    assert hybrid.accept_resignation(pos, state, 1) is False
    assert hybrid.offer_resignation(pos, state) == 2


def test_the_hybrid_swaps_only_its_phase_and_counts_decisions(phases: ModuleType) -> None:
    own = load("expert", seed=1)
    hybrid = phases.Hybrid(own, Last(), "opening")
    legal = Position.initial().legal_moves((3, 1))
    assert hybrid.choose_index(legal) == len(legal) - 1 != own.choose_index(legal)
    race = Position(side({6: 3, 5: 2, 4: 2, 3: 1}), side({6: 4, 5: 1, 1: 2}))
    legal = race.legal_moves((6, 5))
    assert hybrid.choose_index(legal) == own.choose_index(legal)
    assert hybrid.decisions == {"opening": 1, "race": 1}


def test_the_bot_alone_plays_strength_pys_games(phases: ModuleType) -> None:
    strength = load_benchmark("strength")
    for k in range(3):
        mine = phases.play_pair(("expert", None, 7, k))
        theirs = strength.play_pair(("expert", "gnubg", 7, k, True))
        assert mine.points == (theirs.first, theirs.second)
        assert mine.adjusted == (theirs.first_adjusted, theirs.second_adjusted)  # the same luck
        assert sum(mine.decisions.values()) > 0


def test_the_report_pairs_hybrids_with_the_bot_by_dice(phases: ModuleType) -> None:
    R = phases.PairResult
    results = [R(None, 1, 0, (1, -1), {"race": 2, "middle": 2}, (0.25, -0.25)),
               R(None, 1, 1, (2, 0), {"opening": 4}, (0.5, 0.0)),
               R("race", 1, 0, (1, 1), {}, (0.5, 0.0)), R("race", 1, 1, (2, 2), {}, (0.75, 0.25))]
    lines = phases.report(results, "expert")
    assert "race 25.0%" in lines[0] and "opening 50.0%" in lines[0] and "middle 25.0%" in lines[0]
    bot_line = next(line for line in lines if line.startswith("expert "))
    race_line = next(line for line in lines if "gnubg in race" in line)
    assert "+0.5000" in bot_line  # (0 + 1) / 2
    assert "+1.0000 ± 0.0000" in race_line  # one more point in each pair
    assert "+0.1250 ± 0.1250" in bot_line  # adjusted: (0 + 0.25) / 2
    assert race_line.rstrip().endswith("+0.2500 ± 0.0000")  # a quarter more, adjusted
    assert not any("gnubg in bar" in line for line in lines)  # not played: no line
