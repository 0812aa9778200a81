"""Position evaluation: encoding, network choice, bear-off tables, batched.

:class:`Evaluator` maps positions to :class:`~.probabilities.Probabilities`. Each position
(a 50-byte key, side on roll first, as in :attr:`backgammon.LegalMoves.boards`) is sent to
one of four evaluators:

* a finished game (a side has no checkers left): its exact result;
* a bear-off position (no contact, every checker home): the exact one-sided tables
  (:mod:`.bearoff`);
* a race (no contact): the race network;
* contact: the contact network.

All plays of a roll are evaluated in one batched call (:meth:`Evaluator.play_outputs`).

>>> from backgammon import Position
>>> ev = default_evaluator()
>>> p = ev.evaluate(Position.initial())
>>> 0.4 < p.win < 0.6
True
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ..position import LegalMoves, Position
from . import _kernels as K
from . import _search_kernels as S
from .network import Network, NetworkPair
from .probabilities import Probabilities
from .prune import Pruner
from .prune import kernel_args as prune_kernel_args

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Evaluator", "WEIGHTS_DIR", "default_evaluator", "encode", "equities", "flip_outputs",
           "key_of"]

#: Where the shipped weights live.
WEIGHTS_DIR = Path(__file__).resolve().parent / "weights"
#: The default weights file.
DEFAULT_WEIGHTS = WEIGHTS_DIR / "expert.npz"

def key_of(position: Position) -> NDArray[np.uint8]:
    """A position's key as a ``uint8[1, 50]`` batch of one (side on roll first)."""
    return np.frombuffer(bytes((*position.player, *position.opponent)), np.uint8).reshape(1, 50)


def encode(boards: NDArray[np.uint8], *, race_inputs: bool = False) -> NDArray[np.float64]:
    """Network inputs (``n × NUM_INPUTS``) of every row of ``boards`` (``uint8[n, 50]``);
    with ``race_inputs`` followed by the race network's own (``n × RACE_INPUTS``:
    :func:`._kernels.race_extra`), the inputs of a race network that has them.

    >>> from backgammon import Position
    >>> encode(key_of(Position.initial())).shape == (1, K.NUM_INPUTS)
    True
    >>> race = Position([0] * 5 + [2] * 5 + [3] + [0] * 14, [0] * 5 + [3] * 4 + [0] * 16)
    >>> x = encode(key_of(race), race_inputs=True)[0, K.NUM_INPUTS:]  # 2 off, 11 outside home
    >>> x[:14].tolist() == [1.0] * 2 + [0.0] * 12, round(float(x[14]), 4), round(float(x[15]), 4)
    (True, 1.1, 0.7333)
    """
    b = np.ascontiguousarray(boards, dtype=np.uint8)
    if b.ndim != 2 or b.shape[1] != 50:
        raise ValueError(f"boards of shape {b.shape}: expected (n, 50) position keys")
    out = np.zeros((b.shape[0], K.RACE_INPUTS if race_inputs else K.NUM_INPUTS))
    (K.encode_race_batch if race_inputs else K.encode_batch)(b, out)
    return out


def inputs_for(net: Network, boards: NDArray[np.uint8]) -> NDArray[np.float64]:
    """:func:`encode` of ``boards`` for ``net``: with the race inputs when its first layer
    has rows for them."""
    return encode(boards, race_inputs=net.w1.shape[0] == K.RACE_INPUTS)


def flip_outputs(out: NDArray[np.float64]) -> NDArray[np.float64]:
    """Outputs (``n × 5``) seen by the other side: win ↔ 1 − win, gammons swapped."""
    f = np.empty_like(out)
    f[:, 0] = 1.0 - out[:, 0]
    f[:, 1] = out[:, 3]
    f[:, 2] = out[:, 4]
    f[:, 3] = out[:, 1]
    f[:, 4] = out[:, 2]
    return f


def equities(out: NDArray[np.float64]) -> NDArray[np.float64]:
    """Cubeless equity of every row of outputs ``out`` (``n × 5``), for the side they are
    seen from: ``2·win − 1 + wg − lg + wbg − lbg``.

    >>> equities(np.array([[0.5, 0.2, 0.0, 0.1, 0.0]])).tolist()
    [0.1]
    """
    eq: NDArray[np.float64] = 2.0 * out[:, 0] - 1.0 + out[:, 1] - out[:, 3] + out[:, 2] - out[:, 4]
    return eq


class Evaluator:
    """Evaluates positions with a :class:`~.network.NetworkPair` and the bear-off tables.

    ``bearoff=False`` sends bear-off positions to the race network (as in training).
    A ``pruner`` (:class:`~.prune.Pruner`) lets the 1-ply and 2-ply evaluations
    (:meth:`outputs_at`) choose each roll's best play among the plays it keeps; without
    one (the default, and the bots) every play is evaluated.
    """

    def __init__(self, nets: NetworkPair, *, bearoff: bool = True,
                 pruner: Pruner | None = None) -> None:
        self.nets = nets
        self.bearoff = bearoff
        self.pruner = pruner
        self._prune_args = prune_kernel_args(pruner)
        self._weights = nets.kernel_args()
        self._tables: tuple[NDArray[Any], ...] | None = None  # loaded on first use
        self._kernel: Any = K.evaluate_batch

    @classmethod
    def from_file(cls, path: str | Path, *, bearoff: bool = True) -> Evaluator:
        """Load weights from an ``.npz`` (a weights file or a training checkpoint)."""
        return cls(NetworkPair.load(path), bearoff=bearoff)

    def outputs(self, boards: NDArray[np.uint8]) -> NDArray[np.float64]:
        """Outputs (``n × 5``: win, wg, wbg, lg, lbg) for the side on roll of every row, in
        one compiled call (:func:`._kernels.evaluate_batch`)."""
        b = self._check(boards)
        out = np.empty((b.shape[0], 5))
        self._kernel(b, *self._weights, self.bearoff, *self._bearoff_tables(), out)
        return out

    @staticmethod
    def _check(boards: NDArray[np.uint8]) -> NDArray[np.uint8]:
        b = np.ascontiguousarray(boards, dtype=np.uint8)
        if b.ndim != 2 or b.shape[1] != 50:
            raise ValueError(f"boards of shape {b.shape}: expected (n, 50) position keys")
        return b

    def _bearoff_tables(self) -> tuple[NDArray[Any], ...]:
        if self._tables is None:  # loaded on first use
            from . import bearoff

            self._tables = bearoff.kernel_args(self.bearoff)
        return self._tables

    def evaluate(self, position: Position) -> Probabilities:
        """The probabilities of ``position`` for the side on roll (before it rolls).

        >>> from backgammon import Position
        >>> ev = default_evaluator()
        >>> ev.evaluate(Position([1] + [0] * 24, [0] * 5 + [1] + [0] * 19)).win
        1.0
        """
        return Probabilities.from_outputs(self.outputs(key_of(position))[0].tolist())

    def play_outputs(self, legal: LegalMoves) -> NDArray[np.float64]:
        """Outputs of every play in ``legal`` from the *mover's* side (one batched call):
        each resulting position is evaluated for the opponent, who is on roll, and flipped."""
        return flip_outputs(self.outputs(legal.boards))

    def play_equities(self, legal: LegalMoves) -> NDArray[np.float64]:
        """Cubeless equity of every play in ``legal`` for the mover."""
        return equities(self.play_outputs(legal))

    def one_ply_outputs(self, boards: NDArray[np.uint8]) -> NDArray[np.float64]:
        """1-ply outputs for the side on roll of every row of ``boards``: the average over
        its 21 rolls of the 0-ply outputs after its best 0-ply play, in one compiled call
        (:func:`._search_kernels.one_ply_batch`). Finished positions and bear-offs keep
        their exact outputs.

        >>> from backgammon import Position
        >>> o = default_evaluator().one_ply_outputs(key_of(Position.initial()))
        >>> o.shape, 0.4 < float(o[0, 0]) < 0.6
        ((1, 5), True)
        """
        return self.outputs_at(boards, 1)

    def outputs_at(self, boards: NDArray[np.uint8], plies: int) -> NDArray[np.float64]:
        """Outputs for the side on roll of every row of ``boards`` at ``plies`` (0, 1 or
        2) of look-ahead: ``n`` plies average, over the roller's 21 rolls, the ``n − 1``-ply
        outputs after its best 0-ply play (:mod:`._search_kernels`). 2 ply costs about 21
        times 1 ply, less what its caches save: the rows of one call share them, so the
        candidates of a decision go in one call (positions reached again by transposition
        are evaluated once; the values are those computed without the caches).

        >>> from backgammon import Position
        >>> o = default_evaluator().outputs_at(key_of(Position.initial()), 2)
        >>> 0.4 < float(o[0, 0]) < 0.6
        True
        """
        if plies == 0:
            return self.outputs(boards)
        kernels = {1: S.one_ply_batch, 2: S.two_ply_batch}
        if plies not in kernels:
            raise ValueError(f"plies={plies!r}: 0, 1 or 2")
        b = self._check(boards)
        out = np.empty((b.shape[0], 5))
        kernel: Any = kernels[plies]
        kernel(b, *self._weights, self.bearoff, *self._bearoff_tables(), out,
               *self._prune_args)
        return out

    def equity(self, position: Position) -> float:
        """Cubeless equity of ``position`` for the side on roll."""
        return self.evaluate(position).equity


_lock = threading.Lock()
_default: Evaluator | None = None


def default_evaluator() -> Evaluator:
    """The evaluator with the shipped weights (loaded once, no network access)."""
    global _default
    with _lock:
        if _default is None:
            _default = Evaluator.from_file(DEFAULT_WEIGHTS)
        return _default
