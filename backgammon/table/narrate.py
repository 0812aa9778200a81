"""Narration: the sentences that tell what happened at a table, one visitor over the log.

:class:`Narrator` turns the events an :class:`~backgammon.table.Outcome` carries into
:class:`Line` values: a sentence and a *tone* (``"plain"``, ``"strong"`` for cube actions,
resignations and results, ``"side0"`` / ``"side1"`` for a play of that side, ``"title"`` for
the start of a game). The terminal prints them; the web server sends them. Plays are written
in the viewer's numbering (a play of the other side is turned round: its 24/18 is the
viewer's 1/7). A seat named ``You`` is spoken to (``You roll``, not ``You rolls``).

>>> from backgammon.dice import ScriptedDice
>>> from backgammon.table import Seat, Table, commands as cmd
>>> t = Table.match([Seat("You"), Seat("gnu", "random", seed=1)], dice=ScriptedDice([(1, 3)]))
>>> n = Narrator(t, viewer="You")
>>> [line.text for line in n.lines(t.submit("You", cmd.Roll()).events)]
['Opening roll: You 1, gnu 3.', 'gnu goes first, playing 3-1.']
>>> [line.text for line in n.lines(t.submit("gnu", cmd.Play("8/5 6/5", confirm=True)).events)]
['gnu plays 17/20 19/20.']
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from dataclasses import fields as dataclass_fields
from typing import TYPE_CHECKING, Any

from ..events import ResultKind
from .contest import ChouetteContest, MatchContest

if TYPE_CHECKING:
    from .table import Table

__all__ = ["LEVEL_NAMES", "Line", "Narrator", "points_text", "third_person", "turned"]

#: A resignation level (or a game's result level) in words.
LEVEL_NAMES = {1: "single game", 2: "gammon", 3: "backgammon"}

_KIND_TEXT = {
    ResultKind.SINGLE: "a single game",
    ResultKind.GAMMON: "a gammon",
    ResultKind.BACKGAMMON: "a backgammon",
    ResultKind.RESIGNED: "a resignation",
    ResultKind.PASSED: "a passed double",
}

#: The sentences that need only the event's fields and the seats: (text, tone), where the
#: text may name the event's fields and ``box``, ``captain``, ``members`` and ``kind``.
_SENTENCES = {
    "propose_double": ("{player} proposes that the team doubles: every member must agree (R39).", "strong"),
    "consent": ("{player} agrees to the team double.", "plain"),
    "refuse": ("{player} refuses: the team does not double (R39).", "strong"),
    "team_double": ("The team doubles {box} (box) on the stakes of {members}: {box} must take or pass.", "strong"),
    "box_double": ("{player} (box) doubles the team: each member takes or passes alone (R40).", "strong"),
    "new_captain": (
        "{captain} is out of this game: {player} moves the team's checkers for the rest of it (R36).",
        "strong",
    ),
    "payment": ("{payer} pays {payee} {points_text} ({kind_text}).", "plain"),
}

_POINT = re.compile(r"(?<![(\d])(\d+)(?![\d)])")


@dataclass(frozen=True)
class Line:
    """One sentence of narration and its tone."""

    text: str
    tone: str = "plain"

    def to_dict(self) -> dict[str, str]:
        """JSON-ready dict."""
        return {"text": self.text, "tone": self.tone}


def third_person(verb: str) -> str:
    """``roll`` -> ``rolls``, ``pass`` -> ``passes``, ``cannot move`` unchanged.

    >>> third_person("pass"), third_person("go first"), third_person("cannot move")
    ('passes', 'goes first', 'cannot move')
    """
    first, _, rest = verb.partition(" ")
    if first in ("cannot", "may", "must", "can"):
        return verb
    irregular = {"have": "has", "are": "is", "do": "does"}
    if first in irregular:
        first = irregular[first]
    elif first.endswith(("s", "sh", "ch", "x", "o")):
        first += "es"
    else:
        first += "s"
    return f"{first} {rest}".rstrip()


def points_text(n: int) -> str:
    """``1 point``, ``2 points``."""
    return f"{n} point{'s' if n != 1 else ''}"


def turned(text: str) -> str:
    """Move text in the other side's numbering (point p is 25 - p; bar and off stay).

    >>> turned("24/18* 13/11(2)"), turned("bar/22 6/off")
    ('1/7* 12/14(2)', 'bar/3 19/off')
    """
    return _POINT.sub(lambda m: str(25 - int(m.group(1))) if 1 <= int(m.group(1)) <= 24 else m.group(1), text)


class Narrator:
    """Sentences for the events of ``table``, told to ``viewer`` (a seat, or ``None``: in
    side 0's numbering). Call :meth:`lines` right after the events happened: some sentences
    read the table's state (the stakes after a take)."""

    def __init__(self, table: Table, viewer: str | None = None) -> None:
        self.table = table
        self.viewer = viewer
        self._dice: tuple[int, int] | None = None

    # -- words --------------------------------------------------------------------------

    def name(self, player: Any) -> str:
        """A seat's name, for a match's player number or a chouette player's name."""
        contest = self.table.contest
        if isinstance(player, int) and isinstance(contest, MatchContest):
            return contest.seats[player]
        return str(player)

    def subject(self, player: Any, verb: str) -> str:
        """``You roll`` / ``gnu rolls``."""
        name = self.name(player)
        return f"{name} {verb if name == 'You' else third_person(verb)}"

    def object(self, player: Any) -> str:
        """``you`` / ``gnu``."""
        name = self.name(player)
        return "you" if name == "You" else name

    def label(self, player: Any) -> str:
        """A chouette player with their seat: ``ann (box)``, ``bob (captain)``; a match
        player's plain name."""
        contest = self.table.contest
        name = self.name(player)
        if isinstance(contest, ChouetteContest):
            c = contest.chouette
            role = "box" if name == c.box else "captain" if name == c.captain else "acting captain" if name == c.mover else ""
            return f"{name} ({role})" if role else name
        return name

    def _viewer_side(self) -> int:
        return 0 if self.viewer is None else self.table.contest.side(self.viewer)

    def move_text(self, side: int, move: Any) -> str:
        """``move``, played by ``side``, in the viewer's numbering."""
        text = str(move)
        return text if side == self._viewer_side() else turned(text)

    def _side_of(self, player: Any) -> int:
        contest = self.table.contest
        if isinstance(player, int):
            return player
        return 0 if isinstance(contest, ChouetteContest) and player == contest.chouette.box else 1

    # -- the visitor --------------------------------------------------------------------

    def lines(self, events: Iterable[Any]) -> tuple[Line, ...]:
        """The sentences for ``events``, in order."""
        out: list[Line] = []
        for event in events:
            out.extend(event.visit(self) or ())
        return tuple(out)

    def on_event(self, e: Any) -> Iterable[Line]:
        """The events told by a sentence of :data:`_SENTENCES` (others are not told)."""
        template = _SENTENCES.get(e.type)
        if template is None:
            return
        c = self._chouette()
        fields = {f.name: getattr(e, f.name) for f in dataclass_fields(e)}
        if c is not None:
            fields.update(box=c.box, captain=c.captain)
        if "members" in fields:
            fields["members"] = ", ".join(fields["members"])
        if "points" in fields:
            fields["points_text"] = points_text(fields["points"])
        if "kind" in fields:
            fields["kind_text"] = _KIND_TEXT[fields["kind"]]
        text, tone = template
        yield Line(text.format(**fields), tone)

    def _chouette(self) -> Any:
        contest = self.table.contest
        return contest.chouette if isinstance(contest, ChouetteContest) else None

    def on_roll_off(self, e: Any) -> Iterable[Line]:
        throws = ", ".join(f"{p} {d}" for p, d in zip(e.players, e.dice))
        tied = sorted({d for d in e.dice if e.dice.count(d) > 1}, reverse=True)
        extra = ""
        if tied:
            groups = [" and ".join(p for p, d in zip(e.players, e.dice) if d == t) for t in tied]
            extra = ": " + "; ".join(groups) + " tie and throw again"
        yield Line(f"Roll-off for the seats (R35): {throws}{extra}.")

    def on_game_start(self, e: Any) -> Iterable[Line]:
        if self._chouette() is not None:
            yield Line(f"Game {e.number}", "title")
            rest = e.line[1:]
            behind = f"the line behind: {', '.join(rest)}" if rest else "nobody else in line"
            yield Line(f"{e.box} is in the box; {e.line[0]} is the captain; {behind}.", "strong")
            return
        title = f"Game {e.number}"
        if e.crawford:
            title += " - the Crawford game: nobody may double (R33)"
        yield Line(title, "title")

    def on_opening_roll(self, e: Any) -> Iterable[Line]:
        a, b = e.dice
        c = self._chouette()
        if c is not None:
            text = f"Opening roll: {c.box} (box) {a}, {c.captain} (captain) {b}"
            again = "throw"
        else:
            text = f"Opening roll: {self.name(0)} {a}, {self.name(1)} {b}"
            again = "roll"
        if a == b:
            yield Line(f"{text}: a tie, both {again} again (R4).")
            return
        yield Line(text + ".")
        first = 0 if a > b else 1
        who = self.label(c.box if first == 0 else c.captain) if c is not None else None
        if self.table.contest.rules.opening_reroll:
            if who is not None:
                yield Line(f"{who} goes first and rolls again (R5).")
            else:
                yield Line(f"{self.subject(first, 'go')} first and {'roll' if self.name(first) == 'You' else 'rolls'} again (R5).")
        else:
            self._dice = (max(a, b), min(a, b))
            start = f"{who} goes" if who is not None else self.subject(first, "go")
            yield Line(f"{start} first, playing {max(a, b)}-{min(a, b)}.")

    def on_automatic_double(self, e: Any) -> Iterable[Line]:
        what = f"every stake is now {e.cube}" if self._chouette() is not None else f"the cube is now at {e.cube}"
        yield Line(f"Automatic double (R6): {what}.", "strong")

    def on_roll(self, e: Any) -> Iterable[Line]:
        self._dice = e.dice
        a, b = max(e.dice), min(e.dice)
        who = self.label(e.player) if self._chouette() is not None else None
        yield Line(f"{who} rolls {a}-{b}." if who is not None else f"{self.subject(e.player, 'roll')} {a}-{b}.")

    def on_play(self, e: Any) -> Iterable[Line]:
        side = self._side_of(e.player)
        who = self.label(e.player) if self._chouette() is not None else self.name(e.player)
        if e.move.is_pass():
            dice = self._dice or self._roll_before(e)
            roll = f" with {dice[0]}-{dice[1]}" if dice else ""
            yield Line(f"{who} cannot move{roll}: the turn passes (R11).")
        else:
            verb = "play" if who == "You" else "plays"
            yield Line(f"{who} {verb} {self.move_text(side, e.move)}.", f"side{side}")

    def _roll_before(self, event: Any) -> tuple[int, int] | None:
        """The dice of the turn ``event`` ended, read back from the log (for a narrator
        that did not see the roll: after a resume)."""
        seen = False
        for e in reversed(self.table.contest.events):
            if not seen:
                seen = e is event or e == event
                continue
            dice = getattr(e, "dice", None)
            if dice is not None and (e.type != "opening_roll" or dice[0] != dice[1]):
                return (max(dice), min(dice))
        return None

    def on_double(self, e: Any) -> Iterable[Line]:
        yield Line(f"{self.subject(e.player, 'double')} to {e.cube}.", "strong")

    def _stakes_text(self) -> str:
        c = self._chouette()
        stakes = [c.stakes[m] for m in c.team]
        values = {s.cube for s in stakes}
        if len(values) == 1 and len(stakes) > 1:
            return f"every stake is now {values.pop()}"
        return "stakes " + ", ".join(f"{s.player} {s.cube}" for s in stakes)

    def _cube_answer(self, e: Any, verb: str) -> Iterable[Line]:
        c = self._chouette()
        shown = verb if verb == "take" else "beaver (R30)"
        if c is None:
            extra = "" if verb == "take" else " (R30)"
            yield Line(
                f"{self.subject(e.player, verb)}{extra}: the cube is at {e.cube}, owned by {self.object(e.player)}.",
                "strong",
            )
        elif e.player == c.box:
            yield Line(f"{c.box} (box) {third_person(shown)}: {self._stakes_text()}; the box owns the cubes.", "strong")
        else:
            cube = c.stakes[e.player].cube
            yield Line(f"{e.player} {third_person(shown)}: their stake is now {cube}, and the cube is theirs.", "strong")

    def on_take(self, e: Any) -> Iterable[Line]:
        return self._cube_answer(e, "take")

    def on_beaver(self, e: Any) -> Iterable[Line]:
        return self._cube_answer(e, "beaver")

    def on_pass(self, e: Any) -> Iterable[Line]:
        c = self._chouette()
        if c is None:
            return  # the end of the game says it
        if e.player == c.box:
            yield Line(f"{c.box} (box) passes the team's double.", "strong")
        else:
            yield Line(f"{e.player} passes and is out of this game (R40).", "strong")

    def resignation_points(self, level: int, member: str | None = None) -> int:
        """What a resignation of ``level`` is worth now (cube, R24, R25): a match's cube, or
        ``member``'s stake in a chouette."""
        contest = self.table.contest
        rules = contest.rules
        c = self._chouette()
        if c is not None and member is not None and member in c.stakes:
            stake = c.stakes[member]
            return int(stake.cube * rules.multiplier(level, stake.centred))
        game = contest.game()
        return game.cube_value * rules.multiplier(level, game.cube_owner is None)

    def on_resign(self, e: Any) -> Iterable[Line]:
        level = LEVEL_NAMES[e.level]
        c = self._chouette()
        if c is None:
            points = points_text(self.resignation_points(e.level))
            yield Line(f"{self.subject(e.player, 'offer')} to resign a {level} ({points}).", "strong")
        elif e.player == c.box:
            yield Line(f"{c.box} (box) offers every member in the game to resign a {level} (R31).", "strong")
        else:
            yield Line(f"{e.player} offers to resign a {level} on their own stake (R31).", "strong")

    def _answer(self, e: Any, verb: str, tail: str) -> Iterable[Line]:
        c = self._chouette()
        if c is None:  # "You accept." / "gnu declines the resignation: play goes on."
            what = " the resignation" if self.table.seat(self.name(e.player)).is_bot else ""
            yield Line(f"{self.subject(e.player, verb)}{what}{tail}.", "strong")
            return
        who = f"{c.box} (box)" if e.player == c.box else e.player
        yield Line(f"{who} {third_person(verb)} the resignation{tail}.", "strong")

    def on_accept(self, e: Any) -> Iterable[Line]:
        return self._answer(e, "accept", "")

    def on_decline(self, e: Any) -> Iterable[Line]:
        return self._answer(e, "decline", ": play goes on")

    def on_game_over(self, e: Any) -> Iterable[Line]:
        side = "box" if e.winner.value == "box" else "team"
        yield Line(f"Game {e.number} is over: the {side} won the captain's stake.", "strong")

    def result_text(self, result: Any) -> str:
        """How a two-player game ended, with the rules that shaped its value."""
        winner, loser = result.winner, result.loser
        level = LEVEL_NAMES[result.level]
        points = points_text(result.points)
        if result.kind is ResultKind.PASSED:
            return f"{self.subject(loser, 'pass')} the double: {self.subject(winner, 'win')} {points}."
        if result.kind is ResultKind.RESIGNED:
            what = f"{self.subject(winner, 'win')} by resignation (a {level}): {points}."
        else:
            what = f"{self.subject(winner, 'win')} a {level}: {points}."
        if result.multiplier < result.level:
            rules = self.table.contest.rules
            if result.level == 3 and rules.backgammon_counts_as_gammon and result.multiplier == 2:
                what += " (A backgammon counts as a gammon under these rules, R24.)"
            else:
                what += " (Jacoby rule: the cube was not turned, so it counts as a single game, R25.)"
        if result.cube > 1:
            what += f" (Cube at {result.cube}.)"
        return what

    def on_game_end(self, e: Any) -> Iterable[Line]:
        if self._chouette() is None:
            yield Line(self.result_text(e.result), "strong")

    def on_forfeit(self, e: Any) -> Iterable[Line]:
        """``ann lost the match on time: bob wins.`` / ``ann left the match: bob wins.``
        (a money session: ``ann left the session.``)."""
        contest = self.table.contest
        money = not contest.rules.match_length
        what = "session" if money else "match"
        name = self.name(e.player)
        text = f"{name} lost the {what} on time" if e.reason == "time" else f"{name} left the {what}"
        yield Line(text + "." if money else f"{text}: {self.subject(1 - e.player, 'win')}.", "strong")

    def on_match_end(self, e: Any) -> Iterable[Line]:
        contest = self.table.contest
        n = contest.rules.match_length
        if not n:  # a money session ends only when a player forfeits it
            yield Line(f"The session is over: {self.name(0)} {e.score[0]}, {self.name(1)} {e.score[1]}.", "strong")
            return
        s0, s1 = (min(s, n) for s in e.score)
        yield Line(f"{self.subject(e.winner, 'win')} the {n}-point match {max(s0, s1)}-{min(s0, s1)}!", "strong")
