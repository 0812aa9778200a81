"""Fit a pruning network (session 30): a small net on the raw inputs only (Tesauro's
truncated unary per point, bar, borne off: ``_kernels.N_RAW`` per side) trained to rank a
roll's plays as the shipped network does — the loss is the squared error of the
equities *centred within each decision* (the pruner never needs a position's level,
only the order of a roll's plays). Reports, on held-out decisions, how often the full
network's best play is among the pruner's top K, and the equity lost when it is not.

    python prune_fit.py TRAIN.npz VAL.npz OUT.npz [--hidden 32] [--epochs 20]

``prune-h128.npz`` (session 30; log ``prune-fit.txt``): ``prune_data.py 300000 404
train.npz``, ``prune_data.py 10000 402 val.npz``, then ``prune_fit.py train.npz val.npz
prune-h128.npz --hidden 128 --epochs 10`` (5 minutes on one core).
"""
import argparse
import time

import numpy as np

from backgammon.engine.prune import Pruner, prune_inputs

ap = argparse.ArgumentParser()
ap.add_argument("train")
ap.add_argument("val")
ap.add_argument("out")
ap.add_argument("--hidden", type=int, default=32)
ap.add_argument("--epochs", type=int, default=20)
ap.add_argument("--lr", type=float, default=3e-3)
ap.add_argument("--seed", type=int, default=1)
args = ap.parse_args()


def load(path):
    d = np.load(path)
    g = d["group"]
    starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
    return prune_inputs(d["boards"]), d["eq"].astype(np.float32), starts, len(g)


def forward(w1, b1, w2, x):
    h = 1.0 / (1.0 + np.exp(-(x @ w1 + b1)))
    return h, h @ w2


def centre(v, starts, n):
    sums = np.add.reduceat(v, starts)
    counts = np.diff(np.r_[starts, n])
    return v - np.repeat(sums / counts, counts)


xt, tt, st, nt = load(args.train)
xv, tv, sv, nv = load(args.val)
print(f"train {len(st)} decisions {nt} plays; val {len(sv)} decisions {nv} plays", flush=True)
rng = np.random.default_rng(args.seed)
nin = xt.shape[1]
H = args.hidden
w1 = (rng.standard_normal((nin, H)) * 0.1).astype(np.float32)
b1 = np.zeros(H, np.float32)
w2 = (rng.standard_normal(H) * 0.1).astype(np.float32)
params = [w1, b1, w2]
m = [np.zeros_like(p) for p in params]
v = [np.zeros_like(p) for p in params]
ends_t = np.r_[st[1:], nt]
step = 0


def evaluate(x, t, starts, n):
    _, p = forward(w1, b1, w2, x)
    ends = np.r_[starts[1:], n]
    hits = {k: 0 for k in (1, 2, 3, 4, 5, 6, 8)}
    lost = {k: 0.0 for k in hits}
    for a, b in zip(starts, ends):
        order = np.argsort(-p[a:b], kind="stable")
        tb = t[a:b]
        best = tb.max()
        for k in hits:
            top = tb[order[:k]].max()
            hits[k] += top >= best - 1e-12
            lost[k] += best - top
    rms = float(np.sqrt(np.mean((centre(p, starts, n) - centre(t, starts, n)) ** 2)))
    return rms, {k: hits[k] / len(starts) for k in hits}, {k: 1000 * lost[k] / len(starts) for k in lost}


t0 = time.time()
for epoch in range(args.epochs):
    lr = args.lr * (0.5 * (1 + np.cos(np.pi * epoch / args.epochs)))
    order = rng.permutation(len(st))
    for c in range(0, len(order), 256):
        gs = np.sort(order[c:c + 256])
        idx = np.concatenate([np.arange(st[g], ends_t[g]) for g in gs])
        counts = ends_t[gs] - st[gs]
        bstarts = np.r_[0, np.cumsum(counts)[:-1]]
        x = xt[idx]
        h, p = forward(w1, b1, w2, x)
        r = centre(p - tt[idx], bstarts, len(idx))
        gp = (2.0 / len(idx)) * r
        g2 = h.T @ gp
        gh = np.outer(gp, w2) * h * (1 - h)
        g1 = x.T @ gh
        gb1 = gh.sum(0)
        step += 1
        for i, (p_, g_) in enumerate(zip(params, (g1, gb1, g2))):
            m[i] = 0.9 * m[i] + 0.1 * g_
            v[i] = 0.999 * v[i] + 0.001 * g_ * g_
            mh = m[i] / (1 - 0.9 ** step)
            vh = v[i] / (1 - 0.999 ** step)
            p_ -= (lr * mh / (np.sqrt(vh) + 1e-8)).astype(np.float32)
    rms, hits, lost = evaluate(xv, tv, sv, nv)
    print(f"epoch {epoch + 1} lr {lr:.5f} val centred rms {rms:.4f} top-k hit "
          + " ".join(f"{k}:{hits[k]:.3f}" for k in hits)
          + " | mEMG lost/decision " + " ".join(f"{k}:{lost[k]:.2f}" for k in lost)
          + f" | {time.time() - t0:.0f}s", flush=True)
Pruner(w1, b1, w2).save(args.out)  # the default limits: margin 0.15, at most 8 plays
