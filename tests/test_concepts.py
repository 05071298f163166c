"""One definition per concept (issue 27 item 4): a name names one class, and a word the logs and the
code share (a status, a kind, an id's prefix, a run file's name) is spelled in one module only."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

PACKAGE = Path(__file__).resolve().parent.parent / "ideaco"


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
        for name in _types(tree):
            if not name.startswith("_"):
                where[name].append(module)
    twice = {name: modules for name, modules in where.items() if len(modules) > 1}
    assert twice == {}, twice


def test_the_check_finds_a_second_class_and_a_type_alias() -> None:
    tree = ast.parse("class Refusal:\n    pass\nCall = asyncio.Future\nLIMIT = 3\nTeam = make()\n")
    assert _types(tree) == ["Refusal", "Call"]


# Words the logs and the code share, each spelled (as a whole string) in its home module only.
WORDS = {
    "office/core/documents.py": ("requested", "rejected", "rebutted", "approved"),  # a review's status
    "office/core/company.py": ("reported", "reopened"),  # a requirement's sign-off
    "mind/tasks.py": ("pending", "resolved", "self", "task-"),  # a task's status, origin, id
    "mind/memory.py": ("mem-",),
    "kinds.py": (
        *("work", "casual", "dm", "chat", "claimable", "escalation"),  # a conversation's, a message's kind
        "owe_again",  # a step's kind (the others are words a record's fields use too)
        # a tool's name ("review" names a document's review too)
        *("create_department", "hire_employee", "create_room", "create_team", "assign_requirement"),
        *("dismiss_employee", "summarize", "write_document", "revise_document", "read_document"),
        *("request_review", "rebut", "sign_off", "send_message", "load_skill"),
    ),
    "ids.py": ("secretary", "everyone", "all", "req-", "boss-chat-", "group-chat-", "dm-"),
    "store/rundir.py": (
        "state.json",
        "messages.jsonl",
        "thoughts.jsonl",
        "changes.jsonl",
        "summary.json",
        "workspace",
    ),
}
# The same word meaning something else where it is written.
ELSEWHERE = {
    ("llm/tentative.py", "pending"): "a tentative call's state",
    ("cli/chat.py", "dm"): "the chat's /dm command",
    ("cli/chat_commands.py", "dm"): "the chat's /dm command",
    ("cli/chat_resume.py", "chat"): "where a continued chat keeps its state",
    ("cycle.py", "escalation"): "Owed's field, in its logged form",
    ("office/decide/speech.py", "escalation"): "Owed's field, read from its logged form",
    ("agents/command.py", "workspace"): "an agent command's scratch copy of the files",
}


def _strings(tree: ast.Module) -> set[str]:
    return {n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)}


def test_each_shared_word_is_spelled_in_its_home_module_only() -> None:
    home = {word: module for module, words in WORDS.items() for word in words}
    trees = _trees()
    found = [
        f"{module}: {word!r} (its home is {home[word]})"
        for module, tree in trees.items()
        for word in sorted(_strings(tree) & home.keys())
        if module != home[word] and (module, word) not in ELSEWHERE
    ]
    assert found == [], found
    assert all(word in _strings(trees[module]) for module, words in WORDS.items() for word in words)
