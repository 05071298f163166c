"""One definition per concept (issue 27 item 4): a name names one class, and a word the logs and the
code share (a status, a kind, an id's prefix, a run file's name) is spelled in one module only."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "ideaco"
# The logged shape of a live class is named after it: the record schema describes, it does not define.
RECORD_SHAPES = {"store/step_records.py", "store/schema.py"}


def _trees() -> dict[str, ast.Module]:
    return {
        str(path.relative_to(PACKAGE)): ast.parse(path.read_text(encoding="utf-8"))
        for path in sorted(PACKAGE.rglob("*.py"))
    }


def _types(tree: ast.Module) -> list[str]:
    """The classes a module defines, and its module-level aliases of a type (`Call = asyncio.Future`)."""
    out = [n.name for n in ast.walk(tree) if isinstance(n, ast.ClassDef)]
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            name = node.targets[0].id
            if (
                name[:1].isupper()
                and not name.isupper()
                and isinstance(node.value, (ast.Attribute, ast.Subscript))
            ):
                out.append(name)
    return out


def test_a_name_names_one_class() -> None:
    where: dict[str, list[str]] = defaultdict(list)
    for module, tree in _trees().items():
        if module not in RECORD_SHAPES:
            for name in _types(tree):
                if not name.startswith("_"):
                    where[name].append(module)
    twice = {name: modules for name, modules in where.items() if len(modules) > 1}
    assert twice == {}, twice


def test_the_check_finds_a_second_class_and_a_type_alias() -> None:
    tree = ast.parse("class Refusal:\n    pass\nCall = asyncio.Future\nLIMIT = 3\nTeam = make()\n")
    assert _types(tree) == ["Refusal", "Call"]
