"""Exact one-sided bear-off tables, computed by the project (numba) and cached on disk.

Every position of up to 15 checkers on one side's home board (points 1–6) — C(21, 6) =
54,264 of them — gets two distributions over the number of rolls ``r = 0..31``:

* ``off[i, r]``: the chance to bear off *all* checkers in exactly ``r`` rolls, playing each
  roll to minimise the expected number of rolls (the last bin also holds the tiny tail);
* ``first[i, r]``: for positions with all 15 checkers on the board, the chance to bear off
  the *first* checker in exactly ``r`` rolls, playing to minimise the expected number of
  rolls to that (used for gammon chances); ``first[i, 0] = 1`` when a checker is already off.

A two-sided bear-off position (no contact, every checker of both sides home) is then
evaluated exactly for the side on roll (:func:`bearoff_outputs`): it wins when it finishes in
``n`` rolls and the other side has not finished in ``n − 1``.

The table takes a few seconds to compute; it is computed on first use and cached as
``bearoff-v1.npz`` (float32, 2.4 MB compressed) in the user cache directory (``$XDG_CACHE_HOME`` or
``~/.cache``, ``backgammon/``; ``BACKGAMMON_CACHE`` overrides the folder).

>>> tab = table()
>>> float(tab.off[index_of([1, 0, 0, 0, 0, 0]), 1])
1.0
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from .._movegen import MAX_PLAYS, generate
from ._kernels import BEAROFF_ROLLS, bearoff_eval, njit
from ._kernels import rank6 as _rank

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["BearoffTable", "N_POSITIONS", "N_ROLLS", "bearoff_outputs", "index_of", "table"]

#: One-sided positions: up to 15 checkers on 6 points.
N_POSITIONS = 54264
#: Length of the roll distributions.
N_ROLLS = BEAROFF_ROLLS
_VERSION = 1


def _binomials() -> NDArray[np.int64]:
    """``comp[k, s]``: compositions of ``s`` into ``k`` non-negative parts."""
    comp = np.zeros((8, 16), np.int64)
    for s in range(16):
        comp[1, s] = 1
    for k in range(2, 8):
        for s in range(16):
            comp[k, s] = comp[k - 1, : s + 1].sum()
    return comp


_COMP = _binomials()


@njit(cache=True, nogil=True)
def _unrank_all(comp: Any, out: Any) -> None:
    """``out[rank]`` = the 6 counts of every board (enumerates in rank order)."""
    c = np.zeros(6, np.int64)
    n = 0
    # odometer over c[0..5] with sum <= 15, lexicographic (c[0] slowest)
    while True:
        out[n, :] = c
        n += 1
        # increment: the last digit that can grow, zero those after it
        total = 0
        for i in range(6):
            total += c[i]
        i = 5
        while i >= 0:
            if total < 15:
                c[i] += 1
                break
            total -= c[i]
            c[i] = 0
            i -= 1
        if i < 0:
            break


@njit(cache=True, nogil=True)
def _compute(boards6: Any, order: Any, comp: Any, off: Any, first: Any) -> None:
    """Fill ``off`` and ``first`` (``float64[N, N_ROLLS]``) by dynamic programming over the
    boards in increasing pip order."""
    n_pos = boards6.shape[0]
    mean_off = np.zeros(n_pos)
    mean_first = np.zeros(n_pos)
    key = np.zeros(50, np.uint8)
    boards = np.zeros((MAX_PLAYS, 50), np.uint8)
    steps = np.zeros((MAX_PLAYS, 12), np.int8)
    dies = np.zeros(MAX_PLAYS, np.int8)
    table = np.zeros((8192, 2), np.int64)
    st = np.zeros(3, np.int64)
    c = np.zeros(6, np.int64)
    for oi in range(n_pos):
        idx = order[oi]
        total = 0
        for i in range(6):
            total += boards6[idx, i]
        if total == 0:
            off[idx, 0] = 1.0
            first[idx, 0] = 1.0
            continue
        if total < 15:
            first[idx, 0] = 1.0
        for i in range(50):
            key[i] = 0
        for i in range(6):
            key[i] = boards6[idx, i]
        for d1 in range(1, 7):
            for d2 in range(d1, 7):
                w = (1.0 if d1 == d2 else 2.0) / 36.0
                n = generate(key, d1, d2, boards, steps, dies, table, st)
                best_off = -1
                best_off_m = 1e9
                best_first = -1
                best_first_m = 1e9
                for k in range(n):
                    for i in range(6):
                        c[i] = boards[k, 25 + i]
                    r = _rank(c, comp)
                    if mean_off[r] < best_off_m:
                        best_off_m = mean_off[r]
                        best_off = r
                    if total == 15:
                        if mean_first[r] < best_first_m:
                            best_first_m = mean_first[r]
                            best_first = r
                for rr in range(N_ROLLS - 1):
                    off[idx, rr + 1] += w * off[best_off, rr]
                off[idx, N_ROLLS - 1] += w * off[best_off, N_ROLLS - 1]
                if total == 15:
                    for rr in range(N_ROLLS - 1):
                        first[idx, rr + 1] += w * first[best_first, rr]
                    first[idx, N_ROLLS - 1] += w * first[best_first, N_ROLLS - 1]
        m = 0.0
        mf = 0.0
        for rr in range(N_ROLLS):
            m += rr * off[idx, rr]
            mf += rr * first[idx, rr]
        mean_off[idx] = m
        mean_first[idx] = mf


class BearoffTable(NamedTuple):
    """The two one-sided distributions (see the module docstring), ``float32[N, 32]``."""

    off: NDArray[np.float32]
    first: NDArray[np.float32]


def compute() -> BearoffTable:
    """Compute the tables from scratch (a few seconds)."""
    boards6 = np.zeros((N_POSITIONS, 6), np.int64)
    _unrank_all(_COMP, boards6)
    pips = boards6 @ np.arange(1, 7)
    order = np.argsort(pips, kind="stable")
    off = np.zeros((N_POSITIONS, N_ROLLS))
    first = np.zeros((N_POSITIONS, N_ROLLS))
    _compute(boards6, order, _COMP, off, first)
    return BearoffTable(off.astype(np.float32), first.astype(np.float32))


def cache_dir() -> Path:
    """Where the table is cached: ``$BACKGAMMON_CACHE``, else ``$XDG_CACHE_HOME/backgammon``
    (``~/.cache/backgammon``)."""
    env = os.environ.get("BACKGAMMON_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "backgammon"


_lock = threading.Lock()
_table: BearoffTable | None = None


def kernel_args(use: bool = True) -> tuple[NDArray[np.int64], NDArray[np.float32],
                                           NDArray[np.float32]]:
    """``(comp, off, first)`` as the kernels take them; with ``use`` false, stand-ins of
    the same types (for kernels told not to use the tables: nothing is loaded)."""
    if not use:
        empty = np.zeros((1, N_ROLLS), np.float32)
        return _COMP, empty, empty.copy()
    tab = table()
    return _COMP, tab.off, tab.first


def table() -> BearoffTable:
    """The tables: from memory, else from the cache file, else computed (and cached)."""
    global _table
    with _lock:
        if _table is not None:
            return _table
        path = cache_dir() / f"bearoff-v{_VERSION}.npz"
        tab: BearoffTable | None = None
        try:
            with np.load(path) as d:
                tab = BearoffTable(d["off"], d["first"])
            if tab.off.shape != (N_POSITIONS, N_ROLLS):
                tab = None
        except (OSError, KeyError, ValueError):
            tab = None
        if tab is None:
            tab = compute()
            try:
                path.parent.mkdir(parents=True, exist_ok=True)
                tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
                with open(tmp, "wb") as f:
                    np.savez_compressed(f, off=tab.off, first=tab.first)
                os.replace(tmp, path)
            except OSError:  # pragma: no cover - read-only home: keep it in memory only
                pass
        _table = tab
        return tab


def index_of(home: Sequence[int]) -> int:
    """Index of a one-sided home board (checkers on points 1..6, at most 15 in all).

    >>> index_of([0, 0, 0, 0, 0, 0]), index_of([0, 0, 0, 0, 0, 1])
    (0, 1)
    """
    c = np.array(list(home)[:6], np.int64)
    if c.shape != (6,) or c.min() < 0 or c.sum() > 15:
        raise ValueError(f"not a home board: {list(home)}")
    return int(_rank(c, _COMP))


@njit(cache=True, nogil=True)
def _two_sided(boards: Any, rows: Any, comp: Any, off: Any, first: Any, out: Any) -> None:
    """Exact outputs for the bear-off rows ``rows`` of ``boards`` into ``out[rows]``."""
    for t in range(rows.shape[0]):
        r = rows[t]
        bearoff_eval(boards[r], comp, off, first, out[r])


def bearoff_outputs(boards: NDArray[np.uint8], rows: NDArray[np.int64],
                    out: NDArray[np.float64]) -> None:
    """Write the exact outputs (win, wg, wbg, lg, lbg for the side on roll) of the bear-off
    positions ``boards[rows]`` into ``out[rows]``."""
    tab = table()
    _two_sided(boards, rows, _COMP, tab.off, tab.first, out)
