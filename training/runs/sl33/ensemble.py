"""A logit ensemble of networks as one wider network (session 23).

The mean of N networks' output sums (before the output sigmoid) is itself a network of the
same kind: the first layers side by side (N × hidden units reading the same inputs), the
second layers side by side with each reading only its own first layer (block-diagonal
``w3``), the output weights and biases divided by N. Every kernel takes it unchanged, so a
bot plays with the ensemble as with any weights file::

    PYTHONPATH=. .venv/bin/python training/runs/sl33/ensemble.py OUT.npz A.npz B.npz [...]

The result is loaded back and checked against the mean of the members' output sums.
"""

from __future__ import annotations

import sys

import numpy as np

from backgammon.engine.network import Network, NetworkPair


def combine(nets: list[Network]) -> Network:
    """One network computing the sigmoid of the mean of ``nets``' output sums."""
    n = len(nets)
    w1 = np.hstack([m.w1 for m in nets])
    b1 = np.concatenate([m.b1 for m in nets])
    w2 = np.vstack([m.w2 for m in nets]) / n
    b2 = sum(m.b2 for m in nets) / n
    if all(m.hidden2 for m in nets):
        rows = sum(m.hidden for m in nets)
        cols = sum(m.hidden2 for m in nets)
        w3 = np.zeros((rows, cols))
        r = c = 0
        for m in nets:
            assert m.w3 is not None
            w3[r:r + m.hidden, c:c + m.hidden2] = m.w3
            r, c = r + m.hidden, c + m.hidden2
        b3 = np.concatenate([m.b3 for m in nets if m.b3 is not None])
        w4 = np.vstack([m.w4 for m in nets if m.w4 is not None]) / n
        return Network(np.ascontiguousarray(w1), b1, np.ascontiguousarray(w2), b2,
                       np.ascontiguousarray(w3), b3, np.ascontiguousarray(w4))
    if any(m.hidden2 for m in nets):
        raise SystemExit("all members or none must have a second layer")
    return Network(np.ascontiguousarray(w1), b1, np.ascontiguousarray(w2), b2)


def main(out: str, inputs: list[str]) -> None:
    pairs = [NetworkPair.load(f) for f in inputs]
    merged = NetworkPair(combine([p.contact for p in pairs]), combine([p.race for p in pairs]))
    merged.save(out)
    back = NetworkPair.load(out)
    rng = np.random.default_rng(0)
    for kind in ("contact", "race"):
        x = rng.uniform(0.0, 1.0, (200, getattr(back, kind).w1.shape[0]))
        want = np.mean([getattr(p, kind).output_sums(x) for p in pairs], axis=0)
        got = getattr(back, kind).output_sums(x)
        err = float(np.max(np.abs(want - got)))
        assert err < 1e-6, (kind, err)
    print(f"{out}: the logit mean of {len(inputs)} networks "
          f"(contact {back.contact.hidden}+{back.contact.hidden2}, race {back.race.hidden}+{back.race.hidden2})")


if __name__ == "__main__":
    if len(sys.argv) < 4:
        raise SystemExit(__doc__)
    main(sys.argv[1], sys.argv[2:])
