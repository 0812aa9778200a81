"""The Game state machine: opening, cube, resignation, end of game, log and replay."""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backgammon.dice import ScriptedDice, SeededDice
from backgammon.errors import (
    BackgammonError,
    DiceExhaustedError,
    IllegalActionError,
    IllegalMoveError,
    InvalidIdError,
    InvalidPositionError,
)
from backgammon.events import (
    AutomaticDouble,
    GameEnd,
    OpeningRoll,
    Play,
    ResultKind,
    Roll,
    Take,
)
from backgammon.game import Action, Game, Phase
from backgammon.matchid import GameState, MatchState, Resignation
from backgammon.move import OFF, Move, Step
from backgammon.position import Position
from backgammon.rules import Rules
from tests.conftest import board

START = Position.initial()
MONEY = Rules()
# A player on the bar facing a closed board (the opponent holds points 1-6 from its side).
CLOSED = board({25: 1, 6: 14}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2, 12: 3})


def opened(
    first: int = 0, dice: tuple[int, int] = (3, 1), rules: Rules | None = None, more: tuple[Any, ...] = ()
) -> Game:
    """A game whose opening roll gives ``first`` the (non-equal) ``dice``."""
    hi, lo = max(dice), min(dice)
    throw = (hi, lo) if first == 0 else (lo, hi)
    game = Game(rules, dice=ScriptedDice([throw, *more]))
    game.roll()
    return game


def at(
    phase: Phase,
    *,
    rules: Rules | None = None,
    player: int = 0,
    cube: int = 1,
    owner: int | None = None,
    score: tuple[int, int] = (0, 0),
    crawford: bool = False,
    position: Position = START,
) -> Game:
    """A game set up in ``phase`` with ``player`` on roll."""
    src = ScriptedDice([(4, 2)] * 4)
    if phase is Phase.OPENING:
        return Game(rules, dice=src, score=score, crawford=crawford)
    kwargs: dict[str, Any] = {
        "player": player,
        "cube": cube,
        "cube_owner": owner,
        "rules": rules,
        "score": score,
        "crawford": crawford,
        "dice_source": src,
    }
    if phase is Phase.ROLL:
        return Game.from_position(position, **kwargs)
    if phase is Phase.PLAY:
        return Game.from_position(position, dice=(4, 2), **kwargs)
    if phase is Phase.CUBE:
        return Game.from_position(position, double_offered=True, **kwargs)
    if phase is Phase.RESIGN:
        game = Game.from_position(position, **kwargs)
        game.resign()
        return game
    game = Game.from_position(position, double_offered=True, **kwargs)
    game.pass_double()
    return game


# -- R4 / R5 / R6: the opening roll -------------------------------------------------------

OPENING_THROWS = [(a, b) for a in range(1, 7) for b in range(1, 7) if a != b]


@pytest.mark.parametrize("throw", OPENING_THROWS)
def test_opening_roll_higher_die_plays_both_numbers(throw: tuple[int, int]) -> None:  # R4
    game = Game(dice=ScriptedDice([throw]))
    assert game.phase is Phase.OPENING and game.on_roll is None and game.to_act is None
    game.roll()
    a, b = throw
    assert game.on_roll == (0 if a > b else 1)
    assert game.dice == (max(throw), min(throw))
    assert game.legal_actions() == {Action.PLAY, Action.RESIGN}
    assert game.events == (OpeningRoll(throw),)
    assert set(game.legal_moves()) == set(START.legal_moves(throw))


def test_fifteen_opening_rolls_never_a_double() -> None:  # R4
    seen = set()
    for seed in range(300):
        game = Game(dice=SeededDice(seed))
        game.roll()
        assert game.dice is not None and game.dice[0] > game.dice[1]
        seen.add(game.dice)
    assert len(seen) == 15


def test_opening_ties_are_thrown_again() -> None:  # R4
    game = Game(dice=ScriptedDice([(4, 4), (2, 2), (5, 6)]))
    game.roll()
    assert [e for e in game.events] == [OpeningRoll((4, 4)), OpeningRoll((2, 2)), OpeningRoll((5, 6))]
    assert game.on_roll == 1 and game.dice == (6, 5) and game.cube_value == 1


def test_opening_with_given_dice_is_one_throw() -> None:  # R4
    game = Game(dice=ScriptedDice([]))
    game.roll((3, 3))
    assert game.phase is Phase.OPENING and game.events == (OpeningRoll((3, 3)),)
    game.roll((2, 5), player=1)  # either player may throw the opening roll
    assert game.on_roll == 1 and game.dice == (5, 2)


def test_opening_reroll_option() -> None:  # R5
    game = opened(1, (6, 1), Rules(opening_reroll=True), more=((2, 2),))
    assert game.phase is Phase.ROLL and game.on_roll == 1 and game.dice is None
    assert game.legal_actions() == {Action.ROLL, Action.DOUBLE, Action.RESIGN}  # R28: may double first
    game.roll()
    assert game.dice == (2, 2)  # the first play may be a double under R5
    assert len(game.legal_moves()[0].steps) >= 2


@pytest.mark.parametrize(
    "rules, throws, cube, autos",
    [
        (Rules(automatic_doubles=True), [(4, 4), (2, 2), (5, 6)], 2, 1),
        (Rules(automatic_doubles=True, automatic_double_limit=2), [(4, 4), (2, 2), (1, 1), (5, 6)], 4, 2),
        (
            Rules(automatic_doubles=True, automatic_double_limit=5, cube_limit=4),
            [(1, 1)] * 4 + [(5, 6)],
            4,
            2,
        ),
        (Rules(automatic_doubles=True, automatic_double_limit=0), [(4, 4), (5, 6)], 1, 0),
        (Rules(automatic_doubles=False), [(4, 4), (5, 6)], 1, 0),
        (Rules(automatic_doubles=True, match_length=7), [(4, 4), (5, 6)], 1, 0),  # R34
    ],
)
def test_automatic_doubles(rules: Rules, throws: list[tuple[int, int]], cube: int, autos: int) -> None:  # R6
    game = Game(rules, dice=ScriptedDice(throws))
    game.roll()
    assert game.cube_value == cube and game.automatic_doubles == autos
    assert game.cube_owner is None  # the cube stays in the middle
    assert sum(isinstance(e, AutomaticDouble) for e in game.events) == autos
    assert game.can_double(game.on_roll) or game.phase is Phase.PLAY


# -- R21-R25: end of game and scoring -----------------------------------------------------

ENDINGS = [
    # id, loser's checkers (player's numbering; 0 = loser's bar), rules, cube, owner, kind, level, multiplier
    ("single", {19: 14}, MONEY, 1, None, ResultKind.SINGLE, 1, 1),  # R22
    ("single-cube4", {19: 1}, MONEY, 4, 1, ResultKind.SINGLE, 1, 1),  # R22
    ("gammon", {19: 15}, MONEY, 1, None, ResultKind.GAMMON, 2, 2),  # R23
    ("gammon-7pt", {7: 1, 19: 14}, MONEY, 2, 0, ResultKind.GAMMON, 2, 2),  # R23: the 7-point is outside
    ("backgammon-home", {6: 1, 19: 14}, MONEY, 1, None, ResultKind.BACKGAMMON, 3, 3),  # R24
    ("backgammon-2pt", {2: 1, 19: 14}, MONEY, 2, 1, ResultKind.BACKGAMMON, 3, 3),  # R24
    ("backgammon-bar", {0: 1, 19: 14}, MONEY, 1, None, ResultKind.BACKGAMMON, 3, 3),  # R24
    (
        "bg-as-gammon",
        {0: 1, 19: 14},
        Rules(backgammon_counts_as_gammon=True),
        1,
        None,
        ResultKind.BACKGAMMON,
        3,
        2,
    ),
    ("jacoby-gammon", {19: 15}, Rules(jacoby=True), 1, None, ResultKind.GAMMON, 2, 1),  # R25
    ("jacoby-bg", {0: 1, 19: 14}, Rules(jacoby=True), 1, None, ResultKind.BACKGAMMON, 3, 1),  # R25
    ("jacoby-auto-doubled", {19: 15}, Rules(jacoby=True), 2, None, ResultKind.GAMMON, 2, 1),  # R25, R6
    ("jacoby-turned", {19: 15}, Rules(jacoby=True), 2, 0, ResultKind.GAMMON, 2, 2),  # R25
    ("jacoby-match", {19: 15}, Rules(jacoby=True, match_length=5), 1, None, ResultKind.GAMMON, 2, 2),  # R34
    ("jacoby-single", {19: 14}, Rules(jacoby=True), 1, None, ResultKind.SINGLE, 1, 1),  # R25
]


@pytest.mark.parametrize(
    "loser, rules, cube, owner, kind, level, multiplier",
    [e[1:] for e in ENDINGS],
    ids=[e[0] for e in ENDINGS],
)
def test_end_of_game_and_points(
    loser: dict[int, int],
    rules: Rules,
    cube: int,
    owner: int | None,
    kind: ResultKind,
    level: int,
    multiplier: int,
) -> None:  # R21-R25
    for winner in (0, 1):
        game = Game.from_position(
            board({1: 1}, loser), player=winner, cube=cube, cube_owner=owner, dice=(2, 1), rules=rules
        )
        game.play("1/off")
        assert game.is_over() and game.phase is Phase.OVER  # R21
        result = game.result
        assert result is not None and game.winner == winner == result.winner
        assert (result.kind, result.level, result.multiplier) == (kind, level, multiplier)
        assert result.cube == cube and result.points == cube * multiplier
        assert game.events[-1] == GameEnd(result)
        assert game.legal_actions(0) == game.legal_actions(1) == frozenset()


def test_the_game_goes_on_until_the_last_checker_is_off() -> None:  # R21
    game = Game.from_position(board({1: 3}, {19: 15}), dice=(2, 1))
    game.play("1/off(2)")
    assert not game.is_over() and game.on_roll == 1


# -- R26-R30: the cube ------------------------------------------------------------------------


def test_cube_starts_centred_at_one() -> None:  # R26
    game = Game()
    assert game.cube_value == 1 and game.cube_owner is None


@pytest.mark.parametrize("first", [0, 1])
def test_either_player_may_double_a_centred_cube(first: int) -> None:  # R27
    game = at(Phase.ROLL, player=first)
    assert game.can_double() and game.can_double(first) and not game.can_double(1 - first)
    game.double(player=first)
    assert game.phase is Phase.CUBE and game.to_act == 1 - first and game.on_roll == first
    game.take(player=1 - first)  # R29
    assert game.cube_value == 2 and game.cube_owner == 1 - first
    assert game.legal_actions() == {Action.ROLL, Action.RESIGN} and game.to_act == first  # the doubler rolls
    assert game.events[-1] == Take(1 - first, 2)


def test_only_the_owner_may_redouble() -> None:  # R27
    owned_by_other = at(Phase.ROLL, player=0, cube=2, owner=1)
    assert not owned_by_other.can_double()
    with pytest.raises(IllegalActionError, match=r"player 1 owns the cube.*\(R27\)"):
        owned_by_other.double()
    own = at(Phase.ROLL, player=0, cube=2, owner=0)
    own.double()
    own.take()
    assert own.cube_value == 4 and own.cube_owner == 1


def test_double_only_before_rolling() -> None:  # R28
    game = at(Phase.PLAY)
    with pytest.raises(IllegalActionError, match=r"already rolled.*\(R28\)"):
        game.double()


def test_a_player_who_cannot_move_may_still_double() -> None:  # R28, R15
    game = Game.from_position(CLOSED, dice_source=ScriptedDice([(6, 5)]))
    game.double()
    game.take()
    game.roll()
    assert len(game.legal_moves()) == 0
    assert "no legal move" in game.status()
    game.play("")
    assert game.on_roll == 1 and game.events[-1] == Play(0, Move())


@pytest.mark.parametrize("cube, owner", [(1, None), (2, 0), (8, 0)])
def test_pass_loses_the_value_before_the_double(cube: int, owner: int | None) -> None:  # R29
    game = at(Phase.ROLL, player=0, cube=cube, owner=owner)
    game.double()
    game.pass_double(player=1)
    r = game.result
    assert r is not None and r.winner == 0 and r.kind is ResultKind.PASSED
    assert r.points == r.cube == cube and game.cube_value == cube


def test_drop_is_pass() -> None:  # R29
    game = at(Phase.CUBE)
    game.drop()
    assert game.result is not None and game.result.kind is ResultKind.PASSED


def test_cube_limit() -> None:  # R26
    rules = Rules(cube_limit=2)
    game = at(Phase.ROLL, rules=rules)
    game.double()
    game.take()
    assert game.cube_value == 2
    limited = at(Phase.ROLL, rules=rules, player=1, cube=2, owner=1)
    assert not limited.can_double()
    with pytest.raises(IllegalActionError, match=r"limit of 2 \(R26\)"):
        limited.double()
    assert at(Phase.ROLL, rules=Rules(cube_limit=1)).can_double() is False


def test_no_cube_limit_by_default() -> None:  # R26
    game = at(Phase.ROLL, cube=1 << 20, owner=0)
    game.double()
    game.take()
    assert game.cube_value == 1 << 21
    # the bots' view of it still works; only the Match ID cannot hold such a cube
    assert game.match_state().cube_value == 1 << 21
    with pytest.raises(BackgammonError, match="up to 32768"):
        game.match_id()


def test_beaver() -> None:  # R30
    game = at(Phase.CUBE, rules=Rules(beavers=True), player=0)
    assert Action.BEAVER in game.legal_actions()
    game.beaver(player=1)
    assert game.cube_value == 4 and game.cube_owner == 1
    assert game.phase is Phase.ROLL and game.to_act == 0  # the doubler rolls on


@pytest.mark.parametrize(
    "rules, cube, message",
    [
        (Rules(), 1, r"not allowed under these rules \(R30\)"),
        (Rules(beavers=True, match_length=5), 1, r"do not apply in a match \(R34\)"),
        (Rules(beavers=True, cube_limit=4), 2, r"past its limit of 4 \(R26\)"),
    ],
)
def test_beaver_refused(rules: Rules, cube: int, message: str) -> None:  # R30, R34
    game = at(Phase.CUBE, rules=rules, cube=cube, owner=None if cube == 1 else 0)
    before = game.copy()
    with pytest.raises(IllegalActionError, match=message):
        game.beaver()
    assert game == before
    game.take()  # a plain take is still fine


# -- R31: resignation -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "level, rules, owner, points",
    [
        (1, MONEY, 0, 2),
        ("single", MONEY, 0, 2),
        ("gammon", MONEY, 0, 4),
        (Resignation.BACKGAMMON, MONEY, 0, 6),
        (3, Rules(backgammon_counts_as_gammon=True), 0, 4),
        ("gammon", Rules(jacoby=True), None, 2),  # R25: the cube (2, automatic) is centred
        ("gammon", Rules(jacoby=True), 0, 4),
    ],
)
def test_resign_and_accept(level: Any, rules: Rules, owner: int | None, points: int) -> None:  # R31
    game = at(Phase.PLAY, rules=rules, player=1, cube=2, owner=owner)
    game.resign(level, player=1)
    assert game.phase is Phase.RESIGN and game.to_act == 0
    assert game.resignation is not None and game.resignation[0] == 1
    game.accept(player=0)
    r = game.result
    assert r is not None and r.winner == 0 and r.kind is ResultKind.RESIGNED and r.points == points


@pytest.mark.parametrize("phase", [Phase.ROLL, Phase.PLAY, Phase.CUBE])
def test_declined_resignation_resumes_play(phase: Phase) -> None:  # R31
    game = at(phase)
    before = (game.phase, game.to_act, game.dice, game.cube_value)
    resigner = game.to_act
    game.resign(2)
    assert game.to_act == 1 - resigner  # type: ignore[operator]
    game.decline()
    assert (game.phase, game.to_act, game.dice, game.cube_value) == before
    assert game.resignation is None


def test_resign_when_doubled_counts_the_cube_before_the_double() -> None:  # R31, R29
    game = at(Phase.CUBE, player=0, cube=2, owner=0)
    game.resign("gammon", player=1)
    game.accept(player=0)
    assert game.result is not None and game.result.points == 4 and game.result.winner == 0


@pytest.mark.parametrize("level", [0, 4, "triple", Resignation.NONE, None, 1.0])
def test_resign_level_must_be_one_to_three(level: Any) -> None:  # R31
    game = at(Phase.ROLL)
    with pytest.raises(IllegalActionError, match="single game, a gammon or a backgammon"):
        game.resign(level)
    assert game.phase is Phase.ROLL


# -- R33, R34: in a match -----------------------------------------------------------------


def test_no_double_in_the_crawford_game() -> None:  # R33
    game = at(Phase.ROLL, rules=Rules(match_length=5), score=(4, 2), crawford=True)
    assert game.crawford and not game.can_double()
    with pytest.raises(IllegalActionError, match=r"Crawford game \(R33\)"):
        game.double()
    assert game.legal_actions() == {Action.ROLL, Action.RESIGN}


def test_doubling_in_a_match_outside_the_crawford_game() -> None:  # R33
    game = at(Phase.ROLL, rules=Rules(match_length=5), score=(4, 2), crawford=False)
    assert game.can_double()


@pytest.mark.parametrize(
    "kwargs",
    [
        {"rules": Rules(), "crawford": True},
        {"rules": Rules(match_length=5), "score": (3, 2), "crawford": True},
        {"rules": Rules(match_length=5), "score": (5, 2)},
        {"rules": Rules(), "score": (-1, 0)},
        {"rules": Rules(), "score": (1,)},
        {"rules": "money"},
    ],
)
def test_bad_match_context(kwargs: dict[str, Any]) -> None:  # R32, R33
    with pytest.raises(BackgammonError):
        Game(**kwargs)


def test_money_only_options_are_off_in_a_match() -> None:  # R34
    rules = Rules(match_length=3, jacoby=True, beavers=True, automatic_doubles=True)
    assert not (rules.jacoby_applies or rules.beavers_apply or rules.automatic_doubles_apply)
    assert Rules(jacoby=True, beavers=True, automatic_doubles=True).automatic_doubles_apply


# -- every action is checked; a refused action changes nothing -------------------------------

ILLEGAL: list[tuple[str, Callable[[], Game], Callable[[Game], object], str]] = [
    (
        "double-before-opening",
        lambda: at(Phase.OPENING),
        lambda g: g.double(),
        r"opening roll comes first \(R4\)",
    ),
    ("play-before-opening", lambda: at(Phase.OPENING), lambda g: g.play("24/18"), "opening roll comes first"),
    ("resign-before-opening", lambda: at(Phase.OPENING), lambda g: g.resign(), "opening roll"),
    ("take-no-double", lambda: at(Phase.ROLL), lambda g: g.take(), "no double has been offered"),
    ("pass-no-double", lambda: at(Phase.ROLL), lambda g: g.pass_double(), "no double has been offered"),
    ("beaver-no-double", lambda: at(Phase.ROLL), lambda g: g.beaver(), "no double has been offered"),
    ("accept-nothing", lambda: at(Phase.ROLL), lambda g: g.accept(), "no resignation has been offered"),
    ("decline-nothing", lambda: at(Phase.PLAY), lambda g: g.decline(), "no resignation has been offered"),
    ("play-before-roll", lambda: at(Phase.ROLL), lambda g: g.play("24/18"), "roll the dice first"),
    ("roll-twice", lambda: at(Phase.PLAY), lambda g: g.roll(), "already rolled: play them"),
    ("double-after-roll", lambda: at(Phase.PLAY), lambda g: g.double(), r"\(R28\)"),
    ("roll-when-doubled", lambda: at(Phase.CUBE), lambda g: g.roll(), "double to 2 is offered"),
    ("redouble-when-doubled", lambda: at(Phase.CUBE), lambda g: g.double(), "take, pass first"),
    ("play-when-resigned", lambda: at(Phase.RESIGN), lambda g: g.play("24/18"), "resignation is offered"),
    ("take-when-resigned", lambda: at(Phase.RESIGN), lambda g: g.take(), "resignation is offered"),
    ("resign-twice", lambda: at(Phase.RESIGN), lambda g: g.resign(), "resignation is offered"),
    ("roll-when-over", lambda: at(Phase.OVER), lambda g: g.roll(), "the game is over"),
    ("resign-when-over", lambda: at(Phase.OVER), lambda g: g.resign(), "the game is over"),
    ("roll-out-of-turn", lambda: at(Phase.ROLL), lambda g: g.roll(player=1), r"player 0's turn.*\(R43\)"),
    ("double-out-of-turn", lambda: at(Phase.ROLL), lambda g: g.double(player=1), r"player 0's turn"),
    (
        "play-out-of-turn",
        lambda: at(Phase.PLAY, player=1),
        lambda g: g.play("13/9 13/11", player=0),
        "player 1's turn",
    ),
    ("take-own-double", lambda: at(Phase.CUBE), lambda g: g.take(player=0), "player 1's turn"),
    ("accept-own-resign", lambda: at(Phase.RESIGN), lambda g: g.accept(player=0), "player 1's turn"),
    ("resign-out-of-turn", lambda: at(Phase.PLAY), lambda g: g.resign(player=1), "player 0's turn"),
    ("no-player-2", lambda: at(Phase.ROLL), lambda g: g.roll(player=2), "players are 0 and 1"),
    ("double-owned", lambda: at(Phase.ROLL, cube=2, owner=1), lambda g: g.double(), r"\(R27\)"),
    (
        "double-crawford",
        lambda: at(Phase.ROLL, rules=Rules(match_length=3), score=(2, 0), crawford=True),
        lambda g: g.double(),
        r"\(R33\)",
    ),
    (
        "double-limit",
        lambda: at(Phase.ROLL, rules=Rules(cube_limit=4), cube=4, owner=0),
        lambda g: g.double(),
        r"\(R26\)",
    ),
    ("bad-dice", lambda: at(Phase.ROLL), lambda g: g.roll((0, 7)), "two numbers 1-6"),
    ("bad-dice-type", lambda: at(Phase.ROLL), lambda g: g.roll("31"), "two numbers 1-6"),  # type: ignore[arg-type]
    ("legal-moves-before-roll", lambda: at(Phase.ROLL), lambda g: g.legal_moves(), "roll the dice first"),
    ("undo-nothing", lambda: at(Phase.ROLL), lambda g: g.undo(), "nothing to undo"),
]


@pytest.mark.parametrize("build, action, message", [c[1:] for c in ILLEGAL], ids=[c[0] for c in ILLEGAL])
def test_illegal_actions_raise_and_change_nothing(
    build: Callable[[], Game], action: Callable[[Game], object], message: str
) -> None:
    game = build()
    before = game.copy()
    with pytest.raises(IllegalActionError, match=message) as info:
        action(game)
    assert f"Position ID {game.position_id()}" in str(info.value)
    assert game == before


def test_error_message_names_the_action_and_the_position() -> None:
    game = at(Phase.PLAY, player=1)
    with pytest.raises(IllegalActionError) as info:
        game.double(player=1)
    assert str(info.value) == (
        "double by player 1: the dice are already rolled; a double comes before the roll (R28) "
        f"[Position ID {START.position_id()}]"
    )


@pytest.mark.parametrize("move", ["24/17", "13/9 13/9", Move.parse("24/20 24/20"), "6/4 4/2 2/off", "bar/22"])
def test_illegal_plays_raise_and_change_nothing(move: Move | str) -> None:  # R8, R11, R13, R16
    game = at(Phase.PLAY)
    before = game.copy()
    with pytest.raises(IllegalMoveError) as info:
        game.play(move)
    assert START.position_id() in str(info.value)
    assert game == before


def test_empty_play_is_refused_when_a_play_exists() -> None:  # R11
    game = at(Phase.PLAY)
    with pytest.raises(IllegalMoveError, match="a play is required"):
        game.play(Move())
    with pytest.raises(IllegalMoveError, match="a play is required"):
        game.play("")


def test_no_legal_play_needs_the_empty_play() -> None:  # R11, R15
    game = Game.from_position(CLOSED, dice=(6, 6))
    assert len(game.legal_moves()) == 0
    before = game.copy()
    with pytest.raises(IllegalMoveError, match="no legal play"):
        game.play("bar/19")
    assert game == before
    game.play(Move())
    assert game.on_roll == 1 and game.phase is Phase.ROLL


def test_plays_as_text_or_move_in_any_order() -> None:  # R12
    for text in ("13/7 8/7", "8/7 13/7", "13-7, 8-7", "8/7* 13/7"):
        game = opened(0, (6, 1))
        if "*" in text:
            with pytest.raises(IllegalMoveError):
                game.play(text)
            continue
        game.play(text)
        assert game.events[-1] == Play(0, Move.parse("13/7 8/7"))


def test_a_hit_need_not_be_marked() -> None:  # R10, R12
    pos = board({13: 2, 8: 1, 6: 5}, {7: 1, 19: 5})
    game = Game.from_position(pos, dice=(6, 1))
    game.play(Move([Step(13, 7), Step(8, 7)]))  # no hit flag, same position as 13/7* 8/7
    played = game.events[-1]
    assert isinstance(played, Play) and played.player == 0
    assert played.move in pos.legal_moves((6, 1))  # logged as the legal play generated
    assert game.board(1).bar() == (1, 0)


def test_exhausted_dice_change_nothing() -> None:
    game = at(Phase.ROLL)
    game._source = ScriptedDice([4])  # one die left
    before = game.copy()
    with pytest.raises(DiceExhaustedError):
        game.roll()
    assert game == before
    opening = Game(dice=ScriptedDice([(3, 3), 5]))
    before = opening.copy()
    with pytest.raises(DiceExhaustedError):
        opening.roll()
    assert opening == before and opening.events == ()


# -- the board from either side, ids ---------------------------------------------------------


def test_board_from_either_player() -> None:
    game = opened(1, (6, 5))
    game.play("24/13")
    assert game.on_roll == 0
    assert game.board(0) == game.position and game.board(1) == game.position.swap()
    assert game.pip_count() == (167, 156)
    with pytest.raises(BackgammonError):
        game.board(2)


def test_match_state_follows_the_phases() -> None:
    game = at(Phase.OPENING, rules=Rules(match_length=7), score=(2, 5))
    assert game.match_state().game_state is GameState.NO_GAME
    game.roll((5, 2))
    s = game.match_state()
    assert (s.player_on_roll, s.turn, s.dice, s.game_state, s.score, s.match_length) == (
        0,
        0,
        (5, 2),
        GameState.PLAYING,
        (2, 5),
        7,
    )
    game.play("13/8 13/11")
    game.double()
    s = game.match_state()
    assert s.double_offered and (s.player_on_roll, s.turn) == (1, 0)
    game.take()
    game.resign(2)
    s = game.match_state()
    assert s.resignation is Resignation.GAMMON and s.turn == 0 and s.cube_owner == 0 and s.cube_value == 2
    game.accept()
    assert game.match_state().game_state is GameState.RESIGNED
    assert MatchState.from_match_id(game.match_id()) == game.match_state()
    dropped = at(Phase.OVER)
    assert dropped.match_state().game_state is GameState.DROPPED


def test_match_id_of_the_opening() -> None:
    game = Game(dice=ScriptedDice([(1, 6)]))
    game.roll()
    assert game.match_id() == MatchState(player_on_roll=1, turn=1, dice=(6, 1), jacoby=False).to_match_id()


@pytest.mark.parametrize(
    "xgid",
    [
        "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:0:0:0:7:10",
        "XGID=-b----E-C---eE---c-e----B-:1:-1:-1:D:3:2:0:7:10",
        "XGID=-b----E-C---eE---c-e----B-:2:1:1:00:0:0:3:0:10",
        "XGID=-b----E-C---eE---c-e----B-:0:0:-1:00:4:2:1:5:10",
    ],
)
def test_xgid_round_trip(xgid: str) -> None:
    game = Game.from_xgid(xgid)
    assert game.xgid() == xgid
    replayed = Game.from_json(game.to_json())
    assert replayed == game and replayed.xgid() == xgid


def test_from_xgid_options() -> None:
    game = Game.from_xgid("XGID=-b----E-C---eE---c-e----B-:2:1:1:00:0:0:3:0:10")
    assert game.rules.jacoby and game.rules.beavers and game.cube_owner == 1 and game.cube_value == 4
    crawford = Game.from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:-1:00:4:2:1:5:10")
    assert (
        crawford.crawford and crawford.score == (2, 4) and crawford.on_roll == 0 and not crawford.can_double()
    )
    with pytest.raises(InvalidIdError):
        Game.from_xgid("XGID=nonsense")
    with pytest.raises(IllegalActionError, match="beaver"):
        Game.from_xgid("XGID=-b----E-C---eE---c-e----B-:1:0:1:B:0:0:2:0:10")
    with pytest.raises(IllegalActionError):
        Game().xgid()


@pytest.mark.parametrize(
    "kwargs, error",
    [
        ({"cube": 3}, IllegalActionError),
        ({"cube": 1, "cube_owner": 0}, IllegalActionError),
        ({"cube": 2, "cube_owner": 2}, IllegalActionError),
        ({"player": 2}, IllegalActionError),
        ({"dice": (0, 3)}, IllegalActionError),
        ({"dice": (3, 1), "double_offered": True}, IllegalActionError),
        ({"cube": 2, "cube_owner": 1, "double_offered": True}, IllegalActionError),
        ({"cube": 8, "rules": Rules(cube_limit=4)}, IllegalActionError),
        (
            {"cube": 2, "cube_owner": 0, "rules": Rules(match_length=3), "score": (2, 0), "crawford": True},
            IllegalActionError,
        ),
        ({"position": board({}, {19: 15})}, InvalidPositionError),
    ],
)
def test_from_position_checks(kwargs: dict[str, Any], error: type[Exception]) -> None:
    position = kwargs.pop("position", START)
    with pytest.raises(error):
        Game.from_position(position, **kwargs)


# -- the log: JSON, replay, undo ---------------------------------------------------------------


def scripted_game() -> Game:
    game = Game(
        Rules(automatic_doubles=True, beavers=True), dice=ScriptedDice([(2, 2), (3, 1), (6, 4), (5, 5)])
    )
    game.roll()
    game.play("8/5 6/5")
    game.double()
    game.beaver()
    game.roll()
    game.play("24/14")
    game.resign(1)
    game.decline()
    game.roll()
    return game


def test_log_of_a_game() -> None:
    game = scripted_game()
    assert [e.type for e in game.events] == [
        "opening_roll",
        "automatic_double",
        "opening_roll",
        "play",
        "double",
        "beaver",
        "roll",
        "play",
        "resign",
        "decline",
        "roll",
    ]
    assert game.cube_value == 8 and game.cube_owner == 0


def test_json_round_trip_and_replay() -> None:
    game = scripted_game()
    data = json.loads(game.to_json())
    assert data["format"] == "backgammon-game" and data["version"] == 1
    assert data["rules"] == game.rules.to_dict()
    assert Game.from_json(game.to_json()) == game
    assert Game.replay(game.events, game.rules) == game
    game.play(game.legal_moves()[0])
    game.resign(3)
    game.accept()
    assert Game.from_json(game.to_json(indent=2)) == game


def test_replay_continues_with_a_new_source() -> None:
    game = scripted_game()
    again = Game.from_json(game.to_json(), dice=ScriptedDice([(2, 1)]))
    again.play(again.legal_moves()[0])
    again.roll()
    assert again.dice == (2, 1)


def tamper(game: Game, index: int, value: dict[str, Any] | None) -> str:
    data = game.to_dict()
    if value is None:
        del data["events"][index]
    else:
        data["events"][index] = value
    return json.dumps(data)


@pytest.mark.parametrize(
    "index, value, error",
    [
        (6, {"type": "roll", "player": 1, "dice": [1, 1]}, IllegalMoveError),  # 24/14 is not a 1-1
        (6, {"type": "roll", "player": 0, "dice": [6, 4]}, IllegalActionError),  # out of turn
        (1, None, BackgammonError),  # the automatic double is missing
        (5, {"type": "take", "player": 1, "cube": 4}, IllegalActionError),  # player 0 must answer
        (5, {"type": "take", "player": 0, "cube": 8}, BackgammonError),  # a take makes the cube 4, not 8
        (9, {"type": "accept", "player": 0}, BackgammonError),  # then no game_end follows
        (
            0,
            {
                "type": "game_end",
                "result": {
                    "winner": 0,
                    "kind": "single",
                    "level": 1,
                    "cube": 1,
                    "multiplier": 1,
                    "points": 1,
                },
            },
            BackgammonError,
        ),
    ],
)
def test_a_tampered_log_does_not_replay(
    index: int, value: dict[str, Any] | None, error: type[Exception]
) -> None:
    text = tamper(scripted_game(), index, value)
    with pytest.raises(error):
        Game.from_json(text)


@pytest.mark.parametrize(
    "data",
    [
        "[]",
        '{"format": "backgammon-match", "version": 1}',
        '{"format": "backgammon-game", "version": 99}',
        '{"format": "backgammon-game", "version": 1, "rules": {"bogus": true}}',
        '{"format": "backgammon-game", "version": 1, "events": {}}',
        (
            '{"format": "backgammon-game", "version": 1, "events": [{"type": "game_start", "number": 1, '
            '"score": [0, 0], "crawford": false}]}'
        ),
        "not json",
    ],
)
def test_bad_json(data: str) -> None:
    with pytest.raises(BackgammonError):
        Game.from_json(data)


def test_undo_takes_back_the_last_action() -> None:  # R42
    game = opened(0, (3, 1), more=((6, 6),))
    before = game.copy()
    game.play("8/5 6/5")
    assert game.undo() == (Play(0, Move.parse("8/5 6/5")),)
    assert game == before
    game.play("24/23 13/10")
    game.roll()
    assert game.undo() == (Roll(1, (6, 6)),)
    assert game.phase is Phase.ROLL and game.dice is None


def test_undo_of_the_end_and_of_a_setup() -> None:
    game = Game.from_position(board({1: 1}, {19: 15}), dice=(6, 1))
    game.play("1/off")
    assert game.is_over()
    removed = game.undo()
    assert [e.type for e in removed] == ["play", "game_end"]
    assert game.phase is Phase.PLAY and game.result is None
    with pytest.raises(IllegalActionError, match="nothing to undo"):
        Game.from_position(START).undo()


def test_copy_is_independent() -> None:
    game = scripted_game()
    twin = game.copy()
    assert twin == game
    twin.play(twin.legal_moves()[0])
    assert twin != game and len(game.events) == len(twin.events) - 1
    assert game != "a game"


def test_text() -> None:
    game = opened(0, (3, 1))
    assert "Position ID" in str(game)
    assert game.status() == "player 0 to play 3-1; cube 1 centred"
    game.play("8/5 6/5")
    assert game.status() == "player 1 to roll or double; cube 1 centred"
    game.double()
    assert "player 1 doubles to 2: player 0 to take or pass" in game.status()
    game.resign(2)
    assert "player 0 offers to resign a gammon: player 1 to accept or decline" in game.status()
    game.accept()
    assert game.status() == "player 1 wins by resignation (gammon): 2 points; cube 1 centred"
    assert "events=" in repr(game)


# -- property tests: random games to the end ----------------------------------------------------


class Tracker:
    """Checks the invariants of a game played action by action."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.off = [15 - sum(game.board(p).player) for p in (0, 1)]

    def check_checkers(self) -> None:
        for p in (0, 1):
            side = self.game.board(p).player
            assert sum(side) + self.off[p] == 15  # R1: 15 checkers a side, none made or lost

    def play(self, move: Move | str) -> None:
        game = self.game
        mover = game.on_roll
        assert mover is not None and game.dice is not None
        a, b = game.dice
        before = game.board(mover)
        game.play(move)
        played = [e for e in game.events[-2:] if isinstance(e, Play)][-1]
        assert played.player == mover
        m = played.move
        after = game.board(mover)
        # the mover's pips drop by exactly the pips moved, bar entry and bearing off included
        assert before.pip_count()[0] - after.pip_count()[0] == m.pips
        # the opponent's pips grow by what was hit: a blot on my point p goes 25 - p -> 25
        # (each point is hit at most once; gnubg-style notation marks every landing there)
        assert after.pip_count()[1] - before.pip_count()[1] == sum({s.dst for s in m.steps if s.hit})
        # the dice used: whole dice, except a die larger than needed bearing off (R18)
        used = {a, b, a + b} if a != b else {a * k for k in (1, 2, 3, 4)}
        if any(s.dst == OFF for s in m.steps):
            assert 0 < m.pips <= (a + b if a != b else 4 * a)
        elif m.is_pass():
            assert len(before.legal_moves((a, b))) == 0
        else:
            assert m.pips in used
        self.off[mover] += sum(1 for s in m.steps if s.dst == OFF)
        self.check_checkers()


def random_move_text(rng: random.Random) -> str:
    a, b = rng.randint(0, 25), rng.randint(0, 25)
    return f"{max(a, b)}/{min(a, b)}"


def try_illegal(game: Game, rng: random.Random) -> None:
    """Attempt a random action that is not allowed now; it must raise and change nothing."""
    before = game.copy()
    player = rng.choice([None, 0, 1])
    banned = [a for a in Action if a not in game.legal_actions(player)]
    if game.phase is Phase.PLAY and (player is None or player == game.on_roll) and rng.random() < 0.5:
        legal = set(game.legal_moves().positions())
        other = game.position.legal_moves((rng.randint(1, 6), rng.randint(1, 6)))
        wrong = [m for i, m in enumerate(other) if other.position(i) not in legal]
        if wrong:
            with pytest.raises(IllegalMoveError):
                game.play(rng.choice(wrong), player=player)
            assert game == before
        return
    if not banned:
        return
    action = rng.choice(banned)
    with pytest.raises(IllegalActionError):
        if action is Action.ROLL:
            game.roll(player=player)
        elif action is Action.PLAY:
            game.play(random_move_text(rng), player=player)
        elif action is Action.DOUBLE:
            game.double(player=player)
        elif action is Action.TAKE:
            game.take(player=player)
        elif action is Action.PASS:
            game.pass_double(player=player)
        elif action is Action.BEAVER:
            game.beaver(player=player)
        elif action is Action.RESIGN:
            game.resign(rng.randint(1, 3), player=player)
        elif action is Action.ACCEPT:
            game.accept(player=player)
        else:
            game.decline(player=player)
    assert game == before


def random_action(game: Game, rng: random.Random, tracker: Tracker | None = None) -> None:
    """Take one random legal action (mostly sensible: a little cube action, rare resigns)."""
    phase = game.phase
    r = rng.random()
    player = game.to_act if rng.random() < 0.5 else None
    if phase is Phase.OPENING or phase is Phase.ROLL:
        if phase is Phase.ROLL and r < 0.03 and game.can_double():
            game.double(player=player)
        elif phase is Phase.ROLL and 0.03 <= r < 0.032:
            game.resign(rng.randint(1, 3), player=player)
        else:
            game.roll(player=player)
    elif phase is Phase.PLAY:
        if r < 0.002:
            game.resign(rng.randint(1, 3))
            return
        legal = game.legal_moves()
        move: Move | str = legal[rng.randrange(len(legal))] if len(legal) else Move()
        if rng.random() < 0.3:
            move = str(move)
        if tracker is not None:
            tracker.play(move)
        else:
            game.play(move)
    elif phase is Phase.CUBE:
        if r < 0.1 and Action.BEAVER in game.legal_actions():
            game.beaver(player=player)
        elif r < 0.25:
            game.pass_double(player=player)
        elif r < 0.27:
            game.resign(rng.randint(1, 3))
        else:
            game.take(player=player)
    elif phase is Phase.RESIGN:
        if r < 0.5:
            game.accept(player=player)
        else:
            game.decline(player=player)


def check_result(game: Game) -> None:
    r = game.result
    assert r is not None and game.is_over() and r.winner in (0, 1)
    assert r.points == r.cube * r.multiplier and 1 <= r.multiplier <= r.level <= 3
    assert r.cube == game.cube_value
    if r.kind in (ResultKind.SINGLE, ResultKind.GAMMON, ResultKind.BACKGAMMON):
        winner, loser = game.board(r.winner), game.board(r.loser)
        assert winner.borne_off()[0] == 15 and loser.borne_off()[0] < 15  # R21
        if loser.borne_off()[0]:
            assert r.kind is ResultKind.SINGLE  # R22
        elif any(loser.player[18:25]):
            assert r.kind is ResultKind.BACKGAMMON  # R24
        else:
            assert r.kind is ResultKind.GAMMON  # R23
    elif r.kind is ResultKind.PASSED:
        assert r.level == r.multiplier == 1
    assert isinstance(game.events[-1], GameEnd) and game.events[-1].result == r


rules_strategy = st.builds(
    Rules,
    opening_reroll=st.booleans(),
    automatic_doubles=st.booleans(),
    automatic_double_limit=st.integers(0, 3),
    jacoby=st.booleans(),
    beavers=st.booleans(),
    backgammon_counts_as_gammon=st.booleans(),
    cube_limit=st.sampled_from([None, None, 1, 2, 8, 64]),
)


@st.composite
def contexts(draw: st.DrawFn) -> tuple[Rules, tuple[int, int], bool]:
    rules = draw(rules_strategy)
    n = draw(st.sampled_from([0, 0, 1, 3, 7]))
    if not n:
        return rules, (0, 0), False
    rules = Rules(**{**rules.to_dict(), "match_length": n})
    crawford = n > 1 and draw(st.booleans())
    score = (
        (n - 1, draw(st.integers(0, n - 1)))
        if crawford
        else (draw(st.integers(0, n - 1)), draw(st.integers(0, n - 1)))
    )
    return rules, score, crawford


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(contexts(), st.integers(0, 2**32))
def test_random_games_to_the_end(context: tuple[Rules, tuple[int, int], bool], seed: int) -> None:
    rules, score, crawford = context
    rng = random.Random(seed)
    game = Game(rules, dice=SeededDice(seed), score=score, crawford=crawford)
    tracker = Tracker(game)
    midway = rng.randrange(1, 80)
    steps = 0
    while not game.is_over():
        if rng.random() < 0.25:
            try_illegal(game, rng)
        random_action(game, rng, tracker)
        tracker.check_checkers()
        steps += 1
        if steps == midway:
            assert Game.from_json(game.to_json()) == game
        assert steps < 5000
    check_result(game)
    if crawford:
        assert not any(e.type in ("double", "take", "beaver", "pass") for e in game.events)  # R33
    try_illegal(game, rng)
    replayed = Game.from_json(game.to_json())
    assert replayed == game
    assert Game.replay(game.events, rules, score=score, crawford=crawford) == game


@settings(max_examples=15, deadline=None)
@given(st.integers(0, 2**32))
def test_undo_then_redo_is_the_same_game(seed: int) -> None:  # R42
    rng = random.Random(seed)
    game = Game(Rules(beavers=True, jacoby=True), dice=SeededDice(seed))
    while not game.is_over() and len(game.events) < rng.randrange(5, 60):
        random_action(game, rng)
    before = game.copy()
    removed = game.undo()
    assert len(game.events) == len(before.events) - len(removed)
    redone = Game.replay([*game.events, *removed], game.rules)
    assert redone == before
