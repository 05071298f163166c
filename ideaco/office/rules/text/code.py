"""What is quoted code or data in a message, never its writer's prose: the hygiene rules look past it.

Fenced blocks, code spans, f-strings, real HTML elements and JSON values are blanked before the
placeholder and debris rules read a draft; a message that quotes or names code (`talks_code`)
means its braces and brackets.
"""

from __future__ import annotations

import json
import re

# Words that say a message is about code, markup or data: its braces and brackets are meant.
CODE_TALK = frozenset(
    "template templates f-string f-strings fstring format placeholder placeholders variable variables "
    "jinja string strings interpolation python javascript typescript js code regex json yaml html css "
    "tag tags element component key field fields param params parameter config syntax brace braces "
    "render renders header env api payload schema snippet function escape escaped newline".split()
)
HTML_TAGS = (
    "a abbr article aside b blockquote body br button canvas code div em footer form h1 h2 h3 h4 h5 h6 "
    "head header hr html i iframe img input label li link main meta nav ol option p pre script section "
    "select small span strong style sub sup svg table tbody td template textarea th thead title tr u ul video"
).split()
# Elements that have no closing tag: `</br>` is no HTML but debris (hygiene's markup), not quoted code.
VOID_TAGS = "area base br col embed hr img input link meta source track wbr".split()
_CODE = re.compile(r"```.*?(?:```|$)|`[^`\n]+`", re.S)
_FSTRING = re.compile(r"""\b[fF](["'])(?:(?!\1).){0,400}\1""")
# An element's tag: its name, then a space, a slash or its end (`<I'm glad…>` is no `<i>`).
_TAG = re.compile(
    r"<(?:" + "|".join(HTML_TAGS) + r")(?=[\s/>])[^<>\n]{0,200}>"
    r"|</(?!(?:" + "|".join(VOID_TAGS) + r")\b)(?:" + "|".join(HTML_TAGS) + r")\b[^<>\n]{0,200}>",
    re.I,
)
_JSON = json.JSONDecoder()
_OPENINGS = re.compile(r"[{\[]")


def quoted_code(text: str) -> str:
    """The text with its code and data blanked: fenced blocks, code spans, f-strings, HTML elements
    and JSON values (an object or list of at least one item that parses), each as one space."""
    text = _TAG.sub(" ", _FSTRING.sub(" ", _CODE.sub(" ", text)))
    out, kept = [], 0  # text[:kept] is decided
    for opening in _OPENINGS.finditer(text):
        start = opening.start()
        if start < kept:
            continue  # inside a JSON value already blanked
        try:
            value, end = _JSON.raw_decode(text, start)
        except ValueError:
            continue
        if isinstance(value, (dict, list)) and value:
            out += [text[kept:start], " "]
            kept = end
    return "".join([*out, text[kept:]])


def talks_code(text: str, prose: str | None = None) -> bool:
    """Whether a message is about code or markup: it quotes some (`prose`, its `quoted_code`,
    differs from it), or names it."""
    prose = quoted_code(text) if prose is None else prose
    return prose != text or any(w.strip(".,:;!?()") in CODE_TALK for w in text.casefold().split())
