"""The value of a position: the five standard probabilities, as one frozen value object.

A neural evaluation (or a bear-off table look-up) gives, for the side on roll, the chance
to win (any way), to win a gammon or better, to win a backgammon, to lose a gammon or worse
and to lose a backgammon. Equity is always *derived* from them, never stored alone.

>>> p = Probabilities(0.6, 0.2, 0.05, 0.1, 0.01)
>>> round(p.equity, 4)
0.34
>>> p.flip()
Probabilities(win=0.4, win_gammon=0.1, win_backgammon=0.01, lose_gammon=0.2, lose_backgammon=0.05)
>>> round(p.flip().equity, 4)
-0.34
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..errors import BackgammonError

__all__ = ["Probabilities"]

_TOLERANCE = 1e-9


@dataclass(frozen=True, slots=True)
class Probabilities:
    """Outcome probabilities for the side on roll (cubeless, before it rolls).

    Invariants (checked on construction): every field is in ``[0, 1]``;
    ``win_backgammon <= win_gammon <= win`` and
    ``lose_backgammon <= lose_gammon <= 1 - win``.
    """

    win: float
    win_gammon: float
    win_backgammon: float
    lose_gammon: float
    lose_backgammon: float

    def __post_init__(self) -> None:
        w, wg, wb, lg, lb = self.as_tuple()
        ok = (
            all(-_TOLERANCE <= f <= 1.0 + _TOLERANCE for f in (w, wg, wb, lg, lb))
            and wb <= wg + _TOLERANCE
            and wg <= w + _TOLERANCE
            and lb <= lg + _TOLERANCE
            and lg <= 1.0 - w + _TOLERANCE
        )
        if not ok:
            raise BackgammonError(f"inconsistent probabilities {self.as_tuple()}")

    @classmethod
    def from_outputs(cls, outputs: Sequence[float]) -> Probabilities:
        """Build from raw network outputs ``(win, wg, wbg, lg, lbg)``, clipping them into a
        consistent set (gammons within wins, backgammons within gammons).

        >>> Probabilities.from_outputs([0.5, 0.7, 0.1, 0.6, 0.0])
        Probabilities(win=0.5, win_gammon=0.5, win_backgammon=0.1, lose_gammon=0.5, lose_backgammon=0.0)
        """
        w = min(max(float(outputs[0]), 0.0), 1.0)
        wg = min(max(float(outputs[1]), 0.0), w)
        wb = min(max(float(outputs[2]), 0.0), wg)
        lg = min(max(float(outputs[3]), 0.0), 1.0 - w)
        lb = min(max(float(outputs[4]), 0.0), lg)
        return cls(w, wg, wb, lg, lb)

    def as_tuple(self) -> tuple[float, float, float, float, float]:
        """``(win, win_gammon, win_backgammon, lose_gammon, lose_backgammon)``."""
        return (self.win, self.win_gammon, self.win_backgammon, self.lose_gammon,
                self.lose_backgammon)

    @property
    def lose(self) -> float:
        """The chance to lose: ``1 - win``."""
        return 1.0 - self.win

    @property
    def equity(self) -> float:
        """Cubeless money equity in points per game (between -3 and +3):
        ``2·win − 1 + wg − lg + wbg − lbg``."""
        return (2.0 * self.win - 1.0 + self.win_gammon - self.lose_gammon
                + self.win_backgammon - self.lose_backgammon)

    def flip(self) -> Probabilities:
        """The same outcome distribution seen by the other side."""
        return Probabilities(1.0 - self.win, self.lose_gammon, self.lose_backgammon,
                             self.win_gammon, self.win_backgammon)

    def __str__(self) -> str:
        return (f"win {self.win:.3f} (g {self.win_gammon:.3f}, bg {self.win_backgammon:.3f}) "
                f"lose g {self.lose_gammon:.3f} bg {self.lose_backgammon:.3f} "
                f"equity {self.equity:+.3f}")
