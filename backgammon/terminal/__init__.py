"""The terminal front ends: ``backgammon play`` (a match or money session, against a bot or
a second person) and ``backgammon chouette``. Both sit at a :class:`~backgammon.table.Table`
(:mod:`backgammon.table`: the flow of play, the bots' decisions, the refusals, the
narration); they read lines, send commands from the seat at the keyboard, and print the
board, the sentences and the refusals.

* :mod:`backgammon.terminal.frontend` — :class:`~backgammon.terminal.frontend.Frontend`, what
  both programs share: the constructor (a new or a saved table), the run and its endings
  (Ctrl-D, Ctrl-C, an error: saved first), ``save`` / ``quit`` / ``help`` / ``board``, the
  prompt of a play (R42: tentative until Enter, ``undo``), ``hint``, the ``d`` that asks
  before doubling, the bots' turns and the narration in the viewer's numbering;
* :mod:`backgammon.terminal.session` — ``backgammon play``: its prompts (roll or double, take
  or pass, resignations) and the end of games and matches;
* :mod:`backgammon.terminal.chouette` — ``backgammon chouette``: the box, the captain and the
  line, team doubles, the seats and ledger (``status``);
* :mod:`backgammon.terminal.options` — :class:`~backgammon.terminal.options.PlayOptions` and
  the ``play`` sub-command's arguments, with what both programs share (rules, display);
* :mod:`backgammon.terminal.chouette_options` —
  :class:`~backgammon.terminal.chouette_options.ChouetteOptions` and the ``chouette``
  sub-command's arguments (the seats: ``--human``, ``--bot``, ``--players``);
* :mod:`backgammon.terminal.savefile` — saving and resuming either program (the table's JSON
  plus a ``"terminal"`` section: options and dice; older files still load), the save folder;
* :mod:`backgammon.terminal.prompts` — reading what a person types (a line that Ctrl-C always
  stops, a play, ``list``, ``hint``, yes/no questions);
* :mod:`backgammon.terminal.advice` — the words for the analysis of
  :mod:`backgammon.bots.analysis` (``hint`` at a roll, at a cube question, at a resignation);
* :mod:`backgammon.terminal.view` — drawing the board with :mod:`rich` (colour when the
  terminal has it, plain ASCII otherwise; the home board in any corner);
* :mod:`backgammon.terminal.dice` — the session's dice: a script, then seeded or secure dice,
  with the count drawn so that a saved session resumes with the same dice;
* :mod:`backgammon.terminal.app` — the sub-commands' entry points (``play``, ``chouette``):
  building or resuming a session, line editing, a closed terminal or a ``kill`` taken as
  Ctrl-C.

The command line's parser imports only the option modules (no :mod:`rich` there); only this
subpackage imports :mod:`rich`, the core library does not.
"""

from __future__ import annotations

__all__: list[str] = []
