"""The evaluation networks: one or two hidden layers of sigmoids, five sigmoid outputs.

A :class:`Network` holds ``w1`` (``inputs × hidden``), ``b1``, ``w2`` (``hidden × 5``) and
``b2`` as ``float64`` arrays, and optionally a second hidden layer: ``w3`` (``hidden ×
hidden2``), ``b3`` and ``w4`` (``hidden2 × 5``), whose output is added to the output
layer's sums (the first layer still feeds the outputs directly, so a network given a
second layer with zero ``w4`` — :meth:`Network.deepen` — computes what it did). :meth:`Network.forward` evaluates a batch of encoded positions
with numpy; the compiled kernels take single-precision copies
(:meth:`Network.kernel_arrays`), which the TD trainer updates in place and
:meth:`Network.set_kernel_arrays` takes back. A :class:`NetworkPair` is the
contact and the race network together, saved in one ``.npz`` file.

Format 2 files carry :data:`~._kernels.NUM_INPUTS` input rows (and the count, ``inputs``);
format 3 files are format 2 with a second hidden layer in either network (written only
then, so one-layer weights stay readable by older code).
Format 4 files are format 2 or 3 whose race network also reads its own inputs
(:data:`~._kernels.RACE_INPUTS` rows: :func:`~._kernels.race_extra`; :func:`pad_race_inputs`
gives a network them with zero weights, computing what it did).
Format 1 files (the first layout, :data:`~._kernels.OLD_NUM_INPUTS` inputs, without the
:data:`~._kernels.N_EXTRA` features per side) load padded by :func:`pad_old_inputs`: zero
weights for the new inputs, so the network computes exactly what it computed before.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from ._kernels import (NUM_INPUTS, NUM_OUTPUTS, OLD_NUM_INPUTS, OLD_PER_SIDE, PER_SIDE,
                       RACE_INPUTS)

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Network", "NetworkPair", "FORMAT_VERSION", "pad_old_inputs", "pad_race_inputs"]

#: Bumped whenever the input encoding or the file layout changes.
FORMAT_VERSION = 4
#: The names of a network's arrays in a weights file (the last three only with a second layer).
_PARTS = ("w1", "b1", "w2", "b2", "w3", "b3", "w4")


def pad_race_inputs(net: Network) -> Network:
    """A copy of race network ``net`` that also reads the race inputs
    (:data:`~._kernels.RACE_INPUTS` rows, :func:`~._kernels.race_extra`), their weights zero:
    it computes what ``net`` did until a fit moves them.

    >>> rng = np.random.default_rng(0)
    >>> net = Network.random(4, rng)
    >>> x = rng.uniform(size=(3, RACE_INPUTS))
    >>> bool(np.allclose(pad_race_inputs(net).forward(x), net.forward(x[:, :NUM_INPUTS])))
    True
    """
    if net.w1.shape[0] != NUM_INPUTS:
        raise ValueError(f"{net.w1.shape[0]} input rows: expected {NUM_INPUTS}")
    w1 = np.vstack([net.w1, np.zeros((RACE_INPUTS - NUM_INPUTS, net.hidden))])
    return Network(w1, *net.arrays()[1:])


def pad_old_inputs(w1: NDArray[np.float64]) -> NDArray[np.float64]:
    """First-layer weights of the format 1 layout (``OLD_NUM_INPUTS × hidden``: each side's
    raw inputs and first ten features) in this layout, with zero rows for the features
    added after each side's block (the other side's block moves down to
    :data:`~._kernels.PER_SIDE`).

    >>> w = np.arange(2.0 * OLD_NUM_INPUTS).reshape(OLD_NUM_INPUTS, 2)
    >>> p = pad_old_inputs(w)
    >>> p.shape == (NUM_INPUTS, 2), bool((p[PER_SIDE:PER_SIDE + OLD_PER_SIDE] == w[OLD_PER_SIDE:]).all())
    (True, True)
    """
    if w1.shape[0] != OLD_NUM_INPUTS:
        raise ValueError(f"{w1.shape[0]} input rows: the format 1 layout has {OLD_NUM_INPUTS}")
    out = np.zeros((NUM_INPUTS, w1.shape[1]))
    out[:OLD_PER_SIDE] = w1[:OLD_PER_SIDE]
    out[PER_SIDE:PER_SIDE + OLD_PER_SIDE] = w1[OLD_PER_SIDE:]
    return out


def sigmoid(z: NDArray[Any]) -> NDArray[Any]:
    """The logistic function of every element, its argument clipped to ±40 (numpy: the
    forward pass here and the fit in :mod:`.refine`)."""
    out: NDArray[Any] = 1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0)))
    return out


@dataclass
class Network:
    """One network's weights (mutable ``float64`` arrays, updated in place by training);
    ``w3``, ``b3``, ``w4`` (a second hidden layer) all or none."""

    w1: NDArray[np.float64]
    b1: NDArray[np.float64]
    w2: NDArray[np.float64]
    b2: NDArray[np.float64]
    w3: NDArray[np.float64] | None = None
    b3: NDArray[np.float64] | None = None
    w4: NDArray[np.float64] | None = None

    def __post_init__(self) -> None:
        deep = [a is not None for a in (self.w3, self.b3, self.w4)]
        if any(deep) and not all(deep):
            raise ValueError("a second hidden layer needs w3, b3 and w4")
        if (second := self.second_layer) is not None:
            w3, b3, w4 = second
            h, h2 = self.hidden, self.hidden2
            if w3.shape != (h, h2) or b3.shape != (h2,) or w4.shape != (h2, NUM_OUTPUTS):
                raise ValueError(f"second layer shapes {w3.shape}, {b3.shape}, "
                                 f"{w4.shape} do not fit {h} hidden units")
            if h2 > h or h2 > 2 * self.w1.shape[0]:  # the kernels' scratch (._kernels.forward)
                raise ValueError(f"a second layer of {h2} units is wider than the first ({h}) "
                                 f"or than twice the inputs ({self.w1.shape[0]})")

    @classmethod
    def random(cls, hidden: int, rng: np.random.Generator, inputs: int = NUM_INPUTS) -> Network:
        """Small random weights (uniform, scaled by fan-in).

        >>> Network.random(8, np.random.default_rng(0)).hidden
        8
        """
        w1 = rng.uniform(-1.0, 1.0, (inputs, hidden)) / np.sqrt(inputs / 4.0)
        w2 = rng.uniform(-1.0, 1.0, (hidden, NUM_OUTPUTS)) / np.sqrt(hidden)
        return cls(np.ascontiguousarray(w1), np.zeros(hidden),
                   np.ascontiguousarray(w2), np.zeros(NUM_OUTPUTS))

    @property
    def hidden(self) -> int:
        """Number of hidden units (of the first hidden layer)."""
        return int(self.b1.shape[0])

    @property
    def hidden2(self) -> int:
        """Number of units of the second hidden layer (0: none)."""
        return 0 if self.b3 is None else int(self.b3.shape[0])

    @property
    def second_layer(self) -> tuple[NDArray[np.float64], NDArray[np.float64],
                                    NDArray[np.float64]] | None:
        """``(w3, b3, w4)``, or None without a second layer."""
        if self.w3 is None or self.b3 is None or self.w4 is None:
            return None
        return self.w3, self.b3, self.w4

    def arrays(self) -> tuple[NDArray[np.float64], ...]:
        """``(w1, b1, w2, b2)``, then ``(w3, b3, w4)`` with a second layer."""
        return self.w1, self.b1, self.w2, self.b2, *(self.second_layer or ())

    def kernel_arrays(self) -> tuple[NDArray[np.float32], NDArray[np.float32],
                                     NDArray[np.float32], NDArray[np.float32]]:
        """``(w1, b1, w2, b2)`` as the compiled forward pass takes them
        (:func:`._kernels.forward`): single precision, ``w2`` output-major (``5 × hidden``).
        A second layer of ``m`` units travels in the last two: ``w2`` gets ``m`` rows of
        ``w3`` (transposed) and five of ``w4`` (transposed, zero-padded to ``hidden``
        columns), ``b2`` the ``m`` biases ``b3``. Fresh copies: :meth:`set_kernel_arrays`
        writes trained ones back.

        >>> rng = np.random.default_rng(0)
        >>> w1, b1, w2, b2 = Network.random(8, rng, inputs=3).kernel_arrays()
        >>> w1.shape, w2.shape, str(w2.dtype)
        ((3, 8), (5, 8), 'float32')
        >>> w1, b1, w2, b2 = Network.random(8, rng, inputs=3).deepen(4, rng).kernel_arrays()
        >>> w2.shape, b2.shape
        ((14, 8), (9,))
        """
        w2 = self.w2.T
        b2 = self.b2
        if (second := self.second_layer) is not None:
            w3, b3, w4 = second
            out_g = np.zeros((NUM_OUTPUTS, self.hidden))
            out_g[:, :self.hidden2] = w4.T
            w2 = np.vstack([w2, w3.T, out_g])
            b2 = np.concatenate([b2, b3])
        return (np.ascontiguousarray(self.w1, np.float32), np.ascontiguousarray(self.b1, np.float32),
                np.ascontiguousarray(w2, np.float32), np.ascontiguousarray(b2, np.float32))

    def set_kernel_arrays(self, w1: NDArray[np.float32], b1: NDArray[np.float32],
                          w2: NDArray[np.float32], b2: NDArray[np.float32]) -> None:
        """Take the weights back from arrays laid out as :meth:`kernel_arrays` gives them
        (after the compiled TD trainer updated them in place)."""
        m = self.hidden2
        self.w1[...] = w1
        self.b1[...] = b1
        self.w2[...] = w2[:NUM_OUTPUTS].T
        self.b2[...] = b2[:NUM_OUTPUTS]
        if (second := self.second_layer) is not None:
            w3, b3, w4 = second
            w3[...] = w2[NUM_OUTPUTS:NUM_OUTPUTS + m].T
            b3[...] = b2[NUM_OUTPUTS:]
            w4[...] = w2[NUM_OUTPUTS + m:, :m].T

    def output_sums(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """The output layer's sums (``n × 5``, before its sigmoid) for encoded inputs ``x``."""
        h = sigmoid(x @ self.w1 + self.b1)
        o: NDArray[np.float64] = h @ self.w2 + self.b2
        if (second := self.second_layer) is not None:
            w3, b3, w4 = second
            o = o + sigmoid(h @ w3 + b3) @ w4
        return o

    def forward(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """Raw outputs (``n × 5``) for encoded inputs ``x`` (``n × inputs``)."""
        return sigmoid(self.output_sums(x))

    def copy(self) -> Network:
        """A deep copy."""
        return Network(*(a.copy() for a in self.arrays()))

    def deepen(self, hidden2: int, rng: np.random.Generator) -> Network:
        """A copy with a second hidden layer of ``hidden2`` units computing the same
        function: small random weights into the new layer, zero weights out of it (so the
        fit starts from what the network knows).

        >>> rng = np.random.default_rng(0)
        >>> net = Network.random(6, rng, inputs=3)
        >>> x = rng.uniform(size=(5, 3))
        >>> deep = net.deepen(4, rng)
        >>> deep.hidden2, bool(np.allclose(deep.forward(x), net.forward(x)))
        (4, True)
        """
        if self.hidden2:
            raise ValueError(f"the network already has a second layer ({self.hidden2} units)")
        w3 = rng.uniform(-1.0, 1.0, (self.hidden, hidden2)) * 2.0 / np.sqrt(self.hidden)
        return Network(self.w1.copy(), self.b1.copy(), self.w2.copy(), self.b2.copy(),
                       np.ascontiguousarray(w3), np.zeros(hidden2), np.zeros((hidden2, NUM_OUTPUTS)))

    def widen(self, hidden: int, rng: np.random.Generator) -> Network:
        """A copy with ``hidden`` hidden units (at least :attr:`hidden`) computing the same
        function: the new units get small random input weights and zero output weights.

        >>> rng = np.random.default_rng(0)
        >>> net = Network.random(4, rng, inputs=3)
        >>> x = rng.uniform(size=(5, 3))
        >>> wide = net.widen(9, rng)
        >>> wide.hidden, bool(np.allclose(wide.forward(x), net.forward(x)))
        (9, True)
        """
        extra = hidden - self.hidden
        if extra < 0:
            raise ValueError(f"hidden={hidden}: a network of {self.hidden} cannot shrink")
        inputs = self.w1.shape[0]
        w1 = np.hstack([self.w1, rng.uniform(-1.0, 1.0, (inputs, extra)) / np.sqrt(inputs)])
        b1 = np.concatenate([self.b1, np.zeros(extra)])
        w2 = np.vstack([self.w2, np.zeros((extra, NUM_OUTPUTS))])
        deep: tuple[NDArray[np.float64], ...] = ()
        if (second := self.second_layer) is not None:  # the new units feed nothing into it
            w3, b3, w4 = second
            deep = (np.vstack([w3, np.zeros((extra, self.hidden2))]), b3.copy(), w4.copy())
        return Network(np.ascontiguousarray(w1), b1, np.ascontiguousarray(w2), self.b2.copy(), *deep)


@dataclass
class NetworkPair:
    """The contact network and the race network."""

    contact: Network
    race: Network

    @classmethod
    def random(cls, hidden_contact: int, hidden_race: int, seed: int) -> NetworkPair:
        """Fresh random networks, seeded."""
        rng = np.random.default_rng(seed)
        return cls(Network.random(hidden_contact, rng), Network.random(hidden_race, rng))

    def kernel_args(self) -> tuple[NDArray[np.float32], ...]:
        """The eight arrays in the kernels' order (contact then race), as
        :meth:`Network.kernel_arrays` lays them out."""
        return (*self.contact.kernel_arrays(), *self.race.kernel_arrays())

    def set_kernel_args(self, args: tuple[NDArray[np.float32], ...]) -> None:
        """Inverse of :meth:`kernel_args`: take trained weights back."""
        self.contact.set_kernel_arrays(*args[:4])
        self.race.set_kernel_arrays(*args[4:])

    def to_arrays(self, prefix: str = "") -> dict[str, NDArray[Any]]:
        """The weights as named arrays (for ``np.savez``)."""
        out: dict[str, NDArray[Any]] = {}
        for name, net in (("contact", self.contact), ("race", self.race)):
            for part, arr in zip(_PARTS, net.arrays()):
                out[f"{prefix}{name}_{part}"] = arr
        deep = self.contact.hidden2 or self.race.hidden2
        own = self.race.w1.shape[0] == RACE_INPUTS
        # the lowest format that holds them, so older code still reads what it can
        out[f"{prefix}format"] = np.array(4 if own else 3 if deep else 2)
        out[f"{prefix}inputs"] = np.array(NUM_INPUTS)
        return out

    @classmethod
    def from_arrays(cls, data: Any, prefix: str = "") -> NetworkPair:
        """Inverse of :meth:`to_arrays` (``data`` maps names to arrays, e.g. an npz); format 1
        weights are padded (:func:`pad_old_inputs`)."""
        version = int(data[f"{prefix}format"])
        if version not in (1, 2, 3, FORMAT_VERSION):
            raise ValueError(f"weights format {version}, this code reads 1 to {FORMAT_VERSION}")
        nets = []
        for name in ("contact", "race"):
            names = _PARTS if version >= 3 and f"{prefix}{name}_w3" in data else _PARTS[:4]
            parts = [np.ascontiguousarray(np.asarray(data[f"{prefix}{name}_{p}"], np.float64))
                     for p in names]
            if version == 1:
                parts[0] = pad_old_inputs(parts[0])
            nets.append(Network(*parts))
        race_rows = (NUM_INPUTS, RACE_INPUTS) if version == 4 else (NUM_INPUTS,)
        if nets[0].w1.shape[0] != NUM_INPUTS or nets[1].w1.shape[0] not in race_rows:
            raise ValueError("weights do not match this input encoding")
        return cls(nets[0], nets[1])

    def save(self, path: str | Path | IO[bytes]) -> None:
        """Write the weights to an ``.npz`` file."""
        np.savez_compressed(path, **self.to_arrays())  # type: ignore[arg-type]

    @classmethod
    def load(cls, path: str | Path | IO[bytes]) -> NetworkPair:
        """Read weights written by :meth:`save`."""
        with np.load(path) as data:
            return cls.from_arrays(data)

    def copy(self) -> NetworkPair:
        """A deep copy."""
        return NetworkPair(self.contact.copy(), self.race.copy())
