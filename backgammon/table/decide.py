"""The one place where a bot decides what to do at a table: :func:`decide`.

Every front end and every benchmark lets bots act through this function (via
:meth:`Table.play_bot <backgammon.table.Table.play_bot>`), so a bot behaves the same in the
terminal, on the web and in a measurement: it offers to resign when its game is lost (and does
not repeat an offer that was declined, nor offer less), doubles, rolls, plays, takes, passes or
beavers, votes on a chouette team's double and proposes one.

>>> from backgammon.dice import ScriptedDice
>>> from backgammon.table import Seat, Table
>>> t = Table.match([Seat("a", "random", seed=1), Seat("b", "random", seed=2)], dice=ScriptedDice([(3, 1)]))
>>> decide(t.bot("a"), t, "a")
Roll()
>>> _ = t.play_bot("a"); decide(t.bot("a"), t, "a")
Play(move='13/9', confirm=True)
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..bots.base import Bot, CubeResponse
from ..errors import BackgammonError
from . import commands as cmd

if TYPE_CHECKING:
    from .table import Table

__all__ = ["decide"]


def decide(bot: Bot, table: Table, seat: str) -> cmd.Command:
    """The command ``bot``, sitting at ``seat``, chooses now. The seat must have something
    to do (:meth:`Table.actions <backgammon.table.Table.actions>`); a seat whose say is
    optional (a chouette team member before the captain rolls) gets
    :class:`~backgammon.table.commands.ProposeDouble` or
    :class:`~backgammon.table.commands.Ready`."""
    contest = table.contest
    actions = table.actions(seat)
    if not actions:
        raise BackgammonError(f"bot at {seat!r}: nothing to decide now")
    view = contest.board(seat)
    if seat not in contest.to_act():
        if "propose_double" in actions and bot.should_double(view, contest.match_state(seat)):
            return cmd.ProposeDouble()
        return cmd.Ready()
    if "next_game" in actions:
        return cmd.NextGame()
    offer = contest.offer()
    if offer is not None and seat in offer.waiting:
        # the stake in question: the box answers on the offering member's stake
        stake = offer.by if contest.side(seat) == 0 and offer.by != seat else seat
        state = contest.match_state(stake)
        if offer.kind == "resignation":
            return cmd.Accept() if bot.accept_resignation(view, state, offer.level) else cmd.Decline()
        if offer.kind == "proposal":
            return cmd.Consent() if bot.should_double(view, state) else cmd.Refuse()
        answer = bot.respond_to_double(view, state)
        if answer is CubeResponse.PASS:
            return cmd.Pass()
        if answer is CubeResponse.BEAVER and "beaver" in actions:
            return cmd.Beaver()
        return cmd.Take()
    if "roll" in actions:
        if contest.phase() == "opening":
            return cmd.Roll()
        state = contest.match_state(seat)
        if "resign" in actions:
            level = bot.offer_resignation(view, state)
            if level and level > contest.resignations_offered(seat):
                return cmd.Resign(level)
        doubling = next((a for a in ("double", "propose_double") if a in actions), None)
        if doubling == "propose_double" and contest.proposed_this_turn():
            doubling = None  # the team refused a proposal this turn (R39): roll
        if doubling is not None and bot.should_double(view, state):
            return cmd.Double() if doubling == "double" else cmd.ProposeDouble()
        return cmd.Roll()
    if "play" in actions:
        legal = contest.legal_moves()
        if not len(legal):
            return cmd.Play("", confirm=True)
        return cmd.Play(str(legal[bot.choose_index(legal)]), confirm=True)
    raise BackgammonError(f"bot at {seat!r}: no decision for actions {sorted(actions)}")
