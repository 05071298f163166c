"""The viewer's one HTML file: the Jinja2 page, its scripts and style inline, the run's data as JSON.

Agent text never becomes markup: the data travels in `<script type="application/json">` blocks
with `<`, `>`, `&` and the two JavaScript line separators written as `\\u` escapes (so no text can
close the block), and the page's script inserts every string with `textContent`. The page's
Content-Security-Policy lets only its own script and style run (by their SHA-256) and allows no
fetch of any kind: nothing the page shows can reach the network, even a `<img src>` that got in.
"""

from __future__ import annotations

import base64
import hashlib
import json
from importlib import resources
from typing import Any

from jinja2 import Environment, StrictUndefined

from ideaco import __version__ as VERSION

# The page's scripts, in the order they run: shared helpers, the People tab, the tables, the timeline.
SCRIPTS = ("static/common.js", "static/charts.js", "static/tables.js", "static/view.js")
_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028", "\u2029": "\\u2029"}


def embed_json(value: Any) -> str:
    """JSON that is safe inside a `<script type="application/json">` block (and parses the same)."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    for raw, escaped in _ESCAPES.items():
        text = text.replace(raw, escaped)
    return text


def _asset(name: str) -> str:
    return (resources.files("ideaco.viewer") / name).read_text(encoding="utf-8")


def _sha256(text: str) -> str:
    return "sha256-" + base64.b64encode(hashlib.sha256(text.encode("utf-8")).digest()).decode("ascii")


def render(data: dict[str, Any], records: list[dict[str, Any]]) -> str:
    """The page for a run's gathered data and its full thought records."""
    scripts, style = [_asset(name) for name in SCRIPTS], _asset("static/view.css")
    if any("</script" in text.lower() for text in scripts) or "</style" in style.lower():
        raise ValueError("the viewer's static files must not contain a closing script or style tag")
    env = Environment(autoescape=True, undefined=StrictUndefined, keep_trailing_newline=True)
    template = env.from_string(_asset("templates/view.html.j2"))
    # The scripts and style are inserted verbatim, so that their hashes are the CSP's.
    csp = (
        "default-src 'none'; "
        "script-src " + " ".join(f"'{_sha256(text)}'" for text in scripts) + "; "
        f"style-src '{_sha256(style)}'; "
        "img-src data:; base-uri 'none'; form-action 'none'"
    )
    meta = data.get("meta") or {}
    title = " - ".join(str(x) for x in (meta.get("company"), meta.get("scenario")) if x) or "run"
    return template.render(
        title=f"ideaco: {title}",
        csp=csp,
        version=VERSION,
        scripts=scripts,
        style=style,
        documents=bool(data.get("documents")),  # the Documents tab only when some were written
        data=embed_json(data),
        records=embed_json(records),
    )
