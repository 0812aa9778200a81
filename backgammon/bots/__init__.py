"""Computer players behind one interface, found by name.

Every front end (terminal, web, benchmarks) uses a :class:`Bot` through five methods:
:meth:`~Bot.choose_move`, :meth:`~Bot.should_double`, :meth:`~Bot.respond_to_double`,
:meth:`~Bot.accept_resignation` and :meth:`~Bot.offer_resignation` (see
:mod:`backgammon.bots.base`). Bots are built by name
with :func:`load`; :func:`available` lists the names and :func:`register` adds a bot.

Built-in bots:

* ``random`` (:mod:`backgammon.bots.randombot`) — a uniformly random legal play;
* ``pubeval`` (:mod:`backgammon.bots.pubeval`) — Tesauro's public evaluation function;
* ``expert`` (0 ply), ``worldclass`` (1 ply), ``grandmaster`` (2 ply) and the weaker
  ``intermediate``, ``casual``, ``beginner`` (:mod:`backgammon.bots.neural`) — the neural
  network of :mod:`backgammon.engine`.

>>> from backgammon import Position
>>> from backgammon.bots import available, load
>>> available()
['beginner', 'casual', 'expert', 'grandmaster', 'intermediate', 'pubeval', 'random', 'worldclass']
>>> bot = load("pubeval")
>>> print(bot.choose_move(Position.initial(), (3, 1)))
8/5 6/5
>>> load("Random", seed=5).name
'random'
"""

from __future__ import annotations

from .base import (
    Bot,
    BotOptionError,
    CubeResponse,
    Seed,
    UnknownBotError,
    bot_player,
    is_post_crawford,
    max_win_level,
    may_double,
    resignation_level,
)
from .registry import BotFactory, available, load, register, unregister

# The built-in bots register themselves on import.
from . import randombot as _randombot  # noqa: F401  isort: skip
from . import pubeval as _pubeval  # noqa: F401  isort: skip
from . import neural as _neural  # noqa: F401  isort: skip

__all__ = [
    "Bot",
    "BotFactory",
    "BotOptionError",
    "CubeResponse",
    "Seed",
    "UnknownBotError",
    "available",
    "bot_player",
    "is_post_crawford",
    "load",
    "max_win_level",
    "may_double",
    "register",
    "resignation_level",
    "unregister",
]
