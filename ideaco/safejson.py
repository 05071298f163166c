"""JSON from sources ideaco does not control (model answers, endpoint bodies, run files), read safely.

`loads` never recurses without bound and never returns what ideaco could not write back: nesting
deeper than MAX_DEPTH, NaN, Infinity (or a number too large for a float) and lone surrogates are
refused or replaced, each as a ValueError with a short reason, so one hostile answer or a doctored
file is a one-line problem, not a RecursionError or a crash at the next save.
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

# A Flow-of-Thought is about 4 levels deep; a state file about 8. Far below the interpreter's
# recursion limit, so nothing that walks a loaded value recursively can overflow it.
MAX_DEPTH = 64


# Fast paths: only text that could hold them pays for the checks below.
_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")


class Unsafe(ValueError):
    """Well-formed JSON that ideaco refuses: nested too deep, NaN, Infinity, a number out of range."""


class _NotFinite(ValueError):
    pass


def _constant(name: str) -> Any:
    raise _NotFinite(f"{name} is not a number JSON allows")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _NotFinite(f"{text[:20]} is too large a number")
    return value


def loads(text: str | bytes, *, max_depth: int = MAX_DEPTH) -> Any:
    """`json.loads`, bounded: ValueError for bad JSON; Unsafe (a ValueError) for NaN/Infinity or
    nesting deeper than `max_depth`.

    Bytes are decoded as UTF-8 with invalid sequences replaced; strings come back without lone
    surrogates (each replaced by U+FFFD), so whatever is loaded can be written as UTF-8 again.
    """
    if isinstance(text, (bytes, bytearray)):
        text = bytes(text).decode("utf-8", errors="replace")
    try:
        value = json.loads(text, parse_constant=_constant, parse_float=_float)
    except _NotFinite as exc:
        raise Unsafe(str(exc)) from None
    except RecursionError:
        raise Unsafe(f"nested deeper than {max_depth} levels") from None
    deep = text.count("[") + text.count("{") > max_depth
    if deep or ("\\u" in text and _SURROGATE_ESCAPE.search(text)) or _has_surrogate(text):
        return clean(value, max_depth=max_depth)
    return value


def clean(value: Any, *, max_depth: int = MAX_DEPTH) -> Any:
    """`value` with lone surrogates replaced in every string and key; Unsafe if nested too deep.

    Iterative (an explicit stack), so depth is checked before anything recurses into the value.
    """
    root = [value]
    stack: list[tuple[Any, Any, int]] = [(root, 0, 0)]  # (container, key, depth of the item)
    while stack:
        parent, key, depth = stack.pop()
        item = parent[key]
        if isinstance(item, str):
            parent[key] = clean_text(item)
        elif isinstance(item, (dict, list)):
            if depth >= max_depth:
                raise Unsafe(f"nested deeper than {max_depth} levels")
            if isinstance(item, dict):
                if any(_has_surrogate(k) for k in item):
                    item = parent[key] = {clean_text(k): v for k, v in item.items()}
                stack.extend((item, k, depth + 1) for k in item)
            else:
                stack.extend((item, i, depth + 1) for i in range(len(item)))
    return root[0]


def clean_text(text: str) -> str:
    """`text` with lone surrogates (which UTF-8 cannot hold) replaced by U+FFFD."""
    if not _has_surrogate(text):
        return text
    return text.encode("utf-8", errors="surrogatepass").decode("utf-8", errors="replace")


def _has_surrogate(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False
