"""GNU Backgammon as an oracle of match files (test-only; gnubg is GPL, run as a process).

API
===
``play_matches(specs, *, gnubg=None, timeout=120) -> list[Played]``
    gnubg plays each :class:`MatchSpec` against itself (0-ply chequer and cube decisions by
    default, the cube in use) in **one** gnubg process, and returns for each the ``.mat``
    text of ``export match mat`` and the ``.sgf`` text of ``save match``.
    ``MatchSpec(length, seed, names=("alpha", "beta"), games=3, jacoby=False, beavers=False,
    plies=0)``: ``length`` 0 is a money session of ``games`` games.
``import_files(files, *, gnubg=None, timeout=120) -> list[Imported]``
    gnubg imports each file (``import mat`` for ``.mat``, ``load match`` for ``.sgf``; a
    :class:`ImportSpec` sets the Jacoby and beaver options first, as a money session's
    scoring needs) in one process and reports ``Imported(score, games, names, mat)``:
    the final score of ``show score`` (uncapped, as gnubg counts it), the number of games,
    the names, and gnubg's own ``export match mat`` of what it read (to compare its moves
    with ours: read it with ``backgammon.formats.mat.loads``).
``find_gnubg()``
    the executable (see :mod:`tests.oracle.gnubg_driver`); ``None`` without one.

gnubg runs as ``gnubg -t -q -r`` with ``HOME`` in a scratch folder and the commands on
stdin; ``set prompt @@gm:k@@`` lines cut its output per file (the technique of
:mod:`tests.oracle.gnubg_driver`). gnubg 1.07 facts found here: ``new session`` plays its
first game at once and ``set automatic game off`` makes each further ``new game`` play one
more; ``new match`` names the players gnubg and root again (they are named after it); its
``import mat`` wants the ``N point match`` line and skips what it cannot read
without an error, hence the re-export; ``show score`` prints ``The score (after N games) is:
A x, B y (...)``.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from tests.oracle.gnubg_driver import find_gnubg

__all__ = ["ImportSpec", "Imported", "MatchSpec", "Played", "find_gnubg", "import_files", "play_matches"]


@dataclass(frozen=True)
class MatchSpec:
    """A gnubg v gnubg match (``length`` >= 1) or money session (``length`` 0, ``games`` games)."""

    length: int
    seed: int
    names: tuple[str, str] = ("alpha", "beta")
    games: int = 3
    jacoby: bool = False
    beavers: bool = False
    plies: int = 0


@dataclass(frozen=True)
class Played:
    spec: MatchSpec
    mat: str
    sgf: str


@dataclass(frozen=True)
class ImportSpec:
    """A file for gnubg to read, with the money-play options to set first."""

    path: str
    jacoby: bool = False
    beavers: bool = False


@dataclass(frozen=True)
class Imported:
    path: str
    score: tuple[int, int] | None
    games: int | None
    names: tuple[str, str] | None
    mat: str
    output: str


_SCORE = re.compile(r"The score \(after (\d+) games?\) is: (.*) (\d+), (.*) (\d+) \(")
_NAME = re.compile(r"^[^\n;\[\]\"]{1,40}$")


def _run(script: str, gnubg: str | None, timeout: float, home: str) -> str:
    exe = gnubg or find_gnubg()
    if exe is None:
        raise FileNotFoundError("gnubg is not installed (/usr/games/gnubg)")
    env = dict(os.environ, HOME=home, TMPDIR=home, LC_ALL="C")
    done = subprocess.run(
        [exe, "-t", "-q", "-r"], input=script, capture_output=True, text=True, timeout=timeout, env=env
    )
    return done.stdout + done.stderr


def _pieces(output: str, count: int) -> list[str]:
    """The output between ``@@gm:k@@`` markers: piece k ends at marker k."""
    out = []
    rest = output
    for k in range(count):
        marker = f"The prompt has been set to `@@gm:{k}@@'."
        head, _, rest = rest.partition(marker)
        out.append(head)
    return out


def play_matches(specs: Sequence[MatchSpec], *, gnubg: str | None = None, timeout: float = 120) -> list[Played]:
    """Have gnubg play every spec (one process); see the module's description."""
    with tempfile.TemporaryDirectory(prefix="gnubg-match-") as home:
        lines = ["set display off", "set automatic game off", "set confirm new off"]
        for k, spec in enumerate(specs):
            for name in spec.names:
                if not _NAME.match(name) or name != name.strip():
                    raise ValueError(f"name {name!r}: gnubg takes names of 1-40 plain characters")
            lines += [f"set player {p} gnubg" for p in (0, 1)]
            lines += [f"set player {p} name {spec.names[p]}" for p in (0, 1)]
            for p in (0, 1):
                lines += [
                    f"set player {p} chequerplay evaluation plies {spec.plies}",
                    f"set player {p} cubedecision evaluation plies {spec.plies}",
                ]
            lines += [
                f"set jacoby {'on' if spec.jacoby else 'off'}",
                f"set beavers {3 if spec.beavers else 0}",
                "set cube use on",
                f"set seed {int(spec.seed)}",
            ]
            if spec.length:
                lines += ["set automatic game on", f"new match {int(spec.length)}"]
            else:
                lines += ["set automatic game off", "new session"]
                lines += ["new game"] * max(0, spec.games - 1)
            # gnubg 1.07's ``new match`` names the players gnubg and root again: name them after it
            lines += [f"set player {p} name {spec.names[p]}" for p in (0, 1)]
            lines += [f"export match mat {home}/m{k}.mat", f"save match {home}/m{k}.sgf", f"set prompt @@gm:{k}@@"]
        _run("\n".join(lines) + "\n", gnubg, timeout, home)
        out = []
        for k, spec in enumerate(specs):
            mat = Path(home, f"m{k}.mat")
            sgf = Path(home, f"m{k}.sgf")
            if not mat.exists() or not sgf.exists():
                raise RuntimeError(f"gnubg wrote no match files for {spec}")
            out.append(Played(spec, mat.read_text(encoding="utf-8"), sgf.read_text(encoding="utf-8")))
        return out


def import_files(
    files: Sequence[str | os.PathLike[str] | ImportSpec], *, gnubg: str | None = None, timeout: float = 120
) -> list[Imported]:
    """Have gnubg import every file (one process); see the module's description."""
    specs = [f if isinstance(f, ImportSpec) else ImportSpec(str(f)) for f in files]
    with tempfile.TemporaryDirectory(prefix="gnubg-import-") as home:
        lines = ["set display off", "set automatic game off", "set confirm new off"]
        for k, spec in enumerate(specs):
            path = os.path.abspath(spec.path)
            if any(c in path for c in "\n\"'; "):
                raise ValueError(f"{path!r}: gnubg reads plain paths only")
            verb = "load match" if path.lower().endswith(".sgf") else "import mat"
            lines += [
                f"set jacoby {'on' if spec.jacoby else 'off'}",
                f"set beavers {3 if spec.beavers else 0}",
                f"{verb} {path}",
                "show score",
                f"export match mat {home}/r{k}.mat",
                f"set prompt @@gm:{k}@@",
            ]
        output = _run("\n".join(lines) + "\n", gnubg, timeout, home)
        out = []
        for k, (spec, piece) in enumerate(zip(specs, _pieces(output, len(specs)))):
            found = _SCORE.search(piece)
            again = Path(home, f"r{k}.mat")
            out.append(
                Imported(
                    spec.path,
                    (int(found[3]), int(found[5])) if found else None,
                    int(found[1]) if found else None,
                    (found[2], found[4]) if found else None,
                    again.read_text(encoding="utf-8") if again.exists() else "",
                    piece,
                )
            )
        return out
