"""The JSON schemas sent to the model, derived from the Flow-of-Thought model's declarations.

Every string has a maxLength and every list a maxItems, so a grammar-constrained model can never
run a thought past max_tokens; every field is required, so the model always emits them in the
model's order (the cheap decisions first, the optional ops last). Fields that name something
real (a colleague, a task, a memory, a conversation) become enums of the ids the employee can
use, so a constrained model cannot invent one.
"""

from __future__ import annotations

import functools
import types
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Literal, Union, get_args, get_origin

from pydantic import BaseModel

from ideaco.kinds import REVIEW_VERDICTS, ToolName
from ideaco.mind.thought.compact import compact_answer
from ideaco.mind.thought.model import (
    TOOL_ARGS,
    Bound,
    Choice,
    DocumentArgs,
    OffWire,
    Range,
    SendMessageArgs,
    Thought,
    WireOnly,
    _Part,
)


@dataclass(frozen=True)
class WireContext:
    """What a schema's enums list: the real ids this employee may use in this thought."""

    people: tuple[str, ...] | None = ()  # colleagues present; None: nobody, so no relationship ops
    targets: tuple[str, ...] = ()  # where send_message may go, where a task may report
    task_ids: tuple[str, ...] = ()
    memory_ids: tuple[str, ...] | None = None
    tools: tuple[str, ...] = ()  # the organization tools offered (the secretary's)
    documents: tuple[str, ...] = ()  # the document tools offered (full wire only; issue 20)
    # Compact: the document tools that can apply, each (tool, paths, bases) (office/perceive/document_tools.py).
    document_calls: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = ()
    skills: tuple[str, ...] = ()  # the skills load_skill may name (full wire only; issue 20)
    compact: bool = False
    # Whether memorySummary is asked for. A small model (compact) is asked only when older
    # messages have left the prompt's window: otherwise it spends 30 tokens restating them.
    summary: bool = True
    tasks: bool = True  # whether taskOps are offered (a compact schema leaves them off otherwise)
    # Compact, with tools: each tool its own args with these as choices, and one call required.
    archetypes: tuple[str, ...] = ()
    departments: tuple[str, ...] = ()
    new_departments: tuple[tuple[str, str], ...] = ()  # (id, name) the boss's words name, not open yet
    staff: tuple[str, ...] = ()  # employees a tool may name (not the secretary)
    claim_keys: tuple[str, ...] = ()  # compact: the board's open work this employee may claim

    def ids(self, source: str) -> Sequence[str] | None:
        return getattr(self, source)


def _metadata(annotation: Any, extra: Sequence[Any] = ()) -> tuple[Any, list[Any]]:
    """The bare type of an annotation and its metadata (Annotated, and Optional unwrapped)."""
    meta = list(extra)
    while get_origin(annotation) is Annotated:
        annotation, *more = get_args(annotation)
        meta += more
    if get_origin(annotation) in (Union, types.UnionType):
        members = [a for a in get_args(annotation) if a is not type(None)]
        if len(members) == 1:
            return _metadata(members[0], meta)
    return annotation, meta


def _find(meta: Sequence[Any], kind: type) -> Any:
    return next((m for m in meta if isinstance(m, kind)), None)


def _text(asked: int | None) -> dict[str, Any]:
    return {"type": "string", "maxLength": asked}


@functools.cache
def _analysed(
    annotation: Any, extra: tuple[Any, ...]
) -> tuple[Any, tuple[int | None, int | None], Choice | None, Range | None]:
    """A field's bare type, the length its bound asks for on the full and the compact wire
    (`Bound.asked`), its choice and range: worked out once per declaration."""
    kind, meta = _metadata(annotation, extra)
    bound: Bound | None = _find(meta, Bound)
    asks = (bound.asked(False), bound.asked(True)) if bound is not None else (None, None)
    return kind, asks, _find(meta, Choice), _find(meta, Range)


def _field(annotation: Any, meta: list[Any], ctx: WireContext, *, choices: bool = True) -> dict[str, Any]:
    kind, asks, choice, span = _analysed(annotation, tuple(meta))
    if choice is not None and choices:
        ids = ctx.ids(choice.source)
        if ids or (choice.when_listed and ids is not None):
            values = sorted(set(ids or ()))
            return {"enum": ["", *values] if choice.blank else values}
    if get_origin(kind) is Literal:
        return {"enum": list(get_args(kind))}
    if kind is bool:
        return {"type": "boolean"}
    if kind is int:
        return {"type": "integer", "minimum": span.low, "maximum": span.high}
    if kind is str:
        return _text(asks[ctx.compact])
    if get_origin(kind) is list:
        (item,) = get_args(kind)
        return {"type": "array", "items": _field(item, [], ctx), "maxItems": asks[ctx.compact]}
    if isinstance(kind, type) and issubclass(kind, BaseModel):
        return _object(kind, ctx)
    raise TypeError(f"no wire form for {annotation!r}")


@functools.cache
def _sources(model: type[BaseModel]) -> tuple[str, ...]:
    """The lists of a `WireContext` a model's wire form reads: its fields' choices, nested ones included."""
    out: list[str] = []
    for info in model.model_fields.values():
        kind, _, choice, _ = _analysed(info.annotation, tuple(info.metadata))
        if choice is not None:
            out.append(choice.source)
        if get_origin(kind) is list:
            (kind,) = get_args(kind)
            kind, _, choice, _ = _analysed(kind, ())
            out += [choice.source] if choice is not None else []
        if isinstance(kind, type) and issubclass(kind, BaseModel):
            out += _sources(kind)
    return tuple(dict.fromkeys(out))


_OBJECTS: dict[tuple[Any, ...], dict[str, Any]] = {}  # a part's wire form, by what it reads of the context


def _object(
    model: type[BaseModel], ctx: WireContext, *, choices: bool = True, given: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A model's wire form. One that reads only the lists its choices name (no `given`) is made once
    per those lists and shared (not changed by anyone): an op's form is the same for most thoughts,
    whoever thinks them."""
    if given is not None:
        return _made(model, ctx, choices, given)
    key = (model, choices, ctx.compact, *(ctx.ids(source) for source in _sources(model)))
    made = _OBJECTS.get(key)
    if made is None:
        if len(_OBJECTS) >= 4096:
            _OBJECTS.clear()
        made = _OBJECTS[key] = _made(model, ctx, choices, None)
    return made


def _made(
    model: type[BaseModel], ctx: WireContext, choices: bool, given: dict[str, Any] | None
) -> dict[str, Any]:
    props = {}
    for name, info in model.model_fields.items():
        if _find(info.metadata, OffWire) is not None:
            continue
        only = _find(info.metadata, WireOnly)
        if only is not None and only.compact != ctx.compact:
            continue
        if given and name in given:
            props[name] = given[name]
            continue
        props[name] = _field(info.annotation, info.metadata, ctx, choices=choices)
    required = getattr(model, "wire_required", None)
    return _obj(props, list(props) if required is None else list(required))


def _obj(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required, "additionalProperties": False}


# The tools' arguments that are choices among the company's ids (compact schema only).
TOOL_CHOICES: dict[str, dict[str, str]] = {
    ToolName.HIRE_EMPLOYEE: {"archetype": "archetypes", "department": "departments"},
    ToolName.ASSIGN_REQUIREMENT: {"to": "departments+staff"},
    ToolName.DISMISS_EMPLOYEE: {"id": "staff"},
    ToolName.CREATE_ROOM: {"members": "staff"},
    ToolName.CREATE_TEAM: {"department": "departments", "members": "staff"},
}


def _tool_item(name: str, ctx: WireContext) -> dict[str, Any]:
    """One tool call with its own arguments, all written, ids chosen among the real ones.

    A department opened in the same answer (created first) is one the boss's words name, or a
    free name when they name none."""
    given: dict[str, Any] = {}
    opening = [n for _, n in ctx.new_departments] if ToolName.CREATE_DEPARTMENT in ctx.tools else []
    if name == ToolName.CREATE_DEPARTMENT and opening:
        given = {"id": {"enum": [i for i, _ in ctx.new_departments]}, "name": {"enum": opening}}
    for arg, sources in TOOL_CHOICES.get(name, {}).items():
        ids = sorted({i for source in sources.split("+") for i in getattr(ctx, source)})
        if arg == "department" and ToolName.CREATE_DEPARTMENT in ctx.tools:
            ids = opening
        if not ids:
            continue
        choice = {"enum": ids}
        if arg == "members":
            choice = {"type": "array", "items": choice, "minItems": 1, "maxItems": 8}
        given[arg] = choice
    args = _object(TOOL_ARGS[name], ctx, given=given)
    for arg, info in TOOL_ARGS[name].model_fields.items():  # a name, a role...: never left empty
        wire = args["properties"].get(arg, {})
        if wire.get("type") == "string" and any(getattr(m, "min_length", 0) for m in info.metadata):
            wire["minLength"] = 1
    return _obj({"tool": {"enum": [name]}, "args": args}, ["tool", "args"])


COMPACT_DOCUMENT_CALLS = 2  # a document written and its review asked for, in one thought
_DOCUMENT_ARGS = {
    ToolName.WRITE_DOCUMENT: ("path", "content"),
    ToolName.REQUEST_REVIEW: ("path",),
    ToolName.REVISE_DOCUMENT: ("path", "base", "content"),
    ToolName.REBUT: ("path", "argument"),
    ToolName.REVIEW: ("path", "notes", "verdict"),
    ToolName.SIGN_OFF: ("requirement",),  # a request to the boss: the boss alone decides (issue 37)
}


def _document_item(
    tool: str, paths: tuple[str, ...], bases: tuple[str, ...], ctx: WireContext
) -> dict[str, Any]:
    """One document tool for a small model: every argument written, paths and bases chosen."""
    fields = DocumentArgs.model_fields
    given: dict[str, Any] = {"path": {"enum": list(paths)}, "base": {"enum": list(bases)}}
    given["requirement"] = {"enum": list(paths)}  # sign_off's choices are requirements
    given["verdict"] = {"enum": [v.value for v in REVIEW_VERDICTS]}  # a review's
    args: dict[str, Any] = {}
    for name in _DOCUMENT_ARGS[tool]:
        args[name] = given.get(name) or _field(fields[name].annotation, fields[name].metadata, ctx) | {
            "minLength": 1
        }
    return _obj({"tool": {"enum": [tool]}, "args": _obj(args, list(args))}, ["tool", "args"])


def _tool_args(ctx: WireContext) -> dict[str, Any]:
    """One args object for every tool: the union of their arguments, in order of first appearance."""
    props: dict[str, Any] = {}
    for model in (SendMessageArgs, *TOOL_ARGS.values()):
        for name, info in model.model_fields.items():
            if name not in props:
                props[name] = _field(info.annotation, info.metadata, ctx, choices=False)
    return _obj(props, [])


@functools.lru_cache(maxsize=1024)
def thought_schema(ctx: WireContext = WireContext()) -> dict[str, Any]:
    """The Flow-of-Thought schema for one thought (see `WireContext` for what it lists).

    Cached per context (an employee's ids change slowly, so most thoughts ask for a schema already
    made): the returned dict is shared and must not be changed.
    """
    send = _obj(
        {"tool": {"enum": [ToolName.SEND_MESSAGE.value]}, "args": _object(SendMessageArgs, ctx)},
        ["tool", "args"],
    )
    actions = Thought.model_fields["actions"]
    bound: Bound = _find(actions.metadata, Bound)
    _, asks, _, _ = _analysed(actions.annotation, tuple(actions.metadata))
    schema = _object(
        Thought,
        ctx,
        given={"actions": {"type": "array", "items": send, "maxItems": asks[ctx.compact]}},
    )
    props = schema["properties"]
    props["memorySummary"] = {"anyOf": [props["memorySummary"], {"type": "null"}]}
    if ctx.tools and ctx.compact:  # only the tools asked for, each called once, in order
        items = [_tool_item(name, ctx) for name in ctx.tools]
        props["actions"] = {
            "type": "array",
            "prefixItems": items,
            "items": False,
            "minItems": len(items),
            "maxItems": len(items),
        }
    elif ctx.tools:
        tool = _obj({"tool": {"enum": sorted(ctx.tools)}, "args": _tool_args(ctx)}, ["tool", "args"])
        props["actions"] = {"type": "array", "items": {"anyOf": [send, tool]}, "maxItems": bound.keep}
    if ctx.documents and not ctx.compact:
        doc = _obj(
            {"tool": {"enum": list(ctx.documents)}, "args": _object(DocumentArgs, ctx)}, ["tool", "args"]
        )
        items = props["actions"]["items"]
        props["actions"] = props["actions"] | {"items": {"anyOf": [*items.get("anyOf", [items]), doc]}}
        props["actions"]["maxItems"] = max(props["actions"]["maxItems"], bound.keep)
    if ctx.document_calls and ctx.compact:
        items = props["actions"]["items"]
        calls = [_document_item(*call, ctx) for call in ctx.document_calls]
        if any(tool != ToolName.SIGN_OFF for tool, _, _ in ctx.document_calls):
            # Work to do on a document (write it, ask for its review, review it, answer a
            # rejection): a small model's thought does it, as the secretary's calls its tool (a
            # sign-off request alone stays optional: the lead asks when it judges it done).
            props["actions"] = props["actions"] | {"items": {"anyOf": calls}, "minItems": 1}
        else:
            props["actions"] = props["actions"] | {"items": {"anyOf": [*items.get("anyOf", [items]), *calls]}}
        props["actions"]["maxItems"] = max(props["actions"]["maxItems"], COMPACT_DOCUMENT_CALLS)
    if ctx.skills and not ctx.compact:
        load = _obj(
            {
                "tool": {"enum": [ToolName.LOAD_SKILL.value]},
                "args": _obj({"name": {"enum": list(ctx.skills)}}, ["name"]),
            },
            ["tool", "args"],
        )
        items = props["actions"]["items"]
        props["actions"] = props["actions"] | {"items": {"anyOf": [*items.get("anyOf", [items]), load]}}
    if ctx.compact:
        # A draft is always written (a silent thought's is logged, never posted); an empty draft
        # is silence (measured: forcing text into it doubled a run's thoughts).
        props["messages"] |= {"minItems": 1}
    if ctx.people is None:
        props["relationshipOps"] |= {"maxItems": 0}
    # Off the compact wire: `reason` (a small model writes it at its bound, and nobody reads it but
    # the log) and, unless asked or offered, memorySummary, taskOps and relationshipOps. Each keeps
    # its default ("", None, []).
    off = ["reason"] * ctx.compact + ["memorySummary"] * (ctx.compact and not ctx.summary)
    off += ["taskOps"] * (ctx.compact and not ctx.tasks) + ["relationshipOps"] * (
        ctx.compact and not ctx.people
    )
    for name in off:
        del props[name]
        schema["required"].remove(name)
    if ctx.compact:  # short keys, optional ops, each op with only its own fields (compact.py)
        return compact_answer(schema, claim_keys=ctx.claim_keys)
    return schema


def wire_schema(
    people: Sequence[str] | None = (),
    targets: Sequence[str] = (),
    *,
    task_ids: Sequence[str] = (),
    memory_ids: Sequence[str] | None = None,
    tools: Sequence[str] = (),
    compact: bool = False,
    summary: bool = True,
    tasks: bool = True,
) -> dict[str, Any]:
    """`thought_schema` with its context given as arguments."""
    return thought_schema(
        WireContext(
            people=tuple(people) if people is not None else None,
            targets=tuple(targets),
            task_ids=tuple(task_ids),
            memory_ids=tuple(memory_ids) if memory_ids is not None else None,
            tools=tuple(tools),
            compact=compact,
            summary=summary,
            tasks=tasks,
        )
    )


@functools.lru_cache(maxsize=1024)
def thought_token_bound(ctx: WireContext = WireContext()) -> int:
    """`wire_token_bound` of `thought_schema(ctx)`, cached with it."""
    return wire_token_bound(thought_schema(ctx))


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
        if kind == "array" and "prefixItems" in node:
            return 2 + sum(chars(item) + 1 for item in node["prefixItems"])
        if kind == "array":
            return 2 + node.get("maxItems", 10) * (chars(node["items"]) + 1)
        if kind == "object":
            return 2 + sum(len(k) + 4 + chars(v) for k, v in node.get("properties", {}).items())
        return 6  # numbers, booleans, null

    return chars(schema)


def limit_tables() -> tuple[dict[str, int], dict[str, int], dict[str, int]]:
    """(kept, asked, asked in compact) per limit name, read off the model's bounds."""
    keep: dict[str, int] = {"args": 0, "arg_items": 0}
    ask: dict[str, int] = {}
    compact: dict[str, int] = {}

    def visit(model: type[BaseModel]) -> None:
        for info in model.model_fields.values():
            kind, meta = _metadata(info.annotation, info.metadata)
            bound = _find(meta, Bound)
            if bound is not None:
                if keep.get(bound.name, bound.keep) != bound.keep:
                    raise ValueError(f"limit {bound.name!r} declared with two values")
                keep[bound.name] = bound.keep
                if bound.ask is not None:
                    ask[bound.name] = bound.ask
                    compact[bound.name] = bound.asked(True) or bound.ask
            inner = get_args(kind)[0] if get_origin(kind) is list else kind
            if isinstance(inner, type) and issubclass(inner, _Part):
                visit(inner)

    visit(Thought)
    visit(SendMessageArgs)
    from ideaco.mind.thought.model import Action

    keep["args"], keep["arg_items"] = Action.ARG_KEYS, Action.ARG_ITEMS
    return keep, ask, compact
