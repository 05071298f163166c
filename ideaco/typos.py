"""A "did you mean" for a typo in a file the user wrote: a field name, an archetype (difflib)."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any, get_args

from pydantic import BaseModel


def did_you_mean(word: str, choices: Iterable[str]) -> str:
    """` (did you mean 'x'?)` for the choice closest to a typo (difflib; a hyphenated name is also
    matched by its first word: `zeo` -> `zen-slacker`), or "" when none is close."""
    choices = list(choices)
    by_form = {form: c for c in reversed(choices) for form in (c, c.split("-")[0])}
    close = difflib.get_close_matches(word, list(by_form), n=1, cutoff=0.6)
    return f" (did you mean {by_form[close[0]]!r}?)" if close else ""


def unknown(what: str, word: str, choices: Iterable[str]) -> str:
    """`unknown archetype 'zeo' (did you mean 'zen-slacker'?) (one of: ...)`."""
    choices = list(choices)
    return f"unknown {what} {word!r}{did_you_mean(word, choices)} (one of: {', '.join(choices)})"


def fields_beside(root: type[BaseModel], loc: tuple[Any, ...]) -> list[str]:
    """The fields of the model (inside `root`) that holds the unknown field at `loc` (pydantic's)."""
    model: type[BaseModel] | None = root
    for part in loc[:-1]:
        if isinstance(part, int) or model is None:
            continue
        field = model.model_fields.get(str(part))
        model = _model_in(field.annotation) if field is not None else None
    if model is None:
        return []
    return [f.alias or name for name, f in model.model_fields.items()]


def _model_in(annotation: Any) -> type[BaseModel] | None:
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in get_args(annotation):
        if (found := _model_in(arg)) is not None:
            return found
    return None
