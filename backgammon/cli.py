"""The ``backgammon`` console command.

Sub-commands:

* ``backgammon play [OPTIONS]`` — play in the terminal against a bot or a second person
  (see ``backgammon play --help`` and :mod:`backgammon.terminal`);
* ``backgammon chouette [OPTIONS]`` — a chouette (three or more players, people at one
  keyboard and bots; see ``backgammon chouette --help`` and
  :mod:`backgammon.terminal.chouette`);
* ``backgammon show [POSITION_ID]`` — draw a position.
* ``backgammon moves POSITION_ID DICE`` — list the legal plays of a roll (``DICE`` like
  ``31`` or ``3-1``).

When the reader of ``show`` or ``moves`` goes away before the end of the output
(``backgammon moves ... | head``), the command stops quietly with exit status
:data:`PIPE_CLOSED`, as a program that ``SIGPIPE`` ends does.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from importlib import import_module

from . import __version__
from .errors import BackgammonError
from .position import Position
from .terminal.chouette import add_chouette_arguments
from .terminal.options import add_play_arguments

#: The exit status when the output's reader is gone: 128 + SIGPIPE (13), what a shell reports
#: for a program that SIGPIPE ends (``head`` closing a pipe, ``set -o pipefail``).
PIPE_CLOSED = 141


def _output_closed() -> int:
    """Nobody reads stdout any more: send the rest of the output to nowhere, so that Python's
    last flush at exit fails no more, and return :data:`PIPE_CLOSED`."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    except (AttributeError, OSError, ValueError):  # pragma: no cover - stdout is no file
        pass
    return PIPE_CLOSED


def _dice(text: str) -> tuple[int, int]:
    digits = [c for c in text if c.isdigit()]
    if len(digits) != 2 or not all("1" <= c <= "6" for c in digits):
        raise argparse.ArgumentTypeError(f"{text!r}: dice are two digits 1-6, like 31 or 3-1")
    return int(digits[0]), int(digits[1])


#: Sub-commands that hand every argument to a module of the engine: name -> (module, what).
_ENGINE_COMMANDS = {
    "train": ("backgammon.engine.train", "train the evaluation networks by self-play"),
    "refine": ("backgammon.engine.refine", "refine the networks on their own 1-ply values"),
}


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``backgammon`` command."""
    parser = argparse.ArgumentParser(
        prog="backgammon",
        description="Backgammon: exact rules, notations, games and matches.",
    )
    parser.add_argument("--version", action="version", version=f"backgammon {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    play = sub.add_parser("play", help="play a game or match in the terminal (against a bot or a person)")
    add_play_arguments(play)
    chouette = sub.add_parser(
        "chouette", help="a chouette in the terminal: 3 or more players, the box against a team"
    )
    add_chouette_arguments(chouette)
    show = sub.add_parser("show", help="draw a position given by its gnubg Position ID")
    show.add_argument("position_id", nargs="?", default=Position.initial().position_id())
    moves = sub.add_parser("moves", help="list every legal play of a roll in a position")
    moves.add_argument("position_id", help="gnubg Position ID, from the side on roll")
    moves.add_argument("dice", type=_dice, help="the roll, like 31 or 3-1")
    for name, (module, purpose) in _ENGINE_COMMANDS.items():
        # every option belongs to the engine's own command line, --help included
        engine = sub.add_parser(
            name,
            help=f"{purpose} (python -m {module}; `backgammon {name} --help` lists its options)",
            add_help=False,
        )
        engine.add_argument(f"{name}_args", nargs=argparse.REMAINDER)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    if arguments and arguments[0] in _ENGINE_COMMANDS:
        # the engine is imported only here; its command parses every option
        entry: Callable[[list[str]], int] = import_module(
            _ENGINE_COMMANDS[arguments[0]][0]).main
        return entry(arguments[1:])
    parser = build_parser()
    args = parser.parse_args(arguments)
    if args.command == "play":
        from .terminal.app import play  # rich is imported only here

        return play(args)
    if args.command == "chouette":
        from .terminal.chouette import run as run_chouette  # rich is imported only when it runs

        return run_chouette(args)
    try:
        if args.command == "show":
            print(Position.from_position_id(args.position_id))
        elif args.command == "moves":
            pos = Position.from_position_id(args.position_id)
            plays = pos.legal_moves(args.dice)
            if not plays:
                print("no legal play: the turn passes")
            for i, move in enumerate(plays, 1):
                print(f"{i:4}. {move}")
        else:
            parser.print_help()
        sys.stdout.flush()
    except BrokenPipeError:
        return _output_closed()
    except BackgammonError as exc:
        print(f"backgammon: {exc}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
