"""sl29's and sl30's training sets (sessions 19, 20): the luck-adjusted targets of the
trajectory files ``data-traj-*.npz`` in each DATA_DIR (default ``training/runs/sl29``), for
one lambda, saved as a refine run's ``data-0.npz`` (keys, targets; gitignored).

sl29: ``gen.py 1000000 {0,250,500} training/runs/sl29/data-traj-{a,b,c}.npz
training/runs/sl27/best.npz 291``; sl30 (sl29a's own games): ``gen.py 1000000 {0,250}
training/runs/sl30/data-traj-{a,b}.npz training/runs/sl29a/best.npz 301`` (two files: the
machine ran at 60% of session 19's speed).

    python assemble.py LAMBDA OUT_DIR [DATA_DIR ...]

Both sets of games in one fit: ``assemble.py 0.5 OUT training/runs/sl29 training/runs/sl30``.
An argument ending in ``.npz`` is a file of labelled positions (``keys``, ``targets``, as
``training/runs/sl33/siblings.py`` writes) appended as it is: sl33a (session 23) is
``assemble.py 0.5 training/runs/sl33a training/runs/sl32 training/runs/sl33/data-siblings.npz``."""
import glob
import sys

import numpy as np

from backgammon.engine import _search_kernels as S

lam = float(sys.argv[1])
args = sys.argv[3:] or ["training/runs/sl29"]
data_dirs = [a for a in args if not a.endswith(".npz")]
labelled = [a for a in args if a.endswith(".npz")]
paths = sorted(p for d in data_dirs for p in glob.glob(f"{d}/data-traj-*.npz"))
if not paths:
    sys.exit(f"no data-traj-*.npz in {' '.join(data_dirs)}: rebuild them with gen.py")
keys, targets = [], []
for path in paths:
    with np.load(path) as d:
        v0, v1, games = d["v0"], d["v1"], d["games"]
        out = np.empty((len(v0), 5))
        S.lambda_targets(v0, v1, games, lam, out)  # whole games in each file
        keys.append(d["keys"])
        targets.append(out)
for path in labelled:
    with np.load(path) as d:
        keys.append(d["keys"])
        targets.append(d["targets"])
    print(path, len(keys[-1]), "labelled positions")
k = np.concatenate(keys)
t = np.concatenate(targets)
np.savez(f"{sys.argv[2]}/data-0.npz", keys=k, targets=t)
print(len(k), "positions, lambda", lam)
