"""Rollouts (docs/ANALYSIS-DESIGN.md part 3): reproducibility, exact answers, variance
reduction, quasi-random dice, truncation, the bear-off truncation, cube actions in the
trials (money, Jacoby, cube limit, match scores), stop and resume, Ray, the command."""

from __future__ import annotations

import json
import os
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import ray

from backgammon import Position
from backgammon.analysis.match import _unit
from backgammon.analysis.rollout import (
    RolloutError,
    RolloutInterrupted,
    RolloutResult,
    RolloutSettings,
    RolloutState,
    _cube_args,
    rollout,
    rollout_plays,
    rollout_state,
)
from backgammon.bots.neural import cube_decision
from backgammon.commands import rollout as command
from backgammon.engine import default_evaluator, key_of
from backgammon.engine._rollout_kernels import _cube_end, stratified_roll
from backgammon.engine._rollout_kernels import cube_decision as kernel_cube_decision
from backgammon.engine.met import mwc
from backgammon.engine.probabilities import Probabilities
from backgammon.matchid import MatchState

from .conftest import board

#: a race: the side on roll 8 pips ahead, contact broken (short games: fast)
RACE = board({6: 3, 5: 3, 4: 3, 3: 2, 8: 2, 10: 2}, {19: 3, 20: 3, 21: 3, 22: 2, 17: 2, 14: 2})
#: a bear-off, every checker home: the tables know the answer
BEAROFF = board({1: 2, 2: 2, 3: 1, 5: 1}, {24: 2, 22: 2, 20: 2})
#: a contact position (the opening after 3-1 by the other side)
CONTACT = Position.initial().play(Position.initial().parse_move("8/5 6/5", (3, 1))).swap()
#: the side on roll bears off in 4 or 5 rolls; the other side's 15 checkers are on its
#: 12 point: a certain win, a gammon but for the Jacoby rule (the bots cash with it)
CASH = board({1: 5, 2: 5, 3: 5}, {13: 15})


def numbers(r: RolloutResult) -> dict[str, Any]:
    """A result's figures without the settings that only say how it was computed."""
    d = r.to_dict()
    d["settings"] = {k: v for k, v in d["settings"].items() if k not in ("workers", "ray_address", "chunk")}
    return d


def one(settings: RolloutSettings, position: Position = RACE, **kw: Any) -> RolloutResult:
    return rollout(position, settings=settings, **kw)


def test_same_seed_same_bits_whatever_the_workers_and_chunks() -> None:
    # one pool of 2 processes (its start-up is most of the time): cubeless figures and the
    # cubeful trials together
    s = RolloutSettings(games=72, workers=1, chunk=36, seed=7, truncate=6, cubeful=True)
    a = one(s, CONTACT)
    b = one(replace(s, workers=2, chunk=20), CONTACT)
    assert numbers(a) == numbers(b)
    plain = RolloutSettings(games=72, workers=1, chunk=36, seed=7, variance_reduction=False)
    c = one(plain)
    assert numbers(one(replace(plain, chunk=25))) == numbers(c)
    assert one(replace(plain, seed=8)).equity != c.equity


def test_a_certain_win_is_exact() -> None:
    # R21: bearing off the last checker wins; the opponent has borne off checkers: no gammon
    last = board({1: 1}, {24: 1})
    r = one(RolloutSettings(games=36, workers=1), last)
    assert r.probabilities.as_tuple() == (1.0, 0.0, 0.0, 0.0, 0.0)
    assert r.equity == 1.0 and r.equity_se == 0.0


def test_bearoff_truncation_takes_the_exact_tables() -> None:
    exact = default_evaluator().evaluate(BEAROFF).as_tuple()
    # every cubeless trial stops at once with the tables' value: no error at all
    stop = one(RolloutSettings(games=36, workers=1), BEAROFF)
    assert np.allclose(stop.probabilities.as_tuple(), exact, rtol=0, atol=1e-12)
    assert stop.equity_se < 1e-9
    # played to the end instead: the same value within the dice's noise
    r = one(RolloutSettings(games=720, workers=1, variance_reduction=False,
                            bearoff_truncation=False), BEAROFF)
    assert r.standard_errors[0] > 0.005
    assert abs(r.probabilities.win - exact[0]) < 4 * r.standard_errors[0]
    # with the luck adjustment each bear-off roll's luck is measured by the exact tables
    vr = one(RolloutSettings(games=72, workers=1, bearoff_truncation=False), BEAROFF)
    assert abs(vr.probabilities.win - exact[0]) < 4 * vr.standard_errors[0] + 0.005
    assert vr.standard_errors[0] < r.standard_errors[0] / 3
    # a race that reaches the bear-off: the same value with and without stopping there
    s = RolloutSettings(games=72, workers=1)
    a, b = one(s), one(replace(s, bearoff_truncation=False))
    assert a.equity != b.equity
    assert abs(a.equity - b.equity) < 4 * (a.equity_se ** 2 + b.equity_se ** 2) ** 0.5


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


def test_result_json_round_trip_and_versions(tmp_path: Path) -> None:
    r = one(RolloutSettings(games=36, workers=1, cubeful=True, truncate=4), CONTACT)
    assert r.cubeful_equity is not None and r.cubeful_se is not None and r.unit == "points"
    assert RolloutResult.from_dict(json.loads(json.dumps(r.to_dict()))) == r
    match = rollout(CONTACT, MatchState(match_length=5, score=(2, 3)),
                    RolloutSettings(games=36, workers=1, cubeful=True, truncate=4))
    assert match.unit == "emg" and match.cubeful_mwc is not None
    assert 0.0 < match.cubeful_mwc < 1.0
    assert RolloutResult.from_dict(json.loads(json.dumps(match.to_dict()))) == match
    # version 1 files: results read; cubeless states resume as they were played
    old = {**r.to_dict(), "version": 1, "unit": "mwc"}
    del old["settings"]["bearoff_truncation"], old["settings"]["cube_limit"]
    assert RolloutResult.from_dict(old).unit == "mwc"
    s = RolloutSettings(games=72, workers=1, bearoff_truncation=False, truncate=6)
    st = rollout_state(RACE, settings=replace(s, games=36))
    v1 = {**st.to_dict(), "version": 1}
    del v1["settings"]["bearoff_truncation"], v1["settings"]["cube_limit"]
    back = RolloutState.from_dict(v1)
    assert numbers(one(s, resume=back)) == numbers(one(s))
    v1["settings"]["cubeful"] = True
    with pytest.raises(RolloutError, match="version 1"):
        RolloutState.from_dict(v1)


# -- cube actions in the trials ----------------------------------------------------------------


def test_kernel_cube_decision_is_the_bots() -> None:
    """The compiled decision equals :func:`backgammon.bots.neural.cube_decision` (R27, R33)."""
    rng = np.random.default_rng(4)
    states = [MatchState(), MatchState(jacoby=False), MatchState(cube_value=2, cube_owner=0),
              MatchState(cube_value=4, cube_owner=1, player_on_roll=1),
              MatchState(match_length=7, score=(2, 4)), MatchState(match_length=7, score=(6, 3)),
              MatchState(match_length=7, score=(6, 3), crawford=True),
              MatchState(match_length=9, score=(1, 0), cube_value=2, cube_owner=0),
              MatchState(match_length=5, score=(4, 4))]
    positions = [CONTACT, RACE, BEAROFF]
    out = np.zeros(4)
    kernel: Any = kernel_cube_decision
    for state in states:
        args = _cube_args(state.to_match_id(), None)
        root = state.player_on_roll
        for position in positions:
            for _ in range(12):
                w = float(rng.uniform(0.02, 0.98))
                wg = float(rng.uniform(0.0, w * 0.4))
                lg = float(rng.uniform(0.0, (1 - w) * 0.4))
                v = np.array([w, wg, wg * 0.1, lg, lg * 0.1])
                expected = cube_decision(Probabilities.from_outputs(v.tolist()), position, state,
                                         root)
                owner = 0 if state.cube_owner is None else (1 if state.cube_owner == root else 2)
                kernel(key_of(position)[0], v, True, state.cube_value, owner, *args, out)
                assert bool(out[3]) == expected.available, (state, v)
                assert out[0] == pytest.approx(expected.no_double, abs=1e-12)
                assert out[2] == pytest.approx(expected.double_pass, abs=1e-12)
                if expected.available:
                    assert out[1] == pytest.approx(expected.double_take, abs=1e-12)


def test_cubeful_units_of_a_finished_game() -> None:
    """Money: points per starting cube (R24 gammon, R25 Jacoby); match: the root's MWC."""
    ci, _, _, mv = _cube_args(MatchState(jacoby=False).to_match_id(), None)
    gammon = np.array([1.0, 1.0, 0.0, 0.0, 0.0])
    assert _cube_end(gammon, 2, 2, ci, mv) == 4.0  # a 2-cube gammon from cube 1
    jacoby, _, _, mvj = _cube_args(MatchState().to_match_id(), None)
    assert _cube_end(gammon, 1, 0, jacoby, mvj) == 1.0  # centred: a single game
    assert _cube_end(gammon, 2, 1, jacoby, mvj) == 4.0
    state = MatchState(match_length=7, score=(2, 4))
    ci, _, _, mv = _cube_args(state.to_match_id(), None)
    assert _cube_end(gammon, 2, 2, ci, mv) == mwc(1, 3)
    assert _cube_end(np.array([0.0, 0.0, 0.0, 1.0, 0.0]), 1, 0, ci, mv) == mwc(5, 1)


def test_cubeful_double_pass_and_jacoby() -> None:
    """R25 (Jacoby): with a centred cube the bot cashes a certain gammon (double/pass: +1 per
    cube in every trial); without it, it plays on for the gammon (too good to double)."""
    s = RolloutSettings(games=36, workers=1, cubeful=True)
    cash = one(s, CASH)
    assert cash.cubeful_equity == 1.0 and cash.cubeful_se == 0.0
    assert cash.equity > 1.9  # the gammon is there, cubeless
    gammon = rollout(CASH, MatchState(jacoby=False), s)
    assert gammon.cubeful_equity is not None and gammon.cubeful_equity > 1.9
    # a cube of 4 that the side on roll owns: no Jacoby rule, a gammon is 2 per cube
    owned = rollout(CASH, MatchState(cube_value=4, cube_owner=0), s)
    assert owned.cubeful_equity is not None and owned.cubeful_equity > 1.9
    # no gammon left (12 checkers off): double/pass, +1 per starting cube (R29)
    single = board({1: 2, 2: 2}, {13: 3})
    for state in (MatchState(cube_value=2, cube_owner=0), MatchState(jacoby=False)):
        r = rollout(single, state, s)
        assert r.cubeful_equity == 1.0 and r.cubeful_se == 0.0 and r.equity > 0.95


def test_no_double_at_the_start() -> None:
    """``double_at_start=False``: the no-double line; it changes nothing when the side on
    roll cannot double anyway (the other side owns the cube, R27)."""
    s = RolloutSettings(games=36, workers=1, cubeful=True, truncate=1)
    no_double = replace(s, double_at_start=False)
    single = board({1: 2, 2: 2}, {13: 3})  # double/pass (no gammon left)
    assert rollout(single, MatchState(), s).cubeful_equity == 1.0
    held = rollout(single, MatchState(), no_double)  # after one roll: the other side's value
    assert held.cubeful_equity is not None and 0.9 < held.cubeful_equity < 1.0
    s = replace(s, truncate=4)
    no_double = replace(s, double_at_start=False)
    theirs = MatchState(cube_value=2, cube_owner=1)
    a, b = rollout(RACE, theirs, s), rollout(RACE, theirs, no_double)
    assert (a.cubeful_equity, a.cubeful_se) == (b.cubeful_equity, b.cubeful_se)


def test_dead_cube_gives_the_cubeless_value() -> None:
    """A cube at its limit is dead (R26): without the Jacoby rule each trial's cubeful value
    is its cubeless equity; with it (R25, the cube centred) gammons count as single games."""
    s = RolloutSettings(games=36, workers=1, cubeful=True, truncate=8, cube_limit=1,
                        variance_reduction=False)
    plain = rollout(CONTACT, MatchState(jacoby=False), s)
    assert plain.cubeful_equity == pytest.approx(plain.equity, abs=1e-12)
    jacoby = rollout(CONTACT, MatchState(jacoby=True), s)
    assert jacoby.cubeful_equity == pytest.approx(2 * jacoby.probabilities.win - 1, abs=1e-12)
    assert jacoby.probabilities.win_gammon > 0.01


def test_cubeful_match_with_a_dead_cube() -> None:
    """1-away 1-away (R33 post-Crawford, nobody can gain by doubling) and the Crawford game
    (no cube, R33): the cubeful value is the cubeless match winning chances of the trials."""
    s = RolloutSettings(games=72, workers=1, cubeful=True, truncate=6)
    dmp = rollout(CONTACT, MatchState(match_length=5, score=(4, 4)), s)
    assert dmp.unit == "emg" and dmp.cubeful_mwc is not None
    assert dmp.cubeful_mwc == pytest.approx(dmp.probabilities.win, abs=1e-9)
    assert dmp.cubeful_equity == pytest.approx(2 * dmp.probabilities.win - 1, abs=1e-9)
    state = MatchState(match_length=5, score=(2, 4), crawford=True)
    st = rollout_state(CONTACT, state, s)
    r = st.result()
    w, wg, wb, lg, lb = (st.sums / st.trials)[:5]
    values = [mwc(3 - k, 1, True) for k in (1, 2, 3)] + [mwc(3, 1 - k, True) for k in (1, 2, 3)]
    expected = ((w - wg) * values[0] + (wg - wb) * values[1] + wb * values[2]
                + (1 - w - lg) * values[3] + (lg - lb) * values[4] + lb * values[5])
    assert r.cubeful_mwc == pytest.approx(expected, abs=1e-9)
    assert r.cubeful_equity == pytest.approx(_unit(state, 0).emg(expected), abs=1e-9)


def test_cubeful_same_bits_and_resume() -> None:
    for state in (MatchState(), MatchState(match_length=7, score=(3, 5))):
        s = RolloutSettings(games=48, workers=1, chunk=24, seed=11, cubeful=True, truncate=8)
        whole = rollout(CONTACT, state, s)
        assert whole.cubeful_equity != whole.equity
        assert numbers(rollout(CONTACT, state, replace(s, chunk=17))) == numbers(whole)

        def stop(done: int, total: int, estimate: RolloutResult) -> None:
            raise KeyboardInterrupt

        with pytest.raises(RolloutInterrupted) as info:
            rollout(CONTACT, state, s, progress=stop)
        saved = RolloutState.from_dict(json.loads(json.dumps(info.value.state.to_dict())))
        assert saved.trials == 24 and saved.sums.shape == (6,)
        assert numbers(rollout(CONTACT, state, s, resume=saved)) == numbers(whole)
        with pytest.raises(RolloutError, match="Match ID"):
            rollout(CONTACT, MatchState(cube_value=2, cube_owner=0), s, resume=saved)


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
    # Ray 2.60 has no local mode any more: one local one-CPU instance for every check
    ray.init(num_cpus=1, include_dashboard=False, log_to_driver=False)
    try:
        s = RolloutSettings(games=72, chunk=36, seed=5, truncate=6)
        on_ray = one(replace(s, ray_address="auto"), CONTACT)
        cubeful = replace(s, cubeful=True)
        state = MatchState(match_length=5, score=(1, 2))
        cube_on_ray = rollout(CONTACT, state, replace(cubeful, ray_address="auto"))
    finally:
        ray.shutdown()
    assert numbers(on_ray) == numbers(one(replace(s, workers=1), CONTACT))
    assert numbers(cube_on_ray) == numbers(rollout(CONTACT, state, replace(cubeful, workers=1)))


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
    match = MatchState(match_length=5, score=(1, 2)).to_match_id()
    assert command.main([f"{CONTACT.position_id()}:{match}", "--cubeful", "--cube-limit", "8",
                         "--games", "36", "--truncate", "4", "--workers", "1"]) == 0
    text = capsys.readouterr().out
    assert "EMG" in text and "cubeful  match-winning chances" in text
    with pytest.raises(SystemExit):
        command.main([CONTACT.position_id(), "--cubeful", "--cube-limit", "3"])
    assert "power of 2" in capsys.readouterr().err
    assert command.main(["nonsense", "--workers", "1"]) == 2
    assert "not a valid Position ID" in capsys.readouterr().err


def test_command_ctrl_c_saves_and_resume_goes_on(capsys: pytest.CaptureFixture[str],
                                                 tmp_path: Path) -> None:
    # a person's Ctrl-C at a terminal: the real command in a pseudo-terminal, interrupted
    # once its progress bar shows an estimate (however loaded the machine is); a contact
    # position, whose trials take time (a race stops at the bear-off tables at once)
    pexpect = pytest.importorskip("pexpect")
    save = tmp_path / "stop.json"
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES")}
    # (rich draws no live bar on a "dumb" terminal)
    env.update({"NO_COLOR": "1", "TERM": "xterm", "PYTHONPATH": str(Path(__file__).resolve().parent.parent)})
    child = pexpect.spawn(sys.executable, ["-m", "backgammon.cli", "rollout", CONTACT.position_id(),
                                           "--games", "200000", "--workers", "1", "--chunk", "36",
                                           "--no-variance-reduction", "--save", str(save)],
                          cwd=str(tmp_path), env=env, encoding="utf-8", timeout=300,
                          dimensions=(24, 120))
    try:
        child.expect(r"equity [+-]\d")  # the bar's current estimate: games are being played
        child.sendintr()
        child.expect(r"stopped after (\d+) games")
        stopped = int(child.match.group(1))
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    assert child.exitstatus == 1
    assert f"--resume {save}" in child.before.replace("\r\n", " ").replace("\n", " ")
    done = RolloutState.load(save).done
    assert 0 < done < 200000 and done == stopped
    games = done + 36
    assert command.main(["--resume", str(save), "--games", str(games), "--workers", "1",
                         "--json"]) == 0
    resumed = json.loads(capsys.readouterr().out)
    whole = one(RolloutSettings(games=games, workers=1, variance_reduction=False), CONTACT)
    assert resumed["equity"] == whole.equity and resumed["games"] == games
