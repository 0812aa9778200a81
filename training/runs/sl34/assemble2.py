"""Targets one ply deeper for the rows of `sl32`'s first trajectory file that
``label2.py`` has labelled at 2 ply (session 24), and the control on the same rows: two
refine runs' ``data-0.npz`` (keys, targets; gitignored).

    PYTHONPATH=. .venv/bin/python training/runs/sl34/assemble2.py LAMBDA DEEP_DIR CONTROL_DIR [LABELS]

LABELS is ``training/runs/sl34/data-2ply.partial.npz`` if it exists, else the committed
``labels-2ply-a.npz``. Only whole games are kept (the labelled rows end inside a game).

* CONTROL_DIR: the targets of every session since 18 (``assemble.py``): row ``t``'s 1-ply
  outputs plus ``LAMBDA`` × (row ``t + 1``'s target − its 0-ply outputs), turned to ``t``'s
  side.
* DEEP_DIR: the same recursion one ply down: row ``t``'s 2-ply outputs plus ``LAMBDA`` ×
  (row ``t + 1``'s target − its 1-ply outputs). The 2 ply averages, over the 21 rolls, the
  1 ply after the best 0-ply play, and row ``t + 1`` is that play for the roll the game
  rolled, so each step's correction is again that roll's luck (zero on average) and at
  ``LAMBDA = 1`` the target is still the outcome less the luck: only the base is deeper.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))

from backgammon.engine import _search_kernels as S  # noqa: E402
from backgammon.engine.evaluator import equities  # noqa: E402
from label2 import PARTIAL, STORED, TRAJ, digest  # noqa: E402


def main() -> None:
    lam = float(sys.argv[1])
    deep_dir, control_dir = Path(sys.argv[2]), Path(sys.argv[3])
    source = Path(sys.argv[4]) if len(sys.argv) > 4 else (PARTIAL if PARTIAL.exists() else STORED)
    with np.load(TRAJ) as d:
        keys, v0, v1, games = d["keys"], d["v0"], d["v1"], d["games"]
    with np.load(source) as d:
        v2 = d["targets"].astype(np.float64)
        if "digest" in d and str(d["digest"]) != digest(keys[:len(v2)]):
            raise SystemExit(f"{source} does not match {TRAJ}")
        if "keys" in d and not np.array_equal(d["keys"], keys[:len(v2)]):
            raise SystemExit(f"{source} does not match {TRAJ}")
    n = len(v2)
    if n < len(keys) and games[n] == games[n - 1]:  # drop the unfinished last game
        n = int(np.flatnonzero(games[:n] != games[n - 1])[-1]) + 1
    keys, v0, v1, v2, games = keys[:n], v0[:n], v1[:n], v2[:n], games[:n]
    control = np.empty((n, 5))
    S.lambda_targets(v0, v1, games, lam, control)
    deep = np.empty((n, 5))
    S.lambda_targets(v1, v2, games, lam, deep)
    for out, t in ((control_dir, control), (deep_dir, deep)):
        out.mkdir(parents=True, exist_ok=True)
        np.savez(out / "data-0.npz", keys=keys, targets=t)
    diff = equities(deep) - equities(control)
    print(f"{n} rows of {len(np.unique(games))} games from {source}, lambda {lam}: "
          f"deep − control equity mean {diff.mean():+.4f}, RMS {np.sqrt((diff ** 2).mean()):.4f}")


if __name__ == "__main__":
    main()
