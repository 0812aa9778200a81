"""Label positions at 2 ply on a lent many-core machine, inside a time budget.

The device tool (docs/TRAINING.md, run ``sl13``) sends the working tree to a machine with
16 cores for a few minutes; what comes back is only what is written under ``$OUT``, at most
16 MiB a file. This script labels the keys of ``KEYS`` (an ``.npz`` with ``keys``, uint8
``n × 50``, and ``first``, the row of the whole sample its first key is) with the teacher's
2-ply outputs (:func:`backgammon.engine.refine.label`, one thread per core), in blocks of
:data:`BLOCK` keys, in order, and after each block writes the labels done so far to
``$OUT/targets.npy`` (float32 ``m × 5``: the first ``m`` keys) with ``$OUT/done.txt``
(``first m seconds``). It starts no block that would end after ``BUDGET`` seconds of
labelling, so the last save lands before the command's limit.

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

import numpy as np

from backgammon.engine.evaluator import Evaluator
from backgammon.engine.network import NetworkPair
from backgammon.engine.refine import label

#: keys labelled per call of :func:`refine.label` (about 40 s on 16 cores): the budget is
#: checked and the labels saved between blocks
BLOCK = 20_000


def main(teacher: str, keys_file: str, budget: float, out: str) -> None:
    t0 = time.time()
    ev = Evaluator(NetworkPair.load(teacher))
    with np.load(keys_file) as d:
        keys = np.ascontiguousarray(d["keys"])
        first = int(d["first"]) if "first" in d else 0
    ev.outputs_at(keys[:4], 2)  # compile the kernels before the clock starts
    print(f"{len(keys)} keys from row {first}; compiled in {time.time() - t0:.1f} s", flush=True)
    n = len(keys)
    labels = np.zeros((n, 5), np.float32)
    start = time.time()
    done = 0
    while done < n:
        elapsed = time.time() - start
        # a block takes about as long as the last one did: start it only if it ends in time
        if done and elapsed + elapsed / (done / BLOCK) > budget:
            break
        hi = min(n, done + BLOCK)
        labels[done:hi] = label(ev, keys[done:hi], plies=2, chunk=250)
        done = hi
        np.save(os.path.join(out, "tmp.npy"), labels[:done])
        os.replace(os.path.join(out, "tmp.npy"), os.path.join(out, "targets.npy"))
        with open(os.path.join(out, "done.txt"), "w") as f:
            f.write(f"{first} {done} {time.time() - start:.1f}\n")
        print(f"{done} labelled, {done / (time.time() - start):.0f}/s", flush=True)


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit("usage: device_label.py TEACHER.npz KEYS.npz BUDGET_SECONDS  (writes to $OUT)")
    main(sys.argv[1], sys.argv[2], float(sys.argv[3]), os.environ.get("OUT", "."))
