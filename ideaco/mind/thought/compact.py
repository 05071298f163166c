"""The compact wire's answer: the Flow-of-Thought as a small local model writes it (issue 30, item 1).

A grammar-constrained model pays a decode step for every token the grammar forces, keys and
brackets included, and one reads ~45 tokens/s here. So the compact wire keeps what a thought means
and cuts what the model must write:
- short keys for the five fields of every thought (`think`, `sat`, `interest`, `speak`, `say`),
  and the one message as a plain string (`say`, "" to stay silent);
- a summary written only when there is one (no `null`);
- each op with only the fields that op needs, the office filling the rest with the model's
  defaults (a memory added is short-term context of importance 5; a task is one-shot and reports
  to the boss chat): `{"op": "add", "content": ...}`, `{"op": "resolve", "taskId": ..., "result": ...}`.
`compact_answer` turns the schema `wire.thought_schema` builds from the model's declarations
into that shape; `expand` reads an answer of that shape back into the Flow-of-Thought's names, and
`lenient.validate_thought` does the rest as for any answer.
"""

from __future__ import annotations

from typing import Any

# The compact wire's key -> the Flow-of-Thought's field.
SHORT = {
    "think": "innerThoughts",
    "sat": "topicSaturation",
    "interest": "interestLevel",
    "speak": "shouldSpeak",
    "say": "messages",
}
REQUIRED = tuple(SHORT)

# Each op with the fields it needs (in the order the model writes them), by op list and op.
OP_FIELDS: dict[str, dict[str, tuple[str, ...]]] = {
    "memoryOps": {"add": ("content",), "update": ("id", "content"), "delete": ("id",)},
    "taskOps": {
        "create": ("description",),
        "resolve": ("taskId", "result"),
        "fail": ("taskId", "reason"),
        "release": ("taskId", "reason"),
        "offer": ("description",),
    },
}
NEEDS_IDS = {"memoryOps": "id", "taskOps": "taskId"}  # an op naming one is offered only with some to name


def compact_answer(schema: dict[str, Any], *, claim_keys: tuple[str, ...] = ()) -> dict[str, Any]:
    """The compact wire's answer schema from the Flow-of-Thought's (already compact-bounded) one.

    `claim_keys`: the board's open claim keys this employee sees: a `create` may name one of them
    (a claim) instead of a description."""
    props = schema["properties"]
    out: dict[str, Any] = {}
    for short, name in SHORT.items():
        out[short] = props[name]
    message = props["messages"]["items"]["properties"]["content"]
    out["say"] = dict(message)  # the one message, "" for none
    for name, value in props.items():
        if name in SHORT.values():
            continue
        if name == "memorySummary":
            value = next(v for v in value["anyOf"] if v.get("type") == "string")
        if name in OP_FIELDS:
            value = value | {"items": {"anyOf": _ops(name, value["items"], claim_keys)}}
        out[name] = value
    # The op lists and actions are written every time, if only as [] (left optional, a small model
    # all but stopped writing them: its DMs fell from 19 to 3 in the README's first command);
    # a summary is written only when the model has one (it was a null otherwise).
    required = [
        k for k in out if k in REQUIRED or k in ("actions", "memoryOps", "relationshipOps", "taskOps")
    ]
    return {"type": "object", "properties": out, "required": required, "additionalProperties": False}


def _ops(name: str, item: dict[str, Any], claim_keys: tuple[str, ...]) -> list[dict[str, Any]]:
    """One object per op of `name`, each with only its fields (taken from the full item's)."""
    fields = item["properties"]
    ids = fields.get(NEEDS_IDS[name], {})
    out = []
    for op, needs in OP_FIELDS[name].items():
        if op not in fields["op"]["enum"]:
            continue
        if NEEDS_IDS[name] in needs and not [i for i in ids.get("enum", ()) if i]:
            continue  # nothing it could name
        props: dict[str, Any] = {"op": {"enum": [op]}}
        for field in needs:
            spec = dict(fields.get(field) or fields["result"])  # a reason is bounded like a result
            if "enum" in spec:
                spec["enum"] = [i for i in spec["enum"] if i]  # a blank id names nothing
            props[field] = spec
        out.append(_obj(props))
        if name == "taskOps" and op == "create" and claim_keys:
            out.append(_obj({"op": {"enum": ["create"]}, "claimKey": {"enum": list(claim_keys)}}))
    return out


def _obj(props: dict[str, Any]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(props), "additionalProperties": False}


def expand(raw: dict[str, Any]) -> dict[str, Any]:
    """An answer of the compact wire in the Flow-of-Thought's names (any other answer as it is)."""
    if not any(key in raw for key in SHORT):
        return raw
    out = {SHORT.get(key, key): value for key, value in raw.items()}
    said = out.get("messages")
    if isinstance(said, str):
        out["messages"] = [{"content": said}] if said.strip() else []
    return out
