"""A progress bar for long work (training, data generation, benchmarks), on stderr.

It draws with ``rich`` when that is installed and stderr is a terminal, as a plain
carriage-return line otherwise on a terminal, and not at all when disabled or when stderr
is not a terminal (logs stay clean). Each update may carry a short status text (a rate, a
running strength).

>>> with Progress(3, "demo", unit="games", enabled=False) as bar:
...     for i in range(3):
...         bar.update(i + 1, status="+0.10 ppg")
>>> bar.done
3
"""

from __future__ import annotations

import sys
import time
from types import TracebackType
from typing import Any, Self

__all__ = ["Progress"]


class Progress:
    """A bar of ``total`` ``unit`` labelled ``label``; ``enabled=None`` means "when stderr
    is a terminal"."""

    def __init__(self, total: int, label: str, *, unit: str = "", enabled: bool | None = None,
                 start: int = 0) -> None:
        self.total = total
        self.label = label
        self.unit = unit
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.done = start
        self._first = start
        self._last = 0.0
        self._start = time.perf_counter()
        self._rich: Any = None
        self._task: Any = None
        if not self.enabled:
            return
        try:
            from rich.console import Console
            from rich.progress import (
                BarColumn,
                MofNCompleteColumn,
                TextColumn,
                TimeRemainingColumn,
            )
            from rich.progress import Progress as RichProgress
        except ImportError:
            return
        self._rich = RichProgress(
            TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
            TextColumn(unit), TextColumn("{task.fields[status]}"), TimeRemainingColumn(),
            console=Console(stderr=True), transient=False,
        )
        self._rich.start()
        self._task = self._rich.add_task(label, total=total, completed=start, status="")

    @property
    def rate(self) -> float:
        """Units per second since the bar started."""
        el = time.perf_counter() - self._start
        return (self.done - self._first) / el if el > 0 else 0.0

    def update(self, done: int, status: str = "", *, total: int | None = None) -> None:
        """``done`` units of ``total`` are done; ``status`` is shown beside the bar; a new
        ``total`` when the work turns out larger (or smaller) than first said."""
        self.done = done
        if total is not None:
            self.total = total
        if not self.enabled:
            return
        if self._rich is not None:
            self._rich.update(self._task, completed=done, status=status, total=self.total)
            return
        now = time.perf_counter()
        if now - self._last < 0.25 and done < self.total:
            return
        self._last = now
        width = 30
        filled = min(width, int(width * done / self.total)) if self.total else width
        sys.stderr.write(
            f"\r{self.label} [{'#' * filled}{'.' * (width - filled)}] {done}/{self.total} "
            f"{self.unit}  {status}  {self.rate:.0f} {self.unit}/s "
        )
        sys.stderr.flush()

    def close(self) -> None:
        """Finish the bar (a new line after it)."""
        if not self.enabled:
            return
        if self._rich is not None:
            self._rich.stop()
            self._rich = None
        else:
            sys.stderr.write("\n")
            sys.stderr.flush()
        self.enabled = False

    def __enter__(self) -> Self:
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        self.close()
