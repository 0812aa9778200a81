"""Session 29's race sets: the validation rows (the 36-trial rollouts, files ``race-392-ro36``
and ``race-392g-ro36``: 16,000 positions of seed 392's games) are taken out of the one-trial
targets of seed 392 (``race-392-vr1``), which are written again without them as
``race-392-vr1-train.npz``."""
import numpy as np

D = "training/runs/sl39/"
held = set()
for f in ("race-392-ro36.npz", "race-392g-ro36.npz"):
    with np.load(D + f) as d:
        held.update(k.tobytes() for k in d["keys"])
with np.load(D + "race-392-vr1.npz") as d:
    keys, targets = d["keys"], d["targets"]
keep = np.array([k.tobytes() not in held for k in keys])
np.savez(D + "race-392-vr1-train.npz", keys=keys[keep], targets=targets[keep])
print(f"{keep.sum()} of {len(keys)} rows kept ({(~keep).sum()} are validation positions)")
