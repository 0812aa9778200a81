"""Cubeful equities (Janowski), the match equity table and the neural bots' cube and
resignation decisions (backgammon.engine.cube, backgammon.engine.met, bots.neural)."""

from __future__ import annotations

import pytest

from backgammon import Position
from backgammon.bots import CubeResponse, load
from backgammon.bots.neural import ExpertBot
from backgammon.engine.cube import (
    CubeDecision,
    CubeOwner,
    cube_efficiency,
    cubeful_equity,
    dead_equity,
    live_equity,
    money_decision,
    take_point,
)
from backgammon.engine.met import (
    COMPUTED,
    DEFAULT_MET,
    KAZAROSS_XG2,
    MatchEquityTable,
    crawford,
    match_decision,
    met,
    met_table,
    mwc,
    post_crawford,
)
from backgammon.engine.probabilities import Probabilities
from backgammon.matchid import MatchState


def _p(win: float) -> Probabilities:
    return Probabilities(win, 0.0, 0.0, 0.0, 0.0)


def _taker_point(x: float) -> float:
    """Numerically: the doubler's win chance where double/take equals double/pass."""
    lo, hi = 0.5, 1.0
    for _ in range(100):
        mid = 0.5 * (lo + hi)
        d = money_decision(_p(mid), x=x)
        if d.double_take < d.double_pass:
            lo = mid
        else:
            hi = mid
    return 1.0 - 0.5 * (lo + hi)


@pytest.mark.parametrize("x, expected", [(0.0, 0.25), (0.68, 1 / 4.68), (1.0, 0.2)])
def test_take_points_without_gammons(x: float, expected: float) -> None:
    # docstring of engine/cube.py: take point 1 / (4 + x) without gammons
    assert take_point(1.0, 1.0, x) == pytest.approx(expected)
    assert _taker_point(x) == pytest.approx(expected, abs=1e-9)
    assert _taker_point(0.68) == pytest.approx(0.2137, abs=1e-4)


def test_janowski_live_and_dead_lines() -> None:
    # W = L = 1: TP = 0.5/2.5 = 0.2, CP = 2/2.5 = 0.8
    assert live_equity(0.2, 1, 1, CubeOwner.CENTRED) == pytest.approx(-1.0)
    assert live_equity(0.8, 1, 1, CubeOwner.CENTRED) == pytest.approx(1.0)
    assert live_equity(0.5, 1, 1, CubeOwner.CENTRED) == pytest.approx(0.0)
    assert live_equity(0.8, 1, 1, CubeOwner.PLAYER) == pytest.approx(1.0)
    assert live_equity(0.4, 1, 1, CubeOwner.PLAYER) == pytest.approx(0.0)  # -1 + 2.5·0.4
    assert live_equity(0.6, 1, 1, CubeOwner.OPPONENT) == pytest.approx(0.0)  # -1 + 2.5·0.4
    assert dead_equity(0.6, 1, 1) == pytest.approx(0.2)
    # x interpolation: owned cube at p = 0.6 → 0.68·0.5 + 0.32·0.2
    p = _p(0.6)
    assert cubeful_equity(p, CubeOwner.PLAYER, 0.68) == pytest.approx(0.68 * 0.5 + 0.32 * 0.2)
    assert cubeful_equity(p, CubeOwner.CENTRED, 0.0) == pytest.approx(p.equity)
    # gammons: W = 1 + wg / p
    g = Probabilities(0.6, 0.3, 0.0, 0.2, 0.0)
    assert cubeful_equity(g, CubeOwner.CENTRED, 0.0) == pytest.approx(g.equity)
    assert cube_efficiency(False) == 0.68 and 0.6 <= cube_efficiency(True, 50) <= 0.7


def test_money_decisions_clear_cases() -> None:
    assert money_decision(_p(0.5)).action == "no double"
    assert money_decision(_p(0.95)).action == "double, pass"
    assert money_decision(_p(0.7)).action == "double, take"
    # a big gammon chance and no risk: too good to double (no Jacoby)
    too_good = Probabilities(0.97, 0.8, 0.0, 0.0, 0.0)
    assert money_decision(too_good).action == "too good"
    # with the Jacoby rule a centred cube counts no gammons: cash it
    assert money_decision(too_good, jacoby=True).action == "double, pass"
    # R25: a sure gammon under the Jacoby rule: playing on wins 1, as a cash does -> cash
    sure = Probabilities(1.0, 1.0, 0.0, 0.0, 0.0)
    d = money_decision(sure, jacoby=True)
    assert d.no_double == d.double_pass == 1.0 and d.double and d.action == "double, pass"
    assert money_decision(sure).action == "too good"  # without it the gammon counts
    # a tie of ND with DT (the taker takes) is not a double
    assert not CubeDecision(0.2, 0.2, 1.0).double and CubeDecision(0.2, 0.2, 1.0).action == "no double"
    # cube owned by the opponent: no cube action
    assert not money_decision(_p(0.9), owner=CubeOwner.OPPONENT).double
    # beaver: the taker is the favourite
    assert money_decision(_p(0.4)).beaver and not money_decision(_p(0.7)).beaver


@pytest.mark.parametrize("t", [KAZAROSS_XG2, COMPUTED], ids=lambda t: t.name)
def test_match_equity_table_shape(t: MatchEquityTable) -> None:
    table = met_table(25, t)
    assert met(1, 1, t) == 0.5 and mwc(1, 1, table=t) == 0.5
    for a in range(1, 26):
        assert table[a - 1][a - 1] == pytest.approx(0.5)
        for b in range(1, 26):
            assert table[a - 1][b - 1] + table[b - 1][a - 1] == pytest.approx(1.0, abs=2e-5)
            if b < 25:  # the further the opponent is from winning, the better
                assert table[a - 1][b] > table[a - 1][b - 1]
            if a < 25:
                assert table[a][b - 1] < table[a - 1][b - 1]
        # post-Crawford: the trailer's chances fall as it needs more points
        if a > 1:
            assert t.mwc(a, 1, post=True) <= t.mwc(a - 1, 1, post=True)
            assert t.mwc(1, a, post=True) == pytest.approx(1 - t.mwc(a, 1, post=True))
    assert t.mwc(0, 3) == 1.0 and t.mwc(3, 0) == 0.0
    assert t.mwc(27, 30) > 0.5 > t.mwc(30, 27)  # beyond the table: the model


def test_kazaross_xg2_values() -> None:
    """Spot values of Kazaross-XG2 (met/Kazaross-XG2.xml of GNU Backgammon)."""
    assert mwc(2, 3) == 0.59947 and mwc(3, 2) == 0.40053
    assert mwc(1, 2) == 0.67736  # Crawford game, leader
    assert mwc(2, 1, post=True) == 0.48803  # post-Crawford, the free drop included
    assert mwc(1, 3, post=True) == pytest.approx(1 - 0.32264)
    assert mwc(7, 5) == 0.37362 and mwc(25, 24) == 0.46914
    assert DEFAULT_MET is KAZAROSS_XG2


def test_computed_model() -> None:
    # the Crawford leader (1-away) against 2-away: ½·(1 − g)·½ + ½·g for the trailer
    assert crawford(2) == pytest.approx(1 - 0.5 * (0.74 * 0.5 + 0.26))
    assert 0.6 < met(2, 4, COMPUTED) < 0.75 and 0.55 < met(2, 3, COMPUTED) < 0.65
    # post-Crawford: 2-away doubles at once; odd/even pairs; decreasing
    assert post_crawford(1) == 0.5 and post_crawford(2) == 0.5
    assert post_crawford(3) == pytest.approx(0.5 * (0.74 * 0.5 + 0.26))
    assert post_crawford(4) == pytest.approx(post_crawford(3))
    assert all(post_crawford(n + 1) <= post_crawford(n) for n in range(1, 20))
    assert COMPUTED.mwc(1, 3, post=True) == pytest.approx(1 - post_crawford(3))
    # the model is within 2% of Kazaross-XG2 at every score up to 25-away
    for a in range(1, 26):
        for b in range(1, 26):
            assert abs(COMPUTED.mwc(a, b) - KAZAROSS_XG2.mwc(a, b)) < 0.02
            assert abs(COMPUTED.mwc(a, b, True) - KAZAROSS_XG2.mwc(a, b, True)) < 0.02


def test_match_decisions_on_either_table() -> None:
    even = Probabilities(0.5, 0.13, 0.0, 0.13, 0.0)
    strong = Probabilities(0.75, 0.1, 0.0, 0.05, 0.0)
    for t in (KAZAROSS_XG2, COMPUTED):
        assert match_decision(even, 7, 7, table=t).action == "no double"
        d = match_decision(strong, 7, 7, table=t)
        assert d.double and d.take
        # 2-away / 4-away: the leader's take point is lower than the trailer's
        assert match_decision(even, 4, 2, table=t).no_double < 0.5


def test_match_decisions() -> None:
    assert match_decision(_p(0.5), 7, 7).action == "no double"
    assert match_decision(_p(0.97), 7, 7).action in ("double, pass", "too good")
    assert match_decision(_p(0.97), 7, 7).double
    # Crawford game: never
    assert not match_decision(_p(0.97), 3, 1, crawford_game=True).double
    # dead cube: 2-away with the cube at 2 wins the match with any win
    assert not match_decision(_p(0.97), 2, 5, cube=2, owner=CubeOwner.PLAYER).double
    # the taker nearly sure to lose passes
    assert not match_decision(_p(0.97), 5, 5).take
    # post-Crawford, an even game with gammons: the trailer doubles at once, the leader
    # takes (or it is a free drop at 2-away); the leader's cube is dead
    even = Probabilities(0.5, 0.13, 0.0, 0.13, 0.0)
    for n in (2, 3, 4, 5):
        d = match_decision(even, n, 1, post=True)
        assert d.double and d.take
        assert not match_decision(even, 1, n, post=True).available


@pytest.fixture(scope="module")
def bot() -> ExpertBot:
    b = load("expert")
    assert isinstance(b, ExpertBot)
    return b


# the side on roll with two checkers left against fifteen far away: a sure win, mostly a gammon
WINNING = Position([0, 0, 0, 2, 0, 0] + [0] * 19, [0] * 6 + [5, 5, 5] + [0] * 16)


def test_bot_cube_clear_cases(bot: ExpertBot) -> None:
    initial = Position.initial()
    assert not bot.should_double(initial, MatchState())
    assert not bot.should_double(initial, MatchState(match_length=7))
    assert bot.respond_to_double(initial, MatchState(player_on_roll=1)) is not CubeResponse.PASS
    # the doubler (on roll, in WINNING) wins for sure: the bot passes
    loser = WINNING.swap()
    assert bot.respond_to_double(loser, MatchState(player_on_roll=1)) is CubeResponse.PASS
    assert bot.respond_to_double(loser, MatchState(player_on_roll=1, match_length=7)) \
        is CubeResponse.PASS
    # money with Jacoby: cash it (a centred cube counts no gammons)
    assert bot.should_double(WINNING, MatchState())
    # without Jacoby: too good, play on for the gammon
    assert not bot.should_double(WINNING, MatchState(jacoby=False))
    # Crawford game and a dead cube: never double
    assert not bot.should_double(WINNING, MatchState(match_length=5, score=(3, 4), crawford=True))
    assert not bot.should_double(
        WINNING, MatchState(match_length=5, score=(3, 0), cube_value=2, cube_owner=0))
    # beaver only in money play
    for n in (3, 7):
        answer = bot.respond_to_double(Position.initial(), MatchState(player_on_roll=1, match_length=n))
        assert answer is not CubeResponse.BEAVER


def test_bot_resignations(bot: ExpertBot) -> None:
    # the resigner (player 1) is sure to lose a gammon: a single is not enough (no Jacoby),
    # a gammon is
    view = WINNING  # seen from the bot, player 0, on roll; player 1 resigns
    state = MatchState(player_on_roll=0, turn=0, resignation=1, jacoby=False)
    assert not bot.accept_resignation(view, state, "single")
    assert bot.accept_resignation(view, state, "gammon")
    # a losing bot accepts any resignation
    losing = WINNING.swap()
    assert bot.accept_resignation(losing, MatchState(player_on_roll=1, turn=0, resignation=1), 1)
    assert bot.accept_resignation(
        losing, MatchState(player_on_roll=1, turn=0, resignation=1, match_length=7), 1)
    # in a match at 1-away a single is the match: accepted
    assert bot.accept_resignation(
        view, MatchState(player_on_roll=0, turn=0, resignation=1, match_length=5, score=(4, 0)), 1)
    # 7-point match at 0-0: a sure gammon is worth more than a single
    assert not bot.accept_resignation(
        view, MatchState(player_on_roll=0, turn=0, resignation=1, match_length=7), 1)

