"""Rollout targets for race positions (session 29): each key of IN rolled out TRIALS times
by the shipped network's 0-ply play, cubeless, with variance reduction, quasi-random first
rolls and bear-off truncation (``analysis.rollout.run_chunk``, what ``backgammon rollout``
runs), in two threads; the mean outputs saved with the keys in OUT (``keys``,
``targets``, ``se``: the standard error of each row's equity; NaN for one trial), every few minutes and at the
end (resumes from OUT's rows).

    python training/runs/sl39/rollout_race.py IN OUT TRIALS [--rows A:B] [--no-quasi]

Each position's dice come from the seed plus its row (so two rows never share their dice).
One trial without quasi-random dice is the λ = 1 target of the luck-adjusted fits: the
outcome of one game from the position less the luck of its rolls, unbiased whatever the
network gets wrong.
"""
import argparse
import os
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from backgammon.analysis.rollout import run_chunk
from backgammon.matchid import MatchState
from backgammon.progress import Progress

ap = argparse.ArgumentParser()
ap.add_argument("src")
ap.add_argument("out")
ap.add_argument("trials", type=int)
ap.add_argument("--rows", default=None, help="A:B, a slice of IN's keys")
ap.add_argument("--seed", type=int, default=29)
ap.add_argument("--no-quasi", action="store_true",
                help="independent dice (a trial or a few: the stratified first rolls need 36)")
a = ap.parse_args()
with np.load(a.src) as d:
    keys = d["keys"]
if a.rows:
    lo, hi = (int(v) for v in a.rows.split(":"))
    keys = keys[lo:hi]
keys = np.ascontiguousarray(keys)
n = len(keys)
targets = np.zeros((n, 5))
se = np.zeros(n)
start = 0
if Path(a.out).exists():
    with np.load(a.out) as d:
        m = len(d["targets"])
        assert np.array_equal(d["keys"][:m], keys[:m])
        targets[:m], se[:m], start = d["targets"], d["se"], m
MONEY = MatchState().to_match_id()
W = np.array([2.0, 1.0, 1.0, -1.0, -1.0])


def one(i: int) -> None:
    # (job, key, first trial, trials, seed, plies, truncate, variance reduction, quasi-random,
    #  cubeful, bear-off truncation, Match ID, cube limit, double at the start)
    _, _, out = run_chunk((0, keys[i].tobytes(), 0, a.trials, a.seed + i, 0, 0, True,
                           not a.no_quasi, False, True, MONEY, None, True))
    targets[i] = out.mean(0)
    se[i] = (out @ W).std(ddof=1) / np.sqrt(a.trials) if a.trials > 1 else np.nan


def save(upto: int) -> None:
    tmp = a.out + ".tmp.npz"
    np.savez(tmp, keys=keys[:upto], targets=targets[:upto], se=se[:upto])
    os.replace(tmp, a.out)


t = time.time()
last = time.monotonic()
step = 2000
with Progress(n, f"rollouts of {a.trials}", unit="positions") as bar, ThreadPoolExecutor(2) as pool:
    for lo in range(start, n, step):
        hi = min(n, lo + step)
        list(pool.map(one, range(lo, hi)))
        bar.update(hi)
        if time.monotonic() - last > 180:
            save(hi)
            last = time.monotonic()
save(n)
print("done", n - start, "positions", round(time.time() - t), "s", flush=True)
