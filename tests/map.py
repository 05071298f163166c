"""The test map (tests/README.md): for each module of `ideaco/office`, the test files that import it.

    python -m tests.map          # prints the table tests/README.md holds (tests/test_map.py checks it)
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OFFICE = ROOT / "ideaco" / "office"
TESTS = ROOT / "tests"


def _module(path: Path) -> str:
    return ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")


def _imports(path: Path) -> set[str]:
    """The ideaco modules a test file imports (`from a.b import c` counts a.b and a.b.c)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ideaco"):
            found.add(node.module)
            found.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names if alias.name.startswith("ideaco"))
    return found


def table() -> str:
    modules = sorted(_module(p) for p in OFFICE.rglob("*.py") if p.name != "__init__.py")
    tests = {p: _imports(p) for p in sorted(TESTS.rglob("test_*.py"))}
    rows = ["| module | test files that import it |", "|---|---|"]
    for module in modules:
        users = [str(p.relative_to(TESTS)) for p, found in tests.items() if module in found]
        shown = ", ".join(f"`{u}`" for u in users) or "(none directly: reached through the runs)"
        rows.append(f"| `{module.removeprefix('ideaco.office.')}` | {shown} |")
    return "\n".join(rows) + "\n"


if __name__ == "__main__":
    print(table(), end="")
