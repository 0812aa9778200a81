"""Pruning networks (backgammon.engine.prune) and the searches that take one: the kernel's
sparse score is the numpy network's, a pruner that keeps every play changes nothing, one
that keeps two makes each roll's choice between its two best-scored plays, and the
trajectories stay consistent with the pruned 1 ply (the luck keeps mean zero)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from backgammon import Position
from backgammon.engine import _kernels as K
from backgammon.engine import _search_kernels as S
from backgammon.engine import default_evaluator, key_of
from backgammon.engine.evaluator import Evaluator, equities, flip_outputs
from backgammon.engine.prune import Pruner, kernel_args, prune_inputs
from backgammon.engine.refine import trajectory_rows
from tests.strategies import random_game_positions


@pytest.fixture(scope="module")
def pruner() -> Pruner:
    return Pruner.random(16, np.random.default_rng(3))


def _cases(n: int) -> list[tuple[Position, tuple[int, int]]]:
    found = [(p, d) for p, d in random_game_positions(seed=5, games=3)
             if not p.is_game_over() and len(p.legal_moves(d)) >= 4]
    return found[:: max(1, len(found) // n)][:n]


def test_prune_inputs_are_the_raw_part_of_the_encoding() -> None:
    pos = Position.initial()
    x = prune_inputs(key_of(pos))
    assert x.shape == (1, K.PRUNE_INPUTS) == (1, 2 * K.N_RAW)
    # the 6-point's five checkers: 1, 1, 1, (5 - 3) / 2; nobody on the bar or off
    assert x[0, 4 * 5:4 * 5 + 4].tolist() == [1, 1, 1, 1]
    assert x[0, 96:99].tolist() == [0, 0, 0] and x[0, K.N_RAW + 96:].tolist() == [0, 0, 0]


def test_kernel_score_is_the_numpy_networks(pruner: Pruner) -> None:
    hs = np.empty(pruner.hidden, np.float32)
    sc = np.empty(pruner.hidden, np.float32)
    for pos, dice in _cases(20):
        boards = pos.legal_moves(dice).boards
        # bar and borne-off inputs too: positions from whole random games
        want = pruner.scores(boards)
        got = [K.prune_score(b, pruner.w1, pruner.b1, pruner.w2, hs, sc) for b in boards]
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-5)


def test_a_pruner_keeping_every_play_changes_nothing(pruner: Pruner) -> None:
    ev = default_evaluator()
    wide = Evaluator(ev.nets, pruner=pruner.with_limits(margin=1e9, keep=10_000))
    keys = np.concatenate([key_of(p) for p, _ in _cases(6)])
    np.testing.assert_array_equal(wide.outputs_at(keys, 1), ev.outputs_at(keys, 1))
    np.testing.assert_array_equal(wide.outputs_at(keys[:2], 2), ev.outputs_at(keys[:2], 2))


def _pruned_one_ply(ev: Evaluator, pruner: Pruner, pos: Position) -> np.ndarray:
    """1 ply by hand: each roll's best play (by the network) of the two the pruner scores
    highest, turned and weighted."""
    acc = np.zeros(5)
    for d1 in range(1, 7):
        for d2 in range(d1, 7):
            legal = pos.legal_moves((d1, d2))
            if not legal:
                o = ev.outputs(key_of(pos.swap()))[0]
            else:
                boards = legal.boards
                if len(boards) > 2:
                    top = np.sort(np.argsort(-pruner.scores(boards), kind="stable")[:2])
                    boards = boards[top]
                outs = ev.outputs(boards)
                o = outs[int(np.argmax(-equities(outs)))]
            acc += (1 if d1 == d2 else 2) / 36 * flip_outputs(o[None, :])[0]
    return acc


def test_a_pruner_keeping_two_chooses_between_its_two_best(pruner: Pruner) -> None:
    ev = default_evaluator()
    narrow = pruner.with_limits(margin=0.0, keep=2)
    pev = Evaluator(ev.nets, pruner=narrow)
    contact = [p for p, _ in _cases(30) if not p.is_race()][:4]
    got = pev.outputs_at(np.concatenate([key_of(p) for p in contact]), 1)
    for row, pos in zip(got, contact):
        want = _pruned_one_ply(ev, narrow, pos)
        K.clip_outputs(want)
        np.testing.assert_allclose(row, want, atol=1e-12)
    full = ev.outputs_at(np.concatenate([key_of(p) for p in contact]), 1)
    assert not np.array_equal(got, full)  # a random pruner misses some best plays


def test_pruned_trajectories_are_the_pruned_searches(pruner: Pruner) -> None:
    """The recorded 1-ply outputs are the pruned 1 ply's, and each next row is the pruned
    best play of some roll: the luck of each roll still has mean zero."""
    ev = default_evaluator()
    p = pruner.with_limits(margin=0.05, keep=3)
    keys, v0, v1, games = trajectory_rows(ev.nets, 300, seed=4, threads=1, pruner=p)
    pev = Evaluator(ev.nets, pruner=p)
    np.testing.assert_array_equal(v0, ev.outputs(keys))
    np.testing.assert_array_equal(v1, pev.outputs_at(keys, 1))
    plain = trajectory_rows(ev.nets, 300, seed=4, threads=1)[0]
    assert not np.array_equal(plain[:len(keys)], keys[:len(plain)])  # the games differ
    args = kernel_args(p)
    boards, steps, dies, table, st = S._scratch()
    from backgammon._movegen import generate

    w = ev.nets.kernel_args()
    x, h = K.net_scratch(w[0].shape[0], max(w[1].shape[0], w[5].shape[0]))
    bv = np.zeros(5)
    tables = pev._bearoff_tables()
    for t in range(0, len(keys) - 1, 5):
        if games[t + 1] != games[t]:
            continue
        found = bool((keys[t + 1] == np.concatenate([keys[t, 25:], keys[t, :25]])).all())
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                n = generate(keys[t], d1, d2, boards, steps, dies, table, st)
                if n and not found:
                    k = K.pruned_best_play(boards, n, *w, True, *tables,
                                           x, h, bv, *K.new_cache(0), *args)
                    found = bool((boards[k] == keys[t + 1]).all())
        assert found, t


def test_pruner_settings_are_checked_and_saved(pruner: Pruner, tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="keep=1"):
        pruner.with_limits(keep=1)
    with pytest.raises(ValueError, match="expected"):
        Pruner(pruner.w1[:10], pruner.b1, pruner.w2)
    path = tmp_path / "p.npz"
    pruner.with_limits(margin=0.2, keep=5).save(path)
    back = Pruner.load(path)
    assert (back.margin, back.keep) == (0.2, 5)
    np.testing.assert_array_equal(back.w1, pruner.w1)
    assert Pruner.load(path, keep=3).keep == 3
    assert len(kernel_args(None)) == 4 and kernel_args(None)[0].shape[0] == 0
