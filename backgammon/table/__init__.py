"""The flow of play, once, below every front end: :class:`Table`.

A table holds a contest (a match or money session, :class:`MatchContest`; a chouette,
:class:`ChouetteContest`), its seats (a person or a bot at each, :class:`Seat`) and the dice.
Front ends send :mod:`~backgammon.table.commands` from a seat (:meth:`Table.submit`) and show
what comes back: :class:`Outcome` (the new events, or a :class:`~backgammon.errors.Refusal`),
:meth:`Table.requests` (who may act and how), :meth:`Table.snapshot` (the view of one seat)
and the sentences of :class:`Narrator`. Bots act through :meth:`Table.play_bot`, which asks
:func:`decide`. No input, no output, no asyncio here: the terminal and the web server
translate; the table decides.

>>> from backgammon.dice import ScriptedDice
>>> from backgammon.table import Seat, Table, commands as cmd
>>> table = Table.match([Seat("You"), Seat("gnu", "random", seed=1)], length=1,
...                     dice=ScriptedDice([(1, 3)] + [(6, 5)] * 200))
>>> table.submit("You", cmd.Roll()).accepted
True
>>> while (seat := table.bot_to_act()) is not None:
...     _ = table.play_bot(seat)
>>> [(r.seat, sorted(r.actions)) for r in table.requests()]
[('You', ['double', 'resign', 'roll'])]
"""

from . import commands
from .commands import Command, command_from_dict
from .contest import ChouetteContest, Contest, MatchContest, Offer
from .decide import decide
from .narrate import Line, Narrator
from .snapshot import BoardView, SeatView, Snapshot
from .table import HUMAN, Outcome, Request, Seat, Table
from .tentative import Tentative

__all__ = [
    "HUMAN",
    "BoardView",
    "ChouetteContest",
    "Command",
    "Contest",
    "Line",
    "MatchContest",
    "Narrator",
    "Offer",
    "Outcome",
    "Request",
    "Seat",
    "SeatView",
    "Snapshot",
    "Table",
    "Tentative",
    "command_from_dict",
    "commands",
    "decide",
]
