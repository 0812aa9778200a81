"""``backgammon convert IN OUT [--from FMT] [--to FMT] [--lenient]``: a match file to another format.

Formats come from the file names' extensions (``.mat``/``.txt``, ``.sgf``, ``.json``) unless
``--from`` / ``--to`` say them. A wrong file is reported as ``IN:LINE: expected ..., found ...``
on stderr with exit status 1, and nothing is written; with ``--lenient`` what could be read is
written, each problem printed as a warning, and the status is 0.

>>> import tempfile, pathlib
>>> folder = pathlib.Path(tempfile.mkdtemp())
>>> _ = (folder / "in.mat").write_text(" 1 point match\\n\\n Game 1\\n a : 0    b : 0\\n  1) 31: 8/5 6/5\\n")
>>> main([str(folder / "in.mat"), str(folder / "out.json")])
0
>>> from backgammon.formats import read
>>> read(folder / "out.json").names
('a', 'b')
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from ..errors import BackgammonError
from ..formats import FORMATS, MatchFileError, format_of, read, write

__all__ = ["main"]


def _parser() -> argparse.ArgumentParser:
    names = ", ".join(FORMATS)
    parser = argparse.ArgumentParser(
        prog="backgammon convert",
        description="Convert a match file between gnubg/Jellyfish .mat, gnubg .sgf and the project's .json.",
        epilog="Example: backgammon convert final.sgf final.mat",
    )
    parser.add_argument("input", metavar="IN", help="the match file to read")
    parser.add_argument("output", metavar="OUT", help="the file to write (replaced if it exists)")
    parser.add_argument("--from", dest="source", metavar="FMT", choices=sorted(FORMATS),
                        help=f"the format of IN ({names}); default: from its extension")
    parser.add_argument("--to", dest="target", metavar="FMT", choices=sorted(FORMATS),
                        help=f"the format of OUT ({names}); default: from its extension")
    parser.add_argument("--lenient", action="store_true",
                        help="write what can be read of a wrong file, with a warning per problem")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``backgammon convert`` with ``argv`` (default: the command line); the exit status."""
    args = _parser().parse_args(argv)
    try:
        target = args.target or format_of(args.output)
        source = args.source or format_of(args.input)
    except MatchFileError as exc:
        print(f"backgammon convert: {exc} (or say the format with --from / --to)", file=sys.stderr)
        return 1
    try:
        record = read(args.input, fmt=source, strict=not args.lenient)
    except MatchFileError as exc:
        print(str(exc), file=sys.stderr)
        if exc.partial is not None and not args.lenient:
            print("backgammon convert: nothing written (--lenient writes what could be read)", file=sys.stderr)
        return 1
    except BackgammonError as exc:
        print(f"backgammon convert: {args.input}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"backgammon convert: cannot read {args.input}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    for problem in record.problems:
        print(f"warning: {problem}", file=sys.stderr)
    try:
        write(record, args.output, fmt=target)
    except BackgammonError as exc:
        print(f"backgammon convert: cannot write {args.output} as {target}: {exc}", file=sys.stderr)
        return 1
    except OSError as exc:
        print(f"backgammon convert: cannot write {args.output}: {exc.strerror or exc}", file=sys.stderr)
        return 1
    return 0
