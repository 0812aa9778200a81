"""The flow of play, tested against :class:`backgammon.table.Table` directly (no front end).

Rule numbers are those of shared/RULES.md.
"""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backgammon import Position
from backgammon.bots.base import Bot, CubeResponse
from backgammon.bots.randombot import RandomBot
from backgammon.dice import ScriptedDice, SeededDice
from backgammon.errors import BackgammonError, Refusal
from backgammon.game import Game
from backgammon.match import Match
from backgammon.matchid import MatchState
from backgammon.position import LegalMoves
from backgammon.rules import Rules
from backgammon.table import MatchContest, Narrator, Seat, Table, command_from_dict, commands as cmd


def _people_match(script: list[object], length: int = 0, rules: Rules | None = None) -> Table:
    return Table.match([Seat("ann"), Seat("bob")], length, rules, dice=ScriptedDice(script))  # type: ignore[arg-type]


def _table_at(position: Position, dice: tuple[int, int]) -> Table:
    """A money table of people, ann (player 0) to play ``dice`` in ``position``."""
    match = Match.from_xgid(Game.from_position(position, player=0, dice=dice).xgid())
    return Table(MatchContest(("ann", "bob"), match=match), [Seat("ann"), Seat("bob")])


def _state(table: Table) -> str:
    return json.dumps(table.to_dict(), sort_keys=True)


# -- R42: the tentative play ---------------------------------------------------------------


def test_r42_tentative_play_is_undone_and_confirmed() -> None:
    t = _people_match([(3, 1)])
    assert t.submit("ann", cmd.Roll()).accepted
    out = t.submit("ann", cmd.Play("8/5 6/5"))
    assert out.accepted and out.events == ()
    assert t.tentative is not None and str(t.tentative.move) == "8/5 6/5"
    assert [e.type for e in t.contest.events] == ["game_start", "opening_roll"]
    assert t.submit("ann", cmd.Undo()).accepted and t.tentative is None
    assert t.submit("ann", cmd.Play("24/23 13/10")).accepted
    assert t.submit("ann", cmd.Play("8/5 6/5")).accepted  # a new tentative play replaces the old
    assert [e.type for e in t.submit("ann", cmd.Confirm()).events] == ["play"]
    assert str(t.contest.events[-1].move) == "8/5 6/5"
    # once confirmed it cannot be taken back (R42)
    refusal = t.submit("ann", cmd.Undo()).refusal
    assert refusal is not None and refusal.action == "undo"


def test_r42_steps_one_checker_at_a_time() -> None:
    t = _people_match([(6, 6)] * 1 + [(5, 2)])
    # 6-6 is a tie on the opening: thrown again; 5-2 then
    t.submit("bob", cmd.Roll())
    assert t.contest.dice == (5, 2)
    mover = t.contest.mover()
    assert mover is not None
    assert t.submit(mover, cmd.Step(13, 5)).accepted
    assert "confirm" not in t.actions(mover)  # one die left to play (R11)
    refused = t.submit(mover, cmd.Confirm()).refusal
    assert refused is not None and refused.rule == "R11"
    refused = t.submit(mover, cmd.Step(13, 5)).refusal  # no second 5
    assert refused is not None and "no die of 5" in refused.reason
    assert t.submit(mover, cmd.Step(8, 2)).accepted
    assert "confirm" in t.actions(mover)
    assert t.submit(mover, cmd.Undo()).accepted and str(t.tentative.move) == "13/8"  # type: ignore[union-attr]
    assert t.submit(mover, cmd.Step(13, 2)).accepted
    t.submit(mover, cmd.Confirm())
    assert str(t.contest.events[-1].move) == "13/11 13/8"


def test_r42_step_refused_when_it_cannot_start_a_legal_play() -> None:
    # X: two checkers on the bar; O holds X's 20-24 points, X's 19 is open
    position = Position(tuple([0] * 5 + [13] + [0] * 18 + [2]), tuple([2] * 5 + [0] * 20))
    t = _table_at(position, (6, 5))
    assert [str(m) for m in t.contest.legal_moves()] == ["bar/19"]
    refusal = t.submit("ann", cmd.Step(25, 5)).refusal  # bar/20 with the 5 is blocked
    assert refusal is not None
    assert t.submit("ann", cmd.Step(25, 6)).accepted
    assert t.tentative is not None and t.tentative.complete  # the 5 cannot be played (R11)
    assert t.submit("ann", cmd.Confirm()).accepted


def test_confirm_plays_a_forced_or_empty_play_at_once() -> None:
    position = Position(tuple([0] * 5 + [13] + [0] * 18 + [2]), tuple([2] * 6 + [0] * 19))
    t = _table_at(position, (6, 5))
    assert len(t.contest.legal_moves()) == 0 and "confirm" in t.actions("ann")
    assert [e.type for e in t.submit("ann", cmd.Confirm()).events] == ["play"]
    assert t.contest.events[-1].move.is_pass()


# -- R43: nobody acts out of turn or for another seat ---------------------------------------


def test_r43_acting_out_of_turn_is_refused_and_changes_nothing() -> None:
    t = _people_match([(3, 1)])
    t.submit("ann", cmd.Roll())
    before = _state(t)
    for command in (cmd.Roll(), cmd.Double(), cmd.Play("8/5 6/5"), cmd.Step(8, 3), cmd.Confirm(), cmd.Resign(1)):
        out = t.submit("bob", command)
        assert out.refusal is not None, command
        assert isinstance(out.refusal, Refusal) and out.refusal.reason
        assert "Position ID" not in out.refusal.reason
        assert _state(t) == before
    refusal = t.submit("bob", cmd.Play("8/5 6/5")).refusal
    assert refusal is not None and refusal.rule == "R43"
    # a seat that is not at the table
    assert t.submit("cy", cmd.Roll()).refusal is not None
    assert _state(t) == before


def test_requests_name_the_seat_that_must_act() -> None:
    t = _people_match([(3, 1), (6, 5)])
    opening = t.requests()
    assert {r.seat for r in opening} == {"ann", "bob"} and all(r.awaited for r in opening)
    t.submit("bob", cmd.Roll())
    (req,) = t.requests()
    assert req.seat == "ann" and req.dice == (3, 1) and "8/5 6/5" in req.legal
    t.submit("ann", cmd.Play("8/5 6/5", confirm=True))
    (req,) = t.requests()
    assert req.seat == "bob" and {"roll", "double", "resign"} <= req.actions
    t.submit("bob", cmd.Double())
    (req,) = t.requests()
    assert req.seat == "ann" and req.offer is not None and req.offer.kind == "double" and req.offer.cube == 2
    assert req.actions == frozenset({"take", "pass", "resign"})


# -- bots ------------------------------------------------------------------------------------


class _Resigner(RandomBot):
    """A bot that always offers to resign a single game and declines every resignation."""

    def offer_resignation(self, position: Position, state: MatchState) -> int:
        return 1

    def accept_resignation(self, position: Position, state: MatchState, offer: object) -> bool:
        return False


def test_r31_a_declined_resignation_is_not_offered_again() -> None:
    t = Table.match([Seat("ann"), Seat("gnu", "random", seed=1)], dice=SeededDice(5))
    t.use_bot("gnu", _Resigner(seed=1))
    t.submit("ann", cmd.Roll())
    offers = 0
    for _ in range(40):
        seat = t.bot_to_act()
        if seat is None:
            req = t.requests()[0]
            if req.offer is not None and req.offer.kind == "resignation":
                offers += 1
                assert t.submit("ann", cmd.Decline()).accepted
            elif "roll" in req.actions:
                t.submit("ann", cmd.Roll())
            else:
                t.submit("ann", cmd.Play(req.legal[0] if req.legal else "", confirm=True))
            continue
        t.play_bot(seat)
    assert offers == 1


class _Doubler(RandomBot):
    def should_double(self, position: Position, state: MatchState) -> bool:
        return True

    def respond_to_double(self, position: Position, state: MatchState) -> CubeResponse:
        return CubeResponse.TAKE


def _drive_bots(t: Table, limit: int = 5000) -> None:
    for _ in range(limit):
        seat = t.bot_to_act()
        if seat is None:
            return
        assert t.play_bot(seat).accepted
    raise AssertionError("bots never stopped")


def test_bots_fill_every_seat_of_a_match() -> None:
    t = Table.match([Seat("a", "random", seed=1), Seat("b", "pubeval", seed=2)], length=3, dice=SeededDice(1))
    _drive_bots(t)
    assert t.contest.is_over()
    assert Table.from_dict(t.to_dict()) == t


def test_a_whole_chouette_of_bots() -> None:
    seats = [Seat(n, "random", seed=i) for i, n in enumerate(["ann", "bob", "cy", "dee"])]
    t = Table.chouette(seats, Rules(beavers=True), dice=SeededDice(3))
    for seat in ("ann", "bob", "cy", "dee"):
        t.use_bot(seat, _Doubler(seed=len(seat)))
    c = t.contest.chouette  # type: ignore[attr-defined]
    for game in range(3):
        _drive_bots(t)
        assert t.contest.game_over()
        assert sum(c.ledger.values()) == 0
        assert t.submit(c.players[0], cmd.NextGame()).accepted
    assert len(c.results) == 3
    kinds = {e.type for e in c.events}
    assert {"propose_double", "consent", "team_double", "box_double"} & kinds
    assert Table.from_dict(t.to_dict()) == t


def test_r39_team_double_needs_every_member() -> None:
    t = Table.chouette([Seat("ann"), Seat("bob"), Seat("cy")], dice=ScriptedDice([4, 6, 2, 3, 1, 6, 5]))
    c = t.contest.chouette  # type: ignore[attr-defined]
    assert (c.box, c.captain) == ("bob", "ann")
    t.submit("bob", cmd.Roll())
    t.submit("bob", cmd.Play("8/5 6/5", confirm=True))
    assert "propose_double" in t.actions("cy") and "ready" in t.actions("cy")
    assert t.submit("cy", cmd.ProposeDouble()).accepted
    (req,) = [r for r in t.requests() if r.awaited]
    assert req.seat == "ann" and req.offer is not None and req.offer.kind == "proposal"
    assert t.submit("ann", cmd.Roll()).refusal.rule == "R39"  # type: ignore[union-attr]
    assert t.submit("ann", cmd.Refuse()).accepted
    assert "team_double" not in {e.type for e in c.events}
    assert t.submit("ann", cmd.Roll()).accepted


def test_r40_box_double_answered_by_each_member() -> None:
    t = Table.chouette([Seat("ann"), Seat("bob"), Seat("cy")], dice=ScriptedDice([4, 6, 2, 1, 3, 6, 5]))
    c = t.contest.chouette  # type: ignore[attr-defined]
    t.submit("bob", cmd.Roll())  # box 1, captain 3: the team (ann) plays 3-1
    t.submit("ann", cmd.Play("8/5 6/5", confirm=True))
    assert t.submit("bob", cmd.Double()).accepted
    awaited = {r.seat for r in t.requests() if r.awaited}
    assert awaited == {"ann", "cy"}
    assert t.submit("cy", cmd.Pass()).accepted
    assert t.submit("cy", cmd.Take()).refusal is not None  # already answered
    assert t.submit("ann", cmd.Take()).accepted
    assert c.stakes["ann"].cube == 2 and not c.stakes["cy"].in_game
    assert sum(c.ledger.values()) == 0


def test_bot_members_are_asked_before_the_captain_rolls_and_people_first() -> None:
    # a bot captain waits until the team's person lets it roll (R39 gives them the say)
    t = Table.chouette(
        [Seat("ann", "random", seed=1), Seat("bob"), Seat("cy")], dice=ScriptedDice([6, 4, 2, 3, 1])
    )
    c = t.contest.chouette  # type: ignore[attr-defined]
    assert (c.box, c.captain) == ("ann", "bob")
    t.submit("bob", cmd.Roll())  # box 3, captain 1: the box (a bot) plays 3-1
    _drive_bots(t)
    assert c.mover == "bob" and t.bot_to_act() is None  # bob, a person, is the captain


# -- saving ----------------------------------------------------------------------------------


def test_save_and_load_mid_turn_with_a_tentative_play() -> None:
    t = _people_match([(5, 2), (6, 4)], length=5)
    t.submit("ann", cmd.Roll())
    t.submit("ann", cmd.Step(13, 5))
    data = json.loads(t.to_json())
    again = Table.from_dict(data, dice=ScriptedDice([(6, 4)]))
    assert again == t and again.tentative is not None and str(again.tentative.move) == "13/8"
    again.submit("ann", cmd.Step(13, 2))
    again.submit("ann", cmd.Confirm())
    assert str(again.contest.events[-1].move) == "13/11 13/8"


def test_old_match_and_chouette_logs_load_as_tables() -> None:
    m = Match(3, dice=ScriptedDice([(3, 1)]))
    m.game.roll()
    t = Table.from_dict(m.to_dict())
    assert t.contest.match == m  # type: ignore[attr-defined]
    with pytest.raises(BackgammonError, match="format"):
        Table.from_dict({"format": "something-else"})


def test_commands_round_trip_and_bad_commands_are_sentences() -> None:
    for command in (cmd.Roll(), cmd.Play("24/18 13/11", True), cmd.Step(25, 3), cmd.Resign(3), cmd.NextGame()):
        assert command_from_dict(json.loads(json.dumps(command.to_dict()))) == command
    for bad in ({"type": "play"}, {"type": "step", "origin": 1}, [], {"type": "roll", "x": 1}):
        with pytest.raises(BackgammonError):
            command_from_dict(bad)


def test_snapshot_is_numbered_for_its_viewer_and_json_ready() -> None:
    t = _people_match([(3, 1)])
    t.submit("ann", cmd.Roll())
    t.submit("ann", cmd.Play("8/5 6/5"))
    ann, bob = t.snapshot("ann"), t.snapshot("bob")
    assert ann.board.points[4] == 2 and bob.board.points[19] == -2  # the tentative play is shown
    assert ann.tentative == "8/5 6/5" and "confirm" in ann.actions and bob.actions == ()
    json.dumps(ann.to_dict())
    json.dumps(t.snapshot(None).to_dict())


def test_narration_is_in_the_viewers_numbering() -> None:
    t = _people_match([(3, 1)])
    t.submit("ann", cmd.Roll())
    events = t.submit("ann", cmd.Play("8/5 6/5", confirm=True)).events
    assert [line.text for line in Narrator(t, "ann").lines(events)] == ["ann plays 8/5 6/5."]
    assert [line.text for line in Narrator(t, "bob").lines(events)] == ["ann plays 17/20 19/20."]


# -- property: random commands never break an invariant -------------------------------------


def _random_command(rng: random.Random, table: Table, seat: str) -> cmd.Command:
    choice = rng.random()
    dice = table.contest.dice
    if choice < 0.45 and dice is not None and "play" in table.contest.actions(seat):
        legal = table.contest.legal_moves()
        if rng.random() < 0.5 and len(legal):
            return cmd.Play(str(legal[rng.randrange(len(legal))]), rng.random() < 0.5)
        return cmd.Step(rng.choice([25, *range(1, 25)]), rng.choice(dice))
    pool: list[cmd.Command] = [
        cmd.Roll(), cmd.Double(), cmd.ProposeDouble(), cmd.Consent(), cmd.Refuse(), cmd.Ready(),
        cmd.Take(), cmd.Pass(), cmd.Beaver(), cmd.Resign(rng.randint(0, 4)), cmd.Accept(), cmd.Decline(),
        cmd.Undo(), cmd.Confirm(), cmd.Play("24/1"), cmd.NextGame(),
    ]
    return rng.choice(pool)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 2**32 - 1), chouette=st.booleans(), players=st.integers(3, 5))
def test_property_random_commands_keep_every_invariant(seed: int, chouette: bool, players: int) -> None:
    rng = random.Random(seed)
    names = [f"p{i}" for i in range(players if chouette else 2)]
    rules = Rules(beavers=rng.random() < 0.5, jacoby=rng.random() < 0.5)
    if chouette:
        t = Table.chouette([Seat(n) for n in names], rules, dice=SeededDice(seed))
    else:
        t = Table.match([Seat(n) for n in names], rng.choice([0, 3]), rules, dice=SeededDice(seed))
    accepted = 0
    for _ in range(300):
        if t.contest.is_over():
            break
        seat = rng.choice(names)
        command = _random_command(rng, t, seat)
        before = _state(t)
        refusal = t.check(seat, command)
        out = t.submit(seat, command)
        if out.refusal is not None:
            assert refusal is not None
            assert _state(t) == before, (seat, command, out.refusal)
        else:
            accepted += 1
        if chouette:
            assert sum(t.contest.chouette.ledger.values()) == 0  # type: ignore[attr-defined]
    assert accepted > 0
    again = Table.from_dict(json.loads(t.to_json()))
    assert again == t


def test_malformed_saved_tables_give_sentences() -> None:
    t = _people_match([(3, 1)])
    t.submit("ann", cmd.Roll())
    good = t.to_dict()
    cases = [
        [],
        {"format": "backgammon-table", "version": 99},
        {**good, "seats": "ann"},
        {**good, "log": None},
        {**good, "contest": "poker"},
        {**good, "tentative": [["24/1", [6]]]},
        {**good, "tentative": "8/5"},
        {**good, "consulted": [["ann"]]},
    ]
    for data in cases:
        with pytest.raises(BackgammonError) as info:
            Table.from_dict(data)
        assert "Traceback" not in str(info.value) and str(info.value)


def test_r39_a_bot_captain_does_not_propose_again_after_a_refusal() -> None:
    t = Table.chouette(
        [Seat("ann"), Seat("bob", "random", seed=1), Seat("cy")], dice=ScriptedDice([6, 4, 2, 3, 1, 6, 5])
    )
    t.use_bot("bob", _Doubler(seed=1))
    c = t.contest.chouette  # type: ignore[attr-defined]
    assert (c.box, c.captain) == ("ann", "bob")
    t.submit("ann", cmd.Roll())
    t.submit("ann", cmd.Play("8/5 6/5", confirm=True))
    assert t.bot_to_act() is None  # cy, a person of the team, has the say first (R39)
    assert t.submit("cy", cmd.Ready()).accepted
    assert t.bot_to_act() == "bob"
    assert t.play_bot("bob").command == cmd.ProposeDouble()
    assert t.submit("cy", cmd.Refuse()).accepted
    assert t.play_bot("bob").command == cmd.Roll()  # not a second proposal


def test_narration_of_a_passed_turn_names_the_dice_after_a_resume() -> None:
    position = Position(tuple([0] * 5 + [13] + [0] * 18 + [2]), tuple([2] * 6 + [0] * 19))
    t = _table_at(position, (5, 6))
    events = t.submit("ann", cmd.Confirm()).events  # no legal play (R11)
    resumed = Table.from_dict(t.to_dict())
    assert [line.text for line in Narrator(resumed, "ann").lines(events)] == [
        "ann cannot move with 6-5: the turn passes (R11)."
    ]
