"""Rollouts: a position's value measured by playing it out many times.

:func:`rollout` plays ``settings.games`` trials from a position (seen from the side on
roll, before its roll) to the end of the game, or for ``settings.truncate`` plies, both
sides choosing their plays with the engine at 0 ply (or 1 ply on the best few by 0 ply),
and averages the outcomes (win, win gammon, win backgammon, lose gammon, lose backgammon,
from the side on roll's view). :func:`rollout_plays` rolls out each candidate play of a roll.

* **Variance reduction** (on by default, as gnubg's): each trial's outcome is adjusted by
  the luck of its rolls, measured with the network over the 21 rolls at each ply (see
  :mod:`backgammon.engine._rollout_kernels`): same expectation, a much smaller standard
  error for the same number of games.
* **Quasi-random dice** (on by default): the first two rolls are stratified over the trials
  (trial ``i`` gets first roll ``i mod 36``, and every 1296 trials see each pair of first two
  rolls once); the other dice come from a generator seeded with ``(seed, trial)``.
* **Reproducible**: the same position, settings and seed give the same result to the last
  bit whatever the number of workers, the chunk size, or stops and resumes: each trial's
  dice depend only on the seed and its index, and the per-trial results are summed in trial
  order.
* **Bear-off truncation** (on by default, ``bearoff_truncation``, as gnubg's default): a
  cubeless trial that reaches a bear-off (every checker of both sides home) stops there and
  takes the exact value of the one-sided tables: the same expectation, faster races.
* **Cubeful** (``cubeful=True``, gnubg's "cubeful rollout"): the trials hold a cube. Before
  each roll the side on roll considers doubling with the bots' cube model
  (:func:`backgammon.bots.neural.cube_decision` on the 0-ply probabilities: money by
  Janowski with the cube's owner, the Jacoby rule of the Match ID and ``cube_limit``; a match
  by the match equity table with Crawford, post-Crawford and dead cubes); the other side
  takes or passes (no beavers); a pass ends the trial. With ``double_at_start=False`` the
  side on roll does not double before its first roll (the "no double" line of a cube
  decision; "double/take" is a rollout with the doubled cube on the other side). The cube starts as the
  :class:`~backgammon.matchid.MatchState` says. Each trial's cubeful result is money
  equity per starting cube (a 2-cube gammon won from a 1-cube start is +4), or the match
  winning chances, reported with their standard error apart from the cubeless figures:
  ``cubeful_equity`` (money points, or in a match EMG as :mod:`backgammon.analysis.match`
  converts MWC) and ``cubeful_mwc``. Variance reduction adjusts the cubeful result by the
  luck of each roll measured with the cubeful value of the positions (the next side's
  proper cube action on the 0-ply probabilities after each roll's best play), the cubeless
  outputs by their own luck (:mod:`backgammon.engine._rollout_kernels`). A trial ended by a
  pass gives the cubeless figures the evaluation of the position there, so the cubeless
  figures of a cubeful rollout differ a little from those of a cubeless one (the same
  expectation but for the evaluator's error).
* **Parallel**: the trials are cut into chunks of ``settings.chunk`` trials; each chunk is
  one call of :func:`run_chunk`, on worker processes (every core by default;
  ``workers=1`` stays in this process) or as Ray tasks on a cluster (``ray_address``; an
  existing ``ray.init`` connection is used as it is).
* **Stop and resume**: Ctrl-C (a :class:`KeyboardInterrupt`) during :func:`rollout` raises
  :class:`RolloutInterrupted` with the :class:`RolloutState` so far (JSON); ``rollout(...,
  resume=state)`` goes on and ends with the same result as an uninterrupted run.

>>> from backgammon import Position
>>> last = Position([1] + [0] * 24, [0] * 5 + [1] + [0] * 19)  # one checker each, mine on the 1
>>> r = rollout(last, settings=RolloutSettings(games=36, workers=1))
>>> r.probabilities.win, r.equity, r.games
(1.0, 1.0, 36)
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, fields, replace
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import BackgammonError
from ..matchid import MatchState
from ..position import Position

if TYPE_CHECKING:
    from numpy.typing import NDArray

    from ..engine.probabilities import Probabilities

__all__ = ["ProgressCallback", "RolloutError", "RolloutInterrupted", "RolloutResult", "RolloutSettings",
           "RolloutState", "read_saved", "rollout", "rollout_plays", "rollout_state", "run_chunk"]

#: ``progress(done, total, estimate)``: ``done`` trials of ``total`` are summed; ``estimate``
#: is the result so far (of the play whose chunk came in, for :func:`rollout_plays`).
ProgressCallback = Callable[[int, int, "RolloutResult"], None]

_STATE_FORMAT = "backgammon-rollout-state"
_RESULT_FORMAT = "backgammon-rollout"
#: the settings that change the result (the others only change how it is computed)
_IDENTITY = ("plies", "cubeful", "truncate", "variance_reduction", "quasi_random", "seed",
             "bearoff_truncation", "cube_limit", "double_at_start")
#: the cubeless equity is ``_EQUITY @ outputs - 1`` (its variance ``_EQUITY @ cov @ _EQUITY``)
_EQUITY = np.array([2.0, 1.0, 1.0, -1.0, -1.0])
#: the default number of candidate plays of :func:`rollout_plays`, and their 0-ply window
PLAYS_COUNT = 5
PLAYS_MARGIN = 0.16


class RolloutError(BackgammonError):
    """Settings, a saved state or a resume that do not fit."""


# -- settings ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class RolloutSettings:
    """How to roll out (see the module docstring).

    >>> RolloutSettings(games=0)
    Traceback (most recent call last):
    ...
    backgammon.analysis.rollout.RolloutError: games=0: a rollout needs at least 1 game
    """

    #: trials to play
    games: int = 1296
    #: the chequer play's look-ahead: 0, or 1 (1 ply on the best 8 plays by 0 ply)
    plies: int = 0
    #: cube actions inside the trials: also the cubeful equity (module docstring)
    cubeful: bool = False
    #: stop each trial after this many plies and take the evaluation there (0: to the end)
    truncate: int = 0
    #: the luck adjustment
    variance_reduction: bool = True
    #: stratified first two rolls
    quasi_random: bool = True
    #: the dice's seed
    seed: int = 1
    #: worker processes (None: every core; 1: this process); ignored with ``ray_address``
    workers: int | None = None
    #: a Ray cluster's address (``"auto"``, ``"ray://host:10001"``, ``"local"``)
    ray_address: str | None = None
    #: trials per unit of work
    chunk: int = 36
    #: a cubeless trial stops when both sides are in the bear-off tables (exact value there)
    bearoff_truncation: bool = True
    #: the highest cube of a cubeful trial (R26; a power of 2, None: no limit)
    cube_limit: int | None = None
    #: cubeful: the side on roll may double before its first roll (False: the "no double"
    #: line of a cube decision, as gnubg's rollout of a position seems to be)
    double_at_start: bool = True

    def __post_init__(self) -> None:
        def whole(name: str, low: int) -> None:
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value < low:
                raise RolloutError(f"games={value!r}: a rollout needs at least 1 game"
                                   if name == "games" else
                                   f"{name}={value!r}: a whole number from {low} up")

        whole("games", 1)
        whole("truncate", 0)
        whole("chunk", 1)
        if not isinstance(self.seed, int) or isinstance(self.seed, bool) or not 0 <= self.seed < 2 ** 63:
            raise RolloutError(f"seed={self.seed!r}: a whole number from 0 to 2**63 - 1")
        if self.plies not in (0, 1) or isinstance(self.plies, bool):
            raise RolloutError(f"plies={self.plies!r}: rollouts play at 0 or 1 ply")
        if self.workers is not None:
            whole("workers", 1)
        limit = self.cube_limit
        if limit is not None and (not isinstance(limit, int) or isinstance(limit, bool)
                                  or limit < 1 or limit & (limit - 1)):
            raise RolloutError(f"cube_limit={limit!r}: a power of 2 (1, 2, 4 ...) or None (R26)")

    def to_dict(self) -> dict[str, Any]:
        """The settings as JSON values."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RolloutSettings:
        """Inverse of :meth:`to_dict` (unknown keys refused).

        >>> s = RolloutSettings(games=72, seed=5)
        >>> RolloutSettings.from_dict(s.to_dict()) == s
        True
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise RolloutError(f"rollout settings {unknown!r}: not settings of a rollout "
                               f"({', '.join(sorted(known))})")
        return cls(**dict(data))

    def identity(self) -> dict[str, Any]:
        """The settings that change the result (those a resume must keep)."""
        return {name: getattr(self, name) for name in _IDENTITY}


# -- results ----------------------------------------------------------------------------------


_NAMES = ("win", "win_gammon", "win_backgammon", "lose_gammon", "lose_backgammon")


@dataclass(frozen=True)
class RolloutResult:
    """A rollout's result, for the side on roll of the position rolled out (for
    :func:`rollout_plays`: for the side that made the play).

    Cubeless: ``probabilities`` are the means clipped consistent; ``equity`` is the cubeless
    equity of the unclipped means; ``standard_errors`` those of the five means, ``equity_se``
    the equity's. Cubeful (with ``settings.cubeful``, the trials' own cube actions):
    ``cubeful_equity`` ± ``cubeful_se`` in ``unit``: ``"points"`` (money: points per game
    for the starting cube, a 2-cube gammon won from a 1-cube start is +4) or ``"emg"``
    (match: EMG, the match winning chances ``cubeful_mwc`` ± ``cubeful_mwc_se`` turned into
    equivalent money as the match analysis does). Results saved by version 1 (cubeful was
    Janowski's formula on the cubeless means) read back with ``unit`` ``"mwc"`` for matches.
    """

    probabilities: Probabilities
    equity: float
    standard_errors: tuple[float, float, float, float, float]
    equity_se: float
    games: int
    settings: RolloutSettings
    cubeful_equity: float | None = None
    cubeful_se: float | None = None
    #: ``"points"`` (money), ``"emg"`` (match), ``"mwc"`` (a match result of version 1)
    unit: str = "points"
    position_id: str = ""
    match_id: str = ""
    #: match play: the cubeful match winning chances and their standard error
    cubeful_mwc: float | None = None
    cubeful_mwc_se: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """The result as JSON values."""
        return {
            "format": _RESULT_FORMAT, "version": 2,
            "position_id": self.position_id, "match_id": self.match_id,
            "games": self.games,
            "probabilities": dict(zip(_NAMES, self.probabilities.as_tuple())),
            "standard_errors": dict(zip(_NAMES, self.standard_errors)),
            "equity": self.equity, "equity_se": self.equity_se,
            "cubeful_equity": self.cubeful_equity, "cubeful_se": self.cubeful_se,
            "unit": self.unit,
            "cubeful_mwc": self.cubeful_mwc, "cubeful_mwc_se": self.cubeful_mwc_se,
            "settings": self.settings.to_dict(),
        }

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RolloutResult:
        """Inverse of :meth:`to_dict` (also reads version 1)."""
        from ..engine.probabilities import Probabilities

        if data.get("format") != _RESULT_FORMAT:
            raise RolloutError(f"format {data.get('format')!r}: not a rollout result "
                               f"({_RESULT_FORMAT!r})")
        if data.get("version", 1) not in (1, 2):
            raise RolloutError(f"version {data.get('version')!r}: a rollout result of version "
                               "1 or 2 is expected (a newer program wrote it?)")

        def opt(name: str) -> float | None:
            value = data.get(name)
            return None if value is None else float(value)

        try:
            probs = Probabilities(*(float(data["probabilities"][n]) for n in _NAMES))
            ses = tuple(float(data["standard_errors"][n]) for n in _NAMES)
            settings = dict(data["settings"])
            if data.get("version", 1) == 1:
                settings.setdefault("bearoff_truncation", False)
            return cls(probs, float(data["equity"]), (ses[0], ses[1], ses[2], ses[3], ses[4]),
                       float(data["equity_se"]), int(data["games"]),
                       RolloutSettings.from_dict(settings), opt("cubeful_equity"),
                       opt("cubeful_se"), str(data.get("unit", "points")),
                       str(data.get("position_id", "")), str(data.get("match_id", "")),
                       opt("cubeful_mwc"), opt("cubeful_mwc_se"))
        except (KeyError, TypeError, ValueError) as exc:
            if isinstance(exc, RolloutError):
                raise
            raise RolloutError(f"not a rollout result: {exc!r} in {dict(data)!r:.200}") from None

    def __str__(self) -> str:
        p = self.probabilities
        text = (f"win {p.win:.4f} ({p.win_gammon:.4f} g, {p.win_backgammon:.4f} bg)  "
                f"lose {p.lose:.4f} ({p.lose_gammon:.4f} g, {p.lose_backgammon:.4f} bg)  "
                f"equity {self.equity:+.4f} ± {self.equity_se:.4f}")
        if self.cubeful_equity is not None:
            text += f"  cubeful {self.cubeful_equity:+.4f} ± {self.cubeful_se or 0.0:.4f}"
            if self.unit == "mwc":
                text += " MWC"
            elif self.unit == "emg":
                text += f" EMG ({self.cubeful_mwc or 0.0:.4f} MWC)"
        return text + f"  ({self.games} games)"


# -- state ------------------------------------------------------------------------------------


def read_saved(path: str | Path) -> Any:
    """The JSON of a file a rollout saved (a :class:`RolloutState`, or the command's states
    of several plays); :class:`RolloutError` with a sentence when it cannot be read."""
    try:
        return json.loads(Path(path).read_text(encoding="utf-8"))
    except OSError as exc:
        raise RolloutError(f"cannot read {path}: {exc.strerror or exc}") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise RolloutError(f"{path} is not JSON ({exc}): give a file saved by a rollout") from None


@dataclass
class RolloutState:
    """Where a rollout stands: the sums over its first ``trials`` trials (in trial order),
    and the results of chunks already done beyond them (``pending``: first trial -> rows).
    Each trial is a row of 5 cubeless figures, and with ``settings.cubeful`` a sixth, the
    cubeful result (money: points per starting cube; match: the MWC). Saved as JSON
    (:meth:`to_dict`, :meth:`save`, version 2; version 1 files of cubeless rollouts still
    load); floats round-trip exactly."""

    position_id: str
    match_id: str
    settings: RolloutSettings
    trials: int = 0
    sums: NDArray[np.float64] = field(default_factory=lambda: np.zeros(0))
    cross: NDArray[np.float64] = field(default_factory=lambda: np.zeros((0, 0)))
    pending: dict[int, NDArray[np.float64]] = field(default_factory=dict)

    def __post_init__(self) -> None:
        w = self.width
        if self.sums.shape == (0,):
            self.sums = np.zeros(w)
        if self.cross.shape == (0, 0):
            self.cross = np.zeros((w, w))
        if self.sums.shape != (w,) or self.cross.shape != (w, w) or self.trials < 0:
            raise RolloutError(f"a saved rollout with sums of shape {self.sums.shape} and "
                               f"{self.cross.shape}: expected ({w},) and ({w}, {w})")

    @property
    def width(self) -> int:
        """Figures per trial: 5 (cubeless), 6 (cubeful)."""
        return 6 if self.settings.cubeful else 5

    @property
    def done(self) -> int:
        """Trials played (summed or pending)."""
        return self.trials + sum(len(r) for r in self.pending.values())

    def add(self, start: int, results: NDArray[np.float64]) -> None:
        """Take in the rows of trials ``start ..``; sum every chunk that now follows on."""
        from ..engine import _rollout_kernels

        accumulate: Any = _rollout_kernels.accumulate
        self.pending[start] = results
        while self.trials in self.pending:
            rows = self.pending.pop(self.trials)
            accumulate(rows, self.sums, self.cross)
            self.trials += len(rows)

    def to_dict(self) -> dict[str, Any]:
        """The state as JSON values."""
        return {"format": _STATE_FORMAT, "version": 2, "position_id": self.position_id,
                "match_id": self.match_id, "settings": self.settings.to_dict(),
                "trials": self.trials, "sums": self.sums.tolist(), "cross": self.cross.tolist(),
                "pending": [[s, r.tolist()] for s, r in sorted(self.pending.items())]}

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> RolloutState:
        """Inverse of :meth:`to_dict`. A version 1 state (before the bear-off truncation
        and the cube actions in the trials) loads when cubeless, as played: without the
        bear-off truncation."""
        if not isinstance(data, Mapping) or data.get("format") != _STATE_FORMAT:
            found = data.get("format") if isinstance(data, Mapping) else type(data).__name__
            raise RolloutError(f"format {found!r}: not a saved rollout ({_STATE_FORMAT!r})")
        version = data.get("version", 1)
        if version not in (1, 2):
            raise RolloutError(f"version {version!r}: a saved rollout of version 1 or 2 is "
                               "expected (a newer program wrote it?)")
        try:
            settings_data = dict(data["settings"])
            if version == 1:
                if settings_data.get("cubeful"):
                    raise RolloutError(
                        "a cubeful rollout saved by version 1 (Janowski's formula on the "
                        "cubeless means, no cube in its trials) cannot go on as a rollout with "
                        "cube actions: start it again")
                settings_data.setdefault("bearoff_truncation", False)
            settings = RolloutSettings.from_dict(settings_data)
            width = 6 if settings.cubeful else 5
            sums = np.array(data["sums"], np.float64)
            cross = np.array(data["cross"], np.float64)
            pending = {int(s): np.array(r, np.float64).reshape(-1, width)
                       for s, r in data["pending"]}
            return cls(str(data["position_id"]), str(data["match_id"]), settings,
                       int(data["trials"]), sums, cross, pending)
        except RolloutError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise RolloutError(f"a saved rollout with a broken field: {exc!r}") from None

    def save(self, path: str | Path) -> None:
        """Write the state as JSON to ``path`` (through a temporary file)."""
        target = Path(path)
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        tmp.write_text(json.dumps(self.to_dict()) + "\n", encoding="utf-8")
        os.replace(tmp, target)

    @classmethod
    def load(cls, path: str | Path) -> RolloutState:
        """Read a state written by :meth:`save`."""
        return cls.from_dict(read_saved(path))

    def result(self) -> RolloutResult:
        """The result over the summed trials (at least one)."""
        if self.trials < 1:
            raise RolloutError(f"the rollout of {self.position_id} has no games summed yet")
        return _result(self)


class RolloutInterrupted(KeyboardInterrupt):
    """Ctrl-C stopped a rollout: ``states`` (``state`` for :func:`rollout`) hold what was
    done, to save and resume."""

    def __init__(self, states: list[RolloutState]) -> None:
        super().__init__(f"rollout stopped after {sum(s.done for s in states)} games")
        self.states = states

    @property
    def state(self) -> RolloutState:
        """The (first) rollout's state."""
        return self.states[0]


# -- statistics -------------------------------------------------------------------------------


def _emg_unit(state: MatchState, player: int) -> Any:
    """The match analysis's unit of ``player`` (:mod:`backgammon.analysis.match`: MWC to
    EMG at the score and cube of ``state``)."""
    from .match import _unit

    return _unit(state, player)


def _result(st: RolloutState) -> RolloutResult:
    from ..engine.probabilities import Probabilities

    n = st.trials
    mean = st.sums / n
    if n > 1:
        cov = (st.cross - n * np.outer(mean, mean)) / (n - 1)
        cov = (cov + cov.T) / 2.0
    else:
        cov = np.zeros(st.cross.shape)
    diag = np.maximum(np.diag(cov), 0.0)
    ses = np.sqrt(diag / n)
    eq_var = max(float(_EQUITY @ cov[:5, :5] @ _EQUITY), 0.0)
    settings = st.settings
    cf = cfse = mwc = mwcse = None
    unit = "points"
    if settings.cubeful:
        cf, cfse = float(mean[5]), float(ses[5])
        mstate = MatchState.from_match_id(st.match_id)
        if not mstate.is_money:
            unit = "emg"
            mwc, mwcse = cf, cfse
            emg = _emg_unit(mstate, mstate.player_on_roll)
            cf, cfse = float(emg.emg(mwc)), float(emg.scale * mwcse)
    s = ses.tolist()
    return RolloutResult(Probabilities.from_outputs(mean[:5].tolist()),
                         float(_EQUITY @ mean[:5]) - 1.0, (s[0], s[1], s[2], s[3], s[4]),
                         math.sqrt(eq_var / n), n, settings, cf, cfse, unit, st.position_id,
                         st.match_id, mwc, mwcse)


# -- the work ---------------------------------------------------------------------------------

_worker_args: tuple[Any, ...] | None = None


def _engine_args() -> tuple[Any, ...]:
    """The network weights and bear-off tables, as the kernels take them (loaded once)."""
    global _worker_args
    if _worker_args is None:
        from ..engine import bearoff
        from ..engine.evaluator import default_evaluator

        ev = default_evaluator()
        _worker_args = (*ev.nets.kernel_args(), ev.bearoff, *bearoff.kernel_args(ev.bearoff))
    return _worker_args


@lru_cache(maxsize=64)
def _cube_args(match_id: str, cube_limit: int | None,
               double_at_start: bool = True) -> tuple[Any, ...]:
    """The cube as the kernels take it (``ci``, ``cf``, ``mt``, ``mv``: see
    :mod:`backgammon.engine._rollout_kernels`) for the side on roll of the Match ID (the
    root side): the starting cube, its owner, the Jacoby rule (money), the limit, and in a
    match the take and cash points of :mod:`backgammon.engine.met` at each cube level the
    trial may reach and the MWC after each result (Crawford, post-Crawford as the score
    says)."""
    from ..bots.base import is_post_crawford
    from ..engine import cube as cube_model
    from ..engine import met
    from ..engine._rollout_kernels import CUBE_INTS
    from ..engine.cube import CubeOwner

    state = MatchState.from_match_id(match_id)
    root = state.player_on_roll
    ci = np.zeros(CUBE_INTS, np.int64)
    ci[0] = 1 if state.is_money else 0
    ci[1] = state.cube_value
    ci[2] = 0 if state.cube_owner is None else (1 if state.cube_owner == root else 2)
    ci[3] = 1 if state.is_money and state.jacoby else 0
    ci[4] = cube_limit or 0
    ci[5] = 1 if state.crawford and not state.is_money else 0
    ci[9] = 1 if double_at_start else 0
    cf = np.array([cube_model.X_CONTACT, cube_model.X_BEAROFF, cube_model._RACE_COEFF,
                   cube_model._RACE_FACTOR, cube_model._RACE_MIN, cube_model._RACE_MAX,
                   met.X_MATCH])
    if state.is_money:
        return ci, cf, np.zeros((2, 1, 3, 2)), np.zeros((2, 1, 6))
    n = state.match_length
    aways = (n - state.score[root], n - state.score[1 - root])
    ci[7], ci[8] = aways
    levels = 2
    while state.cube_value << (levels - 2) < 2 * max(aways):
        levels += 1
    ci[6] = levels
    post = is_post_crawford(state) or state.crawford
    table = met.DEFAULT_MET
    owners = (CubeOwner.CENTRED, CubeOwner.PLAYER, CubeOwner.OPPONENT)
    mt = np.full((2, levels, 3, 2), np.nan)
    mv = np.zeros((2, levels, 6))
    for side in (0, 1):
        a, b = aways if side == 0 else aways[::-1]
        for k in range(levels):
            c = state.cube_value << k
            for o, owner in enumerate(owners):
                tp, cp = met._window(table, a, b, c, owner, post, state.crawford)
                mt[side, k, o] = (np.nan if tp is None else tp, np.nan if cp is None else cp)
            mv[side, k] = [table.mwc(a - j * c, b, post) for j in (1, 2, 3)] + \
                          [table.mwc(a, b - j * c, post) for j in (1, 2, 3)]
    return ci, cf, mt, mv


#: one unit of work: (job, key bytes, first trial, trials, seed, plies, truncate, vr, quasi,
#: cubeful, bear-off truncation, Match ID, cube limit, double at the start)
Task = tuple[int, bytes, int, int, int, int, int, bool, bool, bool, bool, str, "int | None", bool]


def run_chunk(task: Task) -> tuple[int, int, NDArray[np.float64]]:
    """Play one chunk of trials (the unit of work of the processes and of Ray):
    ``(job, first, rows)``, ``rows[t]`` the result of trial ``first + t`` from the root
    side's view (the same wherever it runs)."""
    from ..engine import _rollout_kernels

    kernel: Any = _rollout_kernels.rollout_trials
    (job, key, first, count, seed, plies, truncate, vr, quasi, cubeful, bstop, match_id,
     limit, at_start) = task
    out = np.zeros((count, 6 if cubeful else 5))
    k = np.frombuffer(key, np.uint8).copy()
    kernel(k, first, count, seed, plies, truncate, vr, quasi, cubeful, bstop,
           *_cube_args(match_id, limit, at_start), *_engine_args(), out)
    return job, first, out


def _init_worker() -> None:
    """A worker process: Ctrl-C is the parent's business; load the engine now."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _engine_args()


@dataclass
class _Job:
    key: bytes
    state: RolloutState


def _tasks(jobs: Sequence[_Job], settings: RolloutSettings) -> list[Task]:
    """The chunks still to play: every trial below ``games`` neither summed nor pending."""
    out: list[Task] = []
    s = settings
    for j, job in enumerate(jobs):
        st = job.state
        starts = sorted(st.pending)
        pos = st.trials
        while pos < s.games:
            if pos in st.pending:
                pos += len(st.pending[pos])
                continue
            end = min(pos + s.chunk, s.games, *(p for p in starts if p > pos))
            out.append((j, job.key, pos, end - pos, s.seed, s.plies, s.truncate,
                        s.variance_reduction, s.quasi_random, s.cubeful, s.bearoff_truncation,
                        st.match_id, s.cube_limit, s.double_at_start))
            pos = end
    # interleave the jobs' chunks, first trials first (estimates of every play grow together)
    out.sort(key=lambda t: (t[2], t[0]))
    return out


def _execute(jobs: list[_Job], settings: RolloutSettings, progress: ProgressCallback | None) -> None:
    """Run every job's missing chunks and add them to the jobs' states."""
    tasks = _tasks(jobs, settings)
    total = settings.games * len(jobs)

    def take(result: tuple[int, int, NDArray[np.float64]]) -> None:
        j, start, rows = result
        st = jobs[j].state
        st.add(start, rows)
        if progress is not None and st.trials > 0:
            progress(sum(job.state.done for job in jobs), total, st.result())

    if not tasks:
        return
    try:
        if settings.ray_address is not None:
            _on_ray(tasks, settings.ray_address, take)
            return
        workers = min(settings.workers or os.cpu_count() or 1, len(tasks))
        if workers <= 1:
            for task in tasks:
                take(run_chunk(task))
            return
        import multiprocessing

        method = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else "spawn"
        ctx = multiprocessing.get_context(method)
        pool = ctx.Pool(workers, initializer=_init_worker)
        try:
            for result in pool.imap_unordered(run_chunk, tasks):
                take(result)
            pool.close()
        finally:
            pool.terminate()
            pool.join()
    except KeyboardInterrupt:
        raise RolloutInterrupted([job.state for job in jobs]) from None


def _on_ray(tasks: list[Task], address: str,
            take: Callable[[tuple[int, int, NDArray[np.float64]]], None]) -> None:
    """Run the tasks as Ray tasks (connecting to ``address`` unless Ray is initialised)."""
    try:
        import ray
    except ImportError:
        raise RolloutError(f"ray_address={address!r}: Ray is not installed "
                           "(pip install 'backgammon[cluster]')") from None
    if not ray.is_initialized():
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    remote = ray.remote(run_chunk)
    refs = [remote.remote(t) for t in tasks]
    try:
        while refs:
            ready, refs = ray.wait(refs, num_returns=1)
            take(ray.get(ready[0]))
    finally:
        for ref in refs:
            ray.cancel(ref, force=True)


# -- the API ----------------------------------------------------------------------------------


def _key(position: Position) -> bytes:
    return bytes((*position.player, *position.opponent))


def _start(position: Position, state: MatchState, settings: RolloutSettings,
           resume: RolloutState | None) -> RolloutState:
    pid, mid = position.position_id(), state.to_match_id()
    if resume is None:
        return RolloutState(pid, mid, settings)
    if resume.position_id != pid:
        raise RolloutError(f"the saved rollout is of {resume.position_id}, not of {pid}")
    if settings.cubeful and resume.match_id != mid:
        raise RolloutError(f"the saved rollout is at Match ID {resume.match_id}, not {mid}")
    if resume.settings.identity() != settings.identity():
        raise RolloutError(f"the saved rollout has the settings {resume.settings.identity()}, "
                           f"not {settings.identity()}")
    if resume.done > settings.games:
        raise RolloutError(f"the saved rollout has {resume.done} games already, more than "
                           f"games={settings.games}")
    st = RolloutState(pid, mid, settings, resume.trials, resume.sums.copy(), resume.cross.copy(),
                      {s: r.copy() for s, r in resume.pending.items()})
    return st


def rollout_state(position: Position, state: MatchState | None = None,
                  settings: RolloutSettings = RolloutSettings(), *,
                  progress: ProgressCallback | None = None,
                  resume: RolloutState | None = None) -> RolloutState:
    """:func:`rollout`, returning the finished :class:`RolloutState` (to save and extend
    later; its :meth:`~RolloutState.result` is :func:`rollout`'s result)."""
    mstate = MatchState() if state is None else state
    st = _start(position, mstate, settings, resume)
    _execute([_Job(_key(position), st)], settings, progress)
    return st


def rollout(position: Position, state: MatchState | None = None,
            settings: RolloutSettings = RolloutSettings(), *,
            progress: ProgressCallback | None = None,
            resume: RolloutState | None = None) -> RolloutResult:
    """Roll ``position`` (the side on roll's view, before its roll) out (module docstring).

    ``state`` (money, centred cube by default; its cube value and owner, score, match
    length, Crawford game and Jacoby rule) is the cube the cubeful trials start with.
    ``resume``: a state saved from a stopped rollout of the same position and settings
    (``games`` may grow). Ctrl-C raises :class:`RolloutInterrupted` with the state so far.
    """
    return rollout_state(position, state, settings, progress=progress, resume=resume).result()


def _flipped(r: RolloutResult, position_id: str, state: MatchState) -> RolloutResult:
    """The result of the side that just moved (on roll in ``state``), from that of the side
    now on roll."""
    s = r.standard_errors
    cf, mwc = r.cubeful_equity, r.cubeful_mwc
    if cf is not None:
        if mwc is not None:
            mwc = 1.0 - mwc
            cf = float(_emg_unit(state, state.player_on_roll).emg(mwc))
        else:
            cf = -cf
    return replace(r, probabilities=r.probabilities.flip(), equity=-r.equity,
                   standard_errors=(s[0], s[3], s[4], s[1], s[2]), cubeful_equity=cf,
                   cubeful_mwc=mwc, position_id=position_id, match_id=state.to_match_id())


def rollout_plays(position: Position, dice: tuple[int, int], state: MatchState | None = None,
                  settings: RolloutSettings = RolloutSettings(), *, count: int | None = None,
                  progress: ProgressCallback | None = None,
                  resume: Sequence[RolloutState] | None = None) -> list[tuple[str, RolloutResult]]:
    """Roll out the candidate plays of ``dice`` in ``position``: by default the best
    :data:`PLAYS_COUNT` by 0 ply within :data:`PLAYS_MARGIN` equity of the best, with
    ``count`` the best ``count`` by 0 ply. Each play's position (the opponent on roll) is
    rolled out with the same settings and seed (the same dice: differences between plays
    are measured more finely than the plays themselves). Returns ``(move, result)`` pairs,
    results from the mover's view, best first (by cubeful equity with ``cubeful``).
    ``resume``: the states of :class:`RolloutInterrupted` (``states``) of the same call.
    """
    from ..engine.evaluator import default_evaluator

    mstate = MatchState() if state is None else state
    legal = position.legal_moves(dice)
    if len(legal) == 0:
        raise RolloutError(f"{position.position_id()} with {dice[0]}-{dice[1]}: no legal play "
                           "to roll out")
    if count is not None and (not isinstance(count, int) or count < 1):
        raise RolloutError(f"count={count!r}: at least 1 play")
    eqs = default_evaluator().play_equities(legal)
    order = sorted(range(len(legal)), key=lambda i: (-float(eqs[i]), i))
    if count is None:
        best = float(eqs[order[0]])
        order = [i for i in order if float(eqs[i]) >= best - PLAYS_MARGIN][:PLAYS_COUNT]
    else:
        order = order[:count]
    after_state = replace(mstate, player_on_roll=1 - mstate.player_on_roll,
                          turn=1 - mstate.player_on_roll, dice=None)
    jobs: list[_Job] = []
    for n, i in enumerate(order):
        pos = legal.position(i)
        saved = resume[n] if resume is not None and n < len(resume) else None
        jobs.append(_Job(_key(pos), _start(pos, after_state, settings, saved)))
    _execute(jobs, settings, progress)
    pid = position.position_id()
    out = [(legal.texts()[i], _flipped(job.state.result(), pid, mstate))
           for i, job in zip(order, jobs)]

    def value(item: tuple[str, RolloutResult]) -> float:
        r = item[1]
        return r.cubeful_equity if r.cubeful_equity is not None else r.equity

    return sorted(out, key=value, reverse=True)
