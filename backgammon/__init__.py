"""backgammon: exact rules, notations, games and matches for backgammon.

>>> import backgammon
>>> pos = backgammon.Position.initial()
>>> [str(m) for m in pos.legal_moves((6, 5))][:3]
['24/13', '24/18 13/8', '24/18 8/3']
"""

from __future__ import annotations

from .errors import (
    AmbiguousMoveError,
    BackgammonError,
    IllegalActionError,
    IllegalMoveError,
    InvalidIdError,
    InvalidMoveError,
    InvalidPositionError,
)
from .move import BAR, OFF, Move, Step
from .position import Dice, LegalMoves, Position

__version__ = "0.1.0"

__all__ = [
    "AmbiguousMoveError",
    "BackgammonError",
    "IllegalActionError",
    "IllegalMoveError",
    "InvalidIdError",
    "InvalidMoveError",
    "InvalidPositionError",
    "BAR",
    "OFF",
    "Move",
    "Step",
    "Dice",
    "LegalMoves",
    "Position",
    "__version__",
]
