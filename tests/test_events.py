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
    Forfeit,
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
    check_same_log,
    event_class,
    event_from_dict,
)
from backgammon.game import Game
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
    Forfeit(1, "time"),
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
        "forfeit",
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


# -- one framework for game, match and chouette events ---------------------------------------

OLD_CHOUETTE = (
    '{"format": "backgammon-chouette", "version": 1, "players": ["ann", "bob", "cy"], "rules": '
    '{"match_length": 0, "opening_reroll": false, "automatic_doubles": false, "automatic_double_limit": 1, '
    '"jacoby": false, "beavers": false, "backgammon_counts_as_gammon": false, "cube_limit": null}, "events": '
    '[{"type": "roll_off", "players": ["ann", "bob", "cy"], "dice": [4, 6, 2]}, {"type": "game_start", '
    '"number": 1, "box": "bob", "line": ["ann", "cy"]}, {"type": "opening_roll", "dice": [3, 1]}, {"type": '
    '"play", "player": "bob", "move": "8/5 6/5"}, {"type": "propose_double", "player": "cy"}, {"type": '
    '"consent", "player": "ann"}, {"type": "team_double", "members": ["ann", "cy"]}, {"type": "pass", '
    '"player": "bob"}, {"type": "payment", "payer": "bob", "payee": "ann", "points": 1, "kind": "passed"}, '
    '{"type": "payment", "payer": "bob", "payee": "cy", "points": 1, "kind": "passed"}, {"type": '
    '"game_over", "number": 1, "winner": "team"}, {"type": "next_game"}, {"type": "game_start", "number": 2, '
    '"box": "ann", "line": ["cy", "bob"]}]}'
)
OLD_MATCH = (
    '{"format": "backgammon-match", "version": 1, "rules": {"match_length": 1, "opening_reroll": false, '
    '"automatic_doubles": false, "automatic_double_limit": 1, "jacoby": false, "beavers": false, '
    '"backgammon_counts_as_gammon": false, "cube_limit": null}, "start": {"score": [0, 0], "crawford": false, '
    '"post_crawford": false}, "events": [{"type": "game_start", "number": 1, "score": [0, 0], "crawford": '
    'false}, {"type": "opening_roll", "dice": [4, 1]}, {"type": "play", "player": 0, "move": "24/23 13/9"}, '
    '{"type": "double", "player": 1, "cube": 2}, {"type": "take", "player": 0, "cube": 2}, {"type": "resign", '
    '"player": 1, "level": 2}, {"type": "accept", "player": 0}, {"type": "game_end", "result": {"winner": 0, '
    '"kind": "resigned", "level": 2, "cube": 2, "multiplier": 2, "points": 4}}, {"type": "match_end", '
    '"winner": 0, "score": [4, 0]}]}'
)


def test_old_save_files_load_and_are_written_again_byte_for_byte() -> None:
    from backgammon.chouette import Chouette
    from backgammon.match import Match

    assert Chouette.from_json(OLD_CHOUETTE).to_json() == OLD_CHOUETTE
    match = Match.from_json(OLD_MATCH)
    assert match.to_json() == OLD_MATCH
    assert match.game.to_json() == Game.from_json(match.game.to_json()).to_json()


def test_one_base_one_registry_two_families() -> None:
    from backgammon import chouette

    assert all(issubclass(c, Event) for c in (Roll, GameStart, chouette.Roll, chouette.GameStart))
    assert issubclass(chouette.ChouetteEvent, Event)
    assert event_class("game", "roll") is Roll and event_class("chouette", "roll") is chouette.Roll
    assert event_class("game", "game_start") is GameStart
    assert event_class("chouette", "game_start") is chouette.GameStart
    assert event_from_dict({"type": "roll", "player": 0, "dice": [3, 1]}) == Roll(0, (3, 1))
    assert event_from_dict({"type": "roll", "player": "ann", "dice": [3, 1]}, family="chouette") == (
        chouette.Roll("ann", (3, 1))
    )
    assert chouette.chouette_event_from_dict({"type": "take", "player": "cy"}) == chouette.Take("cy")
    with pytest.raises(BackgammonError, match="unknown type 'roll_off'"):
        event_from_dict({"type": "roll_off", "players": ["a"], "dice": [1]})
    with pytest.raises(BackgammonError, match="not an integer"):  # a game's player is 0 or 1
        event_from_dict({"type": "roll", "player": "ann", "dice": [3, 1]})
    with pytest.raises(BackgammonError, match="missing field"):
        event_from_dict({"type": "roll", "player": 0})


def test_a_type_is_registered_once_per_family() -> None:
    from dataclasses import dataclass
    from typing import ClassVar

    with pytest.raises(TypeError, match="taken"):

        @dataclass(frozen=True)
        class Clash(Event):
            type: ClassVar[str] = "roll"


def test_visit_dispatches_on_the_type() -> None:
    class Narrator:
        def on_play(self, event: Play) -> str:
            return f"{event.player} plays {event.move}"

        def on_event(self, event: Event) -> str:
            return event.type

    narrator = Narrator()
    assert Play(1, Move.parse("24/18")).visit(narrator) == "1 plays 24/18"
    assert Roll(0, (3, 1)).visit(narrator) == "roll"
    assert Roll(0, (3, 1)).visit(object()) is None


def test_apply_takes_the_action_again() -> None:
    from backgammon.dice import ScriptedDice

    game = Game(dice=ScriptedDice([(3, 1)]))
    OpeningRoll((3, 1)).apply(game)
    Play(0, Move.parse("8/5 6/5")).apply(game)
    Double(1, 2).apply(game)
    Take(0, 2).apply(game)
    assert (game.cube_value, game.cube_owner) == (2, 0)
    with pytest.raises(BackgammonError, match="not an action"):
        GameEnd(RESULT).apply(game)


def test_check_same_log() -> None:
    check_same_log([Roll(0, (3, 1))], [Roll(0, (3, 1))])
    with pytest.raises(BackgammonError, match="event 0 is"):
        check_same_log([Roll(0, (3, 1))], [Roll(0, (3, 2))])
    with pytest.raises(BackgammonError, match="in the log but not on replay"):
        check_same_log([], [Pass(1)])
