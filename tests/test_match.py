"""Matches to N points with the Crawford rule, and money sessions."""

from __future__ import annotations

import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from backgammon.dice import ScriptedDice, SeededDice
from backgammon.errors import BackgammonError, IllegalActionError
from backgammon.events import GameStart, MatchEnd, ResultKind
from backgammon.game import Game, Phase
from backgammon.match import Match
from backgammon.matchid import GameState, MatchState
from backgammon.rules import Rules
from tests.test_game import check_result, random_action


def win(match: Match, winner: int, points: int) -> None:
    """Let ``winner`` win the current game by ``points`` (1-3, cube 1) through a resignation."""
    game = match.game
    assert game.cube_value == 1
    if game.phase is Phase.OPENING:
        game.roll()
    if game.on_roll != 1 - winner:
        if game.phase is Phase.ROLL:
            game.roll()
        legal = game.legal_moves()
        game.play(legal[0] if len(legal) else "")
    game.resign(points, player=1 - winner)
    game.accept(player=winner)


# Each case: match length, the games' (winner, points), the Crawford flag of every game
# started (the last entry: the game in progress, or the last game if the match is over).
CRAWFORD_CASES = [
    ("5pt-leader-reaches-4", 5, [(0, 2), (0, 2), (1, 1), (1, 2)], [False, False, True, False, False]),
    ("4pt-reaches-3-by-steps", 4, [(0, 2), (0, 1)], [False, False, True]),
    ("3pt-trailer-wins-crawford", 3, [(1, 2), (0, 1), (0, 1)], [False, True, False, False]),
    ("5pt-second-player-at-4-later", 5, [(0, 3), (0, 1), (1, 1), (1, 3)], [False, False, True, False, False]),
    ("5pt-jump-past-4", 5, [(0, 3), (0, 2)], [False, False]),
    ("2pt-first-win-is-crawford", 2, [(1, 1)], [False, True]),
    ("1pt-no-crawford", 1, [], [False]),
    ("7pt-gammon-to-6", 7, [(1, 3), (1, 3), (0, 1)], [False, False, True, False]),
]


@pytest.mark.parametrize(
    "length, wins, flags", [c[1:] for c in CRAWFORD_CASES], ids=[c[0] for c in CRAWFORD_CASES]
)
def test_crawford_game(length: int, wins: list[tuple[int, int]], flags: list[bool]) -> None:  # R32, R33
    match = Match(length, dice=SeededDice(length))
    for winner, points in wins:
        win(match, winner, points)
    assert [g.crawford for g in match.games] == flags
    assert [s.crawford for s in match.events if isinstance(s, GameStart)] == flags
    for game in match.games:
        if game.crawford:
            assert not any(e.type == "double" for e in game.events)


def test_no_double_in_the_crawford_game_of_a_match() -> None:  # R33
    match = Match(3, dice=SeededDice(1), score=(2, 0), crawford=True)
    assert match.crawford and match.game.crawford
    match.game.roll()
    if match.game.phase is Phase.PLAY:
        match.game.play(match.game.legal_moves()[0])
    with pytest.raises(IllegalActionError, match=r"Crawford game \(R33\)"):
        match.game.double()
    win(match, 1, 1)
    assert not match.crawford and match.post_crawford  # R33: the cube is back
    match.game.roll()
    if match.game.phase is Phase.PLAY:
        match.game.play(match.game.legal_moves()[0])
    assert match.game.can_double()


def test_match_ends_at_n_and_the_score_may_pass_it() -> None:  # R32
    match = Match(3, dice=SeededDice(3))
    win(match, 0, 1)
    win(match, 1, 3)
    assert match.is_over() and match.winner == 1
    assert match.score == (1, 3) and match.capped_score == (1, 3)
    assert isinstance(match.events[-1], MatchEnd) and match.events[-1] == MatchEnd(1, (1, 3))
    over = Match(3, dice=SeededDice(4))
    win(over, 0, 2)
    win(over, 0, 3)  # a backgammon at 2-away: 5 points
    assert over.score == (5, 0) and over.capped_score == (3, 0)
    assert [r.points for r in over.results] == [2, 3]
    assert over.counted_points(0) == 2 and over.counted_points(1) == 1
    assert over.match_state().score == (3, 0)
    assert over.match_state().game_state is GameState.RESIGNED
    assert MatchState.from_match_id(over.match_id()) == over.match_state()
    assert over.game.is_over() and len(over.games) == 2
    with pytest.raises(IllegalActionError):
        over.game.roll()
    assert "player 0 wins the match" in over.status()


def test_one_point_match() -> None:  # R32
    match = Match(1, dice=SeededDice(5))
    assert not match.crawford and not match.post_crawford
    win(match, 1, 2)
    assert match.is_over() and match.winner == 1 and match.counted_points(0) == 1


@pytest.mark.parametrize(
    "kwargs",
    [
        {"length": -1},
        {"length": True},
        {"length": 5, "score": (5, 0)},
        {"length": 5, "score": (3, 0), "crawford": True},
        {"length": 0, "post_crawford": True},
        {"length": 5, "score": (4, 0), "crawford": True, "post_crawford": True},
        {"length": 5, "rules": "x"},
    ],
)
def test_bad_match(kwargs: dict[str, object]) -> None:  # R32, R33
    with pytest.raises(BackgammonError):
        Match(**kwargs)  # type: ignore[arg-type]


def test_money_only_options_do_not_apply_in_a_match() -> None:  # R34
    match = Match(
        5, Rules(jacoby=True, beavers=True, automatic_doubles=True), dice=ScriptedDice([(3, 3), (4, 1)])
    )
    assert match.rules.match_length == 5
    match.game.roll()
    assert match.game.cube_value == 1 and len(match.game.events) == 2  # no automatic double
    match.game.play(match.game.legal_moves()[0])
    match.game.double()
    with pytest.raises(IllegalActionError, match=r"\(R34\)"):
        match.game.beaver()


def test_money_session() -> None:  # R25, R30 apply in money play
    session = Match.money(Rules(jacoby=True), dice=SeededDice(8))
    assert session.is_money and session.length == 0
    win(session, 0, 2)  # Jacoby: a gammon with the cube centred counts 1
    win(session, 1, 3)
    win(session, 1, 1)
    assert session.score == (1, 2) and session.capped_score == (1, 2)
    assert [r.points for r in session.results] == [1, 1, 1]
    assert session.counted_points(1) == 1
    assert not session.is_over() and session.game_number == 4 and session.winner is None
    assert session.game.score == (1, 2)
    assert session.status().startswith("money session, game 4, score 1-2")
    with pytest.raises(IllegalActionError, match="not over"):
        session.counted_points(3)


def test_log_json_replay_and_undo() -> None:
    match = Match(3, Rules(), dice=SeededDice(11))
    win(match, 0, 2)
    match.game.roll((3, 1))
    data = json.loads(match.to_json())
    assert data["format"] == "backgammon-match" and data["version"] == 1
    assert data["rules"]["match_length"] == 3
    types = [e["type"] for e in data["events"]]
    assert types[0] == "game_start" and "game_end" in types and types.count("game_start") == 2
    assert Match.from_json(match.to_json()) == match
    assert match.copy() == match
    # undo the opening roll of game 2, then the acceptance that ended game 1
    assert [e.type for e in match.undo()] == ["opening_roll"]
    removed = match.undo()
    assert [e.type for e in removed] == ["accept", "game_end", "game_start"]
    assert match.game_number == 1 and match.score == (0, 0) and match.game.phase is Phase.RESIGN
    match.game.accept()
    assert match.score == (2, 0) and match.crawford  # the match goes on after the undo


def test_match_replay_rejects_a_bad_log() -> None:
    match = Match(3, dice=SeededDice(12))
    win(match, 0, 3)
    data = match.to_dict()
    data["events"][-1] = MatchEnd(1, (0, 3)).to_dict()
    with pytest.raises(BackgammonError, match="does not replay"):
        Match.from_dict(data)
    data = match.to_dict()
    data["events"].append({"type": "roll", "player": 0, "dice": [1, 2]})
    with pytest.raises(IllegalActionError, match="match is over"):
        Match.from_dict(data)
    with pytest.raises(BackgammonError):
        Match.from_json('{"format": "backgammon-game", "version": 1}')
    with pytest.raises(BackgammonError):
        Match.from_json("{")


def test_from_xgid() -> None:
    match = Match.from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:4:2:1:5:10")
    assert (match.length, match.score, match.crawford, match.game.on_roll) == (5, (2, 4), True, 1)
    assert match.xgid() == "XGID=-b----E-C---eE---c-e----B-:0:0:1:52:4:2:1:5:10"
    assert Match.from_json(match.to_json()) == match
    post = Match.from_xgid("XGID=-b----E-C---eE---c-e----B-:1:1:1:00:4:2:0:5:10")
    assert post.post_crawford and not post.crawford and post.game.can_double()
    assert "post-Crawford" in post.status()
    money = Match.from_xgid("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:1:0:10")
    assert money.is_money and money.rules.jacoby


def test_match_id_during_a_match() -> None:
    match = Match(7, dice=ScriptedDice([(5, 2)]), score=(2, 5))
    match.game.roll()
    state = match.match_state()
    assert (state.match_length, state.score, state.dice, state.player_on_roll) == (7, (2, 5), (5, 2), 0)
    assert match.match_id() == match.game.match_id()
    assert "7-point match, game 1, score 2-5" in repr(match)


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from([1, 3, 5]), st.booleans(), st.integers(0, 2**32))
def test_random_matches(length: int, beavers: bool, seed: int) -> None:  # R32, R33
    rng = random.Random(seed)
    match = Match(length, Rules(beavers=beavers, jacoby=True), dice=SeededDice(seed))
    steps = 0
    while not match.is_over():
        random_action(match.game, rng)
        steps += 1
        assert steps < 20000
    results = match.results
    assert len(results) == len(match.games)
    for game in match.games:
        check_result(game)
    totals = [sum(r.points for r in results if r.winner == p) for p in (0, 1)]
    assert list(match.score) == totals
    winner = match.winner
    assert winner is not None and match.score[winner] >= length > match.score[1 - winner]
    # R33: the Crawford game is the one right after a player first reaches N - 1
    crawford = [g.crawford for g in match.games]
    assert crawford.count(True) <= 1
    first = next((i for i, g in enumerate(match.games[1:], 1) if length - 1 in g.score), None)
    if length > 1 and first is not None:
        assert crawford == [i == first for i in range(len(crawford))]
    else:
        assert not any(crawford)
    for game in match.games:
        if game.crawford:
            assert not any(e.type in ("double", "take", "pass", "beaver") for e in game.events)
        assert not any(e.type == "beaver" for e in game.events)  # R34
    assert Match.from_json(match.to_json()) == match
    assert all(r.kind in ResultKind for r in results)
    again = Game.replay(
        match.games[-1].events, match.rules, score=match.games[-1].score, crawford=match.games[-1].crawford
    )
    assert again == match.games[-1]
