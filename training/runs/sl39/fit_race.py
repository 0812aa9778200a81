"""Fit the race network alone (session 29): the shipped pair's race network (widened to
``--hidden`` units, given a second layer of ``--hidden2``, if asked) fitted to the targets
of the given files (``keys``, ``targets``), each target made consistent
(``_kernels.clip_outputs``: a variance-reduced rollout can stray just outside [0, 1]); a
file written ``FILE*K`` counts K times. 5% of each file is held out and its error reported
before and after (``--val`` files, whole, choose the epoch kept; else those rows); the pair with the shipped contact network and the new race network is
saved to OUT.

    python training/runs/sl39/fit_race.py OUT DATA.npz[*K] [...] [--val V.npz] [--race-inputs]
        [--hidden 128] [--epochs 30]
"""
import argparse
import time

import numpy as np

from backgammon.engine import _kernels as K
from backgammon.engine._kernels import clip_outputs
from backgammon.engine.evaluator import inputs_for
from backgammon.engine.network import NetworkPair, pad_race_inputs
from backgammon.engine.refine import equity_error, fit_best
from backgammon.progress import Progress

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("data", nargs="+")
ap.add_argument("--base", default="backgammon/engine/weights/expert.npz")
ap.add_argument("--hidden", type=int, default=0)
ap.add_argument("--hidden2", type=int, default=0)
ap.add_argument("--race-inputs", action="store_true",
                help="give the race network its own inputs first (pad_race_inputs)")
ap.add_argument("--epochs", type=int, default=30)
ap.add_argument("--learning-rate", type=float, default=1e-3)
ap.add_argument("--batch", type=int, default=256)
ap.add_argument("--seed", type=int, default=391)
ap.add_argument("--val", action="append", default=[],
                help="a file used whole as the validation set, which chooses the epoch kept "
                     "(repeatable; without it: the training files' held-out rows)")
a = ap.parse_args()

pair = NetworkPair.load(a.base)
net = pair.race
if a.race_inputs and net.w1.shape[0] != K.RACE_INPUTS:
    net = pad_race_inputs(net)
if a.hidden > net.hidden:
    net = net.widen(a.hidden, np.random.default_rng(a.seed))
if a.hidden2 and not net.hidden2:
    net = net.deepen(a.hidden2, np.random.default_rng(a.seed + 1))


def encode(keys: np.ndarray) -> np.ndarray:
    return inputs_for(net, keys)


rng = np.random.default_rng(a.seed)
train_x, train_t, held = [], [], []
for spec in a.data:
    path, _, rep = spec.partition("*")
    with np.load(path) as d:
        keys, targets = d["keys"], np.array(d["targets"][: len(d["keys"])], dtype=np.float64)
    for row in targets:
        clip_outputs(row)
    rows = rng.permutation(len(keys))
    n_val = len(rows) // 20
    held.append((path, encode(keys[rows[:n_val]]), targets[rows[:n_val]]))
    x = encode(keys[rows[n_val:]])
    for _ in range(int(rep or 1)):
        train_x.append(x)
        train_t.append(targets[rows[n_val:]])
x, t = np.concatenate(train_x), np.concatenate(train_t)
vals = []
for path in a.val:
    with np.load(path) as d:
        vt = np.array(d["targets"][: len(d["keys"])], dtype=np.float64)
        for row in vt:
            clip_outputs(row)
        vals.append((path + " (validation)", encode(d["keys"][: len(vt)]), vt))
chooser = vals or held
xv = np.concatenate([h[1] for h in chooser])
tv = np.concatenate([h[2] for h in chooser])
held += vals
print(f"{len(x)} training rows, {len(xv)} held out; race network {net.hidden} hidden"
      f"{f' + {net.hidden2}' if net.hidden2 else ''}", flush=True)
before = {p: equity_error(net, hx, ht) for p, hx, ht in held}
t0 = time.time()
with Progress(a.epochs, "fitting race", unit="epochs") as bar:
    net, chosen, errs = fit_best(net, x, t, xv, tv, epochs=a.epochs, batch=a.batch,
                                 learning_rate=a.learning_rate, seed=a.seed, warmup=1,
                                 progress=bar)
print(f"kept epoch {chosen}; held-out RMS by epoch: {' '.join(f'{e:.4f}' for e in errs)}; "
      f"{time.time() - t0:.0f} s", flush=True)
for p, hx, ht in held:
    print(f"  {p}: held-out RMS {before[p]:.4f} -> {equity_error(net, hx, ht):.4f}", flush=True)
pair.race = net
pair.save(a.out)
