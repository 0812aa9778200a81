"""Bots offering to resign (R31), as gnubg does: the policy (``Bot.offer_resignation``,
``resignation_offer``, ``last_roll_chances``) and the terminal's handling of the offer.

R31: a player may resign a single game, a gammon or a backgammon (times the cube); the
opponent accepts (the game ends at that value) or declines (play goes on). What a level is
worth: R22 single, R23 gammon, R24 backgammon, R25 the Jacoby rule, R32 a match's length.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from backgammon import Game, Match, Position, Rules
from backgammon.bots import load
from backgammon.bots.base import MATCH_RESIGN_TOLERANCE, last_roll_chances, resignation_offer
from backgammon.bots.neural import ExpertBot
from backgammon.matchid import MatchState
from backgammon.terminal.dice import SessionDice
from tests.conftest import board
from tests.test_terminal import Run

MONEY = MatchState(jacoby=False)

#: The bot (on roll) has borne off one checker and needs four rolls at least; the opponent
#: needs two at most (exact bear-off): the bot cannot win and cannot lose a gammon (R22).
LOST_BEAROFF = board({6: 14}, {24: 4})
#: All 15 of the bot's checkers on its 13-point, the opponent's last on its 1-point: the
#: opponent bears off with any roll, the bot can save nothing (R23).
GAMMON_RACE = board({13: 15}, {24: 1})
#: The same with the bot's checkers in the opponent's home board: a backgammon (R24).
BACKGAMMON_RACE = board({20: 15}, {24: 1})
#: 15 checkers on the bot's 6-point: a 6 (or 5-1, 4-2, 3-3, 2-2) saves the gammon.
SAVABLE_GAMMON = board({6: 15}, {24: 1})


@pytest.fixture(scope="module")
def expert() -> ExpertBot:
    bot = load("expert")
    assert isinstance(bot, ExpertBot)
    return bot


# -- the rules side: what is left, what a level is worth -----------------------------------


def test_last_roll_chances_are_exact_when_the_opponent_finishes_next() -> None:
    # R21-R24 with one roll to go: the bot's best play of each roll decides
    assert last_roll_chances(GAMMON_RACE) == (0.0, 1.0, 0.0)
    assert last_roll_chances(BACKGAMMON_RACE) == (0.0, 1.0, 1.0)
    assert last_roll_chances(SAVABLE_GAMMON) == (0.0, 19 / 36, 0.0)
    # the bot bears off its last two checkers from its 2-point with 1-1 or a roll without
    # a 1 (26 of 36): then it wins first (R21)
    assert last_roll_chances(board({2: 2}, {24: 1})) == (26 / 36, 0.0, 0.0)
    # not a one-roll ending: contact, or the opponent may need two rolls
    assert last_roll_chances(Position.initial()) is None
    assert last_roll_chances(LOST_BEAROFF) is None
    assert last_roll_chances(board({13: 15}, {24: 1, 18: 1})) is None


def test_r31_policy_offers_only_the_result_that_is_practically_certain() -> None:
    # R22-R24: a single, a gammon or a backgammon only when every other result is
    # practically impossible (below RESIGN_TOLERANCE, 0.001)
    assert resignation_offer(LOST_BEAROFF, MONEY, 0.0, 0.0, 0.0) == 1
    assert resignation_offer(GAMMON_RACE, MONEY, 0.0, 1.0, 0.0) == 2
    assert resignation_offer(BACKGAMMON_RACE, MONEY, 0.0, 1.0, 1.0) == 3
    assert resignation_offer(GAMMON_RACE, MONEY, 0.0, 0.9995, 0.0) == 2
    assert resignation_offer(GAMMON_RACE, MONEY, 0.0, 0.99, 0.0) == 0  # the gammon may be saved
    assert resignation_offer(GAMMON_RACE, MONEY, 0.002, 0.998, 0.0) == 0  # it may still win
    assert resignation_offer(SAVABLE_GAMMON, MONEY, 0.0, 19 / 36, 0.0) == 0
    assert resignation_offer(BACKGAMMON_RACE, MONEY, 0.0, 1.0, 0.5) == 0
    # what the rules exclude is impossible whatever the estimate: no backgammon from the
    # 13-point (R24), no gammon once a checker is off (R23)
    assert resignation_offer(GAMMON_RACE, MONEY, 0.0, 1.0, 0.01) == 2
    assert resignation_offer(LOST_BEAROFF, MONEY, 0.0, 0.01, 0.0) == 1


def test_r25_jacoby_every_loss_is_worth_a_single_game() -> None:
    # R25: cube centred, money, Jacoby: a gammon counts as a single game: offer the single
    jacoby = MatchState(jacoby=True)
    assert resignation_offer(GAMMON_RACE, jacoby, 0.0, 1.0, 0.0) == 1
    assert resignation_offer(SAVABLE_GAMMON, jacoby, 0.0, 19 / 36, 0.0) == 1
    # the cube turned: gammons count again
    turned = MatchState(jacoby=True, cube_value=2, cube_owner=1)
    assert resignation_offer(GAMMON_RACE, turned, 0.0, 1.0, 0.0) == 2
    assert resignation_offer(SAVABLE_GAMMON, turned, 0.0, 19 / 36, 0.0) == 0


def test_r32_match_play_counts_only_what_the_opponent_needs() -> None:
    # R32: the opponent (player 1) is 1-away: any resignation gives it the match, so the
    # single game suffices, and only when the game cannot be won at all
    one_away = MatchState(match_length=5, score=(0, 4), player_on_roll=0)
    assert resignation_offer(GAMMON_RACE, one_away, 0.0, 1.0, 0.0) == 1
    assert resignation_offer(BACKGAMMON_RACE, one_away, 0.0, 1.0, 1.0) == 1
    assert resignation_offer(LOST_BEAROFF, one_away, 0.0, 0.0, 0.0) == 1
    assert resignation_offer(LOST_BEAROFF, one_away, 0.0005, 0.0, 0.0) == 0
    assert resignation_offer(LOST_BEAROFF, one_away, MATCH_RESIGN_TOLERANCE, 0.0, 0.0) == 1
    # 2-away: a gammon is the match; a single game is not
    two_away = MatchState(match_length=5, score=(0, 3), player_on_roll=0)
    assert resignation_offer(GAMMON_RACE, two_away, 0.0, 1.0, 0.0) == 2
    assert resignation_offer(GAMMON_RACE, two_away, 0.0005, 0.9995, 0.0) == 0
    assert resignation_offer(LOST_BEAROFF, two_away, 0.0005, 0.0, 0.0) == 1
    assert resignation_offer(BACKGAMMON_RACE, two_away, 0.0, 1.0, 1.0) == 2
    # the bot is player 1: the opponent is player 0
    assert (
        resignation_offer(
            BACKGAMMON_RACE, MatchState(match_length=5, score=(3, 0), player_on_roll=1), 0.0, 1.0, 1.0
        )
        == 2
    )
    # cube at 2, opponent 3-away: a single game (2) does not end the match, a gammon (4) does
    cubed = MatchState(match_length=7, score=(0, 4), player_on_roll=0, cube_value=2, cube_owner=0)
    assert resignation_offer(GAMMON_RACE, cubed, 0.0, 1.0, 0.0) == 2
    assert resignation_offer(BACKGAMMON_RACE, cubed, 0.0, 1.0, 1.0) == 2


# -- the bots ------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["random", "pubeval"])
def test_r31_default_bots_never_resign(name: str) -> None:
    bot = load(name)
    for pos in (Position.initial(), LOST_BEAROFF, GAMMON_RACE, BACKGAMMON_RACE):
        assert bot.offer_resignation(pos, MONEY) == 0


def test_r31_expert_offers_a_single_game_in_a_lost_bear_off(expert: ExpertBot) -> None:
    # R22: exact bear-off probabilities: no win, no gammon
    assert expert.evaluator.evaluate(LOST_BEAROFF).win < MATCH_RESIGN_TOLERANCE
    assert expert.offer_resignation(LOST_BEAROFF, MONEY) == 1
    assert expert.offer_resignation(LOST_BEAROFF, MatchState(jacoby=True)) == 1


def test_r23_r24_expert_offers_a_gammon_or_a_backgammon(expert: ExpertBot) -> None:
    # R23: 15 checkers left, the opponent nearly done
    assert expert.offer_resignation(GAMMON_RACE, MONEY) == 2
    assert expert.offer_resignation(board({7: 15}, {24: 1}), MONEY) == 2
    # R24: checkers in the opponent's home board it cannot all leave
    assert expert.offer_resignation(BACKGAMMON_RACE, MONEY) == 3
    # the gammon may still be saved: no offer (a single would be declined, a gammon lost)
    assert expert.offer_resignation(SAVABLE_GAMMON, MONEY) == 0
    # R25: under the Jacoby rule, a single game
    assert expert.offer_resignation(GAMMON_RACE, MatchState(jacoby=True)) == 1


def test_r31_expert_never_resigns_a_game_in_play(expert: ExpertBot) -> None:
    opening = Position.initial()
    assert expert.offer_resignation(opening, MONEY) == 0
    assert expert.offer_resignation(opening, MatchState(match_length=7, score=(0, 6))) == 0
    # contact: even a hopeless-looking position is not resigned (estimates, not facts)
    closed_out = board({25: 2, 13: 13}, {19: 2, 20: 2, 21: 2, 22: 2, 23: 2, 24: 2})
    assert not closed_out.is_race()
    assert expert.offer_resignation(closed_out, MONEY) == 0
    # a race still open
    assert expert.offer_resignation(board({6: 5, 5: 5, 4: 5}, {24: 5, 23: 5, 22: 5}), MONEY) == 0


def test_r32_expert_in_match_play(expert: ExpertBot) -> None:
    # the opponent is 1-away: resigning hands over the match; offered only when lost for sure
    one_away = MatchState(match_length=7, score=(0, 6), player_on_roll=0)
    assert expert.offer_resignation(GAMMON_RACE, one_away) == 1
    assert expert.offer_resignation(LOST_BEAROFF, one_away) == 1
    # the opponent 4-away: a gammon is worth 2 of the 4 it needs
    assert expert.offer_resignation(GAMMON_RACE, MatchState(match_length=7, score=(0, 3))) == 2
    # the bot is player 1
    state = MatchState(match_length=7, score=(6, 0), player_on_roll=1, turn=1)
    assert expert.offer_resignation(BACKGAMMON_RACE, state) == 1


# -- the terminal ----------------------------------------------------------------------------


@pytest.fixture
def _in_tmp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sessions write nothing into the working copy (an autosave lands in ``tmp_path``)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("XDG_STATE_HOME", raising=False)
    monkeypatch.delenv("NO_COLOR", raising=False)


def _bot_to_lose(x: Position) -> tuple[Match, SessionDice]:
    """A money session against the expert starting at ``x`` (X, the person, to roll)."""
    dice = SessionDice((2, 1, 6, 5, 2, 1, 6, 5, 2, 1))
    match = Match.from_xgid(Game.from_position(x, player=0).xgid(), Rules(), dice=dice)
    return match, dice


@pytest.mark.usefixtures("_in_tmp")
def test_r31_r23_bot_offers_a_gammon_and_the_person_accepts() -> None:
    # X bears off two of three checkers with 2-1; O (15 on its 13-point) cannot save the
    # gammon: it offers it before rolling, X accepts, X wins 2 points (R23, R31)
    match, dice = _bot_to_lose(board({1: 3}, {12: 15}))
    run = Run(["", "", "accept", "n"], match=match, dice=dice, opponent="expert")
    text = run.text
    assert "expert offers to resign a gammon (2 points)." in text
    assert "You (X): expert offers to resign a gammon (2 points): accept or decline? > accept" in text
    assert "You win by resignation (a gammon): 2 points." in text
    assert "expert rolls" not in text
    assert "Final score: You 2, expert 0." in text and run.status == 0
    result = match.games[0].result
    assert result is not None and result.points == 2


@pytest.mark.usefixtures("_in_tmp")
def test_r31_r22_bot_offers_a_single_game_the_person_declines_and_play_goes_on() -> None:
    # O has one checker off and needs four rolls; X needs three: O offers a single game
    # once (R22, R31); declined, it plays on and does not offer it again in the game
    match, dice = _bot_to_lose(board({1: 6}, {19: 14}))
    run = Run(["", "", "hint", "decline", "", "", "", "", "n"], match=match, dice=dice, opponent="expert")
    text = run.text
    # `hint` at the offer: X can win no more than a single game, so the adviser accepts
    assert "the expert network's advice: accept." in text
    assert text.count("expert offers to resign a single game (1 point).") == 1
    assert text.count("expert offers to resign a single game (1 point): accept or decline? > decline") == 1
    assert "You decline: play goes on." in text
    assert "expert rolls 6-5." in text and "expert rolls 6-5." in text.split("You decline")[1]
    assert text.count("expert rolls") == 2  # two turns after the offer, no second offer
    assert "You win a single game: 1 point." in text
    assert "Final score: You 1, expert 0." in text and run.status == 0
