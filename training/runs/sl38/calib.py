"""Is the shipped network calibrated? (session 28)

For every contact and race row of the trajectory files (``gen.py``: the 0-ply self-play of
one network, each row's 0-ply and 1-ply outputs), the **unclipped** λ = 1 target — the
game's outcome less the luck of every roll from the row on, an unbiased value of the
0-ply player's position whatever the network gets wrong (``_search_kernels.lambda_targets``
with ``clip=False``: its clip would bias a noisy unbiased value) — is set against the
network's own output sums ``z`` (before the sigmoid). Per network and output ``j``, a
least-squares fit of ``sigmoid(a·z + c)`` to the targets; ``a = 1, c = 0`` is a calibrated
network. Standard errors: a bootstrap over whole games (a game's rows share its luck).

A calibration is exact in the weights: ``a·z + c`` is the output layer with ``w2``, ``w4``
and ``b2`` scaled by ``a`` and ``c`` added to ``b2``, so OUT (if given) is the network with
every fitted ``(a, c)`` folded in — the same kernels, nothing else changed.

    PYTHONPATH=. .venv/bin/python training/runs/sl38/calib.py WEIGHTS TRAJ.npz [TRAJ.npz ...] [--out OUT.npz]
"""
from __future__ import annotations

import argparse

import numpy as np

from backgammon.engine import _kernels as K
from backgammon.engine import _search_kernels as S
from backgammon.engine.evaluator import encode
from backgammon.engine.network import NetworkPair, sigmoid

NAMES = ("win", "win gammon", "win bg", "lose gammon", "lose bg")


def unclipped_targets(v0: np.ndarray, v1: np.ndarray, games: np.ndarray) -> np.ndarray:
    """λ = 1 targets without the clip (``lambda_targets(..., clip=False)``)."""
    out = np.empty((len(v0), 5))
    S.lambda_targets(v0, v1, games, 1.0, out, False)
    return out


def load_rows(paths: list[str]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The rows of trajectory files: keys, unclipped λ = 1 targets, game numbers (distinct
    across the files) and class (``classify_batch``: 3 contact, 2 race)."""
    keys, ys, gs = [], [], []
    base = 0
    for path in paths:
        with np.load(path) as d:
            keys.append(d["keys"])
            ys.append(unclipped_targets(d["v0"], d["v1"], d["games"]))
            gs.append(d["games"].astype(np.int64) + base)
            base = int(gs[-1].max()) + 1
    key = np.concatenate(keys)
    kind = np.empty(len(key), np.int64)
    K.classify_batch(np.ascontiguousarray(key), kind)
    return key, np.concatenate(ys), np.concatenate(gs), kind


def fit(z: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> tuple[float, float]:
    """Least squares ``sigmoid(a z + c) ≈ y`` (weights ``w``), Gauss–Newton from (1, 0)."""
    a, c = 1.0, 0.0
    if w is None:
        w = np.ones_like(z)
    for _ in range(30):
        p = sigmoid(a * z + c)
        g = p * (1 - p)
        r = y - p
        ja, jc = g * z, g
        m = np.array([[np.sum(w * ja * ja), np.sum(w * ja * jc)],
                      [np.sum(w * ja * jc), np.sum(w * jc * jc)]])
        b = np.array([np.sum(w * ja * r), np.sum(w * jc * r)])
        step = np.linalg.solve(m + 1e-9 * np.eye(2), b)
        a, c = a + step[0], c + step[1]
        if np.abs(step).max() < 1e-7:
            break
    return float(a), float(c)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("weights")
    ap.add_argument("traj", nargs="+")
    ap.add_argument("--out")
    ap.add_argument("--boot", type=int, default=20)
    ap.add_argument("--only", default="01234", help="outputs to fold in (digits)")
    args = ap.parse_args()
    pair = NetworkPair.load(args.weights)
    key, y, game, kind = load_rows(args.traj)
    print(len(key), "rows,", len(np.unique(game)), "games")
    rng = np.random.default_rng(0)
    fitted: dict[str, list[tuple[float, float]]] = {}
    for name, cls, net in (("contact", 3, pair.contact), ("race", 2, pair.race)):
        rows = np.flatnonzero(kind == cls)
        z = np.concatenate([net.output_sums(encode(key[rows[i:i + 100000]]))
                            for i in range(0, len(rows), 100000)])
        yy = y[rows]
        gg = game[rows]
        ug, inv = np.unique(gg, return_inverse=True)
        print(f"\n{name}: {len(rows)} rows of {len(ug)} games")
        fitted[name] = []
        for j in range(5):
            p = sigmoid(z[:, j])
            a, c = fit(z[:, j], yy[:, j])
            boots = []
            for _ in range(args.boot):
                wgame = rng.multinomial(len(ug), np.full(len(ug), 1 / len(ug)))
                boots.append(fit(z[:, j], yy[:, j], wgame[inv].astype(np.float64)))
            sa, sc = np.std(np.array(boots), axis=0)
            bias = float(np.mean(yy[:, j] - p))
            per_game = np.bincount(inv, weights=yy[:, j] - p, minlength=len(ug))
            cnt = np.bincount(inv, minlength=len(ug))
            sbias = float(np.sqrt(np.sum((per_game - bias * cnt) ** 2)) / len(rows))
            q = sigmoid(a * z[:, j] + c)
            print(f"  {NAMES[j]:12s} mean net {p.mean():.4f} target {yy[:, j].mean():.4f} "
                  f"bias {bias:+.4f} ± {sbias:.4f}   a {a:.3f} ± {sa:.3f}  c {c:+.3f} ± {sc:.3f}"
                  f"   MSE {np.mean((yy[:, j] - p) ** 2):.5f} -> {np.mean((yy[:, j] - q) ** 2):.5f}")
            edges = np.quantile(p, np.linspace(0, 1, 6))
            cells = []
            for lo, hi in zip(edges[:-1], edges[1:]):
                m = (p >= lo) & (p <= hi)
                cells.append(f"{p[m].mean():.3f}:{yy[m, j].mean() - p[m].mean():+.4f}")
            print("     by quintile (net: target − net) " + "  ".join(cells))
            fitted[name].append((a, c))
    if args.out:
        only = {int(ch) for ch in args.only}
        for name, net in (("contact", pair.contact), ("race", pair.race)):
            for j, (a, c) in enumerate(fitted[name]):
                if j not in only:
                    continue
                net.w2[:, j] *= a
                net.b2[j] = a * net.b2[j] + c
                if net.w4 is not None:
                    net.w4[:, j] *= a
        pair.save(args.out)
        print("saved", args.out, "outputs", sorted(only))


if __name__ == "__main__":
    main()
