"""``backgammon analyse``: being built (docs/ANALYSIS-DESIGN.md)."""

from __future__ import annotations

from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Not there yet."""
    raise SystemExit("backgammon analyse: not built yet")
