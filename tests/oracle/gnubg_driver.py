"""GNU Backgammon as an oracle of legal plays (test-only; gnubg and gnubg_nn are GPL).

gnubg is used strictly as a separate process fed a command script on stdin; gnubg_nn (PyPI) is
imported only here, never by the ``backgammon`` package.

API
===
``find_gnubg()``
    Path of ``/usr/games/gnubg`` (Debian) or of ``gnubg`` on ``PATH``; ``None`` if neither.
``gnubg_legal_plays(cases, *, workers=2, chunk=500, gnubg=None)``
    ``cases`` are ``(position_id, die1, die2)`` with the Position ID of the side on roll. For
    each, the move texts of ``hint 9999`` at 0 plies, best first (``['24/13', '24/18 13/8',
    ...]``), ``[]`` when gnubg says "There are no legal moves.", ``None`` when gnubg refuses the
    case (logged on ``logging.getLogger(__name__)`` with the reason). One entry per distinct
    resulting position; texts are gnubg's own notation: intermediate points collapsed
    (``bar/14`` for bar/19/14), ``*`` per hit (``bar/24*/23``), multiplicity as ``(2)``..``(4)``
    (``13/9(2) 6/2(2)``, even ``bar/24*(4)``), ``off`` for bearing off (``2/1*/off``).
    ``gnubg`` overrides the executable; ``FileNotFoundError`` when there is none.
``gnubg_nn_legal_keys(pid, d1, d2)``
    The boards after every legal play according to PyPI gnubg_nn, as
    ``(player, opponent)`` pairs of 25-int tuples in the layout of docs/ARCHITECTURE.md, still
    from the mover's point of view (player = the side that just moved; a hit opponent checker
    is on ``opponent[24]``).

How gnubg is driven
===================
``gnubg -t -q -r`` (text mode, quiet, no rc files) with ``HOME``/``TMPDIR`` set to a fresh
scratch directory, ``LC_ALL=C``, and this script on stdin::

    set player 0 human
    set player 1 human
    new game
    set turn 1
    set threads 1
    set evaluation chequerplay evaluation plies 0
    set prompt @@gd:start@@
    # per case k:
    set board <pid>
    set dice <d1> <d2>
    hint 9999
    set prompt @@gd:e<k>@@

Marker technique: gnubg has no ``echo`` (``echo foo`` and any unknown word only print
"Unknown keyword `foo'." on **stderr**, whose order relative to the block-buffered stdout is not
reliable). ``set prompt TOKEN`` instead prints "The prompt has been set to `TOKEN'." on stdout,
in order with everything else, and the prompt itself is never shown when stdin is not a
terminal, so it is harmless. The output is cut at those lines; the piece ending with marker
``e<k>`` belongs to case k and must contain exactly: the board echoed by ``set board`` (its
``Position ID:`` must equal the requested ID), "The dice have been set to d1 and d2.", then
either "There are no legal moves." or hint entries numbered 1..N. Every other line in the hint
part is rejected, so a misparse cannot pass silently. The hint entries look like::

        1. Cubeful 0-ply    8/5 6/5                      Eq.: +0.200
           0.551 0.174 0.013 - 0.449 0.124 0.005
            0-ply cubeful prune [expert]

The move column is 28 characters wide; the longest move text we could construct (four
separate hits, ``bar/24* 22/21* 20/19* 18/17*``) is exactly 28, so entries do not wrap; the parser takes the
text between ``0-ply`` and ``Eq.:`` anyway.

A case that fails any check is retried once in a second pass where every case is preceded by
``new game`` / ``set turn 1`` (and its own begin marker ``@@gd:b<k>@@``); if it fails again the
result is ``None`` and the reason is logged. Position IDs that are not 14 base64 characters and
dice outside 1..6 are never sent to gnubg (they could inject commands): ``None`` + log.

gnubg quirks found (Debian gnubg 1.07.001)
==========================================
- ``new game`` with two human players rolls the opening dice itself ("gnubg rolls 2, root rolls
  4.") and prints the board twice; either side may then be on roll, hence ``set turn 1``. With
  stdin not a terminal neither ``new game`` nor ``set turn`` asks for confirmation.
- ``set board`` reads the ID from the side on roll and echoes the ID of the side on roll, so
  the echo is the same whichever side is on roll (the turn does not matter for hint output,
  whose move texts are always from the mover's view). ``set board`` never changes the turn;
  ``hint`` never moves.
- An invalid ID, or a position with 16+ checkers a side or both colours on one point, prints
  "Illegal position." and leaves the previous board in place: a following ``hint`` would
  silently answer for the *previous* position. This is why the echo is checked.
- Finished positions are accepted: the side on roll with 15 checkers off gives "There are no
  legal moves." (gnubg_nn instead lists one play, the unchanged position); the opponent with 15
  off still gives the list of plays; both sides empty (``AAAAAAAAAAAAAA``) gives no legal moves.
- No legal play prints "There are no legal moves." (not nothing). A forced play is a single
  numbered entry. ``hint`` lists one entry per distinct resulting position (16 for the opening
  3-1, 7 for 6-5, 52 for 4-4).
- Speed: each ``hint`` sleeps about 10 ms of wall time inside gnubg's thread pool (the main
  thread posts the evaluation and then ``clock_nanosleep``\\ s 10 ms before checking for it;
  visible with ``strace``), whatever the number of threads, while using under 1 ms of CPU.
  ``set board`` / ``set dice`` cost nothing measurable. So more worker processes than cores
  still pay (nearly linear up to ~2 per core here, flattening out beyond). ``set threads 1`` gives
  the steadiest timing (more threads sometimes skip the sleep, sometimes not).

Measured throughput (2-core VM, cases from seeded random games, all agreeing with gnubg_nn)
=========================================================================================
- gnubg, ``chunk=500``: workers=1 ~100 cases/s wall; workers=2 ~240-255 cases/s; workers=4
  ~485/s; workers=8 ~620-630/s (chunk 250-500); workers=16-32 ~690-740/s (chunk 250), where it
  flattens out (gnubg's sleeps stretch under contention). CPU per case ~1.0 ms: ~0.7 ms in gnubg plus ~0.27 ms of parsing in this
  process. Each gnubg start costs ~0.2 s wall / ~0.1 s CPU (loading its networks), so keep
  ``chunk`` at 250 or more (chunk=100 with 16 workers fell to ~570/s, start-up bound).
- gnubg_nn (in process, no gnubg): ``gnubg_nn_legal_keys`` ~55,000 calls/s (~1 million
  resulting boards/s, 18.5 plays per random case on average); bare ``gnubg_nn.moves()``
  ~218,000 calls/s (~4 million keys/s). Use it for bulk counting, gnubg for move texts.
"""

from __future__ import annotations

import logging
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

__all__ = [
    "find_gnubg",
    "gnubg_legal_plays",
    "gnubg_nn_legal_keys",
]

log = logging.getLogger(__name__)

Board = tuple[tuple[int, ...], tuple[int, ...]]

_PID_RE = re.compile(r"\A[A-Za-z0-9+/]{14}\Z")
_MARKER_RE = re.compile(r"^The prompt has been set to `@@gd:([a-z0-9]+)@@'\.$", re.MULTILINE)
_ECHO_RE = re.compile(r"Position ID: (\S+)")
_DICE_RE = re.compile(r"^The dice have been set to (\d) and (\d)\.$", re.MULTILINE)
_NO_MOVES = "There are no legal moves."
_HINT_RE = re.compile(r"^\s*(\d+)\.\s+Cubeful 0-ply\s+(\S.*?)\s+Eq\.:\s+\S")
_PROB = r"-?\d\.\d{3}"  # gnubg can print -0.000
_PROBS_RE = re.compile(rf"^\s+{_PROB} {_PROB} {_PROB} - {_PROB} {_PROB} {_PROB}\s*$")
_INFO_RE = re.compile(r"^\s+0-ply cubeful")

_HEADER = (
    "set player 0 human",
    "set player 1 human",
    "new game",
    "set turn 1",
    "set threads 1",
    "set evaluation chequerplay evaluation plies 0",
    "set prompt @@gd:start@@",
)


def find_gnubg() -> str | None:
    """Return the gnubg executable: Debian's /usr/games/gnubg, else ``gnubg`` on PATH."""
    debian = "/usr/games/gnubg"
    if os.path.isfile(debian) and os.access(debian, os.X_OK):
        return debian
    return shutil.which("gnubg")


@dataclass(frozen=True)
class _Fail:
    reason: str


def _valid_case(case: object) -> str | None:
    """Why a case must not be sent to gnubg, or None when it is well-formed."""
    if not isinstance(case, (tuple, list)) or len(case) != 3:
        return f"not a (pid, d1, d2) triple: {case!r}"
    pid, d1, d2 = case
    if not isinstance(pid, str) or not _PID_RE.match(pid):
        return f"not a 14-character Position ID: {pid!r}"
    for d in (d1, d2):
        if isinstance(d, bool) or not isinstance(d, int) or not 1 <= d <= 6:
            return f"die out of range: {d!r}"
    return None


def _script(batch: Sequence[tuple[int, tuple[str, int, int]]], fresh_game: bool) -> str:
    lines = list(_HEADER)
    for k, (pid, d1, d2) in batch:
        if fresh_game:
            lines += ["new game", "set turn 1", f"set prompt @@gd:b{k}@@"]
        lines += [f"set board {pid}", f"set dice {d1} {d2}", "hint 9999", f"set prompt @@gd:e{k}@@"]
    return "\n".join(lines) + "\n"


def _parse_case(piece: str, pid: str, d1: int, d2: int) -> list[str] | _Fail:
    """Parse the output of one case (``set board`` .. ``hint``)."""
    echoes = _ECHO_RE.findall(piece)
    if not echoes:
        if "Illegal position." in piece:
            return _Fail("gnubg refused the position: 'Illegal position.'")
        return _Fail("no board echo after 'set board': " + _excerpt(piece))
    if len(echoes) != 1:
        return _Fail(f"{len(echoes)} board echoes instead of 1: " + _excerpt(piece))
    if echoes[0] != pid:
        return _Fail(f"gnubg echoed Position ID {echoes[0]} for {pid}")
    dice = list(_DICE_RE.finditer(piece))
    if len(dice) != 1 or sorted(map(int, dice[0].groups())) != sorted((d1, d2)):
        return _Fail(f"dice {d1}-{d2} not acknowledged: " + _excerpt(piece))
    tail = piece[dice[0].end():].splitlines()
    tail = [ln for ln in tail if ln.strip()]
    if tail == [_NO_MOVES]:
        return []
    plays: list[str] = []
    for ln in tail:
        m = _HINT_RE.match(ln)
        if m:
            if int(m.group(1)) != len(plays) + 1:
                return _Fail(f"hint entry {m.group(1)} out of sequence: {ln!r}")
            plays.append(m.group(2))
        elif not (_PROBS_RE.match(ln) or _INFO_RE.match(ln)):
            return _Fail(f"unexpected line in hint output: {ln!r}")
    if not plays:
        return _Fail("no hint output: " + _excerpt(piece))
    return plays


def _excerpt(text: str, n: int = 200) -> str:
    text = " | ".join(ln.strip() for ln in text.strip().splitlines() if ln.strip())
    return repr(text[:n] + ("..." if len(text) > n else ""))


def _run_batch(
    exe: str, batch: Sequence[tuple[int, tuple[str, int, int]]], fresh_game: bool
) -> dict[int, list[str] | _Fail]:
    """Run one gnubg process over ``batch`` (pairs of input index and case)."""
    script = _script(batch, fresh_game)
    timeout = 60.0 + 0.2 * len(batch)
    with tempfile.TemporaryDirectory(prefix="gnubg-oracle-") as home:
        env = {
            "HOME": home,
            "TMPDIR": home,
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "LC_ALL": "C",
            "LANG": "C",
        }
        try:
            proc = subprocess.run(
                [exe, "-t", "-q", "-r"],
                input=script,
                capture_output=True,
                text=True,
                errors="replace",
                env=env,
                cwd=home,
                timeout=timeout,
                check=False,
            )
        except subprocess.TimeoutExpired:
            return {k: _Fail(f"gnubg timed out after {timeout:.0f} s") for k, _ in batch}
        except OSError as exc:
            return {k: _Fail(f"cannot run {exe}: {exc}") for k, _ in batch}
    out = proc.stdout
    pieces: dict[str, str] = {}
    start = 0
    for m in _MARKER_RE.finditer(out):
        pieces[m.group(1)] = out[start:m.start()]
        start = m.end()
    results: dict[int, list[str] | _Fail] = {}
    for k, (pid, d1, d2) in batch:
        piece = pieces.get(f"e{k}")
        if piece is None:
            results[k] = _Fail(
                f"no end marker (gnubg rc={proc.returncode}, stderr {_excerpt(proc.stderr)})"
            )
        else:
            results[k] = _parse_case(piece, pid, d1, d2)
    return results


def _run_all(
    exe: str,
    items: Sequence[tuple[int, tuple[str, int, int]]],
    *,
    workers: int,
    chunk: int,
    fresh_game: bool,
) -> dict[int, list[str] | _Fail]:
    batches = [items[i:i + chunk] for i in range(0, len(items), chunk)]
    results: dict[int, list[str] | _Fail] = {}
    if not batches:
        return results
    with ThreadPoolExecutor(max_workers=max(1, min(workers, len(batches)))) as pool:
        for part in pool.map(lambda b: _run_batch(exe, b, fresh_game), batches):
            results.update(part)
    return results


def gnubg_legal_plays(
    cases: Iterable[tuple[str, int, int]],
    *,
    workers: int = 2,
    chunk: int = 500,
    gnubg: str | None = None,
) -> list[list[str] | None]:
    """gnubg's 0-ply ``hint 9999`` move texts for each ``(position_id, die1, die2)``.

    The Position ID is that of the side on roll. Returns, in input order, the list of move
    texts (best first), ``[]`` when there is no legal play, or ``None`` when gnubg refuses the
    case (reason logged). Runs ``chunk`` cases per gnubg process, ``workers`` processes at a
    time (gnubg mostly sleeps, so more workers than cores still pay). Raises
    ``FileNotFoundError`` when gnubg is not installed.
    """
    if chunk < 1 or workers < 1:
        raise ValueError("chunk and workers must be >= 1")
    exe = gnubg or find_gnubg()
    if exe is None:
        raise FileNotFoundError("gnubg not found (/usr/games/gnubg or gnubg on PATH)")
    cases = list(cases)
    out: list[list[str] | None] = [None] * len(cases)
    todo: list[tuple[int, tuple[str, int, int]]] = []
    for k, case in enumerate(cases):
        why = _valid_case(case)
        if why is not None:
            log.warning("gnubg case %d not sent: %s", k, why)
        else:
            pid, d1, d2 = case
            todo.append((k, (pid, int(d1), int(d2))))

    first = _run_all(exe, todo, workers=workers, chunk=chunk, fresh_game=False)
    retry = [(k, c) for k, c in todo if isinstance(first[k], _Fail)]
    if retry:
        log.info("gnubg: retrying %d case(s) with a fresh game each", len(retry))
        second = _run_all(exe, retry, workers=workers, chunk=chunk, fresh_game=True)
        first.update(second)
    for k, case in todo:
        res = first[k]
        if isinstance(res, _Fail):
            log.warning("gnubg refused case %d %s %d-%d: %s", k, case[0], case[1], case[2], res.reason)
        else:
            out[k] = res
    return out


def _check_board(board: Sequence[Sequence[int]], pid: str) -> None:
    if len(board) != 2 or any(len(side) != 25 for side in board):
        raise ValueError(f"gnubg_nn decoded {pid!r} to a malformed board")
    opp, me = board
    if any(n < 0 for n in (*opp, *me)) or sum(opp) > 15 or sum(me) > 15:
        raise ValueError(f"invalid position ID {pid!r}: more than 15 checkers a side")
    for i in range(24):
        if me[i] and opp[23 - i]:
            raise ValueError(f"invalid position ID {pid!r}: both sides on point {i + 1}")


def gnubg_nn_legal_keys(pid: str, d1: int, d2: int) -> list[Board]:
    """Boards after each legal play according to PyPI gnubg_nn (one per distinct result).

    Each entry is ``(player, opponent)``: 25-int tuples in the ARCHITECTURE.md layout, seen from
    the side that just moved (``player``), ``opponent`` from its own side (a checker hit is on
    ``opponent[24]``). ``[]`` when no play is legal. gnubg_nn conventions, found empirically:
    ``board_from_position_id`` gives ``[opponent, on_roll]``; ``moves(board, d1, d2)`` gives
    position keys whose ``board_from_position_key`` is ``(opponent, mover)`` in the same order
    (not swapped for the next roller); ``moves(..., 1)`` adds ``((from, to), ...)`` steps
    with 25 = bar and 0 = off. Quirk: with the side on roll already having borne off all 15
    checkers, gnubg_nn lists one play (the unchanged position) where gnubg says there is none.
    Raises ``ValueError`` for an ID that does not decode to a legal position (gnubg_nn itself
    accepts any 14 base64 characters).
    """
    import gnubg_nn

    if not isinstance(pid, str) or not _PID_RE.match(pid):
        raise ValueError(f"not a 14-character Position ID: {pid!r}")
    board = gnubg_nn.board_from_position_id(pid)
    _check_board(board, pid)
    result: list[Board] = []
    for key in gnubg_nn.moves(board, d1, d2):
        opp, me = gnubg_nn.board_from_position_key(key)
        result.append((tuple(me), tuple(opp)))
    return result
