"""The layers of docs/ARCHITECTURE.md, checked on every import of every module, and the rule
that only the bots and the table ask a bot for a decision."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "backgammon"

#: layer of each top-level part of the package
_LAYER = {"core": 0, "progress": 0, "engine": 1, "bots": 1, "analysis": 2, "table": 2, "terminal": 3, "server": 3,
          "cli": 4, "commands": 4}

#: the front ends: each stands on the table layer alone, never on another front end
_FRONT_ENDS = {"terminal", "server"}


def _part(module: str) -> str:
    """The layer name of ``backgammon.X...``."""
    parts = module.split(".")
    if len(parts) == 1:
        return "core"
    head = parts[1]
    if head in ("engine", "bots", "analysis", "table", "terminal", "server", "cli", "commands", "progress"):
        return head
    return "core"


def _imports(path: Path) -> list[tuple[int, str]]:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    here = list(rel.parts)
    if here[-1] == "__init__":
        here = here[:-1]
    package = here if path.name == "__init__.py" else here[:-1]
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                name = ".".join(base + ([node.module] if node.module else []))
            else:
                name = node.module or ""
            if name.startswith("backgammon"):
                if not node.module and node.level:  # from . import x
                    out.extend((node.lineno, f"{name}.{a.name}") for a in node.names)
                else:
                    out.append((node.lineno, name))
        elif isinstance(node, ast.Import):
            out.extend((node.lineno, a.name) for a in node.names if a.name.startswith("backgammon"))
    return out


MODULES = sorted(p for p in PACKAGE.rglob("*.py"))


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(PACKAGE)))
def test_each_module_imports_only_its_layer_and_below(path: Path) -> None:
    rel = path.relative_to(PACKAGE.parent).with_suffix("")
    me = _part(".".join(rel.parts))
    bad = []
    for line, name in _imports(path):
        other = _part(name)
        if me == "progress" and other != "progress":
            bad.append(f"line {line}: {name}")
        elif me == "core" and other not in ("core",):
            bad.append(f"line {line}: {name} ({other})")
        elif _LAYER[other] > _LAYER[me]:
            bad.append(f"line {line}: {name} ({other} is above {me})")
        elif me in _FRONT_ENDS and other in _FRONT_ENDS and other != me:
            bad.append(f"line {line}: {name} (the {me} front end may not use the {other} front end)")
    assert not bad, f"{path.relative_to(PACKAGE)} imports from a higher layer: {bad}"


_DECISIONS = re.compile(
    r"\.(choose_index|choose_move|should_double|respond_to_double|accept_resignation|offer_resignation)\("
)


#: benchmarks that measure a bot's single decision on given positions, with nothing around
#: it, and play no game: evalspeed.py times it, judge.py scores each play by gnubg 2 ply,
#: cube.py sets its cube decisions beside gnubg's (and walks self-play to find positions).
#: strength.py, cubeful.py and matchplay.py play games, through the table.
_TIMES_THE_DECISION = {Path("benchmarks/evalspeed.py"), Path("benchmarks/judge.py"),
                       Path("benchmarks/cube.py")}
#: benchmarks that build a bot out of bots: phases.py's hybrid is a Bot seated at the table
#: (its games go through strength.py's table) that passes each decision to one of two bots.
_COMPOSES_BOTS = {Path("benchmarks/phases.py")}


def test_only_bots_and_table_ask_a_bot_for_a_decision() -> None:
    offenders = []
    for path in MODULES + sorted((PACKAGE.parent / "benchmarks").glob("*.py")):
        rel = path.relative_to(PACKAGE.parent)
        if (rel.parts[:2] in (("backgammon", "bots"), ("backgammon", "table")) or rel in _TIMES_THE_DECISION
                or rel in _COMPOSES_BOTS):
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            code = line.split("#")[0]
            if _DECISIONS.search(code) and not code.lstrip().startswith((">>>", "...")):
                offenders.append(f"{rel}:{number}: {line.strip()}")
    assert not offenders, "\n".join(offenders)
