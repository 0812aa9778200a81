"""Forfeits: a seat that runs out of time or leaves loses the match (R32).

The table's flow of play (``Table.forfeit``), the match log (a ``forfeit`` event, then the
``match_end``), narration, the snapshot, saving and replaying, and bots doing nothing after.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from backgammon.dice import ScriptedDice, SeededDice
from backgammon.errors import BackgammonError, IllegalActionError
from backgammon.events import Forfeit, MatchEnd, event_from_dict
from backgammon.match import Match
from backgammon.table import Narrator, Seat, Table, decide
from backgammon.table import commands as cmd
from backgammon.table.contest import MatchContest


def _match(length: int = 5, dice: list[tuple[int, int]] | None = None) -> Table:
    rolls = dice if dice is not None else [(3, 1), (6, 5), (4, 2)] * 30
    return Table.match([Seat("ann"), Seat("bob")], length=length, dice=ScriptedDice(rolls))


def _contest(table: Table) -> MatchContest:
    contest = table.contest
    assert isinstance(contest, MatchContest)
    return contest


def _texts(table: Table, events: tuple[object, ...], viewer: str | None = None) -> list[str]:
    return [line.text for line in Narrator(table, viewer).lines(events)]


def _win_a_game(table: Table, winner: str) -> None:
    """The player on roll doubles and the other passes, or the other way round: ``winner``
    gets 1 point."""
    loser = "bob" if winner == "ann" else "ann"
    contest = table.contest
    if contest.phase() == "opening":
        table.submit("ann", cmd.Roll())
        mover = contest.mover()
        assert mover is not None
        table.submit(mover, cmd.Confirm() if len(contest.legal_moves()) <= 1 else cmd.Play(contest.legal_moves().texts()[0], confirm=True))
    if contest.mover() == winner:
        assert table.submit(winner, cmd.Double()).accepted
        assert table.submit(loser, cmd.Pass()).accepted
    else:
        assert table.submit(loser, cmd.Resign(1)).accepted
        assert table.submit(winner, cmd.Accept()).accepted


def test_a_seat_out_of_time_loses_the_match_and_the_winner_has_the_match_length() -> None:  # R32
    table = _match(5)
    _win_a_game(table, "ann")
    _win_a_game(table, "bob")
    _win_a_game(table, "ann")
    assert _contest(table).match.score == (2, 1)
    outcome = table.forfeit("ann", "time")
    assert outcome.accepted and outcome.seat == "ann" and outcome.command is None
    assert outcome.events == (Forfeit(0, "time"), MatchEnd(1, (2, 5)))
    assert table.contest.events[-2:] == outcome.events
    match = _contest(table).match
    assert table.contest.is_over() and match.is_over()
    assert match.winner == 1 and match.score == (2, 5) and match.capped_score == (2, 5)
    assert match.forfeited == Forfeit(0, "time")
    assert "player 0 lost the match on time: player 1 wins" in match.status()
    assert outcome.to_dict()["command"] is None
    json.dumps(outcome.to_dict())


def test_a_winner_already_past_the_length_keeps_the_score() -> None:  # R32
    match = Match(3, score=(2, 1), crawford=True)
    match.forfeit("abandoned", player=1)
    assert match.winner == 0 and match.score == (3, 1)
    assert not match.crawford  # the Crawford game is not in play once the match is over


def test_leaving_in_the_middle_of_a_turn_ends_everything() -> None:
    table = _match(3)
    table.submit("ann", cmd.Roll())  # ann 3, bob 1: ann plays 3-1
    assert table.submit("ann", cmd.Step(8, 3)).accepted
    assert table.tentative is not None
    table.forfeit("ann", "abandoned")
    contest = table.contest
    assert table.tentative is None
    assert contest.to_act() == () and contest.phase() == "over" and contest.mover() is None
    assert table.requests() == () and table.actions("ann") == frozenset() and table.actions("bob") == frozenset()
    refused = table.submit("ann", cmd.Confirm())
    assert refused.refusal is not None and refused.refusal.rule == "R32"
    refused = table.submit("bob", cmd.Roll())
    assert refused.refusal is not None and refused.refusal.reason == "the match is over"


def test_a_pending_double_is_gone_once_the_match_is_forfeited() -> None:
    table = _match(5, [(3, 1)])
    table.submit("ann", cmd.Roll())  # ann 3, bob 1: ann plays 3-1
    assert table.submit("ann", cmd.Play("8/5 6/5", confirm=True)).accepted
    assert table.submit("bob", cmd.Double()).accepted
    assert table.contest.offer() is not None
    table.forfeit("ann", "time")  # ann's clock ran out while she thought about the take
    assert table.contest.offer() is None
    snap = table.snapshot("ann")
    assert snap.offer is None and snap.actions == () and snap.to_act == ()


def test_a_money_session_ends_with_the_score_as_it_stands() -> None:
    table = Table.match([Seat("ann"), Seat("bob")], length=0, dice=ScriptedDice([(3, 1), (6, 5)] * 20))
    _win_a_game(table, "ann")
    _win_a_game(table, "ann")
    _win_a_game(table, "bob")
    match = _contest(table).match
    before = match.score
    assert before == (2, 1) and not table.contest.is_over()
    outcome = table.forfeit("bob", "abandoned")
    assert outcome.events == (Forfeit(1, "abandoned"), MatchEnd(0, (2, 1)))
    assert table.contest.is_over() and match.score == before and match.winner == 0
    assert _texts(table, outcome.events) == ["bob left the session.", "The session is over: ann 2, bob 1."]
    snap = table.snapshot(None)
    assert snap.kind == "money" and snap.over and snap.score == (2, 1)
    assert snap.winner == "ann" and snap.forfeit == {"seat": "bob", "reason": "abandoned"}
    assert "session is over" in match.status()


def test_narration() -> None:
    table = _match(5)
    _win_a_game(table, "bob")
    _win_a_game(table, "bob")
    events = table.forfeit("ann", "time").events
    assert _texts(table, events) == ["ann lost the match on time: bob wins.", "bob wins the 5-point match 5-0!"]
    other = _match(3)
    assert _texts(other, other.forfeit("ann", "abandoned").events) == [
        "ann left the match: bob wins.",
        "bob wins the 3-point match 3-0!",
    ]


def test_narration_speaks_to_you() -> None:
    table = Table.match([Seat("You"), Seat("gnu", "random", seed=1)], length=3)
    assert _texts(table, table.forfeit("gnu", "abandoned").events, "You")[0] == "gnu left the match: You win."
    table = Table.match([Seat("You"), Seat("gnu", "random", seed=1)], length=3)
    assert _texts(table, table.forfeit("You", "time").events, "You")[0] == "You lost the match on time: gnu wins."


def test_the_snapshot_shows_the_match_over_and_who_won() -> None:
    table = _match(7)
    _win_a_game(table, "ann")
    table.submit("ann", cmd.Roll())
    table.forfeit("bob", "time")
    for viewer in ("ann", "bob", None):
        snap = table.snapshot(viewer)
        assert snap.over and snap.phase == "over"
        assert snap.winner == "ann" and snap.forfeit == {"seat": "bob", "reason": "time"}
        assert snap.score == (7, 0)
        assert snap.result == "bob lost the match on time: ann wins"
        assert snap.actions == () and snap.legal == () and snap.on_roll is None
        data = json.loads(json.dumps(snap.to_dict()))
        assert data["over"] is True and data["winner"] == "ann" and data["forfeit"]["reason"] == "time"


def test_a_match_played_out_shows_its_winner_and_no_forfeit() -> None:  # R32
    table = _match(1)
    _win_a_game(table, "bob")
    snap = table.snapshot(None)
    assert snap.over and snap.winner == "bob" and snap.forfeit is None
    fresh = _match(1).snapshot(None)
    assert not fresh.over and fresh.winner is None and fresh.forfeit is None


def test_a_forfeited_table_round_trips_and_its_log_replays() -> None:
    table = _match(5)
    _win_a_game(table, "ann")
    table.submit("ann", cmd.Roll())
    table.submit("ann", cmd.Play("8/5 6/5", confirm=True))
    table.forfeit("bob", "abandoned")
    data = json.loads(table.to_json())
    assert [e["type"] for e in data["log"]["events"][-2:]] == ["forfeit", "match_end"]
    again = Table.from_dict(data)
    assert again == table
    assert again.contest.is_over() and again.snapshot("ann").to_dict() == table.snapshot("ann").to_dict()
    match = Match.from_dict(data["log"])
    assert match.forfeited == Forfeit(1, "abandoned") and match.winner == 0 and match.score == (5, 0)
    assert Match.from_json(match.to_json()) == match
    assert Table.from_dict(json.loads(json.dumps(data["log"]))).contest.is_over()  # a bare match log


def test_undo_takes_the_forfeit_back() -> None:
    match = Match(3)
    match.forfeit("time", player=0)
    removed = match.undo()
    assert [e.type for e in removed] == ["forfeit", "match_end"]
    assert not match.is_over() and match.forfeited is None and match.score == (0, 0)


def test_a_log_that_plays_on_after_a_forfeit_does_not_replay() -> None:  # R32
    table = _match(3)
    table.forfeit("ann", "time")
    data = table.to_dict()
    events = data["log"]["events"]
    events.insert(len(events) - 1, {"type": "forfeit", "player": 1, "reason": "time"})
    with pytest.raises(BackgammonError, match="the match is over"):
        Table.from_dict(data)
    data = table.to_dict()
    data["log"]["events"][-2]["reason"] = "bored"
    with pytest.raises(BackgammonError, match="not a reason to forfeit"):
        Table.from_dict(data)
    data = table.to_dict()
    data["log"]["events"][-1]["score"] = [0, 2]  # the winner's score must be the match length
    with pytest.raises(BackgammonError, match="does not replay"):
        Table.from_dict(data)


def test_refusals() -> None:
    table = _match(3)
    with pytest.raises(BackgammonError, match="reason="):
        table.forfeit("ann", "bored")
    with pytest.raises(BackgammonError, match="not a seat"):
        table.forfeit("cy", "time")
    assert not table.contest.is_over() and table.contest.events == _match(3).contest.events
    table.forfeit("ann", "time")
    with pytest.raises(IllegalActionError, match="the match is over") as info:
        table.forfeit("bob", "time")
    assert info.value.refusal is not None and info.value.refusal.rule == "R32"
    with pytest.raises(IllegalActionError, match="the match is over"):
        table.forfeit("ann", "abandoned")
    with pytest.raises(BackgammonError, match="players are 0 and 1"):
        Match(3).forfeit("time", player=2)
    chouette = Table.chouette([Seat("ann"), Seat("bob"), Seat("cy")], dice=ScriptedDice([4, 6, 2]))
    log_before = chouette.to_dict()
    with pytest.raises(BackgammonError, match="not a chouette"):
        chouette.forfeit("ann", "time")
    assert chouette.to_dict() == log_before


def test_events_read_back() -> None:
    assert event_from_dict({"type": "forfeit", "player": 0, "reason": "abandoned"}) == Forfeit(0, "abandoned")
    with pytest.raises(BackgammonError, match="not a reason to forfeit"):
        event_from_dict({"type": "forfeit", "player": 0, "reason": "tired"})
    with pytest.raises(BackgammonError, match="not a player"):
        event_from_dict({"type": "forfeit", "player": 2, "reason": "time"})


def test_bots_do_nothing_once_forfeited() -> None:
    table = Table.match([Seat("a", "random", seed=1), Seat("b", "random", seed=2)], length=5, dice=SeededDice(4))
    for _ in range(6):
        seat = table.bot_to_act()
        assert seat is not None
        table.play_bot(seat)
    assert table.bot_to_act() is not None
    table.forfeit("b", "time")
    assert table.bot_to_act() is None
    with pytest.raises(BackgammonError, match="nothing to decide"):
        decide(table.bot("a"), table, "a")


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 60), st.sampled_from(["a", "b"]), st.sampled_from(["time", "abandoned"]),
       st.sampled_from([0, 1, 3, 7]))
def test_a_forfeit_at_any_moment(seed: int, steps: int, loser: str, reason: str, length: int) -> None:  # R32
    table = Table.match([Seat("a", "random", seed=seed), Seat("b", "random", seed=seed + 1)], length=length,
                        dice=SeededDice(seed))
    for _ in range(steps):
        seat = table.bot_to_act()
        if seat is None:
            break
        table.play_bot(seat)
    match = _contest(table).match
    if match.is_over():
        with pytest.raises(IllegalActionError, match="R32"):
            table.forfeit(loser, reason)
        return
    before = match.score
    events = table.forfeit(loser, reason).events
    side = 0 if loser == "a" else 1
    winner = 1 - side
    assert events[0] == Forfeit(side, reason) and isinstance(events[1], MatchEnd)
    assert match.winner == winner and table.contest.is_over() and table.bot_to_act() is None
    if length:
        assert match.score[winner] == length and match.score[side] == before[side]
    else:
        assert match.score == before
    again = Table.from_json(table.to_json())
    assert again == table and again.snapshot(None).to_dict() == table.snapshot(None).to_dict()
