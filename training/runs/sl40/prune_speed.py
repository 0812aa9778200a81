"""What a pruning network buys and costs (session 30): 1-ply and 2-ply outputs of
positions from seeded noisy 0-ply self-play (``refine.sample``, bear-offs left out),
computed with every play evaluated and with the pruner keeping at most KEEP plays within
MARGIN of its best; the time of each (one thread, CPU time) and the RMS and largest
difference of the equities.

    python prune_speed.py PRUNER.npz [--positions 2000] [--deep 100] [--limits 0.15:8 ...]
        [--trajectories 20000]

With ``--trajectories N``: also the rate of ``refine.trajectory_rows`` (the luck-adjusted
targets' games, ``gen.py``), one thread, N rows without and with each pruner, and the
mean and RMS of the recorded 1-ply equities.
"""
import argparse
import time

import numpy as np

from backgammon.engine import _kernels as K
from backgammon.engine import default_evaluator
from backgammon.engine.evaluator import Evaluator, equities
from backgammon.engine.prune import Pruner
from backgammon.engine.refine import sample, trajectory_rows

ap = argparse.ArgumentParser()
ap.add_argument("pruner")
ap.add_argument("--positions", type=int, default=2000)
ap.add_argument("--deep", type=int, default=100)
ap.add_argument("--seed", type=int, default=405)
ap.add_argument("--limits", nargs="+", default=["0.15:8"])
ap.add_argument("--trajectories", type=int, default=0)
args = ap.parse_args()

base = default_evaluator()
keys = sample(base.nets, 2 * args.positions, seed=args.seed, noise=0.1)
keys = keys[[not K.is_bearoff(k) for k in keys]][:args.positions]
deep = keys[::max(1, len(keys) // args.deep)][:args.deep]
print(f"{len(keys)} positions ({sum(K.is_contact(k) for k in keys)} contact), {len(deep)} at 2 ply")


def timed(ev: Evaluator, boards: np.ndarray, plies: int) -> tuple[np.ndarray, float]:
    ev.outputs_at(boards[:2], plies)  # compiled before the clock starts
    t = time.thread_time()
    out = ev.outputs_at(boards, plies)
    return out, time.thread_time() - t


ref1, t1 = timed(base, keys, 1)
ref2, t2 = timed(base, deep, 2)
print(f"all plays: 1 ply {1e3 * t1 / len(keys):.3f} ms a position, 2 ply {1e3 * t2 / len(deep):.1f} ms")
for lim in args.limits:
    margin, keep = lim.split(":")
    ev = Evaluator(base.nets, pruner=Pruner.load(args.pruner, margin=float(margin), keep=int(keep)))
    o1, p1 = timed(ev, keys, 1)
    o2, p2 = timed(ev, deep, 2)
    d1 = equities(o1) - equities(ref1)
    d2 = equities(o2) - equities(ref2)
    print(f"margin {margin} keep {keep}: 1 ply {1e3 * p1 / len(keys):.3f} ms (x{t1 / p1:.2f}), "
          f"equity difference mean {d1.mean():+.5f} rms {np.sqrt((d1 ** 2).mean()):.5f} "
          f"max {np.abs(d1).max():.4f}; 2 ply {1e3 * p2 / len(deep):.1f} ms (x{t2 / p2:.2f}), "
          f"mean {d2.mean():+.5f} rms {np.sqrt((d2 ** 2).mean()):.5f} max {np.abs(d2).max():.4f}",
          flush=True)

if args.trajectories:
    def rate(pruner: Pruner | None) -> str:
        trajectory_rows(base.nets, 200, seed=9, threads=1, pruner=pruner)  # compiled
        t = time.process_time()  # one worker thread
        k, v0, v1, g = trajectory_rows(base.nets, args.trajectories, seed=args.seed,
                                       threads=1, pruner=pruner)
        dt = time.process_time() - t
        eq = equities(v1)
        return (f"{len(k) / dt:.0f} rows/s ({len(np.unique(g))} games), 1-ply equity mean "
                f"{eq.mean():+.4f}, 0-ply less 1-ply rms {np.sqrt(((equities(v0) - eq) ** 2).mean()):.4f}")

    print("trajectories, all plays:", rate(None), flush=True)
    for lim in args.limits:
        margin, keep = lim.split(":")
        print(f"trajectories, margin {margin} keep {keep}:",
              rate(Pruner.load(args.pruner, margin=float(margin), keep=int(keep))), flush=True)
