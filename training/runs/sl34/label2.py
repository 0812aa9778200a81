"""2-ply outputs of `sl31s` for the rows of `sl32`'s first trajectory file, in order (whole
games first to last), for targets one ply deeper (TRAINING, "Next steps" (3); session 23).

    PYTHONPATH=. .venv/bin/python training/runs/sl34/label2.py [SECONDS]

Resumes from ``training/runs/sl34/data-2ply.partial.npz`` (gitignored; ``refine.label``
saves it every minute) or, on a fresh checkout, from the committed
``training/runs/sl34/labels-2ply-a.npz`` (the first rows' 2-ply outputs as float32, and the
row count); stops after SECONDS (default: all 1,009,186 rows) and writes the committed file
again. The trajectory file is rebuilt by ``training/runs/sl26/gen.py 1000000 0
training/runs/sl32/data-traj-a.npz training/runs/sl31s/best.npz 321`` (its rows are checked
against the stored count and the first keys' digest)."""

from __future__ import annotations

import hashlib
import os
import sys
import time
from pathlib import Path

import numpy as np

from backgammon.engine.evaluator import Evaluator
from backgammon.engine.network import NetworkPair
from backgammon.engine.refine import label

TRAJ = Path("training/runs/sl32/data-traj-a.npz")
TEACHER = "training/runs/sl31s/best.npz"
PARTIAL = Path("training/runs/sl34/data-2ply.partial.npz")
STORED = Path("training/runs/sl34/labels-2ply-a.npz")
CHUNK = 5_000


def digest(keys: np.ndarray) -> str:
    return hashlib.sha1(np.ascontiguousarray(keys).tobytes()).hexdigest()


def main() -> None:
    seconds = float(sys.argv[1]) if len(sys.argv) > 1 else float("inf")
    keys = np.load(TRAJ)["keys"]
    if not PARTIAL.exists() and STORED.exists():  # a fresh checkout: resume from the stored rows
        with np.load(STORED) as d:
            n = int(d["rows"])
            if str(d["digest"]) != digest(keys[:n]):
                raise SystemExit(f"{TRAJ} does not match {STORED}: rebuild it with gen.py (docstring)")
            np.savez(PARTIAL, keys=keys[:n], targets=d["targets"].astype(np.float64))
    ev = Evaluator(NetworkPair.load(TEACHER))
    t0 = time.time()
    done = 0
    if PARTIAL.exists():
        with np.load(PARTIAL) as d:
            done = len(d["targets"])
    print("resuming at row", done, flush=True)
    while done < len(keys) and time.time() - t0 < seconds:
        hi = min(len(keys), done + CHUNK)
        label(ev, keys[:hi], threads=2, plies=2, partial=PARTIAL, chunk=250)
        done = hi
        print(f"{done} rows, {time.time() - t0:.0f} s", flush=True)
    with np.load(PARTIAL) as d:
        t = d["targets"]
    tmp = STORED.with_name(STORED.name + ".tmp.npz")
    np.savez_compressed(tmp, rows=np.int64(len(t)), digest=digest(keys[:len(t)]),
                        targets=t.astype(np.float32))
    os.replace(tmp, STORED)
    print(f"{STORED}: {len(t)} rows", flush=True)


if __name__ == "__main__":
    main()
