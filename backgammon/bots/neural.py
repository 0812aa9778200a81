"""Bots built on the neural engine (:mod:`backgammon.engine`).

* ``expert`` — 0 ply: every play of the roll is evaluated in one batched call (the
  resulting position from the opponent's side, on roll, then flipped) and the play with the
  best cubeless equity is made;
* ``worldclass`` — 1 ply with a move filter (:class:`WorldClassBot`): up to 5 plays within
  0.16 of the best at 0 ply are evaluated over every opponent roll and reply;
* ``grandmaster`` — the same, then 2 ply on the best 3 within 0.06 at 1 ply (the strongest
  level; its filters measured, :class:`GrandmasterBot`);
* ``intermediate``, ``casual``, ``beginner`` — the 0-ply bot with Gaussian noise of
  standard deviation 0.05, 0.12 and 0.25 (in equity) added to each play's equity before
  choosing (:class:`NoisyBot`, gnubg's idea of weaker levels), so a beginner can win
  sometimes. The noise comes from the bot's seeded ``rng``: a seeded game is reproducible.
  Cube and resignation decisions stay those of ``expert``.

Options: ``weights`` (a path to an ``.npz`` weights file or training checkpoint; default the
shipped weights) and ``seed`` (unused: the bot is deterministic).

Cube and resignations (one 0-ply evaluation each, :mod:`backgammon.engine.cube` and
:mod:`backgammon.engine.met`): in money play Janowski's cubeful equities from the network's
probabilities (cube efficiency 0.68 in contact, 0.6–0.7 in races, 0.6 in bear-offs —
gnubg's values; Jacoby rule when it is on); in a match the same model in match winning
chances on the Kazaross-XG2 match equity table.
The bot doubles when double/take or double/pass beats no double, takes when double/take is
at most double/pass for the doubler, beavers (money only) when its equity after taking is
clearly positive, and accepts a resignation worth at least its own cubeful equity (money)
or match winning chances (match).

>>> from backgammon import Position
>>> from backgammon.bots import load
>>> bot = load("expert")
>>> bot.choose_move(Position.initial(), (3, 1)) in Position.initial().legal_moves((3, 1))
True
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from pathlib import Path

import numpy as np

from ..engine.cube import CubeDecision, CubeOwner, cube_efficiency, money_decision
from ..engine.evaluator import Evaluator, default_evaluator, equities
from ..engine.met import match_decision, mwc
from ..engine.probabilities import Probabilities
from ..matchid import MatchState, Resignation
from ..position import LegalMoves, Position
from .base import (
    Bot,
    CubeResponse,
    Seed,
    bot_player,
    is_post_crawford,
    last_roll_chances,
    may_double,
    resignation_level,
    resignation_offer,
)
from .registry import register

__all__ = ["NOISE_LEVELS", "BeginnerBot", "CasualBot", "ExpertBot", "GrandmasterBot",
           "IntermediateBot", "NoisyBot", "WorldClassBot"]

#: Standard deviation of the equity noise of the weaker levels.
NOISE_LEVELS = {"intermediate": 0.05, "casual": 0.12, "beginner": 0.25}



def cube_decision(probs: Probabilities, position: Position, state: MatchState,
                  roller: int) -> CubeDecision:
    """The cube decision of ``roller`` (a Match ID player), on roll in ``position`` (seen
    from ``roller``) with the probabilities ``probs``: money equities in points (cube
    included), match ones in match winning chances."""
    if state.cube_owner is None:
        owner = CubeOwner.CENTRED
    elif state.cube_owner == roller:
        owner = CubeOwner.PLAYER
    else:
        owner = CubeOwner.OPPONENT
    if state.is_money:
        race = position.is_race()
        home = all(n == 0 for n in (*position.player[6:], *position.opponent[6:]))
        x = cube_efficiency(race, position.pip_count()[0], bearoff=race and home)
        return money_decision(probs, x=x, cube=state.cube_value, owner=owner,
                              jacoby=state.jacoby)
    n = state.match_length
    return match_decision(probs, n - state.score[roller], n - state.score[1 - roller],
                          cube=state.cube_value, owner=owner, crawford_game=state.crawford,
                          post=is_post_crawford(state))


def _proper(d: CubeDecision) -> float:
    """The cubeful value of the position for the side on roll (it doubles when it should)."""
    if d.double:
        return min(d.double_take, d.double_pass)
    return d.no_double


#: Evaluators of weights files already loaded in this process, by (path, mtime, size):
#: a benchmark that makes a bot a game loads its file once (at most this many kept).
_LOADED_MAX = 8
_loaded: OrderedDict[tuple[str, int, int], Evaluator] = OrderedDict()
_loaded_lock = threading.Lock()


def evaluator_of(weights: str | Path) -> Evaluator:
    """The evaluator of the weights file ``weights``, loaded once per process (again when
    the file changes).

    >>> from backgammon.engine.evaluator import DEFAULT_WEIGHTS
    >>> evaluator_of(DEFAULT_WEIGHTS) is evaluator_of(str(DEFAULT_WEIGHTS))
    True
    """
    path = Path(weights).resolve()
    st = path.stat()
    key = (str(path), st.st_mtime_ns, st.st_size)
    with _loaded_lock:
        ev = _loaded.get(key)
        if ev is not None:
            _loaded.move_to_end(key)
            return ev
    ev = Evaluator.from_file(path)
    with _loaded_lock:
        _loaded[key] = ev
        while len(_loaded) > _LOADED_MAX:
            _loaded.popitem(last=False)
    return ev


@register("expert")
class ExpertBot(Bot):
    """The 0-ply neural bot (module docs)."""

    name = "expert"

    def __init__(self, *, weights: str | Path | None = None, seed: Seed = None) -> None:
        super().__init__(seed=seed)
        self.evaluator = default_evaluator() if weights is None else evaluator_of(weights)

    def choose_index(self, legal: LegalMoves) -> int:
        """The first play with the best 0-ply cubeless equity."""
        if len(legal) == 1:
            return 0
        return int(np.argmax(self.evaluator.play_equities(legal)))

    def cube_decision(self, position: Position, state: MatchState, roller: int) -> CubeDecision:
        """The cube decision of ``roller``, on roll in ``position`` (seen from ``roller``)."""
        return cube_decision(self.evaluator.evaluate(position), position, state, roller)

    def should_double(self, position: Position, state: MatchState) -> bool:
        """Double when double/take or double/pass is worth more than no double (cubeful)."""
        me = state.player_on_roll
        if not may_double(state, me):
            return False
        return self.cube_decision(position, state, me).double

    def respond_to_double(self, position: Position, state: MatchState) -> CubeResponse:
        """Take when double/take is at most double/pass for the doubler; beaver (money only)
        when the bot's equity after taking is clearly positive."""
        me = bot_player(state, answering=True)
        d = self.cube_decision(position.swap(), state, 1 - me)
        if not d.take:
            return CubeResponse.PASS
        if state.is_money and d.beaver:
            return CubeResponse.BEAVER
        return CubeResponse.TAKE

    def accept_resignation(
        self, position: Position, state: MatchState, offer: Resignation | int | str
    ) -> bool:
        """Accept when the offer is worth at least the bot's cubeful equity (money, in
        points) or match winning chances (match), or when it gives up nothing."""
        if super().accept_resignation(position, state, offer):
            return True
        level = resignation_level(offer)
        me = bot_player(state, answering=True)
        if me == state.player_on_roll:
            value = _proper(self.cube_decision(position, state, me))
        else:  # the resigner is on roll: its cubeful value, negated (or 1 - its MWC)
            view = position.swap()
            other = _proper(self.cube_decision(view, state, 1 - me))
            value = -other if state.is_money else 1.0 - other
        if state.is_money:
            return self.resignation_value(level, state) >= value
        n = state.match_length
        gain = min(level * state.cube_value, n - state.score[me])
        post = is_post_crawford(state) or state.crawford
        won = mwc(n - state.score[me] - gain, n - state.score[1 - me], post)
        return won >= value - 1e-12

    def offer_resignation(self, position: Position, state: MatchState) -> int:
        """Offer to resign only when it is safe (R31), as gnubg: when one result is left.

        Only in a race (no contact: the estimates of contact positions are not to be
        trusted that far). The chances come from the rules when the race is over but for
        this roll (:func:`~.base.last_roll_chances`: the opponent bears off with any roll),
        else from one 0-ply evaluation for the bot on roll (exact in a bear-off). The level
        is :func:`~.base.resignation_offer`'s: the smallest whose value to the opponent
        every other result (a win, a smaller or a bigger loss) misses with a chance below
        :data:`~.base.RESIGN_TOLERANCE` — a single game when the bot cannot win and a gammon
        is practically impossible, a gammon when it is practically certain and a backgammon
        practically impossible, a backgammon when even that is certain. Under the Jacoby
        rule every loss is worth a single game; in a match the points count up to what the
        opponent needs, and an offer that hands over the match is made only when the game
        cannot be won at all.
        """
        if not position.is_race():
            return 0
        chances = last_roll_chances(position)
        if chances is None:
            p = self.evaluator.evaluate(position)
            chances = (p.win, p.lose_gammon, p.lose_backgammon)
        return resignation_offer(position, state, *chances)


#: A move filter stage: keep at most ``count`` plays within ``threshold`` (cubeless
#: equity) of the best at this ply.
FilterStage = tuple[int, float]


@register("worldclass")
class WorldClassBot(ExpertBot):
    """Look-ahead with a move filter, as gnubg does: every play is evaluated at 0 ply, the
    best few (``filters[0]``: at most 5 within 0.16 of the best) go on to 1 ply (every
    opponent roll, its best 0-ply reply, averaged), and with ``plies=2`` the best of those
    (``filters[1]``: at most 3 within 0.06) to 2 ply. Each stage is one compiled, batched
    call (the 2-ply one caches the positions met again across the candidates). The best
    play at the last ply is made. Cube decisions are the ``expert``'s.

    >>> from backgammon import Position
    >>> from backgammon.bots import load
    >>> bot = load("worldclass")
    >>> bot.choose_move(Position.initial(), (6, 4)) in Position.initial().legal_moves((6, 4))
    True
    """

    name = "worldclass"
    #: the default depth and filter stages of this level
    PLIES = 1
    FILTERS: tuple[FilterStage, ...] = ((5, 0.16), (3, 0.06))

    def __init__(self, *, weights: str | Path | None = None, plies: int | None = None,
                 filters: tuple[FilterStage, ...] | None = None, seed: Seed = None) -> None:
        super().__init__(weights=weights, seed=seed)
        self.plies = self.PLIES if plies is None else plies
        self.filters = self.FILTERS if filters is None else filters
        if self.plies not in (1, 2) or len(self.filters) < self.plies:
            raise ValueError(f"plies={self.plies!r}: 1 or 2, with a filter stage per ply")

    def choose_index(self, legal: LegalMoves) -> int:
        """The best play at the last ply among the candidates that pass the filters."""
        if len(legal) == 1:
            return 0
        keep = np.arange(len(legal))
        eq = self.evaluator.play_equities(legal)
        for ply in range(1, self.plies + 1):
            count, threshold = self.filters[ply - 1]
            order = np.argsort(-eq, kind="stable")[:count]
            order = order[eq[order] >= eq[order[0]] - threshold]
            keep = keep[order]
            if len(keep) == 1:
                return int(keep[0])
            # the opponent is on roll after each play: its outputs, turned to the mover
            outs = self.evaluator.outputs_at(legal.boards[keep], ply)
            eq = -equities(outs)
        return int(keep[int(np.argmax(eq))])


@register("grandmaster")
class GrandmasterBot(WorldClassBot):
    """``worldclass`` searching 2 plies deep on its best 3 candidates within 0.06 at 1 ply
    (``load("grandmaster")``, tested in tests/test_engine.py).

    The filters were measured on 280 decisions of expert self-play against a wide
    reference (1 ply on the best 8 within 0.30, 2 ply on the best 6 of those): 3 within
    0.06 misses the reference's best 2-ply play 9 times (0.0005 equity per decision, by
    2 ply), 3 within 0.10 7 times (0.0003), 4 within 0.10 once (0.0001) — for 1.8, 2.2
    and 2.7 candidates at 2 ply on average; widening the first stage (8 within 0.30)
    changed next to nothing. The wider stages cost a third more time per decision and
    bring the 2-ply decision level with gnubg-nn's (``benchmarks/evalspeed.py``) for at
    most a hundredth of a point per game, so the filters stay."""

    name = "grandmaster"
    PLIES = 2


class NoisyBot(ExpertBot):
    """The 0-ply bot with Gaussian noise on each play's equity (the weaker levels).

    >>> from backgammon import Position
    >>> from backgammon.bots import load
    >>> bot = load("beginner", seed=1)
    >>> bot.choose_move(Position.initial(), (3, 1)) in Position.initial().legal_moves((3, 1))
    True
    """

    name = "noisy"

    def __init__(self, *, noise: float = 0.05, weights: str | Path | None = None, seed: Seed = None) -> None:
        super().__init__(weights=weights, seed=seed)
        if not noise >= 0:
            raise ValueError(f"noise={noise!r}: a standard deviation is at least 0")
        self.noise = float(noise)

    def choose_index(self, legal: LegalMoves) -> int:
        """The play with the best 0-ply equity after adding the noise."""
        if len(legal) == 1:
            return 0
        equities = self.evaluator.play_equities(legal)
        noisy = [float(e) + self.rng.gauss(0.0, self.noise) for e in equities]
        return max(range(len(noisy)), key=noisy.__getitem__)


@register("intermediate")
class IntermediateBot(NoisyBot):
    """``intermediate``: 0 ply with equity noise ``NOISE_LEVELS["intermediate"]``."""

    name = "intermediate"

    def __init__(self, *, weights: str | Path | None = None, seed: Seed = None) -> None:
        super().__init__(noise=NOISE_LEVELS[self.name], weights=weights, seed=seed)


@register("casual")
class CasualBot(IntermediateBot):
    """``casual``: 0 ply with equity noise ``NOISE_LEVELS["casual"]``."""

    name = "casual"


@register("beginner")
class BeginnerBot(IntermediateBot):
    """``beginner``: 0 ply with equity noise ``NOISE_LEVELS["beginner"]``."""

    name = "beginner"
