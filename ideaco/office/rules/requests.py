"""What the boss's plain words ask the secretary for (issue 12): the tools, department names and
archetypes a request names. A small model is offered only the tools asked for, and copies the
names; pure text rules, tested on both sides in tests/office/test_asked_tools.py.
"""

from __future__ import annotations

import re

from ideaco.kinds import ToolName
from ideaco.persona import ARCHETYPES

# What a plain request asks for, by its words: a small model is offered only these tools, and
# must call one of them (it otherwise answers "Sure!" and does nothing; issue 12).
ASKED_BY = {
    ToolName.CREATE_DEPARTMENT: re.compile(r"\b(department|dept)s?\b", re.IGNORECASE),
    ToolName.HIRE_EMPLOYEE: re.compile(r"\b(hire|hiring|recruit\w*|onboard\w*)\b", re.IGNORECASE),
    ToolName.CREATE_ROOM: re.compile(r"\b(room|channel)s?\b", re.IGNORECASE),
    ToolName.CREATE_TEAM: re.compile(r"\b(team|squad)s?\b", re.IGNORECASE),
    ToolName.ASSIGN_REQUIREMENT: re.compile(r"\b(assign\w*|requirements?|tasks?)\b", re.IGNORECASE),
    ToolName.DISMISS_EMPLOYEE: re.compile(r"\b(dismiss\w*|fire|lay off|let \w+ go)\b", re.IGNORECASE),
    ToolName.SUMMARIZE: re.compile(r"\b(summar\w*|recap)\b", re.IGNORECASE),
}


def asked_tools(texts: list[str]) -> tuple[str, ...]:
    """The organization tools the boss's words ask for, in the tools' order (none: just talk)."""
    return tuple(name for name, words in ASKED_BY.items() if any(words.search(t) for t in texts))


# A department the boss names: capitalized words before "department" ("open an Engineering
# department"), or after "department called/named" ("a department called Sales").
_CAPS = r"((?:[A-Z][\w&]*\s+)*[A-Z][\w&]*)"
NAMED_DEPARTMENT = re.compile(
    rf"\b{_CAPS}\s+(?:department|dept)s?\b|\b(?:department|dept)\s+(?:called|named)\s+['\"]?{_CAPS}"
)
_NOT_A_NAME = {"a", "an", "the", "our", "new", "open", "create", "please", "start", "set", "up"}


def named_departments(texts: list[str]) -> tuple[str, ...]:
    """The department names the boss's words give, in order, each once (a small model copies them)."""
    names: list[str] = []
    for text in texts:
        for match in NAMED_DEPARTMENT.finditer(text):
            words = (match.group(1) or match.group(2)).split()
            while words and words[0].lower() in _NOT_A_NAME:  # "The Design department", "Please open..."
                words.pop(0)
            if words and " ".join(words) not in names:
                names.append(" ".join(words))
    return tuple(names)


# An archetype as the boss writes it: "old hand", "old-hand", "old hands".
NAMED_ARCHETYPE = {
    name: re.compile(r"\b" + r"[\s-]+".join(map(re.escape, name.split("-"))) + r"s?\b", re.IGNORECASE)
    for name in ARCHETYPES
}


def asked_archetypes(texts: list[str]) -> tuple[str, ...]:
    """The archetypes the boss's words name ("an old hand", "a zen slacker"), in the archetypes' order."""
    return tuple(name for name, words in NAMED_ARCHETYPE.items() if any(words.search(t) for t in texts))
