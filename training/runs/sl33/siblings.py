"""Sibling positions for the fit (session 23): the plays a 0-ply decision weighs but does not
choose, valued by the teacher's 1 ply.

Luck-adjusted trajectories hold only the positions the teacher's 0 ply chose; a play it
under-rates is never chosen, so never met again and never corrected. For COUNT positions
drawn (seeded) from the trajectory files in DATA_DIR, this throws one roll, ranks the legal
plays by the teacher's 0-ply equity and keeps the positions after the best TOP plays (for
the opponent, on roll), labelled with the teacher's 1-ply outputs (``refine.label``)::

    PYTHONPATH=. .venv/bin/python training/runs/sl33/siblings.py COUNT TOP TEACHER SEED OUT DATA_DIR...

sl33 (session 23): ``siblings.py 450000 3 training/runs/sl31s/best.npz 331
training/runs/sl33/data-siblings.npz training/runs/sl32/data-traj-a.npz
training/runs/sl32/data-traj-b.npz`` (gitignored, rebuilt from the seed; a DATA argument is a
folder of ``data-traj-*.npz`` or one such file)

Bear-off positions (exact tables, not learned) are left out.
"""

from __future__ import annotations

import glob
import sys
import time

import numpy as np

from backgammon import Position
from backgammon.engine import _kernels as K
from backgammon.engine.evaluator import Evaluator
from backgammon.engine.network import NetworkPair
from backgammon.engine.refine import label
from backgammon.progress import Progress


def main() -> None:
    count, top, teacher, seed, out = (int(sys.argv[1]), int(sys.argv[2]), sys.argv[3],
                                      int(sys.argv[4]), sys.argv[5])
    paths = sorted(p for d in sys.argv[6:]
                   for p in ([d] if d.endswith(".npz") else glob.glob(f"{d}/data-traj-*.npz")))
    keys = np.concatenate([np.load(p)["keys"] for p in paths])
    rng = np.random.default_rng(seed)
    pick = rng.choice(len(keys), size=count, replace=False)
    ev = Evaluator(NetworkPair.load(teacher))
    t0 = time.time()
    found: list[np.ndarray] = []
    with Progress(count, "siblings", unit="positions") as bar:
        for n, i in enumerate(pick):
            k = keys[i]
            pos = Position(k[:25].tolist(), k[25:].tolist())
            d1, d2 = int(rng.integers(1, 7)), int(rng.integers(1, 7))
            legal = pos.legal_moves((d1, d2))
            if len(legal) < 2:
                continue
            order = np.argsort(-ev.play_equities(legal))[:top]
            for j in order:
                found.append(legal.boards[j])
            if n % 1000 == 0:
                bar.update(n)
    sib = np.ascontiguousarray(np.array(found, np.uint8))
    cls = np.zeros(len(sib), np.int64)
    K.classify_batch(sib, cls)
    sib = np.ascontiguousarray(sib[cls >= 2])  # race and contact: the nets learn them
    print(len(sib), "siblings from", count, "positions,", round(time.time() - t0), "s", flush=True)
    t1 = time.time()
    targets = label(ev, sib, threads=2)
    print("1-ply labels", round(time.time() - t1), "s", flush=True)
    np.savez(out, keys=sib, targets=targets)


if __name__ == "__main__":
    main()
