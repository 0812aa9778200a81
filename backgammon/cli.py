"""The ``backgammon`` console command.

Sub-commands:

* ``backgammon play [OPTIONS]`` — play in the terminal against a bot or a second person
  (see ``backgammon play --help`` and :mod:`backgammon.terminal`);
* ``backgammon chouette [OPTIONS]`` — a chouette (three or more players, people at one
  keyboard and bots; see ``backgammon chouette --help`` and
  :mod:`backgammon.terminal.chouette`);
* ``backgammon show [POSITION]`` — draw a position as ``backgammon play`` draws it;
  ``POSITION`` is a gnubg Position ID, gnubg's ``PositionID:MatchID`` pair, or an XGID
  (``XGID=...``); the starting position by default.
* ``backgammon moves POSITION_ID DICE`` — list the legal plays of a roll (``DICE`` like
  ``31`` or ``3-1``), best first by the expert network's 0-ply evaluation when the engine
  can load (in the legal order otherwise), each with its number in the legal order (the
  number ``list`` shows and a play prompt accepts).
* ``backgammon verify FILE`` — check the fair dice of a ``/api/tables/{id}/record``
  download (:func:`backgammon.fairdice.verify_record`): a line per game; exit status 0 when
  every die checks, 1 with a sentence per failure otherwise.
* ``backgammon serve [--host H] [--port P] [--database URL] [--redis URL] [--bot-delay S]``
  — the online server (:mod:`backgammon.server`): the lobby and tables in the browser, over
  a SQLite file or PostgreSQL; with ``--redis`` (or ``BACKGAMMON_REDIS``) several processes
  share one PostgreSQL database (docs/DEPLOY.md); Ctrl-C stops it.
* ``backgammon moderator NAME [--database URL] [--revoke]`` — give an account of the club the
  moderator's role (or take it back).
* ``backgammon convert IN OUT`` — convert a match file between ``.mat``, ``.sgf`` and
  ``.json`` (:mod:`backgammon.commands.convert`, :mod:`backgammon.formats`);
* ``backgammon analyse FILE [--ply N] [--json]`` — every decision of a match judged, luck,
  error rates, PR (:mod:`backgammon.commands.analyse`);
* ``backgammon rollout POSITION [--games N] ...`` — roll a position out on every core or a Ray
  cluster (:mod:`backgammon.commands.rollout`);
* ``backgammon engine [--port N]`` — the engine as an HTTP service
  (:mod:`backgammon.commands.engine`);
* ``backgammon train`` / ``backgammon refine`` — the engine's training programs.
  These hand every argument to their module's own command line (``--help`` included).

When the reader of ``show`` or ``moves`` goes away before the end of the output
(``backgammon moves ... | head``), the command stops quietly with exit status
:data:`PIPE_CLOSED`, as a program that ``SIGPIPE`` ends does.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from collections.abc import Callable, Sequence
from importlib import import_module
from typing import TYPE_CHECKING

from . import __version__
from .errors import BackgammonError
from .position import Position

if TYPE_CHECKING:
    from .match import Match
from .terminal.chouette_options import add_chouette_arguments
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


def dice_arg(text: str) -> tuple[int, int]:
    """An argparse type: a roll written like ``31`` or ``3-1``."""
    digits = [c for c in text if c.isdigit()]
    if len(digits) != 2 or not all("1" <= c <= "6" for c in digits):
        raise argparse.ArgumentTypeError(f"{text!r}: dice are two digits 1-6, like 31 or 3-1")
    return int(digits[0]), int(digits[1])


_LISTS = re.compile(r"\s*\(?\[[\d, ]*\],\s*\[[\d, ]*\]\)?:?")


def _reason(exc: BaseException) -> str:
    """A library message about an input, without Python values (lists of checker counts,
    the base64 decoder's words): what is wrong, in a sentence."""
    text = _LISTS.sub("", str(exc))
    text = re.sub(r"not base64 \([^)]*\)", "not base64 (letters, digits, + and / only)", text)
    text = re.sub(r":\s*:", ":", text).strip()
    text = re.sub(r"^invalid ([A-Za-z ]+?) '[^']*':\s*it\b", r"the \1", text)
    return re.sub(r"^(?:invalid [A-Za-z ]+ )?(?:'[^']*'|[A-Za-z0-9+/]{14}):\s*", "", text)


def read_position(text: str) -> Match:
    """The match (or money session) that ``text`` sets up, as ``show`` reads it: an XGID
    (``XGID=...``), gnubg's ``PositionID:MatchID`` pair, or a Position ID alone (money
    play, the side on roll is X, before the roll). Raises
    :class:`~backgammon.errors.BackgammonError` with a sentence about the input.

    >>> read_position("4HPwATDgc/ABMA:cAkHAAAAAAAA").game.dice
    (6, 1)
    >>> read_position("XGID=-b----E-C---eE---c-e----B-:0:0:1:52:4:2:1:5:10").length
    5
    """
    from .match import Match
    from .matchid import MatchState
    from .xgid import XGID

    text = text.strip()
    if text[:5].upper() == "XGID=":
        try:
            return Match.from_xgid("XGID=" + text[5:])
        except BackgammonError as exc:
            raise BackgammonError(f"{text!r} is not a valid XGID: {_reason(exc)}") from None
    pid, colon, mid = text.partition(":")
    kind = "PositionID:MatchID pair" if colon else "Position ID"
    try:
        position = Position.from_position_id(pid)
        state = MatchState.from_match_id(mid) if colon else MatchState()
        player, opponent = position.player, position.opponent
        xgid = XGID.from_match_state(state, player, opponent)
        return Match.from_xgid(xgid.to_xgid())
    except BackgammonError as exc:
        raise BackgammonError(f"{text!r} is not a valid {kind}: {_reason(exc)}") from None


def _show(text: str) -> None:
    """``show``: the board as ``backgammon play`` draws it."""
    from .terminal.session import make_console
    from .terminal.view import render, scene_of

    match = read_position(text)
    console = make_console("auto")
    console.print(render(scene_of(match), width=console.width), soft_wrap=True)


def _moves(position_id: str, dice: tuple[int, int]) -> None:
    """``moves``: the legal plays, best first when the engine can load."""
    try:
        pos = Position.from_position_id(position_id)
    except BackgammonError as exc:
        raise BackgammonError(f"{position_id!r} is not a valid Position ID: {_reason(exc)}") from None
    plays = pos.legal_moves(dice)
    if not plays:
        print("no legal play: the turn passes")
        return
    from .bots.analysis import engine, rank_plays

    order = list(range(len(plays)))
    if engine() is not None:
        order = [p.index for p in rank_plays(plays, plies=0).plays]
    for i in order:
        print(f"{i + 1:4}. {plays[i]}")


def _verify(path: str) -> int:
    """``verify``: recompute the dice of a record download; 0 when all check, else 1."""
    import json

    from .fairdice import verify_record

    try:
        with open(path, encoding="utf-8") as f:
            record = json.load(f)
    except OSError as exc:
        raise BackgammonError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BackgammonError(f"{path} is not JSON ({exc}): give a /api/tables/{{id}}/record download") from None
    report = verify_record(record)
    for line in report.lines():
        print(line)
    return 0 if report.ok else 1


def _serve(args: argparse.Namespace) -> int:
    """``serve``: run the online server until Ctrl-C."""
    import uvicorn

    from .server.app import create_app
    from .server.collector import Collector
    from .server.store import Store, default_url

    url = args.database or default_url()
    Store(url).close()  # a sentence now, rather than a failed start-up later
    redis = args.redis or os.environ.get("BACKGAMMON_REDIS") or None
    if redis:
        import asyncio

        from .server.bus import make_bus

        async def reach() -> None:
            bus = make_bus(redis)  # a sentence now for a URL that is not Redis's

            async def ignore(message: dict[str, object]) -> None:
                return None

            await bus.start(ignore)  # ... or for a Redis that does not answer
            await bus.close()

        asyncio.run(reach())
    print(f"Open http://{args.host}:{args.port}/ in your browser (backgammon play is the terminal game).", flush=True)
    app = create_app(url, bot_delay=args.bot_delay, redis_url=redis)
    # the garbage collector's pauses set the server's p99 under load: tune it for many tables
    Collector().start()
    try:
        # no per-message deflate: a state is a few KB, and compressing each costs more CPU than
        # the bandwidth it saves is worth (benchmarks/load.py)
        uvicorn.run(app, host=args.host, port=args.port, ws="websockets-sansio", ws_max_size=65536,
                    ws_per_message_deflate=False, log_level="warning", timeout_graceful_shutdown=3)
    except KeyboardInterrupt:  # pragma: no cover - uvicorn handles Ctrl-C itself
        pass
    except SystemExit as exc:  # uvicorn exits when the port is taken
        return int(exc.code or 0) if not isinstance(exc.code, str) else 1
    return 0


def _moderator(args: argparse.Namespace) -> int:
    """``moderator``: grant (or revoke) the moderator's role."""
    from .server.moderation import grant_moderator
    from .server.store import Store, default_url

    with Store(args.database or default_url()) as store:
        name = grant_moderator(store, args.name, revoke=args.revoke)
    print(f"{name} is a player again." if args.revoke else f"{name} is now a moderator.")
    return 0


#: Sub-commands that hand every argument to a module with its own command line (``main(argv)``):
#: name -> (module, what).
_ENGINE_COMMANDS = {
    "train": ("backgammon.engine.train", "train the evaluation networks by self-play"),
    "refine": ("backgammon.engine.refine", "refine the networks on their own 1-ply values"),
    "convert": ("backgammon.commands.convert", "convert a match file between .mat, .sgf and .json"),
    "analyse": ("backgammon.commands.analyse", "analyse a match file: every decision's error, luck, PR"),
    "rollout": ("backgammon.commands.rollout", "roll a position out (cubeless or cubeful), on every core"),
    "engine": ("backgammon.commands.engine", "run the engine as an HTTP service (best play, evaluation, cube)"),
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
    show = sub.add_parser(
        "show", help="draw a position: a Position ID, a PositionID:MatchID pair or an XGID"
    )
    show.add_argument(
        "position_id",
        metavar="POSITION",
        nargs="?",
        default=Position.initial().position_id(),
        help="gnubg Position ID, gnubg's PositionID:MatchID, or XGID=... (default: the start)",
    )
    moves = sub.add_parser("moves", help="list every legal play of a roll, best first")
    moves.add_argument("position_id", help="gnubg Position ID, from the side on roll")
    moves.add_argument("dice", type=dice_arg, help="the roll, like 31 or 3-1")
    verify = sub.add_parser("verify", help="check the fair dice of an online table's record download")
    verify.add_argument("file", metavar="FILE", help="a /api/tables/{id}/record download (JSON)")
    serve = sub.add_parser("serve", help="run the online server (lobby and tables in the browser)")
    serve.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    serve.add_argument("--port", type=int, default=8080, help="the port (default 8080)")
    serve.add_argument("--database", metavar="URL", default=None,
                       help="sqlite:///PATH or postgresql://USER@HOST/DB (default: a SQLite file in "
                            "$XDG_STATE_HOME/backgammon)")
    serve.add_argument("--bot-delay", type=float, default=0.6, metavar="SECONDS",
                       help="pause before each bot action, so people see the moves (default 0.6)")
    serve.add_argument("--redis", metavar="URL", default=None,
                       help="redis://HOST:6379/0 shared by several serve processes over one PostgreSQL "
                            "database (default: $BACKGAMMON_REDIS, else this process alone)")
    moderator = sub.add_parser("moderator", help="give an account of the online club the moderator's role")
    moderator.add_argument("name", metavar="NAME", help="the account's name")
    moderator.add_argument("--database", metavar="URL", default=None,
                           help="the server's database (default: the SQLite file serve uses)")
    moderator.add_argument("--revoke", action="store_true", help="take the role back")
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
            _show(args.position_id)
        elif args.command == "moves":
            _moves(args.position_id, args.dice)
        elif args.command == "verify":
            return _verify(args.file)
        elif args.command == "serve":
            return _serve(args)
        elif args.command == "moderator":
            return _moderator(args)
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
