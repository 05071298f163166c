"""Lenient validation of a model's answer into a `Thought`, with a correction noted for each fix.

Out-of-range numbers are clamped, oversized strings cut, lists capped, unknown choices replaced
by their default and malformed ops dropped, so a thought is never lost because one op was bad
(spec 1.4). Every bound comes from the model's declarations (`model.py`).
"""

from __future__ import annotations

import copy
import functools
import math
from typing import Any, Literal, get_args, get_origin

from pydantic import BaseModel

from ideaco.kinds import DOCUMENT_TOOLS
from ideaco.mind.thought.compact import expand
from ideaco.mind.thought.model import (
    REQUIRED,
    Action,
    Bound,
    DocumentArgs,
    MemoryOp,
    OutMessage,
    Range,
    RelationshipOp,
    TaskOp,
    Thought,
)
from ideaco.mind.thought.wire import _find, _metadata


@functools.cache
def _bound(model: type[BaseModel], name: str) -> Bound:
    """A field's declared bound, worked out once per field."""
    return _find(_metadata(model.model_fields[name].annotation, model.model_fields[name].metadata)[1], Bound)


@functools.cache
def _range(model: type[BaseModel], name: str) -> Range:
    """A number's declared range, worked out once per field."""
    return _find(model.model_fields[name].metadata, Range)


@functools.cache
def _declared(model: type[BaseModel]) -> tuple[tuple[str, Any, Any, Bound | None, Range | None], ...]:
    """Each field of an op: its name, declaration, bare type, bound and range, worked out once per model."""
    out = []
    for name, info in model.model_fields.items():
        kind, meta = _metadata(info.annotation, info.metadata)
        out.append((name, info, kind, _find(meta, Bound), _find(meta, Range)))
    return tuple(out)


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
            value = str(value)
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

    def fields(self, model: type[BaseModel], item: dict[str, Any], where: str) -> None:
        """Bound every declared field of one op in place: cut strings, then clamp numbers, then fix choices."""
        present = [field for field in _declared(model) if field[0] in item]
        for name, _info, kind, bound, _span in present:
            if kind is str and bound is not None and item[name] is not None:
                item[name] = self.text(item[name], f"{where}.{name}", bound.keep)
        for name, _info, kind, _limit, span in present:
            if kind is int and span is not None:
                item[name] = self.integer(item[name], f"{where}.{name}", span.low, span.high, span.default)
        for name, info, kind, _limit, _span in present:
            if get_origin(kind) is Literal and not info.is_required() and item[name] not in get_args(kind):
                self.notes.append(f"{where}.{name}: {item[name]!r:.30} replaced by {info.default!r}")
                item[name] = info.default


def _clean_args(c: _Corrector, args: Any, where: str, tool: Any = None) -> dict[str, Any] | None:
    """An action's args, bounded like every other field: strings cut, lists capped, nesting dropped.

    None (with a note) when args is not an object: the action is dropped.
    """
    if not isinstance(args, dict):
        c.notes.append(f"{where}: {type(args).__name__} is not an object, action dropped")
        return None
    name_limit = _bound(Action, "tool").keep
    id_limit = _bound(MemoryOp, "id").keep
    text_limit = _bound(OutMessage, "content").keep
    out: dict[str, Any] = {}
    for index, (name, value) in enumerate(args.items()):
        if index >= Action.ARG_KEYS:
            c.notes.append(f"{where}: {len(args) - index} more argument(s) dropped")
            break
        name = str(name)
        if len(name) > name_limit:
            c.notes.append(f"{where}: argument name of {len(name)} chars dropped")
            continue
        at = f"{where}.{name}"
        # `to` names a colleague or a room: an id, and it is quoted back in corrections.
        limit = id_limit if name == "to" else text_limit
        if name == "content" and tool in DOCUMENT_TOOLS:  # a document: office/rules/documents.py bounds it
            limit = _bound(DocumentArgs, "content").keep
        if value is None or isinstance(value, (bool, int, float)):
            out[name] = value
        elif isinstance(value, str):
            out[name] = c.text(value, at, limit)
        elif isinstance(value, list):
            kept = []
            for j, v in enumerate(c.items(value, at, Action.ARG_ITEMS)):
                if isinstance(v, str):
                    kept.append(c.text(v, f"{at}[{j}]", id_limit))
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
    for i, item in enumerate(c.items(raw.get(key), key, _bound(Thought, key).keep)):
        where = f"{key}[{i}]"
        if not isinstance(item, dict):
            c.notes.append(f"{where}: not an object, dropped")
            continue
        item = dict(item)
        c.fields(model, item, where)
        if key == "actions" and item.get("args") is not None:
            args = _clean_args(c, item["args"], f"{where}.args", item.get("tool"))
            if args is None:
                continue
            item["args"] = args
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
    raw = expand(raw)  # the compact wire's short keys (compact.py), else as it is
    missing = [k for k in REQUIRED if k not in raw]
    if missing:
        raise ValueError("missing required field(s): " + ", ".join(missing))
    c = _Corrector()
    raw = copy.deepcopy(raw)
    content_limit = _bound(OutMessage, "content").keep
    messages = []
    for i, m in enumerate(c.items(raw.get("messages"), "messages", _bound(Thought, "messages").keep)):
        content = m.get("content") if isinstance(m, dict) else m if isinstance(m, str) else None
        if content is None:
            c.notes.append(f"messages[{i}]: no content, dropped")
            continue
        text = c.text(content, f"messages[{i}].content", content_limit) or ""
        if text.strip():
            messages.append(OutMessage(content=text))
    saturation, interest = _range(Thought, "topicSaturation"), _range(Thought, "interestLevel")
    thought = Thought(
        innerThoughts=c.text(raw.get("innerThoughts"), "innerThoughts", _bound(Thought, "innerThoughts").keep)
        or "",
        topicSaturation=c.integer(
            raw.get("topicSaturation"),
            "topicSaturation",
            saturation.low,
            saturation.high,
            None,
        ),
        interestLevel=c.integer(
            raw.get("interestLevel"),
            "interestLevel",
            interest.low,
            interest.high,
            None,
        ),
        shouldSpeak=c.boolean(raw.get("shouldSpeak"), "shouldSpeak"),
        reason=c.text(raw.get("reason", ""), "reason", _bound(Thought, "reason").keep) or "",
        messages=messages,
        actions=_clean_ops(c, raw, "actions", Action),
        memorySummary=c.text(
            raw.get("memorySummary"), "memorySummary", _bound(Thought, "memorySummary").keep, nullable=True
        ),
        memoryOps=_clean_ops(c, raw, "memoryOps", MemoryOp),
        relationshipOps=_clean_ops(c, raw, "relationshipOps", RelationshipOp),
        taskOps=_clean_ops(c, raw, "taskOps", TaskOp),
    )
    if thought.shouldSpeak and not thought.messages:
        c.notes.append("shouldSpeak true with no message: treated as silence")
        thought.shouldSpeak = False
    return thought, c.notes
