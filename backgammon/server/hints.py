"""Hints on demand at the web table: the analysis of :mod:`backgammon.bots.analysis` as
JSON-ready data, for a seat that plays against bots only.

A hint is given to a person whose every opponent is a bot (a game against the computer, or
a chouette where the other side is all bots): at a table with another person on the other
side it would be help from outside the game, so it is refused with a sentence. What the hint
holds depends on what the seat may do now:

* before the roll: the cube advice (``"cube"``), when the seat may double;
* to play: the best plays (``"plays"``: move, value, difference from the best, chances);
* doubled: take, pass or beaver (``"take"``);
* offered a resignation: accept or decline (``"resignation"``).

The computation runs the neural network (a fraction of a second): the server calls
:func:`hint` in a worker thread.

>>> from backgammon.dice import ScriptedDice
>>> from backgammon.table import Seat, Table, commands as cmd
>>> t = Table.match([Seat("ann"), Seat("gnu", "random", seed=1)], dice=ScriptedDice([(3, 1)]))
>>> _ = t.submit("ann", cmd.Roll())
>>> h = hint(t, "ann", pubeval=True)
>>> h["kind"], h["plays"][0]["move"], h["unit"]
('plays', '8/5 6/5', 'score')
>>> why_no_hint(Table.match([Seat("ann"), Seat("bob")]), "ann")
'hints are given only against bots: bob is a person'
"""

from __future__ import annotations

from typing import Any

from ..bots.analysis import cube_advice, rank_plays, resignation_advice, take_advice
from ..engine.probabilities import Probabilities
from ..errors import BackgammonError
from ..table import Table

__all__ = ["hint", "why_no_hint"]


def why_no_hint(table: Table, seat: str) -> str | None:
    """Why ``seat`` may not have a hint at ``table`` now (None: it may)."""
    contest = table.contest
    try:
        side = contest.side(seat)
    except (BackgammonError, KeyError, ValueError):
        return f"{seat!r} has no seat at this table"
    people = [s.name for s in table.seats if not s.is_bot and contest.side(s.name) != side]
    if people:
        return f"hints are given only against bots: {people[0]} is a person"
    actions = table.actions(seat)
    if not actions & {"play", "double", "take", "accept"}:
        return "there is no decision of yours to advise on now"
    return None


def _chances(p: Probabilities | None) -> dict[str, float] | None:
    if p is None:
        return None
    return {
        "win": p.win,
        "win_gammon": p.win_gammon,
        "win_backgammon": p.win_backgammon,
        "lose_gammon": p.lose_gammon,
        "lose_backgammon": p.lose_backgammon,
    }


def hint(table: Table, seat: str, *, count: int = 5, pubeval: bool = False) -> dict[str, Any]:
    """The advice for ``seat`` now, as data (see the module's docstring); raises
    :class:`ValueError` with :func:`why_no_hint`'s sentence when there is none to give.
    ``pubeval`` ranks plays with pubeval instead of the network (fast; for tests)."""
    reason = why_no_hint(table, seat)
    if reason is not None:
        raise ValueError(reason)
    contest = table.contest
    actions = table.actions(seat)
    state = contest.match_state(seat)
    if "play" in actions:
        ranking = rank_plays(contest.legal_moves(), state, count=count, pubeval=pubeval)
        return {
            "kind": "plays",
            "unit": ranking.unit,
            "adviser": ranking.adviser,
            "plies": ranking.plies,
            "plays": [
                {
                    "rank": p.rank,
                    "move": p.move,
                    "value": p.value,
                    "difference": p.difference,
                    "plies": p.plies,
                    "chances": _chances(p.probabilities),
                }
                for p in ranking.top(count)
            ],
        }
    position = contest.board(seat)
    if "take" in actions:
        t = take_advice(position, state, contest.rules)
        return {"kind": "take", "unit": t.unit, "action": t.action, "take": t.take, "pass": t.pass_,
                "beaver": t.beaver, "chances": _chances(t.probabilities)}
    if "accept" in actions:
        offer = table.contest.offer()
        level = offer.level if offer is not None else 1
        r = resignation_advice(position, state, level)
        return {"kind": "resignation", "unit": r.unit, "accept": r.accept, "level": level,
                "offered": r.offered, "play_on": r.play_on, "chances": _chances(r.probabilities)}
    c = cube_advice(position, state, contest.rules)
    return {"kind": "cube", "unit": c.unit, "action": c.action, "available": c.available,
            "no_double": c.no_double, "double_take": c.double_take, "double_pass": c.double_pass,
            "beaver": c.beaver, "chances": _chances(c.probabilities)}
