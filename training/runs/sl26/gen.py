"""Raw self-play trajectories of sl19 for luck-adjusted targets (session 18): every position
after the first 0..8 noisy plies of each game, with its 0-ply and 1-ply outputs and its game
(``_search_kernels.trajectories``), saved as data-traj.npz (not committed: rebuilt from the
seed). Targets for any lambda: ``_search_kernels.lambda_targets``.

    python gen.py COUNT [FIRST_CHUNK [OUT [TEACHER [SEED]]]]

Round 2 (sl28, sl27's games): ``gen.py 700000 0 training/runs/sl28/data-traj.npz
training/runs/sl27/best.npz 281``."""
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from backgammon.engine import _search_kernels as S
from backgammon.engine.bearoff import kernel_args
from backgammon.engine.network import NetworkPair

GAMES_PER_CHUNK = 100
SEED = int(sys.argv[5]) if len(sys.argv) > 5 else 191
FIRST = int(sys.argv[2]) if len(sys.argv) > 2 else 0  # the first chunk (a later part of the same games)
OUT = sys.argv[3] if len(sys.argv) > 3 else "training/runs/sl26/data-traj.npz"
count = int(sys.argv[1])
nets = NetworkPair.load(sys.argv[4] if len(sys.argv) > 4 else "training/runs/sl19/round-0.npz")
args = (*nets.kernel_args(), True, *kernel_args())


def chunk(c: int):
    cap = GAMES_PER_CHUNK * 120 + 500
    k = np.zeros((cap, 50), np.uint8); v0 = np.zeros((cap, 5)); v1 = np.zeros((cap, 5))
    g = np.zeros(cap, np.int64)
    m = S.trajectories(SEED, c * GAMES_PER_CHUNK, GAMES_PER_CHUNK, 0.1, 8, *args, k, v0, v1, g)
    return k[:m], v0[:m], v1[:m], g[:m]


parts, done, c, t = [], 0, FIRST, time.time()
with ThreadPoolExecutor(2) as pool:
    while done < count:
        for p in pool.map(chunk, range(c, c + 2)):
            parts.append(p); done += len(p[0])
        c += 2
        if (c - FIRST) % 20 == 0:
            print(done, round(time.time() - t), flush=True)
k, v0, v1, g = (np.concatenate([p[i] for p in parts]) for i in range(4))
np.savez(OUT, keys=k, v0=v0, v1=v1, games=g)
print("done", len(k), "positions,", (c - FIRST) * GAMES_PER_CHUNK, "games,", round(time.time() - t), "s", flush=True)
