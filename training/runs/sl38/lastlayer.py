"""The output layer refitted to unbiased targets (session 28).

``calib.py`` found the shipped network's gammon outputs about 6% low in its own 0-ply games
(the unclipped λ = 1 targets: the outcome less the luck). λ 0.5 targets cannot remove a bias
that every position shares: far from a game's end their error is the network's own. This
script refits, per network (contact, race) and output, only the output layer — ``w2``,
``w4`` and ``b2``: the weights from the hidden units, as fixed features, to the output sum —
by least squares of ``sigmoid(H·w)`` to those targets, with a ridge ``rho·‖w − w_shipped‖²``
that keeps it near the shipped weights. The games are split 80/20 by game; the held-out
mean squared error is printed for the shipped weights, the affine calibration of
``calib.py`` and each ``rho``; the last ``rho`` given is then refitted on all the games and
saved to OUT (the hidden layers are the shipped ones, so the kernels are unchanged).

    PYTHONPATH=. .venv/bin/python training/runs/sl38/lastlayer.py WEIGHTS OUT.npz TRAJ.npz [...] [--rho 1000 100 10] [--outputs 01234] [--nets contact,race]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from backgammon.engine.evaluator import encode  # noqa: E402
from backgammon.engine.network import Network, NetworkPair, sigmoid  # noqa: E402
from calib import NAMES, fit, load_rows  # noqa: E402


def features(net: Network, keys: np.ndarray) -> np.ndarray:
    """``[h, e, 1]`` (float32): the hidden layers' outputs and a constant, per row."""
    parts = []
    for i in range(0, len(keys), 50000):
        x = encode(keys[i:i + 50000])
        h = sigmoid(x @ net.w1 + net.b1)
        cols = [h]
        if (second := net.second_layer) is not None:
            w3, b3, _ = second
            cols.append(sigmoid(h @ w3 + b3))
        cols.append(np.ones((len(h), 1)))
        parts.append(np.hstack(cols).astype(np.float32))
    return np.concatenate(parts)


def weights_of(net: Network, j: int) -> np.ndarray:
    cols = [net.w2[:, j]]
    if net.w4 is not None:
        cols.append(net.w4[:, j])
    cols.append(np.array([net.b2[j]]))
    return np.concatenate(cols)


def set_weights(net: Network, j: int, w: np.ndarray) -> None:
    n = net.w2.shape[0]
    net.w2[:, j] = w[:n]
    if net.w4 is not None:
        net.w4[:, j] = w[n:n + net.w4.shape[0]]
    net.b2[j] = w[-1]


def gram(h: np.ndarray, w0: np.ndarray) -> np.ndarray:
    """``Hᵀ diag(g²) H`` at ``w0`` (``g``: the sigmoid's slope): the Gauss–Newton matrix,
    computed once and kept (the weights move little, so its slope hardly changes)."""
    p = sigmoid((h @ w0.astype(np.float32)).astype(np.float64))
    hg = h * (p * (1 - p)).astype(np.float32)[:, None]
    return (hg.T @ hg).astype(np.float64)


def refit(h: np.ndarray, y: np.ndarray, w0: np.ndarray, rho: float, a: np.ndarray,
          iters: int = 12) -> np.ndarray:
    """``min Σ (sigmoid(h w) − y)² + rho ‖w − w0‖²`` by Gauss–Newton steps with the fixed
    matrix ``a`` (:func:`gram` at ``w0``)."""
    w = w0.copy()
    chol = np.linalg.cholesky(a + rho * np.eye(len(w)))
    for _ in range(iters):
        p = sigmoid((h @ w.astype(np.float32)).astype(np.float64))
        r = ((y - p) * p * (1 - p)).astype(np.float32)
        b = (h.T @ r).astype(np.float64) - rho * (w - w0)
        step = np.linalg.solve(chol.T, np.linalg.solve(chol, b))
        w = w + step
        if np.abs(step).max() < 1e-6:
            break
    return w


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("weights")
    ap.add_argument("out")
    ap.add_argument("traj", nargs="+")
    ap.add_argument("--rho", type=float, nargs="+", default=[1000.0, 100.0, 10.0])
    ap.add_argument("--outputs", default="01234")
    ap.add_argument("--nets", default="contact,race")
    args = ap.parse_args()
    pair = NetworkPair.load(args.weights)
    key, y, game, kind = load_rows(args.traj)
    held = (np.random.default_rng(7).random(int(game.max()) + 1) < 0.2)[game]
    outputs = [int(ch) for ch in args.outputs]
    for name, cls, net in (("contact", 3, pair.contact), ("race", 2, pair.race)):
        if name not in args.nets.split(","):
            continue
        rows = np.flatnonzero(kind == cls)
        h = features(net, key[rows])
        yy = y[rows]
        tr, te = ~held[rows], held[rows]
        print(f"\n{name}: {tr.sum()} training rows, {te.sum()} held out; held-out MSE × 1e4",
              flush=True)
        for j in outputs:
            w0 = weights_of(net, j)
            z0 = h @ w0.astype(np.float32)
            mse = lambda z: 1e4 * float(np.mean((yy[te, j] - sigmoid(z[te].astype(np.float64))) ** 2))  # noqa: E731
            line = [f"shipped {mse(z0):.4f}"]
            a, c = fit(z0[tr].astype(np.float64), yy[tr, j])
            line.append(f"affine {mse(a * z0 + c):.4f}")
            a_tr = gram(h[tr], w0)
            for rho in args.rho:
                w = refit(h[tr], yy[tr, j], w0, rho, a_tr)
                line.append(f"rho {rho:g} {mse(h @ w.astype(np.float32)):.4f}")
            print(f"  {NAMES[j]:12s} " + "  ".join(line), flush=True)
            w = refit(h, yy[:, j], w0, args.rho[-1], gram(h, w0))
            set_weights(net, j, w)
    pair.save(args.out)
    print("saved", args.out, "(rho", args.rho[-1], "on all the games)")


if __name__ == "__main__":
    main()
