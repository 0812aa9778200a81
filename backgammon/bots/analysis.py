"""Analysis as data: the ranking of a roll's plays, cube advice, the answer to a double and
to a resignation, as frozen values that any front end formats (the terminal does it in
:mod:`backgammon.terminal.advice`). Nothing here prints.

* :func:`rank_plays` — every legal play with its 0-ply value, the best few (5, or
  ``count``) looked at again ``plies`` deeper (1 by default: every reply of the opponent,
  :meth:`~.evaluator.Evaluator.outputs_at`). In money play the value is cubeless equity
  (points per game); in a match it is the cubeless match winning chances after the play
  with the cube as it is (:func:`cubeless_mwc`, on :data:`~.met.DEFAULT_MET`). When the
  neural engine cannot load, pubeval's scores rank the plays (no probabilities).
* :func:`cube_advice` — the cube decision of the player on roll (Janowski's cubeful money
  equities of :mod:`.cube`, or :func:`~.met.match_decision` in a match), the same
  computation :class:`~backgammon.bots.neural.ExpertBot` doubles with;
  :func:`take_advice` — take, pass or beaver for the player who is doubled;
  :func:`resignation_advice` — accept or decline a resignation, with the value offered
  against the value of playing on.
* :func:`engine` — the shipped evaluator, or ``None`` when it cannot load;
  :func:`warm_up` loads it and compiles the 0- and 1-ply kernels once (thread-safe,
  idempotent: a front end calls it in a background thread while the person types, so that
  the first ``hint`` is not silent for seconds).

>>> from backgammon import Position
>>> from backgammon.matchid import MatchState
>>> legal = Position.initial().legal_moves((3, 1))
>>> r = rank_plays(legal, MatchState())
>>> r.unit, r.best is not None and r.best.move, r.best.difference
('equity', '8/5 6/5', 0.0)
"""

from __future__ import annotations

import signal
import threading
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from ..matchid import MatchState
from ..engine.cube import CubeDecision
from ..engine.probabilities import Probabilities

if TYPE_CHECKING:
    from .base import Bot
    from ..position import LegalMoves, Position
    from ..rules import Rules
    from ..engine.evaluator import Evaluator

__all__ = [
    "EQUITY",
    "MWC",
    "PUBEVAL",
    "SCORE",
    "CubeAdvice",
    "PlayRanking",
    "RankedPlay",
    "ResignationAdvice",
    "TakeAdvice",
    "cube_advice",
    "cubeless_mwc",
    "engine",
    "expert_bot",
    "rank_plays",
    "resignation_advice",
    "take_advice",
    "warm_up",
    "warm_up_in_background",
]

#: The unit of a value: cubeless (ranking) or cubeful (cube advice) money equity, in points.
EQUITY = "equity"
#: ... match winning chances, 0 to 1.
MWC = "mwc"
#: ... pubeval's score (only the order means something).
SCORE = "score"
#: The unit of cube, take and resignation advice from pubeval's rules of thumb (the engine
#: cannot load): an action, no numbers.
PUBEVAL = "pubeval"

#: How many plays :func:`rank_plays` looks at more deeply by default (as ``hint``).
DEFAULT_COUNT = 5


# -- the engine ------------------------------------------------------------------------------

_lock = threading.RLock()
_loaded = False
_engine: Evaluator | None = None
_warm = False


def engine() -> Evaluator | None:
    """The evaluator with the shipped weights, or ``None`` when the engine cannot load
    (weights missing, numba broken): the callers fall back on pubeval. Loaded once."""
    global _loaded, _engine
    with _lock:
        if not _loaded:
            try:
                from ..engine.evaluator import default_evaluator

                _engine = default_evaluator()
            except Exception:  # the engine cannot load: pubeval advises instead
                _engine = None
            _loaded = True
        return _engine


def expert_bot() -> Bot | None:
    """The ``expert`` bot on :func:`engine`'s evaluator, or ``None`` when it cannot load."""
    if engine() is None:
        return None
    try:
        from . import load

        return load("expert")
    except Exception:  # pragma: no cover - the evaluator loaded, so the bot does
        return None


def warm_up() -> bool:
    """Load the evaluator and compile (or load from numba's cache) the move generator and
    the 0- and 1-ply kernels, once; True when the neural engine is there. Thread-safe and
    idempotent: later calls return at once (a call made while another runs waits for it)."""
    global _warm
    with _lock:
        ev = engine()
        if _warm:
            return ev is not None
        from ..position import Position

        legal = Position.initial().legal_moves((3, 1))  # the compiled move generator
        if ev is not None:
            try:
                ev.outputs(legal.boards[:1])
                ev.outputs_at(legal.boards[:1], 1)
            except Exception:  # pragma: no cover - a kernel that cannot compile
                pass
        _warm = True
        return ev is not None


#: The signals that :func:`warm_up_in_background`'s thread never receives.
_SIGNALS = {getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGHUP") if hasattr(signal, n)}


def warm_up_in_background() -> threading.Thread:
    """:func:`warm_up` in a daemon thread (started; numba's kernels release the GIL).

    The thread is born with SIGINT, SIGTERM and SIGHUP blocked (where threads have signal
    masks): a Ctrl-C or a ``kill`` always goes to the main thread, which reads the
    keyboard, and never to this one."""
    thread = threading.Thread(target=warm_up, name="backgammon-warm-up", daemon=True)
    masked = hasattr(signal, "pthread_sigmask")
    old = signal.pthread_sigmask(signal.SIG_BLOCK, _SIGNALS) if masked else set()
    try:
        thread.start()  # the new thread inherits the mask
    finally:
        if masked:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)
    return thread


# -- match winning chances -------------------------------------------------------------------


def _post(state: MatchState) -> bool:
    """Whether the games after this one are post-Crawford (this is the Crawford game or
    one after it), as :meth:`~backgammon.bots.neural.ExpertBot.accept_resignation` counts."""
    from .base import is_post_crawford

    return is_post_crawford(state) or state.crawford


def cubeless_mwc(probs: Probabilities, state: MatchState, player: int) -> float:
    """``player``'s match winning chances when the game is played out with the cube as it
    is (no more doubles) and ``probs`` (seen from ``player``) are its chances.

    >>> s = MatchState(match_length=5, score=(0, 0))
    >>> round(cubeless_mwc(Probabilities(0.5, 0.0, 0.0, 0.0, 0.0), s, 0), 6)
    0.5
    """
    from ..engine.met import DEFAULT_MET, _outcome_values

    n = state.match_length
    a, b = n - state.score[player], n - state.score[1 - player]
    w, lv = _outcome_values(DEFAULT_MET, probs, a, b, state.cube_value, _post(state))
    return probs.win * w + (1.0 - probs.win) * lv


# -- plays -----------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RankedPlay:
    """One play in a :class:`PlayRanking`."""

    #: 1 for the best
    rank: int
    #: the play's index in the :class:`~backgammon.position.LegalMoves` (a list number - 1)
    index: int
    #: the play in standard notation
    move: str
    #: the value for the mover in the ranking's unit (equity, MWC or pubeval's score)
    value: float
    #: ``value`` minus the best play's (0 for the best, negative for the others)
    difference: float
    #: the mover's chances after the play (None with pubeval)
    probabilities: Probabilities | None
    #: the look-ahead of ``value``: 0, or the ranking's ``plies`` for the best few
    plies: int


@dataclass(frozen=True, slots=True)
class PlayRanking:
    """Every legal play, best first: the deeply looked-at ones first (by their deeper
    value), then the others by their 0-ply value."""

    #: best first
    plays: tuple[RankedPlay, ...]
    #: :data:`EQUITY` (money, cubeless), :data:`MWC` (match, cubeless) or :data:`SCORE`
    unit: str
    #: ``"expert"`` (the neural network) or ``"pubeval"`` (the fallback)
    adviser: str
    #: the look-ahead of the best few (0 when nothing was looked at more deeply)
    plies: int
    #: how many plays were looked at ``plies`` deep
    deep: int

    @property
    def best(self) -> RankedPlay | None:
        """The best play, or None when there is no legal play."""
        return self.plays[0] if self.plays else None

    def __len__(self) -> int:
        return len(self.plays)

    def top(self, count: int) -> tuple[RankedPlay, ...]:
        """The ``count`` best plays."""
        return self.plays[:count]


def rank_plays(
    legal: LegalMoves,
    state: MatchState | None = None,
    *,
    plies: int = 1,
    count: int | None = None,
    evaluator: Evaluator | None = None,
    pubeval: bool = False,
) -> PlayRanking:
    """Rank every play of ``legal`` for the mover (``state.player_on_roll``; ``state``
    None is money play): all at 0 ply, the best ``count`` (default 5) again at ``plies``
    (0, 1 or 2). In a match the unit is the mover's cubeless match winning chances.
    ``evaluator`` defaults to :func:`engine`; with ``pubeval`` (or when the engine cannot
    load) pubeval's scores rank the plays.

    >>> from backgammon import Position
    >>> r = rank_plays(Position.initial().legal_moves((6, 5)), pubeval=True)
    >>> r.adviser, r.unit, r.best is not None and r.best.move, r.best.probabilities
    ('pubeval', 'score', '24/13', None)
    """
    state = MatchState() if state is None else state
    if plies not in (0, 1, 2):
        raise ValueError(f"plies={plies!r}: 0, 1 or 2")
    count = DEFAULT_COUNT if count is None else count
    n = len(legal)
    moves = [str(m) for m in legal] if n else []
    ev = None if pubeval else (evaluator if evaluator is not None else engine())
    if ev is None:
        from .pubeval import scores

        raw = scores(legal.boards, legal.origin.is_race()) if n else np.zeros(0)
        order = sorted(range(n), key=lambda i: (-float(raw[i]), i))
        best = float(raw[order[0]]) if n else 0.0
        ranked = tuple(
            RankedPlay(r, i, moves[i], float(raw[i]), float(raw[i]) - best, None, 0)
            for r, i in enumerate(order, 1)
        )
        return PlayRanking(ranked, SCORE, "pubeval", 0, 0)
    from ..engine.evaluator import equities

    match = not state.is_money
    me = state.player_on_roll
    outs = ev.play_outputs(legal) if n else np.zeros((0, 5))
    probs = [Probabilities.from_outputs(row.tolist()) for row in outs]

    def value(p: Probabilities) -> float:
        return cubeless_mwc(p, state, me) if match else p.equity

    # ties keep the legal order; the 0-ply order is the network's cubeless equity (as the
    # bots choose) in money play, the match winning chances in a match
    values0 = [value(p) for p in probs] if match else [float(e) for e in equities(outs)]
    order0 = sorted(range(n), key=lambda i: (-values0[i], i))
    top = order0[: max(count, 0)] if plies else []
    deep: dict[int, tuple[float, Probabilities]] = {}
    if top:
        from ..engine.evaluator import flip_outputs

        # the opponent is on roll after each play: its outputs, turned to the mover's side
        deeper = flip_outputs(ev.outputs_at(legal.boards[top], plies))
        for i, row in zip(top, deeper, strict=True):
            p = Probabilities.from_outputs(row.tolist())
            deep[i] = (value(p), p)
    first = sorted(deep, key=lambda i: (-deep[i][0], i))
    rest = [i for i in order0 if i not in deep]
    entries: list[tuple[int, float, Probabilities, int]] = [
        (i, deep[i][0], deep[i][1], plies) for i in first
    ] + [(i, values0[i], probs[i], 0) for i in rest]
    best = entries[0][1] if entries else 0.0
    ranked = tuple(
        RankedPlay(r, i, moves[i], v, v - best, p, ply)
        for r, (i, v, p, ply) in enumerate(entries, 1)
    )
    return PlayRanking(ranked, MWC if match else EQUITY, "expert", plies if top else 0, len(top))


# -- the cube ---------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class CubeAdvice:
    """The cube decision of the player on roll, before the roll."""

    #: :data:`EQUITY` (cubeful, points, cube included), :data:`MWC`, or :data:`PUBEVAL`
    #: (pubeval's rule of thumb: the action only, the values and chances are None)
    unit: str
    #: the value of rolling with the cube as it is
    no_double: float | None
    #: the value of doubling when the opponent takes
    double_take: float | None
    #: the value of doubling when the opponent passes
    double_pass: float | None
    #: ``"no double"``, ``"double, take"``, ``"double, pass"``, ``"too good"`` (play on for
    #: the gammon), ``"no double, beaver"`` (the opponent would beaver: beavers allowed),
    #: or ``"no cube action"`` (the player may not double now); pubeval's: ``"double"``,
    #: ``"no double"`` or ``"no cube action"``
    action: str
    #: whether the player may double now (the cube, Crawford, the cube limit)
    available: bool
    #: the opponent should beaver a double, and beavers are allowed (R30)
    beaver: bool
    #: the chances of the player on roll (cubeless; None from pubeval)
    probabilities: Probabilities | None

    @property
    def double(self) -> bool:
        """Whether to double."""
        return self.action.startswith("double")

    @property
    def take(self) -> bool | None:
        """Whether the opponent should take a double (None: pubeval's advice says not)."""
        if self.double_take is None or self.double_pass is None:
            return None
        return self.double_take <= self.double_pass


def _decision(ev: Evaluator, position: Position, state: MatchState,
              roller: int) -> tuple[CubeDecision, Probabilities]:
    from .neural import cube_decision

    probs = ev.evaluate(position)
    return cube_decision(probs, position, state, roller), probs


def _pubeval() -> Bot:
    """The bot whose rules of thumb advise when the neural engine cannot load."""
    from . import load

    return load("pubeval")


def _beaver_allowed(state: MatchState, rules: Rules | None) -> bool:
    """Beavers are on (money play, R30) and the cube may go on to 4 times its value."""
    if not state.is_money:
        return False
    if rules is None:
        return False
    return rules.beavers_apply and rules.may_double_to(4 * state.cube_value)


def cube_advice(
    position: Position,
    state: MatchState,
    rules: Rules | None = None,
    *,
    evaluator: Evaluator | None = None,
) -> CubeAdvice:
    """The cube advice of the player on roll (``state.player_on_roll``), ``position``
    seen from it; pubeval's rule of thumb (unit :data:`PUBEVAL`, no numbers) when the
    neural engine cannot load. ``rules`` give the cube limit and beavers (None: no limit,
    no beavers).

    >>> from backgammon import Position
    >>> a = cube_advice(Position.initial(), MatchState())
    >>> a is not None and (a.action, a.unit)
    ('no double', 'equity')
    """
    from .base import may_double

    ev = evaluator if evaluator is not None else engine()
    roller = state.player_on_roll
    may = may_double(state, roller) and (rules is None or rules.may_double_to(2 * state.cube_value))
    if ev is None:
        doubles = may and _pubeval().should_double(position, state)
        return CubeAdvice(PUBEVAL, None, None, None,
                          "double" if doubles else "no double" if may else "no cube action",
                          may, False, None)
    d, probs = _decision(ev, position, state, roller)
    available = d.available and may
    beaver = d.beaver and _beaver_allowed(state, rules)
    if not available:
        action = "no cube action"
    else:
        action = CubeDecision(d.no_double, d.double_take, d.double_pass, True, False).action
        if beaver and action == "no double":
            action = "no double, beaver"
    return CubeAdvice(MWC if not state.is_money else EQUITY, d.no_double, d.double_take,
                      d.double_pass, action, available, beaver, probs)


@dataclass(frozen=True, slots=True)
class TakeAdvice:
    """The answer to a double, for the player who is doubled (values for that player)."""

    #: :data:`EQUITY` (cubeful, points, cube included), :data:`MWC` or :data:`PUBEVAL`
    #: (the action only: the values and chances are None)
    unit: str
    #: the value of taking (the cube at twice its value, owned by the taker)
    take: float | None
    #: the value of passing (losing the cube's value now)
    pass_: float | None
    #: ``"take"``, ``"pass"`` or ``"beaver"`` (only when beavers are allowed)
    action: str
    #: a beaver is right (the equity after taking is clearly positive) and allowed
    beaver: bool
    #: the chances of the doubler, who is on roll (cubeless; None from pubeval)
    probabilities: Probabilities | None


def take_advice(
    position: Position,
    state: MatchState,
    rules: Rules | None = None,
    *,
    evaluator: Evaluator | None = None,
) -> TakeAdvice:
    """Take, pass or beaver, for the player who is doubled, ``position`` seen from it
    (the computation of :meth:`~backgammon.bots.neural.ExpertBot.respond_to_double`);
    pubeval's rule of thumb (unit :data:`PUBEVAL`, no numbers) when the neural engine
    cannot load.

    >>> from backgammon import Position
    >>> a = take_advice(Position.initial(), MatchState(player_on_roll=1, turn=0, double_offered=True))
    >>> a is not None and a.action
    'take'
    """
    from .base import bot_player

    ev = evaluator if evaluator is not None else engine()
    if ev is None:
        answer = _pubeval().respond_to_double(position, state).value
        beaver = answer == "beaver" and _beaver_allowed(state, rules)
        return TakeAdvice(PUBEVAL, None, None, "take" if answer == "beaver" and not beaver else answer,
                          beaver, None)
    me = bot_player(state, answering=True)
    d, probs = _decision(ev, position.swap(), state, 1 - me)
    if state.is_money:
        take, pass_ = -d.double_take, -d.double_pass
    else:
        take, pass_ = 1.0 - d.double_take, 1.0 - d.double_pass
    beaver = d.take and d.beaver and _beaver_allowed(state, rules)
    action = "beaver" if beaver else "take" if d.take else "pass"
    return TakeAdvice(EQUITY if state.is_money else MWC, take, pass_, action, beaver, probs)


# -- resignations ----------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ResignationAdvice:
    """The answer to a resignation, for the player it is offered to (values for it)."""

    #: :data:`EQUITY` (points, cube included), :data:`MWC` or :data:`PUBEVAL` (the answer
    #: only: ``offered``, ``play_on`` and the chances are None)
    unit: str
    #: the resignation's level (1 single game, 2 gammon, 3 backgammon) and its points
    level: int
    points: int
    #: what accepting is worth: the points (money) or the match winning chances after them
    offered: float | None
    #: what playing on is worth (cubeful equity or match winning chances), or None when
    #: only the rules decided (the offer gives up nothing)
    play_on: float | None
    #: whether to accept
    accept: bool
    #: the chances of the player the offer is made to (cubeless; None from pubeval)
    probabilities: Probabilities | None


def resignation_advice(
    position: Position,
    state: MatchState,
    level: int,
    *,
    evaluator: Evaluator | None = None,
) -> ResignationAdvice:
    """Accept or decline a resignation of ``level`` (R31), for the player it is offered to
    (``position`` seen from that player, who is found as
    :func:`~backgammon.bots.base.bot_player` does); the decision is the one of
    :meth:`~backgammon.bots.neural.ExpertBot.accept_resignation`. Pubeval's rule (accept only
    what gives up nothing; unit :data:`PUBEVAL`, no numbers) when the neural engine cannot
    load.

    >>> from backgammon import Position
    >>> s = MatchState(player_on_roll=1, turn=0, resignation=1, jacoby=False)
    >>> a = resignation_advice(Position.initial(), s, 1)
    >>> a is not None and (a.accept, a.offered, a.points)
    (True, 1.0, 1)
    """
    from .base import bot_player, max_win_level, resignation_level, resignation_points
    from .neural import _proper, cube_decision
    from ..engine.met import mwc

    ev = evaluator if evaluator is not None else engine()
    level = resignation_level(level)
    me = bot_player(state, answering=True)
    points = resignation_points(level, state, me)
    if ev is None:
        accept = _pubeval().accept_resignation(position, state, level)
        return ResignationAdvice(PUBEVAL, level, points, None, None, accept, None)
    n = state.match_length
    if state.is_money:
        offered = float(points)
    else:
        offered = mwc(n - state.score[me] - points, n - state.score[1 - me], _post(state))
    probs = ev.evaluate(position) if me == state.player_on_roll else ev.evaluate(position.swap()).flip()
    if points >= resignation_points(max_win_level(position), state, me):
        return ResignationAdvice(EQUITY if state.is_money else MWC, level, points, offered,
                                 None, True, probs)
    if me == state.player_on_roll:
        play_on = _proper(cube_decision(probs, position, state, me))
    else:
        other = _proper(cube_decision(probs.flip(), position.swap(), state, 1 - me))
        play_on = -other if state.is_money else 1.0 - other
    # ExpertBot.accept_resignation's rule: the offer is worth at least playing on
    accept = offered >= play_on if state.is_money else offered >= play_on - 1e-12
    return ResignationAdvice(EQUITY if state.is_money else MWC, level, points, offered,
                             play_on, accept, probs)
