"""The compiled move-generation kernel: the one implementation of R3 and R8–R20.

Everything that needs legal plays — :meth:`backgammon.Position.legal_moves`, the bots, the
benchmarks — calls :func:`generate`. The kernel is written with numba and compiled once
per machine (``cache=True`` keeps the machine code beside this file or in numba's cache
directory), so a new process pays only for loading it.

Layout (see ``docs/ARCHITECTURE.md``): a position is 50 bytes, the player on roll's 25
slots then the opponent's 25 slots, each side from its own point of view (slot ``i`` is
point ``i + 1``, slot 24 the bar).

Output, one row per distinct resulting position (R12):

* ``boards[k]`` — the 50-byte key of the resulting position *as seen by the opponent*
  (who is on roll next): the opponent's slots first, then the mover's.
* ``steps[k]`` — up to four unit steps ``(from, to, hit)`` in the mover's numbering
  (25 = bar, 0 = off); unused steps have ``from == -1``. Steps are in the order played.
  ``hit`` marks the step that hit: the first to land on a blot, in the order played.

Search: a depth-first search over dice orders in which each step starts on a point no
higher than the step before. Any play that is legal in some order is also legal in that
order (the bar first, higher checkers first, so bearing off from the highest point and
"all checkers home" hold whenever they held in the original order), so the search misses
no resulting position while visiting far fewer duplicates. R11 is enforced by keeping only
plays that use the most dice, and for a single die the larger one when it can be played.
"""

from __future__ import annotations

from typing import Any

import numpy as np

try:  # numba is a hard dependency; the fallback only serves NUMBA_DISABLE_JIT-like tooling
    from numba import njit
except ImportError:  # pragma: no cover
    def njit(*args: Any, **kwargs: Any) -> Any:  # type: ignore[no-redef]
        if args and callable(args[0]):
            return args[0]
        return lambda f: f


#: Capacity of the result buffers: more than the largest number of distinct plays any
#: position has (gnubg sizes its list for 3,060).
MAX_PLAYS = 4096
_TABLE_BITS = 13
_TABLE_SIZE = 1 << _TABLE_BITS


@njit(cache=True, nogil=True)
def _highest(b: Any) -> int:
    """Highest point (25 = bar) holding one of the mover's checkers, 0 if none."""
    for p in range(25, 0, -1):
        if b[p] > 0:
            return p
    return 0


@njit(cache=True, nogil=True)
def _can_step(b: Any, o: Any, src: int, die: int) -> bool:
    """May the mover play ``die`` with a checker from ``src``? (R3, R8, R13, R15–R19)."""
    if b[src] == 0:
        return False
    if b[25] > 0 and src != 25:  # R13: enter first
        return False
    dst = src - die
    if dst >= 1:
        return bool(o[dst] < 2)  # R3 / R10
    # bearing off: R16 all home
    hi = _highest(b)
    if hi > 6:
        return False
    if dst == 0:  # R17
        return True
    return src == hi  # R18 / R19


@njit(cache=True, nogil=True)
def _record(b: Any, o: Any, path: Any, depth: int, die1: int, st: Any,
            boards: Any, steps: Any, dies: Any, table: Any) -> None:
    """Store the current position if it is new and uses at least as many dice as the best."""
    # st[0] = number stored, st[1] = most dice used so far, st[2] = table stamp
    if depth < st[1]:
        return
    if depth > st[1]:
        st[1] = depth
        st[0] = 0
        st[2] += 1
    # the resulting key, from the opponent's view: opponent slots, then mover slots
    h = np.uint64(1469598103934665603)
    row = st[0]
    if row >= boards.shape[0]:
        raise ValueError("too many plays for the result buffer")
    for q in range(1, 25):
        v = o[25 - q]
        boards[row, q - 1] = v
        h = (h ^ np.uint64(v)) * np.uint64(1099511628211)
    boards[row, 24] = o[25]
    h = (h ^ np.uint64(o[25])) * np.uint64(1099511628211)
    for p in range(1, 26):
        v = b[p]
        boards[row, 24 + p] = v
        h = (h ^ np.uint64(v + 16)) * np.uint64(1099511628211)
    mask = table.shape[0] - 1
    slot = int(h >> np.uint64(17)) & mask
    stamp = st[2]
    while table[slot, 0] == stamp:
        other = table[slot, 1]
        same = True
        for i in range(50):
            if boards[other, i] != boards[row, i]:
                same = False
                break
        if same:
            return
        slot = (slot + 1) & mask
    table[slot, 0] = stamp
    table[slot, 1] = row
    for i in range(12):
        steps[row, i] = -1
    for i in range(depth):
        steps[row, 3 * i] = path[3 * i]
        steps[row, 3 * i + 1] = path[3 * i + 1]
        steps[row, 3 * i + 2] = path[3 * i + 2]
    dies[row] = die1
    st[0] = row + 1


@njit(cache=True, nogil=True)
def _search(key: Any, b: Any, o: Any, seq: Any, nseq: int, st: Any, boards: Any, steps: Any,
            dies: Any, table: Any) -> None:
    """Depth-first search over the dice in ``seq`` (see the module docstring).

    Iterative (numba's on-disk cache does not survive recursive functions): ``cursor[d]``
    is the next point to try at depth ``d``; ``path`` holds the steps taken so far.
    """
    path = np.zeros(12, np.int64)
    cursor = np.zeros(5, np.int64)
    moved = np.zeros(5, np.bool_)
    depth = 0
    cursor[0] = 25
    while depth >= 0:
        die = seq[depth]
        src = cursor[depth]
        while src >= 1 and not _can_step(b, o, src, die):
            src -= 1
        if src >= 1:
            cursor[depth] = src - 1
            moved[depth] = True
            dst = src - die
            dst = max(dst, 0)
            hit = 0
            b[src] -= 1
            if dst == 0:
                b[0] += 1
            else:
                b[dst] += 1
                if o[dst] == 1:  # R10: hit the blot, it goes to the bar
                    hit = 1
                    o[dst] = 0
                    o[25] += 1
            path[3 * depth] = src
            path[3 * depth + 1] = dst
            path[3 * depth + 2] = hit
            if depth + 1 == nseq:
                _record(b, o, path, nseq, seq[0], st, boards, steps, dies, table)
                _undo(b, o, path, depth)
            else:
                depth += 1
                cursor[depth] = src  # later steps start no higher (see module docstring)
                moved[depth] = False
        else:
            if not moved[depth] and depth > 0:
                _record(b, o, path, depth, seq[0], st, boards, steps, dies, table)
            depth -= 1
            if depth >= 0:
                _undo(b, o, path, depth)


@njit(cache=True, nogil=True)
def _undo(b: Any, o: Any, path: Any, depth: int) -> None:
    """Take back step ``depth`` of ``path``."""
    src = path[3 * depth]
    dst = path[3 * depth + 1]
    if path[3 * depth + 2]:
        o[dst] = 1
        o[25] -= 1
    if dst == 0:
        b[0] -= 1
    else:
        b[dst] -= 1
    b[src] += 1


@njit(cache=True, nogil=True)
def generate(key: Any, d1: int, d2: int, boards: Any, steps: Any, dies: Any,
             table: Any, st: Any) -> int:
    """Fill ``boards``/``steps`` with every legal play of ``(d1, d2)``; return how many.

    ``table`` (``int64[_TABLE_SIZE, 2]``) and ``st`` (``int64[3]``) are scratch that the
    caller keeps between calls; ``st[2]`` is a stamp that makes clearing the hash table free.
    """
    b = np.zeros(26, np.int64)  # mover: 1..24 points, 25 bar, 0 borne off
    o = np.zeros(26, np.int64)  # opponent on the mover's points 1..24, 25 = opponent's bar
    total = 0
    for p in range(1, 26):
        b[p] = key[p - 1]
        total += key[p - 1]
    b[0] = 15 - total
    for q in range(1, 25):
        o[25 - q] = key[25 + q - 1]
    o[25] = key[49]
    st[0] = 0
    st[1] = 1  # a play must use at least one die
    st[2] += 1
    if d1 == d2:
        seq = np.full(4, d1, np.int64)
        _search(key, b, o, seq, 4, st, boards, steps, dies, table)
    else:
        seq = np.empty(2, np.int64)
        seq[0] = d1
        seq[1] = d2
        _search(key, b, o, seq, 2, st, boards, steps, dies, table)
        seq[0] = d2
        seq[1] = d1
        _search(key, b, o, seq, 2, st, boards, steps, dies, table)
    n = st[0]
    if st[1] == 1 and d1 != d2 and n > 0:
        # R11: only one die can be played; play the larger one if it can be
        big = max(d1, d2)
        has_big = False
        for k in range(n):
            if dies[k] == big:
                has_big = True
                break
        if has_big:
            m = 0
            for k in range(n):
                if dies[k] == big:
                    if m != k:
                        boards[m, :] = boards[k, :]
                        steps[m, :] = steps[k, :]
                        dies[m] = dies[k]
                    m += 1
            n = m
    return int(n)


def scratch() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fresh scratch buffers for :func:`generate` (one set per thread)."""
    return (
        np.zeros((MAX_PLAYS, 50), np.uint8),
        np.zeros((MAX_PLAYS, 12), np.int8),
        np.zeros(MAX_PLAYS, np.int8),
        np.zeros((_TABLE_SIZE, 2), np.int64),
        np.zeros(3, np.int64),
    )
