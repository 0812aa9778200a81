"""Decisions for a pruning network (session 30): positions of seeded noisy 0-ply self-play
(``refine.sample``), each with one seeded roll, every legal play's resulting position and
the shipped network's 0-ply equity of it for the mover. Saved as ``.npz``: ``boards``
(after-play keys, next side on roll), ``eq`` (the mover's cubeless equity), ``group`` (the
decision's index). Only decisions with at least two plays and a network-evaluated
(contact or race, not bear-off) position on roll.

    python prune_data.py COUNT SEED OUT.npz
"""
import sys

import numpy as np

from backgammon._movegen import generate, scratch
from backgammon.engine import _kernels as K
from backgammon.engine import default_evaluator
from backgammon.engine.refine import sample

count, seed, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
ev = default_evaluator()
keys = sample(ev.nets, count, seed=seed, noise=0.1)
rng = np.random.default_rng(seed)
boards, steps, dies, table, st = scratch()
allb, groups = [], []
g = 0
for key in keys:
    if K.is_bearoff(key):
        continue
    d1, d2 = (int(v) for v in rng.integers(1, 7, 2))
    n = generate(key, d1, d2, boards, steps, dies, table, st)
    if n < 2:
        continue
    allb.append(boards[:n].copy())
    groups.append(np.full(n, g))
    g += 1
b = np.concatenate(allb)
grp = np.concatenate(groups)
v = ev.outputs_at(b, 0)
eq = -np.array([K.equity_of(r) for r in v])
np.savez(out, boards=b, eq=eq, group=grp)
print(g, "decisions,", len(b), "plays")
