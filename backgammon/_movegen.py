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
The plays come out in the order of that search (the same order as ever: tests and
views rely on it).

Two entry points share one compiled body (:func:`_generate`): :func:`generate`, the
signature the engine's numba kernels call, and :func:`generate_rows`, one buffer in and
one row of ``ROW`` bytes a play out, for :meth:`backgammon.Position.legal_moves` (through
:func:`api_entry`, which skips numba's argument dispatch).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

try:  # numba is a hard dependency; the fallback only serves NUMBA_DISABLE_JIT-like tooling
    from numba import njit
except ImportError:  # pragma: no cover
    def njit(*args: Any, **kwargs: Any) -> Any:  # type: ignore[no-redef]
        if args and callable(args[0]):
            return args[0]
        return lambda f: f

try:  # one instruction where numba has it (an internal module, so there is a fallback)
    from numba.cpython.unsafe.numbers import leading_zeros

    _clz: Any = leading_zeros
except ImportError:  # pragma: no cover
    @njit(cache=True, nogil=True)
    def _clz(x: Any) -> int:
        n = 64
        while x:
            x >>= np.uint64(1)
            n -= 1
        return n


#: Capacity of the result buffers: more than the largest number of distinct plays any
#: position has (gnubg sizes its list for 3,060).
MAX_PLAYS = 4096
_TABLE_BITS = 13
_TABLE_SIZE = 1 << _TABLE_BITS
#: Width of a row of :func:`generate_rows`: the 50-byte key, the 12 step bytes, the die.
ROW = 64

#: Random weights of the hash of a play's change: ``_R[p]`` a mover's checker on point
#: ``p`` (1–24, 25 the bar; ``_R[0] = 0``: borne off is not in the key), ``_R[26 + q]`` an
#: opponent's checker on the mover's point ``q`` (51 the opponent's bar). Fixed seed, so
#: the compiled constants never change.
_R = np.random.default_rng(20240614).integers(0, 2**63, 52, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
_R[0] = 0
#: The flat scratch table (``table.reshape(-1)``, ``2 * _TABLE_SIZE`` int64): hash slots
#: below ``_HASHES``, the hash of each row from ``_HASHES``, then the search's work arrays.
_HASHES = _TABLE_SIZE
_WORK = _HASHES + MAX_PLAYS
#: One buffer holds everything :func:`generate_rows` needs: the rows, then the table.
BUFFER_BYTES = MAX_PLAYS * ROW + _TABLE_SIZE * 16


@njit(cache=True, nogil=True)
def _top(m: int) -> int:
    """The highest set bit of ``m > 0``."""
    return 63 - int(_clz(np.uint64(m)))


@njit(cache=True, nogil=True)
def _grow(t: Any, mask: int, n: int) -> int:
    """Double the hash table ``t[:mask + 1]`` and re-insert the ``n`` rows; return the new mask."""
    mask = 2 * mask + 1
    for i in range(mask + 1):
        t[i] = 0
    for k in range(n):
        hk = t[_HASHES + k]
        slot = hk & mask
        while t[slot] != 0:
            slot = (slot + 1) & mask
        t[slot] = ((hk >> 25) << 13) | (k + 1)
    return mask


@njit(cache=True, nogil=True)
def _generate(key: Any, d1: int, d2: int, boards: Any, steps: Any, so: int, dies: Any, do: int,
              t: Any) -> int:
    """The generator (see :func:`generate`); ``t`` is the flat scratch table.

    Play ``k``'s steps go to ``steps[k, so:so + 12]`` and its first die to ``dies[k, do]``
    (all three may be one C-contiguous array: the row layout of :func:`generate_rows`).

    Points are also kept as bit masks: ``occ`` (the mover's occupied points, 25 the bar)
    and ``blocked`` (the opponent's points of two or more, which no play changes: a hit
    only opens a blot), so the next checker a die can move is the top bit of a few ANDs.

    Dedup (R12): ``h`` is a hash of the change made so far (a random weight per checker
    moved, kept step by step), so two plays reach the same position exactly when their
    changes are equal; ``t[:mask + 1]`` is an open-addressing table (0 empty, else the
    hash's high bits and row + 1; it starts at 64 slots, hot in cache, and doubles at half
    full) and ``t[_HASHES + k]`` row ``k``'s hash. Equal hashes are confirmed by
    comparing the positions. One function with no calls on the hot path: numba's calls
    between compiled functions cost reference counting on every array argument.
    """
    b = t[_WORK:_WORK + 26]  # mover: 1..24 points, 25 bar, 0 borne off
    o = t[_WORK + 26:_WORK + 52]  # opponent on the mover's points 1..24, 25 = its bar
    w = t[_WORK + 52:_WORK + 72]  # per depth: cursor, moved, from, to, hit
    cap = min(boards.shape[0] - 1, MAX_PLAYS)
    base = boards[cap]  # the start, from the opponent's view (the last row is spare)
    total = 0
    outside = 0  # mover's checkers outside the home board (R16)
    occ = 0
    for p in range(1, 26):
        c = int(key[p - 1])
        b[p] = c
        total += c
        if c > 0:
            occ |= 1 << p
            if p > 6:
                outside += c
    b[0] = 15 - total
    blocked = 0
    for q in range(1, 25):
        c = int(key[24 + q])
        o[25 - q] = c
        if c >= 2:
            blocked |= 1 << (25 - q)
    o[25] = key[49]
    for i in range(25):
        base[i] = key[25 + i]
        base[25 + i] = key[i]
    mask = 63
    for i in range(mask + 1):
        t[i] = 0
    n = 0
    best = 1  # a play must use at least one die
    h = np.uint64(0)
    nseq = 4 if d1 == d2 else 2
    for order in range(1 if d1 == d2 else 2):
        da = d1 if order == 0 else d2
        db = d2 if order == 0 else d1
        depth = 0
        w[0] = 25  # cursor of depth 0: the highest point still to try
        w[4] = 0  # whether depth 0 moved a checker
        while True:
            die = da if depth == 0 else db
            cur = w[depth]
            src = 0
            dst = 0
            if cur > 0:
                lim = (2 << cur) - 1  # points up to the cursor
                if b[25] > 0:  # R13: enter first
                    lim &= 1 << 25
                # R3: a point to land on not blocked, and above the die (not bearing off)
                m = occ & lim & ~(blocked << die) & ~((2 << die) - 1)
                if m != 0:
                    src = _top(m)
                    dst = src - die
                elif outside == 0 and occ != 0:  # R16: all home, bearing off
                    if die <= cur and (occ >> die) & 1:  # R17: the exact point
                        src = die
                    else:
                        hi = _top(occ)  # R18 / R19: a larger die from the highest point
                        if hi < die and hi <= cur:
                            src = hi
            found = src > 0
            rec = 0
            if found:
                w[depth] = src - 1
                w[4 + depth] = 1
                hit = 0
                b[src] -= 1
                if b[src] == 0:
                    occ &= ~(1 << src)
                b[dst] += 1
                if dst > 0:
                    occ |= 1 << dst
                h += _R[dst] - _R[src]
                if src > 6 and dst <= 6:
                    outside -= 1
                if dst > 0 and o[dst] == 1:  # R10: hit the blot, it goes to the bar
                    hit = 1
                    o[dst] = 0
                    o[25] += 1
                    h += _R[51] - _R[26 + dst]
                w[8 + depth] = src
                w[12 + depth] = dst
                w[16 + depth] = hit
                if depth + 1 < nseq:
                    depth += 1
                    w[depth] = src  # later steps start no higher (module docstring)
                    w[4 + depth] = 0
                    continue
                rec = nseq
            elif w[4 + depth] == 0 and depth > 0:
                rec = depth  # no die left to play from here: a play of ``depth`` dice
            if rec >= best and rec > 0:
                if rec > best:  # R11: plays must use as many dice as possible
                    best = rec
                    n = 0
                    for i in range(mask + 1):
                        t[i] = 0
                hs = np.int64(h)
                slot = hs & mask
                tag = hs >> 25
                new = True
                while t[slot] != 0:
                    e = t[slot]
                    if (e >> 13) == tag:  # same hash: compare the positions themselves
                        k = (e & 8191) - 1
                        same = boards[k, 24] == o[25]
                        if same:
                            for p in range(1, 26):
                                if boards[k, 24 + p] != b[p]:
                                    same = False
                                    break
                        if same:
                            for q in range(1, 25):
                                if boards[k, q - 1] != o[25 - q]:
                                    same = False
                                    break
                        if same:
                            new = False
                            break
                    slot = (slot + 1) & mask
                if new:
                    if n >= cap:
                        raise ValueError("too many plays for the result buffer")
                    t[slot] = (tag << 13) | (n + 1)
                    t[_HASHES + n] = hs
                    # the resulting key, from the opponent's view: the start's, changed
                    for i in range(50):
                        boards[n, i] = base[i]
                    for i in range(rec):
                        s = w[8 + i]
                        d = w[12 + i]
                        boards[n, 24 + s] = b[s]
                        steps[n, so + 3 * i] = s
                        steps[n, so + 3 * i + 1] = d
                        steps[n, so + 3 * i + 2] = w[16 + i]
                        if d > 0:
                            boards[n, 24 + d] = b[d]
                            if w[16 + i]:
                                boards[n, 24 - d] = 0
                    boards[n, 24] = o[25]
                    for i in range(3 * rec, 12):
                        steps[n, so + i] = -1
                    dies[n, do] = da
                    n += 1
                    if 2 * n > mask:
                        mask = _grow(t, mask, n)
            if not found:
                depth -= 1
                if depth < 0:
                    break
            # take back step ``depth``
            src = w[8 + depth]
            dst = w[12 + depth]
            if w[16 + depth]:
                o[dst] = 1
                o[25] -= 1
                h -= _R[51] - _R[26 + dst]
            b[dst] -= 1
            if dst > 0 and b[dst] == 0:
                occ &= ~(1 << dst)
            b[src] += 1
            occ |= 1 << src
            h -= _R[dst] - _R[src]
            if src > 6 and dst <= 6:
                outside += 1
    t[_WORK + 72] = best
    if best == 1 and d1 != d2 and n > 0:
        # R11: only one die can be played; play the larger one if it can be
        big = max(d1, d2)
        has_big = False
        for k in range(n):
            if dies[k, do] == big:
                has_big = True
                break
        if has_big:
            m = 0
            for k in range(n):
                if dies[k, do] == big:
                    if m != k:
                        for i in range(50):
                            boards[m, i] = boards[k, i]
                        for i in range(so, so + 12):
                            steps[m, i] = steps[k, i]
                        dies[m, do] = dies[k, do]
                    m += 1
            n = m
    return n


@njit(cache=True, nogil=True)
def generate(key: Any, d1: int, d2: int, boards: Any, steps: Any, dies: Any,
             table: Any, st: Any) -> int:
    """Fill ``boards``/``steps`` with every legal play of ``(d1, d2)``; return how many.

    ``key`` is the position's 50-byte key (``uint8`` array or ``bytes``). ``boards`` has
    room for ``MAX_PLAYS`` rows (its last row is scratch). ``table``
    (``int64[_TABLE_SIZE, 2]``) and ``st`` (``int64[3]``) are scratch that the caller keeps
    (``st`` ends with the number of plays and the number of dice they use). ``dies[k]`` is
    the die play ``k`` starts with.
    """
    t = table.reshape(table.size)
    n = _generate(key, d1, d2, boards, steps, 0, dies.reshape((dies.size, 1)), 0, t)
    st[0] = n
    st[1] = t[_WORK + 72]
    return n


@njit(cache=True, nogil=True)
def generate_rows(key: Any, d1: int, d2: int, buf: Any) -> int:
    """:func:`generate` into one ``uint8[BUFFER_BYTES]`` buffer, for the Python API.

    The buffer starts with ``MAX_PLAYS`` rows of ``ROW`` bytes: bytes 0–49 the resulting
    key, 50–61 the steps (255 where ``generate`` has ``-1``), 62 the die played first; the
    scratch table follows. One buffer means one argument to pass and one copy out per call.
    """
    rows = buf[:MAX_PLAYS * ROW].reshape((MAX_PLAYS, ROW))
    t = buf[MAX_PLAYS * ROW:].view(np.int64)
    return _generate(key, d1, d2, rows, rows, 50, rows, 62, t)


def scratch() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Fresh scratch buffers for :func:`generate` (one set per thread)."""
    return (
        np.zeros((MAX_PLAYS, 50), np.uint8),
        np.zeros((MAX_PLAYS, 12), np.int8),
        np.zeros(MAX_PLAYS, np.int8),
        np.zeros((_TABLE_SIZE, 2), np.int64),
        np.zeros(3, np.int64),
    )


def scratch_rows() -> np.ndarray:
    """A fresh buffer for :func:`generate_rows` (one per thread), 8-byte aligned."""
    return np.zeros(BUFFER_BYTES // 8, np.int64).view(np.uint8)

def api_entry(buf: np.ndarray) -> Callable[..., int]:
    """:func:`generate_rows` for a ``bytes`` key and a buffer like ``buf``, minus numba's dispatch.

    The dispatcher works out the argument types on every call (a large part of a typical
    call); the compiled entry point for one signature does not. Falls back to the
    dispatcher itself where numba does not expose it.

    >>> buf = scratch_rows()
    >>> api_entry(buf)(bytes([0, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, 0, 5] + [0] * 10 + [2, 0]) * 2,
    ...                3, 1, buf)
    16
    """
    key = bytes(50)
    generate_rows(key, 1, 1, buf)  # compiles or loads the cached machine code
    try:
        import numba

        nb: Any = numba
        kernel: Any = generate_rows
        sig = tuple(nb.typeof(a) for a in (key, 1, 1, buf))
        entry: Callable[..., int] = kernel.overloads[sig].entry_point
    except (ImportError, AttributeError, KeyError):  # pragma: no cover - numba internals moved
        return generate_rows
    return entry
