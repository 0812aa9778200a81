"""``backgammon convert``: being built (docs/ANALYSIS-DESIGN.md)."""

from __future__ import annotations

from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Not there yet."""
    raise SystemExit("backgammon convert: not built yet")
