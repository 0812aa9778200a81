"""``backgammon analyse FILE [--ply N] [--json] [--worst N]``: analyse a match file.

Reads ``FILE`` (``.mat``, ``.txt``, ``.sgf`` or ``.json``, :func:`backgammon.formats.read`),
judges every decision of both players (:func:`backgammon.analysis.match.analyse_match`,
2 ply by default) with a progress bar on stderr, and prints the per-player table (error
rate in mEMG per unforced decision, PR, rating, checker and cube figures, luck) and the
``N`` worst decisions (10 by default), each with its position drawn as ``backgammon show``
draws it and the best play or cube action. ``--json`` prints
:meth:`~backgammon.analysis.match.MatchAnalysis.to_dict` instead.

A file that cannot be read or is wrong: ``FILE:LINE: expected ..., found ...`` on stderr,
exit status 1.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..errors import BackgammonError

if TYPE_CHECKING:
    from ..analysis.match import Decision, MatchAnalysis

__all__ = ["build_parser", "main", "report", "table"]


def build_parser() -> argparse.ArgumentParser:
    """The options of ``backgammon analyse``."""
    parser = argparse.ArgumentParser(
        prog="backgammon analyse",
        description="Analyse a match file: every checker play and cube decision of both "
                    "players, the luck of the rolls, error rates and ratings.")
    parser.add_argument("file", metavar="FILE", help="a match file: .mat, .txt, .sgf or .json")
    parser.add_argument("--ply", type=int, choices=(0, 1, 2), default=2,
                        help="how deep the engine looks (default 2; 0 is fastest)")
    parser.add_argument("--json", action="store_true",
                        help="print the analysis as JSON (format backgammon-analysis)")
    parser.add_argument("--worst", type=int, default=10, metavar="N",
                        help="show the N worst decisions with their positions (default 10)")
    return parser


def _cube_line(d: Decision) -> str:
    c = d.cube
    assert c is not None
    return (f"no double {c.no_double:+.3f}   double/take {c.double_take:+.3f}   "
            f"double/pass {c.double_pass:+.3f}   proper: {c.proper}")


def report(analysis: MatchAnalysis, *, worst: int = 10) -> str:
    """What ``backgammon analyse`` prints, but the boards: the table, then the ``worst``
    decisions."""
    parts = [table(analysis)]
    chosen = analysis.worst(worst)
    if worst > 0:
        parts.append(_worst_title(chosen))
    parts.extend(_decision_text(analysis, d) for d in chosen)
    return "\n\n".join(parts)


def _worst_title(chosen: Sequence[Decision]) -> str:
    return f"The {len(chosen)} worst decisions:" if chosen else "No errors."


def table(analysis: MatchAnalysis) -> str:
    """The per-player table."""
    lines: list[str] = []
    what = "money session" if analysis.money else f"{analysis.length}-point match"
    lines.append(f"Analysis of a {what} at {analysis.plies} ply "
                 f"(errors in EMG; rates in mEMG per unforced decision)")
    lines.append("")
    width = max(12, *(len(p.name) for p in analysis.players))
    rows = [
        ("", tuple(p.name for p in analysis.players)),
        ("rating", tuple(p.rating for p in analysis.players)),
        ("error rate", tuple(f"{p.rate:.1f}" for p in analysis.players)),
        ("PR", tuple(f"{p.pr:.1f}" for p in analysis.players)),
        ("total error", tuple(f"{p.error:.3f}" for p in analysis.players)),
        ("unforced", tuple(f"{p.unforced} of {p.decisions}" for p in analysis.players)),
        ("checker rate", tuple(f"{p.checker.rate:.1f}" for p in analysis.players)),
        ("checker plays", tuple(f"{p.checker.unforced} of {p.checker.decisions}"
                                for p in analysis.players)),
        ("cube decisions", tuple(str(p.cube.decisions) for p in analysis.players)),
        ("cube error", tuple(f"{p.cube.error:.3f}" for p in analysis.players)),
        ("missed doubles", tuple(str(p.cube.missed_doubles) for p in analysis.players)),
        ("wrong doubles", tuple(str(p.cube.wrong_doubles) for p in analysis.players)),
        ("wrong takes", tuple(str(p.cube.wrong_takes) for p in analysis.players)),
        ("wrong passes", tuple(str(p.cube.wrong_passes) for p in analysis.players)),
        ("luck", tuple(f"{p.luck:+.3f}" for p in analysis.players)),
        ("luck per roll", tuple(f"{p.luck_rate:+.4f}" for p in analysis.players)),
    ]
    for label, (a, b) in rows:
        lines.append(f"  {label:<15} {a:>{width}} {b:>{width}}")
    return "\n".join(lines)


def _decision_text(analysis: MatchAnalysis, d: Decision) -> str:
    who = analysis.names[d.player]
    head = f"Game {d.game}, turn {d.turn}: {who}"
    if d.kind == "play":
        dice = f"{d.dice[0]}-{d.dice[1]}" if d.dice else ""
        action = d.action or "(no play)"
        lines = [f"{head} rolled {dice} and played {action}: "
                 f"{d.error:.3f} given away ({d.label or 'small'}); best {d.best}"]
        for c in d.candidates:
            mark = "*" if c.move == d.action else " "
            lines.append(f"   {mark} {c.move or '(no play)':<28} {c.value:+.3f} ({c.difference:+.3f})")
    else:
        lines = [f"{head} {'answered' if d.kind == 'take' else 'chose'} {d.action!r}: "
                 f"{d.error:.3f} given away ({d.label or 'small'}); right: {d.best}",
                 "   " + _cube_line(d) + "   (the doubler's side)"]
    lines.append(f"   {d.xgid}")
    return "\n".join(lines)


def _draw(analysis: MatchAnalysis, decisions: Sequence[Decision]) -> None:
    """Print each decision with its board, as ``backgammon show`` draws it."""
    from ..cli import read_position
    from ..terminal.frontend import make_console
    from ..terminal.view import render, scene_of

    console = make_console("auto")
    for d in decisions:
        print()
        print(_decision_text(analysis, d))
        try:
            match = read_position(d.xgid)
        except BackgammonError:  # pragma: no cover - every decision's XGID reads back
            continue
        scene = scene_of(match, names=analysis.names, game_number=d.game)
        console.print(render(scene, width=console.width), soft_wrap=True)


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``backgammon analyse``; returns the exit status (1 for a file that cannot be
    read or analysed)."""
    from ..analysis.match import analyse_match
    from ..formats import MatchFileError, read
    from ..progress import Progress

    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        record = read(args.file)
    except MatchFileError as exc:
        print(f"backgammon analyse: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"backgammon analyse: cannot read {args.file}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    bar: Progress | None = None

    def progress(done: int, total: int) -> None:
        nonlocal bar
        if bar is None:
            bar = Progress(total, f"analysing at {args.ply} ply", unit="positions")
        bar.update(done, total=total)

    try:
        analysis = analyse_match(record.match, plies=args.ply, names=record.names,
                                 progress=progress)
    except BackgammonError as exc:
        print(f"backgammon analyse: {args.file}: {exc}", file=sys.stderr)
        return 1
    finally:
        if bar is not None:
            bar.close()
    try:
        if args.json:
            print(json.dumps(analysis.to_dict(), indent=1))
        else:
            print(table(analysis))
            if args.worst > 0:
                chosen = analysis.worst(args.worst)
                print()
                print(_worst_title(chosen))
                _draw(analysis, chosen)
        sys.stdout.flush()
    except BrokenPipeError:
        from ..cli import _output_closed

        return _output_closed()
    return 0
