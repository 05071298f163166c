"""The engine's ids in a draft read as what they name (issue 21): the prompt shows `task-3` and
`mem-2` for the answer's ops; colleagues reading the chat know tasks by what they are."""

from __future__ import annotations

import re
from collections.abc import Mapping

URL = re.compile(r"\b(?:https?://|www\.)\S*", re.I)
# An engine id as a model copies it from the prompt: in brackets, in parentheses or bare. A bare one
# stands alone (not `pre-task-3d`, `task-3_x`, `task-3.5`, `task-3@host`); a URL is left as it is.
_ID = r"((?:task|mem)-\d+)"
_IDS = re.compile(rf"{URL.pattern}|\s?(?:\[{_ID}\]|\({_ID}\)|(?<![\w\-/.#@:=]){_ID}(?![\w\-/@]|\.\w))", re.I)


def name_ids(text: str, names: Mapping[str, str]) -> str:
    """A draft with the engine's ids read as what they name: `[task-1]`, `(task-1)` or a bare
    `task-1` as the task's description in quotes; an id it cannot name (a memory's, another's
    task) left out."""

    def said(found: re.Match[str]) -> str:
        found_id = found.group(1) or found.group(2) or found.group(3)
        if not found_id:
            return found.group(0)  # a URL
        what = names.get(found_id.casefold())
        return f" '{what}'" if what else ""

    named = _IDS.sub(said, text)
    return named.strip() if named != text else text
