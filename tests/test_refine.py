"""Supervised refinement on 1-ply targets (backgammon.engine.refine), the kernels under it
(backgammon.engine._search_kernels) and the progress bar (backgammon.progress)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from backgammon import Position
from backgammon.engine import NetworkPair, default_evaluator
from backgammon.engine.network import Network
from backgammon.engine import _kernels as K
from backgammon.engine.evaluator import Evaluator
from backgammon.engine.refine import (
    RefineConfig,
    fit,
    fit_best,
    late_contact,
    label,
    main,
    refine_round,
    replace_labels,
    sample,
)
from backgammon.engine.train import strength_vs
from backgammon.progress import Progress
from tests.test_analysis_match import side


@pytest.fixture(scope="module")
def nets() -> NetworkPair:
    return default_evaluator().nets


def test_config_is_validated() -> None:
    assert RefineConfig().positions > 0
    for bad in ({"positions": 10}, {"validation": 0.7}, {"epochs": 0}, {"noise": -1.0},
                {"learning_rate": 0.0}, {"hidden_contact": -1}):
        with pytest.raises(ValueError):
            RefineConfig(**bad)


def test_sample_is_seeded_and_legal(nets: NetworkPair) -> None:
    a = sample(nets, 600, seed=3, noise=0.1)
    b = sample(nets, 600, seed=3, noise=0.1)
    c = sample(nets, 600, seed=4, noise=0.1)
    assert np.array_equal(a, b) and not np.array_equal(a, c)
    kind = np.empty(len(a), np.int64)
    K.classify_batch(a, kind)
    assert (kind != 0).all()  # no finished games
    # every row is a real position: 15 checkers or fewer a side, no shared points
    for row in a[::7]:
        pos = Position(row[:25].tolist(), row[25:].tolist())
        assert 0 < sum(pos.player) <= 15 and 0 < sum(pos.opponent) <= 15
    # noise changes the games
    assert not np.array_equal(sample(nets, 600, seed=3, noise=0.0), a)
    # the first row of every game is the opening position
    assert np.array_equal(a[0], np.frombuffer(bytes(
        (*Position.initial().player, *Position.initial().opponent)), np.uint8))


def test_label_is_one_ply_in_threads(nets: NetworkPair) -> None:
    keys = sample(nets, 300, seed=5, noise=0.1)
    ev = Evaluator(nets)
    bar = Progress(len(keys), "labels", enabled=False)
    out = label(ev, keys, threads=2, chunk=37, progress=bar)
    assert bar.done == len(keys)
    np.testing.assert_allclose(out, ev.one_ply_outputs(keys), atol=0, rtol=0)


def test_fit_moves_outputs_toward_targets(nets: NetworkPair) -> None:
    keys = sample(nets, 400, seed=6, noise=0.1)
    kind = np.empty(len(keys), np.int64)
    K.classify_batch(keys, kind)
    keys = keys[kind == 3]
    from backgammon.engine import encode

    x = encode(keys)
    targets = np.tile([0.9, 0.3, 0.02, 0.01, 0.0], (len(x), 1))
    before = np.abs(nets.contact.forward(x) - targets).mean()
    after_net = fit(nets.contact, x, targets, epochs=5, batch=32, learning_rate=3e-3, seed=1)
    after = np.abs(after_net.forward(x) - targets).mean()
    assert after < 0.5 * before
    # the teacher is untouched
    assert np.abs(nets.contact.forward(x) - targets).mean() == before


def test_weight_decay_shrinks_the_weights_not_the_biases() -> None:
    rng = np.random.default_rng(3)
    base = Network.random(6, rng, inputs=4)
    net = Network(base.w1, rng.uniform(-1.0, 1.0, 6), base.w2, rng.uniform(-1.0, 1.0, 5))
    x = rng.uniform(size=(64, 4))
    targets = net.forward(x)  # already fitted: the gradient is ~0, the decay pulls to 0
    plain = fit(net, x, targets, epochs=20, batch=16, learning_rate=1e-2, seed=1)
    decayed = fit(net, x, targets, epochs=20, batch=16, learning_rate=1e-2, seed=1, weight_decay=0.9)
    for name in ("w1", "w2"):
        before, kept, shrunk = (np.abs(getattr(n, name)).sum() for n in (net, plain, decayed))
        assert abs(kept - before) < 0.01 * before and shrunk < 0.9 * before
    for name in ("b1", "b2"):  # the biases are not decayed: they move to make up for it
        assert np.abs(getattr(decayed, name)).sum() > 0.8 * np.abs(getattr(net, name)).sum()
    with pytest.raises(ValueError, match="weight_decay"):
        RefineConfig(weight_decay=-0.1)


def test_warmup_grows_the_first_steps() -> None:
    """A warm-up keeps a converged network's first epoch near where it started: Adam's
    first steps move every weight by about the full step whatever its gradient."""
    rng = np.random.default_rng(4)
    net = Network.random(6, rng, inputs=4)
    x = rng.uniform(size=(64, 4))
    targets = np.clip(net.forward(x) + rng.normal(0.0, 0.01, (64, 5)), 0.0, 1.0)
    moved = {}
    for warmup in (0.0, 5.0):
        after = fit(net, x, targets, epochs=10, batch=16, learning_rate=1e-2, seed=1,
                    warmup=warmup)
        moved[warmup] = float(np.abs(after.w1 - net.w1).sum())
    assert 0 < moved[5.0] < 0.75 * moved[0.0]
    with pytest.raises(ValueError, match="warmup"):
        RefineConfig(epochs=10, warmup=11)


def test_fit_best_keeps_the_epoch_with_the_lowest_held_out_error() -> None:
    rng = np.random.default_rng(5)
    net = Network.random(6, rng, inputs=4)
    x = rng.uniform(size=(128, 4))
    targets = np.tile([0.8, 0.3, 0.02, 0.05, 0.0], (128, 1))
    kept, epoch, errors = fit_best(net, x[:96], targets[:96], x[96:], targets[96:], epochs=8,
                                   batch=16, learning_rate=2e-2, seed=1)
    assert len(errors) == 9 and epoch > 0 and errors[epoch] == min(errors) < errors[0]
    from backgammon.engine.refine import equity_error

    assert equity_error(kept, x[96:], targets[96:]) == pytest.approx(errors[epoch])
    # the same fit without the choice ends at the last epoch's weights
    last = fit(net, x[:96], targets[:96], epochs=8, batch=16, learning_rate=2e-2, seed=1)
    assert equity_error(last, x[96:], targets[96:]) == pytest.approx(errors[-1])


def test_strength_vs_itself_is_exactly_even(nets: NetworkPair) -> None:
    # duplicate dice and the same network in both seats: every pair cancels
    assert strength_vs(nets, nets, 20) == (0.0, 0.0)
    other = NetworkPair.random(8, 8, seed=1)
    ppg, se = strength_vs(nets, other, 20)
    assert ppg > 0.5 and se > 0


def test_round_and_command(tmp_path: Path, nets: NetworkPair,
                           capsys: pytest.CaptureFixture[str]) -> None:
    config = RefineConfig(positions=400, epochs=1, eval_pairs=5, threads=1)
    lines: list[str] = []
    student, result = refine_round(nets, config, 0, folder=tmp_path, say=lines.append)
    assert result.contact_positions + result.race_positions > 300
    assert 0 < result.contact_error_before < 1 and 0 < result.contact_error_after < 1
    assert (tmp_path / "data-0.npz").exists()
    assert any("held-out RMS equity error" in line for line in lines)
    # the cached labels are reused and give the same student
    again, _ = refine_round(nets, config, 0, folder=tmp_path, say=lines.append)
    assert np.array_equal(again.contact.w1, student.contact.w1)
    assert any("labelled positions from" in line for line in lines)
    # the command: round 0, then round 1 resumes from the run's files
    args = ["--run", "r", "--runs-dir", str(tmp_path), "--positions", "300", "--epochs", "1",
            "--eval-pairs", "3", "--threads", "1"]
    assert main(args) == 0
    assert main([*args, "--epochs", "2", "--keep-best", "--warmup", "0.5"]) == 0
    run = tmp_path / "r"
    assert (run / "round-0.npz").exists() and (run / "round-1.npz").exists()
    assert (run / "data-0.npz").exists()  # kept for refitting (not committed)
    log = (run / "log.txt").read_text()
    assert "rounds 0..0" in log and "rounds 1..1" in log and "student v teacher" in log
    assert "contact network: kept epoch" in log and "'keep_best': True" in log
    NetworkPair.load(run / "round-1.npz")
    capsys.readouterr()


def test_progress_bar_plain_text(monkeypatch: pytest.MonkeyPatch,
                                 capsys: pytest.CaptureFixture[str]) -> None:
    import builtins

    real = builtins.__import__

    def no_rich(name: str, *args: object, **kwargs: object) -> object:
        if name.startswith("rich"):
            raise ImportError(name)
        return real(name, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_rich)
    with Progress(4, "demo", unit="games", enabled=True) as bar:
        for i in range(1, 5):
            bar.update(i, "+0.10 ppg")
    err = capsys.readouterr().err
    assert "\rdemo [" in err and "4/4 games" in err and "+0.10 ppg" in err
    assert err.endswith("\n") and bar.rate >= 0
    # not a terminal and not asked for: silent
    quiet = Progress(3, "quiet")
    quiet.update(3)
    quiet.close()
    assert capsys.readouterr().err == ""


def test_evaluate_against_another_network(tmp_path: Path, nets: NetworkPair,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    from backgammon.engine.train import main as train_main

    nets.save(tmp_path / "a.npz")
    assert train_main(["--evaluate", str(tmp_path / "a.npz"), "--against",
                       str(tmp_path / "a.npz"), "--eval-pairs", "4"]) == 0
    out = capsys.readouterr().out
    assert "vs " in out and "+0.000 ± 0.000 ppg (8 games" in out


def test_two_ply_labels_resume_from_a_partial_file(tmp_path: Path, nets: NetworkPair) -> None:
    keys = sample(nets, 24, seed=8, noise=0.1)
    ev = Evaluator(nets)
    partial = tmp_path / "data-0.partial.npz"
    expected = ev.outputs_at(keys, 2)
    # a run stopped after the first 10 rows left them in the partial file
    first = label(ev, keys[:10], threads=1, chunk=5, plies=2, partial=partial, save_seconds=0)
    np.testing.assert_allclose(first, expected[:10], atol=0, rtol=0)
    with np.load(partial) as d:
        assert np.array_equal(d["keys"], keys[:10]) and len(d["targets"]) == 10
    # the resumed run keeps those rows (poisoned here to show they are not recomputed)
    with np.load(partial) as d:
        poisoned = d["targets"].copy()
    poisoned[3] = 0.25
    np.savez(partial, keys=keys[:10], targets=poisoned)
    bar = Progress(len(keys), "labels", enabled=False)
    out = label(ev, keys, threads=2, chunk=4, plies=2, partial=partial, progress=bar)
    assert bar.done == len(keys)
    assert (out[3] == 0.25).all()
    np.testing.assert_allclose(np.delete(out, 3, 0), np.delete(expected, 3, 0), atol=0, rtol=0)
    # other keys: the partial file does not apply, every row is labelled again
    fresh = label(ev, keys[::-1].copy(), threads=1, chunk=8, plies=2, partial=partial)
    np.testing.assert_allclose(fresh, expected[::-1], atol=0, rtol=0)


def test_round_on_two_ply_labels_of_earlier_positions(tmp_path: Path, nets: NetworkPair) -> None:
    with pytest.raises(ValueError):
        RefineConfig(plies=3)
    pool = sample(nets, 300, seed=9, noise=0.1)
    np.savez(tmp_path / "pool.npz", keys=pool, targets=np.zeros((len(pool), 5)))
    config = RefineConfig(positions=120, epochs=1, eval_pairs=3, threads=2, plies=2,
                          keys_from=str(tmp_path / "pool.npz"))
    lines: list[str] = []
    run = tmp_path / "run"
    run.mkdir()
    refine_round(nets, config, 0, folder=run, say=lines.append)
    with np.load(run / "data-0.npz") as d:
        keys, targets = d["keys"], d["targets"]
    # the positions come from the pool, the labels are the teacher's 2-ply outputs
    pool_rows = {bytes(r) for r in pool}
    assert len(keys) == 120 and all(bytes(r) in pool_rows for r in keys)
    np.testing.assert_allclose(targets, Evaluator(nets).outputs_at(keys, 2), atol=0, rtol=0)
    assert not (run / "data-0.partial.npz").exists()
    assert any("at 2 ply" in line for line in lines)
    assert any("error v 2 ply" in line for line in lines)


def test_round_widens_the_contact_network(tmp_path: Path, nets: NetworkPair) -> None:
    wider = nets.contact.hidden + 8
    config = RefineConfig(positions=300, epochs=1, eval_pairs=3, threads=1, hidden_contact=wider)
    lines: list[str] = []
    narrow, narrow_result = refine_round(nets, replace(config, hidden_contact=0), 0,
                                         folder=tmp_path, say=lines.append)
    student, result = refine_round(nets, config, 0, folder=tmp_path, say=lines.append)
    assert student.contact.hidden == wider and narrow.contact.hidden == nets.contact.hidden
    assert student.race.hidden == nets.race.hidden
    assert any(f"widened to {wider} hidden units" in line for line in lines)
    # the widened network starts out computing the teacher's function: same error before
    assert result.contact_error_before == pytest.approx(narrow_result.contact_error_before,
                                                        rel=1e-9)
    assert not np.array_equal(student.contact.w1[:, :nets.contact.hidden], nets.contact.w1)


def test_round_gives_the_contact_network_a_second_layer(tmp_path: Path, nets: NetworkPair) -> None:
    nets = NetworkPair(Network(*nets.contact.arrays()[:4]), nets.race)  # a one-layer teacher
    config = RefineConfig(positions=300, epochs=2, eval_pairs=3, threads=1, hidden2_contact=6)
    lines: list[str] = []
    shallow, shallow_result = refine_round(nets, replace(config, hidden2_contact=0), 0,
                                           folder=tmp_path, say=lines.append)
    student, result = refine_round(nets, config, 0, folder=tmp_path, say=lines.append)
    assert student.contact.hidden2 == 6 and shallow.contact.hidden2 == 0 and student.race.hidden2 == 0
    assert any("second hidden layer of 6 units" in line for line in lines)
    # the new layer starts out silent (the same error before the fit), then it is fitted too
    assert result.contact_error_before == pytest.approx(shallow_result.contact_error_before, rel=1e-9)
    assert student.contact.w4 is not None and np.abs(student.contact.w4).max() > 0
    with pytest.raises(ValueError, match="hidden2_contact"):
        RefineConfig(hidden2_contact=-1)


def test_fit_trains_both_layers_of_a_deep_network() -> None:
    rng = np.random.default_rng(5)
    net = Network.random(8, rng, inputs=4).deepen(4, rng)
    x = rng.uniform(size=(256, 4))
    targets = np.column_stack([x[:, 0] * x[:, 1], 0.3 * x[:, 2], 0.01 + 0 * x[:, 0], 0.2 * x[:, 3],
                               0.0 * x[:, 0]])
    after = fit(net, x, targets, epochs=60, batch=32, learning_rate=1e-2, seed=1)
    assert after.hidden2 == 4
    assert np.abs(after.forward(x) - targets).mean() < 0.5 * np.abs(net.forward(x) - targets).mean()
    for name in ("w3", "b3", "w4"):
        assert not np.array_equal(getattr(after, name), getattr(net, name))


def test_round_fits_deeper_labels_where_it_has_them(tmp_path: Path, nets: NetworkPair) -> None:
    config = RefineConfig(positions=300, epochs=1, eval_pairs=3, threads=1)
    _, base = refine_round(nets, config, 0, folder=tmp_path, say=lambda line: None)
    with np.load(tmp_path / "data-0.npz") as d:
        keys, targets = d["keys"], d["targets"]
    # "deeper" labels for every other row: a shifted copy, so the fit's targets change
    deep = tmp_path / "deep.npz"
    np.savez(deep, keys=keys[::2], targets=np.clip(targets[::2] + 0.05, 0.0, 1.0))
    marked = {row.tobytes() for row in keys[::2]}
    expected = sum(row.tobytes() in marked for row in keys)  # repeated positions count each time
    lines: list[str] = []
    _, result = refine_round(nets, replace(config, deeper=str(deep)), 0, folder=tmp_path,
                             say=lines.append)
    assert any(f"{expected} of 300 labels taken from {deep}" in line for line in lines)
    assert result.contact_error_before != base.contact_error_before
    # the cached 1-ply labels themselves are kept as they were
    with np.load(tmp_path / "data-0.npz") as d:
        assert np.array_equal(d["targets"], targets)
    # and the command passes the file on
    args = ["--run", "r", "--runs-dir", str(tmp_path), "--positions", "300", "--epochs", "1",
            "--eval-pairs", "3", "--threads", "1", "--deeper", str(deep)]
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "data-0.npz").write_bytes((tmp_path / "data-0.npz").read_bytes())
    assert main(args) == 0
    assert f"{expected} of 300 labels taken from" in (tmp_path / "r" / "log.txt").read_text()


def test_deeper_labels_from_several_files_blended_with_a_weight(tmp_path: Path,
                                                                nets: NetworkPair) -> None:
    config = RefineConfig(positions=300, epochs=1, eval_pairs=3, threads=1)
    refine_round(nets, config, 0, folder=tmp_path, say=lambda line: None)
    with np.load(tmp_path / "data-0.npz") as d:
        keys, targets = d["keys"], d["targets"]
    # two files of "deeper" labels, as a long labelling run split over two machines leaves
    first, second = tmp_path / "a.npz", tmp_path / "b.npz"
    np.savez(first, keys=keys[:100], targets=np.zeros((100, 5)))
    np.savez(second, keys=keys[100:200], targets=np.ones((100, 5)))
    deep_rows = {row.tobytes() for row in keys[:200]}
    blended, n = replace_labels(keys, targets, [first, second], weight=0.5)
    assert n == sum(row.tobytes() in deep_rows for row in keys)
    only_second = {row.tobytes() for row in keys[100:200]}
    for r in range(300):
        b = keys[r].tobytes()
        if b in only_second:  # the later file wins where both have a key
            assert np.allclose(blended[r], 0.5 * targets[r] + 0.5)
        elif b in deep_rows:
            assert np.allclose(blended[r], 0.5 * targets[r])
        else:
            assert np.array_equal(blended[r], targets[r])
    with pytest.raises(ValueError, match="deeper_weight=0"):
        RefineConfig(deeper_weight=0.0)
    # the command takes --deeper twice and the weight, and says what it did
    args = ["--run", "r", "--runs-dir", str(tmp_path), "--positions", "300", "--epochs", "1",
            "--eval-pairs", "3", "--threads", "1", "--deeper", str(first), "--deeper",
            str(second), "--deeper-weight", "0.5"]
    (tmp_path / "r").mkdir()
    (tmp_path / "r" / "data-0.npz").write_bytes((tmp_path / "data-0.npz").read_bytes())
    assert main(args) == 0
    assert (f"{n} of 300 labels blended (0.5 of the target) with those of {first} + {second}"
            in (tmp_path / "r" / "log.txt").read_text())


def test_late_contact_positions_and_their_weight_in_the_fit(tmp_path: Path, nets: NetworkPair) -> None:
    from backgammon.engine.evaluator import key_of

    early = Position.initial()
    borne_off = Position(side({6: 5, 5: 5, 4: 3}), side({24: 2, 6: 5, 5: 5, 4: 3}))
    behind = Position(side({24: 2, 23: 2, 13: 5, 8: 3, 6: 3}),
                      side({6: 5, 5: 4, 4: 3, 3: 3}))
    level = Position(side({24: 2, 8: 3, 6: 5, 5: 3, 4: 2}),
                     side({24: 2, 8: 3, 6: 5, 5: 3, 4: 2}))
    keys = np.concatenate([key_of(p) for p in (early, borne_off, behind, level, behind.swap())])
    assert late_contact(keys).tolist() == [False, True, True, False, True]
    # in a round: the late training rows count late_weight times, the held-out rows once
    config = RefineConfig(positions=300, epochs=1, eval_pairs=3, threads=1)
    lines: list[str] = []
    _, plain = refine_round(nets, config, 0, folder=tmp_path, say=lines.append)
    _, weighted = refine_round(nets, replace(config, late_weight=3), 0, folder=tmp_path,
                               say=lines.append)
    with np.load(tmp_path / "data-0.npz") as d:
        data_keys = d["keys"]
    late_line = next(line for line in lines if "late contact positions count 3 times" in line)
    n_late = int(late_line.split(": ")[1].split()[0])
    assert 0 < n_late < int(late_contact(data_keys).sum()) + 1
    assert weighted.contact_positions == plain.contact_positions + 2 * n_late
    assert weighted.contact_error_before == plain.contact_error_before  # same held-out rows
    with pytest.raises(ValueError, match="late_weight"):
        RefineConfig(late_weight=0)


def test_trajectories_record_the_0_and_1_ply_outputs_of_the_games_positions(nets: NetworkPair) -> None:
    """Every position of the games, in order, with exactly what Evaluator gives it at 0
    and 1 ply; each next row of a game is the previous row's best 0-ply play for some
    roll (or the same position passed over)."""
    from backgammon.engine import _search_kernels as S
    from backgammon.engine.bearoff import kernel_args
    from backgammon.engine.prune import kernel_args as prune_args

    cap = 4000
    keys, v0, v1 = np.zeros((cap, 50), np.uint8), np.zeros((cap, 5)), np.zeros((cap, 5))
    games = np.zeros(cap, np.int64)
    m = S.trajectories(7, 0, 12, 0.1, 8, *nets.kernel_args(), True, *kernel_args(), keys, v0,
                       v1, games, *prune_args(None))
    assert 12 * 10 < m < cap - 500 and set(games[:m].tolist()) == set(range(12))
    ev = Evaluator(nets)
    np.testing.assert_array_equal(v0[:m], ev.outputs(keys[:m]))
    np.testing.assert_array_equal(v1[:m], ev.outputs_at(keys[:m], 1))
    from backgammon._movegen import generate
    from backgammon.engine.evaluator import equities

    boards, steps, dies, table, st = S._scratch()
    for t in range(0, m - 1, 7):  # every 7th: each a best 0-ply play of a roll, or a pass
        if games[t + 1] != games[t]:
            continue
        swapped = np.concatenate([keys[t, 25:], keys[t, :25]])
        found = (keys[t + 1] == swapped).all()
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                n = generate(keys[t], d1, d2, boards, steps, dies, table, st)
                if n and not found:
                    best = int(np.argmax(-equities(ev.outputs(boards[:n]))))
                    found = bool((boards[best] == keys[t + 1]).all())
        assert found, t
    first_again = np.zeros_like(keys)
    S.trajectories(7, 0, 12, 0.1, 8, *nets.kernel_args(), True, *kernel_args(), first_again,
                   v0.copy(), v1.copy(), games.copy(), *prune_args(None))
    np.testing.assert_array_equal(first_again[:m], keys[:m])  # seeded


def test_lambda_targets_follow_the_luck_adjusted_recursion() -> None:
    """Written out again with flip_outputs: target(t) = 1-ply(t) + lam * (the next row's
    target - its 0-ply outputs) seen from row t's side; a game's last row keeps its 1-ply
    outputs; lam = 0 gives the 1-ply outputs."""
    from backgammon.engine import _search_kernels as S
    from backgammon.engine.evaluator import flip_outputs

    rng = np.random.default_rng(2)
    n = 40
    def outputs() -> np.ndarray:
        w = rng.uniform(0.2, 0.8, n)
        wg = w * rng.uniform(0.1, 0.3, n)
        lg = (1 - w) * rng.uniform(0.1, 0.3, n)
        return np.column_stack([w, wg, wg * 0.1, lg, lg * 0.1])
    v0, v1 = outputs(), outputs()
    games = np.repeat([0, 1, 2], [15, 20, 5])
    for lam in (0.0, 0.7, 1.0):
        out = np.empty((n, 5))
        S.lambda_targets(v0, v1, games, lam, out)
        y = np.empty((n, 5))
        for t in range(n - 1, -1, -1):
            y[t] = v1[t]
            if t + 1 < n and games[t + 1] == games[t]:
                y[t] += lam * (flip_outputs(y[t + 1:t + 2]) - flip_outputs(v0[t + 1:t + 2]))[0]
        clipped = y.copy()
        for row in clipped:
            K.clip_outputs(row)
        np.testing.assert_allclose(out, clipped, atol=1e-12)
        if lam == 0.0:
            np.testing.assert_array_equal(out, v1)
    assert not np.allclose(out, v1)


def test_round_on_luck_adjusted_self_play_targets(tmp_path: Path, nets: NetworkPair) -> None:
    config = RefineConfig(positions=500, epochs=1, eval_pairs=5, threads=2,
                          trajectory_lambda=0.9)
    lines: list[str] = []
    refine_round(nets, config, 0, folder=tmp_path, say=lines.append)
    assert any("luck-adjusted targets (lambda 0.9" in line for line in lines)
    with np.load(tmp_path / "data-0.npz") as d:
        assert d["keys"].shape == (500, 50) and d["targets"].shape == (500, 5)
    with pytest.raises(ValueError, match="trajectory_lambda"):
        RefineConfig(trajectory_lambda=1.5)
