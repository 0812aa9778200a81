"""backgammon: exact rules, notations, games and matches for backgammon.

>>> import backgammon
>>> pos = backgammon.Position.initial()
>>> [str(m) for m in pos.legal_moves((6, 5))][:3]
['24/13', '24/18 13/8', '24/18 8/3']
"""

from __future__ import annotations

from .dice import DiceSource, ScriptedDice, SecureDice, SeededDice, parse_dice
from .errors import (
    AmbiguousMoveError,
    BackgammonError,
    DiceExhaustedError,
    IllegalActionError,
    IllegalMoveError,
    InvalidIdError,
    InvalidMoveError,
    InvalidPositionError,
)
from .events import GameResult, ResultKind
from .game import Action, Game, Phase
from .match import Match
from .matchid import MatchState
from .move import BAR, OFF, Move, Step
from .position import Dice, LegalMoves, Position
from .rules import Rules
from .xgid import XGID

__version__ = "0.1.0"

__all__ = [
    "Action",
    "DiceExhaustedError",
    "DiceSource",
    "Game",
    "GameResult",
    "Match",
    "MatchState",
    "Phase",
    "ResultKind",
    "Rules",
    "ScriptedDice",
    "SecureDice",
    "SeededDice",
    "XGID",
    "parse_dice",
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
