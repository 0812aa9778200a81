"""Rollouts (docs/ANALYSIS-DESIGN.md part 3): reproducibility, exact answers, variance
reduction, quasi-random dice, truncation, stop and resume, Ray, the command."""

from __future__ import annotations

import json
import os
import signal
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from backgammon import Position
from backgammon.analysis.rollout import (
    RolloutError,
    RolloutInterrupted,
    RolloutResult,
    RolloutSettings,
    RolloutState,
    rollout,
    rollout_plays,
)
from backgammon.commands import rollout as command
from backgammon.engine import default_evaluator, key_of
from backgammon.engine._rollout_kernels import stratified_roll
from backgammon.matchid import MatchState

from .conftest import board

#: a race: the side on roll 8 pips ahead, contact broken (short games: fast)
RACE = board({6: 3, 5: 3, 4: 3, 3: 2, 8: 2, 10: 2}, {19: 3, 20: 3, 21: 3, 22: 2, 17: 2, 14: 2})
#: a bear-off, every checker home: the tables know the answer
BEAROFF = board({1: 2, 2: 2, 3: 1, 5: 1}, {24: 2, 22: 2, 20: 2})
#: a contact position (the opening after 3-1 by the other side)
CONTACT = Position.initial().play(Position.initial().parse_move("8/5 6/5", (3, 1))).swap()


def numbers(r: RolloutResult) -> dict[str, Any]:
    """A result's figures without the settings that only say how it was computed."""
    d = r.to_dict()
    d["settings"] = {k: v for k, v in d["settings"].items() if k not in ("workers", "ray_address", "chunk")}
    return d


def one(settings: RolloutSettings, position: Position = RACE, **kw: Any) -> RolloutResult:
    return rollout(position, settings=settings, **kw)


def test_same_seed_same_bits_whatever_the_workers_and_chunks() -> None:
    for position, vr in ((BEAROFF, True), (RACE, False)):
        s = RolloutSettings(games=72, workers=1, chunk=36, seed=7, variance_reduction=vr)
        a = one(s, position)
        b = one(replace(s, workers=2, chunk=20), position)
        assert numbers(a) == numbers(b)
        c = one(replace(s, seed=8), position)
        assert c.equity != a.equity


def test_a_certain_win_is_exact() -> None:
    # R21: bearing off the last checker wins; the opponent has borne off checkers: no gammon
    last = board({1: 1}, {24: 1})
    r = one(RolloutSettings(games=36, workers=1), last)
    assert r.probabilities.as_tuple() == (1.0, 0.0, 0.0, 0.0, 0.0)
    assert r.equity == 1.0 and r.equity_se == 0.0


def test_bearoff_agrees_with_the_tables() -> None:
    exact = default_evaluator().evaluate(BEAROFF)
    r = one(RolloutSettings(games=720, workers=1, variance_reduction=False), BEAROFF)
    assert r.standard_errors[0] > 0.005
    assert abs(r.probabilities.win - exact.win) < 4 * r.standard_errors[0]
    # with the luck adjustment each bear-off roll's luck is measured by the exact tables
    vr = one(RolloutSettings(games=72, workers=1), BEAROFF)
    assert abs(vr.probabilities.win - exact.win) < 4 * vr.standard_errors[0] + 0.005
    assert vr.standard_errors[0] < r.standard_errors[0] / 3


def test_sanity_against_the_network() -> None:
    for position, games in ((RACE, 72), (CONTACT, 36)):
        ev = default_evaluator().evaluate(position)
        r = one(RolloutSettings(games=games, workers=1), position)
        assert abs(r.equity - ev.equity) < 4 * r.equity_se + 0.06, (position, r, ev)


def test_variance_reduction_lowers_the_standard_error() -> None:
    plain = one(RolloutSettings(games=72, workers=1, variance_reduction=False))
    vr = one(RolloutSettings(games=72, workers=1))
    assert vr.equity_se < plain.equity_se / 3
    assert abs(vr.equity - plain.equity) < 4 * plain.equity_se


def test_quasi_random_first_two_rolls_are_stratified() -> None:
    firsts = [stratified_roll(i, 0) for i in range(36)]
    assert sorted(firsts) == [(a, b) for a in range(1, 7) for b in range(1, 7)]
    seconds = [stratified_roll(i, 1) for i in range(36 * 5, 36 * 6)]
    assert len(set(seconds)) == 36
    pairs = {(stratified_roll(i, 0), stratified_roll(i, 1)) for i in range(1296)}
    assert len(pairs) == 1296


def test_truncated_after_one_ply_is_the_one_ply_evaluation() -> None:
    # 36 stratified trials see each roll once: the mean is the 1-ply value exactly
    one_ply = default_evaluator().outputs_at(key_of(CONTACT), 1)[0]
    plain = one(RolloutSettings(games=36, workers=1, truncate=1, variance_reduction=False), CONTACT)
    assert np.allclose(plain.probabilities.as_tuple(), one_ply, atol=1e-12)
    # with the luck adjustment every trial is worth the 1-ply value: no error left
    vr = one(RolloutSettings(games=5, workers=1, truncate=1, quasi_random=False), CONTACT)
    assert np.allclose(vr.probabilities.as_tuple(), one_ply, atol=1e-12)
    assert vr.equity_se < 1e-9


def test_truncated_after_two_plies_is_the_two_ply_evaluation() -> None:
    two_ply = default_evaluator().outputs_at(key_of(CONTACT), 2)[0]
    r = one(RolloutSettings(games=1296, workers=1, truncate=2, variance_reduction=False,
                            chunk=1296), CONTACT)
    assert np.allclose(r.probabilities.as_tuple(), two_ply, atol=1e-12)


def test_stop_and_resume_gives_the_uninterrupted_result(tmp_path: Path) -> None:
    s = RolloutSettings(games=108, workers=1, chunk=36, seed=3, variance_reduction=False)
    whole = one(s)
    seen: list[int] = []

    def stop_after_first(done: int, total: int, estimate: RolloutResult) -> None:
        seen.append(done)
        assert total == 108 and estimate.games == done
        raise KeyboardInterrupt

    with pytest.raises(RolloutInterrupted) as info:
        one(s, progress=stop_after_first)
    state = info.value.state
    assert state.trials == 36 and seen == [36]
    state.save(tmp_path / "s.json")
    back = RolloutState.load(tmp_path / "s.json")
    resumed = one(s, resume=back)
    assert numbers(resumed) == numbers(whole)
    # a resume may also go further than the first run asked
    more = one(replace(s, games=144), resume=back)
    assert numbers(more) == numbers(one(replace(s, games=144)))
    with pytest.raises(RolloutError, match="settings"):
        one(replace(s, seed=4), resume=back)
    with pytest.raises(RolloutError, match="not of"):
        one(s, BEAROFF, resume=back)


def test_result_json_round_trip_and_cubeful() -> None:
    r = one(RolloutSettings(games=36, workers=1, cubeful=True))
    assert r.cubeful_equity is not None and r.cubeful_se is not None and r.unit == "points"
    assert RolloutResult.from_dict(json.loads(json.dumps(r.to_dict()))) == r
    match = rollout(RACE, MatchState(match_length=5, score=(2, 3)),
                    RolloutSettings(games=36, workers=1, cubeful=True))
    assert match.unit == "mwc" and 0.0 < (match.cubeful_equity or 0.0) < 1.0
    assert match.equity == r.equity  # the cube changes nothing cubeless


def test_rollout_plays_ranks_the_candidates() -> None:
    s = RolloutSettings(games=36, workers=1, truncate=6)
    plays = rollout_plays(CONTACT, (6, 5), settings=s, count=3)
    assert len(plays) == 3
    assert [r.equity for _, r in plays] == sorted((r.equity for _, r in plays), reverse=True)
    assert "24/13" in [m for m, _ in plays]
    with pytest.raises(RolloutError, match="count"):
        rollout_plays(CONTACT, (6, 5), settings=RolloutSettings(games=36, workers=1), count=0)


def test_settings_are_checked() -> None:
    with pytest.raises(RolloutError, match="plies=2"):
        RolloutSettings(plies=2)
    with pytest.raises(RolloutError, match="games=0"):
        RolloutSettings(games=0)
    with pytest.raises(RolloutError, match="wobble"):
        RolloutSettings.from_dict({"wobble": 1})


def test_one_ply_rollout_runs() -> None:
    r = one(RolloutSettings(games=4, workers=1, plies=1, truncate=4), CONTACT)
    assert r.games == 4 and -3.0 < r.equity < 3.0


def test_ray_gives_the_same_bits() -> None:
    ray = pytest.importorskip("ray", reason="ray (the cluster extra) is not installed")
    # Ray 2.60 has no local mode any more: a local one-CPU instance
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        s = RolloutSettings(games=72, chunk=36, seed=5)
        on_ray = one(replace(s, ray_address="auto"), BEAROFF)
    finally:
        ray.shutdown()
    assert numbers(on_ray) == numbers(one(replace(s, workers=1), BEAROFF))


def test_command_json_and_text(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    pid = RACE.position_id()
    assert command.main([pid, "--games", "36", "--workers", "1", "--json",
                         "--save", str(tmp_path / "r.json")]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["games"] == 36 and out["position_id"] == pid
    assert command.main(["--resume", str(tmp_path / "r.json"), "--games", "72", "--workers", "1",
                         "--json"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    direct = one(RolloutSettings(games=72, workers=1))
    assert resumed["equity"] == direct.equity
    assert command.main([CONTACT.position_id(), "--dice", "65", "--plays", "2", "--games", "36",
                         "--truncate", "4", "--workers", "1"]) == 0
    text = capsys.readouterr().out
    assert "1. " in text and "2. " in text and "cubeless equity" in text
    assert command.main(["nonsense", "--workers", "1"]) == 2
    assert "not a valid Position ID" in capsys.readouterr().err


def test_command_ctrl_c_saves_and_resume_goes_on(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    one(RolloutSettings(games=1, workers=1, variance_reduction=False))  # engine loaded
    save = tmp_path / "stop.json"
    timer = threading.Timer(1.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        code = command.main([RACE.position_id(), "--games", "200000", "--workers", "1",
                             "--no-variance-reduction", "--save", str(save)])
    finally:
        timer.cancel()
    assert code == 1
    assert f"--resume {save}" in capsys.readouterr().err
    done = RolloutState.load(save).done
    assert 0 < done < 200000
    games = done + 36
    assert command.main(["--resume", str(save), "--games", str(games), "--workers", "1",
                         "--json"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    whole = one(RolloutSettings(games=games, workers=1, variance_reduction=False))
    assert resumed["equity"] == whole.equity and resumed["games"] == games
