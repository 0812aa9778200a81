"""The evaluation networks: one hidden layer of sigmoids, five sigmoid outputs.

A :class:`Network` holds ``w1`` (``inputs × hidden``), ``b1``, ``w2`` (``hidden × 5``) and
``b2`` as ``float64`` arrays. :meth:`Network.forward` evaluates a batch of encoded positions
with numpy; the compiled kernels take single-precision copies
(:meth:`Network.kernel_arrays`), which the TD trainer updates in place and
:meth:`Network.set_kernel_arrays` takes back. A :class:`NetworkPair` is the
contact and the race network together, saved in one ``.npz`` file.

Format 2 files carry :data:`~._kernels.NUM_INPUTS` input rows (and the count, ``inputs``).
Format 1 files (the first layout, :data:`~._kernels.OLD_NUM_INPUTS` inputs, without the
:data:`~._kernels.N_EXTRA` features per side) load padded by :func:`pad_old_inputs`: zero
weights for the new inputs, so the network computes exactly what it computed before.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from ._kernels import NUM_INPUTS, NUM_OUTPUTS, OLD_NUM_INPUTS, OLD_PER_SIDE, PER_SIDE

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["Network", "NetworkPair", "FORMAT_VERSION", "pad_old_inputs"]

#: Bumped whenever the input encoding or the file layout changes.
FORMAT_VERSION = 2


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


@dataclass
class Network:
    """One network's weights (mutable ``float64`` arrays, updated in place by training)."""

    w1: NDArray[np.float64]
    b1: NDArray[np.float64]
    w2: NDArray[np.float64]
    b2: NDArray[np.float64]

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
        """Number of hidden units."""
        return int(self.b1.shape[0])

    def arrays(self) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64],
                              NDArray[np.float64]]:
        """``(w1, b1, w2, b2)``, as the kernels take them."""
        return self.w1, self.b1, self.w2, self.b2

    def kernel_arrays(self) -> tuple[NDArray[np.float32], NDArray[np.float32],
                                     NDArray[np.float32], NDArray[np.float32]]:
        """``(w1, b1, w2, b2)`` as the compiled forward pass takes them
        (:func:`._kernels.forward`): single precision, ``w2`` output-major (``5 × hidden``).
        Fresh copies: :meth:`set_kernel_arrays` writes trained ones back.

        >>> w1, b1, w2, b2 = Network.random(8, np.random.default_rng(0), inputs=3).kernel_arrays()
        >>> w1.shape, w2.shape, str(w2.dtype)
        ((3, 8), (5, 8), 'float32')
        """
        return (np.ascontiguousarray(self.w1, np.float32), np.ascontiguousarray(self.b1, np.float32),
                np.ascontiguousarray(self.w2.T, np.float32), np.ascontiguousarray(self.b2, np.float32))

    def set_kernel_arrays(self, w1: NDArray[np.float32], b1: NDArray[np.float32],
                          w2: NDArray[np.float32], b2: NDArray[np.float32]) -> None:
        """Take the weights back from arrays laid out as :meth:`kernel_arrays` gives them
        (after the compiled TD trainer updated them in place)."""
        self.w1[...] = w1
        self.b1[...] = b1
        self.w2[...] = w2.T
        self.b2[...] = b2

    def forward(self, x: NDArray[np.float64]) -> NDArray[np.float64]:
        """Raw outputs (``n × 5``) for encoded inputs ``x`` (``n × inputs``)."""
        z = x @ self.w1 + self.b1
        h = 1.0 / (1.0 + np.exp(-np.clip(z, -40.0, 40.0)))
        o = h @ self.w2 + self.b2
        out: NDArray[np.float64] = 1.0 / (1.0 + np.exp(-np.clip(o, -40.0, 40.0)))
        return out

    def copy(self) -> Network:
        """A deep copy."""
        return Network(self.w1.copy(), self.b1.copy(), self.w2.copy(), self.b2.copy())

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
        return Network(np.ascontiguousarray(w1), b1, np.ascontiguousarray(w2), self.b2.copy())


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
            for part, arr in zip(("w1", "b1", "w2", "b2"), net.arrays()):
                out[f"{prefix}{name}_{part}"] = arr
        out[f"{prefix}format"] = np.array(FORMAT_VERSION)
        out[f"{prefix}inputs"] = np.array(NUM_INPUTS)
        return out

    @classmethod
    def from_arrays(cls, data: Any, prefix: str = "") -> NetworkPair:
        """Inverse of :meth:`to_arrays` (``data`` maps names to arrays, e.g. an npz); format 1
        weights are padded (:func:`pad_old_inputs`)."""
        version = int(data[f"{prefix}format"])
        if version not in (1, FORMAT_VERSION):
            raise ValueError(f"weights format {version}, this code reads 1 and {FORMAT_VERSION}")
        nets = []
        for name in ("contact", "race"):
            parts = [np.ascontiguousarray(np.asarray(data[f"{prefix}{name}_{p}"], np.float64))
                     for p in ("w1", "b1", "w2", "b2")]
            if version == 1:
                parts[0] = pad_old_inputs(parts[0])
            nets.append(Network(*parts))
        if nets[0].w1.shape[0] != NUM_INPUTS or nets[1].w1.shape[0] != NUM_INPUTS:
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
