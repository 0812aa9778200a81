"""``backgammon play`` and ``backgammon chouette``: from the parsed command line to a running
:class:`Session` or :class:`~backgammon.terminal.chouette.ChouetteSession`.

>>> import argparse
>>> from backgammon.terminal.options import add_play_arguments
>>> parser = argparse.ArgumentParser(); add_play_arguments(parser)
>>> session = build_session(parser.parse_args(["--opponent", "human", "--match", "3"]))
>>> session.match.length, session.names
(3, ('X', 'O'))
"""

from __future__ import annotations

import argparse
import os
import signal
import sys
from collections.abc import Callable

from ..errors import BackgammonError
from typing import IO

from . import chouette_options, savefile
from .chouette import ChouetteSession
from .options import GAME_ARGUMENTS, display_changes, options_from_args
from .session import Session

__all__ = ["build_chouette_session", "build_session", "play", "run_at_terminal", "run_chouette"]


def build_session(args: argparse.Namespace) -> Session:
    """The session that ``args`` (of the ``play`` sub-command) ask for: a new game, or with
    ``--resume`` the saved one (display options given on the command line override the
    saved ones; game options cannot be changed and are ignored with a warning).
    Raises :class:`~backgammon.errors.BackgammonError` for a file that cannot be resumed."""
    if args.resume:
        options, table, dice = savefile.load_table(args.resume)
        ignored = [
            "--" + name.replace("_", "-") for name in GAME_ARGUMENTS if getattr(args, name, None) is not None
        ]
        if ignored:
            print(
                f"backgammon: note: {', '.join(ignored)} ignored: a resumed game keeps its own options",
                file=sys.stderr,
            )
        options = options.with_display(**display_changes(args))
        return Session(options, table=table, dice=dice, save_path=args.resume)
    return Session(options_from_args(args))


def line_editing() -> None:
    """Arrow keys and history at the prompt, on a real terminal."""
    if not sys.stdin.isatty() or os.environ.get("TERM", "dumb") == "dumb":
        return
    try:
        import readline  # noqa: F401  (importing it is enough for input())
    except ImportError:  # pragma: no cover - platforms without readline
        pass


def play(args: argparse.Namespace) -> int:
    """Run ``backgammon play``; returns the exit status (see the sub-command's help)."""
    try:
        session = build_session(args)
    except BackgammonError as exc:
        print(f"backgammon: {exc}", file=sys.stderr)
        return 2
    return run_at_terminal(session.run)


def run_at_terminal(run: Callable[[], int]) -> int:
    """Call ``run`` (a session's ``run``) with line editing at the prompt, and a closed
    terminal or a ``kill`` taken as Ctrl-C (the session saves, then stops); return its exit
    status. The signal handlers are put back afterwards."""
    line_editing()
    previous = {sig: signal.getsignal(sig) for sig in HANGUPS}
    for sig in HANGUPS:
        signal.signal(sig, interrupt)
    try:
        return run()
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)


HANGUPS = tuple(getattr(signal, name) for name in ("SIGHUP", "SIGTERM") if hasattr(signal, name))


def interrupt(signum: int, frame: object) -> None:
    """A closed terminal or a ``kill``: stop as after Ctrl-C (the game is saved first)."""
    raise KeyboardInterrupt


def build_chouette_session(args: argparse.Namespace) -> ChouetteSession:
    """The session that ``args`` (of the ``chouette`` sub-command) ask for: a new chouette,
    or with ``--resume`` the saved one (display options on the command line override the
    saved ones; the players, dice and rules cannot change and are ignored with a note).
    Raises :class:`~backgammon.errors.BackgammonError` for bad options or a bad file."""
    if args.resume:
        options, table, dice = savefile.load_table(args.resume, "chouette")
        ignored = [
            "--" + ("human/--bot/--players" if name == "seats" else name.replace("_", "-"))
            for name in chouette_options.GAME_ARGUMENTS
            if getattr(args, name, None) is not None
        ]
        if ignored:
            print(
                f"backgammon: note: {', '.join(ignored)} ignored: a resumed chouette keeps its own",
                file=sys.stderr,
            )
        options = options.with_display(**chouette_options.display_changes(args))
        return ChouetteSession(options, table=table, dice=dice, save_path=args.resume)
    return ChouetteSession(chouette_options.options_from_args(args))


def run_chouette(args: argparse.Namespace, *, stderr: IO[str] | None = None) -> int:
    """Run ``backgammon chouette``; returns the exit status (see the sub-command's help)."""
    try:
        session = build_chouette_session(args)
    except BackgammonError as exc:
        print(f"backgammon: {exc}", file=stderr or sys.stderr)
        return 2
    return run_at_terminal(session.run)
