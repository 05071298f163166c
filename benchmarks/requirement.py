"""One requirement from the boss's words to the boss's approval, on both wires (issue 20, item 8).

The boss asks the secretary, in plain words, to hand Engineering a requirement; its lead offers
two pieces, two members claim them, write their documents and ask for a review; the lead
rejects one once, its author revises it, both are approved, the lead reports and asks the boss
to sign it off (`sign_off`, where offered), and the boss approves it with `/approve req-1` (only
the boss's own command approves, issue 37). A scripted model plays everyone, reading only what each
request offers: its answer uses a tool only if the request's schema lists it, and names only
the paths and versions the schema allows, so on the compact wire (the embedded model's) the
requirement gets through only if the grammar offers each tool when it can apply.

Printed, from the same run: simulated minutes and model calls to approval on each wire, and
per call the prompt's size and the answer's bound (`max_tokens`, which on a grammar is the most
a thought can cost); the ratios compact / full. Runs as `python -m benchmarks --only requirement`.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timedelta
from typing import Any

from benchmarks.table import Row
from ideaco.ids import SECRETARY
from ideaco.kinds import StepKind, ToolName
from ideaco.llm.base import ChatRequest, ChatResult, Usage
from ideaco.office.core.company import WAITING
from ideaco.office.engine.build import office_from_scenario
from ideaco.office.engine.clock import SimClock
from ideaco.office.resolve.journal import MemoryJournal
from ideaco.scenario import Scenario

NAME = "requirement"
START = datetime(2026, 1, 5, 9, 0)
ASK = "Hand the requirement 'Write the users API spec and its guide' to Engineering."
PIECES = (("api-spec", "Write the users API spec"), ("guide", "Write the users API guide"))
SCENARIO = {
    "name": "requirement",
    "company": "Acme Labs",
    "start": START.isoformat(),
    "departments": [
        {"id": "eng", "name": "Engineering", "lead": "alice", "members": ["alice", "bob", "charlie"]}
    ],
    "employees": [
        {"id": "alice", "name": "Alice", "role": "Engineering lead", "archetype": "old-hand"},
        {"id": "bob", "name": "Bob", "role": "Backend engineer", "archetype": "ultra-grinder"},
        {"id": "charlie", "name": "Charlie", "role": "Technical writer", "archetype": "warm-hearted"},
    ],
}
_KEY = re.compile(r"claim key ([a-z0-9-]+)")


def _silent(text: str = "") -> dict[str, Any]:
    return {
        "innerThoughts": "on with the work",
        "topicSaturation": 3,
        "interestLevel": 5,
        "shouldSpeak": bool(text),
        "reason": "scripted",
        "messages": [{"content": text}] if text else [],
        "actions": [],
        "memorySummary": None,
        "memoryOps": [],
        "relationshipOps": [],
        "taskOps": [],
    }


def offered(schema: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The tools a request's schema lets an answer call, each with its arguments' schema."""
    actions = schema["properties"]["actions"]
    items = actions.get("prefixItems") or actions["items"].get("anyOf") or [actions["items"]]
    return {tool: item["properties"]["args"] for item in items for tool in item["properties"]["tool"]["enum"]}


_LISTED = re.compile(r"^- (\S+) \(version (\w+), by ([^)]+)\)(?:: (\w+), reviewer ([^,]+),)?", re.M)
_DELIVER = re.compile(r"\(deliver the document ([^)]+)\)")


def document_calls(
    tools: dict[str, dict[str, Any]], prompt: str, request: ChatRequest
) -> dict[str, tuple[list[str], list[str]]]:
    """The document tools this thought would use, each with the paths (and bases) it may name.

    On the compact wire the grammar lists them (enums). On the full wire every document tool is
    offered with free arguments, so they are read off the prompt as a capable model would: the
    document one's task expects, the documents listed with their reviews."""
    out: dict[str, tuple[list[str], list[str]]] = {}
    for tool, args in tools.items():
        props = args.get("properties", {})
        if "enum" in props.get("path", {}):
            out[tool] = (props["path"]["enum"], props.get("base", {}).get("enum", []))
    if out or "write_document" not in tools:
        return out
    me = str(request.messages[0]["content"]).removeprefix("You are ").split(",", 1)[0]
    listed = {m.group(1): m.groups() for m in _LISTED.finditer(prompt)}
    expected = [p for p in _DELIVER.findall(prompt) if p not in listed]
    asked = [
        p
        for p, (_, _, _, status, reviewer) in listed.items()
        if reviewer == me and status in ("requested", "rebutted")
    ]
    rejected = [
        (p, v) for p, (_, v, author, status, _) in listed.items() if author == me and status == "rejected"
    ]
    if expected:
        out["write_document"] = (expected, [])
    if rejected:
        out["revise_document"] = ([p for p, _ in rejected], [v for _, v in rejected])
    if asked:
        out["review"] = (asked, [])
    return out


class Company:
    """Everyone's answers, read off each request (its tag, its prompt, its schema) and nothing else."""

    def __init__(self) -> None:
        self.rejected: set[str] = set()
        self.offered: list[str] = []

    def answer(self, request: ChatRequest) -> dict[str, Any]:
        me, rest = request.tag.split(" in ", 1)
        room = rest.rsplit(" at ", 1)[0]
        prompt = str(request.messages[-1]["content"])
        tools = offered(request.json_schema or {})
        out = _silent()
        if me == SECRETARY and "assign_requirement" in tools:
            args = tools["assign_requirement"]["properties"]
            to = "eng" if "eng" in args.get("to", {}).get("enum", ["eng"]) else ""
            call = {"to": to, "description": "Write the users API spec and its guide"}
            out["actions"] = [{"tool": "assign_requirement", "args": call}]
            return out | {"shouldSpeak": True, "messages": [{"content": "Handed to Engineering."}]}
        calls = document_calls(tools, prompt, request)
        if "review" in calls:
            path = calls["review"][0][0]
            verdict = "approve" if path in self.rejected or "guide" in path else "reject"
            self.rejected.add(path)
            notes = "Clear." if verdict == "approve" else "List the error codes."
            out["actions"] = [{"tool": "review", "args": {"path": path, "verdict": verdict, "notes": notes}}]
            return out
        if "revise_document" in calls:
            (path, *_), (base, *_) = calls["revise_document"]
            text = f"# {path}\n\nGET /users lists users.\n\nErrors: 404 when a user is missing.\n"
            out["actions"] = [
                {"tool": "revise_document", "args": {"path": path, "base": base, "content": text}},
                {"tool": "request_review", "args": {"path": path}},
            ]
            return out
        if "write_document" in calls:
            path = calls["write_document"][0][0]
            text = f"# {path}\n\nGET /users lists users.\n"
            out["actions"] = [
                {"tool": "write_document", "args": {"path": path, "content": text}},
                {"tool": "request_review", "args": {"path": path}},
            ]
            return out
        if me == "alice" and room == "req-1" and len(self.offered) < len(PIECES):
            key, description = PIECES[len(self.offered)]
            self.offered.append(key)
            op = {"op": "offer", "description": description, "claimKey": key}
            if not re.search(r'"document"', json.dumps(request.json_schema)):  # the compact wire
                return out | {"taskOps": [op]}
            return out | {"taskOps": [op | {"document": f"docs/{key}.md"}]}
        if me in ("bob", "charlie") and "No open tasks" in prompt and "## Claimable tasks" in prompt:
            keys = _KEY.findall(prompt.split("## Claimable tasks", 1)[1].split("\n\n", 1)[0])
            if keys:  # Bob takes the first piece he is shown, Charlie the last
                return out | {"taskOps": [{"op": "create", "claimKey": keys[0 if me == "bob" else -1]}]}
        if room.startswith("boss:") and "is done. Result:" in prompt:
            out = _silent("The requirement is done: both documents are approved.")
        if "sign_off" in tools:  # the lead asks the boss to sign it off
            rooms = tools["sign_off"]["properties"].get("requirement", {}).get("enum") or ["req-1"]
            return out | {"actions": [{"tool": "sign_off", "args": {"requirement": rooms[0]}}]}
        return out


class ScriptedCompany:
    """The LLM protocol over `Company`, counting what each call asked."""

    def __init__(self) -> None:
        self.company = Company()
        self.calls = 0
        self.prompt_chars = 0
        self.bound_tokens = 0

    async def complete(self, request: ChatRequest) -> ChatResult:
        self.calls += 1
        self.prompt_chars += sum(len(str(m.get("content") or "")) for m in request.messages)
        self.bound_tokens += request.max_tokens
        body = json.dumps(self.company.answer(request))
        return ChatResult(content=body, model=request.model, usage=Usage(1, 1))

    async def aclose(self) -> None:
        return None


async def carry(compact: bool, within: timedelta = timedelta(hours=6)) -> dict[str, Any]:
    """Run the requirement on one wire until the boss approves it (or `within` is spent)."""
    llm = ScriptedCompany()
    scenario = Scenario.model_validate(SCENARIO)
    office = office_from_scenario(
        scenario, ".", llm=llm, clock=SimClock(START), seed=1, journal=MemoryJournal()
    )
    office.config.compact_schema = compact
    office.start()
    office.post_as_boss(f"boss:{SECRETARY}", ASK)
    end, reported = START + within, ""
    while office.now() < end and await office.clock.step():
        said = [
            m["text"]
            for m in office.journal.messages
            if m["conversation"] == "boss:alice" and m["sender"] == "alice"
        ]
        if office.company_model.signoffs.get("req-1") in WAITING and said and not reported:
            reported = said[-1]  # the lead told the boss: the boss approves it, by its own command
            office.sign_off("req-1", "approve")
        if office.company_model.signoffs.get("req-1") == "approved":
            break
    await office.drain()
    documents = {key: doc.version for key, doc in office.state.documents.items()}
    return {
        "approved": office.company_model.signoffs.get("req-1") == "approved",
        "minutes": round((office.now() - START).total_seconds() / 60, 1),
        "calls": llm.calls,
        "prompt_chars": llm.prompt_chars / max(llm.calls, 1),
        "bound_tokens": llm.bound_tokens / max(llm.calls, 1),
        "documents": documents,
        "verdicts": [
            s["message"].split()[0]
            for t in office.journal.thoughts
            for s in t["applied"]["steps"]
            if s["step"] == StepKind.TOOL and s["tool"] == ToolName.REVIEW and s["ok"]
        ],
        "report": reported,
    }


async def measure(quick: bool = False) -> list[Row]:
    full, compact = await carry(False), await carry(True)
    rows = []
    for wire, r in (("full", full), ("compact", compact)):
        verdicts = ", ".join(r["verdicts"])
        note = f"{len(r['documents'])} documents; verdicts: {verdicts}" if r["approved"] else "not approved"
        rows.append(
            Row(
                NAME,
                f"{wire} wire: minutes / calls to the boss's approval",
                f"{r['minutes']:.0f} / {r['calls']}",
                "",
                "",
                "approved",
                r["approved"],
                note,
            )
        )
    for what, key in (
        ("prompt characters per call", "prompt_chars"),
        ("answer bound (max_tokens) per call", "bound_tokens"),
    ):
        rows.append(
            Row(
                NAME,
                f"compact vs full: {what}",
                f"{compact[key]:,.0f}",
                f"{full[key]:,.0f}",
                f"{compact[key] / full[key]:.2f}",
            )
        )
    return rows
