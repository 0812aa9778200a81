"""Hints on demand at the web table (issue 11): advice as data, against bots only."""

from __future__ import annotations

import json

import pytest

from backgammon.dice import ScriptedDice, SeededDice
from backgammon.table import Seat, Table
from backgammon.table import commands as cmd
from backgammon.server.hints import hint, why_no_hint


def _vs_bot(dice: list[object], length: int = 0) -> Table:
    return Table.match([Seat("ann"), Seat("gnu", "expert", seed=1)], length=length, dice=ScriptedDice(dice))


def test_play_hint_ranks_every_play_best_first_in_the_seats_numbering() -> None:
    t = _vs_bot([(3, 1)])
    t.submit("ann", cmd.Roll())
    h = hint(t, "ann", pubeval=True)
    assert h["kind"] == "plays"
    moves = [p["move"] for p in h["plays"]]
    assert moves[0] == "8/5 6/5"
    assert len(moves) == 5 and len(set(moves)) == 5
    assert all(m in t.snapshot("ann").legal for m in moves)
    diffs = [p["difference"] for p in h["plays"]]
    assert diffs[0] == 0 and all(d <= 0 for d in diffs)
    json.dumps(h)  # JSON-ready


def test_network_hint_in_a_match_is_in_match_winning_chances() -> None:
    t = _vs_bot([(6, 1)], length=5)
    t.submit("ann", cmd.Roll())
    h = hint(t, "ann")
    assert h["unit"] in ("mwc", "score")  # "score" only if the network cannot load
    if h["unit"] == "mwc":
        assert h["plays"][0]["move"] == "13/7 8/7"
        assert 0.5 < h["plays"][0]["value"] < 0.6
        assert 0 < h["plays"][0]["chances"]["win"] < 1


def test_cube_hint_before_the_roll_and_take_hint_when_doubled() -> None:
    # ann on roll after the opening: the cube is available (R27)
    t = _vs_bot([(3, 1), (6, 5)])
    t.submit("ann", cmd.Roll())
    t.submit("ann", cmd.Play("8/5 6/5", confirm=True))
    while t.bot_to_act() == "gnu":
        t.play_bot("gnu")
    assert "double" in t.actions("ann")
    h = hint(t, "ann")
    assert h["kind"] == "cube" and h["available"] is True
    assert h["action"] in ("no double", "double, take", "double, pass", "too good", "no double, beaver")
    t.submit("ann", cmd.Double())
    assert "take" in t.actions("gnu")


def test_take_hint_for_the_doubled_person_and_none_for_a_bot() -> None:
    t = Table.match([Seat("ann"), Seat("gnu", "expert", seed=1)], dice=SeededDice(5))
    # play on until gnu, a bot, is before its roll with the cube available (R27)
    for _ in range(200):
        if t.bot_to_act() == "gnu" and "double" in t.actions("gnu"):
            break
        if t.bot_to_act() == "gnu":
            t.play_bot("gnu")
        elif "roll" in t.actions("ann"):
            assert t.submit("ann", cmd.Roll()).accepted
        else:
            legal = t.snapshot("ann").legal
            assert t.submit("ann", cmd.Play(legal[0] if legal else "", confirm=True)).accepted
    else:
        raise AssertionError("gnu never came to a roll with the cube available")
    assert t.submit("gnu", cmd.Double()).accepted  # gnu's seat doubles: ann is doubled
    h = hint(t, "ann")
    assert h["kind"] == "take"
    assert h["action"] in ("take", "pass")  # no beavers at this table
    assert h["beaver"] is False
    # the bot's own decisions are not advised: ann, on the other side, is a person
    assert why_no_hint(t, "gnu") == "hints are given only against bots: ann is a person"


def test_no_hint_against_a_person_or_without_a_decision() -> None:
    t = Table.match([Seat("ann"), Seat("bob")], dice=ScriptedDice([(3, 1)]))
    assert why_no_hint(t, "ann") == "hints are given only against bots: bob is a person"
    with pytest.raises(ValueError, match="only against bots"):
        hint(t, "ann")
    t2 = _vs_bot([(3, 1)])
    # the opening roll: nothing to advise on
    assert why_no_hint(t2, "ann") == "there is no decision of yours to advise on now"
    assert why_no_hint(t2, "zed") == "'zed' has no seat at this table"
