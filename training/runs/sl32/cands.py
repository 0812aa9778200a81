"""Candidate networks against gnubg-nn 0 ply, luck-adjusted, paired with the shipped net
(session 22): each bot's games of each seed are played once and kept in CACHE_DIR (a pickle
per bot and seed), so the shipped net's games are not replayed for every candidate.

    PYTHONPATH=. .venv/bin/python training/runs/sl32/cands.py [--games 4000] [--seeds 191 201]
        [--cache /tmp/cands] expert@A.npz expert@B.npz ...

Prints each candidate's luck-adjusted points per game on each seed and its paired difference
with ``expert`` (the shipped network) over all the seeds together.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import pickle
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "..", "benchmarks"))

import strength  # noqa: E402


SHIPPED = "backgammon/engine/weights/expert.npz"


def _digest(path: str) -> str:
    with open(path, "rb") as f:
        return hashlib.sha1(f.read()).hexdigest()[:12]


def tally_for(bot: str, seed: int, games: int, cache: str) -> strength.Tally:
    # keyed on the bot's weights (a name alone plays the shipped ones) and on the shipped
    # weights, which measure every game's luck: a new shipped net makes every entry stale
    name, _, weights = bot.partition("@")
    tag = f"{name}-{_digest(weights or SHIPPED)}-luck-{_digest(SHIPPED)}"
    path = os.path.join(cache, f"{tag}-{seed}-{games}.pkl")
    if os.path.exists(path):
        with open(path, "rb") as f:
            return pickle.load(f)  # type: ignore[no-any-return]
    tally = strength.run(bot, "gnubg", games, seed, 2, luck=True)
    with open(path, "wb") as f:
        pickle.dump(tally, f)
    return tally


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("bots", nargs="+")
    ap.add_argument("--games", type=int, default=4000)
    ap.add_argument("--seeds", type=int, nargs="+", default=[191, 201])
    ap.add_argument("--cache", default="/tmp/cands")
    args = ap.parse_args()
    os.makedirs(args.cache, exist_ok=True)
    strength.register_gnubg()
    base = {s: tally_for("expert", s, args.games, args.cache) for s in args.seeds}
    for s, t in base.items():
        m, se = t.adjusted()
        print(f"expert (shipped) seed {s}: raw {t.mean():+.4f}, adjusted {m:+.4f} ± {se:.4f}", flush=True)
    for bot in args.bots:
        diffs: list[tuple[float, float]] = []
        for s in args.seeds:
            t = tally_for(bot, s, args.games, args.cache)
            m, se = t.adjusted()
            d, dse, _ = strength.paired_difference(t, base[s], adjusted=True)
            diffs.append((d, dse))
            print(f"{bot} seed {s}: raw {t.mean():+.4f}, adjusted {m:+.4f} ± {se:.4f}; "
                  f"- expert {d:+.4f} ± {dse:.4f}", flush=True)
        mean = sum(d for d, _ in diffs) / len(diffs)
        se = math.sqrt(sum(e * e for _, e in diffs)) / len(diffs)
        print(f"{bot}: - expert over {len(diffs)} seeds {mean:+.4f} ± {se:.4f}", flush=True)


if __name__ == "__main__":
    main()
