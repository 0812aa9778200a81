"""Supervised refinement: teach the networks their own 1-ply values.

Self-play TD(λ) (:mod:`.train`) starts from nothing but levels off. The next step — the one
gnubg and wildbg took, with rollouts — is supervised: collect positions, value each one by
a deeper search, and train the network toward those values. Here the deeper search is the
network's own 1-ply look-ahead (:func:`._search_kernels.one_ply_batch`), which plays
measurably better than 0 ply (``benchmarks/strength.py worldclass expert``), so a network
that learns it plays 0 ply closer to the old 1 ply. A round:

1. **Sample** positions by seeded self-play of the teacher at 0 ply with Gaussian noise of
   standard deviation ``noise`` on each play's equity (so that positions a weaker opponent
   reaches are met too) — :func:`sample`;
2. **Label** each one with the teacher's 1-ply outputs, in parallel threads (the kernels
   release the GIL) — :func:`label`;
3. **Fit** the contact network on the contact positions and the race network on the race
   positions (bear-offs are exact and not learned): mini-batch Adam on the cross-entropy of
   the five sigmoid outputs, starting from the teacher's weights, a cosine-decayed step,
   5 % of the positions held out — :func:`fit`;
4. **Measure** the student against the teacher and against pubeval on duplicate dice
   (:func:`.train.strength_vs`), and keep it only if it beats the teacher.

Luck-adjusted targets: ``--trajectory-lambda L`` takes the positions of the teacher's own
self-play games (:func:`trajectory_sample`) and, as each one's target, its 1-ply outputs plus
``L`` times the rest of its game's surprise: the outcome less the luck of every roll, the
luck of a roll being the outputs after it less the 1-ply mean before it (gnubg's variance
reduction for rollouts, applied to one game). With ``L = 1`` the target is unbiased whatever
the network gets wrong, but noisy (RMS 0.22 from the 1-ply outputs with `sl19`); ``L = 0``
is the 1-ply label. It costs what 1-ply labels of as many positions do.

Deeper labels: ``--plies 2`` labels with the teacher's 2-ply outputs (about 40 positions/s
on two cores instead of ~1,000, so a round labels tens of thousands of positions, saved every
minute in ``data-<k>.partial.npz`` and resumed from there after a stop), and ``--keys-from
DATA`` takes the positions of an earlier round's ``data-<k>.npz`` instead of sampling.

Usage (from the repository root)::

    python -m backgammon.engine.refine --run sl1 --teacher backgammon/engine/weights/expert.npz
    python -m backgammon.engine.refine --run sl1 --rounds 3     # more rounds, resumes
    python -m backgammon.engine.refine --run sl4 --teacher training/runs/sl3/best.npz \
        --plies 2 --keys-from training/runs/sl2/data-0.npz --positions 60000 \
        --learning-rate 0.001 --epochs 20                         # fine-tune on 2-ply labels
    python -m backgammon.engine.refine --run sl5 --teacher training/runs/sl3/best.npz \
        --seed 51 --positions 1000000 --hidden-contact 256 --epochs 120   # a wider student
    python -m backgammon.engine.refine --run sl13 --teacher training/runs/sl7/best.npz \
        --seed 91 --positions 1000000 --hidden-contact 512 --epochs 120 \
        --deeper training/runs/sl9/labels-2ply.npz --deeper training/runs/sl9/labels-2ply-b.npz \
        --deeper-weight 0.5          # targets: the mean of the 1-ply and the 2-ply labels
    python -m backgammon.engine.refine --run sl26 --teacher training/runs/sl19/round-0.npz \
        --trajectory-lambda 0.5 --positions 1000000 --epochs 30 --learning-rate 1e-3 \
        --warmup 1 --keep-best      # luck-adjusted self-play targets, from a converged net

A run lives in ``training/runs/<run>/``: ``round-<k>.npz`` (the student of round ``k``),
``best.npz`` (the best network so far), ``log.txt``; the labelled positions of each round
are kept in ``data-<k>.npz`` (not committed: they are rebuilt from the seed and the
teacher), so a round can be fitted again with other settings without labelling again.
"""

from __future__ import annotations

import argparse
import math
import os
import sys
import time
from collections.abc import Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..progress import Progress
from . import _kernels as K
from . import _search_kernels as S
from .bearoff import kernel_args as bearoff_tables
from .evaluator import Evaluator, equities, inputs_for
from .network import Network, NetworkPair, sigmoid
from .prune import Pruner
from .prune import kernel_args as prune_kernel_args
from .train import EVAL_SEED, RUNS_DIR, strength_vs, strength_vs_pubeval

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["RefineConfig", "fit", "label", "late_contact", "main", "refine_round", "replace_labels",
           "sample"]

_CONTACT = 3
_RACE = 2


@dataclass(frozen=True)
class RefineConfig:
    """The settings of a refinement round (all of them; a round is reproducible from
    them and the teacher's weights)."""

    #: positions sampled per round
    positions: int = 600_000
    #: standard deviation of the equity noise of the sampling self-play
    noise: float = 0.1
    #: seed of the sampling games (round ``k`` uses ``seed + k``) and of the fitting
    seed: int = 1
    #: passes over the training positions
    epochs: int = 30
    #: positions per Adam step
    batch: int = 256
    #: Adam's initial step (cosine-decayed to 1/100 of it)
    learning_rate: float = 3e-3
    #: share of the positions held out to measure the fit
    validation: float = 0.05
    #: threads labelling positions (default: one per CPU core)
    threads: int = 0
    #: duplicate pairs of the strength checks (student v teacher, student v pubeval)
    eval_pairs: int = 8000
    #: depth of the labels: the teacher's 1-ply or 2-ply outputs
    plies: int = 1
    #: take the positions from this data file (the first ``positions`` of a seeded
    #: shuffle of its keys) instead of sampling new ones; its targets are not used
    keys_from: str | None = None
    #: widen the student's contact network to this many hidden units before fitting (the
    #: new units start with small random input weights and zero output weights, so the
    #: widened network first computes what the teacher's does); 0 keeps the teacher's width
    hidden_contact: int = 0
    #: a file of deeper labels (``keys``, ``targets``: a ``data-<k>.npz`` or
    #: ``data-<k>.partial.npz`` of a ``plies=2`` run on the same positions), or several
    #: (a tuple; a later file's label wins): every position found there is fitted to its
    #: label there instead of the round's own — or to a blend of both, below
    deeper: str | tuple[str, ...] | None = None
    #: the deeper label's share of the target where there is one: ``1`` fits the deeper
    #: label alone, ``0.5`` the mean of the round's own label and the deeper one (run
    #: ``sl12`` found the mean better than either)
    deeper_weight: float = 1.0
    #: decoupled weight decay of the fit (AdamW: each step also shrinks the weight
    #: matrices, not the biases, by ``step size × weight_decay``); 0 for none
    weight_decay: float = 0.0
    #: late contact positions (:func:`late_contact`: a side has borne off, or the pip
    #: counts are more than 60 apart) count this many times in the contact network's fit
    #: (the held-out rows once): the 0-ply net errs most there (``benchmarks/phases.py``)
    late_weight: int = 1
    #: give the student's contact network a second hidden layer of this many units before
    #: fitting (:meth:`.network.Network.deepen`: zero weights out of it, so the student
    #: starts out computing the teacher's function); 0 adds none (a teacher that has one
    #: keeps it)
    hidden2_contact: int = 0
    #: epochs over which the fit's step grows from 0 to ``learning_rate`` (then decays):
    #: a fit from a converged network wants a few (Adam's first steps jolt it otherwise)
    warmup: float = 0.0
    #: keep the end of the epoch (or the start) with the lowest held-out error
    #: (:func:`fit_best`) instead of the last one
    keep_best: bool = False
    #: take the positions and their targets from :func:`trajectory_sample` with this
    #: ``lam`` (luck-adjusted outcomes of the teacher's self-play) instead of sampling and
    #: labelling them; None: sample and label
    trajectory_lambda: float | None = None

    def __post_init__(self) -> None:
        if self.positions < 100:
            raise ValueError(f"positions={self.positions}: at least 100")
        if not 0.0 <= self.validation < 0.5:
            raise ValueError(f"validation={self.validation}: a share in [0, 0.5)")
        if self.epochs < 1 or self.batch < 1 or self.eval_pairs < 1:
            raise ValueError("epochs, batch and eval_pairs must be at least 1")
        if not self.learning_rate > 0 or not self.noise >= 0:
            raise ValueError("learning_rate must be > 0 and noise >= 0")
        if self.plies not in (1, 2):
            raise ValueError(f"plies={self.plies}: labels are 1-ply or 2-ply")
        if self.hidden_contact < 0:
            raise ValueError(f"hidden_contact={self.hidden_contact}: 0 (the teacher's) or more")
        if not 0.0 < self.deeper_weight <= 1.0:
            raise ValueError(f"deeper_weight={self.deeper_weight}: a share in (0, 1]")
        if not 0.0 <= self.weight_decay < 1.0:
            raise ValueError(f"weight_decay={self.weight_decay}: in [0, 1)")
        if self.late_weight < 1:
            raise ValueError(f"late_weight={self.late_weight}: at least 1")
        if self.hidden2_contact < 0:
            raise ValueError(f"hidden2_contact={self.hidden2_contact}: 0 (none) or more")
        if self.trajectory_lambda is not None and not 0.0 <= self.trajectory_lambda <= 1.0:
            raise ValueError(f"trajectory_lambda={self.trajectory_lambda}: in [0, 1]")
        if not 0.0 <= self.warmup <= self.epochs:
            raise ValueError(f"warmup={self.warmup}: from 0 to the {self.epochs} epochs")

    @property
    def deeper_files(self) -> tuple[str, ...]:
        """The files of deeper labels, as a tuple (empty: none)."""
        if self.deeper is None:
            return ()
        return (self.deeper,) if isinstance(self.deeper, str) else tuple(self.deeper)


def sample(nets: NetworkPair, count: int, *, seed: int, noise: float,
           progress: Progress | None = None) -> NDArray[np.uint8]:
    """``count`` position keys (side on roll first) met in noisy 0-ply self-play games of
    ``nets``, seeded: the same arguments give the same positions.

    >>> from backgammon.engine import default_evaluator
    >>> keys = sample(default_evaluator().nets, 200, seed=1, noise=0.1)
    >>> keys.shape, int(keys[0].sum())
    ((200, 50), 30)
    """
    out = np.zeros((count, 50), np.uint8)
    kernel: Any = S.sample_positions
    done = 0
    game = 0
    chunk = 200
    while done < count:
        n = kernel(seed, game, chunk, noise, *nets.kernel_args(), True, *bearoff_tables(),
                   out[done:])
        done += int(n)
        game += chunk
        if progress is not None:
            progress.update(done)
    return out


def label(evaluator: Evaluator, keys: NDArray[np.uint8], *, threads: int = 0,
          progress: Progress | None = None, chunk: int = 500, plies: int = 1,
          partial: Path | None = None, save_seconds: float = 60.0) -> NDArray[np.float64]:
    """The ``plies``-ply outputs (1 or 2) of every key (``n × 5``), computed in ``threads``
    threads (default: one per CPU core).

    With ``partial`` the labels done so far are saved there (keys and targets, at most
    every ``save_seconds``) and a later call with the same keys resumes after them: 2-ply
    labels take hours, and a stopped run loses at most the last minute of them."""
    n = keys.shape[0]
    out = np.empty((n, 5))
    first = 0
    if partial is not None and partial.exists():
        with np.load(partial) as d:
            done_keys, done_targets = d["keys"], d["targets"]
        m = len(done_targets)
        if m <= n and np.array_equal(done_keys[:m], keys[:m]):
            out[:m] = done_targets
            first = m
    threads = threads or os.cpu_count() or 1
    starts = list(range(first, n, chunk))

    def work(lo: int) -> int:
        hi = min(n, lo + chunk)
        out[lo:hi] = evaluator.outputs_at(keys[lo:hi], plies)
        return int(hi)

    def save(upto: int) -> None:
        assert partial is not None
        tmp = partial.with_name(partial.name + ".tmp.npz")
        np.savez(tmp, keys=keys[:upto], targets=out[:upto])
        os.replace(tmp, partial)

    done = first
    last_save = time.monotonic()
    if progress is not None:
        progress.update(done)
    with ThreadPoolExecutor(max_workers=threads) as pool:
        for hi in pool.map(work, starts):  # in order: every row below hi is labelled
            done = hi
            if progress is not None:
                progress.update(done)
            if partial is not None and time.monotonic() - last_save >= save_seconds:
                save(done)
                last_save = time.monotonic()
    if partial is not None and done > first:
        save(done)
    return out


def trajectory_rows(nets: NetworkPair, count: int, *, seed: int, noise: float = 0.1,
                    noisy_plies: int = 8, first_game: int = 0, threads: int = 0,
                    progress: Progress | None = None, pruner: Pruner | None = None,
                    ) -> tuple[NDArray[np.uint8], NDArray[np.float64], NDArray[np.float64],
                               NDArray[np.int64]]:
    """At least ``count`` rows of seeded 0-ply self-play games of ``nets`` from game
    ``first_game`` on (:func:`._search_kernels.trajectories`, whole games, 100 a chunk,
    chunks in ``threads`` threads): ``(keys, 0-ply outputs, 1-ply outputs, game indices)``,
    the terms of :func:`._search_kernels.lambda_targets` for any ``lam``. The same
    arguments give the same rows, and a larger ``count`` starts with them. With a
    ``pruner`` (:mod:`.prune`) the games' plays and their 1-ply means choose among the
    plays it keeps."""
    args = (*nets.kernel_args(), True, *bearoff_tables())
    prune = prune_kernel_args(pruner)
    per_chunk = 100  # games: about 5,000 positions
    kernel: Any = S.trajectories

    def chunk(c: int) -> tuple[NDArray[Any], ...]:
        cap = per_chunk * 120 + 500
        keys = np.zeros((cap, 50), np.uint8)
        v0 = np.zeros((cap, 5))
        v1 = np.zeros((cap, 5))
        games = np.zeros(cap, np.int64)
        m = int(kernel(seed, first_game + c * per_chunk, per_chunk, noise, noisy_plies, *args,
                       keys, v0, v1, games, *prune))
        return keys[:m], v0[:m], v1[:m], games[:m]

    threads = threads or os.cpu_count() or 1
    parts: list[tuple[NDArray[Any], ...]] = []
    done = 0
    c = 0
    with ThreadPoolExecutor(max_workers=threads) as pool:
        while done < count:
            for part in pool.map(chunk, range(c, c + threads)):
                parts.append(part)
                done += len(part[0])
            c += threads
            if progress is not None:
                progress.update(min(done, count))
    keys, v0, v1, games = (np.concatenate([p[i] for p in parts]) for i in range(4))
    return keys, v0, v1, games


def trajectory_sample(nets: NetworkPair, count: int, *, seed: int, lam: float,
                      noise: float = 0.1, noisy_plies: int = 8, threads: int = 0,
                      progress: Progress | None = None,
                      ) -> tuple[NDArray[np.uint8], NDArray[np.float64]]:
    """``count`` positions of seeded 0-ply self-play games of ``nets`` and their
    luck-adjusted targets (``keys``, ``targets``): every position after the first few
    noisy plies of each game (:func:`trajectory_rows`), its target the 1-ply outputs plus
    ``lam`` times the rest of the game's luck-adjusted surprise
    (:func:`._search_kernels.lambda_targets`; ``lam = 1``: the outcome less the luck of
    the dice, unbiased whatever the network gets wrong; ``0``: the 1-ply outputs). Costs
    about what 1-ply labels of as many positions do; games in ``threads`` threads.

    >>> from backgammon.engine import default_evaluator
    >>> keys, targets = trajectory_sample(default_evaluator().nets, 300, seed=1, lam=1.0,
    ...                                   threads=1)
    >>> keys.shape, targets.shape, bool((targets >= 0).all() and (targets <= 1).all())
    ((300, 50), (300, 5), True)
    """
    keys, v0, v1, games = trajectory_rows(nets, count, seed=seed, noise=noise,
                                          noisy_plies=noisy_plies, threads=threads,
                                          progress=progress)
    targets = np.empty((len(keys), 5))
    S.lambda_targets(v0, v1, games, lam, targets)  # whole games: then cut to count
    return np.ascontiguousarray(keys[:count]), targets[:count]


def late_contact(keys: NDArray[np.uint8]) -> NDArray[np.bool_]:
    """Which keys are late contact positions: either side has borne off checkers, or the
    pip counts are more than 60 apart (bear-ins against an anchor, back games, crashed
    boards; contact itself is not checked).

    >>> from backgammon import Position
    >>> from backgammon.engine.evaluator import key_of
    >>> late_contact(key_of(Position.initial())).tolist()
    [False]
    """
    k = np.asarray(keys, np.int64)
    points = np.arange(1, 26)
    off = (15 - k[:, :25].sum(1) > 0) | (15 - k[:, 25:].sum(1) > 0)
    gap = np.abs(k[:, :25] @ points - k[:, 25:] @ points) > 60
    out: NDArray[np.bool_] = off | gap
    return out


def equity_error(net: Network, x: NDArray[np.float64], t: NDArray[np.float64]) -> float:
    """Root mean square difference between the network's cubeless equities of inputs
    ``x`` and those of the targets ``t``."""
    if len(x) == 0:
        return 0.0
    return float(np.sqrt(np.mean((equities(net.forward(x)) - equities(t)) ** 2)))


def fit(net: Network, x: NDArray[np.float64], t: NDArray[np.float64], *, epochs: int,
        batch: int, learning_rate: float, seed: int, weight_decay: float = 0.0,
        warmup: float = 0.0, progress: Progress | None = None) -> Network:
    """A copy of ``net`` (one or two hidden layers) trained toward targets ``t`` (``n × 5``
    probabilities) on inputs ``x``: mini-batch Adam on the summed cross-entropy of the five
    sigmoid outputs, step ``learning_rate`` cosine-decayed to 1/100 of it over ``epochs``
    passes (after ``warmup`` epochs over which it grows from 0: a network that has already
    converged is otherwise jolted by Adam's first steps); with ``weight_decay`` the weight
    matrices also shrink by ``step × weight_decay`` each step (AdamW's decoupled decay;
    the biases do not).

    >>> rng = np.random.default_rng(0)
    >>> net = Network.random(4, rng, inputs=3)
    >>> x = rng.uniform(size=(64, 3)); t = np.tile([0.7, 0.2, 0.01, 0.1, 0.0], (64, 1))
    >>> after = fit(net, x, t, epochs=200, batch=16, learning_rate=0.05, seed=0)
    >>> bool(abs(after.forward(x)[:, 0].mean() - 0.7) < 0.02)
    True
    """
    params: list[NDArray[np.float32]] = []
    for params in _epochs(net, x, t, epochs=epochs, batch=batch, learning_rate=learning_rate,
                          seed=seed, weight_decay=weight_decay, warmup=warmup,
                          progress=progress):
        pass
    return _network_of(params) if params else net.copy()


def fit_best(net: Network, x: NDArray[np.float64], t: NDArray[np.float64],
             xv: NDArray[np.float64], tv: NDArray[np.float64], *, epochs: int, batch: int,
             learning_rate: float, seed: int, weight_decay: float = 0.0, warmup: float = 0.0,
             progress: Progress | None = None) -> tuple[Network, int, list[float]]:
    """:func:`fit`, keeping the network with the lowest held-out error
    (:func:`equity_error` on ``xv``, ``tv``) among the start and the end of every epoch:
    ``(network, its epoch (0: the start), the errors of epochs 0..epochs)``. A fit from a
    converged network cannot then end worse on held-out positions than it started.

    >>> rng = np.random.default_rng(0)
    >>> net = Network.random(4, rng, inputs=3)
    >>> x = rng.uniform(size=(64, 3)); own = net.forward(x)
    >>> wrong = np.tile([0.1, 0.0, 0.0, 0.5, 0.1], (64, 1))  # the fit moves away from own
    >>> kept, epoch, errors = fit_best(net, x, wrong, x, own, epochs=5, batch=16,
    ...                                learning_rate=0.05, seed=0)
    >>> epoch, errors[0], bool(errors[-1] > 0.1)
    (0, 0.0, True)
    """
    best = net.copy()
    errors = [equity_error(net, xv, tv)]
    chosen = 0
    for e, params in enumerate(_epochs(net, x, t, epochs=epochs, batch=batch,
                                       learning_rate=learning_rate, seed=seed,
                                       weight_decay=weight_decay, warmup=warmup,
                                       progress=progress), start=1):
        now = _network_of(params)
        errors.append(equity_error(now, xv, tv))
        if errors[-1] < errors[chosen]:
            best, chosen = now, e
    return best, chosen, errors


def _network_of(params: list[NDArray[np.float32]]) -> Network:
    """A :class:`Network` (float64 copies) of the fit's arrays."""
    return Network(*(np.array(a, dtype=np.float64) for a in params))


def _epochs(net: Network, x: NDArray[np.float64], t: NDArray[np.float64], *, epochs: int,
            batch: int, learning_rate: float, seed: int, weight_decay: float, warmup: float,
            progress: Progress | None) -> Iterator[list[NDArray[np.float32]]]:
    """The fit of :func:`fit`, yielding its arrays (live: copy what is kept) after each
    epoch."""
    dt = np.float32  # twice the speed of float64 on these matrices, same fit
    xs = np.ascontiguousarray(x, dtype=dt)
    ts = np.ascontiguousarray(t, dtype=dt)
    params = [np.array(a, dtype=dt) for a in net.arrays()]
    w1, b1, w2, b2 = params[:4]
    deep = len(params) == 7
    if deep:
        w3, b3, w4 = params[4:]
    m = [np.zeros_like(p) for p in params]
    v = [np.zeros_like(p) for p in params]
    beta1, beta2, eps = 0.9, 0.999, 1e-8
    rng = np.random.default_rng(seed)
    n = len(xs)
    steps_per_epoch = max(1, math.ceil(n / batch))
    total = epochs * steps_per_epoch
    rising = int(warmup * steps_per_epoch)
    step = 0
    for epoch in range(epochs):
        order = rng.permutation(n)
        for lo in range(0, n, batch):
            idx = order[lo:lo + batch]
            xb, tb = xs[idx], ts[idx]
            h = sigmoid(xb @ w1 + b1)
            if deep:
                g = sigmoid(h @ w3 + b3)
                o = sigmoid(h @ w2 + b2 + g @ w4)
            else:
                o = sigmoid(h @ w2 + b2)
            d2 = (o - tb) / len(idx)  # cross-entropy through the output sigmoid
            back = d2 @ w2.T
            if deep:
                dg = (d2 @ w4.T) * g * (1.0 - g)
                back += dg @ w3.T
            dh = back * h * (1.0 - h)
            grads = [xb.T @ dh, dh.sum(0), h.T @ d2, d2.sum(0)]
            if deep:
                grads += [h.T @ dg, dg.sum(0), g.T @ d2]
            step += 1
            lr = learning_rate * (0.01 + 0.99 * 0.5 * (1.0 + math.cos(math.pi * step / total)))
            if step <= rising:
                lr *= step / rising
            c1 = 1.0 - beta1 ** step
            c2 = 1.0 - beta2 ** step
            if weight_decay:
                for w in params[::2]:  # w1, w2 (and w3, w4): not the biases
                    w *= 1.0 - lr * weight_decay
            for p, g, mm, vv in zip(params, grads, m, v, strict=True):
                mm *= beta1
                mm += (1.0 - beta1) * g
                vv *= beta2
                vv += (1.0 - beta2) * g * g
                p -= lr * (mm / c1) / (np.sqrt(vv / c2) + eps)
            if step % 100 == 0:  # keep Adam's moments out of float32's (60x slower) subnormals
                for mm, vv in zip(m, v, strict=True):
                    mm[np.abs(mm) < 1e-30] = 0.0
                    np.maximum(vv, 1e-30, out=vv)
        if progress is not None:
            progress.update(epoch + 1)
        yield params


@dataclass(frozen=True)
class RoundResult:
    """What a round measured."""

    round: int
    contact_positions: int
    race_positions: int
    #: RMS equity error (0 ply v the targets) on the held-out positions
    contact_error_before: float
    contact_error_after: float
    race_error_before: float
    race_error_after: float
    #: student v teacher and student v pubeval, 0 ply, points per game and standard error
    vs_teacher: tuple[float, float]
    vs_pubeval: tuple[float, float]
    seconds: float


def replace_labels(keys: NDArray[np.uint8], targets: NDArray[np.float64],
                   path: str | Path | Sequence[str | Path], *,
                   weight: float = 1.0) -> tuple[NDArray[np.float64], int]:
    """``targets`` with the label of every key found in the file ``path`` (``keys``,
    ``targets``) taken from there (every row of a key met more than once), and how many
    rows were replaced. ``path`` may be a sequence of files (a later file's label of a key
    wins). With ``weight`` below 1 a found row becomes ``(1 - weight) * its own label +
    weight * the file's``. ``targets`` itself is not changed.

    >>> keys = np.array([[1] * 50, [2] * 50, [1] * 50], np.uint8)
    >>> import io; f = io.BytesIO(); np.savez(f, keys=keys[:1], targets=np.ones((1, 5))); _ = f.seek(0)
    >>> out, n = replace_labels(keys, np.zeros((3, 5)), f)  # type: ignore[arg-type]
    >>> n, out[:, 0].tolist()
    (2, [1.0, 0.0, 1.0])
    >>> _ = f.seek(0); out, n = replace_labels(keys, np.zeros((3, 5)), f, weight=0.25)  # type: ignore[arg-type]
    >>> out[:, 0].tolist()
    [0.25, 0.0, 0.25]
    """
    paths = [path] if isinstance(path, (str, Path)) or hasattr(path, "read") else list(path)
    index: dict[bytes, NDArray[np.float64]] = {}
    for p in paths:
        with np.load(p) as d:  # type: ignore[arg-type]
            deep_keys, deep_targets = d["keys"], np.asarray(d["targets"], np.float64)
        for i, row in enumerate(deep_keys):
            index[row.tobytes()] = deep_targets[i]
    out = np.array(targets, np.float64, copy=True)
    replaced = 0
    for r in range(len(keys)):
        deep = index.get(keys[r].tobytes())
        if deep is not None:
            out[r] = (1.0 - weight) * out[r] + weight * deep  # weight 1: deep, exactly
            replaced += 1
    return out, replaced


def refine_round(teacher: NetworkPair, config: RefineConfig, k: int, *,
                 folder: Path | None = None, say: Any = print) -> tuple[NetworkPair, RoundResult]:
    """Round ``k``: sample, label, fit, measure (module docs). With ``folder`` the
    labelled positions are cached there (``data-<k>.npz``)."""
    t0 = time.perf_counter()
    seed = config.seed + k
    cache = None if folder is None else folder / f"data-{k}.npz"
    partial: Path | None = None  # the labels' resumable file, while they are computed
    if cache is not None and cache.exists():
        with np.load(cache) as d:
            keys, targets = d["keys"], d["targets"]
        say(f"round {k}: {len(keys)} labelled positions from {cache}")
    elif config.trajectory_lambda is not None:
        ts = time.perf_counter()
        with Progress(config.positions, f"round {k}: self-play trajectories",
                      unit="positions") as bar:
            keys, targets = trajectory_sample(teacher, config.positions, seed=seed,
                                              lam=config.trajectory_lambda,
                                              noise=config.noise, threads=config.threads,
                                              progress=bar)
        say(f"round {k}: {len(keys)} positions of self-play, luck-adjusted targets "
            f"(lambda {config.trajectory_lambda:g}; "
            f"{len(keys) / (time.perf_counter() - ts):.0f} positions/s)")
    else:
        if config.keys_from is not None:
            with np.load(config.keys_from) as d:
                pool_keys = d["keys"]
            order = np.random.default_rng(seed).permutation(len(pool_keys))
            keys = np.ascontiguousarray(pool_keys[order[:config.positions]])
            say(f"round {k}: {len(keys)} positions from {config.keys_from}")
        else:
            with Progress(config.positions, f"round {k}: sampling", unit="positions") as bar:
                keys = sample(teacher, config.positions, seed=seed, noise=config.noise,
                              progress=bar)
        ts = time.perf_counter()
        partial = None if cache is None else cache.with_name(f"data-{k}.partial.npz")
        with Progress(len(keys), f"round {k}: {config.plies}-ply labels",
                      unit="positions") as bar:
            targets = label(Evaluator(teacher), keys, threads=config.threads, progress=bar,
                            plies=config.plies, partial=partial)
        say(f"round {k}: labelled {len(keys)} positions at {config.plies} ply "
            f"({len(keys) / (time.perf_counter() - ts):.0f} positions/s in this run)")
    if cache is not None and not cache.exists():  # labelled or sampled now: kept for refits
        tmp = cache.with_name(cache.name + ".tmp.npz")
        np.savez(tmp, keys=keys, targets=targets)
        os.replace(tmp, cache)
    if partial is not None and partial.exists():  # only once the whole is saved
        partial.unlink()
    files = config.deeper_files
    if files:
        targets, replaced = replace_labels(keys, targets, files, weight=config.deeper_weight)
        how = ("taken from" if config.deeper_weight == 1.0 else
               f"blended ({config.deeper_weight:g} of the target) with those of")
        say(f"round {k}: {replaced} of {len(keys)} labels {how} {' + '.join(files)}")
    kind = np.empty(len(keys), np.int64)
    K.classify_batch(np.ascontiguousarray(keys), kind)
    student = teacher.copy()
    errors: dict[str, tuple[float, float, int]] = {}
    rng = np.random.default_rng(seed)
    for name, cls in (("contact", _CONTACT), ("race", _RACE)):
        rows = np.flatnonzero(kind == cls)
        rows = rows[rng.permutation(len(rows))]
        n_val = int(len(rows) * config.validation)
        val, train_rows = rows[:n_val], rows[n_val:]
        if name == "contact" and config.late_weight > 1:
            late = train_rows[late_contact(keys[train_rows])]
            train_rows = np.concatenate([train_rows, *[late] * (config.late_weight - 1)])
            say(f"round {k}: {len(late)} late contact positions count {config.late_weight} times")
        net: Network = getattr(teacher, name)
        x = inputs_for(net, keys[train_rows])  # a race network's own inputs too, if it has them
        xv = inputs_for(net, keys[val])
        if name == "contact" and config.hidden_contact > net.hidden:
            net = net.widen(config.hidden_contact, np.random.default_rng(seed))
            say(f"round {k}: contact network widened to {net.hidden} hidden units")
        if name == "contact" and config.hidden2_contact and not net.hidden2:
            net = net.deepen(config.hidden2_contact, np.random.default_rng(seed + 1))
            say(f"round {k}: contact network given a second hidden layer of {net.hidden2} units")
        before = equity_error(net, xv, targets[val])
        if len(train_rows):
            with Progress(config.epochs, f"round {k}: fitting {name}", unit="epochs") as bar:
                if config.keep_best and len(val):
                    net, chosen, errs = fit_best(
                        net, x, targets[train_rows], xv, targets[val], epochs=config.epochs,
                        batch=config.batch, learning_rate=config.learning_rate, seed=seed,
                        weight_decay=config.weight_decay, warmup=config.warmup, progress=bar)
                    say(f"round {k}: {name} network: kept epoch {chosen} of {config.epochs} "
                        "(held-out error by epoch: "
                        f"{' '.join(f'{e:.4f}' for e in errs)})")
                else:
                    net = fit(net, x, targets[train_rows], epochs=config.epochs,
                              batch=config.batch, learning_rate=config.learning_rate,
                              seed=seed, weight_decay=config.weight_decay,
                              warmup=config.warmup, progress=bar)
        after = equity_error(net, xv, targets[val])
        setattr(student, name, net)
        errors[name] = (before, after, len(train_rows))
        say(f"round {k}: {name} network on {len(train_rows)} positions: held-out RMS equity "
            f"error v {config.plies} ply {before:.4f} -> {after:.4f}")
    vs_teacher = strength_vs(student, teacher, config.eval_pairs, EVAL_SEED + 1)
    vs_pub = strength_vs_pubeval(student, config.eval_pairs, EVAL_SEED + 1)
    say(f"round {k}: student v teacher {vs_teacher[0]:+.3f} ± {vs_teacher[1]:.3f} ppg, "
        f"v pubeval {vs_pub[0]:+.3f} ± {vs_pub[1]:.3f} ppg ({2 * config.eval_pairs} games "
        f"each, 0 ply, duplicate dice)")
    result = RoundResult(k, errors["contact"][2], errors["race"][2], errors["contact"][0],
                         errors["contact"][1], errors["race"][0], errors["race"][1],
                         vs_teacher, vs_pub, time.perf_counter() - t0)
    return student, result


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point (see the module docstring)."""
    d = RefineConfig()
    ap = argparse.ArgumentParser(prog="python -m backgammon.engine.refine", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", default="refine", help="run name (folder under --runs-dir)")
    ap.add_argument("--runs-dir", type=Path, default=RUNS_DIR)
    ap.add_argument("--teacher", type=Path, default=None,
                    help="weights of round 0's teacher (default: the run's best.npz, else the "
                         "shipped weights)")
    ap.add_argument("--rounds", type=int, default=1, help="rounds to run now")
    ap.add_argument("--positions", type=int, default=d.positions)
    ap.add_argument("--noise", type=float, default=d.noise)
    ap.add_argument("--seed", type=int, default=d.seed)
    ap.add_argument("--epochs", type=int, default=d.epochs)
    ap.add_argument("--batch", type=int, default=d.batch)
    ap.add_argument("--learning-rate", type=float, default=d.learning_rate)
    ap.add_argument("--threads", type=int, default=d.threads)
    ap.add_argument("--eval-pairs", type=int, default=d.eval_pairs)
    ap.add_argument("--plies", type=int, default=d.plies, help="label depth: 1 or 2")
    ap.add_argument("--hidden-contact", type=int, default=d.hidden_contact,
                    help="widen the contact network to this many hidden units (0: keep)")
    ap.add_argument("--hidden2-contact", type=int, default=d.hidden2_contact,
                    help="give the contact network a second hidden layer of this many units "
                         "(0: none)")
    ap.add_argument("--keys-from", default=None,
                    help="take the positions from this data-<k>.npz instead of sampling")
    ap.add_argument("--deeper", action="append", default=None,
                    help="a data file of deeper labels (a --plies 2 run's data-<k>.npz or "
                         "data-<k>.partial.npz): its positions are fitted to its labels; "
                         "repeat it for several files")
    ap.add_argument("--deeper-weight", type=float, default=d.deeper_weight,
                    help="the deeper label's share of the target (1: it alone; 0.5: the "
                         "mean of it and the round's own label)")
    ap.add_argument("--weight-decay", type=float, default=d.weight_decay,
                    help="decoupled weight decay of the fit (AdamW; default 0: none)")
    ap.add_argument("--late-weight", type=int, default=d.late_weight,
                    help="count late contact positions (borne-off checkers, or pips more than "
                         "60 apart) this many times in the contact fit (default 1)")
    ap.add_argument("--warmup", type=float, default=d.warmup,
                    help="epochs over which the fit's step grows from 0 (default 0)")
    ap.add_argument("--trajectory-lambda", type=float, default=None,
                    help="positions and targets from the teacher's self-play: 1-ply outputs "
                         "plus this share of the luck-adjusted rest of the game (1: the "
                         "outcome less the dice's luck)")
    ap.add_argument("--keep-best", action="store_true",
                    help="keep the epoch (or the start) with the lowest held-out error")
    args = ap.parse_args(argv)
    try:
        config = replace(d, positions=args.positions, noise=args.noise, seed=args.seed,
                         epochs=args.epochs, batch=args.batch,
                         learning_rate=args.learning_rate, threads=args.threads,
                         eval_pairs=args.eval_pairs, plies=args.plies,
                         keys_from=args.keys_from, hidden_contact=args.hidden_contact,
                         deeper=None if args.deeper is None else tuple(args.deeper),
                         deeper_weight=args.deeper_weight, weight_decay=args.weight_decay,
                         late_weight=args.late_weight, hidden2_contact=args.hidden2_contact,
                         warmup=args.warmup, keep_best=args.keep_best,
                         trajectory_lambda=args.trajectory_lambda)
    except ValueError as exc:
        ap.error(str(exc))
    folder = args.runs_dir / args.run
    folder.mkdir(parents=True, exist_ok=True)
    with open(folder / "log.txt", "a", buffering=1) as log:
        def say(msg: str) -> None:
            line = f"{time.strftime('%Y-%m-%d %H:%M:%S')} {msg}"
            print(line, flush=True)
            log.write(line + "\n")

        best_path = folder / "best.npz"
        done = sorted(int(p.stem.split("-")[1]) for p in folder.glob("round-*.npz"))
        first = done[-1] + 1 if done else 0
        if args.teacher is not None:
            teacher_path = args.teacher
        elif best_path.exists():
            teacher_path = best_path
        else:
            from .evaluator import DEFAULT_WEIGHTS

            teacher_path = DEFAULT_WEIGHTS
        teacher = NetworkPair.load(teacher_path)
        say(f"refine {args.run}: rounds {first}..{first + args.rounds - 1}, teacher "
            f"{teacher_path}, {asdict(config)}")
        for k in range(first, first + args.rounds):
            student, result = refine_round(teacher, config, k, folder=folder, say=say)
            student.save(folder / f"round-{k}.npz")
            if result.vs_teacher[0] > 0:
                student.save(best_path)
                teacher = student
                say(f"round {k}: kept (best.npz) after {result.seconds / 60:.1f} min")
            else:
                say(f"round {k}: not better than its teacher; best.npz unchanged "
                    f"({result.seconds / 60:.1f} min)")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
