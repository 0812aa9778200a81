"""How often a pruner keeps the network's best play (session 30), for several limits: on
held-out decisions of ``prune_data.py`` (``prune_data.py 10000 402 val.npz``), each
decision's plays scored by the pruner, those kept (at most KEEP within MARGIN of the best,
at least two), and whether the shipped network's best play is among them; the equity it
gives away when not (millipoints a decision), the plays kept a decision and the speed-up
of the evaluations alone (an evaluation 5.2 µs, a pruner's score 0.3 µs).

    python prune_limits.py PRUNER.npz VAL.npz
"""
import sys

import numpy as np

from backgammon.engine.prune import Pruner

p = Pruner.load(sys.argv[1])
d = np.load(sys.argv[2])
g, t = d["group"], d["eq"]
s = p.scores(d["boards"])
starts = np.flatnonzero(np.r_[True, g[1:] != g[:-1]])
ends = np.r_[starts[1:], len(g)]
print(f"{len(starts)} decisions, {len(g)} plays")
for margin in (0.03, 0.06, 0.1, 0.15, 1.0):
    for keep in (6, 8, 12):
        kept = lost = miss = cost = 0.0
        for a, b in zip(starts, ends):
            n = b - a
            if n <= 2:
                kept += n
                cost += n * 5.2
                continue
            o = np.argsort(-s[a:b])
            k = max(2, min(keep, int(np.sum(s[a:b] >= s[a + o[0]] - margin))))
            kept += k
            cost += k * 5.2 + n * 0.3
            best, top = t[a:b].max(), t[a:b][o[:k]].max()
            lost += best - top
            miss += top < best - 1e-12
        m = len(starts)
        print(f"margin {margin} keep {keep}: kept {kept / m:.2f} a decision, best missed "
              f"{miss / m:.3f}, {1000 * lost / m:.2f} mEMG given away a decision, "
              f"evaluations x{(ends - starts).sum() * 5.2 / cost:.2f}")
