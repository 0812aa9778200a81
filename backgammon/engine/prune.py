"""Pruning networks: a cheap network that picks which of a roll's plays the evaluation
networks look at in a search.

A 1-ply value averages, over the 21 rolls, the outputs after the roller's best play, and
finding that play costs one network evaluation per legal play (twenty on average, a
hundred and more for some doubles). A :class:`Pruner` scores every play first with a
small network on the raw inputs only (each side's points in truncated unary, its bar and
its borne-off checkers: :data:`~._kernels.PRUNE_INPUTS`, summed sparsely, about a
twentieth of an evaluation), and the evaluation networks then choose among the plays it
scores within :attr:`Pruner.margin` of its best, at most :attr:`Pruner.keep` of them
(at least two) — gnubg's idea of pruning nets. The kernels take it as four arrays
(:meth:`Pruner.kernel_args`; :func:`kernel_args` of ``None`` prunes nothing):
:func:`._kernels.pruned_best_play`, used by the 1-ply and 2-ply kernels and the
trajectories of :mod:`.refine` when an :class:`~.evaluator.Evaluator` is given one. The
bots search without one.

A pruner is trained to rank a roll's plays as the evaluation network does (the squared
error of the equities centred within each roll): ``training/runs/sl40/`` in the
repository, where its accuracy (how often the network's best play is kept) and the speed
it buys are measured.

>>> import numpy as np
>>> rng = np.random.default_rng(1)
>>> p = Pruner.random(8, rng)
>>> from backgammon import Position
>>> from backgammon.engine.evaluator import key_of
>>> s = p.scores(key_of(Position.initial()))
>>> s.shape
(1,)
>>> len(p.kernel_args()), p.kernel_args()[3].tolist()
(4, [0.15, 8.0])
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from ._kernels import N_RAW, NUM_INPUTS, PER_SIDE, PRUNE_INPUTS, encode_batch, no_pruner

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Pruner", "kernel_args", "prune_inputs"]


def prune_inputs(boards: NDArray[np.uint8]) -> NDArray[np.float32]:
    """The pruning inputs (``n ×`` :data:`~._kernels.PRUNE_INPUTS`) of every row of
    ``boards``: the first :data:`~._kernels.N_RAW` inputs of each side's block of the
    evaluation networks' encoding, side on roll first."""
    x = np.zeros((boards.shape[0], NUM_INPUTS), np.float32)
    encode_batch(np.ascontiguousarray(boards, dtype=np.uint8), x)
    return np.concatenate([x[:, :N_RAW], x[:, PER_SIDE:PER_SIDE + N_RAW]], axis=1)


@dataclass(frozen=True, eq=False)
class Pruner:
    """A pruning network (one hidden layer of sigmoids, one linear output: the mover's
    equity after a play, up to a constant of the roll) and the limits of what it keeps."""

    w1: NDArray[np.float32]
    """``PRUNE_INPUTS × hidden``"""
    b1: NDArray[np.float32]
    w2: NDArray[np.float32]
    margin: float = 0.15
    """Plays scored more than this below the best are dropped (once two are kept)."""
    keep: int = 8
    """At most this many plays are kept (at least two)."""

    def __post_init__(self) -> None:
        w1 = np.ascontiguousarray(self.w1, np.float32)
        hidden = w1.shape[1] if w1.ndim == 2 else -1
        if w1.shape[0] != PRUNE_INPUTS or self.b1.shape != (hidden,) or self.w2.shape != (hidden,):
            raise ValueError(f"pruning weights of shapes {self.w1.shape}, {self.b1.shape}, "
                             f"{self.w2.shape}: expected ({PRUNE_INPUTS}, h), (h,), (h,)")
        if self.keep < 2 or not self.margin >= 0:
            raise ValueError(f"keep={self.keep!r}, margin={self.margin!r}: keep at least 2, "
                             "margin at least 0")
        object.__setattr__(self, "w1", w1)
        object.__setattr__(self, "b1", np.ascontiguousarray(self.b1, np.float32))
        object.__setattr__(self, "w2", np.ascontiguousarray(self.w2, np.float32))

    @property
    def hidden(self) -> int:
        return int(self.w1.shape[1])

    @classmethod
    def random(cls, hidden: int, rng: np.random.Generator, **limits: Any) -> Pruner:
        """Small random weights (the start of a fit, and tests)."""
        return cls((rng.standard_normal((PRUNE_INPUTS, hidden)) * 0.1).astype(np.float32),
                   np.zeros(hidden, np.float32),
                   (rng.standard_normal(hidden) * 0.1).astype(np.float32), **limits)

    @classmethod
    def load(cls, path: str | Path, **limits: Any) -> Pruner:
        """Read ``w1``, ``b1``, ``w2`` from an ``.npz`` (and ``margin``, ``keep`` when it
        has them; keyword arguments override them)."""
        with np.load(path) as d:
            saved: dict[str, Any] = {}
            if "margin" in d:
                saved = {"margin": float(d["margin"]), "keep": int(d["keep"])}
            return cls(d["w1"], d["b1"], d["w2"], **{**saved, **limits})

    def save(self, path: str | Path) -> None:
        np.savez(path, w1=self.w1, b1=self.b1, w2=self.w2, margin=np.array(self.margin),
                 keep=np.array(self.keep))

    def with_limits(self, *, margin: float | None = None, keep: int | None = None) -> Pruner:
        """The same network with other limits."""
        return replace(self, margin=self.margin if margin is None else margin,
                       keep=self.keep if keep is None else keep)

    def scores(self, boards: NDArray[np.uint8]) -> NDArray[np.float64]:
        """The network's score of every row of ``boards`` (plays' resulting keys, next
        side on roll), with numpy: what :func:`._kernels.prune_score` computes."""
        h = 1.0 / (1.0 + np.exp(-(prune_inputs(boards) @ self.w1 + self.b1)))
        out: NDArray[np.float64] = (h @ self.w2).astype(np.float64)
        return out

    def kernel_args(self) -> tuple[NDArray[Any], ...]:
        """``(w1, b1, w2, [margin, keep])``, the kernels' pruning arguments."""
        return self.w1, self.b1, self.w2, np.array([self.margin, float(self.keep)])


def kernel_args(pruner: Pruner | None) -> tuple[NDArray[Any], ...]:
    """The kernels' pruning arguments of ``pruner``; ``None``: prune nothing."""
    if pruner is None:
        return tuple(no_pruner())
    return pruner.kernel_args()
