"""Label positions at 2 ply on a lent many-core machine, inside a time budget.

The device tool (docs/TRAINING.md, run ``sl13``) sends the working tree to a machine with
16 cores for a few minutes; what comes back is only what is written under ``$OUT``, at most
16 MiB a file. This script labels the keys of ``KEYS`` (an ``.npz`` with ``keys``, uint8
``n × 50``, and ``first``, the row of the whole sample its first key is) with the teacher's
2-ply outputs (``Evaluator.outputs_at``, one thread per core: the kernels release the GIL),
in order, and writes the labels done so far to ``$OUT/targets.npy`` (float32 ``m × 5``: the
first ``m`` keys) every 30 s and at the end, with ``$OUT/done.txt`` (``first m seconds``).
It stops taking new chunks after ``BUDGET`` seconds of labelling, so the last save lands
before the command's limit.

On the lent machine (session 13: 524 positions/s on 16 cores, numba's compile ~30 s)::

    PYTHONPATH=. python3 training/device_label.py training/runs/sl7/best.npz .dev/keys-rest.npz 470

Here, the keys come from ``refine.sample`` with the run's seed (the same arguments give the
same positions, and a longer sample starts with the shorter one), and the labels that come
back are saved beside the run's earlier ones as ``labels-2ply-<part>.npz`` (``keys``,
``targets``) for ``refine --deeper``.
"""

from __future__ import annotations

import os
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

from backgammon.engine.evaluator import Evaluator
from backgammon.engine.network import NetworkPair


def main(teacher: str, keys_file: str, budget: float, out: str) -> None:
    t0 = time.time()
    ev = Evaluator(NetworkPair.load(teacher))
    with np.load(keys_file) as d:
        keys = np.ascontiguousarray(d["keys"])
        first = int(d["first"]) if "first" in d else 0
    ev.outputs_at(keys[:4], 2)  # compile the kernels before the clock starts
    print(f"{len(keys)} keys from row {first}; compiled in {time.time() - t0:.1f} s", flush=True)
    n, chunk = len(keys), 250
    labels = np.zeros((n, 5), np.float32)
    start = time.time()
    deadline = start + budget

    def work(lo: int) -> int:
        if time.time() > deadline:
            return -1
        hi = min(n, lo + chunk)
        labels[lo:hi] = ev.outputs_at(keys[lo:hi], 2)
        return hi

    def save(done: int) -> None:
        np.save(os.path.join(out, "tmp.npy"), labels[:done])
        os.replace(os.path.join(out, "tmp.npy"), os.path.join(out, "targets.npy"))
        with open(os.path.join(out, "done.txt"), "w") as f:
            f.write(f"{first} {done} {time.time() - start:.1f}\n")

    done, last = 0, time.time()
    with ThreadPoolExecutor(max_workers=os.cpu_count()) as pool:
        for hi in pool.map(work, range(0, n, chunk)):  # in order: every row below hi is done
            if hi < 0:
                break
            done = hi
            if time.time() - last > 30:
                save(done)
                last = time.time()
                print(f"{done} labelled, {done / (time.time() - start):.0f}/s", flush=True)
    save(done)
    print(f"final {done} labelled, {done / (time.time() - start):.0f}/s", flush=True)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: device_label.py TEACHER.npz KEYS.npz BUDGET_SECONDS  (writes to $OUT)")
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]), os.environ.get("OUT", "."))
