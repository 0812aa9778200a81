"""Rollouts: games per second, and agreement with GNU Backgammon's rollouts.

Usage (from the repository root)::

    PYTHONPATH=. .venv/bin/python benchmarks/rollout.py --games 1296
    PYTHONPATH=. .venv/bin/python benchmarks/rollout.py --games 648 --truncate 10 --no-gnubg

For each position (the opening before the roll, a contact position, a race) it rolls the
position out with :func:`backgammon.analysis.rollout.rollout` (0 ply, cubeless, variance
reduction, quasi-random dice, bear-off truncation; on one worker, then on every core; the
race also without the bear-off truncation, to measure what it gains) and with Debian's gnubg
(``/usr/games/gnubg``, a separate process: GPL code is never imported) with the same
settings: ``set rollout trials N``, ``chequerplay plies 0``, ``cubeful off``, ``varredn on``,
``quasirandom on``, ``truncation`` as asked, ``set board ID``, ``rollout``. Then both roll
it out **cubeful** (money, centred cube, the Jacoby rule on: gnubg's default; both engines
double and take inside the trials, gnubg with ``cubeful on`` and ``cubedecision plies 0``,
ours with ``cubeful=True`` and ``double_at_start=False``: gnubg's figure for a position is
its "no double" line, as its 0.981 for a race where the side on roll has a double/pass
shows) and the cubeful equities (per cube of 1) are compared the same way; ours with the
cube action before the first roll is printed too. gnubg prints
its rollout results only to a terminal, so it runs under ``script`` (a pseudo-terminal);
its CPU time is that of the child processes (``getrusage``), start-up included (about
0.2 s); it prints its standard errors with 3 decimals (0.000 in easy races). Printed:
games per second of wall time and of CPU time of both, their ratio, both
results (win, gammons, equity ± standard error) and the difference of the equities in units
of its standard error (``z``). The two engines play with different networks, so their
rollouts measure slightly different things (each bot's own play): a few tenths of a point
of ``z`` are noise, a large ``z`` is a real difference in the bots' play or in their
evaluations (cubeless gnubg also truncates at its one-sided bear-off database, its default).
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass

from backgammon import Position
from backgammon.analysis.rollout import RolloutSettings, rollout
from backgammon.matchid import MatchState

GNUBG = "/usr/games/gnubg"
_PID = re.compile(r"^[A-Za-z0-9+/]{14}$")
_P = r"([01]\.\d+)"
_LINE = re.compile(rf"^\s*{_P} {_P} {_P} - {_P} {_P} {_P} CL\s+([+-]?\d+\.\d+)")
_SE = re.compile(r"^\s*\[([\d.]+) ([\d.]+) ([\d.]+) - ([\d.]+) ([\d.]+) ([\d.]+) CL\s+([\d.]+)[\] ]")
_CF = re.compile(r"CF\s+([+-]?\d+\.\d+)")


def _positions() -> dict[str, Position]:
    start = Position.initial()
    contact = start.play(start.parse_move("8/5 6/5", (3, 1))).swap()
    race = Position([0, 0, 2, 3, 3, 3, 0, 2, 0, 2] + [0] * 15,
                    [0, 0, 0, 3, 3, 3, 0, 2, 0, 0, 2, 2] + [0] * 13)
    return {"opening (before the roll)": start, "after 31 8/5 6/5": contact, "race": race}


@dataclass
class Figures:
    win: float
    gammon: float
    lose_gammon: float
    equity: float
    se: float
    wall: float
    cpu: float


def ours(position: Position, settings: RolloutSettings, state: MatchState | None = None) -> Figures:
    cpu0 = time.process_time()
    child0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    r = rollout(position, state, settings=settings)
    wall = time.perf_counter() - t0
    child = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (time.process_time() - cpu0 + (child.ru_utime - child0.ru_utime)
           + (child.ru_stime - child0.ru_stime))
    p = r.probabilities
    if settings.cubeful and r.cubeful_equity is not None and r.cubeful_se is not None:
        return Figures(p.win, p.win_gammon, p.lose_gammon, r.cubeful_equity, r.cubeful_se, wall,
                       cpu)
    return Figures(p.win, p.win_gammon, p.lose_gammon, r.equity, r.equity_se, wall, cpu)


def gnubg(position: Position, games: int, truncate: int, seed: int,
          cubeful: bool = False) -> Figures:
    pid = position.position_id()
    if not _PID.match(pid):
        raise ValueError(f"{pid!r} is not a Position ID")
    trunc = (f"set rollout truncation enable on\nset rollout truncation plies {truncate}\n"
             if truncate else "set rollout truncation enable off\n")
    script = ("set player 0 human\nset player 1 human\nnew game\nset turn 1\nset threads 1\n"
              f"set rollout trials {games}\nset rollout chequerplay plies 0\n"
              + ("set rollout cubeful on\nset rollout cubedecision plies 0\n" if cubeful else
                 "set rollout cubeful off\n")
              + "set rollout varredn on\nset rollout quasirandom on\n"
              f"{trunc}set rollout seed {seed}\nset board {pid}\nrollout\n")
    with tempfile.TemporaryDirectory() as home:
        cmd = os.path.join(home, "cmds.txt")
        with open(cmd, "w") as f:
            f.write(script)
        env = dict(os.environ, HOME=home, TMPDIR=home, LC_ALL="C")
        child0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t0 = time.perf_counter()
        out = subprocess.run(["script", "-qfc", f"{GNUBG} -t -q -r < {cmd}", "/dev/null"],
                             capture_output=True, text=True, env=env, timeout=7200, check=True).stdout
        wall = time.perf_counter() - t0
        child = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (child.ru_utime - child0.ru_utime) + (child.ru_stime - child0.ru_stime)
    lines = out.replace("\r", "\n").splitlines()
    start = max(i for i, line in enumerate(lines) if "Rollout done" in line)
    value = se = None
    for line in lines[start:]:
        if value is None and (m := _LINE.match(line)):
            value = m
        elif value is not None and se is None and (m := _SE.match(line)):
            se = m
    if value is None or se is None:
        raise RuntimeError(f"no rollout result in gnubg's output:\n{out[-2000:]}")
    if cubeful:
        cf, cf_se = _CF.search(value.string), _CF.search(se.string)
        if cf is None or cf_se is None:
            raise RuntimeError(f"no cubeful rollout result in gnubg's output:\n{out[-2000:]}")
        return Figures(float(value[1]), float(value[2]), float(value[5]), float(cf[1]),
                       float(cf_se[1]), wall, cpu)
    return Figures(float(value[1]), float(value[2]), float(value[5]), float(value[7]),
                   float(se[7]), wall, cpu)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1296)
    parser.add_argument("--truncate", type=int, default=0)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--no-gnubg", action="store_true", help="only this engine")
    parser.add_argument("--no-cubeful", action="store_true", help="cubeless rollouts only")
    args = parser.parse_args(argv)
    have_gnubg = not args.no_gnubg and os.path.exists(GNUBG) and shutil.which("script")
    cores = os.cpu_count() or 1
    base = RolloutSettings(games=args.games, truncate=args.truncate, seed=args.seed, workers=1)
    rollout(Position.initial(), settings=RolloutSettings(games=1, workers=1))  # compile, load
    print(f"rollouts: {args.games} games, 0 ply, cubeless, variance reduction, quasi-random dice"
          + (f", truncated at {args.truncate} plies" if args.truncate else "") + f"; {cores} cores")
    for name, position in _positions().items():
        one = ours(position, base)
        every = ours(position, RolloutSettings(**{**base.to_dict(), "workers": cores}))
        print(f"\n{name} ({position.position_id()})")
        print(f"  ours, 1 worker:    {args.games / one.wall:7.1f} games/s wall, "
              f"{args.games / one.cpu:7.1f} games/CPU s   equity {one.equity:+.4f} ± {one.se:.4f}  "
              f"win {one.win:.4f} wg {one.gammon:.4f} lg {one.lose_gammon:.4f}")
        print(f"  ours, {cores} workers:   {args.games / every.wall:7.1f} games/s wall "
              f"(process start-up included)   same result: {every.equity == one.equity}")
        if position.is_race():
            full = ours(position, RolloutSettings(**{**base.to_dict(), "bearoff_truncation": False}))
            print(f"  ours, no bear-off truncation: {args.games / full.cpu:7.1f} games/CPU s   "
                  f"equity {full.equity:+.4f} ± {full.se:.4f}   the truncation is "
                  f"{full.cpu / one.cpu:.2f}x faster")
        if have_gnubg:
            g = gnubg(position, args.games, args.truncate, args.seed)
            z = (one.equity - g.equity) / max((one.se ** 2 + g.se ** 2) ** 0.5, 1e-9)
            print(f"  gnubg, 1 thread:   {args.games / g.wall:7.1f} games/s wall, "
                  f"{args.games / g.cpu:7.1f} games/CPU s   equity {g.equity:+.4f} ± {g.se:.4f}  "
                  f"win {g.win:.4f} wg {g.gammon:.4f} lg {g.lose_gammon:.4f}")
            print(f"  speed ours/gnubg (CPU): {g.cpu / one.cpu:.2f}x   equity difference "
                  f"{one.equity - g.equity:+.4f} (z = {z:+.2f})")
        if args.no_cubeful:
            continue
        cube = ours(position, RolloutSettings(**{**base.to_dict(), "cubeful": True,
                                                 "double_at_start": False}),
                    MatchState(jacoby=True))
        top = ours(position, RolloutSettings(**{**base.to_dict(), "cubeful": True}),
                   MatchState(jacoby=True))
        print(f"  cubeful, ours:     {args.games / cube.cpu:7.1f} games/CPU s   "
              f"cubeful equity {cube.equity:+.4f} ± {cube.se:.4f} (no double at the start; "
              f"with the cube action there {top.equity:+.4f} ± {top.se:.4f})")
        if have_gnubg:
            g = gnubg(position, args.games, args.truncate, args.seed, cubeful=True)
            z = (cube.equity - g.equity) / max((cube.se ** 2 + g.se ** 2) ** 0.5, 1e-9)
            print(f"  cubeful, gnubg:    {args.games / g.cpu:7.1f} games/CPU s   "
                  f"cubeful equity {g.equity:+.4f} ± {g.se:.4f}   speed ours/gnubg (CPU): "
                  f"{g.cpu / cube.cpu:.2f}x   difference {cube.equity - g.equity:+.4f} "
                  f"(z = {z:+.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
