"""Raw self-play trajectories for luck-adjusted targets (session 18): every position after
the first 0..8 noisy plies of each game, with its 0-ply and 1-ply outputs and its game
(``refine.trajectory_rows``), saved as a ``.npz`` (not committed: rebuilt from the seed).
Targets for any lambda: ``_search_kernels.lambda_targets``.

    python gen.py COUNT [FIRST_CHUNK [OUT [TEACHER [SEED [PRUNER]]]]]     (a chunk: 100 games)

PRUNER (session 30): a pruning network's ``.npz`` (``backgammon.engine.prune``, e.g.
``training/runs/sl40/prune-h128.npz``): the games' plays and their 1-ply means choose
among the plays it keeps, about 2.5 times as fast (``training/runs/sl40/prune_speed.py``).

sl26 (sl19's games): ``gen.py 600000`` and ``gen.py 900000 130
training/runs/sl26/data-traj-b.npz``; round 2 (sl28, sl27's games): ``gen.py 700000 0
training/runs/sl28/data-traj.npz training/runs/sl27/best.npz 281``; sl29 (session 19, 3M
positions of sl27's games): ``gen.py 1000000 {0,250,500} training/runs/sl29/data-traj-{a,b,c}.npz
training/runs/sl27/best.npz 291`` (``training/runs/sl29/assemble.py`` makes the targets)."""
import sys
import time

import numpy as np

from backgammon.engine.network import NetworkPair
from backgammon.engine.prune import Pruner
from backgammon.engine.refine import trajectory_rows
from backgammon.progress import Progress

count = int(sys.argv[1])
first = int(sys.argv[2]) if len(sys.argv) > 2 else 0
out = sys.argv[3] if len(sys.argv) > 3 else "training/runs/sl26/data-traj.npz"
nets = NetworkPair.load(sys.argv[4] if len(sys.argv) > 4 else "training/runs/sl19/round-0.npz")
seed = int(sys.argv[5]) if len(sys.argv) > 5 else 191
pruner = Pruner.load(sys.argv[6]) if len(sys.argv) > 6 else None
t = time.time()
with Progress(count, "trajectories", unit="positions") as bar:
    k, v0, v1, g = trajectory_rows(nets, count, seed=seed, first_game=100 * first, threads=2,
                                   progress=bar, pruner=pruner)
np.savez(out, keys=k, v0=v0, v1=v1, games=g)
print("done", len(k), "positions,", len(np.unique(g)), "games,", round(time.time() - t), "s", flush=True)
