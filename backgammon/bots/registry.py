"""The bot registry: bots are found by name.

A bot class (or any factory returning a :class:`~backgammon.bots.Bot`) registers under a
name with :func:`register`; :func:`load` builds one by name with keyword options, and
:func:`available` lists the names. The built-in bots (``random``, ``pubeval``) register when
:mod:`backgammon.bots` is imported; later bots register the same way.

>>> from backgammon.bots import available, load
>>> available()
['beginner', 'casual', 'expert', 'grandmaster', 'intermediate', 'pubeval', 'random', 'worldclass']
>>> load("pubeval")
<PubEvalBot 'pubeval'>
>>> load("gnu")
Traceback (most recent call last):
...
backgammon.bots.base.UnknownBotError: no bot named 'gnu'; the bots are: beginner, casual, expert, grandmaster, intermediate, pubeval, random, worldclass
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, TypeVar

from ..errors import BackgammonError
from .base import Bot, BotOptionError, UnknownBotError

__all__ = ["BotFactory", "available", "load", "register", "unregister"]

#: Anything that builds a bot from keyword options: usually the bot class itself.
BotFactory = Callable[..., Bot]

F = TypeVar("F", bound=BotFactory)

_REGISTRY: dict[str, BotFactory] = {}


def _normalise(name: str) -> str:
    return name.strip().lower()


def register(name: str, *, replace: bool = False) -> Callable[[F], F]:
    """A decorator that registers a bot class (or factory) under ``name`` (case-insensitive).

    Registering a name twice raises :class:`~backgammon.errors.BackgammonError` unless
    ``replace=True``.

    >>> from backgammon.bots import Bot, load
    >>> @register("first", replace=True)
    ... class First(Bot):
    ...     name = "first"
    ...     def choose_index(self, legal):
    ...         return 0
    >>> load("first")
    <First 'first'>
    >>> unregister("first")
    """
    key = _normalise(name)
    if not key:
        raise BackgammonError(f"{name!r}: a bot needs a non-empty name")

    def decorator(factory: F) -> F:
        if key in _REGISTRY and not replace and _REGISTRY[key] is not factory:
            raise BackgammonError(f"a bot named {key!r} is already registered ({_REGISTRY[key]!r})")
        _REGISTRY[key] = factory
        return factory

    return decorator


def unregister(name: str) -> None:
    """Remove a registered bot (for tests and plug-ins); unknown names raise
    :class:`~backgammon.bots.UnknownBotError`.

    >>> unregister("nobody")
    Traceback (most recent call last):
    ...
    backgammon.bots.base.UnknownBotError: no bot named 'nobody'; the bots are: beginner, casual, expert, grandmaster, intermediate, pubeval, random, worldclass
    """
    key = _normalise(name)
    if key not in _REGISTRY:
        raise _unknown(name)
    del _REGISTRY[key]


def available() -> list[str]:
    """The registered bot names, sorted.

    >>> "random" in available()
    True
    """
    return sorted(_REGISTRY)


def _unknown(name: object) -> UnknownBotError:
    return UnknownBotError(f"no bot named {name!r}; the bots are: {', '.join(available())}")


def load(name: str, **options: Any) -> Bot:
    """A new bot of the kind registered as ``name`` (case-insensitive), built with
    ``options`` (every bot takes ``seed``: an int, a :class:`random.Random` or ``None``).

    An unknown name raises :class:`~backgammon.bots.UnknownBotError`, an option the bot
    does not take :class:`~backgammon.bots.BotOptionError` (both ``ValueError``\\ s), each
    message naming what is allowed.

    >>> load("random", seed=3).rng.random() == load("random", seed=3).rng.random()
    True
    >>> load("random", depth=2)
    Traceback (most recent call last):
    ...
    backgammon.bots.base.BotOptionError: bot 'random' does not take depth=2 (its options: seed)
    """
    if not isinstance(name, str):
        raise _unknown(name)
    factory = _REGISTRY.get(_normalise(name))
    if factory is None:
        raise _unknown(name)
    try:
        signature = inspect.signature(factory)
    except (TypeError, ValueError):  # pragma: no cover - builtins without a signature
        signature = None
    if signature is not None:
        try:
            signature.bind(**options)
        except TypeError:
            accepted = [
                p.name
                for p in signature.parameters.values()
                if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD)
            ]
            given = ", ".join(f"{k}={v!r}" for k, v in options.items() if k not in accepted) or (
                ", ".join(f"{k}={v!r}" for k, v in options.items())
            )
            raise BotOptionError(
                f"bot {_normalise(name)!r} does not take {given} (its options: {', '.join(accepted) or 'none'})"
            ) from None
    bot = factory(**options)
    if not isinstance(bot, Bot):
        raise BackgammonError(f"the factory registered as {_normalise(name)!r} returned {bot!r}, not a Bot")
    return bot
