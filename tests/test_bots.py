"""Bots: the registry, legal choices, reproducibility, pubeval against Tesauro's C and gnubg,
cube and resignation policies, and a short duplicate match (benchmarks/strength.py)."""

from __future__ import annotations

import random
from types import ModuleType

import numpy as np
import pytest
from hypothesis import given, settings

from backgammon import Move, Position, Step
from backgammon.bots import (
    Bot,
    BotOptionError,
    CubeResponse,
    UnknownBotError,
    available,
    bot_player,
    is_post_crawford,
    load,
    max_win_level,
    may_double,
    register,
    resignation_level,
    unregister,
)
from backgammon.bots.cube import keith_count, keith_lead
from backgammon.bots.pubeval import (
    WEIGHTS_CONTACT,
    WEIGHTS_RACE,
    WIN_SCORE,
    PubEvalBot,
    encode,
    score,
    scores,
)
from backgammon.errors import BackgammonError
from backgammon.matchid import MatchState, Resignation
from backgammon.position import LegalMoves
from backgammon.dice import SeededDice
from tests.benchmark_modules import load_benchmark
from tests.conftest import board
from tests.strategies import dice, positions, random_game_positions

BOTS = ["random", "pubeval"]


def _sample(seed: int, games: int, every: int = 1) -> list[tuple[Position, tuple[int, int]]]:
    return [x for i, x in enumerate(random_game_positions(seed, games)) if i % every == 0]


@pytest.fixture(scope="module")
def sample() -> list[tuple[Position, tuple[int, int]]]:
    """About 2,500 (position, roll) pairs from seeded random games."""
    return _sample(20240601, 40)


# -- registry --------------------------------------------------------------------------


def test_available_lists_the_builtin_bots() -> None:
    names = available()
    assert names == sorted(names)
    assert {"random", "pubeval"} <= set(names)


@pytest.mark.parametrize("name", BOTS)
def test_load_builds_a_bot_by_name(name: str) -> None:
    bot = load(name)
    assert isinstance(bot, Bot)
    assert bot.name == name
    assert load(f"  {name.upper()} ").name == name  # case and spaces do not matter
    assert load(name) is not bot  # a fresh bot each time


def test_unknown_name_is_a_value_error_listing_the_bots() -> None:
    with pytest.raises(UnknownBotError) as info:
        load("gnubg-world-class")
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, BackgammonError)
    message = str(info.value)
    assert "'gnubg-world-class'" in message
    for name in available():
        assert name in message
    with pytest.raises(UnknownBotError):
        load(3)  # type: ignore[arg-type]


def test_unknown_option_is_a_value_error_naming_the_options() -> None:
    with pytest.raises(BotOptionError, match=r"depth=2.*seed") as info:
        load("pubeval", depth=2)
    assert isinstance(info.value, ValueError)
    with pytest.raises(BotOptionError, match="seed"):
        load("random", seed="abc")  # a seed is an int, a Random or None


def test_register_and_unregister_a_bot() -> None:
    @register("always-first")
    class AlwaysFirst(Bot):
        name = "always-first"

        def choose_index(self, legal: LegalMoves) -> int:
            return 0

    try:
        assert "always-first" in available()
        bot = load("always-first", seed=1)
        assert isinstance(bot, AlwaysFirst)
        assert bot.choose_move(Position.initial(), (6, 5)) == Position.initial().legal_moves((6, 5))[0]
        with pytest.raises(BackgammonError, match="already registered"):
            register("always-first")(PubEvalBot)
        register("always-first", replace=True)(AlwaysFirst)  # replacing is explicit
    finally:
        unregister("always-first")
    assert "always-first" not in available()
    with pytest.raises(UnknownBotError):
        unregister("always-first")
    with pytest.raises(BackgammonError):
        register("  ")


def test_a_factory_must_return_a_bot() -> None:
    register("not-a-bot")(lambda **options: object())  # type: ignore[type-var]
    try:
        with pytest.raises(BackgammonError, match="not a Bot"):
            load("not-a-bot")
    finally:
        unregister("not-a-bot")


def test_bot_is_abstract() -> None:
    with pytest.raises(TypeError):
        Bot()  # type: ignore[abstract]


# -- checker play ----------------------------------------------------------------------


@pytest.mark.parametrize("name", BOTS)
def test_choose_move_is_legal_on_game_positions(
    name: str, sample: list[tuple[Position, tuple[int, int]]]
) -> None:
    bot = load(name, seed=5)
    none = 0
    for pos, roll in sample[::3]:
        legal = pos.legal_moves(roll)
        move = bot.choose_move(pos, roll)
        if not legal:
            assert move is None
            none += 1
            continue
        assert isinstance(move, Move)
        assert pos.play(move) in set(legal.positions()), (pos.position_id(), roll, str(move))
    assert none > 0  # the sample includes rolls with no play


@pytest.mark.parametrize("name", BOTS)
@settings(max_examples=150, deadline=None)
@given(pos=positions(), roll=dice)
def test_choose_move_is_legal_on_any_position(name: str, pos: Position, roll: tuple[int, int]) -> None:
    bot = load(name, seed=0)
    legal = pos.legal_moves(roll)
    move = bot.choose_move(pos, roll)
    if not legal:
        assert move is None
    else:
        assert move in legal
        index = bot.choose_index(legal)
        assert 0 <= index < len(legal)


def test_random_bot_plays_every_play() -> None:
    legal = Position.initial().legal_moves((6, 5))
    bot = load("random", seed=3)
    seen = {bot.choose_index(legal) for _ in range(400)}
    assert seen == set(range(len(legal)))


# -- reproducibility -------------------------------------------------------------------


def _choices(bot: Bot, cases: list[tuple[Position, tuple[int, int]]]) -> list[str]:
    return [str(bot.choose_move(p, d)) for p, d in cases]


@pytest.mark.parametrize("name", BOTS)
def test_same_seed_same_choices(name: str, sample: list[tuple[Position, tuple[int, int]]]) -> None:
    cases = sample[:300]
    assert _choices(load(name, seed=11), cases) == _choices(load(name, seed=11), cases)
    shared_a, shared_b = random.Random(4), random.Random(4)
    assert _choices(load(name, seed=shared_a), cases) == _choices(load(name, seed=shared_b), cases)


def test_random_bot_uses_the_injected_stream() -> None:
    rng = random.Random(9)
    bot = load("random", seed=rng)
    assert bot.rng is rng
    cases = _sample(3, 3)[:200]
    assert _choices(load("random", seed=1), cases) != _choices(load("random", seed=2), cases)


def test_pubeval_is_deterministic_whatever_the_seed(sample: list[tuple[Position, tuple[int, int]]]) -> None:
    cases = sample[:300]
    assert _choices(load("pubeval", seed=1), cases) == _choices(load("pubeval"), cases)


# -- pubeval -------------------------------------------------------------------------------


def _tesauro(race: bool, pos: list[int]) -> float:
    """Tesauro's pubeval() transcribed loop for loop from pubeval.c (pos[28], his layout)."""
    if pos[26] == 15:
        return WIN_SCORE
    x = [0.0] * 122
    for j in range(1, 25):
        jm1 = j - 1
        n = pos[25 - j]
        if n != 0:
            if n == -1:
                x[5 * jm1 + 0] = 1.0
            if n == 1:
                x[5 * jm1 + 1] = 1.0
            if n >= 2:
                x[5 * jm1 + 2] = 1.0
            if n == 3:
                x[5 * jm1 + 3] = 1.0
            if n >= 4:
                x[5 * jm1 + 4] = (n - 3) / 2.0
    x[120] = -pos[0] / 2.0
    x[121] = pos[26] / 15.0
    w = WEIGHTS_RACE if race else WEIGHTS_CONTACT
    return float(sum(w[i] * x[i] for i in range(122)))


def _tesauro_board(after: Position) -> list[int]:
    """Tesauro's pos[] for the side that just moved (``after.opponent``)."""
    me, opp = after.opponent, after.player
    pos = [0] * 28
    for loc in range(1, 25):
        pos[loc] = me[loc - 1] if me[loc - 1] else -opp[24 - loc]
    pos[0] = -opp[24]
    pos[25] = me[24]
    pos[26] = 15 - sum(me)
    pos[27] = -(15 - sum(opp))
    return pos


def test_weights_are_tesauros() -> None:
    assert WEIGHTS_RACE.shape == WEIGHTS_CONTACT.shape == (122,)
    # spot checks against pubeval.c's wr[] and wc[]
    assert WEIGHTS_RACE[1] == -0.17160 and WEIGHTS_RACE[121] == 3.42040 and WEIGHTS_RACE[117] == -7.26713
    assert (
        WEIGHTS_CONTACT[0] == 0.25696 and WEIGHTS_CONTACT[120] == 5.62596 and WEIGHTS_CONTACT[121] == -2.75800
    )
    assert round(float(WEIGHTS_RACE.sum()), 5) == -31.29905
    assert round(float(WEIGHTS_CONTACT.sum()), 5) == -6.72565
    assert not WEIGHTS_RACE.flags.writeable


def test_vectorised_scores_equal_tesauros_loop(sample: list[tuple[Position, tuple[int, int]]]) -> None:
    checked = 0
    for pos, roll in sample[::7]:
        legal = pos.legal_moves(roll)
        if not legal:
            continue
        for race in (False, True):
            got = scores(legal.boards, race)
            for i, after in enumerate(legal.positions()[:6]):
                assert got[i] == pytest.approx(_tesauro(race, _tesauro_board(after)), abs=1e-9)
                checked += 1
    assert checked > 1000


def test_encode_layout() -> None:
    # The player has a blot on 24 and 3 on 13, 5 on 6, 6 off; the opponent has 1 on the
    # player's 1-point (a blot) and 2 on the bar.
    pos = board({24: 1, 13: 3, 6: 5}, {1: 1, 0: 2})
    row = np.frombuffer(bytes((*pos.opponent, *pos.player)), dtype=np.uint8).reshape(1, 50)
    x = encode(row)[0]
    assert x[0 * 5 + 1] == 1  # location 24: a blot of the mover
    assert list(x[11 * 5 : 11 * 5 + 5]) == [0, 0, 1, 1, 0]  # location 13: three checkers
    assert list(x[18 * 5 : 18 * 5 + 5]) == [0, 0, 1, 0, 1]  # location 6: five, (5-3)/2
    assert x[23 * 5 + 0] == 1  # location 1: an opposing blot
    assert x[120] == 1.0  # two opposing checkers on the bar / 2
    assert x[121] == pytest.approx(6 / 15)
    assert x.sum() == pytest.approx(1 + 2 + 2 + 1 + 1 + 6 / 15)
    with pytest.raises(ValueError):
        encode(np.zeros((3, 49), dtype=np.uint8))


def test_bearing_off_the_last_checker_scores_best() -> None:
    pos = board({1: 1, 6: 1}, {24: 1, 19: 1})  # 6-1 wins at once; 2-1 cannot
    legal = pos.legal_moves((6, 1))
    best = load("pubeval").choose_move(pos, (6, 1))
    assert best is not None and pos.play(best).borne_off()[1] == 15
    assert scores(legal.boards, race=True).max() == WIN_SCORE
    assert score(pos.play(best), race=True) == WIN_SCORE


def test_race_weights_are_chosen_before_the_play() -> None:
    # Contact now (the player's checker on 20 faces the opponent's on the player's 22);
    # a play that breaks contact is still scored with the contact weights.
    pos = board({20: 1, 6: 4, 5: 4}, {22: 2, 18: 3})
    assert not pos.is_race()
    legal = pos.legal_moves((6, 5))
    np.testing.assert_array_equal(PubEvalBot().scores(legal), scores(legal.boards, race=False))


def _gnubg_play(pos: Position, m: list[int]) -> Position:
    """gnubg_nn's move list (0-based from/to pairs, 24 = bar, -1 = off) applied hop by hop."""
    after = pos
    for k in range(0, len(m), 2):
        after = after.play(Move([Step(m[k] + 1, m[k + 1] + 1)])).swap()
    return after.swap()


def test_pubeval_chooses_as_gnubg_nn() -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn (the bench extra) is not installed")
    bot = PubEvalBot()
    cases = _sample(77, 80)
    compared = 0
    for pos, roll in cases:
        legal = pos.legal_moves(roll)
        if len(legal) < 2:
            continue
        theirs = _gnubg_play(
            pos, gnubg_nn.pub_best_move(gnubg_nn.board_from_position_id(pos.position_id()), *roll)
        )
        ours = legal.position(bot.choose_index(legal))
        if ours != theirs:  # only an exact tie may differ
            s = bot.scores(legal)
            j = legal.positions().index(theirs)
            assert s[j] == pytest.approx(s.max(), abs=1e-4), (pos.position_id(), roll)
        compared += 1
    assert compared > 3000


def test_pubeval_scores_equal_gnubg_nn(sample: list[tuple[Position, tuple[int, int]]]) -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn (the bench extra) is not installed")
    checked = 0
    for pos, roll in sample[::5]:
        for after in pos.legal_moves(roll).positions()[:4]:
            if after.bar()[1] or after.is_game_over():
                continue  # gnubg counts a mover's checker on the bar as borne off
            # pub_eval_score scores board[0] (the side that just moved), with the race
            # weights when that board itself is a race
            ref = gnubg_nn.pub_eval_score(gnubg_nn.board_from_position_id(after.position_id()))
            assert score(after, after.is_race()) == pytest.approx(ref, abs=1e-4)
            checked += 1
    assert checked > 500


# -- cube --------------------------------------------------------------------------------

RACE_AHEAD = board({6: 3, 5: 3, 4: 2}, {19: 3, 20: 3, 21: 2, 22: 2})  # Keith 41 v 47
OPENING = Position.initial()


def test_keith_count() -> None:
    assert keith_count(OPENING.player) == 167 + 2
    assert keith_count([2, 0, 0, 0, 0, 0] + [0] * 19) == 2 + 2 + 3
    assert (keith_count(RACE_AHEAD.player), keith_count(RACE_AHEAD.opponent)) == (41, 47)
    assert keith_lead(RACE_AHEAD, roller_is_player=True) == 41 + 5 - 47
    assert keith_lead(RACE_AHEAD, roller_is_player=False) == 47 + 6 - 41


@pytest.mark.parametrize("name", BOTS)
def test_cube_answers_have_the_right_types(name: str, sample: list[tuple[Position, tuple[int, int]]]) -> None:
    bot = load(name, seed=1)
    for pos, _ in sample[::25]:
        for state in (MatchState(), MatchState(match_length=7, score=(3, 5), player_on_roll=1)):
            assert isinstance(bot.should_double(pos, state), bool)
            assert isinstance(bot.respond_to_double(pos, state), CubeResponse)
            for level in (1, 2, 3):
                assert isinstance(bot.accept_resignation(pos, state, level), bool)


def test_random_bot_never_doubles_and_always_takes(sample: list[tuple[Position, tuple[int, int]]]) -> None:
    bot = load("random", seed=2)
    for pos, _ in sample[::10]:
        assert bot.should_double(pos, MatchState()) is False
        assert bot.respond_to_double(pos, MatchState()) is CubeResponse.TAKE


def test_pubeval_doubles_races_by_keith() -> None:
    bot = load("pubeval")
    assert bot.should_double(RACE_AHEAD, MatchState())  # lead -1 <= 4
    assert not bot.should_double(RACE_AHEAD.swap(), MatchState())  # lead 12
    assert bot.respond_to_double(RACE_AHEAD, MatchState()) is CubeResponse.TAKE  # lead 12 >= 2
    assert bot.respond_to_double(RACE_AHEAD.swap(), MatchState()) is CubeResponse.PASS  # lead -1 < 2
    # Redoubling is stricter (<= 3): lead 4 doubles, but does not redouble.
    four = board({6: 3, 5: 3, 4: 2}, {19: 3, 20: 3, 21: 2, 24: 1})  # Keith 41 + 5 v 42
    assert keith_lead(four, roller_is_player=True) == 4
    assert bot.should_double(four, MatchState())
    assert not bot.should_double(four, MatchState(cube_value=2, cube_owner=0))
    # Beaver only in money play, when the doubler is well behind.
    behind = board({6: 3, 5: 3, 4: 2}, {13: 3, 20: 3, 21: 2})  # Keith 41 v the doubler's 60
    assert bot.respond_to_double(behind, MatchState()) is CubeResponse.BEAVER
    assert bot.respond_to_double(behind, MatchState(match_length=9)) is CubeResponse.TAKE


def test_pubeval_contact_cube_is_conservative() -> None:
    bot = load("pubeval")
    assert not bot.should_double(OPENING, MatchState())
    assert bot.respond_to_double(OPENING, MatchState()) is CubeResponse.TAKE
    # A blitz: the opponent has two on the bar against a five-point board.
    blitz = board({6: 3, 5: 2, 4: 2, 3: 2, 2: 2, 8: 2, 13: 2}, {0: 2, 18: 5, 19: 3, 12: 5})
    assert not blitz.is_race()
    assert bot.should_double(blitz, MatchState())
    assert bot.respond_to_double(blitz.swap(), MatchState()) is CubeResponse.PASS
    # Far ahead in the pip count, in contact.
    ahead = board({6: 5, 5: 4, 4: 3, 3: 2, 24: 1}, {1: 2, 7: 5, 12: 5, 17: 3})
    assert not ahead.is_race()
    assert bot.should_double(ahead, MatchState())
    assert bot.respond_to_double(ahead.swap(), MatchState()) is CubeResponse.PASS
    # ... but not with a checker of its own on the bar.
    on_bar = board({25: 1, 6: 5, 5: 4, 4: 3, 3: 2}, {1: 2, 7: 5, 12: 5, 17: 3})
    assert not bot.should_double(on_bar, MatchState())


def test_pubeval_respects_who_may_double() -> None:
    bot = load("pubeval")
    assert not bot.should_double(RACE_AHEAD, MatchState(cube_value=2, cube_owner=1))  # theirs
    assert bot.should_double(RACE_AHEAD, MatchState(cube_value=2, cube_owner=0))  # mine
    crawford = MatchState(match_length=5, score=(2, 4), crawford=True)
    assert not bot.should_double(RACE_AHEAD, crawford)
    # A dead cube: 2-away with a 2-cube already wins the match by winning the game.
    assert not bot.should_double(
        RACE_AHEAD, MatchState(match_length=5, score=(3, 0), cube_value=2, cube_owner=0)
    )
    # Post-Crawford, the trailer doubles at once, even from the opening position.
    post = MatchState(match_length=5, score=(1, 4), crawford=False)
    assert is_post_crawford(post)
    assert bot.should_double(OPENING, post)
    # Passing would lose the match: take, even a hopeless race.
    lost = MatchState(match_length=5, score=(0, 3), cube_value=2, cube_owner=1, player_on_roll=1)
    assert bot.respond_to_double(RACE_AHEAD.swap(), lost) is CubeResponse.TAKE
    assert bot.respond_to_double(RACE_AHEAD.swap(), MatchState(match_length=5)) is CubeResponse.PASS


def test_cube_helpers() -> None:
    assert may_double(MatchState(), 0) and may_double(MatchState(), 1)
    assert not may_double(MatchState(cube_value=2, cube_owner=0), 1)
    assert not may_double(MatchState(double_offered=True, turn=1), 0)
    assert bot_player(MatchState(player_on_roll=1), answering=False) == 1
    assert bot_player(MatchState(player_on_roll=1), answering=True) == 0
    assert bot_player(MatchState(player_on_roll=0, turn=1, double_offered=True), answering=True) == 1
    assert not is_post_crawford(MatchState())


# -- resignations --------------------------------------------------------------------------


def test_resignation_levels() -> None:
    assert [resignation_level(x) for x in (1, "gammon", Resignation.BACKGAMMON, " Single ")] == [1, 2, 3, 1]
    for bad in (0, 4, True, "double", 1.0):
        with pytest.raises(BackgammonError):
            resignation_level(bad)  # type: ignore[arg-type]


def test_max_win_level() -> None:
    assert max_win_level(OPENING) == 3  # contact: a backgammon is possible
    assert max_win_level(RACE_AHEAD) == 1  # the opponent has borne off
    race_no_off = board({6: 3, 5: 3, 4: 2}, {12: 5, 13: 5, 14: 5})
    assert max_win_level(race_no_off) == 2
    stuck = board({6: 3, 5: 3, 4: 2}, {3: 1, 12: 5, 13: 5, 14: 4})  # one in the home board
    assert max_win_level(stuck) == 3


@pytest.mark.parametrize("name", BOTS)
def test_accept_resignation_when_nothing_is_given_up(name: str) -> None:
    bot = load(name)
    money = MatchState(jacoby=False)
    assert not bot.accept_resignation(OPENING, money, "single")
    assert not bot.accept_resignation(OPENING, money, "gammon")
    assert bot.accept_resignation(OPENING, money, "backgammon")
    assert bot.accept_resignation(RACE_AHEAD, money, 1)  # only a single game is left
    race_no_off = board({6: 3, 5: 3, 4: 2}, {12: 5, 13: 5, 14: 5})
    assert not bot.accept_resignation(race_no_off, money, 1)
    assert bot.accept_resignation(race_no_off, money, Resignation.GAMMON)
    # Jacoby (money, cube centred): gammons count single, so a single resignation is enough.
    assert bot.accept_resignation(OPENING, MatchState(jacoby=True), 1)
    assert not bot.accept_resignation(OPENING, MatchState(jacoby=True, cube_value=2, cube_owner=1), 1)
    # Match play: a single game that wins the match is all there is to win.
    assert bot.accept_resignation(OPENING, MatchState(match_length=5, score=(2, 4), player_on_roll=0), 1)
    assert not bot.accept_resignation(OPENING, MatchState(match_length=5, score=(4, 2), player_on_roll=0), 1)
    with pytest.raises(BackgammonError):
        bot.accept_resignation(OPENING, money, 5)


# -- duplicate match (benchmarks/strength.py) --------------------------------------------------


@pytest.fixture(scope="module")
def strength() -> ModuleType:
    return load_benchmark("strength")


def test_pubeval_beats_random_in_a_short_duplicate_match(strength: ModuleType) -> None:
    tally = strength.run("pubeval", "random", games=50, seed=1, workers=1)
    assert tally.games == 50
    assert tally.mean() > 1.0  # about +2.5 over many games


def test_duplicate_match_is_reproducible_and_fair(strength: ModuleType) -> None:
    a = strength.run("random", "pubeval", games=10, seed=4, workers=1)
    b = strength.run("random", "pubeval", games=10, seed=4, workers=1)
    assert a.points() == b.points()
    assert a.mean() < 0
    # A deterministic bot against itself on duplicate dice: every pair cancels exactly.
    same = strength.run("pubeval", "pubeval", games=10, seed=4, workers=1)
    assert same.mean() == 0 and all(p.first == -p.second for p in same.pairs)


def test_a_bot_named_with_a_weights_file_plays_as_that_network(strength: ModuleType) -> None:
    """``NAME@FILE`` (strength.py): the shipped file gives the plain bot's games; the file is
    loaded once per process; ``--compare`` pairs two runs by their duplicate pairs."""
    from backgammon.bots.neural import evaluator_of
    from backgammon.engine.evaluator import DEFAULT_WEIGHTS

    spec = f"expert@{DEFAULT_WEIGHTS}"
    bot = strength.load_bot(spec, seed=1)
    assert bot.evaluator is evaluator_of(DEFAULT_WEIGHTS) is strength.load_bot(spec).evaluator
    named = strength.run(spec, "pubeval", games=6, seed=5, workers=1)
    plain = strength.run("expert", "pubeval", games=6, seed=5, workers=1)
    assert named.points() == plain.points()
    m, se, n = strength.paired_difference(named, plain)
    assert (m, se, n) == (0.0, 0.0, 3)
    worse = strength.run("pubeval", "pubeval", games=6, seed=5, workers=1)  # scores 0 a pair
    m, _, n = strength.paired_difference(named, worse)
    assert n == 3 and m == pytest.approx(named.mean())


def test_games_are_played_on_the_table_through_decide(
    strength: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every decision comes from backgammon.table.decide; cubeless: nobody is asked to double.
    chosen: list[str] = []
    real = strength.decide

    def spy(bot: Bot, table: object, seat: str) -> object:
        command = real(bot, table, seat)
        chosen.append(type(command).__name__)
        return command

    monkeypatch.setattr(strength, "decide", spy)
    bots = (load("expert", seed=1), load("pubeval", seed=2))
    outcome = strength.play_game(bots, SeededDice("3:0:dice"))
    assert outcome.winner in (0, 1) and outcome.points in (1, 2, 3)
    assert {"Roll", "Play"} <= set(chosen) and "Double" not in chosen


def test_table_game_rolls_the_seeded_stream(strength: ModuleType) -> None:
    # Duplicate dice: a game's throws are its dice stream's, opening throws first.
    from backgammon.events import OpeningRoll, Roll

    rules = strength.CUBELESS
    table = strength.bot_table((load("random", seed=1), load("pubeval")), SeededDice("4:1:dice"), rules)
    game = table.contest.game()
    plies = strength.play_table_game(table)
    assert game.is_over() and plies == sum(1 for e in game.events if e.type == "play")
    rolls = [e.dice for e in game.events if isinstance(e, (OpeningRoll, Roll))]
    stream = SeededDice("4:1:dice")
    assert rolls == [stream.roll() for _ in rolls]
    assert game.cube_value == 1
