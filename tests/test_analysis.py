"""bots.analysis: play rankings, cube / take / resignation advice as values; warm_up."""

from __future__ import annotations

import threading

import pytest

from backgammon import Position
from backgammon.bots import analysis
from backgammon.bots.analysis import (
    EQUITY,
    MWC,
    SCORE,
    cube_advice,
    rank_plays,
    resignation_advice,
    take_advice,
    warm_up,
)
from backgammon.matchid import MatchState
from backgammon.rules import Rules


def _pos(player: dict[int, int], opponent: dict[int, int]) -> Position:
    """A position from {point: checkers} of each side (own numbering, 25 the bar)."""
    p, o = [0] * 25, [0] * 25
    for k, v in player.items():
        p[k - 1] = v
    for k, v in opponent.items():
        o[k - 1] = v
    return Position(p, o)


# the player on roll: 15 checkers home and ahead in the race by a lot -> double, pass
CRUSHING = _pos({1: 3, 2: 3, 3: 3, 4: 3, 5: 3}, {13: 5, 14: 5, 15: 5})


def test_money_ranking_is_consistent() -> None:
    legal = Position.initial().legal_moves((3, 1))
    r = rank_plays(legal, MatchState())
    assert r.unit == EQUITY and r.adviser == "expert" and len(r) == len(legal) == 16
    assert r.plies == 1 and r.deep == 5
    best = r.best
    assert best is not None and best.move == "8/5 6/5" and best.difference == 0.0 and best.rank == 1
    assert sorted(p.index for p in r.plays) == list(range(16))
    deep = [p for p in r.plays if p.plies == 1]
    assert len(deep) == 5 and r.plays[:5] == tuple(deep)
    assert all(deep[i].value >= deep[i + 1].value for i in range(4))
    assert all(p.value <= best.value + 1e-12 and p.difference <= 0 for p in r.plays)
    for p in r.plays:
        assert str(legal[p.index]) == p.move
        assert p.probabilities is not None
        assert abs(p.probabilities.equity - p.value) < 1e-9  # money: cubeless equity
    assert [p.rank for p in r.plays] == list(range(1, 17))


def test_zero_ply_ranking_and_count() -> None:
    legal = Position.initial().legal_moves((6, 4))
    r0 = rank_plays(legal, plies=0)
    assert r0.plies == 0 and r0.deep == 0 and all(p.plies == 0 for p in r0.plays)
    values = [p.value for p in r0.plays]
    assert values == sorted(values, reverse=True)
    r2 = rank_plays(legal, count=2)
    assert r2.deep == 2 and [p.plies for p in r2.plays[:3]] == [1, 1, 0]
    with pytest.raises(ValueError):
        rank_plays(legal, plies=3)


def test_match_ranking_uses_match_winning_chances() -> None:
    legal = Position.initial().legal_moves((3, 1))
    state = MatchState(match_length=5, score=(2, 3))
    r = rank_plays(legal, state)
    assert r.unit == MWC
    for p in r.plays:
        assert 0.0 <= p.value <= 1.0
        probs = p.probabilities
        assert probs is not None
        assert 0.0 <= probs.win_backgammon <= probs.win_gammon <= probs.win <= 1.0
        assert 0.0 <= probs.lose_backgammon <= probs.lose_gammon <= 1.0 - probs.win + 1e-9
    best = r.best
    assert best is not None and best.difference == 0.0
    # a single win (3-away -> 1 point more) or loss keeps it between the scores' MWC
    assert 0.2 < best.value < 0.6


def test_single_and_no_legal_play() -> None:
    one = _pos({6: 1}, {6: 2}).legal_moves((6, 6))
    r = rank_plays(one)
    assert len(r) == 1 and r.best is not None and r.best.difference == 0.0 and r.best.index == 0
    none = _pos({25: 1, 2: 14}, {1: 2, 2: 2, 3: 2, 4: 2, 5: 2, 6: 2, 13: 3}).legal_moves((6, 6))
    assert len(none) == 0
    empty = rank_plays(none)
    assert empty.best is None and len(empty) == 0 and empty.plays == ()
    assert rank_plays(none, pubeval=True).best is None


def test_pubeval_fallback(monkeypatch: pytest.MonkeyPatch) -> None:
    legal = Position.initial().legal_moves((6, 5))
    r = rank_plays(legal, pubeval=True)
    assert r.unit == SCORE and r.adviser == "pubeval" and r.plies == 0
    assert r.best is not None and r.best.move == "24/13" and r.best.probabilities is None
    # the engine cannot load: every function falls back on pubeval's rules of thumb (an
    # action, no numbers)
    monkeypatch.setattr(analysis, "engine", lambda: None)
    assert rank_plays(legal).adviser == "pubeval"
    cube = cube_advice(Position.initial(), MatchState())
    assert (cube.unit, cube.action, cube.available, cube.no_double, cube.probabilities) == (
        "pubeval", "no double", True, None, None)
    assert cube.take is None and not cube.double
    race = Position([0, 0, 0, 2, 3, 3] + [0] * 19, [0, 0, 2, 3, 3, 2] + [0] * 19)
    assert cube_advice(race, MatchState()).action == "double"
    owned = cube_advice(race, MatchState(cube_value=2, cube_owner=1))
    assert (owned.action, owned.available) == ("no cube action", False)
    take = take_advice(Position.initial(), MatchState(double_offered=True, turn=1))
    assert (take.unit, take.action, take.take, take.probabilities) == ("pubeval", "take", None, None)
    assert take_advice(race.swap(), MatchState(double_offered=True, turn=1)).action == "pass"
    resign = resignation_advice(Position.initial(), MatchState(player_on_roll=1, turn=0, resignation=1), 1)
    assert (resign.unit, resign.points, resign.offered, resign.play_on) == ("pubeval", 1, None, None)
    assert analysis.expert_bot() is None


def test_cube_advice_double_pass_and_no_double() -> None:
    crushing = cube_advice(CRUSHING, MatchState(jacoby=False))
    assert crushing is not None and crushing.unit == EQUITY
    assert crushing.action in ("double, pass", "too good") and crushing.available
    assert crushing.probabilities.win > 0.9 and not crushing.take
    start = cube_advice(Position.initial(), MatchState())
    assert start is not None and start.action == "no double" and not start.double
    assert start.double_pass == 1.0 and start.no_double > start.double_take
    assert abs(start.probabilities.win - 0.5) < 0.1
    # the cube is the opponent's: no cube action
    owned = cube_advice(CRUSHING, MatchState(cube_value=2, cube_owner=1))
    assert owned is not None and owned.action == "no cube action" and not owned.available
    # the cube limit forbids the double
    capped = cube_advice(CRUSHING, MatchState(), Rules(cube_limit=1))
    assert capped is not None and capped.action == "no cube action"


def test_cube_advice_in_a_match_is_in_mwc() -> None:
    state = MatchState(match_length=7, score=(3, 3))
    a = cube_advice(CRUSHING, state)
    assert a is not None and a.unit == MWC
    assert all(0.0 <= v <= 1.0 for v in (a.no_double, a.double_take, a.double_pass))
    assert a.action in ("double, pass", "too good")
    crawford = cube_advice(CRUSHING, MatchState(match_length=7, score=(6, 3), crawford=True))
    assert crawford is not None and crawford.action == "no cube action"


def test_take_advice_and_beavers() -> None:
    # the doubler (on roll) is crushing: the doubled player passes
    doubled = MatchState(double_offered=True, turn=1, player_on_roll=0, jacoby=False)
    a = take_advice(CRUSHING.swap(), doubled)
    assert a is not None and a.action == "pass" and a.pass_ == -1.0 and a.take < a.pass_
    # the doubler is far behind: taking is clearly good -> beaver only when the rules allow
    bad = CRUSHING.swap()  # the doubler is the one crushed
    b = take_advice(CRUSHING, MatchState(double_offered=True, turn=1, player_on_roll=0), Rules(beavers=True))
    assert b is not None and b.take > 0.3 and b.action == "beaver" and b.beaver
    no = take_advice(CRUSHING, MatchState(double_offered=True, turn=1, player_on_roll=0), Rules(beavers=False))
    assert no is not None and no.action == "take" and not no.beaver
    assert bad == CRUSHING.swap()
    # a match has no beavers; values are MWC
    m = take_advice(CRUSHING, MatchState(double_offered=True, turn=1, match_length=7, score=(2, 2)),
                    Rules(beavers=True, match_length=7))
    assert m is not None and m.unit == MWC and m.action == "take" and 0.0 <= m.pass_ <= m.take <= 1.0


def test_roller_beaver_advice() -> None:
    # the roller is crushed: doubling would be beavered when beavers are on
    a = cube_advice(CRUSHING.swap(), MatchState(jacoby=False), Rules(beavers=True))
    assert a is not None and a.action == "no double, beaver" and a.beaver
    b = cube_advice(CRUSHING.swap(), MatchState(jacoby=False), Rules(beavers=False))
    assert b is not None and b.action == "no double" and not b.beaver


def test_resignation_advice() -> None:
    # player 1 (on roll) resigns a single game to player 0 in a crushing position for 0
    offer = MatchState(player_on_roll=1, turn=0, resignation=1, jacoby=False)
    single = resignation_advice(CRUSHING, offer, 1)
    assert single is not None and not single.accept and single.offered == 1.0
    assert single.play_on is not None and single.play_on > single.offered
    gammon = resignation_advice(CRUSHING, MatchState(player_on_roll=1, turn=0, resignation=3, jacoby=False), 3)
    assert gammon is not None and gammon.accept
    # the start of a game: a single game is worth more than playing on
    even = resignation_advice(Position.initial(), offer, 1)
    assert even is not None and even.accept and even.play_on is not None and even.play_on < 1.0
    # match: values in MWC
    m = resignation_advice(CRUSHING, MatchState(player_on_roll=1, turn=0, resignation=1, match_length=5,
                                                score=(0, 0)), 1)
    assert m is not None and m.unit == MWC and 0.0 < m.offered < 1.0


def test_warm_up_is_idempotent_and_thread_safe() -> None:
    threads = [threading.Thread(target=warm_up) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert warm_up() is True and warm_up() is True
    analysis.warm_up_in_background().join(timeout=60)
