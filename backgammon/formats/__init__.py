"""Match files: read and write gnubg's and Jellyfish's formats and the project's JSON log.

A file becomes a :class:`MatchRecord`: the :class:`~backgammon.match.Match` it records
(replayed through the rules, so every move in it is legal), the players' names and the
file's facts (event, place, date...). Writing takes a record (or a bare match) back to a
file. The format comes from the file's extension (:data:`FORMATS`) or ``fmt``:

* ``.mat`` (and ``.txt``) — the Jellyfish / gnubg text match format
  (:mod:`backgammon.formats.mat`);
* ``.sgf`` — gnubg's Smart Game Format (:mod:`backgammon.formats.sgf`);
* ``.json`` — the project's own match log (:meth:`Match.to_json
  <backgammon.events.Logged.to_json>` plus names and facts, :mod:`backgammon.formats.jsonlog`).

A file that is wrong raises :class:`MatchFileError`: the file, the line, what was expected
and what was found, with what could be read before it (:attr:`MatchFileError.partial`).
With ``strict=False`` the reader keeps what it could read and lists the problems in
:attr:`MatchRecord.problems` instead of raising.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Protocol

from ..errors import BackgammonError
from ..match import Match

__all__ = [
    "FORMATS",
    "FileProblem",
    "MatchFileError",
    "MatchRecord",
    "dumps",
    "format_of",
    "loads",
    "read",
    "write",
]


@dataclass(frozen=True, slots=True)
class FileProblem:
    """Where a file is wrong: ``line`` (from 1; 0 when the file as a whole is wrong), what
    was ``expected`` there and what was ``found`` (the text, shortened)."""

    line: int
    expected: str
    found: str = ""
    path: str = ""

    def __str__(self) -> str:
        where = f"{self.path or '<text>'}:{self.line}" if self.line else (self.path or "<text>")
        found = f", found {self.found!r}" if self.found else ""
        return f"{where}: expected {self.expected}{found}"


@dataclass(frozen=True)
class MatchRecord:
    """A match as a file holds it: the match, the names of player 0 and player 1 (the
    left and right columns of a ``.mat`` file), and the file's other facts (keys such as
    ``"event"``, ``"place"``, ``"date"``, ``"round"``, ``"annotator"``, ``"comment"``)."""

    match: Match
    names: tuple[str, str] = ("Player 0", "Player 1")
    info: Mapping[str, str] = field(default_factory=dict)
    #: what a lenient read (``strict=False``) could not read, in file order
    problems: tuple[FileProblem, ...] = ()


class MatchFileError(BackgammonError):
    """A match file is wrong: :attr:`problem` says where and what, :attr:`partial` holds
    what was read before it (the games and moves up to the problem), or None."""

    def __init__(self, problem: FileProblem, partial: MatchRecord | None = None) -> None:
        super().__init__(str(problem))
        self.problem = problem
        self.partial = partial


class _Format(Protocol):
    def loads(self, text: str, *, path: str = "", strict: bool = True) -> MatchRecord: ...

    def dumps(self, record: MatchRecord) -> str: ...


#: extension (without the dot) -> the module that reads and writes it
FORMATS: dict[str, str] = {
    "mat": "backgammon.formats.mat",
    "txt": "backgammon.formats.mat",
    "sgf": "backgammon.formats.sgf",
    "json": "backgammon.formats.jsonlog",
}


def format_of(path: str | os.PathLike[str]) -> str:
    """The format of a file name, from its extension.

    >>> format_of("games/Final.MAT"), format_of("x.sgf")
    ('mat', 'sgf')
    >>> format_of("x.doc")
    Traceback (most recent call last):
    ...
    backgammon.formats.MatchFileError: x.doc: expected a file name ending in .mat, .txt, .sgf or .json, found '.doc'
    """
    suffix = Path(path).suffix.lower().lstrip(".")
    if suffix not in FORMATS:
        names = [f".{k}" for k in FORMATS]
        known = ", ".join(names[:-1]) + " or " + names[-1]
        raise MatchFileError(FileProblem(0, f"a file name ending in {known}", f".{suffix}" if suffix else "",
                                         str(path)))
    return suffix


def _module(fmt: str) -> _Format:
    if fmt not in FORMATS:
        raise MatchFileError(FileProblem(0, f"a format among {', '.join(FORMATS)}", fmt))
    module: _Format = import_module(FORMATS[fmt])
    return module


def loads(text: str, fmt: str, *, path: str = "", strict: bool = True) -> MatchRecord:
    """Read ``text`` in format ``fmt`` (``"mat"``, ``"sgf"``, ``"json"``)."""
    return _module(fmt).loads(text, path=path, strict=strict)


def dumps(record: MatchRecord | Match, fmt: str) -> str:
    """The text of ``record`` (or of a bare match, players named "Player 0" and "Player 1")
    in format ``fmt``."""
    if isinstance(record, Match):
        record = MatchRecord(record)
    return _module(fmt).dumps(record)


def read(path: str | os.PathLike[str], *, fmt: str | None = None, strict: bool = True) -> MatchRecord:
    """Read the match file at ``path`` (format from its extension unless ``fmt`` is given).
    Text is read as UTF-8 (Latin-1 when it is not), with any line ends."""
    fmt = format_of(path) if fmt is None else fmt
    raw = Path(path).read_bytes()
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    return loads(text, fmt, path=str(path), strict=strict)


def write(record: MatchRecord | Match, path: str | os.PathLike[str], *, fmt: str | None = None) -> None:
    """Write ``record`` to ``path`` (format from its extension unless ``fmt`` is given)."""
    fmt = format_of(path) if fmt is None else fmt
    Path(path).write_text(dumps(record, fmt), encoding="utf-8", newline="\n")


