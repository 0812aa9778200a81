"""Drawing the board: a :class:`Scene` (what to show) becomes a :class:`rich.text.Text`.

The board is ASCII (checkers ``X`` and ``O``, frames of ``+ - |``); on a colour terminal
the two sides, the labels and the frame are coloured, and without colour (``NO_COLOR``, a
pipe, ``--color never``) the same characters are printed plain. Player X's home board is
drawn in the chosen corner (R46; bottom right by default), and the point numbers are those
of the player named by :attr:`Scene.numbering` (the person at the keyboard).

>>> from backgammon import Position
>>> text = render(Scene(Position.initial(), names=("You", "pubeval"), on_roll=0, dice=(3, 1)))
>>> print(text.plain)  # doctest: +NORMALIZE_WHITESPACE
Money game, game 1 - Score: You 0, pubeval 0
+13-14-15-16-17-18-+---+19-20-21-22-23-24-+---+  O  pubeval
| X           O    |   | O              X |   |     pips 167, off 0
| X           O    |   | O              X |   |
| X           O    |   | O                |   |
| X                |   | O                |   |
| X                |   | O                |   |
|      cube 1      |BAR|     dice 3-1     |off|  Cube 1, in the middle
| O                |   | X                |   |  X to play 3-1
| O                |   | X                |   |
| O           X    |   | X                |   |
| O           X    |   | X              O |   |
| O           X    |   | X              O |   |     pips 167, off 0
+12-11-10--9--8--7-+---+-6--5--4--3--2--1-+---+  X  You (on roll)
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.text import Text

from ..errors import BackgammonError
from ..position import Position
from .options import CORNERS
from .prompts import LEVEL_NAMES

if TYPE_CHECKING:
    from ..game import Game
    from ..match import Match

__all__ = ["MARKS", "STYLES", "Scene", "render", "scene_of"]

#: The checkers of player 0 and player 1.
MARKS = ("X", "O")
#: Their colours (ignored without colour).
STYLES = ("bold yellow", "bold cyan")
_FRAME = "blue"
_LABEL = "bright_black"
_HEIGHT = 5  # checkers drawn per point before the count is written


@dataclass(frozen=True)
class Scene:
    """What :func:`render` draws.

    ``board`` is seen from player 0 (``game.board(0)``). ``viewer`` is the player whose home
    board sits in ``corner``; ``numbering`` the player whose point numbers label the board
    (default: the viewer). The rest describes the game: the cube, the dice and who has
    them, the score and match, and a ``note`` shown under the information panel.

    Two optional texts let another front end (the chouette) reuse the drawing: ``title``
    replaces the headline (score and match) and ``cube_text`` the cube line of the panel;
    both are empty for ``backgammon play``.
    """

    board: Position
    names: tuple[str, str] = ("X", "O")
    viewer: int = 0
    numbering: int | None = None
    corner: str = CORNERS[0]
    cube_value: int = 1
    cube_owner: int | None = None
    cube_offered: bool = False
    #: a pending resignation (R31): (the player who offers it, level 1-3), or None
    resign_offered: tuple[int, int] | None = None
    dice: tuple[int, int] | None = None
    on_roll: int | None = None
    score: tuple[int, int] = (0, 0)
    match_length: int = 0
    crawford: bool = False
    post_crawford: bool = False
    game_number: int = 1
    note: str = ""
    ids: str = ""
    title: str = ""
    cube_text: str = ""


def scene_of(match: Match, game: Game | None = None, **changes: object) -> Scene:
    """The :class:`Scene` of ``game`` (default: the match's current game) in ``match``;
    ``changes`` override fields (``board`` for a tentative play, ``corner``...).

    >>> from backgammon import Match, ScriptedDice
    >>> m = Match(5, dice=ScriptedDice([(3, 1)])); m.game.roll()
    >>> s = scene_of(m); s.on_roll, s.dice, s.match_length
    (0, (3, 1), 5)
    """
    game = match.game if game is None else game
    index = match.games.index(game) if game in match.games else len(match.games) - 1
    over = game.is_over()
    ids = ""
    if not over:
        try:
            match_id = game.match_id()
        except BackgammonError:  # a cube past what a Match ID can hold (no cube limit)
            match_id = "none (cube too high)"
        ids = f"Position ID {game.position_id()}   Match ID {match_id}"
    fields: dict[str, object] = {
        "board": game.board(0),
        "cube_value": game.cube_value,
        "cube_owner": game.cube_owner,
        "cube_offered": game.phase.value == "cube",
        "resign_offered": game.resignation,
        "dice": game.dice,
        "on_roll": game.on_roll if not over else None,
        "score": game.score,
        "match_length": match.length,
        "crawford": game.crawford,
        "post_crawford": match.length > 0 and not game.crawford and match.post_crawford,
        "game_number": index + 1,
        "ids": ids,
    }
    fields.update(changes)
    return Scene(**fields)  # type: ignore[arg-type]


def _grid(corner: str) -> tuple[list[int], list[int]]:
    """The viewer's point numbers along the top and bottom edges, left to right."""
    top = list(range(13, 25))
    bottom = list(range(12, 0, -1))
    if corner.endswith("left"):
        top.reverse()
        bottom.reverse()
    if corner.startswith("top"):
        top, bottom = bottom, top
    return top, bottom


def _headline(scene: Scene) -> Text:
    if scene.title:
        return Text(scene.title, style="bold")
    n0, n1 = scene.names
    s0, s1 = scene.score
    if scene.match_length:
        s0, s1 = min(s0, scene.match_length), min(s1, scene.match_length)
        head = f"{scene.match_length}-point match, game {scene.game_number}"
        if scene.crawford:
            head += " (Crawford game: no doubling)"
        elif scene.post_crawford:
            head += " (post-Crawford)"
    else:
        head = f"Money game, game {scene.game_number}"
    text = Text(f"{head} - Score: ", style="bold")
    text.append(f"{n0} {s0}", style=STYLES[0])
    text.append(", ")
    text.append(f"{n1} {s1}", style=STYLES[1])
    return text


def _cell(count: int, row: int, mark: str, style: str) -> Text:
    """Row ``row`` (0 at the edge) of a point holding ``count`` checkers of ``mark``."""
    if count > row and (row < _HEIGHT - 1 or count <= _HEIGHT):
        return Text(f" {mark} ", style=style)
    if row == _HEIGHT - 1 and count > _HEIGHT:
        return Text(f"{count:^3}", style=style)
    return Text("   ")


def _labels(points: list[int], numbering_is_viewer: bool) -> Text:
    text = Text()
    for p in points:
        label = p if numbering_is_viewer else 25 - p
        text.append(f"{label:->2}", style=_LABEL)
        text.append("-", style=_FRAME)
    return text


def render(scene: Scene, width: int | None = None) -> Text:
    """The board of ``scene`` as text: a headline, the board with an information panel
    beside it (below it when ``width`` is under 80 columns), and the IDs.

    >>> from backgammon import Position
    >>> lines = render(Scene(Position.initial(), corner="top-left"), width=60).plain.splitlines()
    >>> lines[1][:20], lines[13][:20]
    ('+---+-1--2--3--4--5-', '+---+24-23-22-21-20-')
    """
    viewer = scene.viewer
    other = 1 - viewer
    board = scene.board if viewer == 0 else scene.board.swap()  # from the viewer's side
    numbering_is_viewer = (viewer if scene.numbering is None else scene.numbering) == viewer
    top, bottom = _grid(scene.corner)
    home_right = scene.corner.endswith("right")
    home_bottom = scene.corner.startswith("bottom")
    mine, theirs = board.player, board.opponent
    marks = (MARKS[viewer], MARKS[other])
    styles = (STYLES[viewer], STYLES[other])

    def point(p: int, row: int) -> Text:
        if mine[p - 1]:
            return _cell(mine[p - 1], row, marks[0], styles[0])
        if theirs[24 - p]:
            return _cell(theirs[24 - p], row, marks[1], styles[1])
        return Text("   ")

    # Who sits at the top: the viewer's checkers are at the bottom when home is at the bottom.
    top_player, bottom_player = (other, viewer) if home_bottom else (viewer, other)
    bar = {viewer: board.bar()[0], other: board.bar()[1]}
    off = {viewer: board.borne_off()[0], other: board.borne_off()[1]}

    def bar_cell(player: int, row: int) -> Text:
        # A side's checkers on the bar are drawn in the half where they enter (the other
        # side's home board), stacked from the middle outwards; row 0 is next to the middle.
        count = bar[player]
        return _cell(count, row, MARKS[player], STYLES[player]) if count else Text("   ")

    def tray_cell(player: int, row: int) -> Text:
        if row == 0 and off[player]:
            return Text(f"{off[player]:^3}", style=STYLES[player])
        return Text("   ")

    frame = _FRAME

    def wrap(left: Text, mid: Text, right: Text, tray: Text, edge: str, bar_edge: str) -> Text:
        # the frame's pieces, left to right: the tray is beside the home board's side
        board = [(edge, left), (bar_edge, mid), (bar_edge, right)]
        tray_piece = [(edge, tray)]
        pieces = board + tray_piece if home_right else tray_piece + board
        line = Text()
        for separator, text in pieces:
            line.append(separator, style=frame)
            line.append_text(text)
        line.append(edge, style=frame)
        return line

    dashes = Text("---", style=frame)

    def labels(points: list[int]) -> Text:
        return wrap(_labels(points[:6], numbering_is_viewer), dashes,
                    _labels(points[6:], numbering_is_viewer), dashes, "+", "+")

    def half(points: Sequence[int], rows: Iterable[int], bar_player: int, tray_player: int) -> list[Text]:
        return [
            wrap(Text().join(point(p, row) for p in points[:6]), bar_cell(bar_player, _HEIGHT - 1 - row),
                 Text().join(point(p, row) for p in points[6:]), tray_cell(tray_player, row), "|", "|")
            for row in rows
        ]

    cube = f"cube {scene.cube_value}"
    if scene.cube_offered:
        cube = f"cube {scene.cube_value} (offered)"
    elif scene.cube_owner is not None:
        cube += f": {MARKS[scene.cube_owner]} owns"
    dice = ""
    if scene.dice is not None:
        dice = f"dice {scene.dice[0]}-{scene.dice[1]}"
    cube_text = Text(f"{cube:^18}", style="bold" if scene.cube_owner is None else STYLES[scene.cube_owner])
    dice_style = STYLES[scene.on_roll] if scene.on_roll is not None else ""
    dice_text = Text(f"{dice:^18}", style=dice_style)
    halves = (cube_text, dice_text) if home_right else (dice_text, cube_text)
    centre = wrap(halves[0], Text("BAR", style=frame), halves[1], Text("off", style=_LABEL), "|", "|")
    board_lines = [
        labels(top),
        *half(top, range(_HEIGHT), bottom_player, top_player),  # row 0 at the top edge
        centre,
        *half(bottom, range(_HEIGHT - 1, -1, -1), top_player, bottom_player),  # row 0 at the bottom edge
        labels(bottom),
    ]

    panel = _panel(scene, board, top_player, bottom_player, bar, off)
    out = Text()
    out.append_text(_headline(scene))
    out.append("\n")
    beside = width is None or width >= 80
    for i, line in enumerate(board_lines):
        out.append_text(line)
        if beside and panel[i].plain:
            out.append("  ")
            out.append_text(panel[i])
        out.append("\n")
    if not beside:
        for piece in panel:
            if piece.plain:
                out.append_text(piece)
                out.append("\n")
    if scene.ids:
        out.append(scene.ids, style=_LABEL)
        out.append("\n")
    out.rstrip()
    return out


def _panel(
    scene: Scene,
    board: Position,
    top_player: int,
    bottom_player: int,
    bar: dict[int, int],
    off: dict[int, int],
) -> list[Text]:
    """The 13 lines beside the board: each side's name and counts at its edge, the cube and
    whose turn it is in the middle."""
    viewer_pips, other_pips = board.pip_count()
    pips = {scene.viewer: viewer_pips, 1 - scene.viewer: other_pips}
    lines = [Text() for _ in range(13)]

    def name(player: int) -> Text:
        text = Text(MARKS[player], style=STYLES[player])
        label = scene.names[player]
        if label != MARKS[player]:
            if scene.on_roll == player and label.endswith(")"):  # "Ann (captain, on roll)"
                return text.append(f"  {label[:-1]}, on roll)", style=STYLES[player])
            text.append(f"  {label}", style=STYLES[player])
        if scene.on_roll == player:
            text.append(" (on roll)")
        return text

    def counts(player: int) -> Text:
        text = Text(f"   pips {pips[player]}, off {off[player]}")
        if bar[player]:
            text.append(f", {bar[player]} on the bar", style="bold red")
        return text

    lines[0] = name(top_player)
    lines[1] = counts(top_player)
    lines[11] = counts(bottom_player)
    lines[12] = name(bottom_player)
    if scene.cube_owner is None:
        cube = Text(f"Cube {scene.cube_value}, in the middle")
    else:
        cube = Text(f"Cube {scene.cube_value}, owned by ")
        owner = scene.names[scene.cube_owner]
        cube.append("you" if owner == "You" else owner, style=STYLES[scene.cube_owner])
    if scene.crawford:
        cube = Text("Crawford game: no doubling (R33)", style="bold")
    if scene.cube_text:
        cube = Text(scene.cube_text)
    lines[6] = cube
    if scene.resign_offered is not None:
        who, level = scene.resign_offered
        turn = Text(f"{MARKS[who]} ", style=STYLES[who])
        turn.append(f"offers to resign a {LEVEL_NAMES[level]}")
        lines[7] = turn
    elif scene.on_roll is not None:
        turn = Text(f"{MARKS[scene.on_roll]} ", style=STYLES[scene.on_roll])
        if scene.cube_offered:
            turn.append(f"doubles to {2 * scene.cube_value}")
        elif scene.dice is not None:
            turn.append(f"to play {scene.dice[0]}-{scene.dice[1]}")
        else:
            turn.append("to roll")
        lines[7] = turn
    if scene.note:
        lines[8] = Text(scene.note, style="italic")
    return lines
