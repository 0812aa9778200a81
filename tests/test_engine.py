"""The neural engine: probabilities, encoding, batched evaluation, bear-off tables,
weights, the ``expert`` bot and exact resumption of training."""

from __future__ import annotations

import random
from fractions import Fraction
from functools import lru_cache
from itertools import islice
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from backgammon import Position
from backgammon.bots import load
from backgammon.engine import NUM_INPUTS, Evaluator, NetworkPair, Probabilities, encode, key_of
from backgammon.engine import _kernels as K
from backgammon.engine.bearoff import N_POSITIONS, index_of, table
from backgammon.engine.evaluator import DEFAULT_WEIGHTS, default_evaluator, equities
from backgammon.engine.train import Checkpoint, strength_vs_pubeval, train
from backgammon.engine.train import main as train_main
from backgammon.errors import BackgammonError
from tests.strategies import random_game_positions


@pytest.fixture(scope="module")
def positions() -> list[Position]:
    """Positions met in random games (side on roll)."""
    return [pos for pos, _ in islice(random_game_positions(3, games=1000), 400)]


@pytest.fixture(scope="module")
def boards(positions: list[Position]) -> np.ndarray:
    return np.concatenate([key_of(p) for p in positions])


# -- Probabilities ------------------------------------------------------------------------------

def test_probabilities_invariants_and_equity() -> None:
    p = Probabilities(0.6, 0.2, 0.05, 0.1, 0.01)
    assert p.equity == pytest.approx(2 * 0.6 - 1 + 0.2 - 0.1 + 0.05 - 0.01)
    assert p.flip().flip() == p
    assert p.flip().equity == pytest.approx(-p.equity)
    for bad in [(1.2, 0, 0, 0, 0), (0.5, 0.6, 0, 0, 0), (0.5, 0.2, 0.3, 0, 0),
                (0.7, 0, 0, 0.4, 0), (0.5, 0, 0, 0.2, 0.3), (-0.1, 0, 0, 0, 0)]:
        with pytest.raises(BackgammonError):
            Probabilities(*bad)
    with pytest.raises(AttributeError):
        p.win = 0.5  # type: ignore[misc]
    assert Probabilities(1, 1, 1, 0, 0).equity == 3.0
    assert Probabilities(0, 0, 0, 1, 1).equity == -3.0


def test_from_outputs_is_always_consistent() -> None:
    rng = np.random.default_rng(0)
    for row in rng.uniform(-0.2, 1.2, (500, 5)):
        p = Probabilities.from_outputs(row.tolist())
        assert 0 <= p.win_backgammon <= p.win_gammon <= p.win <= 1
        assert 0 <= p.lose_backgammon <= p.lose_gammon <= 1 - p.win
        assert -3 <= p.equity <= 3


def test_evaluations_satisfy_invariants(positions: list[Position]) -> None:
    ev = default_evaluator()
    out = ev.outputs(np.concatenate([key_of(p) for p in positions]))
    for row in out:
        p = Probabilities(*row.tolist())  # raises when inconsistent
        assert -3 <= p.equity <= 3


# -- encoding -------------------------------------------------------------------------------------

def test_encoding_shape_and_determinism(boards: np.ndarray) -> None:
    x = encode(boards)
    assert x.shape == (len(boards), NUM_INPUTS) and x.dtype == np.float64
    assert np.array_equal(x, encode(boards.copy()))
    assert np.isfinite(x).all()
    one = np.concatenate([encode(boards[i:i + 1]) for i in range(len(boards))])
    assert np.array_equal(x, one)
    start = encode(key_of(Position.initial()))[0]
    half = K.PER_SIDE
    assert np.array_equal(start[:half], start[half:])  # the start is symmetric
    with pytest.raises(ValueError):
        encode(np.zeros((3, 49), np.uint8))


def test_contact_classification_matches_position(positions: list[Position]) -> None:
    for p in positions:
        assert K.is_contact(key_of(p)[0]) == (not p.is_race())


# -- evaluation -----------------------------------------------------------------------------------

def test_batched_equals_one_by_one(boards: np.ndarray) -> None:
    ev = default_evaluator()
    batch = ev.outputs(boards)
    single = np.concatenate([ev.outputs(boards[i:i + 1]) for i in range(len(boards))])
    np.testing.assert_allclose(batch, single, rtol=0, atol=1e-12)


def test_play_outputs_are_flipped_opponent_views() -> None:
    ev = default_evaluator()
    legal = Position.initial().legal_moves((4, 2))
    mover = ev.play_outputs(legal)
    for i in range(len(legal)):
        p = ev.evaluate(legal.position(i)).flip()
        np.testing.assert_allclose(mover[i], p.as_tuple(), atol=1e-12)
    np.testing.assert_allclose(ev.play_equities(legal),
                               [ev.evaluate(legal.position(i)).flip().equity
                                for i in range(len(legal))], atol=1e-12)


def test_finished_positions_are_exact() -> None:
    ev = default_evaluator()
    # the side on roll still has 15 checkers, one on the other side's home board: backgammon
    lost = Position([0] * 20 + [15, 0, 0, 0, 0], [0] * 25)
    assert ev.evaluate(lost).as_tuple() == (0.0, 0.0, 0.0, 1.0, 1.0)
    single = Position([1] + [0] * 24, [0] * 25)
    assert ev.evaluate(single).as_tuple() == (0.0, 0.0, 0.0, 0.0, 0.0)


# -- bear-off -------------------------------------------------------------------------------------

def test_bearoff_table_small_cases() -> None:
    tab = table()
    assert tab.off.shape == (N_POSITIONS, 32)
    np.testing.assert_allclose(tab.off.sum(axis=1), 1.0, atol=1e-5)
    assert tab.off[index_of([0] * 6), 0] == 1.0
    assert tab.off[index_of([1, 0, 0, 0, 0, 0]), 1] == 1.0  # one checker on the 1-point
    # one checker on the 6-point: off in one roll unless the pips fall short (1-1, 1-2,
    # 1-3, 1-4, 2-3: 9 of 36 rolls; 2-2 carries 8 pips)
    np.testing.assert_allclose(tab.off[index_of([0, 0, 0, 0, 0, 1]), :3], [0, 27 / 36, 9 / 36],
                               atol=1e-6)
    # two on the 6-point: one roll only with 3-3, 4-4, 5-5, 6-6
    assert tab.off[index_of([0, 0, 0, 0, 0, 2]), 1] == pytest.approx(4 / 36, abs=1e-6)
    # two on the 1-point: always one roll
    assert tab.off[index_of([2, 0, 0, 0, 0, 0]), 1] == pytest.approx(1.0)


@lru_cache(maxsize=None)
def _rolls_to_off(home: tuple[int, ...]) -> tuple[Fraction, ...]:
    """Independent reference: the distribution by brute force on Position.legal_moves,
    playing to minimise the expected rolls (exact fractions; small positions only)."""
    if sum(home) == 0:
        return (Fraction(1),)
    dist: dict[int, Fraction] = {}
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            w = Fraction(1 if d1 == d2 else 2, 36)
            pos = Position(list(home) + [0] * 19, [0] * 25)
            best: tuple[Fraction, ...] | None = None
            for i in range(len(legal := pos.legal_moves((d1, d2)))):
                nxt = tuple(legal.position(i).opponent[:6])
                cand = _rolls_to_off(nxt)
                if best is None or sum(k * p for k, p in enumerate(cand)) < sum(
                        k * p for k, p in enumerate(best)):
                    best = cand
            assert best is not None
            for k, p in enumerate(best):
                dist[k + 1] = dist.get(k + 1, Fraction(0)) + w * p
    return tuple(dist.get(k, Fraction(0)) for k in range(max(dist) + 1))


@pytest.mark.parametrize("home", [(0, 0, 0, 0, 0, 2), (1, 1, 1, 0, 0, 0), (0, 0, 1, 0, 1, 1),
                                  (0, 2, 0, 0, 1, 0)])
def test_bearoff_matches_brute_force(home: tuple[int, ...]) -> None:
    ref = _rolls_to_off(home)
    got = table().off[index_of(home)]
    np.testing.assert_allclose(got[: len(ref)], [float(p) for p in ref], atol=1e-6)


def test_bearoff_matches_gnubg_nn() -> None:
    gnubg_nn = pytest.importorskip("gnubg_nn", reason="gnubg-nn (the bench extra) is not installed")
    ev = default_evaluator()
    for me, them in [([0, 0, 0, 0, 0, 2], [0, 0, 0, 0, 0, 2]), ([2, 2, 3, 3, 3, 2], [1, 3, 3, 3, 3, 2]),
                     ([0, 0, 0, 3, 3, 3], [3, 3, 3, 0, 0, 0])]:
        p = Position(me + [0] * 19, them + [0] * 19)
        ref = gnubg_nn.probabilities(gnubg_nn.board_from_position_id(p.position_id()), 0)
        assert ev.evaluate(p).win == pytest.approx(ref[0], abs=1e-4)
    # gammons (gnubg saves them with its own strategy: agree to 1e-3)
    for me, them in [([0, 0, 0, 0, 0, 1], [3, 3, 3, 2, 2, 2]), ([0, 0, 0, 0, 0, 15], [0, 0, 0, 0, 0, 3])]:
        p = Position(me + [0] * 19, them + [0] * 19)
        ref = gnubg_nn.probabilities(gnubg_nn.board_from_position_id(p.position_id()), 0)
        np.testing.assert_allclose(ev.evaluate(p).as_tuple(), ref, atol=1e-3)


# -- weights and bots -----------------------------------------------------------------------------

def test_shipped_weights_load() -> None:
    nets = NetworkPair.load(DEFAULT_WEIGHTS)
    assert nets.contact.w1.shape[0] == NUM_INPUTS and nets.race.w1.shape[0] == NUM_INPUTS
    assert nets.contact.w2.shape == (nets.contact.hidden, 5)
    assert DEFAULT_WEIGHTS.stat().st_size < 4_000_000


@pytest.mark.parametrize("name, every, seed", [("expert", 10, 1), ("worldclass", 40, 2)])
def test_neural_bots_play_legal_moves(positions: list[Position], name: str, every: int,
                                      seed: int) -> None:
    bot = load(name)
    rng = random.Random(seed)
    for pos in positions[::every]:
        roll = (rng.randint(1, 6), rng.randint(1, 6))
        legal = pos.legal_moves(roll)
        move = bot.choose_move(pos, roll)
        if legal:
            assert move in legal
        else:
            assert move is None


def test_weights_round_trip(tmp_path: Path) -> None:
    nets = NetworkPair.random(7, 5, seed=3)
    nets.save(tmp_path / "w.npz")
    back = Evaluator.from_file(tmp_path / "w.npz")
    b = key_of(Position.initial())
    np.testing.assert_array_equal(back.outputs(b), Evaluator(nets).outputs(b))


# -- training -------------------------------------------------------------------------------------

def test_checkpoint_resume_is_exact(tmp_path: Path) -> None:
    straight = Checkpoint(NetworkPair.random(8, 6, seed=5), seed=11)
    train(straight, 12)
    first = Checkpoint(NetworkPair.random(8, 6, seed=5), seed=11)
    train(first, 5)
    first.save(tmp_path / "c.npz")
    resumed = Checkpoint.load(tmp_path / "c.npz")
    assert resumed.games == 5
    train(resumed, 7)
    for a, b in zip(straight.nets.kernel_args(), resumed.nets.kernel_args()):
        np.testing.assert_array_equal(a, b)
    assert straight.nets.kernel_args()[0].sum() != NetworkPair.random(8, 6, 5).kernel_args()[0].sum()


def test_resume_is_exact_without_bearoff_tables(tmp_path: Path) -> None:
    straight = Checkpoint(NetworkPair.random(6, 4, seed=2), seed=3, bearoff=False)
    train(straight, 6)
    part = Checkpoint(NetworkPair.random(6, 4, seed=2), seed=3, bearoff=False)
    train(part, 2)
    part.save(tmp_path / "c.npz")
    resumed = Checkpoint.load(tmp_path / "c.npz")
    assert resumed.bearoff is False
    train(resumed, 4)
    for a, b in zip(straight.nets.kernel_args(), resumed.nets.kernel_args()):
        np.testing.assert_array_equal(a, b)


def test_td0_fast_path_equals_the_trace_path() -> None:
    from backgammon.engine.bearoff import kernel_args

    results = []
    kernel: Any = K.train_games
    for traces in (True, False):
        nets = NetworkPair.random(8, 6, seed=4)
        kernel(5, 0, 6, 0.1, 0.0, *nets.kernel_args(), True, *kernel_args(), traces,
                      np.zeros(4))
        results.append(nets)
    for a, b in zip(results[0].kernel_args(), results[1].kernel_args()):
        np.testing.assert_array_equal(a, b)


def test_train_command_resumes(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    args = ["--run", "t", "--runs-dir", str(tmp_path), "--hidden-contact", "6",
            "--hidden-race", "4", "--eval-every", "4", "--eval-pairs", "3", "--chunk", "3"]
    assert train_main([*args, "--games", "4"]) == 0
    assert train_main([*args, "--games", "8"]) == 0
    ckpt = Checkpoint.load(tmp_path / "t" / "checkpoint.npz")
    assert ckpt.games == 8
    log = (tmp_path / "t" / "log.txt").read_text()
    assert "resume" in log and "vs pubeval" in log
    ppg, se = strength_vs_pubeval(ckpt.nets, 2)
    assert -3 <= ppg <= 3 and se >= 0
    capsys.readouterr()
    assert train_main(["--evaluate", str(tmp_path / "t" / "best.npz"), "--eval-pairs", "2"]) == 0
    assert "vs pubeval" in capsys.readouterr().out


def test_one_ply_is_the_average_of_the_best_replies(positions: list[Position]) -> None:
    ev = default_evaluator()
    race = next(p for p in positions if p.is_race() and max(
        i for i, n in enumerate(p.player) if n) >= 6)
    bearoff = Position([3, 3, 3, 2, 2, 2] + [0] * 19, [2, 2, 3, 3, 2, 3] + [0] * 19)
    sample = [*positions[:6], race, bearoff]
    out = ev.one_ply_outputs(np.concatenate([key_of(p) for p in sample]))
    for row in out:
        Probabilities(*row.tolist())
    # bear-offs keep their exact value
    np.testing.assert_allclose(out[-1], ev.evaluate(bearoff).as_tuple(), atol=1e-12)
    # by hand through the public API: the average over the rolls of the best reply, flipped
    for pos, row in zip(sample[:-1], out[:-1]):
        acc = np.zeros(5)
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                legal = pos.legal_moves((d1, d2))
                if legal:
                    o = ev.play_outputs(legal)
                    eq = 2 * o[:, 0] - 1 + o[:, 1] - o[:, 3] + o[:, 2] - o[:, 4]
                    best = o[int(np.argmax(eq))]
                else:
                    best = np.array(ev.evaluate(pos.swap()).flip().as_tuple())
                acc += (1 if d1 == d2 else 2) / 36 * best
        np.testing.assert_allclose(row, acc, atol=1e-9)


def test_expert_cube_answers() -> None:
    from backgammon.bots import CubeResponse
    from backgammon.matchid import MatchState

    bot = load("expert")
    start = Position.initial()
    assert bot.should_double(start, MatchState()) is False
    assert bot.respond_to_double(start, MatchState()) is CubeResponse.TAKE
    # seen from the bot: 15 checkers on its 6-point; the doubler (on roll) bears off its last
    # two from its 1-point at once — a sure gammon: pass
    crushed = Position([0] * 5 + [15] + [0] * 19, [2] + [0] * 24)
    assert bot.respond_to_double(crushed, MatchState()) is CubeResponse.PASS
    assert bot.respond_to_double(crushed.swap(), MatchState()) is CubeResponse.BEAVER  # money: the doubler is lost
    assert bot.should_double(start, MatchState(match_length=5)) is False


def test_numpy_forward_matches_the_compiled_evaluator(boards: np.ndarray) -> None:
    ev = default_evaluator()
    contact = np.array([K.is_contact(row) and row[:25].sum() and row[25:].sum() for row in boards],
                       dtype=bool)
    rows = boards[contact]
    ref = ev.nets.contact.forward(encode(rows))
    got = ev.outputs(rows)
    # the compiled path clips to consistent probabilities; compare where nothing was clipped
    ok = (ref[:, 1] <= ref[:, 0]) & (ref[:, 2] <= ref[:, 1]) & (ref[:, 3] <= 1 - ref[:, 0]) & (
        ref[:, 4] <= ref[:, 3])
    assert ok.sum() > len(rows) // 2
    np.testing.assert_allclose(got[ok], ref[ok], atol=2e-6)  # the compiled pass: single precision


def test_two_ply_is_one_ply_after_the_best_play(positions: list[Position]) -> None:
    ev = default_evaluator()
    pos = positions[7]
    out = ev.outputs_at(key_of(pos), 2)[0]
    Probabilities(*out.tolist())
    acc = np.zeros(5)
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            legal = pos.legal_moves((d1, d2))
            if legal:
                eq = ev.play_equities(legal)
                nxt = legal.boards[int(np.argmax(eq))][None, :]
            else:
                nxt = key_of(pos.swap())
            o = ev.one_ply_outputs(nxt)[0]  # for the other side
            acc += (1 if d1 == d2 else 2) / 36 * np.array([1 - o[0], o[3], o[4], o[1], o[2]])
    np.testing.assert_allclose(out, acc, atol=1e-9)
    # 0 and 1 ply through the same entry point; other depths are refused
    np.testing.assert_array_equal(ev.outputs_at(key_of(pos), 0), ev.outputs(key_of(pos)))
    np.testing.assert_array_equal(ev.outputs_at(key_of(pos), 1), ev.one_ply_outputs(key_of(pos)))
    with pytest.raises(ValueError, match="plies=3"):
        ev.outputs_at(key_of(pos), 3)


def test_search_levels_follow_their_filters(positions: list[Position]) -> None:
    from backgammon.bots.neural import WorldClassBot

    ev = default_evaluator()
    gm = load("grandmaster")
    assert isinstance(gm, WorldClassBot) and gm.plies == 2
    # a filter keeping one play at 0 ply is the expert
    narrow = WorldClassBot(filters=((1, 0.0),))
    expert = load("expert")
    rng = random.Random(4)
    checked = 0
    for pos in positions[3::60]:
        roll = (rng.randint(1, 6), rng.randint(1, 6))
        legal = pos.legal_moves(roll)
        if len(legal) < 2:
            continue
        assert narrow.choose_index(legal) == expert.choose_index(legal)
        # by hand: 0 ply -> best 5 within 0.16 -> 1 ply -> best 3 within 0.06 -> 2 ply
        def turned(o: np.ndarray) -> np.ndarray:
            return -equities(o)

        eq0 = ev.play_equities(legal)
        c1 = [i for i in np.argsort(-eq0, kind="stable")[:5] if eq0[i] >= eq0.max() - 0.16]
        eq1 = turned(ev.outputs_at(legal.boards[c1], 1))
        order = np.argsort(-eq1, kind="stable")[:3]
        c2 = [c1[i] for i in order if eq1[i] >= eq1.max() - 0.06]
        if len(c2) == 1:
            want = c2[0]
        else:
            want = c2[int(np.argmax(turned(ev.outputs_at(legal.boards[c2], 2))))]
        assert gm.choose_index(legal) == want
        checked += 1
        if checked == 3:
            break
    assert checked == 3
    with pytest.raises(ValueError, match="plies"):
        WorldClassBot(plies=3)


# -- the race network's own inputs (weights format 4) -------------------------------------------


def test_race_inputs_count_checkers_off_crossovers_and_checkers_outside() -> None:
    # on roll: 13 checkers on points 6-11 (2 off; 11 outside home, each one quadrant away);
    # the other side: 12 on its points 6-9 (3 off; 9 outside, one quadrant each)
    race = Position([0] * 5 + [2] * 5 + [3] + [0] * 14, [0] * 5 + [3] * 4 + [0] * 16)
    x = encode(key_of(race), race_inputs=True)[0]
    assert x.shape == (K.RACE_INPUTS,)
    np.testing.assert_array_equal(x[:NUM_INPUTS], encode(key_of(race))[0])  # the usual first
    mine, theirs = x[NUM_INPUTS:NUM_INPUTS + 16], x[NUM_INPUTS + 16:]
    assert mine[:14].tolist() == [1.0] * 2 + [0.0] * 12
    assert theirs[:14].tolist() == [1.0] * 3 + [0.0] * 11
    assert mine[14:].tolist() == pytest.approx([1.1, 11 / 15])
    assert theirs[14:].tolist() == pytest.approx([0.9, 9 / 15])
    # the far quadrants: 15 checkers on the 24-point need 45 crossovers; none off
    back = Position([0] * 23 + [15, 0], [0] * 5 + [15] + [0] * 19)
    y = encode(key_of(back), race_inputs=True)[0, NUM_INPUTS:]
    assert y[:14].sum() == 0 and y[14] == pytest.approx(4.5) and y[15] == 1.0
    assert y[16 + 14] == 0.0 and y[16 + 15] == 0.0  # all home


def test_a_race_network_with_its_own_inputs_is_evaluated_by_the_kernels(
        boards: np.ndarray, tmp_path: Path) -> None:
    from backgammon.engine.evaluator import inputs_for
    from backgammon.engine.network import pad_race_inputs
    nets = default_evaluator().nets.copy()
    kind = np.empty(len(boards), np.int64)
    K.classify_batch(np.ascontiguousarray(boards), kind)
    rows = boards[kind == 2]
    assert len(rows) >= 10
    padded = nets.copy()
    padded.race = pad_race_inputs(nets.race)  # zero weights: the same function
    np.testing.assert_array_equal(Evaluator(padded).outputs_at(rows, 1), Evaluator(nets).outputs_at(rows, 1))
    rng = np.random.default_rng(5)
    padded.race.w1[NUM_INPUTS:] = rng.normal(0.0, 0.5, padded.race.w1[NUM_INPUTS:].shape)
    padded.save(tmp_path / "own.npz")
    loaded = NetworkPair.load(tmp_path / "own.npz")  # format 4 round trip
    assert int(np.load(tmp_path / "own.npz")["format"]) == 4
    np.testing.assert_array_equal(loaded.race.w1, padded.race.w1)
    got = Evaluator(loaded).outputs(rows)
    ref = loaded.race.forward(inputs_for(loaded.race, rows))
    ok = (ref[:, 1] <= ref[:, 0]) & (ref[:, 2] <= ref[:, 1]) & (ref[:, 3] <= 1 - ref[:, 0]) & (
        ref[:, 4] <= ref[:, 3])
    assert ok.sum() > len(rows) // 2
    np.testing.assert_allclose(got[ok], ref[ok], atol=2e-6)
    assert np.abs(got - Evaluator(nets).outputs(rows)).max() > 1e-3  # the inputs are read
    # a file that claims an older format cannot carry them; TD training refuses them
    data = dict(np.load(tmp_path / "own.npz"))
    data["format"] = np.array(3)
    with pytest.raises(ValueError, match="input encoding"):
        NetworkPair.from_arrays(data)
    with pytest.raises(ValueError, match="own inputs"):
        K.train_games(1, 0, 1, 0.1, 0.0, *loaded.kernel_args(), False,
                      *default_evaluator()._bearoff_tables(), False, np.zeros(4))
