"""Save rows ``lo:hi`` of the running labeller's partial file (``data-2ply.partial.npz``:
keys and float64 targets of ``label.py``) as ``labels-2ply<suffix>.npz`` (keys, float32
targets, compressed) for ``refine --deeper``: ``python export.py LO HI SUFFIX``."""
import sys
from pathlib import Path

import numpy as np

run = Path(__file__).parent
lo, hi, suffix = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else ""
with np.load(run / "data-2ply.partial.npz") as d:
    keys, targets = d["keys"], d["targets"]
hi = min(hi, len(targets))
out = run / f"labels-2ply{suffix}.npz"
np.savez_compressed(out, keys=keys[lo:hi], targets=targets[lo:hi].astype(np.float32))
print(f"{out}: rows {lo}..{hi - 1} ({hi - lo})")
