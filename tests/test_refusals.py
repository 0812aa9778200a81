"""Refusals: why an action is not allowed, as data (:class:`backgammon.errors.Refusal`), for
games, matches, chouettes and plays. Each test names the rule the refusal cites."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest

from backgammon.bots import load
from backgammon.chouette import Chouette, ChouetteAction
from backgammon.chouette import ChouettePhase as P
from backgammon.dice import ScriptedDice, SeededDice
from backgammon.errors import (
    AmbiguousMoveError,
    BackgammonError,
    IllegalActionError,
    IllegalMoveError,
    InvalidMoveError,
    Refusal,
)
from backgammon.game import Action, Game
from backgammon.match import Match
from backgammon.move import Move
from backgammon.position import Position
from backgammon.rules import Rules
from tests.test_chouette import box_to_roll, random_step, seated, team_to_roll

A = ChouetteAction
PID = re.compile(r"[A-Za-z0-9+/]{14}")


def clean(refusal: Refusal) -> None:
    """A refusal's reason is a sentence for a person: no Position ID, no rule number."""
    assert refusal.reason and "Position ID" not in refusal.reason and "(R" not in refusal.reason
    assert not PID.search(refusal.reason), refusal.reason
    assert not refusal.reason.rstrip().endswith((",", ";", ":")), refusal.reason
    assert refusal.rule is None or re.fullmatch(r"R\d+", refusal.rule)


def at(**kwargs: object) -> Game:
    """A game set up at the opening position (player 0 on roll unless said otherwise)."""
    return Game.from_position(Position.initial(), **kwargs)  # type: ignore[arg-type]


def refused(game: Game | Chouette, call: Callable[[], object]) -> Refusal:
    """``call`` raises IllegalActionError and changes nothing in ``game`` (a game or a
    chouette); returns its refusal."""
    before, text = game.copy(), game.to_json()
    with pytest.raises(IllegalActionError) as info:
        call()
    assert game == before and game.to_json() == text
    assert info.value.refusal is not None
    clean(info.value.refusal)
    return info.value.refusal


# -- a game ----------------------------------------------------------------------------------


def test_double_in_the_crawford_game_R33() -> None:
    g = at(rules=Rules(match_length=3), score=(2, 0), crawford=True)
    r = g.why_not(Action.DOUBLE)
    assert r == Refusal("double", 0, "R33", "nobody may double in the Crawford game")
    assert refused(g, g.double) == r
    assert not g.can_double() and Action.DOUBLE not in g.legal_actions()


def test_only_the_owner_redoubles_R27() -> None:
    g = at(cube=2, cube_owner=1)
    r = g.why_not("double")
    assert r is not None and (r.action, r.player, r.rule) == ("double", 0, "R27")
    assert r.reason == "player 1 owns the cube; only its owner may redouble"
    assert refused(g, lambda: g.double(player=0)) == r


def test_cube_limit_R26() -> None:
    g = at(cube=2, cube_owner=0, rules=Rules(cube_limit=2))
    r = refused(g, g.double)
    assert (r.action, r.player, r.rule) == ("double", 0, "R26")


def test_double_after_the_roll_R28() -> None:
    g = Game(dice=ScriptedDice([(3, 1)]))
    g.roll()
    r = refused(g, g.double)
    assert r == Refusal("double", 0, "R28", "the dice are already rolled; a double comes before the roll")
    assert str(r) in str(g.why_not(Action.DOUBLE))


def test_double_after_the_roll_in_the_crawford_game_R33() -> None:
    g = at(rules=Rules(match_length=3), score=(2, 0), crawford=True, dice=(3, 1))
    r = refused(g, g.double)
    assert r == Refusal("double", 0, "R33", "nobody may double in the Crawford game")
    assert g.why_not(Action.DOUBLE) == r


def test_double_after_the_roll_by_the_cube_owners_opponent_R27() -> None:
    g = at(cube=2, cube_owner=1, dice=(3, 1))
    r = refused(g, g.double)
    assert r == Refusal("double", 0, "R27", "player 1 owns the cube; only its owner may redouble")


def test_double_after_the_roll_at_the_cube_limit_R26() -> None:
    g = at(cube=2, cube_owner=0, rules=Rules(cube_limit=2), dice=(3, 1))
    r = refused(g, g.double)
    assert (r.action, r.player, r.rule) == ("double", 0, "R26")


def test_a_pending_resignation_comes_before_the_crawford_rule_R31() -> None:
    g = at(rules=Rules(match_length=3), score=(2, 0), crawford=True, dice=(3, 1))
    g.resign(1)
    r = g.why_not(Action.DOUBLE)
    assert r is not None and r.reason == "a resignation is offered: accept or decline it first"


def test_take_without_a_double_R29() -> None:
    g = at()
    r = refused(g, g.take)
    assert (r.action, r.player, r.rule, r.reason) == ("take", 0, None, "no double has been offered")


def test_beaver_refused_R30_R34() -> None:
    money = at(double_offered=True)
    r = refused(money, money.beaver)
    assert (r.action, r.player, r.rule) == ("beaver", 1, "R30")
    match = at(double_offered=True, rules=Rules(match_length=5, beavers=True))
    r = refused(match, match.beaver)
    assert (r.action, r.player, r.rule) == ("beaver", 1, "R34")
    assert r.reason == "beavers do not apply in a match"


def test_acting_out_of_turn_R43() -> None:
    g = at()
    r = refused(g, lambda: g.roll(player=1))
    assert r == Refusal("roll", 1, "R43", "it is player 0's turn to act, not player 1's")
    assert g.why_not(Action.ROLL, player=1) == r
    assert g.why_not(Action.ROLL, player=0) is None


def test_before_the_opening_roll_R4() -> None:
    g = Game()
    r = refused(g, lambda: g.double(player=0))
    assert (r.action, r.player, r.rule) == ("double", 0, "R4")


def test_the_message_still_quotes_the_action_and_the_position_id() -> None:
    g = at(rules=Rules(match_length=3), score=(2, 0), crawford=True)
    with pytest.raises(IllegalActionError) as info:
        g.double()
    assert str(info.value) == (
        "double by player 0: nobody may double in the Crawford game (R33) [Position ID 4HPwATDgc/ABMA]"
    )


def test_other_refused_actions_carry_a_refusal() -> None:
    g = at()
    r = refused(g, lambda: g.roll((7, 1)))
    assert (r.action, r.player, r.reason) == ("roll", 0, "dice are two numbers 1-6")
    r = refused(g, g.undo)
    assert r.action == "undo"
    g.roll((3, 1))
    r = refused(g, lambda: g.resign(5))
    assert r.action == "resign" and r.player == 0
    m = Match(3)
    with pytest.raises(IllegalActionError) as info:
        m.undo()
    assert info.value.refusal == Refusal("undo", None, None, "there is nothing to undo")


# -- plays -------------------------------------------------------------------------------------


def play_refused(game: Game, move: str | Move, kind: type[BackgammonError] = IllegalMoveError) -> Refusal:
    before = game.copy()
    with pytest.raises(kind) as info:
        game.play(move)
    assert game == before
    r = info.value.refusal
    assert r is not None and r.action == "play" and r.player == game.on_roll
    clean(r)
    return r


def test_a_play_is_required_R11() -> None:
    g = at(player=1, dice=(6, 5))
    r = play_refused(g, "")
    assert r.rule == "R11" and r.player == 1
    assert re.fullmatch(r"with 6-5 a play is required: \S.* for example", r.reason)
    assert play_refused(g, Move()).rule == "R11"


def test_not_a_legal_play() -> None:
    g = at(dice=(6, 5))
    assert play_refused(g, "24/21") == Refusal("play", 0, None, "24/21 is not a legal play of 6-5 here")
    assert play_refused(g, Move.parse("24/21")).reason == "24/21 is not a legal play of 6-5 here"


def test_no_play_possible_R11() -> None:
    # player on roll with a checker on the bar against a closed board: no play at all (R15)
    p = Position([0] * 24 + [1], [2] * 6 + [0] * 18 + [0])
    g = Game.from_position(p, dice=(6, 5))
    assert not len(g.legal_moves())
    r = play_refused(g, "bar/20")
    assert r.rule == "R11"


def test_bad_notation_and_ambiguity() -> None:
    g = at(dice=(6, 5))
    r = play_refused(g, "24/x", InvalidMoveError)
    assert r.player == 0
    amb = Game.from_position(Position.initial(), dice=(1, 1))
    with pytest.raises((AmbiguousMoveError, IllegalMoveError)):
        amb.play("6/5")


@pytest.mark.parametrize(
    ("text", "dice", "reason", "rule"),
    [
        ("24/18 24/18 24/18", (6, 6), "24/18 24/18 24/18 moves checkers that are not there", None),
        ("13/7* 8/7", (6, 1), "13/7* 8/7 marks a hit where there is no blot", "R10"),
    ],
)
def test_bad_play_messages_are_clean_sentences(
    text: str, dice: tuple[int, int], reason: str, rule: str | None
) -> None:
    """No stray comma once the Position ID is left out: 'no blot,' / 'not there,' (R10)."""
    with pytest.raises(IllegalMoveError) as info:
        Position.initial().parse_move(text, dice)
    message = str(info.value)
    assert ", in" not in message and ",." not in message
    assert not re.sub(rf"\s+in {PID.pattern}", "", message).endswith(",")
    assert info.value.refusal == Refusal("play", None, rule, reason)
    g = at(dice=dice)
    assert play_refused(g, text).reason == reason


# -- why_not agrees with legal_actions, over random games ------------------------------------


def game_calls(g: Game) -> dict[Action, Callable[[], object]]:
    return {
        Action.ROLL: g.roll,
        Action.PLAY: lambda: g.play(""),
        Action.DOUBLE: g.double,
        Action.TAKE: g.take,
        Action.PASS: g.pass_double,
        Action.BEAVER: g.beaver,
        Action.RESIGN: lambda: g.resign(1),
        Action.ACCEPT: g.accept,
        Action.DECLINE: g.decline,
    }


@pytest.mark.parametrize("seed", range(4))
def test_why_not_is_none_exactly_for_legal_actions(seed: int) -> None:
    rng = random.Random(seed)
    bot = load("random", seed=seed)
    rules = Rules(beavers=seed % 2 == 0, cube_limit=8 if seed == 3 else None)
    g = Game(rules, dice=SeededDice(seed))
    for _ in range(300):
        if g.is_over():
            g = Game(rules, dice=SeededDice(rng.randrange(1000)))
        legal = g.legal_actions()
        for action in Action:
            for player in (None, 0, 1):
                r = g.why_not(action, player)
                assert (r is None) == (action in g.legal_actions(player))
                if r is not None:
                    clean(r)
                    assert r.action == action.value
                    assert r.player == (g.to_act if player is None else player)
        for action, call in game_calls(g).items():
            if action not in legal:
                r = refused(g, call)
                assert r == g.why_not(action)
        # a random legal action
        if Action.PLAY in legal:
            move = bot.choose_move(g.position, g.dice or (1, 1))
            g.play(move if move is not None else "")
            continue
        choice = rng.choice(sorted(legal, key=lambda a: a.value))
        if choice is Action.RESIGN and rng.random() < 0.8:
            choice = Action.ROLL if Action.ROLL in legal else choice
        game_calls(g)[choice]()


# -- a chouette --------------------------------------------------------------------------------


def test_team_double_needs_consent_R39() -> None:
    c = team_to_roll()
    c.propose_double(player="dee")
    r = refused(c, lambda: c.roll(player="bob"))
    assert r == Refusal("roll", "bob", "R39", "a double proposed by dee awaits the consent of bob, cy")
    assert c.why_not(A.ROLL, "bob") == r
    r = refused(c, lambda: c.consent(player="ann"))
    assert r == Refusal("consent", "ann", "R39", "the box has no say in the team's double")


def test_box_double_answered_alone_R40() -> None:
    c = box_to_roll()
    c.box_double(player="ann")
    r = refused(c, lambda: c.roll(player="ann"))
    assert (r.action, r.player, r.rule) == ("roll", "ann", "R40")
    assert r.reason == "the box has doubled: bob, cy, dee must take or pass first"


def test_only_the_captain_rolls_R36_and_the_opening_R4() -> None:
    c = team_to_roll()
    r = refused(c, lambda: c.roll(player="cy"))
    assert (r.action, r.player, r.rule) == ("roll", "cy", "R36")
    fresh = seated()
    r = refused(fresh, lambda: fresh.roll(player="cy"))
    assert (r.action, r.player, r.rule) == ("roll", "cy", "R4")


def test_double_on_ones_own_turn_R28_and_cube_owner_R27() -> None:
    c = team_to_roll()
    r = refused(c, lambda: c.box_double(player="ann"))
    assert (r.action, r.player, r.rule) == ("double", "ann", "R28")
    c = team_to_roll()
    c.propose_double(player="bob")
    c.consent(player="cy")
    c.consent(player="dee")
    c.take(player="ann")  # the box owns every member's cube
    roll_and_play(c, "bob")
    roll_and_play(c, "ann")
    r = refused(c, lambda: c.propose_double(player="cy"))
    assert (r.action, r.player, r.rule) == ("propose_double", "cy", "R27")


def roll_and_play(c: Chouette, who: str) -> None:
    c.roll((3, 1), player=who)
    legal = c.legal_moves()
    c.play(legal[0] if len(legal) else "", player=who)


def test_beaver_refused_R30() -> None:
    c = box_to_roll()
    c.box_double(player="ann")
    r = refused(c, lambda: c.beaver(player="bob"))
    assert (r.action, r.player, r.rule) == ("beaver", "bob", "R30")


def test_beaver_named_only_when_allowed_R30() -> None:
    """A chouette without beavers says 'take or pass', with beavers 'take, pass or beaver'."""
    off = box_to_roll()
    off.box_double(player="ann")
    assert "must take or pass first (R40)" in off.status() and "beaver" not in off.status()
    on = box_to_roll(Rules(beavers=True))
    on.box_double(player="ann")
    assert "must take, pass or beaver first (R40)" in on.status()
    limited = box_to_roll(Rules(beavers=True, cube_limit=2))
    limited.box_double(player="ann")
    assert "beaver" not in limited.status()
    team = team_to_roll()
    team.double(player="bob")
    team.consent(player="cy")
    team.consent(player="dee")
    assert "the box (ann) must take or pass first" in team.status()
    r = refused(team, lambda: team.roll(player="bob"))
    assert r.reason == "the team has doubled: the box (ann) must take or pass first"


def test_resign_on_ones_own_turn_R31_and_not_a_player() -> None:
    c = team_to_roll()
    r = refused(c, lambda: c.resign(player="ann"))
    assert (r.action, r.player, r.rule) == ("resign", "ann", "R31")
    r = refused(c, lambda: c.roll(player="zed"))
    assert (r.action, r.player) == ("roll", "zed")
    with pytest.raises(IllegalActionError):
        c.why_not(A.ROLL, "zed")
    r = refused(c, c.next_game)
    assert r == Refusal("next_game", None, None, "the game is not over")


def test_chouette_illegal_play_names_the_player() -> None:
    c = team_to_roll()
    c.roll((6, 5), player="bob")
    with pytest.raises(IllegalMoveError) as info:
        c.play("24/21", player="bob")
    assert info.value.refusal == Refusal("play", "bob", None, "24/21 is not a legal play of 6-5 here")


def chouette_calls(c: Chouette, who: str) -> dict[ChouetteAction, Callable[[], object]]:
    return {
        A.ROLL: lambda: c.roll(player=who),
        A.PLAY: lambda: c.play("", player=who),
        A.DOUBLE: lambda: c.box_double(player=who),
        A.PROPOSE_DOUBLE: lambda: c.propose_double(player=who),
        A.CONSENT: lambda: c.consent(player=who),
        A.REFUSE: lambda: c.refuse(player=who),
        A.TAKE: lambda: c.take(player=who),
        A.PASS: lambda: c.pass_double(player=who),
        A.BEAVER: lambda: c.beaver(player=who),
        A.RESIGN: lambda: c.resign(player=who),
        A.ACCEPT: lambda: c.accept(player=who),
        A.DECLINE: lambda: c.decline(player=who),
        A.NEXT_GAME: c.next_game,
    }


@pytest.mark.parametrize("seed", range(3))
def test_chouette_why_not_is_none_exactly_for_legal_actions(seed: int) -> None:
    rng = random.Random(seed)
    bot = load("random", seed=seed)
    c = Chouette(["ann", "bob", "cy", "dee"], Rules(beavers=seed != 1), dice=SeededDice(seed))
    for step in range(150):
        for who in c.players:
            legal = c.legal_actions(who)
            for action in ChouetteAction:
                r = c.why_not(action, who)
                assert (r is None) == (action in legal)
                if r is not None:
                    clean(r)
                    assert (r.action, r.player) == (action.value, who)
            if step % 10 == 0:
                for action, call in chouette_calls(c, who).items():
                    if action not in legal:
                        r = refused(c, call)
                        expected = c.why_not(action, who)
                        assert expected is not None
                        if action is A.NEXT_GAME:  # next_game() names nobody
                            expected = Refusal(expected.action, None, expected.rule, expected.reason)
                        assert r == expected
        if c.phase is P.OVER:
            c.next_game()
        else:
            random_step(c, rng, bot)
