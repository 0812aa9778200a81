"""The ``backgammon`` command in a pseudo-terminal, and a person typing at it (pexpect).

Shared by ``test_terminal_pty.py`` (``backgammon play``) and ``test_terminal_chouette.py``
(``backgammon chouette``): the real program runs in a temporary folder with ``NO_COLOR=1``
and ``TERM=dumb`` (plain text), ``--delay 0``, 120 columns, and without ``XDG_STATE_HOME`` and ``HOME`` (so the default save files go to the temporary folder)
unless a test sets it. What it prints is kept with ``\\n`` line ends.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import ClassVar

import pytest

pexpect = pytest.importorskip("pexpect")

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 20


class Terminal:
    """``backgammon COMMAND --delay 0 ARGS`` in a pty; a subclass names the ``COMMAND``."""

    COMMAND: ClassVar[str]

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str] | None = None) -> None:
        environment = {k: v for k, v in os.environ.items() if k not in ("XDG_STATE_HOME", "HOME", "COLUMNS", "LINES")}
        environment.update(
            {"NO_COLOR": "1", "TERM": "dumb", "PYTHONPATH": str(ROOT), "PYTHONIOENCODING": "utf-8"}
        )
        environment.update(env or {})
        self.child = pexpect.spawn(
            sys.executable,
            ["-m", "backgammon.cli", self.COMMAND, "--delay", "0", *args],
            cwd=str(cwd),
            env=environment,
            encoding="utf-8",
            timeout=TIMEOUT,
            dimensions=(60, 120),
        )
        self.log: list[str] = []

    def wait(self, text: str) -> str:
        """Wait for ``text``; return what came before it (since the last wait)."""
        try:
            self.child.expect_exact(text)
        except (pexpect.TIMEOUT, pexpect.EOF):
            raise AssertionError(f"did not see {text!r}; last output:\n{self.child.before}") from None
        before = str(self.child.before).replace("\r\n", "\n")
        self.log.append(before + text)
        return before

    def answer(self, prompt: str, line: str) -> str:
        """Wait for ``prompt``, then type ``line`` and Enter; return the output before it."""
        before = self.wait(prompt)
        self.child.sendline(line)
        return before

    def finish(self) -> int:
        """Wait for the program to end; return its exit status."""
        self.child.expect(pexpect.EOF)
        self.log.append(str(self.child.before).replace("\r\n", "\n"))
        self.child.close()
        status = self.child.exitstatus
        assert status is not None, f"killed by signal {self.child.signalstatus}"
        return int(status)

    @property
    def text(self) -> str:
        """Everything seen so far."""
        return "".join(self.log)


def assert_clean(text: str) -> None:
    """No traceback, and no escape sequence (NO_COLOR, TERM=dumb: plain text)."""
    assert "Traceback" not in text
    assert "\x1b" not in text, repr(text[text.index("\x1b") - 40 : text.index("\x1b") + 40])
