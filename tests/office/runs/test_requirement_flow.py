"""A requirement all the way (issue 20, "done means"): the boss hands Engineering a requirement, its
lead breaks it into two pieces that name their documents, Bob and Charlie claim and write them,
the lead reviews (a rejection, a revision, a second rejection, a rebuttal, two approvals), every
piece approved resolves the requirement, the lead reports to the boss with the documents listed,
and the boss's `/approve req-1` closes it."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from ideaco import reviews
from ideaco.office.core.documents import version_hash
from ideaco.office.engine.office import Office
from tests.office.conftest import MakeOffice, prompt_of, step_until, thought, who

API, GUIDE = "specs/api.md", "docs/guide.md"
API_V1 = "# Users API\n\nGET /users\n"
API_V2 = API_V1 + "\n404 when missing.\n"
GUIDE_V1 = "# Guide\n\nCall GET /users.\n"


def _tool(name: str, **args: Any) -> dict[str, Any]:
    return {"tool": name, "args": args}


def _offer(description: str, key: str, document: str) -> dict[str, Any]:
    return {"op": "offer", "description": description, "claimKey": key, "document": document}


class Team:
    """The scripted office: each answer read off the office as it stands when the think begins."""

    def __init__(self) -> None:
        self.office: Office | None = None
        self.reports: list[str] = []

    def doc(self, path: str) -> Any:
        assert self.office is not None
        return self.office.state.documents.get(f"eng/{path}")

    def status(self, path: str) -> tuple[str | None, int]:
        doc = self.doc(path)
        return (doc.review.status, doc.review.round) if doc is not None and doc.review else (None, 0)

    def task(self, employee: str, document: str) -> Any:
        assert self.office is not None
        mind = self.office.employees[employee].mind
        return next((t for t in mind.pending_tasks if t.document == document), None)

    def __call__(self, request: Any) -> dict[str, Any]:
        tag, prompt = who(request), prompt_of(request)
        if tag.employee == "alice":
            return self.alice(tag.conversation, prompt)
        if tag.employee in ("bob", "charlie"):
            return self.writer(tag.employee, tag.conversation, prompt)
        return thought()

    def alice(self, conversation: str, prompt: str) -> dict[str, Any]:
        if conversation == "req-1" and "you lead it" in prompt:
            ops = [_offer("Write the API spec", "api-spec", API), _offer("Write the guide", "guide", GUIDE)]
            return thought(True, "Two pieces on the board.", taskOps=ops)
        if conversation == "boss:alice" and "every piece approved" in prompt:
            self.reports.append(prompt)
            return thought(True, f"Requirement done: {API} and {GUIDE} are approved.")
        verdicts = {
            ("requested", 0): ("reject", "no errors listed"),
            ("requested", 1): ("reject", "still thin"),
            ("rebutted", 2): ("approve", "fair point"),
        }
        for path in (API, GUIDE):
            state = self.status(path)
            if path == GUIDE and state[0] == "requested":
                return thought(actions=[_tool("review", path=path, verdict="approve", notes="clear")])
            if path == API and state in verdicts:
                verdict, notes = verdicts[state]
                return thought(actions=[_tool("review", path=path, verdict=verdict, notes=notes)])
        return thought()

    def writer(self, me: str, conversation: str, prompt: str) -> dict[str, Any]:
        key, path, text = ("api-spec", API, API_V1) if me == "bob" else ("guide", GUIDE, GUIDE_V1)
        if conversation == "req-1" and f"claim key {key}" in prompt and self.task(me, path) is None:
            return thought(taskOps=[{"op": "create", "claimKey": key}])
        if self.task(me, path) is not None and self.doc(path) is None:
            return thought(
                actions=[_tool("write_document", path=path, content=text), _tool("request_review", path=path)]
            )
        if me == "bob" and self.status(API) == ("rejected", 1):
            revise = _tool("revise_document", path=API, content=API_V2, base=version_hash(API_V1))
            return thought(actions=[revise, _tool("request_review", path=API)])
        if me == "bob" and self.status(API) == ("rejected", 2):
            return thought(actions=[_tool("rebut", path=API, argument="errors live in the guide")])
        return thought()


def steps_of(office: Office, kind: str) -> list[dict[str, Any]]:
    return [s for t in office.journal.thoughts for s in t["applied"]["steps"] if s["step"] == kind]


async def test_a_requirement_goes_from_the_boss_to_two_approved_documents_and_back(
    make_office: MakeOffice,
) -> None:
    team = Team()
    office = make_office(team)
    team.office = office
    office.start()
    assert office.apply_tool("assign_requirement", {"to": "eng", "description": "Build the users API"}).ok
    await step_until(office, lambda: bool(team.reports), within=timedelta(hours=4))
    assert office.company_model.signoffs == {"req-1": "reported"}
    assert f"eng/{API} (version {version_hash(API_V2)})" in team.reports[0]
    assert f"eng/{GUIDE} (version {version_hash(GUIDE_V1)})" in team.reports[0]
    assert office.journal.documents == {f"eng/{API}": API_V2, f"eng/{GUIDE}": GUIDE_V1}

    tools = [(s["tool"], s["ok"]) for s in steps_of(office, "tool")]
    assert (
        tools.count(("review", True)) == 4 and ("rebut", True) in tools and ("revise_document", True) in tools
    )
    resolved = [
        (s["employee"], t["id"])
        for s in steps_of(office, "mind")
        for t in s.get("tasks", {}).get("updated", [])
        if t.get("status") == "resolved"
    ]
    # each piece resolved by its approval, and then the requirement itself
    assert resolved[0] == ("charlie", "task-3")
    assert sorted(resolved[1:]) == [("alice", "task-1"), ("bob", "task-2")]  # in the approval's one think
    assert "every piece approved" in office.employees["alice"].mind.tasks[0].result

    before = list(office.journal.changes)
    line = office.post_as_boss("alice", "/approve req-1")
    assert office.company_model.signoffs == {"req-1": "approved"}
    # The sign-off is a change between thoughts, logged with the steps it applied (issue 27, item 3).
    [approval] = office.journal.changes[len(before) :]
    assert approval["cause"] == "approval" and approval["requirement"] == "req-1"
    assert approval["message"] == line.id
    assert [s["company"]["signoffs"] for s in approval["steps"]] == [{"req-1": "approved"}]
    office.post_as_boss("alice", "/approve req-1")  # again: nothing to sign off, nothing logged
    assert len(office.journal.changes) == len(before) + 1

    # The report times it: handed over at 09:00, reported when the last piece was approved, then
    # approved by the boss's line (read from what was applied, by thoughts and between them).
    reported = next(
        t["at"] for t in office.journal.thoughts for s in t["applied"]["steps"] if s["step"] == "company"
    )
    [row] = reviews.requirements(office.journal.thoughts, office.journal.changes)
    start = datetime.fromisoformat(office.journal.changes[0]["at"])
    assert row["requirement"] == "req-1" and row["lead"] == "alice" and row["status"] == "approved"
    assert row["reported_after_s"] == round((datetime.fromisoformat(reported) - start).total_seconds(), 1) > 0
    assert (
        row["approved_after_s"] == round((office.now() - start).total_seconds(), 1) >= row["reported_after_s"]
    )
    early = reviews.requirements(office.journal.thoughts, before)  # before the /approve line
    assert early[0]["status"] == "reported" and early[0]["approved_after_s"] is None
