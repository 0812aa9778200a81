"""gnubg's SGF match files (Smart Game Format, ``GM[6]``): :func:`loads` and :func:`dumps`.

A file is a list of game trees, one per game. Each game's root node holds the match facts
(``MI[length:7][game:2][ws:3][bs:1]``: length, game number from 0, the score before the game
of White and Black), the players (``PW`` player 0, ``PB`` player 1), the rules (``RU[Crawford]``,
``RU[Crawford:CrawfordGame]`` for the Crawford game, ``RU[Jacoby]``) and the result
(``RE[W+2]``; ``RE[B+4R]`` when it ended by a resignation); the first game's root also the
date ``DT``, event ``EV``, round ``RO``, place ``PC``, annotator ``AN`` and comment ``GC``.
Then one node per action, White (``W``) being player 0 and Black (``B``) player 1:

* ``B[21lnab]`` — Black rolled 2-1 and moved checker hops written as pairs of letters, one
  pair per die. Points are letters from White's side: ``a`` is White's 1-point (Black's
  24-point), ``x`` White's 24-point, ``y`` the bar and ``z`` off. A roll alone (``B[54]``)
  is a turn with no legal play; the first roll of a game is the opening roll;
* ``W[double]``, ``B[take]``, ``B[drop]``; a double answered by a double is a beaver (R30),
  which the doubler takes (``W[take]``);
* ``PL[W]DI[41]`` — White rolled 4-1 (and has not played yet);
* ``AE``/``AW``/``AB`` (a board set up: points cleared, White's and Black's checkers),
  ``PL`` (who is on roll), ``CV`` (cube value) and ``CP`` (cube owner ``w``, ``b`` or ``c``)
  before a game's first move set up its start (:class:`~backgammon.events.SetUp`).

gnubg's own analysis (``A``, ``DA``, ``GS``, ``MR``...) and comments on moves are skipped.
Values escape ``]`` and ``\\`` with a backslash; whitespace and line ends may come between
any two parts of the file.

Some facts of a :class:`~backgammon.match.Match` have no place in gnubg's format; they are
written as properties of their own, which gnubg skips when it loads the file:

* ``XO[22][31]`` (game root): the opening throws, player 0's die first, when one was a tie
  (R4) or the rules roll afresh after the opening (R5); a ``CV`` node then gives gnubg the
  cube of any automatic double (R6);
* ``RU`` tokens ``Beavers``, ``AutomaticDoubles``, ``AutomaticDoubleLimit=N``,
  ``CubeLimit=N``, ``OpeningReroll``, ``BackgammonAsGammon`` for the rules gnubg does not
  write (a money session of gnubg's that holds a beaver reads with beavers on);
* ``XR[W:2]`` a resignation offered (R31) that was declined (``XD[B]``) or is still pending
  (an accepted one is the result, ``RE[B+2R]``, as gnubg writes it); ``XF[W:time]`` player
  0 forfeits the match; ``XS[setup]`` on a ``double`` node: the set-up starts with the
  double offered.

A resignation is written as gnubg does: ``RE`` with the points offered (level times the
cube; gnubg counts them so even under the Jacoby rule, R25, where this library counts a
resigned gammon with the cube in the middle as a single game).

>>> from backgammon.dice import ScriptedDice
>>> from backgammon.match import Match
>>> from backgammon.formats import MatchRecord
>>> m = Match(3, dice=ScriptedDice([(3, 1), (6, 4)]))
>>> m.game.roll(); m.game.play("8/5 6/5"); m.game.roll(); m.game.play("24/18 13/9")
>>> m.game.double(); m.game.pass_double()
>>> text = dumps(MatchRecord(m, ("ann", "bob")))
>>> print(text)  # doctest: +NORMALIZE_WHITESPACE
(;FF[4]GM[6]CA[UTF-8]AP[backgammon]MI[length:3][game:0][ws:0][bs:0]PW[ann]PB[bob]RU[Crawford]RE[W+1]
;W[31hefe]
;B[64aglp]
;W[double]
;B[drop])
>>> loads(text).match == m
True
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NoReturn

from ..errors import BackgammonError
from ..events import (
    Accept,
    AutomaticDouble,
    Beaver,
    Decline,
    Double,
    Forfeit,
    GameStart,
    OpeningRoll,
    Pass,
    Play,
    Resign,
    ResultKind,
    Roll,
    SetUp,
    Take,
)
from ..game import Game, Phase
from ..match import Match
from ..move import BAR, OFF, Move, Step
from ..position import Position
from ..rules import Rules
from . import FileProblem, MatchFileError, MatchRecord

__all__ = ["dumps", "loads"]

#: root properties <-> MatchRecord.info keys
_INFO = (("DT", "date"), ("EV", "event"), ("RO", "round"), ("PC", "place"), ("AN", "annotator"),
         ("GC", "comment"))
#: RU tokens that switch a rule on
_FLAGS = {"Jacoby": "jacoby", "Beavers": "beavers", "AutomaticDoubles": "automatic_doubles",
          "OpeningReroll": "opening_reroll", "BackgammonAsGammon": "backgammon_counts_as_gammon"}
#: RU tokens with a number: Name=N
_NUMBERS = {"CubeLimit": "cube_limit", "AutomaticDoubleLimit": "automatic_double_limit"}
_KNOWN_RULES = ("Crawford, CrawfordGame, Jacoby, Beavers, AutomaticDoubles, AutomaticDoubleLimit=N, "
                "CubeLimit=N, OpeningReroll, BackgammonAsGammon")
_PLAYER_LETTER = ("W", "B")
_PLAYER_OF = {"W": 0, "B": 1}
_RESIGN_WORDS = {1: "single", 2: "gammon", 3: "backgammon"}


# -- points as letters -----------------------------------------------------------------------


def _letter(player: int, point: int) -> str:
    """The letter of ``point`` (1-24, 25 the bar, 0 off) in ``player``'s numbering."""
    if point == BAR:
        return "y"
    if point == OFF:
        return "z"
    return chr(96 + point) if player == 0 else chr(121 - point)


def _point(player: int, letter: str) -> int:
    """``player``'s point number of a letter (``a``-``x``; ``y`` the bar, ``z`` off)."""
    if letter == "y":
        return BAR
    if letter == "z":
        return OFF
    n = ord(letter) - 96
    return n if player == 0 else 25 - n


# -- the syntax ------------------------------------------------------------------------------


@dataclass
class _Node:
    line: int
    props: dict[str, list[str]] = field(default_factory=dict)

    def first(self, key: str) -> str | None:
        values = self.props.get(key)
        return values[0] if values else None

    def text(self, key: str) -> str:
        """``KEY[value]...`` as a reminder of what was found (shortened by FileProblem's user)."""
        return key + "".join(f"[{v}]" for v in self.props.get(key, ()))


@dataclass
class _Tree:
    line: int
    nodes: list[_Node] = field(default_factory=list)


class _SyntaxStop(Exception):
    def __init__(self, line: int, expected: str, found: str) -> None:
        super().__init__(expected)
        self.line, self.expected, self.found = line, expected, found


_SPACE = re.compile(r"\s*")
_IDENT = re.compile(r"[A-Za-z]+")
_VALUE_REST = re.compile(r"[^\]\\]*(?:\\.[^\]\\]*)*\]", re.S)
_ESCAPE = re.compile(r"\\(\n|.)", re.S)


def _unescape(raw: str) -> str:
    if "\\" not in raw:
        return raw
    return _ESCAPE.sub(lambda m: "" if m.group(1) == "\n" else m.group(1), raw)


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("]", "\\]")


class _Parser:
    """The game trees of a collection, each reduced to its main line (the first variation)."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0
        self._line = 1
        self._mark = 0

    def line_at(self, pos: int) -> int:
        if pos >= self._mark:
            self._line += self.text.count("\n", self._mark, pos)
            self._mark = pos
            return self._line
        return self._line - self.text.count("\n", pos, self._mark)

    def found(self) -> str:
        if self.pos >= len(self.text):
            return "the end of the file"
        return self.text[self.pos : self.pos + 24].split("\n")[0] or "a line end"

    def stop(self, expected: str) -> NoReturn:
        raise _SyntaxStop(self.line_at(self.pos), expected, self.found())

    def skip(self) -> None:
        m = _SPACE.match(self.text, self.pos)
        assert m is not None
        self.pos = m.end()

    def parse(self, trees: list[_Tree]) -> None:
        """Append each game tree to ``trees`` as soon as it starts (a broken one keeps the
        nodes read before the break); raise :class:`_SyntaxStop` at the first error."""
        text = self.text
        while True:
            self.skip()
            if self.pos >= len(text):
                if not trees:
                    self.stop("a game tree '(;FF[4]GM[6]...'")
                return
            if text[self.pos] != "(":
                self.stop("'(' starting a game tree")
            tree = _Tree(self.line_at(self.pos))
            trees.append(tree)
            self.tree(tree.nodes, tree.line)

    def tree(self, nodes: list[_Node] | None, start: int) -> None:
        """A game tree at ``(``: its nodes (added to ``nodes`` unless None) then its variations,
        the first of which continues the main line."""
        text = self.text
        self.pos += 1
        seen = False
        first = True
        while True:
            self.skip()
            if self.pos >= len(text):
                self.stop(f"')' closing the game tree begun on line {start}")
            ch = text[self.pos]
            if ch == ";" and first:
                node = self.node()
                seen = True
                if nodes is not None:
                    nodes.append(node)
            elif ch == "(" and seen:
                self.tree(nodes if first else None, self.line_at(self.pos))
                first = False
            elif ch == ")" and seen:
                self.pos += 1
                return
            elif not seen:
                self.stop("';' starting a node")
            else:
                self.stop("'(' or ')'" if not first else "';', '(' or ')'")

    def node(self) -> _Node:
        text = self.text
        node = _Node(self.line_at(self.pos))
        self.pos += 1
        while True:
            self.skip()
            m = _IDENT.match(text, self.pos)
            if m is None:
                return node
            ident = "".join(c for c in m.group() if c.isupper())
            if not ident:
                self.stop("a property name in capitals")
            self.pos = m.end()
            self.skip()
            if self.pos >= len(text) or text[self.pos] != "[":
                self.stop(f"'[' starting a value of {ident}")
            values = node.props.setdefault(ident, [])
            while self.pos < len(text) and text[self.pos] == "[":
                begun = self.line_at(self.pos)
                v = _VALUE_REST.match(text, self.pos + 1)
                if v is None:
                    raise _SyntaxStop(begun, f"']' closing the value of {ident} begun on line {begun}",
                                      "the end of the file")
                values.append(_unescape(v.group()[:-1]))
                self.pos = v.end()
                self.skip()


# -- reading ---------------------------------------------------------------------------------


class _Fatal(Exception):
    """Reading stops: strict mode at any problem, lenient mode when nothing more can be read."""


class _GameStop(Exception):
    """Lenient mode: the current game stops at a move it cannot apply."""


@dataclass
class _Result:
    winner: int
    points: int
    resigned: bool


_RE = re.compile(r"([WB])\+(\d+)(R?)$")
_MOVE = re.compile(r"([1-6])([1-6])([a-z]*)$")
_STANDARD = {24: 2, 13: 5, 8: 3, 6: 5}


@dataclass
class _Setup:
    """What the nodes before a game's first action set up."""

    white: list[int] | None = None  # player 0's 25 counts (points 1-24 from its side, the bar)
    black: list[int] | None = None
    player: int | None = None
    cube: int = 1
    owner: int | None = None
    dice: tuple[int, int, int] | None = None  # (player, die, die) after the last board change
    line: int = 0

    @property
    def changes(self) -> bool:
        return self.white is not None or self.cube != 1 or self.owner is not None

    def board(self) -> tuple[list[int], list[int]]:
        if self.white is None or self.black is None:
            start = [_STANDARD.get(p, 0) for p in range(1, 25)] + [0]
            self.white, self.black = list(start), list(start)
        return self.white, self.black


def _letters(value: str) -> Iterator[str]:
    """The letters of a point list value: ``f`` or a range ``a:y``."""
    if ":" in value:
        a, _, b = value.partition(":")
        if len(a) == 1 and len(b) == 1 and "a" <= a <= b <= "z":
            yield from (chr(c) for c in range(ord(a), ord(b) + 1))
            return
        raise ValueError(value)
    if len(value) != 1 or not "a" <= value <= "z":
        raise ValueError(value)
    yield value


class _Reader:
    def __init__(self, text: str, path: str, strict: bool) -> None:
        self.text = text
        self.path = path
        self.strict = strict
        self.problems: list[FileProblem] = []
        self.names = ("Player 0", "Player 1")
        self.info: dict[str, str] = {}
        self.match = Match(0)
        self.start: tuple[tuple[int, int], bool, bool] = ((0, 0), False, False)
        self.beaver_by: int | None = None  # a beaver's doubler, whose take follows in the file

    # -- problems ------------------------------------------------------------------------

    def note(self, line: int, expected: str, found: str = "") -> None:
        """A problem that does not stop a lenient read."""
        found = " ".join(found.split())
        if len(found) > 60:
            found = found[:57] + "..."
        self.problems.append(FileProblem(line, expected, found, self.path))
        if self.strict:
            raise _Fatal

    def game_stop(self, line: int, expected: str, found: str = "") -> NoReturn:
        """A problem that ends the current game."""
        self.note(line, expected, found)
        raise _GameStop

    def fatal(self, line: int, expected: str, found: str = "") -> NoReturn:
        """A problem after which nothing more can be read."""
        self.note(line, expected, found)
        raise _Fatal

    def record(self) -> MatchRecord:
        return MatchRecord(self.match, self.names, dict(self.info), tuple(self.problems))

    # -- the file ------------------------------------------------------------------------

    def read(self) -> MatchRecord:
        trees: list[_Tree] = []
        broken: _SyntaxStop | None = None
        try:
            _Parser(self.text).parse(trees)
        except _SyntaxStop as exc:
            broken = exc
        try:
            if trees and trees[0].nodes:
                self.begin(trees)
                for k, tree in enumerate(trees):
                    if not tree.nodes:
                        break
                    self.game(k, tree)
            if broken is not None:
                self.fatal(broken.line, broken.expected, broken.found)
        except _Fatal:
            if self.strict:
                raise MatchFileError(self.problems[0], self.record()) from None
        return self.record()

    def begin(self, trees: list[_Tree]) -> None:
        """The match from the first game's root: players, facts, length, rules, start."""
        root = trees[0].nodes[0]
        names = [(root.first(k) or "").strip() for k in ("PW", "PB")]
        self.names = (names[0] or "Player 0", names[1] or "Player 1")
        for key, name in _INFO:
            value = root.first(key)
            if value is not None and value.strip():
                self.info[name] = value.strip()
        gm = root.first("GM")
        if gm is not None and gm.strip() != "6":
            self.fatal(root.line, "GM[6] (backgammon)", root.text("GM"))
        length, score = self.match_info(root)
        rules = self.rules(root, length, trees)
        crawford = self.crawford_game(root)
        post = bool(length) and not crawford and length - 1 in score and length > 1
        try:
            self.match = Match(length, rules, score=score, crawford=crawford, post_crawford=post)
            self.start = (score, crawford, post)
        except BackgammonError as exc:
            self.note(root.line, f"a start the rules allow ({exc})", root.text("MI") + root.text("RU"))
            self.match = Match(length, rules)

    def match_info(self, root: _Node) -> tuple[int, tuple[int, int]]:
        """Length and score before the game from ``MI``; money when there is none."""
        facts: dict[str, int] = {}
        for value in root.props.get("MI", ()):
            key, colon, number = value.partition(":")
            if not colon or not number.strip().isdigit():
                self.note(root.line, "MI[key:number] such as MI[length:7]", f"MI[{value}]")
                continue
            facts[key.strip()] = int(number)
        return facts.get("length", 0), (facts.get("ws", 0), facts.get("bs", 0))

    def crawford_game(self, root: _Node) -> bool:
        return any("CrawfordGame" in v.split(":") for v in root.props.get("RU", ()))

    def rules(self, root: _Node, length: int, trees: list[_Tree]) -> Rules:
        options: dict[str, Any] = {}
        for value in root.props.get("RU", ()):
            for token in filter(None, (t.strip() for t in value.split(":"))):
                name, _, arg = token.partition("=")
                if name in ("Crawford", "CrawfordGame"):
                    continue
                if name in _FLAGS and not arg:
                    options[_FLAGS[name]] = True
                elif name in _NUMBERS and arg.isdigit():
                    options[_NUMBERS[name]] = int(arg)
                elif name.startswith(("Nackgammon", "Hypergammon")):
                    self.fatal(root.line, "standard backgammon (variants such as Nackgammon are not "
                               "played here)", f"RU[{value}]")
                else:
                    self.note(root.line, f"rules among {_KNOWN_RULES}", f"RU[{value}]")
        if _has_beaver(trees):
            options["beavers"] = True  # gnubg does not write it (in a match a beaver is refused, R34)
        try:
            return Rules(match_length=length, **options)
        except BackgammonError as exc:
            self.note(root.line, f"rules that can be played ({exc})", root.text("RU"))
            return Rules(match_length=length)

    # -- a game --------------------------------------------------------------------------

    def game(self, k: int, tree: _Tree) -> None:
        root = tree.nodes[0]
        match = self.match
        if match.is_over():
            what = "the session ended" if match.is_money else "the match is over (R32)"
            self.fatal(root.line, f"the end of the file: {what}", f"game {k + 1}")
        game = match.game
        if game.events:
            self.fatal(root.line, f"the end of game {k} (its moves, or RE[...R] for a resignation)",
                       f"the start of game {k + 1}")
        if k:
            length, score = self.match_info(root)
            if length != match.length:
                self.note(root.line, f"MI[length:{match.length}] as in game 1", root.text("MI"))
            elif match.length and "MI" in root.props and score != match.score:
                ws, bs = match.score
                self.note(root.line, f"the score before game {k + 1}, [ws:{ws}][bs:{bs}]",
                          root.text("MI"))
            if match.length and self.crawford_game(root) != game.crawford:
                said = "is" if game.crawford else "is not"
                self.note(root.line, f"RU[...] saying that game {k + 1} {said} the Crawford game (R33)",
                          root.text("RU"))
        index = len(match.games) - 1
        stopped = False
        try:
            self.beaver_by = None
            self.openings(root, game)
            self.nodes(tree.nodes[1:])
        except _GameStop:
            stopped = True
        self.finish(root, self.match.games[index], stopped)  # a set-up replaces self.match

    def openings(self, root: _Node, game: Game) -> None:
        for value in root.props.get("XO", ()):
            throw = value.strip()
            if not (len(throw) == 2 and throw.isdigit() and all("1" <= d <= "6" for d in throw)):
                self.game_stop(root.line, "XO[..] with opening throws such as 31 (player 0's die first)",
                               root.text("XO"))
            self.act(root, root.text("XO"), lambda: game.roll((int(throw[0]), int(throw[1]))))

    def act(self, node: _Node, found: str, action: Callable[[], object]) -> None:
        """Take an action on the game; a refusal is a problem of ``node``."""
        try:
            action()
        except BackgammonError as exc:
            refusal = exc.refusal
            reason = refusal.reason if refusal is not None else str(exc)
            if refusal is not None and refusal.rule:
                reason += f" ({refusal.rule})"
            self.game_stop(node.line, f"an action the rules allow here ({reason})", found)

    def nodes(self, nodes: Sequence[_Node]) -> None:
        setup: _Setup | None = _Setup() if not self.match.game.events else None
        for i, node in enumerate(nodes):
            props = node.props
            last = i == len(nodes) - 1
            if setup is not None:
                action = any(k in props for k in ("W", "B", "XR", "XD", "XF"))
                if not action:
                    self.collect(setup, node)
                    continue
                offered = self.set_up(setup, node)
                setup = None
                if offered:
                    continue  # the set-up's double
            self.node(node, last)
        if setup is not None:
            self.set_up(setup, None)

    # -- set-ups ---------------------------------------------------------------------------

    def collect(self, setup: _Setup, node: _Node) -> None:
        props = node.props
        player = self.player_of(node, "PL") if "PL" in props else None
        if player is not None:
            setup.player = player
        if any(k in props for k in ("AE", "AW", "AB")):
            white, black = setup.board()
            setup.line = setup.line or node.line
            setup.dice = None
            try:
                for value in props.get("AE", ()):
                    for c in _letters(value):
                        if c == "y":
                            white[24] = black[24] = 0
                        elif c != "z":
                            white[_point(0, c) - 1] = black[_point(1, c) - 1] = 0
                for key, side, who in (("AW", white, 0), ("AB", black, 1)):
                    for value in props.get(key, ()):
                        for c in _letters(value):
                            if c == "z":
                                raise ValueError(value)
                            side[_point(who, c) - 1] += 1
            except ValueError as exc:
                self.game_stop(node.line, "points as letters a-y or ranges such as a:y", f"[{exc}]")
        if "DI" in props:
            if player is None:
                self.game_stop(node.line, "PL[W] or PL[B] with DI[..]", node.text("DI"))
            d1, d2 = self.dice_of(node, node.first("DI") or "")
            setup.dice = (player, d1, d2)
        if "CV" in props:
            value = (node.first("CV") or "").strip()
            if not value.isdigit() or int(value) < 1 or int(value) & (int(value) - 1):
                self.game_stop(node.line, "CV[n] with a cube value 1, 2, 4, 8... (R26)", node.text("CV"))
            setup.cube = int(value)
            setup.line = setup.line or node.line
        if "CP" in props:
            setup.owner = self.owner_of(node)
            setup.line = setup.line or node.line

    def owner_of(self, node: _Node) -> int | None:
        value = (node.first("CP") or "").strip().lower()
        if value not in ("w", "b", "c"):
            self.game_stop(node.line, "CP[w], CP[b] or CP[c] (the cube's owner, or centred)", node.text("CP"))
        return None if value == "c" else _PLAYER_OF[value.upper()]

    def set_up(self, setup: _Setup, action: _Node | None) -> bool:
        """Start the game from what the leading nodes set up: a :class:`SetUp`, or the
        opening throw of a ``DI`` node. True when the set-up takes in ``action``, the
        double it starts with (``XS[setup]``)."""
        game = self.match.game
        first = None
        if action is not None:
            first = next((p for p in ("W", "B") if p in action.props), None)
        if not setup.changes:
            if setup.dice is not None:
                player, d1, d2 = setup.dice
                found = f"PL[{_PLAYER_LETTER[player]}]DI[{d1}{d2}]"
                self.opening(action or _Node(0), game, player, d1, d2, found)
            return False
        # who acts first is on roll (gnubg writes the PL of a board set up as it pleases)
        answer = action is not None and first is not None and (action.first(first) or "").strip().lower() in (
            "take", "drop", "pass", "beaver")
        if first is not None and not answer:
            player = _PLAYER_OF[first]
        elif setup.dice is not None:
            player = setup.dice[0]
        else:
            player = setup.player if setup.player is not None else 0
        white, black = setup.board()
        try:
            position = Position(white, black) if player == 0 else Position(black, white)
        except BackgammonError as exc:
            self.game_stop(setup.line, f"a board that can be played ({exc})", "AE/AW/AB")
        dice = None
        if setup.dice is not None and setup.dice[0] == player:
            dice = setup.dice[1], setup.dice[2]
        offered = False
        if action is not None and "XS" in action.props:
            said = (action.first(first) or "").strip() if first is not None else ""
            if first is None or _PLAYER_OF[first] != player or said != "double":
                self.game_stop(action.line, "a double by the player on roll with XS[setup]",
                               action.text("XS"))
            offered = True
        event = SetUp(position.position_id(), player, setup.cube, setup.owner, dice, offered)
        score, crawford, post = self.start
        try:
            self.match = Match.replay([*self.match.events, event], self.match.length, self.match.rules,
                                      score=score, crawford=crawford, post_crawford=post)
        except BackgammonError as exc:
            self.game_stop(setup.line, f"a set-up the rules allow ({exc})", "AE/AW/AB/CV/CP")
        return offered

    # -- actions ---------------------------------------------------------------------------

    def player_of(self, node: _Node, key: str) -> int:
        value = (node.first(key) or "").strip().upper()
        if value not in _PLAYER_OF:
            self.game_stop(node.line, f"{key}[W] or {key}[B]", node.text(key))
        return _PLAYER_OF[value]

    def dice_of(self, node: _Node, value: str) -> tuple[int, int]:
        m = _MOVE.match("".join(value.split()))
        if m is None or m.group(3):
            self.game_stop(node.line, "two dice 1-6 such as DI[41]", f"DI[{value}]")
        return int(m.group(1)), int(m.group(2))

    def opening(self, node: _Node, game: Game, player: int, d1: int, d2: int, found: str) -> None:
        if d1 == d2:
            self.game_stop(node.line, "an opening roll of two different dice (R4)", found)
        hi, lo = max(d1, d2), min(d1, d2)
        throw = (hi, lo) if player == 0 else (lo, hi)
        self.act(node, found, lambda: game.roll(throw))

    def node(self, node: _Node, last: bool) -> None:
        props = node.props
        game = self.match.game
        if any(k in props for k in ("AE", "AW", "AB")):
            self.game_stop(node.line, "a move (a board is set up only before a game's first move)",
                           node.text("AE") + node.text("AW") + node.text("AB"))
        if "DI" in props:
            player = self.player_of(node, "PL")
            d1, d2 = self.dice_of(node, node.first("DI") or "")
            found = f"PL[{_PLAYER_LETTER[player]}]DI[{d1}{d2}]"
            if game.phase is Phase.OPENING:
                self.opening(node, game, player, d1, d2, found)
            elif not _rolled(game, player, (d1, d2)):
                self.act(node, found, lambda: game.roll((d1, d2), player=player))
        if "CV" in props and (node.first("CV") or "").strip() != str(game.cube_value):
            self.game_stop(node.line, f"CV[{game.cube_value}] (after the first move the cube changes only "
                           "by doubles)", node.text("CV"))
        if "CP" in props and self.owner_of(node) != game.cube_owner:
            self.game_stop(node.line, "the cube's owner as it stands (it changes only by doubles)",
                           node.text("CP"))
        for key in ("W", "B"):
            if key in props:
                self.action(node, _PLAYER_OF[key], key, node.first(key) or "", last)
        if "XR" in props:
            value = node.first("XR") or ""
            who, _, level = value.partition(":")
            if who not in _PLAYER_OF or level not in ("1", "2", "3"):
                self.game_stop(node.line, "XR[W:level] or XR[B:level], level 1-3", node.text("XR"))
            self.act(node, node.text("XR"), lambda: game.resign(int(level), player=_PLAYER_OF[who]))
        if "XD" in props:
            player = self.player_of(node, "XD")
            self.act(node, node.text("XD"), lambda: game.decline(player=player))
        if "XF" in props:
            value = node.first("XF") or ""
            who, _, reason = value.partition(":")
            if who not in _PLAYER_OF:
                self.game_stop(node.line, "XF[W:reason] or XF[B:reason]", node.text("XF"))
            self.act(node, node.text("XF"), lambda: self.match.forfeit(reason, player=_PLAYER_OF[who]))

    def action(self, node: _Node, player: int, key: str, raw: str, last: bool) -> None:
        game = self.match.game
        value = "".join(raw.split()).lower()
        found = f"{key}[{raw}]"
        beaver_by, self.beaver_by = self.beaver_by, None
        if value == "double" or value == "beaver":
            if game.phase is Phase.CUBE and game.to_act == player:
                self.act(node, found, lambda: game.beaver(player=player))
                self.beaver_by = 1 - player
            elif value == "double":
                self.act(node, found, lambda: game.double(player=player))
            else:
                self.game_stop(node.line, "a beaver only in answer to a double (R30)", found)
        elif value == "take":
            if beaver_by != player:
                self.act(node, found, lambda: game.take(player=player))
        elif value in ("drop", "pass"):
            if beaver_by == player:
                self.game_stop(node.line, "a take of the beaver (R30: the doubler plays on)", found)
            self.act(node, found, lambda: game.pass_double(player=player))
        else:
            m = _MOVE.match(value)
            if m is None:
                self.game_stop(node.line, f"{key}[double], [take], [drop] or a roll and its move such as "
                               f"{key}[31hefe]", found)
            dice = int(m.group(1)), int(m.group(2))
            if game.phase is Phase.OPENING:
                self.opening(node, game, player, dice[0], dice[1], found)
                if game.rules.opening_reroll:
                    self.game_stop(node.line, "XO[..] with the opening throw (the opening is rolled afresh, "
                                   "R5)", found)
            elif not _rolled(game, player, dice):
                self.act(node, found, lambda: game.roll(dice, player=player))
            self.play(node, game, player, m.group(3), found, last)

    def play(self, node: _Node, game: Game, player: int, letters: str, found: str, last: bool) -> None:
        legal = game.legal_moves()
        if not letters:
            if not len(legal):
                self.act(node, found, lambda: game.play(Move(), player=player))
            elif not last:
                self.game_stop(node.line, f"the checker moves of the roll (for example {legal[0]})", found)
            return  # the roll of an unfinished game, played after the file was written
        if len(letters) % 2:
            self.game_stop(node.line, "checker moves as pairs of letters, from and to", found)
        try:
            steps = [Step(_point(player, a), _point(player, b)) for a, b in zip(letters[::2], letters[1::2])]
            target = _after(game.position, steps)
        except BackgammonError as exc:
            self.game_stop(node.line, f"checker moves that can be made ({exc})", found)
        index = None if target is None else legal.find_position(target)
        if index is None:
            written = " ".join(f"{s.src if s.src != BAR else 'bar'}/{s.dst or 'off'}" for s in steps)
            example = f" such as {legal[0]}" if len(legal) else ""
            dice = game.dice or (0, 0)
            self.game_stop(node.line, f"a legal play of {dice[0]}-{dice[1]}{example}", f"{found} ({written})")
        self.act(node, found, lambda: game.play(legal[index], player=player))

    # -- the end of a game -----------------------------------------------------------------

    def finish(self, root: _Node, game: Game, stopped: bool) -> None:
        """Check the game's result against ``RE``; end a game that the moves leave open by
        the resignation ``RE[..R]`` records (or, when the lenient read stopped the game, by
        the result ``RE`` records, so that the next game can be read)."""
        result = None
        raw = root.first("RE")
        if raw is not None and raw.strip():
            m = _RE.match("".join(raw.split()))
            if m is None:
                self.note(root.line, "RE[W+points] or RE[B+points], R after the points for a resignation",
                          f"RE[{raw}]")
            else:
                result = _Result(_PLAYER_OF[m.group(1)], int(m.group(2)), bool(m.group(3)))
        if self.match.forfeited is not None:
            return
        if game.is_over():
            got = game.result
            assert got is not None
            if result is not None and not stopped:
                points = got.level * got.cube if got.kind is ResultKind.RESIGNED else got.points
                if (result.winner, result.points) != (got.winner, points):
                    said = f"RE[{_PLAYER_LETTER[got.winner]}+{points}]"
                    self.note(root.line, f"{said}, the result of the moves", f"RE[{raw}]")
            return
        if result is None or not (result.resigned or stopped):
            return
        winner, loser, cube = result.winner, 1 - result.winner, game.cube_value
        level, rest = divmod(result.points, cube)
        try:
            if rest or not 1 <= level <= 3:
                raise _GameStop
            if game.phase is Phase.RESIGN:
                pending = game.resignation
                if pending != (loser, level):
                    raise _GameStop
            else:
                game.resign(level, player=loser)
            game.accept(player=winner)
        except (_GameStop, BackgammonError):
            if not stopped:  # a lenient read that stopped the game has said so already
                self.note(root.line, f"a resignation that the player to act can make, of 1, 2 or 3 times the "
                          f"cube ({cube})", f"RE[{raw}]")


def _has_beaver(trees: Iterable[_Tree]) -> bool:
    """True when a game holds a beaver: a double answered by a double (gnubg's way)."""
    for tree in trees:
        before = None
        for node in tree.nodes[1:]:
            for key in ("W", "B"):
                value = (node.first(key) or "").strip().lower()
                other = "B" if key == "W" else "W"
                if value == "beaver" or (value == "double" and before == ("double", other)):
                    return True
                if value:
                    before = (value, key)
    return False


def _rolled(game: Game, player: int, dice: tuple[int, int]) -> bool:
    """True when ``player`` has rolled ``dice`` (in either order) and is to play them."""
    return game.phase is Phase.PLAY and game.on_roll == player and sorted(game.dice or ()) == sorted(dice)


def _after(position: Position, steps: Sequence[Step]) -> Position | None:
    """The position after ``steps`` (seen by the opponent), the hops made in the order
    written, else as :meth:`Position.play` orders them; None when neither can be made."""
    current = position
    try:
        for step in steps:
            current = current.play(Move([step])).swap()
        return current.swap()
    except BackgammonError:
        try:
            return position.play(Move(steps))
        except BackgammonError:
            return None


def loads(text: str, *, path: str = "", strict: bool = True) -> MatchRecord:
    """Read gnubg's SGF text (one game tree per game) into a :class:`MatchRecord`.

    With ``strict`` a file that is wrong raises :class:`~backgammon.formats.MatchFileError`
    (its line, what was expected and found, and what could be read before it); otherwise
    the record holds what could be read and lists the problems.

    >>> text = "(;GM[6]MI[length:3]PW[ann]PB[bob]\\n;W[31hefe]\\n;B[64agaa])"
    >>> loads(text, path="m.sgf")
    Traceback (most recent call last):
    ...
    backgammon.formats.MatchFileError: m.sgf:3: expected a legal play of 6-4 such as 24/14, found 'B[64agaa] (24/18 24/24)'
    >>> r = loads(text, strict=False)
    >>> r.names, r.match.game.dice, len(r.problems)
    (('ann', 'bob'), (6, 4), 1)
    """
    text = text.lstrip("\ufeff").replace("\r\n", "\n").replace("\r", "\n")
    return _Reader(text, path, strict).read()


# -- writing ---------------------------------------------------------------------------------


def _hop(position: Position, src: int, die: int) -> Step | None:
    """One checker from ``src`` by ``die`` (mover's view), or None when no rule allows it."""
    me, opp = position.player, position.opponent
    if not me[src - 1] or (src != BAR and me[BAR - 1]):
        return None
    dst = src - die
    if dst <= 0:
        if any(me[6:25]) or (dst < 0 and any(me[src:6])):
            return None
        return Step(src, OFF)
    if opp[24 - dst] >= 2:
        return None
    return Step(src, dst, opp[24 - dst] == 1)


def _die_hops(position: Position, dice: tuple[int, int], target: Position) -> list[Step]:
    """The hops, one die each, that take ``position`` (mover's view) to ``target`` (seen by
    the opponent, as :meth:`Position.play` gives it): gnubg writes a pair of letters a die."""
    goal = target.opponent
    pool = (dice[0],) * 4 if dice[0] == dice[1] else dice

    def search(current: Position, left: tuple[int, ...], top: int, prune: bool) -> list[Step] | None:
        if current.swap() == target:
            return []
        me = current.player
        for k, die in enumerate(left):
            if die in left[:k]:
                continue
            rest = left[:k] + left[k + 1 :]
            for src in range(top, 0, -1):
                if prune and me[src - 1] <= goal[src - 1]:
                    continue
                step = _hop(current, src, die)
                if step is None:
                    continue
                found = search(current.play(Move([step])).swap(), rest, src if prune else BAR, prune)
                if found is not None:
                    return [step, *found]
        return None

    hops = search(position, tuple(pool), BAR, True) or search(position, tuple(pool), BAR, False)
    if hops is None:  # pragma: no cover - a legal play is always made of one-die hops
        where = f"{position.position_id()} to {target.position_id()}"
        raise BackgammonError(f"no hops of {dice} lead from {where}")
    return hops


def _rules_tokens(rules: Rules, crawford_game: bool) -> list[str]:
    tokens: list[str] = []
    if rules.match_length:
        tokens.append("Crawford")
        if crawford_game:
            tokens.append("CrawfordGame")
    if rules.jacoby:
        tokens.append("Jacoby")
    if rules.beavers:
        tokens.append("Beavers")
    if rules.automatic_doubles:
        tokens.append("AutomaticDoubles")
    if rules.automatic_double_limit != 1:
        tokens.append(f"AutomaticDoubleLimit={rules.automatic_double_limit}")
    if rules.cube_limit is not None:
        tokens.append(f"CubeLimit={rules.cube_limit}")
    if rules.opening_reroll:
        tokens.append("OpeningReroll")
    if rules.backgammon_counts_as_gammon:
        tokens.append("BackgammonAsGammon")
    return tokens


class _GameWriter:
    """The nodes of one game, from its events."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.rules = game.rules
        self.nodes: list[str] = []
        self.position = Position.initial()  # seen from the player on roll
        self.on_roll = 0
        #: the roll being played: (player, dice, whether a DI node has said it already)
        self.roll: tuple[int, tuple[int, int], bool] | None = None

    def say_roll(self) -> None:
        """A ``PL[X]DI[..]`` node for a roll that no move node will carry."""
        if self.roll is not None and not self.roll[2]:
            player, (d1, d2), _ = self.roll
            self.nodes.append(f"PL[{_PLAYER_LETTER[player]}]DI[{d1}{d2}]")
            self.roll = (player, (d1, d2), True)

    def set_up(self, e: SetUp) -> None:
        self.position = Position.from_position_id(e.position_id)
        self.on_roll = e.player
        mine, theirs = self.position.player, self.position.opponent
        sides = (mine, theirs) if e.player == 0 else (theirs, mine)
        node = f"PL[{_PLAYER_LETTER[e.player]}]AE[a:y]"
        for who, side in enumerate(sides):
            letters = "".join(f"[{_letter(who, p + 1)}]" * n for p, n in enumerate(side) if n)
            if letters:
                node += f"A{_PLAYER_LETTER[who]}{letters}"
        self.nodes.append(node)
        if e.cube != 1:
            self.nodes.append(f"CV[{e.cube}]")
        if e.cube_owner is not None:
            self.nodes.append(f"CP[{'wb'[e.cube_owner]}]")
        if e.dice is not None:
            self.roll = (e.player, e.dice, False)
            self.say_roll()
        if e.double_offered:
            self.nodes.append(f"{_PLAYER_LETTER[e.player]}[double]XS[setup]")

    def opening(self, e: OpeningRoll) -> None:
        a, b = e.dice
        if a == b:
            return  # a tie, thrown again (R4): in XO
        winner = 0 if a > b else 1
        if winner != self.on_roll:
            self.position = self.position.swap()
        self.on_roll = winner
        if not self.rules.opening_reroll:
            self.roll = (winner, (max(a, b), min(a, b)), False)

    def play(self, e: Play) -> None:
        assert self.roll is not None and self.roll[0] == e.player
        player, dice, _ = self.roll
        target = self.position.play(e.move)
        letters = ""
        if not e.move.is_pass():
            hops = _die_hops(self.position, dice, target)
            letters = "".join(_letter(player, s.src) + _letter(player, s.dst) for s in hops)
        self.nodes.append(f"{_PLAYER_LETTER[player]}[{dice[0]}{dice[1]}{letters}]")
        self.position = target
        self.on_roll = 1 - player
        self.roll = None

    def write(self, tail: Forfeit | None) -> list[str]:
        events = self.game.events
        last_auto = max((i for i, e in enumerate(events) if isinstance(e, AutomaticDouble)), default=-1)
        for i, e in enumerate(events):
            after = events[i + 1] if i + 1 < len(events) else None
            if isinstance(e, SetUp):
                self.set_up(e)
            elif isinstance(e, OpeningRoll):
                self.opening(e)
            elif isinstance(e, AutomaticDouble):
                if i == last_auto:
                    self.nodes.append(f"CV[{e.cube}]")  # for gnubg: XO holds the throws
            elif isinstance(e, Roll):
                self.roll = (e.player, e.dice, False)
            elif isinstance(e, Play):
                self.play(e)
            elif isinstance(e, (Double, Take, Pass)):
                word = {Double: "double", Take: "take", Pass: "drop"}[type(e)]
                self.nodes.append(f"{_PLAYER_LETTER[e.player]}[{word}]")
            elif isinstance(e, Beaver):
                self.nodes.append(f"{_PLAYER_LETTER[e.player]}[double]")
                self.nodes.append(f"{_PLAYER_LETTER[1 - e.player]}[take]")
            elif isinstance(e, Resign):
                self.say_roll()
                if not isinstance(after, Accept):  # an accepted one is the result, RE[..R]
                    self.nodes.append(f"XR[{_PLAYER_LETTER[e.player]}:{e.level}]")
            elif isinstance(e, Decline):
                self.nodes.append(f"XD[{_PLAYER_LETTER[e.player]}]")
        self.say_roll()
        if tail is not None:
            self.nodes.append(f"XF[{_PLAYER_LETTER[tail.player]}:{tail.reason}]")
        return self.nodes


def dumps(record: MatchRecord) -> str:
    """The SGF text of ``record``: one game tree per game, as gnubg writes them (without
    its analysis), which gnubg loads with ``load match``. See the module's notes for what
    gnubg's format cannot hold and how it is written."""
    match = record.match
    rules = match.rules
    starts = [e for e in match.events if isinstance(e, GameStart)]
    games = list(match.games)
    forfeit = match.forfeited
    keep = [(i, g) for i, g in enumerate(games) if g.events]
    if not keep or (forfeit is not None and not games[-1].events):
        keep.append((len(games) - 1, games[-1]))
    out: list[str] = []
    for k, (index, game) in enumerate(keep):
        start = starts[index]
        root = [f"FF[4]GM[6]CA[UTF-8]AP[backgammon]MI[length:{match.length}][game:{index}]"
                f"[ws:{start.score[0]}][bs:{start.score[1]}]",
                f"PW[{_escape(record.names[0])}]PB[{_escape(record.names[1])}]"]
        if k == 0:
            info = record.info
            root.extend(f"{key}[{_escape(info[name])}]" for key, name in _INFO if info.get(name))
        tokens = _rules_tokens(rules, start.crawford)
        if tokens:
            root.append(f"RU[{':'.join(tokens)}]")
        result = game.result
        if result is not None:
            who = _PLAYER_LETTER[result.winner]
            if result.kind is ResultKind.RESIGNED:
                root.append(f"RE[{who}+{result.level * result.cube}R]")
            else:
                root.append(f"RE[{who}+{result.points}]")
        throws = [e.dice for e in game.events if isinstance(e, OpeningRoll)]
        if throws and (rules.opening_reroll or any(a == b for a, b in throws)):
            root.append("XO" + "".join(f"[{a}{b}]" for a, b in throws))
        tail = forfeit if forfeit is not None and k == len(keep) - 1 else None
        nodes = _GameWriter(game).write(tail)
        out.append("(;" + "".join(root) + "".join(f"\n;{n}" for n in nodes) + ")\n")
    return "".join(out)
