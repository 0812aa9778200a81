"""Time controls and the match clock (backgammon/clock.py): delay then reserve, flags."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from backgammon.clock import PRESETS, Clock, TimeControl
from backgammon.errors import BackgammonError

BLITZ = TimeControl("blitz", 8.0, 20.0)
T0 = 1_700_000_000.0


def test_presets() -> None:
    assert PRESETS["none"] is None
    assert PRESETS["blitz"] == TimeControl("blitz", 8.0, 20.0)
    assert PRESETS["rapid"] == TimeControl("rapid", 10.0, 60.0)
    assert PRESETS["classic"] == TimeControl("classic", 15.0, 180.0)
    assert set(PRESETS) == {"none", "blitz", "rapid", "classic"}
    classic = PRESETS["classic"]
    assert classic is not None and classic.reserve(7) == 1260.0


def test_time_control_round_trip_and_refusals() -> None:
    for control in PRESETS.values():
        if control is not None:
            assert TimeControl.from_dict(json.loads(json.dumps(control.to_dict()))) == control
    with pytest.raises(BackgammonError, match="per_point"):
        TimeControl.from_dict({"name": "x", "delay": 1})
    with pytest.raises(BackgammonError, match="delay must be"):
        TimeControl("x", -1.0, 10.0)
    with pytest.raises(BackgammonError, match="reserve per point"):
        TimeControl("x", 1.0, 0.0)
    with pytest.raises(BackgammonError, match="1 point or more"):
        BLITZ.reserve(0)
    with pytest.raises(AttributeError):
        BLITZ.delay = 3.0  # type: ignore[misc]


def test_a_new_clock_runs_nothing() -> None:
    clock = Clock(BLITZ, ["white", "black"], 5)
    assert clock.reserve == {"white": 100.0, "black": 100.0}
    assert clock.running == () and clock.since is None
    assert clock.deadline() is None and clock.flagged(T0 + 10**6) is None
    assert clock.left("white", T0) == (8.0, 100.0)


def test_the_delay_is_free_then_the_reserve_drains() -> None:
    clock = Clock(BLITZ, ["white", "black"], 1)
    clock.update(["white"], T0)
    assert clock.left("white", T0) == (8.0, 20.0)
    assert clock.left("white", T0 + 8.0) == (0.0, 20.0)
    assert clock.left("white", T0 + 13.0) == (0.0, 15.0)
    assert clock.left("black", T0 + 13.0) == (8.0, 20.0)  # black's clock does not run
    clock.update(["black"], T0 + 13.0)
    assert clock.reserve == {"white": 15.0, "black": 20.0}


def test_acting_within_the_delay_costs_nothing_and_the_unused_delay_is_lost() -> None:
    clock = Clock(BLITZ, ["white", "black"], 1)
    clock.update(["white"], T0)
    clock.update(["black"], T0 + 5.0)  # white used 5 of its 8 s: the 3 s left are lost
    clock.update(["white"], T0 + 6.0)
    assert clock.reserve == {"white": 20.0, "black": 20.0}
    assert clock.left("white", T0 + 6.0) == (8.0, 20.0)  # a new period: a fresh delay
    assert clock.left("white", T0 + 16.0) == (0.0, 18.0)


def test_a_seat_still_to_act_keeps_its_period() -> None:
    clock = Clock(BLITZ, ["white", "black"], 1)
    clock.update(["white"], T0)
    clock.update(["white"], T0 + 6.0)  # e.g. white rolled and must now play: same period
    assert clock.left("white", T0 + 6.0) == (2.0, 20.0)
    clock.update(["white"], T0 + 10.0)
    assert clock.reserve["white"] == 18.0
    assert clock.deadline() == T0 + 10.0 + 18.0


def test_flagged_and_deadline() -> None:
    clock = Clock(BLITZ, ["white", "black"], 1)
    clock.update(["black"], T0)
    assert clock.deadline() == T0 + 28.0
    assert clock.flagged(T0 + 27.999) is None
    assert clock.flagged(T0 + 28.0) == "black"
    assert clock.flagged(T0 + 500.0) == "black"
    assert clock.left("black", T0 + 500.0) == (0.0, 0.0)
    assert clock.view(T0 + 500.0)["seats"]["black"] == {"delay": 0.0, "reserve": 0.0}


def test_several_seats_run_at_once_and_the_first_to_run_out_is_flagged() -> None:
    clock = Clock(BLITZ, ["white", "black"], 1)
    clock.update(["white"], T0)
    clock.update(["black"], T0 + 15.0)  # white: 13 s left
    clock.update(["white", "black"], T0 + 16.0)  # both must act (e.g. a resignation offer)
    # black keeps its period (7 s of delay left, 20 s reserve: out at T0 + 43);
    # white starts a new one (8 s of delay, 13 s reserve: out at T0 + 37).
    assert clock.running == ("white", "black")
    assert clock.deadline() == T0 + 37.0
    assert clock.flagged(T0 + 36.0) is None
    assert clock.flagged(T0 + 37.0) == "white"
    assert clock.flagged(T0 + 50.0) == "white"  # both are out; white ran out first
    clock.update(["white", "black"], T0 + 50.0)  # charged past both: still white first
    assert clock.flagged(T0 + 50.0) == "white"
    assert clock.left("white", T0 + 50.0) == (0.0, 0.0)


def test_stop_charges_and_stops() -> None:
    clock = Clock(BLITZ, ["white", "black"], 1)
    clock.update(["white"], T0)
    clock.stop(T0 + 10.0)
    assert clock.running == () and clock.since is None
    assert clock.reserve["white"] == 18.0
    assert clock.deadline() is None and clock.flagged(T0 + 1000.0) is None
    view = clock.view(T0 + 1000.0)
    assert view["running"] == [] and view["seats"]["white"] == {"delay": 8.0, "reserve": 18.0}


def test_view_is_the_protocol_clock_object() -> None:
    clock = Clock(BLITZ, ["white", "black"], 2)
    clock.update(["white"], T0)
    view = clock.view(T0 + 12.3456)
    assert view == {
        "control": {"name": "blitz", "delay": 8.0, "per_point": 20.0},
        "running": ["white"],
        "at": 1_700_000_012_346,
        "seats": {
            "white": {"delay": 0.0, "reserve": pytest.approx(40.0 - 4.3456)},
            "black": {"delay": 8.0, "reserve": 40.0},
        },
    }
    assert isinstance(view["at"], int)
    json.dumps(view)


def test_unknown_seats_are_refused() -> None:
    clock = Clock(BLITZ, ["white", "black"], 1)
    with pytest.raises(BackgammonError, match="no clock for seat"):
        clock.update(["red"], T0)
    with pytest.raises(BackgammonError, match="no clock for seat"):
        clock.left("red", T0)
    with pytest.raises(BackgammonError, match="distinct seats"):
        Clock(BLITZ, ["a", "a"], 1)


def test_round_trip_is_exact() -> None:
    clock = Clock(TimeControl("odd", 7.3, 11.1), ["white", "black"], 3)
    clock.update(["white"], T0 + 0.1)
    clock.update(["white", "black"], T0 + 9.77)
    clock.update(["black"], T0 + 21.123456789)
    again = Clock.from_dict(json.loads(json.dumps(clock.to_dict())))
    assert again.to_dict() == clock.to_dict()
    assert again.reserve == clock.reserve and again.delay_left == clock.delay_left
    assert again.running == clock.running and again.since == clock.since
    assert again.view(T0 + 30.0) == clock.view(T0 + 30.0)
    idle = Clock(BLITZ, ["a", "b"], 1)
    assert Clock.from_dict(idle.to_dict()).to_dict() == idle.to_dict()


def test_a_broken_saved_clock_is_refused() -> None:
    clock = Clock(BLITZ, ["white", "black"], 1)
    clock.update(["white"], T0)
    data = clock.to_dict()
    with pytest.raises(BackgammonError, match="do not agree"):
        Clock.from_dict({**data, "delay_left": {}})
    with pytest.raises(BackgammonError, match="start time"):
        Clock.from_dict({**data, "since": None})
    with pytest.raises(BackgammonError, match="not a saved clock"):
        Clock.from_dict({k: v for k, v in data.items() if k != "reserve"})


seat_sets = st.lists(st.sampled_from(["a", "b", "c"]), unique=True, max_size=3)
steps = st.lists(st.tuples(st.floats(min_value=0.0, max_value=40.0), seat_sets), max_size=25)


@given(steps)
def test_reserve_never_increases_and_deadline_agrees_with_flagged(moves: list[tuple[float, list[str]]]) -> None:
    clock = Clock(BLITZ, ["a", "b", "c"], 2)
    now = T0
    for gap, to_act in moves:
        before = dict(clock.reserve)
        deadline = clock.deadline()
        probe = now + gap
        flagged = clock.flagged(probe)
        assert (flagged is not None) == (deadline is not None and probe >= deadline)
        if flagged is not None:
            assert flagged in clock.running
            assert clock.left(flagged, probe)[1] == 0.0
        if deadline is not None and probe < deadline:
            assert all(clock.left(seat, probe)[1] > 0.0 or clock.left(seat, probe)[0] > 0.0 for seat in clock.running)
        now = probe
        clock.update(to_act, now)
        assert all(clock.reserve[s] <= before[s] for s in before)
        for seat in ("a", "b", "c"):
            delay, reserve = clock.left(seat, now)
            assert 0.0 <= delay <= BLITZ.delay and 0.0 <= reserve <= 40.0
        assert Clock.from_dict(json.loads(json.dumps(clock.to_dict()))).to_dict() == clock.to_dict()
    clock.stop(now + 1.0)
    assert clock.running == () and clock.deadline() is None


@given(st.floats(min_value=0.0, max_value=100.0), st.floats(min_value=0.0, max_value=100.0))
def test_one_update_in_the_middle_changes_nothing(first: float, second: float) -> None:
    split = Clock(BLITZ, ["a", "b"], 3)
    split.update(["a"], T0)
    split.update(["a"], T0 + first)
    split.update(["b"], T0 + first + second)
    whole = Clock(BLITZ, ["a", "b"], 3)
    whole.update(["a"], T0)
    whole.update(["b"], T0 + first + second)
    assert split.reserve["a"] == pytest.approx(whole.reserve["a"], abs=1e-9)
