"""The terminal's words for the analysis of :mod:`backgammon.bots.analysis`: a play
ranking, cube advice, the answer to a double or to a resignation, each as the lines
``hint`` and ``list`` print (plain strings: no markup, no printing here).

Money equities are written with a sign (``+0.412``), chances and match winning chances as
percentages (``55.0%``). The adviser is the expert network, or pubeval when the engine
cannot load.

>>> from backgammon import Position
>>> from backgammon.bots.analysis import rank_plays
>>> legal = Position.initial().legal_moves((6, 5))
>>> print("\\n".join(ranking_lines(rank_plays(legal, pubeval=True), 2)))
pubeval's ranking of the 7 legal plays (higher scores are better):
  rank  play                         score   vs best  list
     1  24/13                        8.017            #1
     2  24/18 13/8                   6.649    -1.367  #2
>>> the_plays(1), the_plays(2)
('the only legal play', 'the 2 legal plays')
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..bots.analysis import (
    EQUITY,
    MWC,
    PUBEVAL as PUBEVAL_UNIT,
    CubeAdvice,
    PlayRanking,
    RankedPlay,
    ResignationAdvice,
    TakeAdvice,
    cube_advice,
    rank_plays,
    resignation_advice,
    take_advice,
)

if TYPE_CHECKING:
    from ..engine.probabilities import Probabilities
    from ..matchid import MatchState
    from ..position import LegalMoves, Position
    from ..rules import Rules

__all__ = [
    "EXPERT",
    "PUBEVAL",
    "chances_line",
    "cube_hint_lines",
    "cube_lines",
    "hint_lines",
    "list_items",
    "list_title",
    "percent",
    "ranking_lines",
    "resignation_hint_lines",
    "resignation_lines",
    "signed",
    "take_lines",
    "the_plays",
]

#: How the advisers are named.
EXPERT = "the expert network"
PUBEVAL = "pubeval"


def the_plays(n: int) -> str:
    """``the only legal play``, ``the 2 legal plays``."""
    return "the only legal play" if n == 1 else f"the {n} legal plays"


def percent(value: float, digits: int = 1) -> str:
    """A chance as a percentage: ``55.0%``.

    >>> percent(0.55), percent(0.123456, 2)
    ('55.0%', '12.35%')
    """
    return f"{value:.{digits}%}"


def signed(value: float) -> str:
    """An equity with its sign: ``+0.412``.

    >>> signed(0.4123), signed(-1.0), signed(-0.0)
    ('+0.412', '-1.000', '+0.000')
    """
    return f"{value + 0.0:+.3f}" if round(value, 3) != 0 else "+0.000"


def _value(value: float | None, unit: str) -> str:
    """A value in its unit: match winning chances as a percentage, equities signed,
    pubeval's scores as they are (nothing: ``-``)."""
    if value is None:
        return "-"
    if unit == MWC:
        return percent(value, 2)
    if unit == EQUITY:
        return signed(value)
    return f"{value:.3f}"


def _difference(value: float, unit: str) -> str:
    if unit == MWC:
        return f"{value * 100:+.2f}%"
    return f"{value:+.3f}"


def _unit_words(unit: str, *, cubeful: bool = False) -> str:
    if unit == MWC:
        return "match winning chances"
    if unit == EQUITY:
        return "cubeful equity, in points" if cubeful else "cubeless equity"
    return "higher scores are better"


def chances_line(p: Probabilities) -> str:
    """The five chances in words.

    >>> from backgammon.engine.probabilities import Probabilities
    >>> chances_line(Probabilities(0.55, 0.1, 0.01, 0.08, 0.005))
    'win 55.0% (gammon 10.0%, backgammon 1.0%), lose gammon 8.0% (backgammon 0.5%)'
    """
    return (f"win {percent(p.win)} (gammon {percent(p.win_gammon)}, backgammon "
            f"{percent(p.win_backgammon)}), lose gammon {percent(p.lose_gammon)} "
            f"(backgammon {percent(p.lose_backgammon)})")


def _adviser(ranking_adviser: str) -> str:
    return EXPERT if ranking_adviser == "expert" else PUBEVAL


# -- plays ---------------------------------------------------------------------------------


def ranking_lines(ranking: PlayRanking, count: int = 5) -> list[str]:
    """``hint``: the ``count`` best plays of ``ranking`` as a table (rank, play, value,
    difference from the best, list number), then the best play's chances."""
    n = len(ranking)
    if not n:
        return ["No legal play: press Enter to pass the turn."]
    who = _adviser(ranking.adviser)
    unit = ranking.unit
    if unit == "score":
        how = _unit_words(unit)
    else:
        how = _unit_words(unit)
        if ranking.plies and n > 1:
            how += (f"; the best at 0 ply, looked at {ranking.plies} "
                    f"pl{'y' if ranking.plies == 1 else 'ies'} deep")
        elif ranking.plies:
            how += f"; looked at {ranking.plies} pl{'y' if ranking.plies == 1 else 'ies'} deep"
    lines = [f"{who}'s ranking of {the_plays(n)} ({how}):"]
    shown: tuple[RankedPlay, ...] = ranking.top(max(count, 1))
    column = {EQUITY: "equity", MWC: "MWC"}.get(unit, "score")
    width = max(24, *(len(p.move) for p in shown))
    lines.append(f"  rank  {'play':<{width}}  {column:>8}  {'vs best':>8}  list")
    for p in shown:
        diff = "" if p.rank == 1 else _difference(p.difference, unit)
        lines.append(f"  {p.rank:>4}  {p.move:<{width}}  {_value(p.value, unit):>8}  {diff:>8}  #{p.index + 1}")
    best = ranking.best
    if best is not None and best.probabilities is not None:
        lines.append(f"  best play: {chances_line(best.probabilities)}")
    return lines


def list_title(n: int, *, sorted_: bool = True) -> str:
    """The line above ``list``'s plays.

    >>> list_title(1), list_title(16)
    ('The only legal play (type 1 to choose it):', '16 legal plays, best first (type a number to choose one):')
    """
    if n == 1:
        return "The only legal play (type 1 to choose it):"
    order = ", best first" if sorted_ else ""
    return f"{n} legal plays{order} (type a number to choose one):"


def list_items(ranking: PlayRanking) -> list[str]:
    """``list``: each play with its list number (its place in the legal order, the number
    that :meth:`~backgammon.terminal.prompts.Prompter.read_play` accepts), best first."""
    return [f"{p.index + 1:>3}. {p.move}" for p in ranking.plays]


# -- the cube ------------------------------------------------------------------------------


def _chances(probabilities: Probabilities | None, before: str = "") -> list[str]:
    """The chances line, when there are chances (not from pubeval)."""
    return [] if probabilities is None else [f"  {before}{chances_line(probabilities)}"]


def cube_lines(advice: CubeAdvice, who: str = EXPERT) -> list[str]:
    """Cube advice before the roll: the proper action, the three values, the chances
    (pubeval's advice: the action alone)."""
    unit = advice.unit
    if unit == PUBEVAL_UNIT:
        if not advice.available:
            return ["No cube decision now: roll the dice (press Enter)."]
        return [f"{PUBEVAL}'s advice: {'double' if advice.double else 'no double: roll'}."]
    if not advice.available:
        return [f"{who}'s cube advice: no cube action now (you cannot double): roll the dice.",
                *_chances(advice.probabilities, "your chances: ")]
    action = {
        "no double": "no double: roll",
        "double, take": "double (the opponent should take)",
        "double, pass": "double (the opponent should pass)",
        "too good": "too good to double: roll and play on for the gammon",
        "no double, beaver": "no double: roll (a double should be beavered, R30)",
    }.get(advice.action, advice.action)
    rows = [("no double", advice.no_double), ("double, take", advice.double_take),
            ("double, pass", advice.double_pass)]
    lines = [f"{who}'s cube advice: {action}.", f"  values for you ({_unit_words(unit, cubeful=True)}):"]
    for name, value in rows:
        lines.append(f"    {name:<13} {_value(value, unit):>8}")
    return lines + _chances(advice.probabilities, "your chances: ")


def take_lines(advice: TakeAdvice, who: str = EXPERT) -> list[str]:
    """The answer to a double: take, pass or beaver, with the value of each for the
    player who is doubled (pubeval's advice: the action alone)."""
    unit = advice.unit
    if unit == PUBEVAL_UNIT:
        return [f"{PUBEVAL}'s advice: {advice.action}."]
    words = {"take": "take", "pass": "pass",
             "beaver": "beaver (R30): taking is clearly better than even for you, keep the cube at twice the value"}
    lines = [f"{who}'s advice: {words[advice.action]}.",
             f"  values for you ({_unit_words(unit, cubeful=True)}):",
             f"    take          {_value(advice.take, unit):>8}",
             f"    pass          {_value(advice.pass_, unit):>8}"]
    return lines + _chances(advice.probabilities, "the doubler's chances: ")


def resignation_lines(advice: ResignationAdvice, who: str = EXPERT) -> list[str]:
    """The answer to a resignation: accept or decline, the value offered against the
    value of playing on (pubeval's advice: the answer alone)."""
    unit = advice.unit
    answer = "accept" if advice.accept else "decline"
    if unit == PUBEVAL_UNIT:
        return [f"{PUBEVAL}'s advice: {answer}."]
    lines = [f"{who}'s advice: {answer}."]
    points = f"{advice.points} point{'s' if advice.points != 1 else ''}"
    offered, play_on = advice.offered, advice.play_on
    if play_on is None or offered is None:
        lines.append(f"  The offer ({points}) is all you could still win.")
        return lines
    if unit == MWC:
        lines.append(f"  accepting ({points}): {percent(offered)} match winning chances; "
                     f"playing on: {percent(play_on)}")
    else:
        lines.append(f"  accepting: {signed(offered)} ({points}); playing on: "
                     f"{signed(play_on)} (cubeful equity)")
    return lines + _chances(advice.probabilities, "your chances: ")


# -- for the sessions ----------------------------------------------------------------------


def cube_hint_lines(position: Position, state: MatchState, rules: Rules | None = None, *,
                    answering: bool = False) -> list[str]:
    """``hint`` at a cube question, computed and worded: with ``answering`` for the player
    who is doubled (take, pass or beaver), else for the player on roll (double or not).
    ``position`` is seen from the player who asks; ``state`` is the game's Match ID state
    (``Game.match_state()``/``Match.match_state()``). The advice is pubeval's rule of thumb
    (a word, no numbers) when the engine cannot load."""
    if answering:
        return take_lines(take_advice(position, state, rules))
    return cube_lines(cube_advice(position, state, rules))


def resignation_hint_lines(position: Position, state: MatchState, level: int) -> list[str]:
    """``hint`` at a resignation of ``level`` (1-3) offered to the player ``position`` is
    seen from (found in ``state`` as the bots find it); pubeval's rule (accept only what
    gives up nothing) when the engine cannot load."""
    return resignation_lines(resignation_advice(position, state, level))


def hint_lines(legal: LegalMoves, state: MatchState | None = None, count: int = 5) -> list[str]:
    """``hint [count]`` at a roll: :func:`ranking_lines` of :func:`rank_plays` (1 ply)."""
    return ranking_lines(rank_plays(legal, state, count=count), count)
