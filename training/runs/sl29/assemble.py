"""sl29's training sets (session 19): the luck-adjusted targets of the three trajectory
files of sl27's games (``gen.py 1000000 {0,250,500} training/runs/sl29/data-traj-{a,b,c}.npz
training/runs/sl27/best.npz 291``, gitignored) for one lambda, saved as a refine run's
``data-0.npz`` (keys, targets; gitignored).

    python assemble.py LAMBDA OUT_DIR"""
import sys

import numpy as np

from backgammon.engine import _search_kernels as S

lam = float(sys.argv[1])
keys, targets = [], []
for part in "abc":
    with np.load(f"training/runs/sl29/data-traj-{part}.npz") as d:
        v0, v1, games = d["v0"], d["v1"], d["games"]
        out = np.empty((len(v0), 5))
        S.lambda_targets(v0, v1, games, lam, out)  # whole games in each file
        keys.append(d["keys"])
        targets.append(out)
k = np.concatenate(keys)
t = np.concatenate(targets)
np.savez(f"{sys.argv[2]}/data-0.npz", keys=k, targets=t)
print(len(k), "positions, lambda", lam)
