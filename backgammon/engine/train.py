"""Self-play TD(λ) training of the evaluation networks, seeded and resumable.

Usage (from the repository root)::

    python -m backgammon.engine.train --run td1 --seed 1            # start (or resume) a run
    python -m backgammon.engine.train --run td1 --games 2000000     # keep going to 2M games
    python -m backgammon.engine.train --evaluate a.npz b.npz --eval-pairs 5000 --eval-seed 7
    python -m backgammon.engine.train --evaluate new.npz --against old.npz --eval-pairs 8000

A run lives in ``training/runs/<run>/``:

* ``checkpoint.npz`` — weights, the number of games played, the seed, the hyper-parameters
  and the compute used so far; a run started again with the same ``--run`` resumes from it
  exactly (game ``g`` of a run always gets the same dice, and the traces restart each game,
  so the result does not depend on where the run was stopped);
* ``best.npz`` — the weights (package format, see :class:`~.network.NetworkPair`) that scored
  best in the strength checks so far, ``latest.npz`` the latest weights;
* ``log.txt`` — progress lines: games, games/s, and every ``--eval-every`` games the result
  of a duplicate-dice cubeless match of ``--eval-pairs`` pairs against pubeval (points per
  game for the network, with its standard error).

Learning: the network plays both sides at 0 ply (the play whose resulting position has the
best equity), and after each play the five outputs of the position before it are moved
toward those of the position after it (or toward the result at the end), TD(λ) with
eligibility traces per output, step ``--alpha``. Race and contact positions train separate
networks.
"""

from __future__ import annotations

import argparse
import math
import os
import signal
import sys
import time
from pathlib import Path
from types import FrameType
from typing import Any

import numpy as np

from ..progress import Progress
from . import _kernels as K
from . import _search_kernels as S
from .bearoff import kernel_args as bearoff_tables
from .network import NetworkPair

__all__ = ["Checkpoint", "main", "strength_vs", "strength_vs_pubeval", "train"]

#: The dice of the strength checks (fixed, so every check of every run uses the same dice).
EVAL_SEED = 20240601
RUNS_DIR = Path("training") / "runs"


class Checkpoint:
    """Everything a run needs to resume: weights, game count and settings."""

    def __init__(self, nets: NetworkPair, *, seed: int, games: int = 0, alpha: float = 0.1,
                 lam: float = 0.7, seconds: float = 0.0, plies: int = 0,
                 best: float = -math.inf, best_games: int = 0, bearoff: bool = True) -> None:
        self.nets = nets
        self.seed = seed
        self.games = games
        self.alpha = alpha
        self.lam = lam
        self.seconds = seconds
        self.plies = plies
        self.best = best
        self.best_games = best_games
        #: value bear-off positions exactly (tables) in training and strength checks
        self.bearoff = bearoff

    def save(self, path: Path) -> None:
        """Write atomically (a temporary file, then a rename)."""
        tmp = path.with_name(path.name + ".tmp")
        arrays: dict[str, Any] = dict(
            self.nets.to_arrays(),
            seed=np.array(self.seed), games=np.array(self.games),
            alpha=np.array(self.alpha), lam=np.array(self.lam),
            seconds=np.array(self.seconds), plies=np.array(self.plies),
            best=np.array(self.best), best_games=np.array(self.best_games),
            bearoff=np.array(self.bearoff),
        )
        with open(tmp, "wb") as f:
            np.savez_compressed(f, **arrays)
        os.replace(tmp, path)

    @classmethod
    def load(cls, path: Path) -> Checkpoint:
        """Read a checkpoint written by :meth:`save`."""
        with np.load(path) as d:
            return cls(NetworkPair.from_arrays(d), seed=int(d["seed"]), games=int(d["games"]),
                       alpha=float(d["alpha"]), lam=float(d["lam"]),
                       seconds=float(d["seconds"]), plies=int(d["plies"]),
                       best=float(d["best"]), best_games=int(d["best_games"]),
                       bearoff=bool(d["bearoff"]) if "bearoff" in d else False)


def train(ckpt: Checkpoint, games: int) -> None:
    """Train ``ckpt``'s networks for ``games`` more self-play games (in place). TD(λ)
    here updates one hidden layer: networks with a second one are fitted by :mod:`.refine`."""
    if ckpt.nets.contact.hidden2 or ckpt.nets.race.hidden2:
        raise ValueError("TD training takes one-hidden-layer networks; this one has a second layer")
    stats = np.zeros(4)
    t = time.perf_counter()
    kernel: Any = K.train_games
    weights = ckpt.nets.kernel_args()
    kernel(ckpt.seed, ckpt.games, games, ckpt.alpha, ckpt.lam, *weights,
           ckpt.bearoff, *bearoff_tables(ckpt.bearoff), False, stats)
    ckpt.nets.set_kernel_args(weights)
    ckpt.seconds += time.perf_counter() - t
    ckpt.games += games
    ckpt.plies += int(stats[0])


def strength_vs_pubeval(nets: NetworkPair, pairs: int, seed: int = EVAL_SEED,
                        bearoff: bool = True) -> tuple[float, float]:
    """The networks (0 ply; bear-offs from the exact tables when ``bearoff``) against
    pubeval, cubeless, ``pairs`` duplicate pairs: mean points per game for the networks and
    its standard error (over pairs)."""
    return _duplicate_match(nets, None, pairs, seed, bearoff)


def strength_vs(nets: NetworkPair, other: NetworkPair, pairs: int, seed: int = EVAL_SEED,
                bearoff: bool = True) -> tuple[float, float]:
    """``nets`` against ``other``, both at 0 ply, cubeless, ``pairs`` duplicate pairs on the
    dice of the strength checks: mean points per game for ``nets`` and its standard error
    (over pairs)."""
    return _duplicate_match(nets, other, pairs, seed, bearoff)


def _duplicate_match(nets: NetworkPair, other: NetworkPair | None, pairs: int, seed: int,
                     bearoff: bool) -> tuple[float, float]:
    from ..bots.pubeval import WEIGHTS_CONTACT, WEIGHTS_RACE

    out = np.zeros(pairs)
    kernel: Any = S.match_nets
    kernel(seed, pairs, *nets.kernel_args(), *(other or nets).kernel_args(), other is None,
           WEIGHTS_RACE, WEIGHTS_CONTACT, bearoff, *bearoff_tables(bearoff), out)
    per_game = out / 2.0
    se = float(per_game.std(ddof=1) / math.sqrt(pairs)) if pairs > 1 else 0.0
    return float(per_game.mean()), se


_stop = False


def _on_signal(signum: int, frame: FrameType | None) -> None:
    global _stop
    _stop = True


def main(argv: list[str] | None = None) -> int:
    """Command-line entry point (see the module docstring)."""
    ap = argparse.ArgumentParser(prog="python -m backgammon.engine.train", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--run", default="default", help="run name (folder under --runs-dir)")
    ap.add_argument("--runs-dir", type=Path, default=RUNS_DIR)
    ap.add_argument("--seed", type=int, default=1, help="seed of a new run (dice, weights)")
    ap.add_argument("--games", type=int, default=10**9, help="stop at this many games in all")
    ap.add_argument("--alpha", type=float, default=None, help="TD step (default 0.1, or the checkpoint's)")
    ap.add_argument("--lam", type=float, default=None, help="TD lambda (default 0.7, or the checkpoint's)")
    ap.add_argument("--bearoff", choices=("on", "off"), default=None,
                    help="value bear-offs exactly from the tables and end the game there for "
                         "learning (default on for a new run, the checkpoint's on a resume)")
    ap.add_argument("--hidden-contact", type=int, default=128)
    ap.add_argument("--hidden-race", type=int, default=64)
    ap.add_argument("--chunk", type=int, default=500, help="games per compiled call")
    ap.add_argument("--eval-every", type=int, default=10000, help="games between strength checks")
    ap.add_argument("--eval-pairs", type=int, default=500, help="duplicate pairs per check")
    ap.add_argument("--checkpoint-minutes", type=float, default=10.0)
    ap.add_argument("--max-minutes", type=float, default=None, help="stop after this long")
    ap.add_argument("--evaluate", nargs="+", type=Path, metavar="NPZ", default=None,
                    help="do not train: play these weights files (or checkpoints) against "
                         "pubeval (or --against), --eval-pairs pairs on the dice of "
                         "--eval-seed, and report")
    ap.add_argument("--against", type=Path, metavar="NPZ", default=None,
                    help="with --evaluate: the opponent's weights instead of pubeval")
    ap.add_argument("--eval-seed", type=int, default=EVAL_SEED)
    args = ap.parse_args(argv)

    if args.evaluate:
        other = None if args.against is None else NetworkPair.load(args.against)
        for f in args.evaluate:
            t0 = time.perf_counter()
            if other is None:
                ppg, se = strength_vs_pubeval(NetworkPair.load(f), args.eval_pairs,
                                              args.eval_seed)
            else:
                ppg, se = strength_vs(NetworkPair.load(f), other, args.eval_pairs,
                                      args.eval_seed)
            print(f"{f}: vs {args.against or 'pubeval'} {ppg:+.3f} ± {se:.3f} ppg "
                  f"({2 * args.eval_pairs} games, dice seed {args.eval_seed}, "
                  f"{time.perf_counter() - t0:.0f}s)", flush=True)
        return 0

    folder = args.runs_dir / args.run
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "checkpoint.npz"
    log = open(folder / "log.txt", "a", buffering=1)

    def say(msg: str) -> None:
        line = f"{time.strftime('%Y-%m-%d %H:%M:%S')} {msg}"
        print(line, flush=True)
        log.write(line + "\n")

    if path.exists():
        ckpt = Checkpoint.load(path)
        if args.alpha is not None:
            ckpt.alpha = args.alpha
        if args.lam is not None:
            ckpt.lam = args.lam
        if args.bearoff is not None:
            ckpt.bearoff = args.bearoff == "on"
        say(f"resume {path}: {ckpt.games} games, alpha {ckpt.alpha}, lambda {ckpt.lam}, "
            f"bear-off tables {'on' if ckpt.bearoff else 'off'}")
    else:
        nets = NetworkPair.random(args.hidden_contact, args.hidden_race, args.seed)
        ckpt = Checkpoint(nets, seed=args.seed,
                          alpha=0.1 if args.alpha is None else args.alpha,
                          lam=0.7 if args.lam is None else args.lam,
                          bearoff=args.bearoff != "off")
        say(f"new run {args.run}: seed {args.seed}, hidden {args.hidden_contact}/"
            f"{args.hidden_race}, alpha {ckpt.alpha}, lambda {ckpt.lam}, "
            f"bear-off tables {'on' if ckpt.bearoff else 'off'}")

    signal.signal(signal.SIGTERM, _on_signal)
    signal.signal(signal.SIGINT, _on_signal)
    start = time.monotonic()
    last_save = start
    window_games, window_t = 0, time.perf_counter()
    bar = Progress(args.games, f"training {args.run}", unit="games", start=ckpt.games)
    strength = "" if ckpt.best == -math.inf else f"best {ckpt.best:+.3f} ppg v pubeval"
    while ckpt.games < args.games and not _stop:
        if args.max_minutes is not None and time.monotonic() - start > 60 * args.max_minutes:
            break
        n = min(args.chunk, args.games - ckpt.games)
        # stop chunks on strength-check boundaries
        to_eval = args.eval_every - ckpt.games % args.eval_every
        n = min(n, to_eval)
        train(ckpt, n)
        window_games += n
        bar.update(ckpt.games, strength)
        if ckpt.games % args.eval_every == 0:
            el = time.perf_counter() - window_t
            rate = window_games / el if el > 0 else 0.0
            t0 = time.perf_counter()
            ppg, se = strength_vs_pubeval(ckpt.nets, args.eval_pairs, bearoff=ckpt.bearoff)
            et = time.perf_counter() - t0
            best = ""
            if ppg > ckpt.best:
                ckpt.best, ckpt.best_games = ppg, ckpt.games
                ckpt.nets.save(folder / "best.npz")
                best = " (best)"
            say(f"games {ckpt.games} | {rate:.1f} games/s | plies/game "
                f"{ckpt.plies / max(ckpt.games, 1):.1f} | vs pubeval {ppg:+.3f} ± {se:.3f} ppg "
                f"({2 * args.eval_pairs} games, {et:.0f}s){best} | train time "
                f"{ckpt.seconds / 3600:.2f} h")
            strength = f"last {ppg:+.3f} ± {se:.3f} ppg v pubeval"
            window_games, window_t = 0, time.perf_counter()
        if time.monotonic() - last_save > 60 * args.checkpoint_minutes:
            ckpt.save(path)
            ckpt.nets.save(folder / "latest.npz")
            last_save = time.monotonic()
            say(f"checkpoint {path} at {ckpt.games} games")
    bar.close()
    ckpt.save(path)
    ckpt.nets.save(folder / "latest.npz")
    say(f"stopped at {ckpt.games} games; checkpoint {path}")
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
