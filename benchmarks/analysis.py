"""Match analysis against GNU Backgammon's own: both analyse the same matches at 2 ply.

Usage (from the repository root)::

    PYTHONPATH=. .venv/bin/python benchmarks/analysis.py                  # the six fixtures
    PYTHONPATH=. .venv/bin/python benchmarks/analysis.py --matches 1 7 --plies 2

For each fixture ``tests/data/gnubg/matchN.sgf`` (gnubg against gnubg at 0 ply, 1- to
11-point matches), gnubg (``/usr/games/gnubg``, a separate process, one thread) runs::

    set threads 1
    set analysis chequerplay evaluation plies 2
    set analysis cubedecision evaluation plies 2
    load match tests/data/gnubg/matchN.sgf
    analyse match
    show statistics match
    save match OUT.sgf

and ``backgammon.analysis.match.analyse_match(plies=2)`` analyses the match read by
``backgammon.formats.read``. Printed per match and player: unforced checker plays, the
checker-play error rate and the overall error rate (mEMG per unforced decision) of both;
then the Spearman rank correlation of the per-decision checker-play errors (the plays
matched by game and by their order in the game, both players, forced plays left out: gnubg
lists no candidates for them), the correlation of the luck of each roll (both at 0 ply),
and the time each took (CPU seconds; gnubg's wall time is
longer, as it waits between its threaded evaluations). gnubg's per-play errors come from
the analysis it saves in the SGF file: for each play the candidates it evaluated with their
equities, the play made marked; the error is the best equity minus the play made's.
"""

from __future__ import annotations

import argparse
import math
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from backgammon.analysis.match import MatchAnalysis, analyse_match  # noqa: E402
from backgammon.formats import read  # noqa: E402

FIXTURES = ROOT / "tests" / "data" / "gnubg"
GNUBG = "/usr/games/gnubg"


@dataclass
class GnubgResult:
    """gnubg's figures for one match: per player (0, 1) the unforced plays, the checker and
    overall error rates (mEMG), per play ``(game, number in the game) -> error`` (EMG), and
    the CPU and wall seconds the process took."""

    unforced: tuple[int, int]
    checker_rate: tuple[float, float]
    rate: tuple[float, float]
    errors: dict[tuple[int, int], float]
    luck: dict[tuple[int, int], float]
    cpu: float
    wall: float


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def gnubg_analysis(path: Path, plies: int) -> GnubgResult:
    """gnubg's analysis of the match file ``path`` at ``plies``."""
    with tempfile.TemporaryDirectory() as home:
        out = Path(home) / "analysed.sgf"
        script = "\n".join([
            "set threads 1",
            f"set analysis chequerplay evaluation plies {plies}",
            f"set analysis cubedecision evaluation plies {plies}",
            f"load match {path}",
            "analyse match",
            "show statistics match",
            f"save match {out}",
            "",
        ])
        env = {**os.environ, "HOME": home, "TMPDIR": home, "LC_ALL": "C"}
        cpu, wall = _children_cpu(), time.perf_counter()
        done = subprocess.run([GNUBG, "-t", "-q", "-r"], input=script, capture_output=True,
                              text=True, env=env, timeout=3600, check=True)
        cpu, wall = _children_cpu() - cpu, time.perf_counter() - wall
        stats = done.stdout
        saved = out.read_text(encoding="utf-8")
        errors, luck = sgf_errors(saved), sgf_luck(saved)

    def pair(label: str, section: str) -> tuple[float, float]:
        part = stats[stats.index(section):]
        m = re.search(rf"^{re.escape(label)}\s+(-?[\d.]+)\s.*?\s(-?[\d.]+)\s", part, re.M)
        if m is None:
            raise RuntimeError(f"gnubg printed no {label!r} in {section!r}:\n{stats[-3000:]}")
        return abs(float(m.group(1))), abs(float(m.group(2)))

    unforced = pair("Unforced moves", "Chequerplay statistics")
    return GnubgResult((int(unforced[0]), int(unforced[1])),
                       pair("Error rate mEMG (MWC)", "Chequerplay statistics"),
                       pair("Error rate mEMG (MWC)", "Overall statistics"), errors, luck, cpu, wall)


_NODE = re.compile(r";([WB])\[([^\]]*)\]")
_ANALYSIS = re.compile(r"(?<![A-Z])A\[(\d+)\]((?:\[[^\]]*\])*)")


def sgf_luck(text: str) -> dict[tuple[int, int], float]:
    """``(game, play number in the game) -> luck`` (EMG, the roller's) of every roll, from
    the ``LU[...]`` of each play in an SGF file that gnubg saved after ``analyse match``."""
    luck: dict[tuple[int, int], float] = {}
    games = [g for g in text.split("(;") if g.strip()]
    for number, game in enumerate(games, 1):
        turn = 0
        nodes = list(_NODE.finditer(game))
        for node, after in zip(nodes, [*nodes[1:], None]):
            if not node.group(2)[:2].isdigit():
                continue
            turn += 1
            rest = game[node.end():after.start() if after is not None else len(game)]
            m = re.search(r"LU\[(-?[\d.]+)\]", rest)
            if m is not None:
                luck[(number, turn)] = float(m.group(1))
    return luck


def sgf_errors(text: str) -> dict[tuple[int, int], float]:
    """``(game, play number in the game) -> error`` (EMG) from an SGF file that gnubg saved
    after ``analyse match``: each play's ``A[k][candidate]...`` list, ``k`` the play made,
    each candidate ``MOVE E ver 3 w wg wbg lg lbg EQUITY nC ...``. Plays with one candidate
    or none (forced) are left out."""
    errors: dict[tuple[int, int], float] = {}
    games = [g for g in text.split("(;") if g.strip()]
    for number, game in enumerate(games, 1):
        turn = 0
        nodes = list(_NODE.finditer(game))
        for node, after in zip(nodes, [*nodes[1:], None]):
            move = node.group(2)
            if not move[:2].isdigit():  # double, take, drop, resign...
                continue
            turn += 1
            rest = game[node.end():after.start() if after is not None else len(game)]
            m = _ANALYSIS.search(rest)  # after the cube analysis DA[...], if any
            if m is None:
                continue
            played = int(m.group(1))
            scores = []
            for item in re.findall(r"\[([^\]]*)\]", m.group(2)):
                fields = item.split()
                if len(fields) < 11 or fields[1] != "E":
                    break
                scores.append(float(fields[9]))
            if len(scores) > 1 and played < len(scores):
                errors[(number, turn)] = max(scores) - scores[played]
    return errors


def our_errors(analysis: MatchAnalysis) -> dict[tuple[int, int], float]:
    """``(game, play number in the game) -> error`` of our unforced plays."""
    errors: dict[tuple[int, int], float] = {}
    counts: dict[int, int] = {}
    for d in analysis.decisions:
        if d.kind != "play":
            continue
        counts[d.game] = counts.get(d.game, 0) + 1
        if not d.forced:
            errors[(d.game, counts[d.game])] = d.error
    return errors


def our_luck(analysis: MatchAnalysis) -> dict[tuple[int, int], float]:
    """``(game, play number in the game) -> luck`` of the roll of every play."""
    luck: dict[tuple[int, int], float] = {}
    counts: dict[int, int] = {}
    for d in analysis.decisions:
        if d.kind == "play":
            counts[d.game] = counts.get(d.game, 0) + 1
            luck[(d.game, counts[d.game])] = d.luck
    return luck


def ranks(values: list[float]) -> list[float]:
    """Ranks from 1, ties sharing their average rank.

    >>> ranks([0.0, 0.3, 0.0, 0.1])
    [1.5, 4.0, 1.5, 3.0]
    """
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2.0 + 1.0
        i = j + 1
    return out


def pearson(xs: list[float], ys: list[float]) -> float:
    """Pearson's correlation.

    >>> round(pearson([1, 2, 3], [2, 4, 6]), 3)
    1.0
    """
    n = len(xs)
    if n < 2:
        return float("nan")
    mx, my = sum(xs) / n, sum(ys) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(xs, ys))
    vx = sum((a - mx) ** 2 for a in xs)
    vy = sum((b - my) ** 2 for b in ys)
    return cov / math.sqrt(vx * vy) if vx and vy else float("nan")


def spearman(xs: list[float], ys: list[float]) -> float:
    """Spearman's rank correlation (Pearson's on the ranks, ties averaged).

    >>> round(spearman([1, 2, 3, 4], [10, 20, 30, 45]), 3), round(spearman([1, 2, 3], [3, 2, 1]), 3)
    (1.0, -1.0)
    """
    return pearson(ranks(list(xs)), ranks(list(ys)))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, nargs="+", default=[1, 3, 5, 7, 9, 11],
                        help="which fixtures (match lengths) to analyse")
    parser.add_argument("--plies", type=int, default=2, choices=(0, 1, 2))
    args = parser.parse_args(argv)
    if not Path(GNUBG).exists():
        print(f"{GNUBG} is not installed (apt-get install gnubg)", file=sys.stderr)
        return 1
    analyse_match(read(FIXTURES / "match1.sgf").match, plies=0)  # compile / load the kernels
    all_ours: list[float] = []
    all_theirs: list[float] = []
    luck_ours: list[float] = []
    luck_theirs: list[float] = []
    total = {"ours": 0.0, "gnubg": 0.0, "gnubg wall": 0.0}
    print(f"Analysis at {args.plies} ply: ours against gnubg 1.07 (rates in mEMG per unforced decision)")
    print(f"{'match':>6} {'player':>7} {'unforced':>13} {'checker rate':>17} {'overall rate':>17}"
          f" {'spearman':>9} {'n':>4} {'ours s':>7} {'gnubg s':>8}")
    for length in args.matches:
        path = FIXTURES / f"match{length}.sgf"
        record = read(path)
        start = time.process_time()
        ours = analyse_match(record.match, plies=args.plies, names=record.names)
        mine = time.process_time() - start
        theirs = gnubg_analysis(path, args.plies)
        total["ours"] += mine
        total["gnubg"] += theirs.cpu
        total["gnubg wall"] += theirs.wall
        a, b = our_errors(ours), theirs.errors
        common = sorted(set(a) & set(b))
        xs, ys = [a[k] for k in common], [b[k] for k in common]
        all_ours.extend(xs)
        all_theirs.extend(ys)
        lo, lt = our_luck(ours), theirs.luck
        both = sorted(set(lo) & set(lt))
        luck_ours.extend(lo[k] for k in both)
        luck_theirs.extend(lt[k] for k in both)
        rho = spearman(xs, ys) if len(common) > 2 else float("nan")
        for p in (0, 1):
            me = ours.players[p]
            head = (f"{length:>6} {p:>7} {me.checker.unforced:>5} / {theirs.unforced[p]:<5} "
                    f"{me.checker.rate:>7.1f} / {theirs.checker_rate[p]:<7.1f} "
                    f"{me.rate:>7.1f} / {theirs.rate[p]:<7.1f}")
            tail = f" {rho:>9.3f} {len(common):>4} {mine:>7.1f} {theirs.cpu:>8.1f}" if p == 0 else ""
            print(head + tail)
    rho = spearman(all_ours, all_theirs) if len(all_ours) > 2 else float("nan")
    print(f"all plays: Spearman {rho:.3f} over {len(all_ours)} unforced plays; "
          f"CPU seconds ours {total['ours']:.1f}, gnubg {total['gnubg']:.1f} "
          f"(gnubg wall {total['gnubg wall']:.1f}); ratio gnubg/ours "
          f"{total['gnubg'] / total['ours']:.2f}")
    print(f"luck of each roll: Pearson {pearson(luck_ours, luck_theirs):.3f}, Spearman "
          f"{spearman(luck_ours, luck_theirs):.3f} over {len(luck_ours)} rolls")
    return 0


if __name__ == "__main__":
    sys.exit(main())
