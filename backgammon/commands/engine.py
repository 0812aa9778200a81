"""``backgammon engine``: the engine as an HTTP service (:mod:`backgammon.server.engine_service`).

::

    backgammon engine [--host H] [--port N] [--plies N] [--max-plies N] [--workers N] [--max-body BYTES]

It prints the service's address and the address of its documentation page, then serves until
Ctrl-C. A port that another program holds is a sentence on stderr and exit status 1;
``--port 0`` takes a free port (the printed address says which).
"""

from __future__ import annotations

import argparse
import errno
import socket
import sys
from collections.abc import Sequence

from ..errors import BackgammonError

__all__ = ["build_parser", "main"]

#: The port when none is given.
DEFAULT_PORT = 8765


def build_parser() -> argparse.ArgumentParser:
    """The command line of ``backgammon engine``."""
    from ..server.engine_service import EngineSettings

    defaults = EngineSettings(warm_up=False)
    parser = argparse.ArgumentParser(
        prog="backgammon engine",
        description="Serve the engine over HTTP: POST /v1/move (best play), /v1/evaluate, /v1/cube; "
                    "the API is described at /openapi.json and /docs.",
    )
    parser.add_argument("--host", default="127.0.0.1", help="the address to listen on (default 127.0.0.1)")
    parser.add_argument("--port", type=int, default=DEFAULT_PORT,
                        help=f"the port (default {DEFAULT_PORT}; 0: a free one)")
    parser.add_argument("--plies", type=int, default=defaults.plies,
                        help=f"the look-ahead when a request names none (default {defaults.plies})")
    parser.add_argument("--max-plies", type=int, default=defaults.max_plies,
                        help=f"the deepest look-ahead a request may ask (0-2, default {defaults.max_plies})")
    parser.add_argument("--workers", type=int, default=defaults.workers,
                        help=f"threads that evaluate (default {defaults.workers})")
    parser.add_argument("--max-body", type=int, default=defaults.max_body, metavar="BYTES",
                        help=f"the largest request body (default {defaults.max_body})")
    return parser


def _listen(host: str, port: int) -> socket.socket:
    """A listening socket on ``host:port``; :class:`BackgammonError` with a sentence when the
    port is taken or the address is not this machine's."""
    try:
        family, kind, proto, _, address = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM,
                                                             flags=socket.AI_PASSIVE)[0]
    except socket.gaierror as exc:
        raise BackgammonError(f"--host {host!r} is not an address here ({exc.strerror})") from None
    sock = socket.socket(family, kind, proto)
    try:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(address)
        sock.listen(2048)
    except OSError as exc:
        sock.close()
        if exc.errno == errno.EADDRINUSE:
            raise BackgammonError(f"port {port} on {host} is taken: another program listens there "
                                  "(stop it, or choose another port with --port)") from None
        if exc.errno == errno.EACCES:
            raise BackgammonError(f"port {port} on {host} is not open to this user "
                                  "(ports below 1024 need privileges): choose another with --port") from None
        raise BackgammonError(f"cannot listen on {host}:{port}: {exc.strerror or exc}") from None
    return sock


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``backgammon engine``; returns the exit status."""
    import uvicorn

    from ..server.engine_service import EngineSettings, engine_app

    args = build_parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    try:
        settings = EngineSettings(plies=args.plies, max_plies=args.max_plies, workers=args.workers,
                                  max_body=args.max_body)
        sock = _listen(args.host, args.port)
    except BackgammonError as exc:
        print(f"backgammon engine: {exc}", file=sys.stderr)
        return 1
    host, port = sock.getsockname()[:2]
    shown = f"[{host}]" if ":" in host else host
    url = f"http://{shown}:{port}"
    print(f"The engine answers at {url}/v1/ (move, evaluate, cube, health); Ctrl-C stops it.", flush=True)
    print(f"API documentation: {url}/docs (OpenAPI: {url}/openapi.json)", flush=True)
    config = uvicorn.Config(engine_app(settings), log_level="warning", timeout_graceful_shutdown=3)
    try:
        uvicorn.Server(config).run(sockets=[sock])
    except KeyboardInterrupt:  # pragma: no cover - uvicorn handles Ctrl-C itself
        pass
    finally:
        sock.close()
    return 0
