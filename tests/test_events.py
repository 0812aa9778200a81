"""Events: value objects of the game and match logs, and their JSON form."""

from __future__ import annotations

import json
from typing import Any

import pytest

from backgammon.errors import BackgammonError
from backgammon.events import (
    FORMAT_VERSION,
    PRIMARY_EVENTS,
    Accept,
    AutomaticDouble,
    Beaver,
    Decline,
    Double,
    Event,
    GameEnd,
    GameResult,
    GameStart,
    MatchEnd,
    OpeningRoll,
    Pass,
    Play,
    Resign,
    ResultKind,
    Roll,
    SetUp,
    Take,
    event_from_dict,
)
from backgammon.move import Move

RESULT = GameResult(winner=1, kind=ResultKind.BACKGAMMON, level=3, cube=4, multiplier=3, points=12)

EVENTS: list[Event] = [
    SetUp("4HPwATDgc/ABMA", 1),
    SetUp("4HPwATDgc/ABMA", 0, cube=4, cube_owner=1, dice=(6, 2)),
    SetUp("4HPwATDgc/ABMA", 0, cube=2, cube_owner=None, double_offered=True),
    OpeningRoll((3, 3)),
    AutomaticDouble(2),
    Roll(0, (6, 5)),
    Play(1, Move.parse("24/18 13/11")),
    Play(1, Move.parse("bar/22* 6/off")),
    Play(0, Move()),
    Double(0, 2),
    Take(1, 2),
    Beaver(1, 4),
    Pass(1),
    Resign(0, 2),
    Accept(1),
    Decline(1),
    GameEnd(RESULT),
    GameStart(3, (2, 4), True),
    MatchEnd(0, (7, 4)),
]


@pytest.mark.parametrize("event", EVENTS, ids=lambda e: e.type)
def test_round_trip_through_json(event: Event) -> None:
    data = json.loads(json.dumps(event.to_dict()))
    assert data["type"] == event.type
    assert event_from_dict(data) == event


def test_dict_shapes() -> None:
    assert Roll(1, (3, 1)).to_dict() == {"type": "roll", "player": 1, "dice": [3, 1]}
    assert Play(0, Move()).to_dict() == {"type": "play", "player": 0, "move": ""}
    assert GameEnd(RESULT).to_dict()["result"] == {
        "winner": 1,
        "kind": "backgammon",
        "level": 3,
        "cube": 4,
        "multiplier": 3,
        "points": 12,
    }


def test_primary_and_derived() -> None:
    assert PRIMARY_EVENTS == {
        "setup",
        "opening_roll",
        "roll",
        "play",
        "double",
        "take",
        "beaver",
        "pass",
        "resign",
        "accept",
        "decline",
    }
    assert not AutomaticDouble.primary and not GameEnd.primary
    assert not GameStart.primary and not MatchEnd.primary


def test_format_version() -> None:
    assert FORMAT_VERSION == 1


@pytest.mark.parametrize(
    "data",
    [
        {"type": "bogus"},
        {"player": 0},
        {"type": "roll", "player": 2, "dice": [1, 2]},
        {"type": "roll", "player": 0, "dice": [0, 2]},
        {"type": "roll", "player": 0, "dice": [1, 2, 3]},
        {"type": "roll", "player": 0},
        {"type": "roll", "player": True, "dice": [1, 2]},
        {"type": "roll", "player": 0, "dice": [1, 2], "extra": 1},
        {"type": "play", "player": 0, "move": "24/x"},
        {"type": "play", "player": 0, "move": 7},
        {"type": "double", "player": 0, "cube": "2"},
        {"type": "game_end", "result": {"winner": 0}},
        {"type": "game_end", "result": {**RESULT.to_dict(), "kind": "triple"}},
        {"type": "game_start", "number": 1, "score": [0], "crawford": False},
        {"type": "game_start", "number": 1, "score": [0, 0], "crawford": "no"},
        {"type": "setup", "position_id": 5, "player": 0},
        {"type": "setup", "position_id": "4HPwATDgc/ABMA", "player": 0, "cube_owner": 3},
        "roll",
    ],
)
def test_malformed_events_raise(data: Any) -> None:
    with pytest.raises(BackgammonError):
        event_from_dict(data)


def test_result_text_and_loser() -> None:
    assert RESULT.loser == 0
    assert str(RESULT) == "player 1 wins a backgammon: 12 points"
    passed = GameResult(0, ResultKind.PASSED, 1, 1, 1, 1)
    assert str(passed) == "player 0 wins as the double is passed: 1 point"
    assert GameResult.from_dict(RESULT.to_dict()) == RESULT


def test_events_are_immutable_values() -> None:
    e = Roll(0, (3, 1))
    assert e == Roll(0, (3, 1)) and hash(e) == hash(Roll(0, (3, 1)))
    with pytest.raises(AttributeError):
        e.player = 1  # type: ignore[misc]
