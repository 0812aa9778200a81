"""Race play alone, candidate against base (session 29): duplicate-dice cubeless 0-ply games
of two network pairs (``train.strength_vs``: each dice sequence played twice, the seats
swapped). Give both pairs the same contact network and the games agree move for move until
the race, which then starts from the same position with the seats swapped: the difference
is the race networks' alone, with little noise. Two threads, seeds 1 and 2.

    python training/runs/sl39/race_match.py CANDIDATE.npz [BASE.npz] [--pairs 100000]
"""
import argparse
import math
import time
from concurrent.futures import ThreadPoolExecutor

from backgammon.engine.network import NetworkPair
from backgammon.engine.train import EVAL_SEED, strength_vs

ap = argparse.ArgumentParser()
ap.add_argument("candidate")
ap.add_argument("base", nargs="?", default="backgammon/engine/weights/expert.npz")
ap.add_argument("--pairs", type=int, default=100000)
ap.add_argument("--seed", type=int, default=EVAL_SEED + 29)
a = ap.parse_args()
cand, base = NetworkPair.load(a.candidate), NetworkPair.load(a.base)
t = time.time()
half = a.pairs // 2
with ThreadPoolExecutor(2) as pool:
    parts = list(pool.map(lambda s: strength_vs(cand, base, half, s), (a.seed, a.seed + 1)))
mean = sum(m for m, _ in parts) / 2
se = math.sqrt(sum(s * s for _, s in parts)) / 2
print(f"{a.candidate} v {a.base}: {mean:+.4f} ± {se:.4f} points a game over {2 * a.pairs} "
      f"games ({a.pairs} duplicate pairs), {time.time() - t:.0f} s", flush=True)
