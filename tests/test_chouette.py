"""Chouette sessions (R35-R41): seating, rotation, team and box cubes, settlement, the log."""

from __future__ import annotations

import functools
import json
import random
from collections.abc import Callable, Sequence

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backgammon.bots import Bot, load
from backgammon.chouette import (
    AutomaticDouble,
    Chouette,
    ChouetteAction,
    ChouettePhase,
    GameOver,
    NewCaptain,
    Payment,
    RollOff,
    Side,
    TeamDouble,
    chouette_event_from_dict,
)
from backgammon.dice import ScriptedDice, SeededDice
from backgammon.errors import BackgammonError, IllegalActionError, IllegalMoveError
from backgammon.events import ResultKind
from backgammon.rules import Rules

A = ChouetteAction
P = ChouettePhase
FOUR = ["ann", "bob", "cy", "dee"]
# Roll-off dice for FOUR: ann 6, bob 5, cy 4, dee 3 -> ann in the box, bob captain, then cy, dee.
SEATED = [6, 5, 4, 3]


# -- helpers --------------------------------------------------------------------------------


def seated(rules: Rules | None = None, *script: int | tuple[int, int]) -> Chouette:
    """FOUR seated as ann (box) v bob (captain), cy, dee; ``script`` are the dice after that."""
    return Chouette(FOUR, rules, dice=ScriptedDice([*SEATED, *script]))


def play_any(c: Chouette) -> None:
    """The side on roll plays its first legal play (the empty play when there is none)."""
    legal = c.legal_moves()
    c.play(legal[0] if len(legal) else "", player=c.on_roll or "")


def box_to_roll(rules: Rules | None = None, *script: int | tuple[int, int]) -> Chouette:
    """Game 1 after the team won the opening (2-1, played by the captain): the box to roll."""
    c = seated(rules, *script)
    c.roll((1, 2), player="ann")  # the box throws 1, the captain 2 (R4)
    c.play("13/11 6/5", player="bob")
    assert c.phase is P.ROLL and c.on_roll == "ann"
    return c


def team_to_roll(rules: Rules | None = None, *script: int | tuple[int, int]) -> Chouette:
    """Game 1 after the box won the opening (2-1, played by the box): the team to roll."""
    c = seated(rules, *script)
    c.roll((2, 1), player="bob")
    c.play("13/11 6/5", player="ann")
    assert c.phase is P.ROLL and c.on_roll == "bob"
    return c


def unchanged(c: Chouette, action: Callable[[], object], *fragments: str) -> IllegalActionError:
    """``action`` raises IllegalActionError whose message holds ``fragments``; nothing changes."""
    before, text, status = c.copy(), c.to_json(), c.status()
    with pytest.raises(IllegalActionError) as info:
        action()
    for fragment in fragments:
        assert fragment in str(info.value)
    assert c == before and c.to_json() == text and c.status() == status
    return info.value


def payments(c: Chouette) -> list[tuple[str, str, int, str]]:
    return [(e.payer, e.payee, e.points, e.kind.value) for e in c.events if isinstance(e, Payment)]


def roles_partition(c: Chouette) -> None:
    """Every player has exactly one role: the box, the captain, or the rest of the line."""
    groups = [[c.box], [c.captain], list(c.line[1:])]
    everyone = [p for g in groups for p in g]
    assert sorted(everyone) == sorted(c.players)
    assert len(set(everyone)) == len(everyone)
    assert c.line[0] == c.captain and c.box not in c.line
    assert [c.role(p) for p in c.line] == ["captain"] + ["team"] * (len(c.line) - 1)
    assert c.role(c.box) == "box"


# -- R35: the roll-off ------------------------------------------------------------------------


def test_roll_off_highest_box_second_captain() -> None:  # R35
    c = Chouette(["ann", "bob", "cy", "dee"], dice=ScriptedDice([3, 6, 1, 4]))
    assert (c.box, c.captain, c.line) == ("bob", "dee", ("dee", "ann", "cy"))
    assert [e for e in c.events if isinstance(e, RollOff)] == [RollOff(tuple(FOUR), (3, 6, 1, 4))]
    roles_partition(c)


def test_roll_off_tie_for_the_box_is_thrown_again() -> None:  # R35
    c = Chouette(["ann", "bob", "cy"], dice=ScriptedDice([5, 5, 3, 2, 6]))
    assert (c.box, c.line) == ("bob", ("ann", "cy"))
    assert [e for e in c.events if isinstance(e, RollOff)] == [
        RollOff(("ann", "bob", "cy"), (5, 5, 3)),
        RollOff(("ann", "bob"), (2, 6)),  # only the tied players throw again
    ]


def test_roll_off_everyone_ties_then_again() -> None:  # R35
    c = Chouette(["ann", "bob", "cy"], dice=ScriptedDice([4, 4, 4, 2, 2, 2, 1, 2, 3]))
    assert (c.box, c.line) == ("cy", ("bob", "ann"))
    assert len([e for e in c.events if isinstance(e, RollOff)]) == 3


def test_roll_off_ties_below_the_top_order_the_line() -> None:  # R35: the line is ordered by the throws
    c = Chouette(FOUR, dice=ScriptedDice([6, 2, 2, 1, 3, 5]))
    assert (c.box, c.line) == ("ann", ("cy", "bob", "dee"))
    # the tie between bob and cy for second place is settled by their own re-throw, 3 v 5
    assert c.events[1] == RollOff(("bob", "cy"), (3, 5))


def test_roll_off_nested_ties() -> None:  # R35
    # a, b, c tie on 6; their re-throw ties b and c on 4; then c beats b
    c = Chouette(["a", "b", "c", "d"], dice=ScriptedDice([6, 6, 6, 1, 5, 4, 4, 2, 3]))
    assert (c.box, c.line) == ("a", ("c", "b", "d"))


def test_roll_off_seven_players_is_always_complete() -> None:  # R35: seven dice must tie somewhere
    for seed in range(20):
        c = Chouette([f"p{i}" for i in range(7)], dice=SeededDice(seed))
        roles_partition(c)
        assert len(c.line) == 6


def test_roll_off_is_reproducible_from_the_seed() -> None:
    a, b = Chouette(FOUR, dice=SeededDice(99)), Chouette(FOUR, dice=SeededDice(99))
    assert a == b and (a.box, a.line) == (b.box, b.line)


@pytest.mark.parametrize(
    "players, fragment",
    [
        (["ann", "bob"], "3 or more players; got 2"),
        (["ann"], "3 or more players; got 1"),
        ([], "3 or more players; got 0"),
        (["ann", "bob", "ann"], "each name once (ann twice)"),
        (["ann", "bob", ""], "non-empty name"),
        (["ann", "bob", 3], "non-empty name"),
        ("annbobcy", "not one string"),
    ],
)
def test_too_few_or_bad_players_are_an_error(players: Sequence[str], fragment: str) -> None:
    with pytest.raises(BackgammonError) as info:
        Chouette(players, dice=SeededDice(1))
    assert fragment in str(info.value)


def test_a_chouette_is_money_play() -> None:
    with pytest.raises(BackgammonError, match="money play"):
        Chouette(FOUR, Rules(match_length=5), dice=SeededDice(1))


# -- R36: the captain moves ---------------------------------------------------------------------


def test_opening_is_thrown_by_box_and_captain() -> None:  # R4, R35
    c = seated()
    assert c.phase is P.OPENING and c.to_act == ("ann", "bob")
    assert c.legal_actions("cy") == frozenset()
    unchanged(c, lambda: c.roll(player="cy"), "the box (ann) and the captain (bob) throw")
    c.roll((5, 5), player="bob")  # a tie: thrown again (R4)
    assert c.phase is P.OPENING
    c.roll((1, 2), player="bob")
    assert c.on_roll == "bob" and c.side_on_roll is Side.TEAM and c.dice == (2, 1)


def test_only_the_captain_moves_the_team() -> None:  # R36
    c = seated()
    c.roll((1, 2), player="ann")
    assert c.to_act == ("bob",)
    for member in ("cy", "dee"):
        unchanged(c, lambda m=member: c.play("13/11 6/5", player=m), "only the captain (bob)", "R36")
        assert A.PLAY not in c.legal_actions(member)
    unchanged(c, lambda: c.play("13/11 6/5", player="ann"), "bob's turn", "R43")
    c.play("13/11 6/5", player="bob")
    assert c.on_roll == "ann" and c.phase is P.ROLL


def test_acting_out_of_turn_changes_nothing() -> None:  # R43
    c = box_to_roll()
    unchanged(c, lambda: c.roll(player="bob"), "ann's turn to roll")
    unchanged(c, lambda: c.roll(player="cy"), "ann's turn to roll")
    unchanged(c, lambda: c.play("24/18", player="ann"), "roll the dice first")
    unchanged(c, lambda: c.propose_double(player="bob"), "the team doubles on its own turn")
    unchanged(c, lambda: c.take(player="bob"), "no double has been offered")
    unchanged(c, lambda: c.consent(player="bob"), "no team double has been proposed")
    unchanged(c, lambda: c.accept(player="bob"), "no resignation has been offered")
    unchanged(c, lambda: c.next_game(), "the game is not over")
    unchanged(c, lambda: c.roll(player="zed"), "'zed' is not a player")
    unchanged(c, lambda: c.resign(player="bob"), "own side's turn")


def test_opening_reroll_lets_the_winner_double_first() -> None:  # R5, R28
    c = seated(Rules(opening_reroll=True), (6, 6))
    c.roll((5, 2), player="bob")
    assert c.phase is P.ROLL and c.on_roll == "ann" and c.legal_actions("ann") == {A.ROLL, A.DOUBLE, A.RESIGN}
    c.roll(player="ann")
    assert c.dice == (6, 6)


def test_the_game_property_is_a_copy() -> None:
    c = box_to_roll()
    board = c.game
    board.roll((6, 5))
    assert c.phase is P.ROLL and c.game.dice is None and c.game == c.game


def test_an_illegal_play_changes_nothing() -> None:
    c = seated()
    c.roll((1, 2), player="ann")
    before = c.copy()
    with pytest.raises(IllegalMoveError, match="bob"):
        c.play("24/18", player="bob")
    assert c == before


# -- R37, R38: rotation -----------------------------------------------------------------------


def test_box_wins_box_stays_captain_to_the_end() -> None:  # R37
    c = box_to_roll()
    c.box_double(player="ann")
    for member in ("bob", "cy", "dee"):
        c.pass_double(player=member)
    assert c.is_over() and c.winner is Side.BOX
    c.next_game()
    assert (c.box, c.line) == ("ann", ("cy", "dee", "bob"))
    roles_partition(c)


def test_team_wins_captain_into_the_box_box_to_the_end() -> None:  # R38
    c = team_to_roll()
    c.propose_double(player="bob")
    c.consent(player="cy")
    c.consent(player="dee")
    c.pass_double(player="ann")
    assert c.winner is Side.TEAM
    c.next_game()
    assert (c.box, c.line) == ("bob", ("cy", "dee", "ann"))
    roles_partition(c)
    assert c.game_number == 2 and c.phase is P.OPENING and c.to_act == ("bob", "cy")


# -- R39: team doubles --------------------------------------------------------------------------


def test_team_double_refused_by_one_member() -> None:  # R39
    c = team_to_roll()
    c.propose_double(player="cy")  # any member may propose
    assert c.phase is P.CONSENT and c.to_act == ("bob", "dee")
    # the box cannot answer a double that the team has not yet agreed on; the captain cannot roll
    unchanged(c, lambda: c.take(player="ann"), "awaits the consent of bob, dee", "R39")
    unchanged(c, lambda: c.roll(player="bob"), "awaits the consent", "R39")
    unchanged(c, lambda: c.consent(player="cy"), "cy proposed this double")
    unchanged(c, lambda: c.consent(player="ann"), "the box has no say")
    c.consent(player="bob")
    unchanged(c, lambda: c.consent(player="bob"), "bob has already answered")
    c.refuse(player="dee")
    assert c.phase is P.ROLL and c.on_roll == "bob" and c.pending is None
    assert all(s.cube == 1 and s.centred for s in c.stakes.values())
    assert not any(isinstance(e, TeamDouble) for e in c.events)
    c.roll((3, 1), player="bob")
    assert c.phase is P.PLAY


def test_team_double_with_everyone_agreeing_box_takes() -> None:  # R39, R29
    c = team_to_roll()
    c.propose_double(player="bob")
    c.consent(player="dee")
    c.consent(player="cy")
    assert c.phase is P.TEAM_DOUBLE and c.to_act == ("ann",)
    unchanged(c, lambda: c.take(player="bob"), "the box (ann) answers")
    c.take(player="ann")
    assert {m: (s.cube, s.owner) for m, s in c.stakes.items()} == {
        "bob": (2, "ann"),
        "cy": (2, "ann"),
        "dee": (2, "ann"),
    }
    assert c.phase is P.ROLL and c.on_roll == "bob"  # the doubler rolls
    unchanged(c, lambda: c.propose_double(player="cy"), "the box owns", "R27")


def test_box_beavers_the_team_double() -> None:  # R39, R30
    c = team_to_roll(Rules(beavers=True))
    c.propose_double(player="bob")
    c.consent(player="cy")
    c.consent(player="dee")
    c.beaver(player="ann")
    assert {s.cube for s in c.stakes.values()} == {4} and {s.owner for s in c.stakes.values()} == {"ann"}


def test_the_last_member_doubles_alone() -> None:  # R39: with one member left, no consent is needed
    c = box_to_roll(None, (3, 1))
    c.box_double(player="ann")
    c.take(player="bob")
    c.pass_double(player="cy")
    c.pass_double(player="dee")
    c.roll(player="ann")
    play_any(c)
    c.propose_double(player="bob")
    assert c.phase is P.TEAM_DOUBLE


# -- R40: box doubles ---------------------------------------------------------------------------


def test_box_double_mixed_takes_passes_and_a_beaver() -> None:  # R40, R30, R41
    c = box_to_roll(Rules(beavers=True), (3, 1))
    unchanged(c, lambda: c.propose_double(player="bob"), "the team doubles on its own turn")
    c.box_double(player="ann")
    assert c.phase is P.BOX_DOUBLE and c.to_act == ("bob", "cy", "dee")
    unchanged(c, lambda: c.roll(player="ann"), "the box has doubled")
    c.take(player="bob")
    unchanged(c, lambda: c.take(player="bob"), "bob has already answered")
    unchanged(c, lambda: c.pass_double(player="bob"), "bob has already answered")
    c.pass_double(player="cy")  # pays the stake before the double at once, and leaves (R40)
    assert c.ledger == {"ann": 1, "bob": 0, "cy": -1, "dee": 0}
    unchanged(c, lambda: c.take(player="cy"), "cy is out of this game")
    c.beaver(player="dee")  # dee's stake only (R30)
    assert {m: (s.cube, s.owner, s.in_game) for m, s in c.stakes.items()} == {
        "bob": (2, "bob", True),
        "cy": (1, None, False),
        "dee": (4, "dee", True),
    }
    assert c.team == ("bob", "dee") and c.mover == "bob"
    c.roll(player="ann")  # the box rolls after the takes
    play_any(c)
    unchanged(c, lambda: c.propose_double(player="cy"), "cy is out of this game")
    c.propose_double(player="bob")
    assert c.to_act == ("dee",)  # cy has no say any more
    c.consent(player="dee")
    c.pass_double(player="ann")  # pays bob 2 and dee 4 (R29, R41)
    assert payments(c) == [
        ("cy", "ann", 1, "passed"),
        ("ann", "bob", 2, "passed"),
        ("ann", "dee", 4, "passed"),
    ]
    assert c.ledger == {"ann": -5, "bob": 2, "cy": -1, "dee": 4}
    assert sum(c.ledger.values()) == 0
    assert c.results[0].net == {"ann": -5, "bob": 2, "cy": -1, "dee": 4}
    assert c.winner is Side.TEAM
    c.next_game()  # R38
    assert (c.box, c.line) == ("bob", ("cy", "dee", "ann"))


def test_captain_passes_next_taker_moves() -> None:  # R40, R36 (acting captain), R37
    c = box_to_roll(None, (3, 1), (4, 2), (5, 3))
    c.box_double(player="ann")
    c.pass_double(player="bob")
    c.pass_double(player="cy")
    c.take(player="dee")
    # bob passed, and cy, next in line, passed too: dee, the next taker, moves from now on
    assert c.events[-1] == NewCaptain("dee")
    assert c.captain == "bob" and c.mover == "dee" and c.team == ("dee",)
    c.roll(player="ann")
    play_any(c)
    assert c.to_act == ("dee",)
    unchanged(c, lambda: c.roll(player="bob"), "bob is out of this game")
    c.roll(player="dee")
    play_any(c)
    c.roll(player="ann")
    play_any(c)
    c.propose_double(player="dee")
    c.pass_double(player="ann")
    assert c.ledger == {"ann": 2 - 2, "bob": -1, "cy": -1, "dee": 2}
    # the team won the board, but the captain's own stake was lost: the box stays (R37)
    assert c.winner is Side.BOX
    c.next_game()
    assert (c.box, c.line) == ("ann", ("cy", "dee", "bob"))


def test_captain_passes_next_in_line_takes_over() -> None:  # R40, R36
    c = box_to_roll()
    c.box_double(player="ann")
    c.take(player="dee")
    c.pass_double(player="bob")
    c.take(player="cy")
    assert c.mover == "cy" and c.events[-1] == NewCaptain("cy")  # cy is next in line, not dee
    assert c.status().startswith("game 1: ann in the box v bob (captain), cy, dee; ann to roll;")


def test_all_members_pass_the_game_ends() -> None:  # R40, R41, R37
    c = box_to_roll()
    c.box_double(player="ann")
    c.pass_double(player="dee")
    c.pass_double(player="bob")
    assert not c.is_over()
    c.pass_double(player="cy")
    assert c.is_over() and c.phase is P.OVER and c.to_act == ()
    assert c.ledger == {"ann": 3, "bob": -1, "cy": -1, "dee": -1}
    assert c.events[-1] == GameOver(1, Side.BOX)
    assert c.options() == {p: frozenset({A.NEXT_GAME}) for p in FOUR}
    unchanged(c, lambda: c.roll(player="ann"), "the game is over")


def test_box_double_needs_a_cube_it_may_turn() -> None:  # R27, R26
    c = box_to_roll(Rules(cube_limit=2), (3, 1), (4, 2), (5, 3))
    c.box_double(player="ann")
    for m in ("bob", "cy", "dee"):
        c.take(player=m)
    c.roll(player="ann")
    play_any(c)
    c.roll(player="bob")
    play_any(c)
    unchanged(c, lambda: c.box_double(player="ann"), "bob owns their cube", "R27")
    c.roll(player="ann")
    play_any(c)
    unchanged(c, lambda: c.propose_double(player="cy"), "at its limit of 2", "R26")


def test_beaver_only_when_the_rules_allow() -> None:  # R30
    c = box_to_roll()
    c.box_double(player="ann")
    unchanged(c, lambda: c.beaver(player="bob"), "beavers are not allowed", "R30")
    assert A.BEAVER not in c.legal_actions("bob")
    c2 = box_to_roll(Rules(beavers=True, cube_limit=2))
    c2.box_double(player="ann")
    unchanged(c2, lambda: c2.beaver(player="bob"), "past its limit of 2")


def test_automatic_double_raises_every_stake() -> None:  # R6
    c = seated(Rules(automatic_doubles=True))
    c.roll((4, 4), player="ann")
    assert c.events[-1] == AutomaticDouble(2) and c.phase is P.OPENING
    assert {s.cube for s in c.stakes.values()} == {2} and all(s.centred for s in c.stakes.values())
    c.roll((1, 2), player="ann")
    c.play("13/11 6/5", player="bob")
    c.box_double(player="ann")
    c.pass_double(player="bob")
    assert c.ledger["bob"] == -2  # the stake before the double is the automatic 2


# -- R31 and scoring per stake: resignations, gammons, Jacoby --------------------------------------


@pytest.mark.parametrize("jacoby, per_member", [(False, 2), (True, 1)])
def test_box_resigns_gammon_each_member_answers_alone(jacoby: bool, per_member: int) -> None:  # R31, R25
    c = box_to_roll(Rules(jacoby=jacoby), (3, 1))
    c.resign("gammon", player="ann")
    assert c.phase is P.RESIGN and c.to_act == ("bob", "cy", "dee")
    unchanged(c, lambda: c.accept(player="ann"), "ann made this offer")
    c.accept(player="cy")
    c.decline(player="bob")
    unchanged(c, lambda: c.accept(player="cy"), "cy is out of this game")
    c.accept(player="dee")
    assert c.ledger == {"ann": -2 * per_member, "bob": 0, "cy": per_member, "dee": per_member}
    assert c.team == ("bob",) and not c.is_over()
    assert c.phase is P.ROLL and c.on_roll == "ann"  # play goes on for bob's stake
    c.roll(player="ann")
    play_any(c)
    c.resign("single", player="bob")  # bob resigns his own stake; the box answers
    assert c.to_act == ("ann",)
    c.accept(player="ann")
    assert c.is_over() and c.winner is Side.BOX  # the captain's stake was lost
    assert c.ledger == {"ann": -2 * per_member + 1, "bob": -1, "cy": per_member, "dee": per_member}


def test_resignation_with_a_turned_cube_counts_gammon_under_jacoby() -> None:  # R25, R31
    c = box_to_roll(Rules(jacoby=True), (3, 1))
    c.box_double(player="ann")
    c.take(player="bob")
    c.take(player="cy")
    c.take(player="dee")
    c.resign(2, player="ann")
    for m in ("bob", "cy", "dee"):
        c.accept(player=m)
    assert c.ledger == {"ann": -12, "bob": 4, "cy": 4, "dee": 4}
    assert c.winner is Side.TEAM


def test_backgammon_counts_as_gammon_per_stake() -> None:  # R24
    c = box_to_roll(Rules(backgammon_counts_as_gammon=True))
    c.resign("backgammon", player="ann")
    for m in ("bob", "cy", "dee"):
        c.accept(player=m)
    assert c.ledger == {"ann": -6, "bob": 2, "cy": 2, "dee": 2}


def test_captain_resigns_own_stake_next_in_line_moves() -> None:  # R31, R36
    c = team_to_roll(None, (3, 1))
    c.resign(1, player="bob")
    unchanged(c, lambda: c.accept(player="cy"), "the box (ann) answers")
    c.decline(player="ann")
    assert c.phase is P.ROLL and c.mover == "bob"
    c.roll(player="bob")
    c.resign(1, player="bob")  # after the roll, too
    c.accept(player="ann")
    assert c.mover == "cy" and c.events[-1] == NewCaptain("cy")
    assert c.phase is P.PLAY and c.on_roll == "cy" and c.dice == (3, 1)  # cy plays bob's roll
    unchanged(c, lambda: c.play("8/5 6/5", player="bob"), "bob is out of this game")
    c.play("8/5 6/5", player="cy")
    assert c.ledger == {"ann": 1, "bob": -1, "cy": 0, "dee": 0}


def test_resign_levels() -> None:  # R31
    c = team_to_roll()
    unchanged(c, lambda: c.resign(4, player="cy"), "single game, a gammon or a backgammon")
    unchanged(c, lambda: c.resign("lots", player="cy"), "single game, a gammon or a backgammon")
    c.resign("Backgammon", player="cy")
    assert c.pending == (P.RESIGN, "cy", ("ann",), 3)


def play_out(c: Chouette, bot: Bot) -> None:
    """Play the current game to its end on the board, without cube actions."""
    while not c.is_over():
        if c.phase is P.OPENING:
            c.roll(player=c.box)
        elif c.phase is P.ROLL:
            c.roll(player=c.on_roll or "")
        else:
            move = bot.choose_move(c.position, c.dice or (1, 1))
            c.play(move if move is not None else "", player=c.on_roll or "")


@functools.cache
def gammon_seed(kind: ResultKind) -> int:
    """A seed whose first game (seeded dice, seeded random bot) ends on the board as ``kind``."""
    for seed in range(500):
        c = Chouette(FOUR, dice=SeededDice(seed))
        play_out(c, load("random", seed=seed))
        if c.game.result is not None and c.game.result.kind is kind:
            return seed
    raise AssertionError(f"no {kind} in 500 seeds")  # pragma: no cover


@pytest.mark.parametrize("jacoby, per_member", [(False, 2), (True, 1)])
def test_gammon_on_the_board_with_and_without_jacoby(jacoby: bool, per_member: int) -> None:  # R23, R25, R41
    seed = gammon_seed(ResultKind.GAMMON)
    c = Chouette(FOUR, Rules(jacoby=jacoby), dice=SeededDice(seed))
    box = c.box
    play_out(c, load("random", seed=seed))
    result = c.game.result
    assert result is not None and result.kind is ResultKind.GAMMON
    sign = 1 if result.winner == 0 else -1  # player 0 is the box
    assert c.ledger[box] == sign * per_member * 3
    assert all(c.ledger[m] == -sign * per_member for m in c.line)
    assert {p[3] for p in payments(c)} == {"gammon"}


def test_gammon_with_the_cube_turned_counts_under_jacoby() -> None:  # R25: the cube was turned
    seed = gammon_seed(ResultKind.GAMMON)
    c = Chouette(FOUR, Rules(jacoby=True), dice=SeededDice(seed))
    bot = load("random", seed=seed)
    box = c.box
    # the same game as above (cube actions consume no dice), with the box doubling at once
    while not c.is_over():
        if c.phase is P.ROLL and c.side_on_roll is Side.BOX and not any(s.owner for s in c.stakes.values()):
            c.box_double(player=box)
            for m in c.line:
                c.take(player=m)
        elif c.phase is P.OPENING:
            c.roll(player=box)
        elif c.phase is P.ROLL:
            c.roll(player=c.on_roll or "")
        else:
            move = bot.choose_move(c.position, c.dice or (1, 1))
            c.play(move if move is not None else "", player=c.on_roll or "")
    result = c.game.result
    assert result is not None and result.kind is ResultKind.GAMMON
    sign = 1 if result.winner == 0 else -1
    assert all(c.ledger[m] == -sign * 4 for m in c.line)  # cube 2, gammon 2x
    assert c.ledger[box] == sign * 12


# -- R41: the ledger ----------------------------------------------------------------------------


def test_ledger_accumulates_over_games() -> None:  # R41
    c = box_to_roll()
    c.box_double(player="ann")
    for m in ("bob", "cy", "dee"):
        c.pass_double(player=m)
    c.next_game()  # ann stays in the box; cy captain
    c.roll((2, 1), player="cy")
    c.play("13/11 6/5", player="ann")
    c.propose_double(player="cy")
    c.consent(player="dee")
    c.consent(player="bob")
    c.pass_double(player="ann")
    assert c.ledger == {"ann": 0, "bob": 0, "cy": 0, "dee": 0}
    assert [r.winner for r in c.results] == [Side.BOX, Side.TEAM]
    assert [r.net for r in c.results] == [
        {"ann": 3, "bob": -1, "cy": -1, "dee": -1},
        {"ann": -3, "bob": 1, "cy": 1, "dee": 1},
    ]
    c.next_game()  # R38: cy into the box; the line was cy, dee, bob
    assert (c.box, c.line) == ("cy", ("dee", "bob", "ann"))


# -- the log: JSON, replay, undo ------------------------------------------------------------------


def test_json_round_trip_and_format() -> None:
    c = box_to_roll(Rules(beavers=True, jacoby=True), (3, 1))
    c.box_double(player="ann")
    c.beaver(player="cy")
    data = json.loads(c.to_json())
    assert data["format"] == "backgammon-chouette" and data["version"] == 1
    assert data["players"] == FOUR and data["rules"]["beavers"] is True
    back = Chouette.from_json(c.to_json(indent=2))
    assert back == c and back.phase is P.BOX_DOUBLE and back.to_act == ("bob", "dee")
    for event in c.events:
        assert chouette_event_from_dict(event.to_dict()) == event
    # a restored session carries on with a new dice source
    back2 = Chouette.from_json(c.to_json(), dice=ScriptedDice([(5, 2)]))
    back2.take(player="bob")
    back2.pass_double(player="dee")
    back2.roll(player="ann")
    assert back2.dice == (5, 2)


@pytest.mark.parametrize(
    "mutate, fragment",
    [
        (lambda d: d.update(format="backgammon-game"), "expected 'backgammon-chouette'"),
        (lambda d: d.update(version=99), "format version 99"),
        (lambda d: d.update(players="abc"), "players 'abc'"),
        (lambda d: d["events"].append({"type": "roll", "player": "ann", "dice": [9, 1]}), "dice are 1-6"),
        (lambda d: d["events"].append({"type": "wink", "player": "ann"}), "unknown type 'wink'"),
        (lambda d: d["events"].append({"type": "take"}), "missing field(s) player"),
        (lambda d: d["events"].append({"type": "take", "player": "bob", "x": 1}), "unexpected field(s) x"),
        (lambda d: d["events"].append({"type": "take", "player": "bob"}), "replaying event"),
        (lambda d: d["events"].pop(), "does not replay"),  # a derived payment missing
        (lambda d: d["events"][0].update(dice=[1, 1, 1, 1]), "replaying event"),
        (lambda d: d["events"].insert(0, {"type": "next_game"}), "roll-off"),
    ],
)
def test_bad_logs_are_refused(mutate: Callable[[dict[str, object]], object], fragment: str) -> None:
    c = box_to_roll()
    c.box_double(player="ann")
    c.pass_double(player="bob")
    data = json.loads(c.to_json())
    mutate(data)
    with pytest.raises(BackgammonError) as info:
        Chouette.from_json(json.dumps(data))
    assert fragment in str(info.value)


def test_a_log_whose_derived_events_differ_is_refused() -> None:
    c = box_to_roll()
    c.box_double(player="ann")
    c.pass_double(player="bob")
    data = json.loads(c.to_json())
    assert data["events"][-1]["type"] == "payment"
    data["events"][-1]["points"] = 5
    with pytest.raises(BackgammonError, match="does not replay: event"):
        Chouette.from_json(json.dumps(data))
    with pytest.raises(BackgammonError, match="not a chouette event"):
        Chouette.replay(FOUR, [*c.events, "take"], c.rules)  # type: ignore[list-item]


def test_not_json() -> None:
    with pytest.raises(BackgammonError, match="not JSON"):
        Chouette.from_json("{")


def test_undo_takes_back_the_whole_opening() -> None:  # R4, R6
    c = seated(Rules(automatic_doubles=True), (3, 3), (5, 2))
    c.roll(player="bob")  # a tie (an automatic double), then 5-2: one action
    assert [e.type for e in c.undo()] == ["opening_roll", "automatic_double", "opening_roll"]
    assert c == seated(Rules(automatic_doubles=True))


def test_undo() -> None:  # R42
    c = box_to_roll(None, (3, 1))
    before = c.copy()
    c.box_double(player="ann")
    c.pass_double(player="bob")
    removed = c.undo()
    assert [e.type for e in removed] == ["pass", "payment"]
    c.undo()
    assert c == before
    while True:
        try:
            c.undo()
        except IllegalActionError as exc:
            assert "nothing to undo" in str(exc)
            break
    assert c.phase is P.OPENING and c.game_number == 1


# -- the front end's view -------------------------------------------------------------------------


def test_to_act_options_and_status() -> None:
    c = team_to_roll()
    assert c.to_act == ("bob",)
    assert c.options() == {
        "bob": frozenset({A.ROLL, A.PROPOSE_DOUBLE, A.RESIGN}),
        "cy": frozenset({A.PROPOSE_DOUBLE, A.RESIGN}),
        "dee": frozenset({A.PROPOSE_DOUBLE, A.RESIGN}),
    }
    assert c.status() == (
        "game 1: ann in the box v bob (captain), cy, dee; bob to roll (the team may propose a double); "
        "stakes: bob 1, cy 1, dee 1"
    )
    c.propose_double(player="dee")
    assert c.status().endswith(
        "a double proposed by dee awaits the consent of bob, cy (R39); stakes: bob 1, cy 1, dee 1"
    )
    c.consent(player="bob")
    c.consent(player="cy")
    assert c.options() == {"ann": frozenset({A.TAKE, A.PASS})}
    c.take(player="ann")
    assert "bob 2 (cube box)" in c.status()
    ms = c.match_state("cy")
    assert (ms.cube_value, ms.cube_owner, ms.player_on_roll, ms.turn) == (2, 0, 1, 1)
    with pytest.raises(IllegalActionError):
        c.match_state("ann")
    assert "stakes" in repr(c) and "stakes" in str(c)


def test_match_state_for_bot_answers() -> None:
    c = box_to_roll()
    c.box_double(player="ann")
    ms = c.match_state("bob")
    assert ms.double_offered and ms.turn == 1 and ms.player_on_roll == 0
    bot = load("random", seed=1)
    answer = bot.respond_to_double(c.board(Side.TEAM), ms)
    assert answer.value in {"take", "pass", "beaver"}


# -- properties over long random sessions ----------------------------------------------------------


def random_step(c: Chouette, rng: random.Random, bot: Bot) -> None:
    """One random legal action: bots move, decisions are random."""
    phase = c.phase
    if phase is P.OPENING:
        c.roll(player=rng.choice(c.to_act))
        return
    options = c.options()
    for who, actions in options.items():  # every offered action is legal for its player
        assert actions and all(c.why_not(a, who) is None for a in actions)
    if phase is P.PLAY:
        if rng.random() < 0.01:
            c.resign(rng.randint(1, 3), player=rng.choice([p for p, a in options.items() if A.RESIGN in a]))
            return
        move = bot.choose_move(c.position, c.dice or (1, 1))
        c.play(move if move is not None else "", player=c.on_roll or "")
        return
    if phase is P.ROLL:
        r = rng.random()
        doublers = [p for p, a in options.items() if A.DOUBLE in a or A.PROPOSE_DOUBLE in a]
        resigners = [p for p, a in options.items() if A.RESIGN in a]
        if r < 0.06 and doublers:
            c.double(player=rng.choice(doublers))
        elif r < 0.07:
            c.resign(rng.randint(1, 3), player=rng.choice(resigners))
        else:
            c.roll(player=c.on_roll or "")
        return
    who = rng.choice(c.to_act)
    action = rng.choice(sorted(c.legal_actions(who), key=lambda a: a.value))
    {
        A.CONSENT: c.consent,
        A.REFUSE: c.refuse,
        A.TAKE: c.take,
        A.PASS: c.pass_double,
        A.BEAVER: c.beaver,
        A.ACCEPT: c.accept,
        A.DECLINE: c.decline,
    }[action](player=who)


rules_options = st.builds(
    Rules,
    jacoby=st.booleans(),
    beavers=st.booleans(),
    automatic_doubles=st.booleans(),
    backgammon_counts_as_gammon=st.booleans(),
    cube_limit=st.sampled_from([None, 4, 64]),
)


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32), players=st.integers(3, 6), rules=rules_options)
def test_random_sessions(seed: int, players: int, rules: Rules) -> None:  # R35-R41
    rng = random.Random(seed)
    names = [f"p{i}" for i in range(players)]
    c = Chouette(names, rules, dice=SeededDice(seed))
    bot = load("random", seed=seed)
    roles_partition(c)
    total = {p: 0 for p in names}
    for number in range(1, 9):
        assert c.game_number == number
        while not c.is_over():
            if number <= 2 and rng.random() < 0.01:  # an action taken back is as if never taken
                before = c.copy()
                random_step(c, rng, bot)
                c.undo()
                assert c == before
            random_step(c, rng, bot)
            assert sum(c.ledger.values()) == 0  # R41: at every moment
            if c.pending is None and not c.is_over():  # the mover is still in the game (R36)
                assert c.mover == c.team[0]
        # the game is settled: every stake has a result, the ledger moved by the game's net
        result = c.results[-1]
        assert all(not s.in_game for s in c.stakes.values())
        assert result.winner is (Side.TEAM if (c.stakes[c.captain].result or 0) > 0 else Side.BOX)
        net = {p: 0 for p in names}
        for m, stake in c.stakes.items():
            assert stake.result is not None
            net[m] += stake.result
            net[c.box] -= stake.result
        assert net == result.net and sum(net.values()) == 0
        total = {p: total[p] + net[p] for p in names}
        assert c.ledger == total
        if number == 3:  # replay in the middle of the session
            assert Chouette.from_json(c.to_json()) == c
        box, line, winner = c.box, c.line, c.winner
        c.next_game()
        if winner is Side.BOX:  # R37
            assert (c.box, c.line) == (box, line[1:] + line[:1])
        else:  # R38
            assert (c.box, c.line) == (line[0], line[1:] + (box,))
        roles_partition(c)
    # play into the ninth game a little and rebuild it from its log
    for _ in range(rng.randint(0, 40)):
        if c.is_over():
            break
        random_step(c, rng, bot)
    again = Chouette.from_json(c.to_json())
    assert again == c and again.status() == c.status() and again.options() == c.options()
    assert Chouette.replay(c.players, c.events, c.rules) == c
