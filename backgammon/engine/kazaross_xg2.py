"""The Kazaross-XG2 match equity table (25 points), as data.

Source: the file ``met/Kazaross-XG2.xml`` distributed with GNU Backgammon, whose notice
reads::

     Kazaross-XG2.xml

     Table rolled up to 9 point match. Then uses R/K MET
     which was rolled up to 15 and extrapolated to  25 points
     by Neil Kazaross 2011.

     This file is distributed as a part of the GNU Backgammon program.

     Copying and distribution of verbatim and modified versions of this file
     is permitted in any medium provided the copyright notice and this
     permission notice are preserved.

Its description: "Generated using XG rollouts to 9pts, GNUBG Supremo full rollouts to 15
points. Extended to 25pts by projecting take points." Background: Tom Keith, "The
Kazaross-XG2 Match Equity Table" (bkgm.com, 2013). Only the numbers are used here (this
module is a modified version of that file: the same values, as rows of numbers in
kazaross_xg2.txt beside it, which carries the notice too).

* ``PRE_CRAWFORD[i][j]``: match winning chance at the start of a game for the player
  ``i + 1``-away against ``j + 1``-away, before the Crawford game — a row or column of
  1-away is the Crawford game;
* ``POST_CRAWFORD[j]``: the trailer's chance, ``j + 1``-away against 1-away, in a game after
  the Crawford game.

>>> PRE_CRAWFORD[1][2]  # 2-away v 3-away
0.59947
>>> POST_CRAWFORD[1]  # 2-away v 1-away, post-Crawford
0.48803
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["LENGTH", "POST_CRAWFORD", "PRE_CRAWFORD"]

#: The table's size: scores up to 25-away.
LENGTH = 25

def _read() -> tuple[tuple[tuple[float, ...], ...], tuple[float, ...]]:
    """The two tables from ``kazaross_xg2.txt`` beside this module (rows of numbers, comment
    lines starting with ``#``): 25 pre-Crawford rows, then the post-Crawford row."""
    text = (Path(__file__).parent / "kazaross_xg2.txt").read_text(encoding="utf-8")
    rows = [tuple(float(x) for x in line.split()) for line in text.splitlines() if line and line[0] != "#"]
    if len(rows) != LENGTH + 1 or any(len(row) != LENGTH for row in rows):
        raise RuntimeError("kazaross_xg2.txt is damaged: expected 26 rows of 25 numbers")
    return tuple(rows[:LENGTH]), rows[LENGTH]


PRE_CRAWFORD, POST_CRAWFORD = _read()
