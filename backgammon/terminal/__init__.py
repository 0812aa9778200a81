"""The terminal game: what ``backgammon play`` runs.

* :mod:`backgammon.terminal.options` — :class:`~backgammon.terminal.options.PlayOptions` and
  the ``play`` sub-command's arguments (no :mod:`rich` import there, so the rest of the
  command line does not need it);
* :mod:`backgammon.terminal.dice` — the session's dice: a script, then seeded or secure dice,
  with the count drawn so that a saved game resumes with the same dice;
* :mod:`backgammon.terminal.view` — drawing the board with :mod:`rich` (colour when the
  terminal has it, plain ASCII otherwise);
* :mod:`backgammon.terminal.savefile` — saving and resuming (the match's JSON log plus the
  options);
* :mod:`backgammon.terminal.prompts` — reading what a person types (a line, a play,
  ``list``, ``hint``), shared by both sessions;
* :mod:`backgammon.terminal.session` — the interactive loop;
* :mod:`backgammon.terminal.chouette` — ``backgammon chouette``: its options, saving and loop.

Only this subpackage imports :mod:`rich`; the core library does not.
"""

from __future__ import annotations

__all__: list[str] = []
