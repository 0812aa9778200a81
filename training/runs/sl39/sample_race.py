"""Race positions met in noisy 0-ply self-play of the shipped network (session 29):
``refine.sample`` of COUNT positions (every kind), the race ones kept (bear-offs are exact
and not learned), saved as ``keys`` in OUT (gitignored: rebuilt from the seed).

    python training/runs/sl39/sample_race.py COUNT SEED OUT [WEIGHTS]
"""
import sys
import time

import numpy as np

from backgammon.engine import _kernels as K
from backgammon.engine import refine
from backgammon.engine.network import NetworkPair
from backgammon.progress import Progress

count, seed, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
nets = NetworkPair.load(sys.argv[4] if len(sys.argv) > 4 else "backgammon/engine/weights/expert.npz")
t = time.time()
with Progress(count, "sampling", unit="positions") as bar:
    keys = refine.sample(nets, count, seed=seed, noise=0.1, progress=bar)
kind = np.empty(len(keys), np.int64)
K.classify_batch(np.ascontiguousarray(keys), kind)
race = np.ascontiguousarray(keys[kind == 2])
np.savez(out, keys=race)
print("done", len(race), "race positions of", count, round(time.time() - t), "s", flush=True)
