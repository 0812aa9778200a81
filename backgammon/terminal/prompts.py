"""Reading what a person types: :class:`Prompter`, shared by ``backgammon play``
(:mod:`backgammon.terminal.session`) and ``backgammon chouette``
(:mod:`backgammon.terminal.chouette`), so that both read input alike.

A :class:`Prompter` reads a line (stripped; input that is not text is asked for again), a
play (standard notation or a number from ``list``, with a short explanation of what is
wrong), answers ``list`` and ``hint [N]`` (with the expert network, or pubeval when the
engine cannot load), and asks whether to save before quitting or to confirm an abbreviated
``d`` (:meth:`Prompter.confirm`). A library error is shown by its
:class:`~backgammon.errors.Refusal` (the reason and the rule) when it has one; what was typed
is echoed cut to :data:`ECHO` characters (:func:`shown`).

Like :mod:`backgammon.terminal.chouette`, this module imports :mod:`rich` and the bots only
when they are used, so the command line's parser does not need them.

>>> import io
>>> from backgammon import Position
>>> from backgammon.terminal.session import make_console
>>> out = io.StringIO()
>>> prompter = Prompter(make_console("never", file=out, width=80),
...                     read_line=lambda prompt: "  8/5 6/5 ", names=("X", "O"))
>>> legal = Position.initial().legal_moves((3, 1))
>>> line = prompter.read("play 3-1 > "); line
'8/5 6/5'
>>> str(legal[prompter.read_play(line, legal, (3, 1), "play")])
'8/5 6/5'
>>> prompter.read_play("99", legal, (3, 1), "play") is None
True
>>> out.getvalue()
'There is no play number 99: choose 1-16 (type `list` to see them).\\n'
"""

from __future__ import annotations

import os
import re
import select
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import AmbiguousMoveError, BackgammonError, IllegalMoveError
from ..move import Move

if TYPE_CHECKING:
    from rich.console import Console
    from rich.text import Text

    from ..bots.base import Bot
    from ..matchid import MatchState
    from ..position import LegalMoves

__all__ = [
    "ECHO", "LEVELS", "LEVEL_NAMES", "Prompter", "Quit", "adviser_name", "is_expert", "read_line", "reason",
    "resignation_text", "shown",
]

#: How often (seconds) :func:`read_line` looks again for a signal while it waits for a line.
_POLL = 0.2


def read_line(prompt: str) -> str:
    """:func:`input` that Ctrl-C (or a ``kill``) always stops.

    CPython's :func:`input` checks for signals only when its ``read()`` is interrupted: a
    SIGINT that comes after the prompt is written but before ``read()`` blocks (a person, or a
    test, answering the prompt at once while the program is descheduled) is noted and never
    acted on, and the program waits for a line. Here the prompt is written and the wait is a
    :func:`select.select` with a timeout, in Python, which acts on any signal noted; the line
    is read once it is there. With line editing (``readline`` imported) or when standard
    input is not a terminal (or on Windows), this is :func:`input`. End of input raises
    :class:`EOFError`, as :func:`input` does.
    """
    stdin, stdout = sys.stdin, sys.stdout
    if "readline" in sys.modules or os.name != "posix" or stdin is None or stdout is None or not stdin.isatty():
        return input(prompt)
    stdout.write(prompt)
    stdout.flush()
    fd = stdin.fileno()
    while not select.select([fd], [], [], _POLL)[0]:
        pass
    line = stdin.readline()
    if not line:
        raise EOFError
    return line[:-1] if line.endswith("\n") else line


#: The words for a resignation level (R31), as typed: ``resign gammon``, ``resign bg`` ...
LEVELS = {
    "1": 1,
    "s": 1,
    "single": 1,
    "normal": 1,
    "2": 2,
    "g": 2,
    "gammon": 2,
    "3": 3,
    "b": 3,
    "bg": 3,
    "backgammon": 3,
}
#: A resignation level (or a game's result level) in words.
LEVEL_NAMES = {1: "single game", 2: "gammon", 3: "backgammon"}


def resignation_text(level: int, points: int) -> str:
    """What a resignation (R31) offers, in words: ``a gammon (2 points)``.

    >>> resignation_text(1, 1), resignation_text(3, 6)
    ('a single game (1 point)', 'a backgammon (6 points)')
    """
    return f"a {LEVEL_NAMES[level]} ({points} point{'s' if points != 1 else ''})"


#: How many characters of a typed line an error message echoes.
ECHO = 40


def shown(line: str) -> str:
    """``line`` quoted for an error message, cut to :data:`ECHO` characters.

    >>> shown("24/18"), shown("x" * 1800)[-6:], len(shown("x" * 1800))
    ("'24/18'", "xx'...", 45)
    """
    return repr(line) if len(line) <= ECHO else repr(line[:ECHO]) + "..."


def reason(error: BaseException) -> str:
    """What a library error says, for a person: its :class:`~backgammon.errors.Refusal`
    (reason and rule) when it carries one, else its message."""
    refusal = getattr(error, "refusal", None)
    return str(refusal) if refusal is not None else str(error)


class Quit(Exception):
    """Raised to end a session normally (after ``quit``, or when the players stop)."""


def is_expert(adviser: Bot) -> bool:
    """True when ``adviser`` is the expert network (else it is pubeval)."""
    from ..bots.neural import ExpertBot

    return isinstance(adviser, ExpertBot)


def adviser_name(adviser: Bot) -> str:
    """How ``hint`` names its adviser: the expert network, or pubeval as the fallback."""
    return "the expert network" if is_expert(adviser) else "pubeval"


def _number(text: str) -> int | None:
    """``text`` as a whole number when it is one written in the digits 0-9, else None."""
    return int(text) if text.isascii() and text.isdigit() else None


class Prompter:
    """The input side of a terminal session: ``read_line`` reads a line (like
    :func:`input`), ``console`` shows the answers. ``names``: the players (X and O), kept
    for callers; messages come from the library's refusals."""

    def __init__(self, console: Console, read_line: Callable[[str], str], names: tuple[str, str] = ("X", "O")) -> None:
        self.console = console
        self.read_line = read_line
        self.names = names
        self._adviser: Bot | None = None

    # -- output ---------------------------------------------------------------------------

    def say(self, message: str | Text, style: str = "") -> None:
        """Print a line (text as it is: no markup), in ``style``."""
        from rich.text import Text

        self.console.print(
            message if isinstance(message, Text) else Text(message, style=style), soft_wrap=True
        )

    def error(self, message: str) -> None:
        """Say what cannot be done."""
        self.say(message, style="bold red")

    def unknown(self, line: str, now: str) -> None:
        """Say that ``line`` is not a command, and what is expected ``now``."""
        self.error(f"{shown(line)} is not a command. Now: {now} (type `help` for the commands)")

    def confirm(self, question: str) -> bool:
        """Ask ``question`` (``"Double to 2?"``) with ``[y/N]``: True on yes."""
        return self.read(f"{question} [y/N] > ").lower() in ("y", "yes")

    # -- input ----------------------------------------------------------------------------

    def read(self, prompt: str) -> str:
        """One line from the player (stripped); EOFError and KeyboardInterrupt go up."""
        while True:
            try:
                line = self.read_line(prompt)
            except UnicodeDecodeError:
                self.error("That input could not be read as text; please type it again.")
                continue
            return line.strip()[:500]

    def ask_quit(self, what: str, save: Callable[[], bool]) -> None:
        """``quit``: offer to save ``what`` (the game, the chouette) first. Raises
        :class:`Quit` to stop (after ``save()`` succeeded, or without saving); returns to go
        on playing."""
        while True:
            answer = self.read(f"Save {what} before quitting? [Y]es, [n]o, [c]ancel > ").lower()
            if answer in ("", "y", "yes"):
                if save():
                    raise Quit
                continue
            if answer in ("n", "no"):
                self.say("Goodbye.")
                raise Quit
            if answer in ("c", "cancel"):
                self.say("Going on with the game.")
                return
            self.error("Please answer y (save and quit), n (quit without saving) or c (go on playing).")

    def read_play(self, line: str, legal: LegalMoves, dice: tuple[int, int], now: str) -> int | None:
        """The index in ``legal`` of the play ``line`` names (notation or a list number), or
        None after saying what was wrong (``now``: what is expected at this prompt)."""
        if not len(legal):
            self.error(f"No legal play with {dice[0]}-{dice[1]}: press Enter to pass the turn.")
            return None
        number = _number(line)
        if number is not None:
            if 1 <= number <= len(legal):
                return number - 1
            self.error(f"There is no play number {line if len(line) <= ECHO else shown(line)}: choose 1-{len(legal)} (type `list` to see them).")
            return None
        if not re.search(r"\d|bar|off", line.lower()):
            self.unknown(line, now)
            return None
        try:
            move = legal.origin.parse_move(line, dice)
        except BackgammonError as exc:
            self.error(self._explain_bad_play(line, exc, legal, dice))
            return None
        for i, candidate in enumerate(legal):
            if candidate == move:
                return i
        target = legal.origin.play(move)
        for i in range(len(legal)):
            if legal.position(i) == target:
                return i
        self.error(f"{shown(line)} is not a legal play of {dice[0]}-{dice[1]}.")  # pragma: no cover
        return None

    def _explain_bad_play(
        self, line: str, exc: BackgammonError, legal: LegalMoves, dice: tuple[int, int]
    ) -> str:
        roll = f"{dice[0]}-{dice[1]}"
        if isinstance(exc, AmbiguousMoveError):
            return f"Ambiguous: {reason(exc)} (write the hit with *, like 13/8*/2, or pick a number from `list`)."
        if isinstance(exc, IllegalMoveError):
            try:
                typed = [t for t in str(Move.parse(line)).split()]
            except BackgammonError:
                typed = []
            partial = [m for m in legal if typed and set(typed) <= set(str(m).split())] if typed else []
            if partial:
                sample = ", ".join(str(m) for m in partial[:4])
                more = f" ({len(partial)} in all)" if len(partial) > 4 else ""
                return (
                    f"{shown(line)} uses only part of the roll {roll}: all of it must be played when possible (R11). "
                    f"Plays with it: {sample}{more}."
                )
            sample = ", ".join(str(m) for m in legal[:4])
            more = f" ... ({len(legal)} in all: type `list`)" if len(legal) > 4 else ""
            return f"Illegal: {reason(exc)}. Legal plays of {roll}: {sample}{more}."
        return f"Not a play: {reason(exc)}."

    # -- list and hint --------------------------------------------------------------------

    def advisor(self) -> Bot:
        """The bot behind ``hint``: the expert network, or pubeval when the engine cannot
        load (loaded on first use)."""
        if self._adviser is None:
            from ..bots import load
            from ..bots.analysis import expert_bot

            self._adviser = expert_bot() or load("pubeval")
        return self._adviser

    def list_plays(self, legal: LegalMoves) -> None:
        """``list``: the legal plays, best first (the adviser's 0-ply order), each with its
        number in the legal order (the number :meth:`read_play` accepts), in columns."""
        from rich.columns import Columns
        from rich.text import Text

        from ..bots.analysis import rank_plays
        from .advice import list_items, list_title

        if not len(legal):
            self.say("No legal play: press Enter to pass the turn.")
            return
        self.say(list_title(len(legal)))
        items = [Text(item) for item in list_items(rank_plays(legal, plies=0))]
        self.console.print(Columns(items, padding=(0, 3), column_first=True))

    def hint(self, legal: LegalMoves, rest: str, state: MatchState | None = None) -> None:
        """``hint [N]``: the adviser's N best plays (default 5), ``rest`` being N; in a
        match (``state``) ranked by match winning chances, else by cubeless equity."""
        from .advice import hint_lines

        if not len(legal):
            self.say("No legal play: press Enter to pass the turn.")
            return
        count = 5
        if rest:
            number = _number(rest)
            if number is None or not 1 <= number <= 50:
                self.error(f"{shown(rest)}: `hint` takes a number of plays, 1-50 (like `hint 10`).")
                return
            count = number
        for line in hint_lines(legal, state, count):
            self.say(line)
