"""Snapshots: a frozen, JSON-ready view of a :class:`~backgammon.table.Table` for one viewer.

Everything a front end draws comes from here, numbered from the viewer's side: the board
(:class:`BoardView`: the viewer's checkers positive, the other side's negative, on the
viewer's points 1–24), the dice (the higher first), the cube, the score, the seats (with the
chouette's stakes and ledger), whose turn it is, what the viewer may do, the pending offer
and the tentative play.

>>> from backgammon.dice import ScriptedDice
>>> from backgammon.table import Seat, Table
>>> t = Table.match([Seat("ann"), Seat("bob", "random", seed=1)], dice=ScriptedDice([(1, 3)]))
>>> from backgammon.table.commands import Roll
>>> _ = t.submit("ann", Roll())
>>> s = t.snapshot("bob")
>>> s.dice, s.on_roll, s.side, s.board.points[23], s.board.points[0]
((3, 1), 'bob', 1, 2, -2)
>>> s.actions
('play', 'resign', 'step')
>>> s.to_dict()["board"]["pips"]
[167, 167]
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..chouette import Side
from ..errors import BackgammonError
from ..position import Position
from .contest import ChouetteContest, MatchContest, Offer

if TYPE_CHECKING:
    from .table import Table

__all__ = ["BoardView", "SeatView", "Snapshot", "board_view", "snapshot"]


@dataclass(frozen=True)
class BoardView:
    """The checkers seen from one side: ``points[i]`` is that side's point ``i + 1``
    (positive: its own checkers, negative: the other side's); ``bar``, ``off`` and ``pips``
    are (own, other)."""

    points: tuple[int, ...]
    bar: tuple[int, int]
    off: tuple[int, int]
    pips: tuple[int, int]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {"points": list(self.points), "bar": list(self.bar), "off": list(self.off), "pips": list(self.pips)}


def board_view(position: Position) -> BoardView:
    """The :class:`BoardView` of ``position`` from its player on roll's side.

    >>> v = board_view(Position.initial())
    >>> v.points[5], v.points[18], v.off
    (5, -5, (0, 0))
    """
    mine, theirs = position.player, position.opponent
    points = tuple(mine[i] - theirs[23 - i] for i in range(24))
    return BoardView(points, position.bar(), position.borne_off(), position.pip_count())


@dataclass(frozen=True)
class SeatView:
    """One seat: its ``name``, ``kind`` (``"human"`` or a bot), the ``side`` it plays
    (0: X, the box; 1: O, the team), its ``role`` (``"player"``; in a chouette ``"box"``,
    ``"captain"``, ``"acting captain"`` or ``"line"``), and in a chouette its stake (``cube``,
    ``cube_owner``, ``in_game``, ``result``) and ``ledger``."""

    name: str
    kind: str
    side: int
    role: str
    cube: int | None = None
    cube_owner: str | None = None
    in_game: bool = True
    result: int | None = None
    ledger: int | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict."""
        return {
            "name": self.name, "kind": self.kind, "side": self.side, "role": self.role, "cube": self.cube,
            "cube_owner": self.cube_owner, "in_game": self.in_game, "result": self.result, "ledger": self.ledger,
        }


@dataclass(frozen=True)
class Snapshot:
    """The table seen by ``viewer`` (``None``: a spectator, shown from side 0)."""

    kind: str  #: "match", "money" or "chouette"
    viewer: str | None
    side: int  #: the side whose numbering the board uses
    board: BoardView
    dice: tuple[int, int] | None  #: the higher die first
    on_roll: str | None  #: the seat that rolls and moves the side on roll
    phase: str
    cube: int  #: the cube (a chouette: the viewer's or the mover's stake)
    cube_owner: str | None  #: a seat, or None while centred
    match_length: int
    score: tuple[int, int]  #: by side (0, 1); a chouette: (0, 0)
    crawford: bool
    post_crawford: bool
    game_number: int
    to_act: tuple[str, ...]
    actions: tuple[str, ...]  #: what the viewer may do now
    legal: tuple[str, ...]  #: the legal plays, when the viewer is to play
    tentative: str | None
    offer: Offer | None
    seats: tuple[SeatView, ...]
    position_id: str
    match_id: str | None
    result: str | None  #: how the last finished game ended, while the next has not started (or the forfeit)
    over: bool
    winner: str | None = None  #: the seat that won the match, once it is over (a match or money session)
    forfeit: dict[str, str] | None = None  #: ``{"seat", "reason"}`` when a seat forfeited the match

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the view the web client receives)."""
        out: dict[str, Any] = {}
        for name, value in self.__dict__.items():
            if isinstance(value, (BoardView, Offer)):
                value = value.to_dict()
            elif name == "seats":
                value = [s.to_dict() for s in value]
            elif isinstance(value, tuple):
                value = list(value)
            out[name] = value
        return out


def _seats(table: Table) -> tuple[SeatView, ...]:
    contest = table.contest
    if isinstance(contest, ChouetteContest):
        c = contest.chouette
        out = []
        kinds = {seat.name: seat for seat in table.seats}
        # in the order of the rotation: the box, then the team in line order, the captain
        # first (R35-R38)
        order = dict.fromkeys([c.box, *c.line, *kinds])
        for seat in (kinds[name] for name in order):
            name = seat.name
            ledger = c.ledger[name]
            if name == c.box:
                out.append(SeatView(name, seat.kind, 0, "box", ledger=ledger))
                continue
            stake = c.stakes[name]
            role = "captain" if name == c.captain else "acting captain" if name == c.mover else "line"
            out.append(
                SeatView(
                    name, seat.kind, 1, role, stake.cube, stake.owner, stake.in_game, stake.result, ledger
                )
            )
        return tuple(out)
    return tuple(SeatView(s.name, s.kind, i, "player") for i, s in enumerate(table.seats))


def snapshot(table: Table, viewer: str | None) -> Snapshot:
    """The :class:`Snapshot` of ``table`` for ``viewer`` (see :meth:`Table.snapshot`)."""
    contest = table.contest
    side = 0 if viewer is None else contest.side(viewer)
    game = contest.game()
    tentative = table.tentative
    board = contest.board(viewer) if viewer is not None else game.board(0)
    if tentative is not None:
        after = tentative.position  # from the mover's view
        board = after if game.on_roll == side else after.swap()
    dice = game.dice
    actions = tuple(sorted(table.actions(viewer))) if viewer is not None else ()
    legal: tuple[str, ...] = ()
    if "play" in actions:
        legal = contest.legal_moves().texts()
    seats = _seats(table)
    crawford = post = False
    match_id: str | None = None
    winner: str | None = None
    forfeit: dict[str, str] | None = None
    if isinstance(contest, MatchContest):
        m = contest.match
        kind = "money" if m.is_money else "match"
        cube, owner = game.cube_value, game.cube_owner
        cube_owner = None if owner is None else contest.seats[owner]
        score = m.capped_score
        crawford, post = m.crawford, m.post_crawford
        try:
            match_id = m.match_id()
        except BackgammonError:  # a cube too high for a Match ID
            match_id = None
        last = m.games[-2].result if contest.phase() == "opening" and len(m.games) > 1 else game.result
        result = None if last is None else last.text(contest.seats)
        winner = None if m.winner is None else contest.seats[m.winner]
        if m.forfeited is not None:
            loser = contest.seats[m.forfeited.player]
            forfeit = {"seat": loser, "reason": m.forfeited.reason}
            what = "session" if m.is_money else "match"
            lost = f"lost the {what} on time" if m.forfeited.reason == "time" else f"left the {what}"
            result = f"{loser} {lost}: {winner} wins"
    else:
        assert isinstance(contest, ChouetteContest)
        c = contest.chouette
        kind = "chouette"
        member = viewer if viewer is not None and viewer != c.box else (c.mover or c.captain)
        stake = c.stakes[member]
        cube, cube_owner = stake.cube, stake.owner
        score = (0, 0)
        result = None
        if contest.game_over() and c.winner is not None:
            result = f"the {'box' if c.winner is Side.BOX else 'team'} won the captain's stake"
    return Snapshot(
        kind=kind,
        viewer=viewer,
        side=side,
        board=board_view(board),
        dice=None if dice is None else (max(dice), min(dice)),
        on_roll=contest.mover(),
        phase=contest.phase(),
        cube=cube,
        cube_owner=cube_owner,
        match_length=contest.rules.match_length,
        score=score,
        crawford=crawford,
        post_crawford=post,
        game_number=contest.game_number,
        to_act=contest.to_act(),
        actions=actions,
        legal=legal,
        tentative=None if tentative is None else str(tentative.move),
        offer=contest.offer(),
        seats=seats,
        position_id=game.position.position_id(),
        match_id=match_id,
        result=result,
        over=contest.is_over(),
        winner=winner,
        forfeit=forfeit,
    )
