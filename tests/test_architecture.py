"""The package's shape (docs/architecture.md): arrows point one way, modules stay small."""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "ideaco"


def _modules() -> dict[str, Path]:
    out = {}
    for path in PACKAGE.rglob("*.py"):
        name = ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        out[name.removesuffix(".__init__")] = path
    return out


def _imports() -> dict[str, set[str]]:
    """Every module's imports of other ideaco modules, those under `if TYPE_CHECKING:` included."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            targets: list[str] = []
            if isinstance(node, ast.ImportFrom) and node.module and node.module.startswith("ideaco"):
                targets = [f"{node.module}.{a.name}" for a in node.names] + [node.module]
            elif isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            if isinstance(
                node, ast.ImportFrom
            ):  # `from pkg import mod, ...`: each module named, else the package
                named = [t for t in targets[:-1] if t in modules]
                targets = named or targets[-1:]
            graph[name].update(t for t in targets if t in modules and t != name)
    return graph


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(node: str) -> list[str] | None:
        state[node] = 1
        path.append(node)
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                return path[path.index(nxt) :] + [nxt]
            if nxt not in state and (found := visit(nxt)):
                return found
        state[node] = 2
        path.pop()
        return None

    for node in sorted(graph):
        if node not in state and (found := visit(node)):
            return found
    return None


def test_no_import_cycle_anywhere_in_the_package() -> None:
    cycle = _cycle(_imports())
    assert cycle is None, " -> ".join(cycle or [])


def test_the_cycle_check_finds_a_cycle() -> None:
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set()}) is None


def test_mind_and_llm_never_import_office_or_cli_and_nothing_imports_cli() -> None:
    graph = _imports()
    for name, targets in graph.items():
        if name.startswith(("ideaco.mind", "ideaco.llm", "ideaco.store")):
            assert not any(t.startswith(("ideaco.office", "ideaco.cli")) for t in targets), name
        if not name.startswith("ideaco.cli") and name != "ideaco.__main__":
            assert not any(t.startswith("ideaco.cli") for t in targets), name


def test_the_readers_take_only_the_offices_data_and_pure_rules() -> None:
    """The metrics, reviews, analysis, plots and viewer read runs; of the office they import only
    `core` and `rules` (docs/architecture.md), never a stage that runs one."""
    graph = _imports()
    readers = ("ideaco.metrics", "ideaco.reviews", "ideaco.analysis", "ideaco.plots", "ideaco.viewer")
    found = sorted(
        (name, target)
        for name, targets in graph.items()
        if name.startswith(readers)
        for target in targets
        if target.startswith("ideaco.office") and _stage(target) not in ("core", "rules")
    )
    assert found == [], found


def test_the_vocabulary_imports_nothing_but_itself() -> None:
    graph = _imports()
    assert graph["ideaco.ids"] == set() and graph["ideaco.cycle"] == set()
    assert graph["ideaco.kinds"] == {"ideaco.cycle"}


def test_inside_the_office_nothing_imports_the_office_back() -> None:
    graph = _imports()
    importers = sorted(n for n, targets in graph.items() if "ideaco.office.engine.office" in targets)
    assert all(not n.startswith("ideaco.office.") or n == "ideaco.office.engine.build" for n in importers), (
        importers
    )


# A module that is one job may reach about 600 lines (issue 27, item 6); the cap flags one doing two
# jobs, and is never a reason to place code: a job that outgrows it becomes a package.
MAX_LINES = 600


def test_no_module_over_about_600_lines() -> None:
    long = {
        name: n for name, path in _modules().items() if (n := len(path.read_text().splitlines())) > MAX_LINES
    }
    assert not long, long


def test_only_the_engine_applies_steps() -> None:
    """office/resolve/apply.py is the body of Office.resolve: only the engine calls into it."""
    importers = sorted(n for n, targets in _imports().items() if "ideaco.office.resolve.apply" in targets)
    assert importers == [
        "ideaco.office.engine.office",
        "ideaco.office.engine.whatif",
    ]


def test_the_line_cap_holds_as_formatted() -> None:
    """No formatter escapes (fmt skip or off): packed lines would hold a module under the cap it is over."""
    root = PACKAGE.parent
    marker = "# fmt: " + "(skip|off)"  # spelled apart so this file does not match itself
    pattern = re.compile(marker)
    found = [
        f"{path.relative_to(root)}:{n}"
        for top in ("ideaco", "tests", "benchmarks")
        for path in (root / top).rglob("*.py")
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if pattern.search(line)
    ]
    assert not found, found


# The office's stages (ideaco/office/__init__.py): which stages each may import.
STAGES = {
    "core": {"core"},
    "rules": {"rules", "core"},
    "perceive": {"perceive", "rules", "core"},
    "decide": {"decide", "perceive", "rules", "core"},
    "resolve": {"resolve", "perceive", "rules", "core"},
    "engine": {"engine", "resolve", "decide", "perceive", "rules", "core"},
}


def _stage(module: str) -> str | None:
    parts = module.split(".")
    return parts[2] if len(parts) > 3 and parts[1] == "office" else None


def _against_the_direction(graph: dict[str, set[str]]) -> set[tuple[str, str]]:
    found = set()
    for name, targets in graph.items():
        stage = _stage(name)
        for target in targets:
            other = _stage(target)
            if stage and other and other not in STAGES[stage]:
                found.add((name.removeprefix("ideaco.office."), target.removeprefix("ideaco.office.")))
    return found


def test_every_office_module_is_in_a_stage() -> None:
    modules = _modules()
    flat = [
        n
        for n, path in modules.items()
        if n.startswith("ideaco.office.") and _stage(n) is None and path.name != "__init__.py"
    ]
    assert flat == [], flat
    assert {n.split(".")[2] for n in _modules() if _stage(n)} == set(STAGES)


def test_the_stages_import_down_only() -> None:
    """No import against the direction, not one: `core` reaches no other stage (issue 27)."""
    assert _against_the_direction(_imports()) == set(), sorted(_against_the_direction(_imports()))


def test_the_direction_check_finds_an_import_up() -> None:
    graph = {"ideaco.office.decide.speech": {"ideaco.office.engine.office", "ideaco.office.core.state"}}
    assert _against_the_direction(graph) == {("decide.speech", "engine.office")}
    assert _against_the_direction({"ideaco.office.engine.office": {"ideaco.office.decide.speech"}}) == set()
