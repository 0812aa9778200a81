"""The judge's race decisions scored by rollouts instead of gnubg 2 ply (session 29): for
every race decision of ``benchmarks/data/judge-gnubg2.json.gz`` where the bots do not all
pick the same play, each picked play and gnubg 2 ply's three best are rolled out (TRIALS
variance-reduced, quasi-random trials with the shipped network, bear-off truncated; the same
dice for every play), and each bot loses the best of them less its own. Decisions where the
bots agree cost them the same and are left out of the paired differences. For the bots
that are networks (``expert``, ``expert@FILE``) it also prints their 0-ply error on the
rolled-out plays: of each play's equity, and of its difference from the decision's best
play (what a choice reads).

    python training/runs/sl39/race_rollout_judge.py [BOT ...] [--trials 144]
"""
import argparse
import math
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "benchmarks"))
import judge as J  # noqa: E402

from backgammon.analysis.rollout import run_chunk  # noqa: E402
from backgammon.engine.evaluator import DEFAULT_WEIGHTS, Evaluator, equities  # noqa: E402
from backgammon.engine.network import NetworkPair  # noqa: E402
from backgammon.matchid import MatchState  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("bots", nargs="*", default=["expert", "gnubg0"])
ap.add_argument("--trials", type=int, default=144)
a = ap.parse_args()
decisions = [d for d in J.decisions_of(J.read_set()) if d.legal.origin.is_race() and len(d.legal) > 1]
choosers = [J.Chooser(b) for b in a.bots]
picks = [[c.choose(d) for c in choosers] for d in decisions]
split = [i for i, p in enumerate(picks) if len(set(p)) > 1]
MONEY = MatchState().to_match_id()


def value(key: np.ndarray) -> float:
    """The mover's equity after a play (``key``: the position from the next side's view)."""
    # cubeless, variance-reduced, quasi-random, bear-off truncated (rollout_race.py's trials)
    _, _, out = run_chunk((0, key.tobytes(), 0, a.trials, 29, 0, 0, True, True, False, True,
                           MONEY, None, True))
    return -float(equities(out.mean(0, keepdims=True))[0])


rolled: list[tuple[int, list[int], list[float]]] = []


def losses(i: int) -> list[float]:
    d = decisions[i]
    top = sorted(range(len(d.legal)), key=lambda k: -d.equities[k])[:3]
    plays = sorted(set(top) | set(picks[i]))
    v = {k: value(d.legal.boards[k]) for k in plays}
    rolled.append((i, plays, [v[k] for k in plays]))
    best = max(v.values())
    return [best - v[k] for k in picks[i]]


print(f"{len(decisions)} race decisions, the bots differ in {len(split)}", flush=True)
with ThreadPoolExecutor(2) as pool:
    rows = list(pool.map(losses, split))
n = len(decisions)
for j, b in enumerate(a.bots):
    tot = sum(r[j] for r in rows)
    print(f"{b:40s} rollout loss over the {len(split)} split decisions {1000 * tot / n:.3f} mEMG a race decision", flush=True)
for j in range(1, len(a.bots)):
    diff = [r[j] - r[0] for r in rows] + [0.0] * (n - len(rows))
    m = sum(diff) / n
    se = math.sqrt(sum((x - m) ** 2 for x in diff) / (n - 1) / n)
    print(f"{a.bots[j]} - {a.bots[0]}: {1000 * m:+.3f} ± {1000 * se:.3f} mEMG a race decision (paired)", flush=True)


for b in a.bots:
    name, _, weights = b.partition("@")
    if name != "expert":
        continue
    ev = Evaluator(NetworkPair.load(weights or DEFAULT_WEIGHTS))
    err_abs, err_diff = [], []
    for i, plays, ro in rolled:
        net = -equities(ev.outputs(np.ascontiguousarray(decisions[i].legal.boards[plays])))
        ro_a = np.array(ro)
        k = int(np.argmax(ro_a))
        err_abs += list(net - ro_a)
        err_diff += list((net - net[k]) - (ro_a - ro_a[k]))
    print(f"{b:40s} 0-ply error v the rollouts over {len(err_abs)} plays: equity RMS "
          f"{np.sqrt(np.mean(np.square(err_abs))):.4f}, difference from the best play RMS "
          f"{np.sqrt(np.mean(np.square(err_diff))):.4f}", flush=True)
