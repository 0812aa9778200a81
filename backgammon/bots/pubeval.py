"""The ``pubeval`` bot: Gerald Tesauro's public evaluation function.

Tesauro published ``pubeval.c`` (IBM Research, 1993, "provided as a public service to the
backgammon programming community", in the public domain) as a benchmark opponent: a
*linear* evaluation ``score = w · x`` of the position after a play, with 122 inputs ``x``
and two weight vectors, ``wr`` for races and ``wc`` for contact positions. The bot plays the
legal play whose resulting position scores highest; a play that bears off the last checker
scores 99999999. The weights and the input encoding here are those of ``pubeval.c`` as
distributed with GNU Backgammon (``pub_eval.c``, "by Gerry Tesauro, modified by Gary Wong
for GNU Backgammon, 1999"; e.g. github.com/mormegil-cz/gnubg, file ``pub_eval.c``), which
agrees digit for digit with copies of Tesauro's original (e.g. github.com/weekend37/Backgammon,
file ``pubeval.c``).

Inputs (from the mover's side, after its play; "location" L is the mover's point L):

* for each location, listed from 24 down to 1 (input block ``k`` is location ``24 − k``),
  five inputs: an opposing blot (1 if exactly one opposing checker), a mover's blot (1 if
  exactly one), a made point (1 if two or more), a spare (1 if exactly three), and
  ``(n − 3) / 2`` for ``n ≥ 4`` mover's checkers;
* input 120: opposing checkers on the bar / 2 (Tesauro's ``-pos[0]/2``; ``pos[0]`` holds them
  as a negative number);
* input 121: the mover's checkers borne off / 15.

Only opposing *blots* are inputs: opposing made points are invisible to pubeval. As in
Tesauro's instructions, the race flag is taken from the position *before* the play (race
weights when contact is already broken). gnubg's copy counts a mover's checker left on the
bar as borne off; that changes no choice (every play of such a roll leaves the same number
on the bar), and this module follows Tesauro (borne off = 15 − checkers left). Ties go to
the first play in the order of :meth:`~backgammon.Position.legal_moves`.

All plays of a roll are scored in one vectorised call: :func:`encode` builds the
``n × 122`` input matrix from :attr:`~backgammon.LegalMoves.boards`, :func:`scores` multiplies.

Cube policy (crude, evaluation-free; money thresholds; see :mod:`backgammon.bots.cube`):

* **Race** (contact broken): Keith's count, the roller's raised by a seventh (rounded down).
  Double when ``K(bot) + K(bot)//7 − K(opp) <= 4``, redouble when ``<= 3``; take when
  ``K(doubler) + K(doubler)//7 − K(bot) >= 2``, else pass; in money
  play beaver when the doubler's Keith count exceeds the bot's by ``max(8, K(bot)/10)`` or more.
* **Contact** (conservative): double only with a big pip lead (own pips ``<= 0.8 ×`` the
  opponent's) or a blitz (an opposing checker on the bar against five made home points, or
  two against four), never with a checker of its own on the bar; take unless blitzed (two or
  more on the bar against five made home points) or ``30 %`` behind in the pip count
  (doubler's pips ``<= 0.7 ×`` the bot's).
* **Match play**: it never doubles when winning the game at the current cube already wins
  the match (a dead cube), doubles at once as the trailer after the Crawford game, and
  always takes when passing would lose the match.
* **Resignations**: the default of :class:`~backgammon.bots.Bot` (accept when the offer gives
  up nothing the bot could still win).

>>> from backgammon import Position
>>> from backgammon.bots import load
>>> bot = load("pubeval")
>>> print(bot.choose_move(Position.initial(), (6, 5)))
24/13
>>> legal = Position.initial().legal_moves((4, 2))
>>> [round(float(s), 3) for s in scores(legal.boards, race=False)[:3]]
[7.084, 6.777, 7.349]
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from ..matchid import MatchState
from ..position import LegalMoves, Position
from .base import Bot, CubeResponse, Seed, bot_player, is_post_crawford, may_double
from .cube import KEITH_DOUBLE, KEITH_REDOUBLE, KEITH_TAKE, home_points_made, keith_count, keith_lead
from .registry import register

if TYPE_CHECKING:
    from numpy.typing import NDArray

__all__ = ["WEIGHTS_CONTACT", "WEIGHTS_RACE", "WIN_SCORE", "PubEvalBot", "encode", "score", "scores"]

# fmt: off
#: Tesauro's race weights ``wr[122]``.
WEIGHTS_RACE: NDArray[np.float64] = np.array([
    .00000, -.17160, .27010, .29906, -.08471, .00000, -1.40375,
    -1.05121, .07217, -.01351, .00000, -1.29506, -2.16183, .13246,
    -1.03508, .00000, -2.29847, -2.34631, .17253, .08302, .00000,
    -1.27266, -2.87401, -.07456, -.34240, .00000, -1.34640, -2.46556,
    -.13022, -.01591, .00000, .27448, .60015, .48302, .25236, .00000,
    .39521, .68178, .05281, .09266, .00000, .24855, -.06844, -.37646,
    .05685, .00000, .17405, .00430, .74427, .00576, .00000, .12392,
    .31202, -.91035, -.16270, .00000, .01418, -.10839, -.02781, -.88035,
    .00000, 1.07274, 2.00366, 1.16242, .22520, .00000, .85631, 1.06349,
    1.49549, .18966, .00000, .37183, -.50352, -.14818, .12039, .00000,
    .13681, .13978, 1.11245, -.12707, .00000, -.22082, .20178, -.06285,
    -.52728, .00000, -.13597, -.19412, -.09308, -1.26062, .00000, 3.05454,
    5.16874, 1.50680, 5.35000, .00000, 2.19605, 3.85390, .88296, 2.30052,
    .00000, .92321, 1.08744, -.11696, -.78560, .00000, -.09795, -.83050,
    -1.09167, -4.94251, .00000, -1.00316, -3.66465, -2.56906, -9.67677,
    .00000, -2.77982, -7.26713, -3.40177, -12.32252, .00000, 3.42040,
])

#: Tesauro's contact weights ``wc[122]``.
WEIGHTS_CONTACT: NDArray[np.float64] = np.array([
    .25696, -.66937, -1.66135, -2.02487, -2.53398, -.16092, -1.11725,
    -1.06654, -.92830, -1.99558, -1.10388, -.80802, .09856, -.62086,
    -1.27999, -.59220, -.73667, .89032, -.38933, -1.59847, -1.50197,
    -.60966, 1.56166, -.47389, -1.80390, -.83425, -.97741, -1.41371,
    .24500, .10970, -1.36476, -1.05572, 1.15420, .11069, -.38319, -.74816,
    -.59244, .81116, -.39511, .11424, -.73169, -.56074, 1.09792, .15977,
    .13786, -1.18435, -.43363, 1.06169, -.21329, .04798, -.94373, -.22982,
    1.22737, -.13099, -.06295, -.75882, -.13658, 1.78389, .30416, .36797,
    -.69851, .13003, 1.23070, .40868, -.21081, -.64073, .31061, 1.59554,
    .65718, .25429, -.80789, .08240, 1.78964, .54304, .41174, -1.06161,
    .07851, 2.01451, .49786, .91936, -.90750, .05941, 1.83120, .58722,
    1.28777, -.83711, -.33248, 2.64983, .52698, .82132, -.58897, -1.18223,
    3.35809, .62017, .57353, -.07276, -.36214, 4.37655, .45481, .21746,
    .10504, -.61977, 3.54001, .04612, -.18108, .63211, -.87046, 2.47673,
    -.48016, -1.27157, .86505, -1.11342, 1.24612, -.82385, -2.77082,
    1.23606, -1.59529, .10438, -1.30206, -4.11520, 5.62596, -2.75800,
])
# fmt: on
WEIGHTS_RACE.flags.writeable = False
WEIGHTS_CONTACT.flags.writeable = False

#: The score of a play that bears off the mover's last checker (Tesauro's ``99999999.``).
WIN_SCORE = 99999999.0

# Contact cube thresholds (see the module docstring).
_DOUBLE_PIP_RATIO = 0.8
_PASS_PIP_RATIO = 0.7
_BEAVER_MIN_PIPS = 8
_BEAVER_FRACTION = 0.1


def encode(boards: NDArray[np.uint8]) -> NDArray[np.float64]:
    """Tesauro's 122 inputs for each row of ``boards``, as an ``n × 122`` matrix.

    ``boards`` are positions *after* a play, as :attr:`~backgammon.LegalMoves.boards` gives
    them: each row a position key seen from the side to roll next, so its first 25 counts
    are the side that did not move and its last 25 the mover (the side being evaluated).

    >>> from backgammon import Position
    >>> x = encode(Position.initial().legal_moves((3, 1)).boards)
    >>> x.shape, float(x[0, 120]), float(x[0, 121])
    ((16, 122), 0.0, 0.0)
    """
    b = np.asarray(boards, dtype=np.int16)
    if b.ndim != 2 or b.shape[1] != 50:
        raise ValueError(f"boards of shape {b.shape}: expected (n, 50) position keys")
    n = b.shape[0]
    mover = b[:, 25:]
    waiting = b[:, :25]
    # Input block k is the mover's point 24 - k: the mover's index 23 - k, and the other
    # side's own index k (its point k + 1 is the mover's point 24 - k).
    m = mover[:, 23::-1]
    o = waiting[:, :24]
    x = np.zeros((n, 122), dtype=np.float64)
    blocks = x[:, :120].reshape(n, 24, 5)
    blocks[:, :, 0] = o == 1
    blocks[:, :, 1] = m == 1
    blocks[:, :, 2] = m >= 2
    blocks[:, :, 3] = m == 3
    blocks[:, :, 4] = np.maximum(m - 3, 0) / 2.0
    x[:, 120] = waiting[:, 24] / 2.0
    x[:, 121] = (15 - mover.sum(axis=1)) / 15.0
    return x


def scores(boards: NDArray[np.uint8], race: bool) -> NDArray[np.float64]:
    """pubeval's score of each row of ``boards`` (as in :func:`encode`), with the race
    weights when ``race`` else the contact weights; :data:`WIN_SCORE` where the mover has
    borne off all 15.

    >>> from backgammon import Position
    >>> s = scores(Position.initial().legal_moves((6, 5)).boards, race=False)
    >>> int(s.argmax()), round(float(s.max()), 3)
    (0, 8.017)
    """
    b = np.asarray(boards)
    out = encode(b) @ (WEIGHTS_RACE if race else WEIGHTS_CONTACT)
    finished = b[:, 25:].astype(np.int16).sum(axis=1) == 0
    out[finished] = WIN_SCORE
    return out


def score(after: Position, race: bool) -> float:
    """pubeval's score of one position after a play, seen (as :meth:`Position.play` returns
    it) from the side to roll next: the score is the mover's, i.e. ``after.opponent``'s.

    >>> from backgammon import Position
    >>> start = Position.initial()
    >>> round(score(start.play(start.parse_move("8/5 6/5", (3, 1))), race=False), 3)
    10.343
    """
    key = np.frombuffer(bytes((*after.player, *after.opponent)), dtype=np.uint8)
    return float(scores(key.reshape(1, 50), race)[0])


@register("pubeval")
class PubEvalBot(Bot):
    """Tesauro's pubeval: the play with the best linear score; a crude cube (module docs).

    The bot is deterministic (``seed`` is accepted for a uniform interface and unused).

    >>> from backgammon import Position
    >>> legal = Position.initial().legal_moves((3, 1))
    >>> print(legal[PubEvalBot().choose_index(legal)])
    8/5 6/5
    """

    name = "pubeval"

    def __init__(self, *, seed: Seed = None) -> None:
        super().__init__(seed=seed)

    def scores(self, legal: LegalMoves) -> NDArray[np.float64]:
        """The score of every play in ``legal`` (race weights when ``legal.origin`` is a race).

        >>> from backgammon import Position
        >>> PubEvalBot().scores(Position.initial().legal_moves((6, 6))).shape
        (11,)
        """
        return scores(legal.boards, legal.origin.is_race())

    def choose_index(self, legal: LegalMoves) -> int:
        """The first play with the highest score."""
        if len(legal) == 1:
            return 0
        return int(np.argmax(self.scores(legal)))

    # -- cube -----------------------------------------------------------------------------

    def should_double(self, position: Position, state: MatchState) -> bool:
        """Double by Keith's count in a race, only when far ahead in contact (module docs).

        >>> from backgammon import Position
        >>> race = Position([0, 0, 0, 2, 3, 3] + [0] * 19, [0, 0, 2, 3, 3, 2] + [0] * 19)
        >>> PubEvalBot().should_double(race, MatchState())
        True
        >>> PubEvalBot().should_double(Position.initial(), MatchState())
        False
        """
        me = state.player_on_roll
        if not may_double(state, me):
            return False
        if not state.is_money:
            my_away = state.match_length - state.score[me]
            opp_away = state.match_length - state.score[1 - me]
            if my_away <= state.cube_value:
                return False  # a dead cube: winning at this cube already wins the match
            if is_post_crawford(state) and opp_away == 1:
                return True  # the trailer's free double after the Crawford game
        if position.is_race():
            limit = KEITH_DOUBLE if state.cube_owner is None else KEITH_REDOUBLE
            return keith_lead(position, roller_is_player=True) <= limit
        my_bar, opp_bar = position.bar()
        if my_bar:
            return False
        my_pips, opp_pips = position.pip_count()
        made = home_points_made(position.player)
        if (opp_bar >= 1 and made >= 5) or (opp_bar >= 2 and made >= 4):
            return True
        return my_pips <= _DOUBLE_PIP_RATIO * opp_pips

    def respond_to_double(self, position: Position, state: MatchState) -> CubeResponse:
        """Take or pass by Keith's count in a race, take unless crushed in contact.

        >>> from backgammon import Position
        >>> race = Position([0, 0, 0, 2, 3, 3] + [0] * 19, [0, 0, 2, 3, 3, 2] + [0] * 19)
        >>> PubEvalBot().respond_to_double(race, MatchState())  # 41 v 45 pips, doubler 45
        <CubeResponse.TAKE: 'take'>
        >>> PubEvalBot().respond_to_double(race.swap(), MatchState())  # doubler 41
        <CubeResponse.PASS: 'pass'>
        >>> PubEvalBot().respond_to_double(Position.initial(), MatchState(match_length=3))
        <CubeResponse.TAKE: 'take'>
        """
        me = bot_player(state, answering=True)
        if not state.is_money and state.score[1 - me] + state.cube_value >= state.match_length:
            return CubeResponse.TAKE  # passing would lose the match
        if position.is_race():
            if keith_lead(position, roller_is_player=False) < KEITH_TAKE:
                return CubeResponse.PASS
            mine, theirs = keith_count(position.player), keith_count(position.opponent)
            if state.is_money and theirs - mine >= max(_BEAVER_MIN_PIPS, _BEAVER_FRACTION * mine):
                return CubeResponse.BEAVER
            return CubeResponse.TAKE
        my_pips, opp_pips = position.pip_count()
        if position.bar()[0] >= 2 and home_points_made(position.opponent) >= 5:
            return CubeResponse.PASS
        if opp_pips <= _PASS_PIP_RATIO * my_pips:
            return CubeResponse.PASS
        return CubeResponse.TAKE
