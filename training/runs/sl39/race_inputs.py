"""Would race inputs like gnubg's help? (session 29, the diagnostic that came before the
engine took them). The race network's fit of ``fit_race.py`` again, with the race inputs
appended for each side (``_kernels.race_extra``; ``network.pad_race_inputs`` starts their
first-layer weights at zero, so the fit starts from the shipped function): the checkers
borne off in unary (``off >= j`` for j = 1..14, as gnubg's race net has them), the
crossovers still to make (quadrants each checker must cross to get home, / 10) and the
checkers not yet home (/ 15). Prints the held-out RMS against the
validation rollouts with and without them, the same fit otherwise.

    python training/runs/sl39/race_inputs.py TRAIN.npz [...] --val V.npz [...] [--epochs 20]
"""
import argparse

import numpy as np

from backgammon.engine._kernels import clip_outputs
from backgammon.engine.evaluator import encode, equities
from backgammon.engine.network import NetworkPair, pad_race_inputs
from backgammon.engine.refine import fit_best

ap = argparse.ArgumentParser()
ap.add_argument("data", nargs="+")
ap.add_argument("--val", action="append", default=[])
ap.add_argument("--epochs", type=int, default=20)
ap.add_argument("--hidden", type=int, default=64)
ap.add_argument("--seed", type=int, default=391)
a = ap.parse_args()

def load(paths: list[str]) -> tuple[np.ndarray, np.ndarray]:
    ks, ts = [], []
    for p in paths:
        with np.load(p) as d:
            t = np.array(d["targets"][: len(d["keys"])], dtype=np.float64)
            ks.append(d["keys"][: len(t)])
        for row in t:
            clip_outputs(row)
        ts.append(t)
    return np.concatenate(ks), np.concatenate(ts)


keys, t = load(a.data)
vkeys, vt = load(a.val)
base = NetworkPair.load("backgammon/engine/weights/expert.npz").race
if a.hidden > base.hidden:
    base = base.widen(a.hidden, np.random.default_rng(a.seed))
x, xv = encode(keys), encode(vkeys)
rx, rxv = encode(keys, race_inputs=True), encode(vkeys, race_inputs=True)
rms = lambda net, xx: float(np.sqrt(np.mean((equities(net.forward(xx)) - equities(vt)) ** 2)))  # noqa: E731
print(f"{len(x)} training rows, {len(xv)} validation rows; shipped race net {rms(base, xv):.4f}", flush=True)
for name, net, xx, xxv in (
        ("the same inputs", base, x, xv),
        (f"+ {rx.shape[1] - x.shape[1]} race inputs", pad_race_inputs(base), rx, rxv)):
    fitted, chosen, errs = fit_best(net, xx, t, xxv, vt, epochs=a.epochs, batch=256,
                                    learning_rate=1e-3, seed=a.seed, warmup=1)
    print(f"{name}: validation RMS {errs[0]:.4f} -> {errs[chosen]:.4f} (epoch {chosen}; "
          f"by epoch {' '.join(f'{e:.4f}' for e in errs)})", flush=True)
