"""A weight soup: the element-wise mean of networks of one shape, saved as one weights file.

Usage (from the repository root)::

    PYTHONPATH=. .venv/bin/python training/runs/sl31s/soup.py training/runs/sl31s/best.npz \\
        training/runs/sl29a/best.npz training/runs/sl30a/round-0.npz

Worth it only for networks fitted from one another (one basin: ``sl30a`` was fitted from
``sl29a``); the shapes and the format must agree. The result is loaded back and checked.
"""

from __future__ import annotations

import sys

import numpy as np

from backgammon.engine.network import NetworkPair


def soup(out: str, inputs: list[str]) -> None:
    files = [np.load(f) for f in inputs]
    keys = files[0].files
    if any(set(f.files) != set(keys) for f in files):
        raise SystemExit("the files hold different arrays; a soup needs one shape")
    merged = {}
    for k in keys:
        arrays = [f[k] for f in files]
        if any(a.shape != arrays[0].shape for a in arrays):
            raise SystemExit(f"{k}: the networks differ in shape; a soup needs one shape")
        if np.issubdtype(arrays[0].dtype, np.floating):
            merged[k] = sum(arrays) / len(arrays)
        else:  # format, inputs: must agree
            if any(not np.array_equal(a, arrays[0]) for a in arrays):
                raise SystemExit(f"{k}: the files disagree ({[a.tolist() for a in arrays]})")
            merged[k] = arrays[0]
    np.savez_compressed(out, **merged)
    NetworkPair.load(out)  # loads as a network
    print(f"{out}: the mean of {len(inputs)} networks")


if __name__ == "__main__":
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    soup(sys.argv[1], sys.argv[2:])
