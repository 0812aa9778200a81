"""Analysis of whole matches and rollouts of positions, on the engine.

* :mod:`backgammon.analysis.match` — :func:`~backgammon.analysis.match.analyse_match`: every
  decision of both players judged (checker play, cube, take), the luck of each roll, error
  rates and performance ratings;
* :mod:`backgammon.analysis.rollout` — :func:`~backgammon.analysis.rollout.rollout`: cubeless
  and cubeful rollouts with variance reduction, quasi-random dice, seeds, stop and resume,
  on every core or on a Ray cluster.
"""
