"""backgammon: exact rules, notations, games and matches for backgammon.

>>> import backgammon
>>> pos = backgammon.Position.initial()
>>> [str(m) for m in pos.legal_moves((6, 5))][:3]
['24/13', '24/18 13/8', '24/18 8/3']
"""

from __future__ import annotations

from .chouette import Chouette
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
    "BAR",
    "OFF",
    "XGID",
    "Action",
    "AmbiguousMoveError",
    "BackgammonError",
    "Dice",
    "DiceExhaustedError",
    "DiceSource",
    "Game",
    "GameResult",
    "IllegalActionError",
    "IllegalMoveError",
    "InvalidIdError",
    "InvalidMoveError",
    "InvalidPositionError",
    "LegalMoves",
    "Match",
    "MatchState",
    "Move",
    "Phase",
    "Position",
    "ResultKind",
    "Rules",
    "ScriptedDice",
    "SecureDice",
    "SeededDice",
    "Step",
    "__version__",
    "parse_dice",
]
