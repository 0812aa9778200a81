"""The shipped network's ``PLIES``-ply outputs of the race positions in IN (keys), saved with
them in OUT (``keys``, ``targets``; resumable: ``OUT.partial.npz`` every minute). Session 29.

    python training/runs/sl39/label_race.py IN OUT PLIES [WEIGHTS]
"""
import sys
import time
from pathlib import Path

import numpy as np

from backgammon.engine.evaluator import Evaluator
from backgammon.engine.network import NetworkPair
from backgammon.engine.refine import label
from backgammon.progress import Progress

src, out, plies = sys.argv[1], sys.argv[2], int(sys.argv[3])
nets = NetworkPair.load(sys.argv[4] if len(sys.argv) > 4 else "backgammon/engine/weights/expert.npz")
with np.load(src) as d:
    keys = np.ascontiguousarray(d["keys"])
t = time.time()
with Progress(len(keys), f"{plies}-ply labels", unit="positions") as bar:
    targets = label(Evaluator(nets), keys, threads=2, plies=plies, progress=bar,
                    partial=Path(out + ".partial.npz"))
np.savez(out, keys=keys, targets=targets)
print("done", len(keys), "positions", round(time.time() - t), "s", flush=True)
