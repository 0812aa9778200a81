"""The analysis of a whole match: every decision of both players judged, the luck of each
roll, error rates and ratings per player (:func:`analyse_match`).

The match log is replayed through the rules (:class:`~backgammon.match.Match`), and at each
decision the engine looks at what the player did against the best it finds:

* **checker play** — every legal play at 0 ply, the best few (at most 8 within 0.16 of the
  best, gnubg's analysis filter) again at 1 ply, and with ``plies=2`` the best of those (at
  most 3 within 0.06, the ``grandmaster`` bot's filter) at 2 ply; the play made is always
  looked at ``plies`` deep too, so its error is measured at the same depth as the best;
* **the cube** — before each roll where the player on roll may double, and at each double:
  no double, double/take and double/pass (:func:`~backgammon.bots.neural.cube_decision`,
  the engine's one cube computation) from the position's probabilities at ``plies``;
* **the answer** to a double — take, pass (or beaver, money with beavers) against the same
  three values;
* **luck** — for every roll, the value after the best play of the roll made minus the
  average over the 21 rolls (0 ply, the best play of each roll by cubeless equity, as the
  ``expert`` bot picks it), from the roller's side. The opening roll is measured against its
  30 equally likely outcomes (either player wins it with each of the 15 non-double rolls).

**Values.** A play's value is the mover's cubeful value of the position after it, where the
opponent is on roll: the opponent's best cube action (no double, or double and the proper
answer) on the probabilities of that position, turned to the mover's side. In money play the
unit is Janowski's cubeful equity (:mod:`backgammon.engine.cube`), normalised to a cube of
1 (the Jacoby rule and the cube's owner as they stand; a cube at its limit is dead); in a
match it is the match winning chances on the Kazaross-XG2 table (:mod:`backgammon.engine.met`,
Crawford and post-Crawford games as the score says), converted to EMG (equivalent money
game: a single win of the cube's value is +1, a single loss −1) so that errors of both are
in one unit. Every error is the EMG given away against the best, >= 0.

**Counting** (as gnubg's statistics do): a forced play (at most one legal play) has no
error and is not an unforced decision; a cube decision where the player did not double is
listed and counted only when it is close (doubling within :data:`CLOSE_CUBE` of the best)
or when not doubling was wrong; every double and every answer to one counts. The error
rate is in mEMG (thousandths of EMG) per unforced decision; PR is eXtreme Gammon's (500
times the mean error per unforced decision); the rating is gnubg's for the error per
unforced decision.

>>> from backgammon.dice import ScriptedDice
>>> m = Match(1, dice=ScriptedDice([(3, 1), (6, 4)]))
>>> m.game.roll(); m.game.play("24/21 21/20")       # a poor 3-1: 8/5 6/5 is the play
>>> a = analyse_match(m, plies=0)
>>> d = a.decisions[0]
>>> d.kind, d.action, d.best, d.error > 0.08, d.label
('play', '24/20', '8/5 6/5', True, 'bad')
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import TYPE_CHECKING, Any, cast

import numpy as np

from ..dice import ROLLS
from ..errors import BackgammonError
from ..events import (Beaver, Double, Forfeit, GameEvent, GameStart, OpeningRoll, Pass, Play,
                      Roll, SetUp, Take)
from ..game import Phase
from ..match import Match
from ..matchid import MatchState
from ..position import Position
from ..engine.cube import CubeDecision, CubeOwner, money_decision
from ..engine.met import DEFAULT_MET
from ..engine.probabilities import Probabilities

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from ..engine.evaluator import Evaluator
    from ..rules import Rules

__all__ = [
    "CLOSE_CUBE",
    "FILTERS",
    "LABELS",
    "RATINGS",
    "AnalysisError",
    "Candidate",
    "CheckerStats",
    "CubeStats",
    "CubeValues",
    "Decision",
    "GameSummary",
    "MatchAnalysis",
    "PlayerStats",
    "analyse_match",
    "label_of",
    "rating_of",
]

#: gnubg's thresholds (EMG given away) of a "very bad", "bad" and "doubtful" decision.
LABELS: tuple[tuple[float, str], ...] = ((0.16, "very bad"), (0.08, "bad"), (0.04, "doubtful"))
#: gnubg's ratings: the first whose bound the error per unforced decision (EMG) is below.
RATINGS: tuple[tuple[float, str], ...] = (
    (0.002, "Supernatural"),
    (0.005, "World class"),
    (0.008, "Expert"),
    (0.012, "Advanced"),
    (0.018, "Intermediate"),
    (0.026, "Casual player"),
    (0.035, "Beginner"),
    (math.inf, "Awful!"),
)
#: A cube decision without a double counts when doubling is within this (EMG) of the best.
CLOSE_CUBE = 0.16
#: The move filter: at 0 ply keep at most 8 plays within 0.16 EMG of the best (gnubg's
#: analysis filter); on the way to 2 ply keep at most 3 within 0.06 at 1 ply.
FILTERS: tuple[tuple[int, float], ...] = ((8, 0.16), (3, 0.06))
#: How many candidates a play decision lists (and the play made, when it is not among them).
CANDIDATES = 5
#: How many positions go to the evaluator at once at 1 and 2 ply (progress between them).
_CHUNK = 8

#: The 15 non-double rolls (higher die first), each equally likely at the opening.
_OPENINGS: tuple[tuple[int, int], ...] = tuple((a, b) for a in range(1, 7) for b in range(1, a))


class AnalysisError(BackgammonError):
    """A match cannot be analysed (the engine cannot load, ``plies`` out of range)."""


def label_of(error: float) -> str:
    """gnubg's word for an error (EMG): ``""``, ``"doubtful"``, ``"bad"`` or ``"very bad"``.

    >>> label_of(0.0), label_of(0.05), label_of(0.1), label_of(0.2)
    ('', 'doubtful', 'bad', 'very bad')
    """
    for bound, word in LABELS:
        if error >= bound:
            return word
    return ""


def rating_of(error_per_decision: float) -> str:
    """gnubg's rating for the mean error per unforced decision (EMG).

    >>> rating_of(0.0046), rating_of(0.02), rating_of(0.5)
    ('World class', 'Casual player', 'Awful!')
    """
    for bound, word in RATINGS:
        if error_per_decision < bound:
            return word
    return RATINGS[-1][1]  # pragma: no cover - the last bound is infinite


# -- the result ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Candidate:
    """One play of a play decision: its value for the mover (EMG) and ``value`` minus the
    best's (0 for the best, negative for the others)."""

    move: str
    value: float
    difference: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"move": self.move, "value": _round(self.value), "difference": _round(self.difference)}


@dataclass(frozen=True, slots=True)
class CubeValues:
    """The cube decision behind a ``cube`` or ``take`` decision, from the side of the player
    on roll (the doubler), in EMG: no double, double/take, double/pass, and the proper
    action (``"no double"``, ``"double, take"``, ``"double, pass"``, ``"too good"``, with
    beavers ``"no double, beaver"`` or ``"double, beaver"``)."""

    no_double: float
    double_take: float
    double_pass: float
    proper: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"no_double": _round(self.no_double), "double_take": _round(self.double_take),
                "double_pass": _round(self.double_pass), "proper": self.proper}


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of one player (the contract's ``decisions`` entries).

    ``kind`` is ``"play"`` (checker play: ``dice``, ``candidates``), ``"cube"`` (the player
    on roll doubles or not: ``action`` ``"double"`` / ``"no double"``) or ``"take"`` (the
    answer to a double: ``"take"``, ``"pass"``, ``"beaver"``). ``event`` is the index in
    ``match.events`` of the event the decision made (the play, the double, the answer; the
    roll that followed a "no double"). ``error`` is in EMG, ``error_mwc`` in match winning
    chances (None in money play); ``chances`` is player 0's match winning chances after the
    decision (money: player 0's cubeful equity in points, cube included); ``luck`` is the
    luck of the roll played (EMG, the mover's side; 0 for cube decisions)."""

    index: int
    event: int
    game: int
    turn: int
    player: int
    kind: str
    position_id: str
    match_id: str
    xgid: str
    dice: tuple[int, int] | None
    action: str
    best: str
    error: float
    error_mwc: float | None
    forced: bool
    luck: float
    chances: float
    label: str
    candidates: tuple[Candidate, ...] = ()
    cube: CubeValues | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, as docs/ANALYSIS-DESIGN.md's ``decisions`` entries."""
        return {
            "index": self.index, "event": self.event, "game": self.game, "turn": self.turn,
            "player": self.player, "kind": self.kind, "position_id": self.position_id,
            "match_id": self.match_id, "xgid": self.xgid,
            "dice": list(self.dice) if self.dice is not None else None,
            "action": self.action, "best": self.best, "error": _round(self.error),
            "error_mwc": None if self.error_mwc is None else _round(self.error_mwc),
            "forced": self.forced, "luck": _round(self.luck), "chances": _round(self.chances),
            "label": self.label, "candidates": [c.to_dict() for c in self.candidates],
            "cube": None if self.cube is None else self.cube.to_dict(),
        }


@dataclass(frozen=True, slots=True)
class CheckerStats:
    """A player's checker plays: how many, how many unforced, the error (EMG) and the rate
    (mEMG per unforced play)."""

    decisions: int
    unforced: int
    error: float

    @property
    def rate(self) -> float:
        """mEMG per unforced play."""
        return 1000.0 * self.error / self.unforced if self.unforced else 0.0

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"decisions": self.decisions, "unforced": self.unforced,
                "error": _round(self.error), "rate": _round(self.rate, 2)}


@dataclass(frozen=True, slots=True)
class CubeStats:
    """A player's counted cube decisions and answers to doubles, their error (EMG) and
    their mistakes by kind."""

    decisions: int
    error: float
    missed_doubles: int
    wrong_doubles: int
    wrong_takes: int
    wrong_passes: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"decisions": self.decisions, "error": _round(self.error),
                "missed_doubles": self.missed_doubles, "wrong_doubles": self.wrong_doubles,
                "wrong_takes": self.wrong_takes, "wrong_passes": self.wrong_passes}


@dataclass(frozen=True, slots=True)
class PlayerStats:
    """One player's summary: decisions listed, unforced ones, checker and cube figures,
    the total error (EMG), the luck of the rolls (EMG, positive = lucky) and how many rolls."""

    name: str
    decisions: int
    unforced: int
    checker: CheckerStats
    cube: CubeStats
    luck: float
    rolls: int

    @property
    def error(self) -> float:
        """Checker and cube error, EMG."""
        return self.checker.error + self.cube.error

    @property
    def rate(self) -> float:
        """mEMG per unforced decision (gnubg's error rate)."""
        return 1000.0 * self.error / self.unforced if self.unforced else 0.0

    @property
    def pr(self) -> float:
        """eXtreme Gammon's performance rating: 500 times the mean error per unforced
        decision."""
        return self.rate / 2.0

    @property
    def luck_rate(self) -> float:
        """Luck per roll, EMG."""
        return self.luck / self.rolls if self.rolls else 0.0

    @property
    def rating(self) -> str:
        """gnubg's rating of the error per unforced decision."""
        return rating_of(self.error / self.unforced if self.unforced else 0.0)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, as docs/ANALYSIS-DESIGN.md's ``players`` entries."""
        return {"name": self.name, "decisions": self.decisions, "unforced": self.unforced,
                "checker": self.checker.to_dict(), "cube": self.cube.to_dict(),
                "error": _round(self.error), "rate": _round(self.rate, 2),
                "pr": _round(self.pr, 2), "luck": _round(self.luck),
                "luck_rate": _round(self.luck_rate), "rating": self.rating}


@dataclass(frozen=True, slots=True)
class GameSummary:
    """A game of the match: its number (from 1), the score before it, the winner (None when
    unfinished) and the points it counted for."""

    number: int
    score: tuple[int, int]
    winner: int | None
    points: int

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready."""
        return {"number": self.number, "score": list(self.score), "winner": self.winner,
                "points": self.points}


@dataclass(frozen=True)
class MatchAnalysis:
    """What :func:`analyse_match` finds: the decisions in match order, the two players'
    summaries, the games."""

    plies: int
    money: bool
    length: int
    names: tuple[str, str]
    players: tuple[PlayerStats, PlayerStats]
    games: tuple[GameSummary, ...]
    decisions: tuple[Decision, ...]

    def worst(self, n: int = 10) -> list[Decision]:
        """The ``n`` decisions that gave away the most (errors > 0 only), worst first."""
        bad = [d for d in self.decisions if d.error > 0.0]
        return sorted(bad, key=lambda d: (-d.error, d.index))[: max(n, 0)]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, as docs/ANALYSIS-DESIGN.md says (``"format": "backgammon-analysis"``)."""
        return {
            "format": "backgammon-analysis", "version": 1, "plies": self.plies,
            "money": self.money, "length": self.length, "names": list(self.names),
            "players": [p.to_dict() for p in self.players],
            "games": [g.to_dict() for g in self.games],
            "decisions": [d.to_dict() for d in self.decisions],
        }


def _round(x: float, digits: int = 5) -> float:
    return round(float(x), digits)


# -- units -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Unit:
    """A player's unit at a moment. *Native* values are money equity per cube of 1, or
    match winning chances; :meth:`emg` turns them into EMG (money: as they are; match:
    ``(2m − W − L) / (W − L)``, W and L the chances after a single win and loss of the
    cube's value)."""

    money: bool
    cube: int
    win: float = 1.0
    lose: float = -1.0

    @property
    def scale(self) -> float:
        """EMG per native unit."""
        return 2.0 / (self.win - self.lose)

    def emg(self, native: float) -> float:
        return (2.0 * native - self.win - self.lose) / (self.win - self.lose)


def _post(state: MatchState) -> bool:
    """Whether the games after this one are post-Crawford (the MET's ``post`` flag)."""
    n = state.match_length
    return state.crawford or (bool(n) and max(state.score) == n - 1)


def _unit(state: MatchState, player: int) -> _Unit:
    if state.is_money:
        return _Unit(True, state.cube_value)
    n, c = state.match_length, state.cube_value
    a, b = n - state.score[player], n - state.score[1 - player]
    post = _post(state)
    win, lose = DEFAULT_MET.mwc(a - c, b, post), DEFAULT_MET.mwc(a, b - c, post)
    if win - lose < 1e-9:  # pragma: no cover - a point always matters before the end
        return _Unit(False, c, 1.0, 0.0)
    return _Unit(False, c, win, lose)


def _other(state: MatchState, native: float) -> float:
    """A native value seen by the other player."""
    return -native if state.is_money else 1.0 - native


@lru_cache(maxsize=4096)
def _on_roll(state: MatchState, player: int) -> MatchState:
    """``state`` with ``player`` on roll, before its roll, no offer pending."""
    return replace(state, player_on_roll=player, turn=player, dice=None, double_offered=False)


def _decision(probs: Probabilities, position: Position, state: MatchState, roller: int,
              rules: Rules) -> CubeDecision:
    """The cube decision of ``roller`` (on roll in ``state``): the engine's
    :func:`~backgammon.bots.neural.cube_decision`, except that a cube at the rules' limit is
    dead (money: Janowski's dead cube, nobody can double)."""
    from ..bots.neural import cube_decision

    if not rules.may_double_to(2 * state.cube_value):
        if state.is_money:
            owner = (CubeOwner.CENTRED if state.cube_owner is None else
                     CubeOwner.PLAYER if state.cube_owner == roller else CubeOwner.OPPONENT)
            d = money_decision(probs, x=0.0, cube=state.cube_value, owner=owner,
                               jacoby=state.jacoby)
        else:
            d = cube_decision(probs, position, state, roller)
        return replace(d, available=False)
    return cube_decision(probs, position, state, roller)


def _proper(d: CubeDecision) -> float:
    """The value for the side on roll when it acts right (the engine's rule)."""
    from ..bots.neural import _proper as proper

    return proper(d)


# -- the replay ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Ids:
    position_id: str
    match_id: str
    xgid: str


@dataclass(eq=False, slots=True)
class _Luck:
    """A roll to measure: ``player`` rolled ``dice`` in ``position`` (its side)."""

    player: int
    position: Position
    dice: tuple[int, int]
    state: MatchState
    opening: bool
    value: float = 0.0  # EMG, filled in


@dataclass(eq=False, slots=True)
class _PlayJob:
    event: int
    game: int
    turn: int
    player: int
    position: Position
    dice: tuple[int, int]
    state: MatchState
    ids: _Ids
    played: int  # index in legal, -1 for the empty play
    luck: _Luck | None
    legal: Any = None  # LegalMoves
    keep: list[int] = field(default_factory=list)


@dataclass(eq=False, slots=True)
class _CubeJob:
    event: int
    game: int
    turn: int
    player: int
    position: Position
    state: MatchState
    ids: _Ids
    doubled: bool
    answer: tuple[int, str, _Ids] | None = None


_Job = _PlayJob | _CubeJob


def _ids(match: Match) -> _Ids:
    """The moment's IDs; a cube past what a Match ID holds (money, no cube limit) has none."""
    try:
        return _Ids(match.game.position_id(), match.match_id(), match.xgid())
    except BackgammonError:
        return _Ids(match.game.position_id(), "", "")


def _walk(match: Match) -> tuple[list[_Job], list[_Luck], list[GameSummary]]:
    """Replay ``match`` event by event: the decisions to judge, the rolls to measure, the
    games."""
    start = match.to_dict()["start"]
    replay = Match(match.length, match.rules, score=(start["score"][0], start["score"][1]),
                   crawford=start["crawford"], post_crawford=start["post_crawford"])
    jobs: list[_Job] = []
    rolls: list[_Luck] = []
    starts: list[GameStart] = []
    game_no, turn = 0, 0
    pending: _CubeJob | None = None
    luck: _Luck | None = None
    for i, event in enumerate(match.events):
        if isinstance(event, GameStart):
            starts.append(event)
            game_no, turn, pending, luck = event.number, 0, None, None
            continue
        if not event.primary:
            continue
        if isinstance(event, Forfeit):
            event.apply(replay)
            continue
        game = replay.game
        if isinstance(event, Roll) and game.phase is Phase.ROLL and game.can_double(event.player):
            jobs.append(_CubeJob(i, game_no, turn + 1, event.player, game.position,
                                 replay.match_state(), _ids(replay), False))
        elif isinstance(event, Double):
            pending = _CubeJob(i, game_no, turn + 1, event.player, game.position,
                               replay.match_state(), _ids(replay), True)
            jobs.append(pending)
        elif isinstance(event, (Take, Beaver, Pass)) and pending is not None:
            pending.answer = (i, event.type, _ids(replay))
            pending = None
        elif isinstance(event, Play):
            legal = game.legal_moves()
            dice = game.dice
            assert dice is not None
            if len(legal):
                found = legal.find_position(game.position.play(event.move))
                assert found is not None  # the replay accepted the play
                played = found
            else:
                played = -1
            job = _PlayJob(i, game_no, turn, event.player, game.position, dice,
                           replay.match_state(), _ids(replay), played,
                           luck if luck is not None and luck.player == event.player else None,
                           legal)
            jobs.append(job)
            luck = None
        # Match.replay's step, one event at a time (GameStart and MatchEnd are derived)
        game._dispatch(cast(GameEvent, event), i)  # noqa: SLF001
        if isinstance(event, Roll):
            turn += 1
            luck = _Luck(event.player, game.position, event.dice,
                         _on_roll(replay.match_state(), event.player), False)
            rolls.append(luck)
        elif isinstance(event, OpeningRoll) and game.phase is Phase.PLAY:
            turn = 1
            on_roll = game.on_roll
            assert on_roll is not None and game.dice is not None
            luck = _Luck(on_roll, game.position, game.dice,
                         _on_roll(replay.match_state(), on_roll), True)
            rolls.append(luck)
        elif isinstance(event, SetUp):
            turn = 1 if game.dice is not None else 0  # taken up before the roll or after it
    games = []
    for index, (st, g) in enumerate(zip(starts, match.games, strict=False)):
        result = g.result
        points = match.counted_points(index) if result is not None else 0
        games.append(GameSummary(st.number, st.score, None if result is None else result.winner,
                                 points))
    return jobs, rolls, games


# -- evaluation ------------------------------------------------------------------------------


class _Outputs:
    """The evaluator's outputs of position keys at 0, 1 or 2 ply, each position evaluated
    once (batched, in chunks at 1 and 2 ply so that progress can be told)."""

    def __init__(self, evaluator: Evaluator) -> None:
        self.evaluator = evaluator
        self.memo: tuple[dict[bytes, NDArray[np.float64]], ...] = ({}, {}, {})

    def fetch(self, keys: Iterable[bytes], plies: int,
              step: Callable[[int], None] | None = None) -> None:
        memo = self.memo[plies]
        missing = [k for k in dict.fromkeys(keys) if k not in memo]
        chunk = len(missing) if plies == 0 else _CHUNK
        for at in range(0, len(missing), max(chunk, 1)):
            part = missing[at: at + chunk]
            boards = np.frombuffer(b"".join(part), np.uint8).reshape(-1, 50)
            out = self.evaluator.outputs_at(boards, plies)
            for key, row in zip(part, out, strict=True):
                memo[key] = row
            if step is not None:
                step(len(part))

    def __call__(self, key: bytes, plies: int) -> NDArray[np.float64]:
        return self.memo[plies][key]


def _after(outputs: NDArray[np.float64], key: bytes, state: MatchState, mover: int,
           rules: Rules) -> float:
    """The mover's native value of the position ``key`` after its play (the opponent on
    roll, ``outputs`` its chances): the opponent's proper cube action, turned around."""
    opp = 1 - mover
    probs = Probabilities.from_outputs(outputs.tolist())
    d = _decision(probs, Position._from_key(key), _on_roll(state, opp), opp, rules)
    v = _proper(d)
    return -v / state.cube_value if state.is_money else 1.0 - v


def _result_keys(position: Position, dice: tuple[int, int]) -> list[bytes]:
    """The positions after each legal play (the opponent's side), or after no play."""
    legal = position.legal_moves(dice)
    if not len(legal):
        return [position.swap()._key]  # noqa: SLF001
    return [row.tobytes() for row in legal.boards]


def _best_key(keys: list[bytes], outs: Callable[[bytes, int], NDArray[np.float64]]) -> bytes:
    """The play with the best 0-ply cubeless equity for the mover (the ``expert``'s pick)."""
    if len(keys) == 1:
        return keys[0]
    rows = np.array([outs(k, 0) for k in keys])
    eq = -(2.0 * rows[:, 0] - 1.0 + rows[:, 1] - rows[:, 3] + rows[:, 2] - rows[:, 4])
    return keys[int(np.argmax(eq))]


# -- the analysis ----------------------------------------------------------------------------


def analyse_match(
    match: Match,
    *,
    plies: int = 2,
    names: Sequence[str] = ("Player 0", "Player 1"),
    evaluator: Evaluator | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> MatchAnalysis:
    """Analyse every decision of ``match`` at ``plies`` (0, 1 or 2) and the luck of every
    roll (0 ply); ``names`` are player 0's and player 1's; ``evaluator`` defaults to the
    shipped engine; ``progress(done, total)`` is called as the positions are evaluated
    (total: the positions looked at ``plies`` deep, and at 2 ply those the 1-ply filter
    looks at first: ``total`` grows once, when the filter is done). See the module docs for the units and
    what counts.
    """
    if plies not in (0, 1, 2) or isinstance(plies, bool):
        raise AnalysisError(f"plies={plies!r}: the analysis looks 0, 1 or 2 plies deep")
    if len(names) != 2:
        raise AnalysisError(f"names={list(names)!r}: a match has two players")
    if evaluator is None:
        from ..bots.analysis import engine

        evaluator = engine()
        if evaluator is None:
            raise AnalysisError("the neural engine cannot load (weights or numba missing): "
                                "no analysis without it")
    rules = match.rules
    jobs, rolls, games = _walk(match)
    outs = _Outputs(evaluator)

    # 0 ply: every play of every decision, every play of the 21 rolls of every roll
    alternatives = [_alternatives(roll) for roll in rolls]
    zero: list[bytes] = []
    for alts, made in alternatives:
        zero.extend(made)
        for _, _, keys, _ in alts:
            zero.extend(keys)
    for job in jobs:
        if isinstance(job, _PlayJob) and len(job.legal) > 1:
            zero.extend(row.tobytes() for row in job.legal.boards)
    outs.fetch(zero, 0)

    # luck: the best play of each roll by cubeless equity, its cubeful value
    for roll, (alts, made) in zip(rolls, alternatives, strict=True):
        def value(roller: int, state: MatchState, keys: list[bytes], roll: _Luck = roll) -> float:
            best = _best_key(keys, outs)
            v = _after(outs(best, 0), best, state, roller, rules)
            return v if roller == roll.player else _other(state, v)

        mean = sum(w * value(r, s, k) for r, s, k, w in alts)
        roll.value = _unit(roll.state, roll.player).scale * (value(roll.player, roll.state, made) - mean)

    # checker play: the filters, then `plies` deep on the kept plays and the one made
    plays = [j for j in jobs if isinstance(j, _PlayJob)]
    for job in plays:
        n = len(job.legal)
        if n <= 1:
            job.keep = [max(job.played, 0)] if n else []
            continue
        keys = [row.tobytes() for row in job.legal.boards]
        values = [_after(outs(k, 0), k, job.state, job.player, rules) for k in keys]
        scale = _unit(job.state, job.player).scale
        job.keep = _filter(range(n), values, scale, *FILTERS[0]) if plies else list(range(n))
    done = 0  # progress: the positions evaluated at 1 ply (the filter) and at ``plies``
    first = 0

    def step(count: int, total: int) -> None:
        nonlocal done
        done += count
        if progress is not None:
            progress(done, total)

    if plies == 2:
        wide = [job.legal.boards[i].tobytes() for job in plays if len(job.legal) > 1 for i in job.keep]
        first = len({k for k in wide if k not in outs.memo[1]})
        if progress is not None:
            progress(0, first)
        outs.fetch(wide, 1, lambda count: step(count, first))
        for job in plays:
            if len(job.legal) > 1:
                values1 = {i: _after(outs(k, 1), k, job.state, job.player, rules)
                           for i in job.keep for k in [job.legal.boards[i].tobytes()]}
                scale = _unit(job.state, job.player).scale
                job.keep = _filter(job.keep, values1, scale, *FILTERS[1])

    # `plies` deep: the kept plays, the play made, and every cube position
    deep: list[bytes] = []
    for job in jobs:
        if isinstance(job, _PlayJob):
            if len(job.legal):
                idx = list(dict.fromkeys([*job.keep, job.played]))
                job.keep = idx
                deep.extend(job.legal.boards[i].tobytes() for i in idx)
            else:
                deep.append(job.position.swap()._key)  # noqa: SLF001
        else:
            deep.append(job.position._key)  # noqa: SLF001
    total = first + len({k for k in deep if k not in outs.memo[plies]})
    if progress is not None:
        progress(done, total)
    outs.fetch(deep, plies, lambda count: step(count, total))

    decisions: list[Decision] = []
    luck_of = {id(r): r.value for r in rolls}
    for job in jobs:
        if isinstance(job, _PlayJob):
            decisions.append(_play_decision(job, plies, outs, rules, len(decisions), luck_of))
        else:
            decisions.extend(_cube_decisions(job, plies, outs, rules, len(decisions)))
    players = tuple(_player_stats(p, names[p], decisions, rolls) for p in (0, 1))
    return MatchAnalysis(plies, match.is_money, match.length, (names[0], names[1]),
                         (players[0], players[1]), tuple(games), tuple(decisions))


_Alternative = tuple[int, MatchState, list[bytes], float]


def _alternatives(roll: _Luck) -> tuple[list[_Alternative], list[bytes]]:
    """What the dice could have done, ``(roller, state, result keys, probability)`` each,
    and the result keys of the roll made."""
    out: list[_Alternative] = []
    if roll.opening:
        for player in (roll.player, 1 - roll.player):
            state = _on_roll(roll.state, player)
            position = roll.position if player == roll.player else roll.position.swap()
            for dice in _OPENINGS:
                out.append((player, state, _result_keys(position, dice), 1.0 / 30.0))
    else:
        for dice, weight in ROLLS:
            out.append((roll.player, roll.state, _result_keys(roll.position, dice), weight / 36.0))
    return out, _result_keys(roll.position, roll.dice)


def _filter(indices: Iterable[int], values: Sequence[float] | dict[int, float], scale: float,
            count: int, threshold: float) -> list[int]:
    """The at most ``count`` best of ``indices`` within ``threshold`` (EMG) of the best."""
    order = sorted(indices, key=lambda i: (-values[i], i))
    if not order:
        return []
    top = values[order[0]]
    return [i for i in order[:count] if scale * (top - values[i]) <= threshold]


def _for_player0(state: MatchState, player: int, native: float) -> float:
    """Player 0's chances from ``player``'s native value: match winning chances, or in
    money the cubeful equity in points (cube included)."""
    if state.is_money:
        native *= state.cube_value
    return native if player == 0 else _other(state, native)


def _play_decision(job: _PlayJob, plies: int, outs: _Outputs, rules: Rules, index: int,
                   luck_of: dict[int, float]) -> Decision:
    unit = _unit(job.state, job.player)
    n = len(job.legal)
    if n:
        keys = {i: job.legal.boards[i].tobytes() for i in job.keep}
        values = {i: _after(outs(k, plies), k, job.state, job.player, rules) for i, k in keys.items()}
    else:
        key = job.position.swap()._key  # noqa: SLF001
        values = {0: _after(outs(key, plies), key, job.state, job.player, rules)}

    def text(i: int) -> str:
        return str(job.legal[i]) if n else ""

    played = max(job.played, 0)
    # best first; among equal values the play made, then the legal order
    ranking = sorted(values, key=lambda i: (-values[i], i != played, i))
    best = ranking[0]
    top = values[best]
    error = max(top - values[played], 0.0)
    shown = ranking[:CANDIDATES] + ([played] if played not in ranking[:CANDIDATES] else [])
    candidates = tuple(Candidate(text(i), unit.emg(values[i]), unit.scale * (values[i] - top))
                       for i in shown)
    emg = unit.scale * error
    return Decision(
        index=index, event=job.event, game=job.game, turn=job.turn, player=job.player,
        kind="play", position_id=job.ids.position_id, match_id=job.ids.match_id,
        xgid=job.ids.xgid, dice=job.dice, action=text(played), best=text(best), error=emg,
        error_mwc=None if job.state.is_money else error, forced=n <= 1,
        luck=luck_of[id(job.luck)] if job.luck is not None else 0.0,
        chances=_for_player0(job.state, job.player, values[played]), label=label_of(emg),
        candidates=candidates)


def _cube_decisions(job: _CubeJob, plies: int, outs: _Outputs, rules: Rules,
                    index: int) -> list[Decision]:
    """The cube decision of ``job`` (when it counts) and the answer to the double."""
    state, me = job.state, job.player
    probs = Probabilities.from_outputs(outs(job.position._key, plies).tolist())  # noqa: SLF001
    d = _decision(probs, job.position, state, me, rules)
    if not d.available:
        return []  # a dead cube (a match score, the cube's limit): nothing to decide
    unit = _unit(state, me)
    c = state.cube_value
    money = state.is_money
    nd, dt, dp = ((d.no_double / c, d.double_take / c, d.double_pass / c) if money
                  else (d.no_double, d.double_take, d.double_pass))
    beavers = money and rules.beavers_apply and rules.may_double_to(4 * c)
    beaver = beavers and dt < 0.0  # the taker would beaver: the doubler's stake doubles again
    dt_eff = 2.0 * dt if beaver else dt
    doubled_value = min(dt_eff, dp)
    best = max(nd, doubled_value)
    if beaver:
        proper = "double, beaver" if doubled_value > nd else "no double, beaver"
    else:
        proper = CubeDecision(nd, dt, dp, True, False).action
    values = CubeValues(unit.emg(nd), unit.emg(dt), unit.emg(dp), proper)
    mwc = not money
    out: list[Decision] = []
    error = best - (doubled_value if job.doubled else nd)
    emg = unit.scale * error
    if job.doubled or error > 0.0 or unit.scale * (best - doubled_value) < CLOSE_CUBE:
        out.append(Decision(
            index=index, event=job.event, game=job.game, turn=job.turn, player=me, kind="cube",
            position_id=job.ids.position_id, match_id=job.ids.match_id, xgid=job.ids.xgid,
            dice=None, action="double" if job.doubled else "no double",
            best="double" if doubled_value > nd else "no double", error=emg,
            error_mwc=error if mwc else None, forced=False, luck=0.0,
            chances=_for_player0(state, me, doubled_value if job.doubled else nd),
            label=label_of(emg), cube=values))
    if job.answer is not None:
        event, action, ids = job.answer
        taker = 1 - me
        options = {"take": _other(state, dt), "pass": _other(state, dp)}
        if beavers:
            options["beaver"] = _other(state, 2.0 * dt)
        right = max(options, key=lambda k: (options[k], k == "take"))
        error = options[right] - options[action]
        emg = unit.scale * error
        after = {"take": dt, "pass": dp, "beaver": 2.0 * dt}[action]
        out.append(Decision(
            index=index + len(out), event=event, game=job.game, turn=job.turn, player=taker,
            kind="take", position_id=ids.position_id, match_id=ids.match_id, xgid=ids.xgid,
            dice=None, action=action, best=right, error=emg, error_mwc=error if mwc else None,
            forced=False, luck=0.0, chances=_for_player0(state, me, after), label=label_of(emg),
            cube=values))
    return out


def _player_stats(player: int, name: str, decisions: Sequence[Decision],
                  rolls: Sequence[_Luck]) -> PlayerStats:
    mine = [d for d in decisions if d.player == player]
    plays = [d for d in mine if d.kind == "play"]
    cubes = [d for d in mine if d.kind != "play"]
    checker = CheckerStats(len(plays), sum(not d.forced for d in plays),
                           sum(d.error for d in plays))
    wrong = [d for d in cubes if d.error > 0.0]
    cube = CubeStats(
        decisions=len(cubes), error=sum(d.error for d in cubes),
        missed_doubles=sum(d.kind == "cube" and d.action == "no double" for d in wrong),
        wrong_doubles=sum(d.kind == "cube" and d.action == "double" for d in wrong),
        wrong_takes=sum(d.kind == "take" and d.best == "pass" for d in wrong),
        wrong_passes=sum(d.kind == "take" and d.action == "pass" for d in wrong))
    mine_rolls = [r for r in rolls if r.player == player]
    return PlayerStats(name, len(mine), checker.unforced + len(cubes), checker, cube,
                       sum(r.value for r in mine_rolls), len(mine_rolls))
