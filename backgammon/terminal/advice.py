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


def _value(value: float, unit: str) -> str:
    """A value in its unit: match winning chances as a percentage, equities signed,
    pubeval's scores as they are."""
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


def cube_lines(advice: CubeAdvice, who: str = EXPERT) -> list[str]:
    """Cube advice before the roll: the proper action, the three values, the chances."""
    unit = advice.unit
    if not advice.available:
        return [f"{who}'s cube advice: no cube action now (you cannot double): roll the dice.",
                f"  {chances_line(advice.probabilities)}"]
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
    lines.append(f"  {chances_line(advice.probabilities)}")
    return lines


def take_lines(advice: TakeAdvice, who: str = EXPERT) -> list[str]:
    """The answer to a double: take, pass or beaver, with the value of each for the
    player who is doubled."""
    unit = advice.unit
    words = {"take": "take", "pass": "pass",
             "beaver": "beaver (R30): taking is clearly better than even for you, keep the cube at twice the value"}
    lines = [f"{who}'s advice: {words[advice.action]}.",
             f"  values for you ({_unit_words(unit, cubeful=True)}):",
             f"    take          {_value(advice.take, unit):>8}",
             f"    pass          {_value(advice.pass_, unit):>8}"]
    lines.append(f"  the doubler's chances: {chances_line(advice.probabilities)}")
    return lines


def resignation_lines(advice: ResignationAdvice, who: str = EXPERT) -> list[str]:
    """The answer to a resignation: accept or decline, the value offered against the
    value of playing on."""
    unit = advice.unit
    lines = [f"{who}'s advice: {'accept' if advice.accept else 'decline'}."]
    points = f"{advice.points} point{'s' if advice.points != 1 else ''}"
    if advice.play_on is None:
        lines.append(f"  The offer ({points}) is all you could still win.")
        return lines
    if unit == MWC:
        lines.append(f"  accepting ({points}): {percent(advice.offered)} match winning chances; "
                     f"playing on: {percent(advice.play_on)}")
    else:
        lines.append(f"  accepting: {signed(advice.offered)} ({points}); playing on: "
                     f"{signed(advice.play_on)} (cubeful equity)")
    lines.append(f"  your chances: {chances_line(advice.probabilities)}")
    return lines


# -- for the sessions ----------------------------------------------------------------------


def cube_hint_lines(position: Position, state: MatchState, rules: Rules | None = None, *,
                    answering: bool = False) -> list[str]:
    """``hint`` at a cube question, computed and worded: with ``answering`` for the player
    who is doubled (take, pass or beaver), else for the player on roll (double or not).
    ``position`` is seen from the player who asks; ``state`` is the game's Match ID state
    (``Game.match_state()``/``Match.match_state()``). Falls back on pubeval's rules of
    thumb (a word, no numbers) when the engine cannot load."""
    if answering:
        take = take_advice(position, state, rules)
        if take is not None:
            return take_lines(take)
        from ..bots import CubeResponse, load

        answer = load("pubeval").respond_to_double(position, state)
        if answer is CubeResponse.BEAVER and not (rules is not None and rules.beavers_apply):
            answer = CubeResponse.TAKE
        return [f"{PUBEVAL}'s advice: {answer.value}."]
    cube = cube_advice(position, state, rules)
    if cube is not None:
        return cube_lines(cube)
    from ..bots import load
    from ..bots.base import may_double

    if not may_double(state, state.player_on_roll):
        return ["No cube decision now: roll the dice (press Enter)."]
    double = load("pubeval").should_double(position, state)
    return [f"{PUBEVAL}'s advice: {'double' if double else 'no double: roll'}."]


def resignation_hint_lines(position: Position, state: MatchState, level: int) -> list[str]:
    """``hint`` at a resignation of ``level`` (1-3) offered to the player ``position`` is
    seen from (found in ``state`` as the bots find it); pubeval's rule (accept only what
    gives up nothing) when the engine cannot load."""
    advice = resignation_advice(position, state, level)
    if advice is not None:
        return resignation_lines(advice)
    from ..bots import load

    accept = load("pubeval").accept_resignation(position, state, level)
    return [f"{PUBEVAL}'s advice: {'accept' if accept else 'decline'}."]


def hint_lines(legal: LegalMoves, state: MatchState | None = None, count: int = 5) -> list[str]:
    """``hint [count]`` at a roll: :func:`ranking_lines` of :func:`rank_plays` (1 ply)."""
    return ranking_lines(rank_plays(legal, state, count=count), count)
