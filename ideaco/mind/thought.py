"""The Flow-of-Thought: what the model returns for one look at a conversation (spec 1.4).

One pydantic definition gives the JSON schema sent to the model (`wire_schema`), and the
validation of the reply (`validate_thought`). Validation is lenient on purpose: out-of-range
numbers are clamped, oversized strings cut and malformed ops dropped, each noted as a
correction, so a thought is never lost because one op was bad.
"""

from __future__ import annotations

import copy
import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

MEMORY_CATEGORIES = (
    "preference",
    "fact",
    "instruction",
    "task",
    "context",
    "relationship",
    "experience",
    "decision",
)
TASK_TYPES = ("oneshot", "long-running", "conditional")

# Bounds on what the engine keeps from a thought. The wire schema asks the model for less
# (see WIRE_LIMITS) so that a constrained small model always finishes within max_tokens.
LIMITS = {
    "innerThoughts": 2000,
    "reason": 500,
    "content": 2000,
    "memorySummary": 2000,
    "impression": 200,
    "description": 500,
    "result": 1000,
    "hint": 300,
    "condition": 300,
    "claimKey": 80,
    "id": 80,
    "tool": 40,
    "args": 10,  # keys of one action's args
    "arg_items": 20,  # items of a list argument
    "messages": 3,
    "actions": 3,
    "memoryOps": 5,
    "relationshipOps": 5,
    "taskOps": 5,
}


class OutMessage(BaseModel):
    content: str


class Action(BaseModel):
    tool: str
    args: dict[str, Any] = Field(default_factory=dict)


class MemoryOp(BaseModel):
    op: Literal["add", "update", "delete"]
    id: str | None = None
    type: Literal["long_term", "short_term"] = "short_term"
    content: str | None = None
    category: str = "context"
    importance: int = 5
    ttl: int | None = None


class RelationshipOp(BaseModel):
    employeeId: str  # noqa: N815 - the wire name
    name: str = ""
    impression: str = ""
    affinity: int = 50


class TaskOp(BaseModel):
    op: Literal["create", "resolve", "fail"]
    taskId: str | None = None  # noqa: N815
    description: str | None = None
    type: str = "oneshot"
    condition: str | None = None
    onResolveTarget: str | None = None  # noqa: N815
    onResolveHint: str | None = None  # noqa: N815
    claimKey: str | None = None  # noqa: N815
    result: str | None = None
    reason: str | None = None


class Thought(BaseModel):
    """A validated Flow-of-Thought."""

    model_config = ConfigDict(extra="ignore")

    innerThoughts: str  # noqa: N815
    topicSaturation: int  # noqa: N815
    interestLevel: int  # noqa: N815
    shouldSpeak: bool  # noqa: N815
    reason: str = ""
    messages: list[OutMessage] = Field(default_factory=list)
    actions: list[Action] = Field(default_factory=list)
    memorySummary: str | None = None  # noqa: N815
    memoryOps: list[MemoryOp] = Field(default_factory=list)  # noqa: N815
    relationshipOps: list[RelationshipOp] = Field(default_factory=list)  # noqa: N815
    taskOps: list[TaskOp] = Field(default_factory=list)  # noqa: N815

    def to_record(self) -> dict[str, Any]:
        return self.model_dump(mode="json", exclude_none=False)


REQUIRED = ("innerThoughts", "topicSaturation", "interestLevel", "shouldSpeak")


# --------------------------------------------------------------------------- wire schema

WIRE_LIMITS = {
    "innerThoughts": 200,
    "reason": 80,
    "content": 240,
    "memorySummary": 200,
    "impression": 80,
    "description": 100,
    "result": 120,
    "hint": 80,
    "condition": 80,
    "claimKey": 40,
    "id": 24,
    "tool": 16,
    "to": 40,
    "messages": 1,
    "actions": 1,
    "memoryOps": 1,
    "relationshipOps": 1,
    "taskOps": 1,
}


# For small local models (the embedded SmolLM2): they fill every string to its maxLength, so
# shorter bounds are what keeps a thought at a few seconds.
COMPACT_WIRE_LIMITS = WIRE_LIMITS | {
    "innerThoughts": 120,
    "reason": 60,
    "content": 160,
    "memorySummary": 120,
    "impression": 60,
    "description": 80,
    "result": 80,
    "hint": 60,
}


def _obj(props: dict[str, Any], required: list[str] | None = None) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": props,
        "required": list(props) if required is None else required,
        "additionalProperties": False,
    }


def wire_schema(
    people: tuple[str, ...] | list[str] | None = (),
    targets: tuple[str, ...] | list[str] = (),
    *,
    task_ids: tuple[str, ...] | list[str] = (),
    memory_ids: tuple[str, ...] | list[str] | None = None,
    tools: tuple[str, ...] | list[str] = (),
    compact: bool = False,
) -> dict[str, Any]:
    """The JSON schema sent to the model.

    Every string has a maxLength and every list a maxItems, so a grammar-constrained model can
    never run a thought past max_tokens; every field is required so the model always emits them
    in this order (the cheap decisions first, the optional ops last). `people` (colleagues
    present) and `targets` (where send_message may go) turn id fields into enums, so a
    constrained model cannot invent an id; `task_ids` (pending tasks) do the same for taskId,
    with "" for a create, and `memory_ids` (memories shown) for memory update/delete. `people=None`
    means nobody else is present: no relationship ops at all. `compact` uses COMPACT_WIRE_LIMITS
    and asks for a message draft even when silent (small models otherwise say shouldSpeak with
    an empty list); a silent thought's draft is logged, never posted. `tools` adds the named
    organization tools (the secretary's) to the actions, with up to 3 actions per thought.
    """
    limits = COMPACT_WIRE_LIMITS if compact else WIRE_LIMITS

    def text(limit: str) -> dict[str, Any]:
        return {"type": "string", "maxLength": limits[limit]}

    def items(item: dict[str, Any], limit: str) -> dict[str, Any]:
        return {"type": "array", "items": item, "maxItems": limits[limit]}

    def choice(values: tuple[str, ...] | list[str], limit: str) -> dict[str, Any]:
        return {"enum": sorted(set(values))} if values else text(limit)

    memory_op = _obj(
        {
            "op": {"enum": ["add", "update", "delete"]},
            "id": {"enum": ["", *sorted(set(memory_ids))]} if memory_ids is not None else text("id"),
            "type": {"enum": ["long_term", "short_term"]},
            "content": text("content"),
            "category": {"enum": list(MEMORY_CATEGORIES)},
            "importance": {"type": "integer", "minimum": 1, "maximum": 10},
        }
    )
    relationship_op = _obj(
        {
            "employeeId": choice(people or (), "id"),
            "impression": text("impression"),
            "affinity": {"type": "integer", "minimum": 1, "maximum": 100},
        }
    )
    task_op = _obj(
        {
            "op": {"enum": ["create", "resolve", "fail"]},
            "taskId": {"enum": ["", *sorted(set(task_ids))]} if task_ids else text("id"),
            "description": text("description"),
            "type": {"enum": list(TASK_TYPES)},
            "onResolveTarget": {"enum": ["", *sorted(set(targets))]} if targets else text("id"),
            "onResolveHint": text("hint"),
            "claimKey": text("claimKey"),
            "result": text("result"),
        },
        required=["op"],
    )
    action = _obj(
        {
            "tool": {"enum": ["send_message"]},
            "args": _obj({"to": choice(targets, "to"), "content": text("content")}),
        }
    )
    actions = items(action, "actions")
    if tools:
        tool_args = {
            "to": text("to"),
            "content": text("content"),
            "id": text("id"),
            "name": text("id"),
            "mission": text("description"),
            "role": text("description"),
            "archetype": text("id"),
            "department": text("id"),
            "age": {"type": "integer", "minimum": 18, "maximum": 80},
            "kind": {"enum": ["work", "casual"]},
            "members": {"type": "array", "items": text("id"), "maxItems": 8},
            "description": text("description"),
            "conversation": text("id"),
        }
        tool_action = _obj(
            {"tool": {"enum": sorted(tools)}, "args": _obj(tool_args, required=[])},
        )
        actions = {"type": "array", "items": {"anyOf": [action, tool_action]}, "maxItems": 3}
    return _obj(
        {
            "innerThoughts": text("innerThoughts"),
            "topicSaturation": {"type": "integer", "minimum": 1, "maximum": 10},
            "interestLevel": {"type": "integer", "minimum": 1, "maximum": 10},
            "shouldSpeak": {"type": "boolean"},
            "reason": text("reason"),
            # compact: a draft is always written (a silent thought's is logged, never posted); an
            # empty draft is silence (measured: forcing text into it doubled a run's thoughts)
            "messages": items(_obj({"content": text("content")}), "messages")
            | ({"minItems": 1} if compact else {}),
            "actions": actions,
            "memorySummary": {"anyOf": [text("memorySummary"), {"type": "null"}]},
            "memoryOps": items(memory_op, "memoryOps"),
            "relationshipOps": items(relationship_op, "relationshipOps")
            | ({"maxItems": 0} if people is None else {}),
            "taskOps": items(task_op, "taskOps"),
        }
    )


def wire_token_bound(schema: dict[str, Any]) -> int:
    """An upper bound on the tokens of any answer matching `schema` (a token is at least one char).

    Used as max_tokens for grammar-constrained models, so a thought can never be cut off.
    """

    def chars(node: dict[str, Any]) -> int:
        if "anyOf" in node:
            return max(chars(n) for n in node["anyOf"])
        if "enum" in node:
            return max(len(str(v)) for v in node["enum"]) + 2
        kind = node.get("type")
        if kind == "string":
            return node.get("maxLength", 2000) + 2
        if kind == "array":
            return 2 + node.get("maxItems", 10) * (chars(node["items"]) + 1)
        if kind == "object":
            return 2 + sum(len(k) + 4 + chars(v) for k, v in node.get("properties", {}).items())
        return 6  # numbers, booleans, null

    return chars(schema)


# --------------------------------------------------------------------------- validation


class _Corrector:
    """Collects corrections while coercing a raw dict into a Thought."""

    def __init__(self) -> None:
        self.notes: list[str] = []

    def text(self, value: Any, where: str, limit: int, *, nullable: bool = False) -> str | None:
        if value is None:
            if nullable:
                return None
            self.notes.append(f"{where}: null replaced by empty string")
            return ""
        if not isinstance(value, str):
            self.notes.append(f"{where}: {type(value).__name__} converted to string")
            value = value if isinstance(value, str) else str(value)
        if len(value) > limit:
            self.notes.append(f"{where}: cut from {len(value)} to {limit} chars")
            value = value[:limit]
        return value

    def integer(self, value: Any, where: str, lo: int, hi: int, default: int | None) -> int:
        number: int | None
        if isinstance(value, bool):
            number = None
        elif isinstance(value, (int, float)):
            number = round(value) if math.isfinite(value) else None
        elif isinstance(value, str):
            try:
                parsed = float(value.strip())
                number = round(parsed) if math.isfinite(parsed) else None
            except ValueError:
                number = None
            if number is not None:
                self.notes.append(f"{where}: string {value!r:.20} read as a number")
        else:
            number = None
        if number is None:
            if default is None:
                raise ValueError(f"{where} must be a number, got {value!r:.40}")
            self.notes.append(f"{where}: {value!r:.40} is not a number, used {default}")
            return default
        if number < lo or number > hi:
            clamped = min(max(number, lo), hi)
            self.notes.append(f"{where}: {number} clamped to {clamped}")
            return clamped
        return number

    def boolean(self, value: Any, where: str) -> bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.strip().lower() in ("true", "yes", "1", "false", "no", "0"):
            self.notes.append(f"{where}: string {value!r} read as boolean")
            return value.strip().lower() in ("true", "yes", "1")
        if isinstance(value, (int, float)):
            self.notes.append(f"{where}: number read as boolean")
            return bool(value)
        raise ValueError(f"{where} must be true or false, got {value!r:.40}")

    def items(self, value: Any, where: str, limit: int) -> list[Any]:
        if value is None:
            return []
        if isinstance(value, (dict, str)):
            self.notes.append(f"{where}: single {type(value).__name__} wrapped in a list")
            value = [value]
        if not isinstance(value, list):
            self.notes.append(f"{where}: {type(value).__name__} dropped (expected a list)")
            return []
        if len(value) > limit:
            self.notes.append(f"{where}: {len(value)} items cut to {limit}")
            value = value[:limit]
        return value


def _clean_args(c: _Corrector, args: Any, where: str) -> dict[str, Any] | None:
    """An action's args, bounded like every other field: strings cut, lists capped, nesting dropped.

    None (with a note) when args is not an object: the action is dropped.
    """
    if not isinstance(args, dict):
        c.notes.append(f"{where}: {type(args).__name__} is not an object, action dropped")
        return None
    out: dict[str, Any] = {}
    for index, (name, value) in enumerate(args.items()):
        if index >= LIMITS["args"]:
            c.notes.append(f"{where}: {len(args) - index} more argument(s) dropped")
            break
        name = str(name)
        if len(name) > LIMITS["tool"]:
            c.notes.append(f"{where}: argument name of {len(name)} chars dropped")
            continue
        at = f"{where}.{name}"
        # `to` names a colleague or a room: an id, and it is quoted back in corrections.
        limit = LIMITS["id"] if name == "to" else LIMITS["content"]
        if value is None or isinstance(value, (bool, int, float)):
            out[name] = value
        elif isinstance(value, str):
            out[name] = c.text(value, at, limit)
        elif isinstance(value, list):
            kept = []
            for j, v in enumerate(c.items(value, at, LIMITS["arg_items"])):
                if isinstance(v, str):
                    kept.append(c.text(v, f"{at}[{j}]", LIMITS["id"]))
                elif v is None or isinstance(v, (bool, int, float)):
                    kept.append(v)
                else:
                    c.notes.append(f"{at}[{j}]: nested {type(v).__name__} dropped")
            out[name] = kept
        else:
            c.notes.append(f"{at}: nested {type(value).__name__} dropped")
    return out


def _clean_ops(c: _Corrector, raw: dict[str, Any], key: str, model: type[BaseModel]) -> list[Any]:
    kept = []
    for i, item in enumerate(c.items(raw.get(key), key, LIMITS[key])):
        where = f"{key}[{i}]"
        if not isinstance(item, dict):
            c.notes.append(f"{where}: not an object, dropped")
            continue
        item = dict(item)
        for field, limit in (
            ("content", "content"),
            ("impression", "impression"),
            ("description", "description"),
            ("result", "result"),
            ("reason", "result"),
            ("onResolveHint", "hint"),
            ("condition", "condition"),
            ("claimKey", "claimKey"),
            ("id", "id"),
            ("taskId", "id"),
            ("employeeId", "id"),
            ("tool", "tool"),
        ):
            if field in item and item[field] is not None:
                item[field] = c.text(item[field], f"{where}.{field}", LIMITS[limit])
        if key == "actions" and item.get("args") is not None:
            args = _clean_args(c, item["args"], f"{where}.args")
            if args is None:
                continue
            item["args"] = args
        if "importance" in item:
            item["importance"] = c.integer(item["importance"], f"{where}.importance", 1, 10, 5)
        if "affinity" in item:
            item["affinity"] = c.integer(item["affinity"], f"{where}.affinity", 1, 100, 50)
        if key == "memoryOps" and item.get("category") not in MEMORY_CATEGORIES and "category" in item:
            c.notes.append(f"{where}.category: {item['category']!r:.30} replaced by 'context'")
            item["category"] = "context"
        if key == "memoryOps" and item.get("type") not in ("long_term", "short_term") and "type" in item:
            c.notes.append(f"{where}.type: {item['type']!r:.30} replaced by 'short_term'")
            item["type"] = "short_term"
        if key == "taskOps" and item.get("type") not in TASK_TYPES and "type" in item:
            c.notes.append(f"{where}.type: {item['type']!r:.30} replaced by 'oneshot'")
            item["type"] = "oneshot"
        try:
            kept.append(model.model_validate(item))
        except ValueError as exc:
            first = str(exc).splitlines()
            c.notes.append(f"{where}: invalid ({first[1] if len(first) > 1 else first[0]}), dropped")
    return kept


def validate_thought(raw: Any) -> tuple[Thought, list[str]]:
    """Coerce a parsed JSON object into a Thought; return it and the corrections made.

    Raises ValueError when a required field is missing or unusable (the caller then makes
    its one repair attempt).
    """
    if not isinstance(raw, dict):
        raise ValueError(f"expected a JSON object, got {type(raw).__name__}")
    missing = [k for k in REQUIRED if k not in raw]
    if missing:
        raise ValueError("missing required field(s): " + ", ".join(missing))
    c = _Corrector()
    raw = copy.deepcopy(raw)
    messages = []
    for i, m in enumerate(c.items(raw.get("messages"), "messages", LIMITS["messages"])):
        content = m.get("content") if isinstance(m, dict) else m if isinstance(m, str) else None
        if content is None:
            c.notes.append(f"messages[{i}]: no content, dropped")
            continue
        text = c.text(content, f"messages[{i}].content", LIMITS["content"]) or ""
        if text.strip():
            messages.append(OutMessage(content=text))
    thought = Thought(
        innerThoughts=c.text(raw.get("innerThoughts"), "innerThoughts", LIMITS["innerThoughts"]) or "",
        topicSaturation=c.integer(raw.get("topicSaturation"), "topicSaturation", 1, 10, None),
        interestLevel=c.integer(raw.get("interestLevel"), "interestLevel", 1, 10, None),
        shouldSpeak=c.boolean(raw.get("shouldSpeak"), "shouldSpeak"),
        reason=c.text(raw.get("reason", ""), "reason", LIMITS["reason"]) or "",
        messages=messages,
        actions=_clean_ops(c, raw, "actions", Action),
        memorySummary=c.text(
            raw.get("memorySummary"), "memorySummary", LIMITS["memorySummary"], nullable=True
        ),
        memoryOps=_clean_ops(c, raw, "memoryOps", MemoryOp),
        relationshipOps=_clean_ops(c, raw, "relationshipOps", RelationshipOp),
        taskOps=_clean_ops(c, raw, "taskOps", TaskOp),
    )
    if thought.shouldSpeak and not thought.messages:
        c.notes.append("shouldSpeak true with no message: treated as silence")
        thought.shouldSpeak = False
    return thought, c.notes
