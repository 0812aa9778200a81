"""Where the programs keep their files: one rule for the terminal's saves and the server's
database.

>>> import os
>>> env = {k: os.environ.pop(k, None) for k in ("XDG_STATE_HOME", "HOME")}
>>> os.environ["HOME"] = "/home/ann"; str(state_dir())
'/home/ann/.local/state/backgammon'
>>> os.environ["XDG_STATE_HOME"] = "/state"; str(state_dir())
'/state/backgammon'
>>> del os.environ["XDG_STATE_HOME"], os.environ["HOME"]; state_dir() is None
True
>>> for k, v in env.items():
...     if v is not None: os.environ[k] = v
"""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["STATE_DIR_TEXT", "state_dir"]

#: :func:`state_dir` in words, for ``--help`` texts.
STATE_DIR_TEXT = "$XDG_STATE_HOME/backgammon/, else ~/.local/state/backgammon/, else ./"


def state_dir() -> Path | None:
    """The folder of saved games and of the server's database: ``$XDG_STATE_HOME/backgammon``
    when ``XDG_STATE_HOME`` is set, else ``~/.local/state/backgammon`` when ``HOME`` is set,
    else ``None`` (the current folder)."""
    state = os.environ.get("XDG_STATE_HOME")
    if state:
        return Path(state) / "backgammon"
    home = os.environ.get("HOME")
    if home:
        return Path(home) / ".local" / "state" / "backgammon"
    return None
