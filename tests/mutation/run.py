"""One-line mutations of a module, one at a time, each against only its target's test files.

Not part of the normal pytest run (no test_ file here). Run from the repository root:

    nice -n 15 python tests/mutation/run.py summary     # or any target of TARGETS below, or all

Each mutant is made in a copy of the repository (the worktree is never touched): one token of
one line changed (a comparison flipped, a number off by one, an operator swapped, and/or,
True/False, min/max). A mutant the tests still pass is a survivor: printed, to kill with a test
or to explain in tests/mutation/README.md.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import tempfile
import tokenize
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGETS = {
    "summary": (["ideaco/office/resolve/summary.py"], ["tests/office/resolve/test_summary.py"]),
    "metrics": (
        [f"ideaco/metrics/{m}.py" for m in ("__init__", "text", "responses", "social")],
        ["tests/metrics"],
    ),
    "gates": (["ideaco/office/rules/gates.py"], ["tests/office/rules/test_gates.py"]),
    "drafts": (
        ["ideaco/office/rules/text/guarantees.py", "ideaco/office/rules/text/hygiene.py"],
        ["tests/office/rules/test_drafts.py", "tests/office/rules/test_drafts_capable.py"],
    ),
    "stamina": (["ideaco/mind/stamina.py"], ["tests/mind/test_stamina.py"]),
    "early": (
        ["ideaco/office/engine/early.py", "ideaco/office/engine/upcoming.py"],
        [
            "tests/office/engine/test_early.py",
            "tests/office/engine/test_upcoming.py",
            "tests/office/engine/test_whatif.py",
            "tests/office/engine/test_early_runs.py",
        ],
    ),
    "whatif": (
        ["ideaco/office/engine/whatif.py"],
        ["tests/office/engine/test_whatif.py", "tests/office/engine/test_early_runs.py"],
    ),
    "streams": (["ideaco/office/engine/streams.py"], ["tests/office/engine/test_streams.py"]),
    "past": (["ideaco/office/engine/past.py"], ["tests/office/engine/test_past.py", "tests/test_fork.py"]),
    "toolcaps": (["ideaco/office/rules/toolcaps.py"], ["tests/office/rules/test_toolcaps.py"]),
    "speech": (["ideaco/office/decide/speech.py"], ["tests/office/decide/test_speech.py"]),
    "command": (["ideaco/agents/command.py"], ["tests/agents/test_command.py"]),
    "routing": (["ideaco/llm/routing.py"], ["tests/llm/test_routing.py"]),
    "wording": (["ideaco/wording.py"], ["tests/test_wording.py"]),
    "lookalike": (["ideaco/lookalike.py"], ["tests/test_lookalike.py"]),
    "commands": (
        ["ideaco/office/decide/commands.py", "ideaco/office/decide/tools/requirements.py"],
        [
            "tests/office/decide/test_sign_off.py",
            "tests/office/decide/test_work_commands.py",
            "tests/office/runs/test_requirement_flow.py",
            "tests/test_api_sign_off.py",
            "tests/office/decide/tools/test_requirements.py",
        ],
    ),
    "workspace": (["ideaco/store/workspace.py"], ["tests/store/test_workspace.py"]),
    "documents": (
        [
            "ideaco/office/core/documents.py",
            "ideaco/office/rules/documents.py",
            "ideaco/office/decide/tools/documents.py",
        ],
        [
            "tests/office/core/test_documents.py",
            "tests/office/rules/test_documents.py",
            "tests/office/decide/tools/test_documents.py",
            "tests/office/decide/test_document_work.py",
            "tests/office/decide/test_sign_off.py",
            "tests/office/runs/test_requirement_flow.py",
        ],
    ),
    "apply": (
        ["ideaco/office/resolve/apply.py"],
        [
            "tests/office/resolve/test_apply.py",
            "tests/office/resolve/test_boss_holds.py",
            "tests/office/resolve/test_applied.py",
            "tests/office/resolve/test_change_log.py",
        ],
    ),
}
SWAPS = {
    ">=": ">",
    ">": ">=",
    "<=": "<",
    "<": "<=",
    "==": "!=",
    "!=": "==",
    "+": "-",
    "-": "+",
    "*": "/",
    "/": "*",
    "//": "/",
    "and": "or",
    "or": "and",
    "True": "False",
    "False": "True",
    "min": "max",
    "max": "min",
}


def mutants(source: str):
    """(line, description, mutated source) for every one-token change that still compiles."""
    lines = source.splitlines(keepends=True)
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.NUMBER:
            try:
                new = repr(int(tok.string) + 1)
            except ValueError:
                continue
        elif tok.string in SWAPS and tok.type in (tokenize.OP, tokenize.NAME):
            new = SWAPS[tok.string]
        else:
            continue
        (row, col), (_, end) = tok.start, tok.end
        line = lines[row - 1]
        changed = line[:col] + new + line[end:]
        out = "".join(lines[: row - 1]) + changed + "".join(lines[row:])
        try:
            compile(out, "<mutant>", "exec")
        except SyntaxError:
            continue
        yield row, f"{tok.string!r} -> {new!r}: {changed.strip()}", out


def run(name: str) -> list[str]:
    modules, tests = TARGETS[name]
    survivors = []
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "repo"
        shutil.copytree(ROOT, copy, ignore=shutil.ignore_patterns(".git", ".venv", "runs", "__pycache__"))
        for module in modules:
            original = (ROOT / module).read_text(encoding="utf-8")
            killed = total = 0
            for row, what, text in mutants(original):
                (copy / module).write_text(text, encoding="utf-8")
                proc = subprocess.run(
                    [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", *tests],
                    cwd=copy,
                    capture_output=True,
                    timeout=300,
                )
                total += 1
                if proc.returncode == 0:
                    survivors.append(f"{module}:{row}: {what}")
                    print("SURVIVED", survivors[-1], flush=True)
                else:
                    killed += 1
            (copy / module).write_text(original, encoding="utf-8")
            print(f"{module}: {killed}/{total} killed", flush=True)
    return survivors


if __name__ == "__main__":
    names = list(TARGETS) if sys.argv[1:] in ([], ["all"]) else sys.argv[1:]
    left = [s for n in names for s in run(n)]
    print(f"{len(left)} survivor(s)")
