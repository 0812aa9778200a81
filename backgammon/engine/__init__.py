"""The neural evaluation engine: positions to outcome probabilities.

* :class:`Probabilities` — win / gammon / backgammon chances, equity derived from them;
* :class:`Evaluator` — batched evaluation (contact and race networks, exact bear-off
  tables), :func:`default_evaluator` with the weights shipped in ``engine/weights/``;
* :mod:`backgammon.engine.train` — self-play TD(λ) training (``python -m
  backgammon.engine.train``);
* :mod:`backgammon.engine.bearoff` — the one-sided bear-off tables;
* :mod:`backgammon.engine.prune` — pruning networks, which let the 1-ply and 2-ply
  evaluations of the training look at a roll's most promising plays only.

The bots built on it (``expert``, ``worldclass``) live in :mod:`backgammon.bots.neural`.

>>> from backgammon import Position
>>> from backgammon.engine import default_evaluator
>>> p = default_evaluator().evaluate(Position.initial())
>>> -0.3 < p.equity < 0.3
True
"""

from __future__ import annotations

from ._kernels import NUM_INPUTS, NUM_OUTPUTS
from .evaluator import Evaluator, default_evaluator, encode, key_of
from .network import Network, NetworkPair
from .probabilities import Probabilities

__all__ = ["Evaluator", "NUM_INPUTS", "NUM_OUTPUTS", "Network", "NetworkPair",
           "Probabilities", "default_evaluator", "encode", "key_of"]
