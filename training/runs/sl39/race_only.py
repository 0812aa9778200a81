"""Is it the race play, or the border? (session 29) A race network changed alone also
changes the contact plays that break contact: their candidates are race positions, valued
by the race network, set against contact positions valued by the contact network. This
plays ``raceonly@FILE`` — the shipped expert, but FILE's weights choosing the play when the
position on roll is a race (``phases.Hybrid``) — against gnubg-nn with ``cands.py``.

    python training/runs/sl39/race_only.py training/runs/sl39/ri-64.npz [--seeds 191 201]
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "benchmarks"))
sys.path.insert(0, os.path.join(HERE, "..", "sl32"))

import cands  # noqa: E402
import phases  # noqa: E402

from backgammon.bots import Bot, load, register  # noqa: E402


@register("raceonly")
def raceonly(seed: object = None, weights: str | None = None) -> Bot:
    return phases.Hybrid(load("expert", seed=seed), load("expert", seed=seed, weights=weights),
                         "race")


if __name__ == "__main__":
    files = [a for a in sys.argv[1:] if a.endswith(".npz")]
    rest = [a for a in sys.argv[1:] if not a.endswith(".npz")]
    sys.argv = [sys.argv[0], *(f"raceonly@{f}" for f in files), *rest]
    cands.main()
