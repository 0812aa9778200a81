import time, sys
from pathlib import Path
import numpy as np
from backgammon.engine.network import NetworkPair
from backgammon.engine.evaluator import Evaluator
from backgammon.engine import refine
run = Path("training/runs/sl22")
kf = run / "data-sample-keys.npz"
nets = NetworkPair.load("training/runs/sl19/round-0.npz")
if kf.exists():
    keys = np.load(kf)["keys"]
else:
    t = time.time()
    keys = refine.sample(nets, 1_000_000, seed=161, noise=0.1)
    np.savez(kf, keys=keys)
    print("sampled", time.time() - t, flush=True)
ev = Evaluator(nets)
t = time.time()
class P:
    def __init__(self): self.last = 0
    def update(self, d):
        if d - self.last >= 5000:
            self.last = d; print(d, round(time.time() - t), flush=True)
refine.label(ev, keys, threads=2, plies=2, chunk=200, partial=run / "data-2ply.partial.npz", save_seconds=120, progress=P())
print("done", flush=True)
