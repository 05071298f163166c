"""The document tools one thought calls (decide/tools/documents.py), on the think's scratch copy: what
is written, refused (the reason its employee reads), quoted next, who is asked to think, and what a
verdict does to the people (feelings, an impression, a memory, stamina, the piece's task)."""

from __future__ import annotations

from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from typing import Any

import pytest

from ideaco.agents.command import AgentOutcome
from ideaco.cycle import Trigger
from ideaco.kinds import ConversationKind
from ideaco.mind.tasks import Task
from ideaco.mind.thought.model import Action
from ideaco.office.core.company import REPORTED
from ideaco.office.core.state import ConversationState
from ideaco.office.core.steps import NoticeStep
from ideaco.office.decide.scratch import Scratch
from ideaco.office.decide.tools import documents
from ideaco.office.perceive.document_tools import READ_MARK
from ideaco.office.rules.config import Switches
from tests.office.conftest import START

NOW = START + timedelta(minutes=10)
PATH = "specs/api.md"
KEY = f"eng/{PATH}"


@dataclass
class Think:
    employee: str
    thought_id: str = "thought-9"
    conversation: str = "boss:bob"
    read_upto: int = 0
    at: datetime = NOW


class Desk:
    """One office's scratch copy and the calls its employees make on it, in order."""

    def __init__(self, office: Any) -> None:
        self.office, self.scratch = office, Scratch(office.state)

    def call(
        self, employee: str, tool: str, *, at: datetime = NOW, read_upto: int = 0, **args: Any
    ) -> documents.Called:
        think = Think(employee, conversation=f"boss:{employee}", read_upto=read_upto, at=at)
        return documents.act(
            self.office, self.scratch, think, Action(tool=tool, args=args), where="actions[0]", now=at
        )

    def ok(self, employee: str, tool: str, **args: Any) -> documents.Called:
        called = self.call(employee, tool, **args)
        assert called.steps[0].ok, called.steps[0].message
        return called

    @property
    def doc(self) -> Any:
        return self.scratch.documents[KEY]

    def mind(self, employee: str) -> Any:
        return self.scratch.employees[employee].mind

    def affinity(self, who: str, toward: str) -> float:
        return self.mind(who).relationships[toward].affinity

    def give_task(self, employee: str, task_id: str, description: str, document: str | None = None) -> None:
        task = Task(
            id=task_id,
            owner=employee,
            description=description,
            created_at=START,
            origin="boss",
            document=document,
        )
        self.scratch.employee(employee).mind.tasks.append(task)


@pytest.fixture
def desk(make_office) -> Desk:
    return Desk(make_office())  # alice leads eng (its first member): bob, charlie and dana work there


def written_and_asked(desk: Desk, author: str = "bob") -> None:
    desk.ok(author, "write_document", path=PATH, content="# API\n")
    desk.ok(author, "request_review", path=PATH)


# --- writing, reading, and the task a document delivers ----------------------------------------------


def test_a_document_is_written_in_the_writers_department(desk: Desk) -> None:
    called = desk.ok("bob", "write_document", path=f"eng/{PATH}", content="# API\n")
    assert called.steps[0].message == f"wrote {PATH} (version {desk.doc.version})"
    assert (desk.doc.author, desk.doc.content, desk.doc.task) == ("bob", "# API\n", None)


def test_a_write_delivers_the_task_it_names_or_else_the_open_task_naming_its_path(desk: Desk) -> None:
    desk.give_task("bob", "task-1", "Write the notes", document="notes.md")
    desk.give_task("bob", "task-2", "Write the API spec", document=PATH)
    desk.give_task("bob", "task-3", "Anything else")
    desk.ok("bob", "write_document", path=PATH, content="# API\n")
    assert desk.doc.task == "task-2"
    desk.ok("bob", "write_document", path="other.md", content="other", task="task-3")
    assert desk.scratch.documents["eng/other.md"].task == "task-3"
    refused = desk.call("bob", "write_document", path="third.md", content="x", task="task-9")
    assert refused.steps[0].message == "write_document refused: 'task-9' is not one of your open tasks"


def test_what_a_thoughts_writes_will_write_is_known_before_they_run(desk: Desk) -> None:
    """`written_by` (a task that delivers a document stays open unless it is written): a write every
    check passes, and no other; an agent command's content in place of the model's."""
    desk.ok("bob", "write_document", path="docs/a.md", content="# Plan A\n")
    bob = desk.scratch.employees["bob"]

    def written(*calls: dict[str, Any], made: dict[int, AgentOutcome] | None = None) -> set[str]:
        actions = [Action(tool=c.pop("tool", "write_document"), args=c) for c in calls]
        return documents.written_by(desk.scratch.documents, desk.scratch.company, bob, actions, made or {})

    assert written({"path": "eng/specs/api.md", "content": "# API"}) == {"specs/api.md"}
    assert written({"path": "docs", "content": "# in the way"}) == set()  # another document's folder
    assert written({"path": "../x.md", "content": "x"}) == set()
    assert written({"path": "x.md", "content": "#"}) == set()  # no words
    assert written({"path": "x.md", "content": "x", "task": "task-9"}) == set()  # not an open task
    assert written({"tool": "read_document", "path": "docs/a.md"}) == set()
    ran = AgentOutcome(ok=True, content="# From the command", reason="", ran=True, source="stdout")
    failed = AgentOutcome(ok=False, content=None, reason="timed out", ran=True)
    assert written({"path": "x.md", "content": ""}, made={0: ran}) == {"x.md"}
    assert written({"path": "x.md", "content": "# fine"}, made={0: failed}) == set()


def test_reading_a_document_quotes_it_in_the_next_thought(desk: Desk) -> None:
    desk.ok("bob", "write_document", path=PATH, content="# API\n")
    called = desk.ok("charlie", "read_document", path=PATH)
    assert called.steps[0].message == f"{PATH} (version {desk.doc.version}) is quoted in your next thought"
    assert desk.mind("charlie").notes[-1] == READ_MARK + KEY


def test_without_a_department_there_is_no_workspace(desk: Desk) -> None:
    desk.ok("bob", "write_document", path=PATH, content="# API\n")
    desk.scratch.employee("charlie").department = "ops"  # a department the company no longer has
    for tool, args in (
        ("read_document", {"path": PATH}),
        ("write_document", {"path": "x.md", "content": "x"}),
    ):
        refused = desk.call("charlie", tool, **args)
        assert (
            refused.steps[0].message
            == f"{tool} refused: you belong to no department, so you have no workspace"
        )
        assert desk.mind("charlie").notes[-1] == refused.steps[0].message  # read in its next thought
    charlie = desk.scratch.employees["charlie"]
    why = documents.makeable(
        desk.scratch.documents, desk.scratch.company, charlie, "revise_document", {"path": PATH}
    )
    assert why is not None and why.reason == "you belong to no department, so you have no workspace"


# --- asking for a review ------------------------------------------------------------------------------


def test_a_review_is_asked_of_the_lead_who_is_asked_to_think_in_their_dm(desk: Desk) -> None:
    desk.ok("bob", "write_document", path=PATH, content="# API\n")
    called = desk.ok("bob", "request_review", path=PATH)
    assert called.steps[0].message == f"asked Alice to review {PATH}"
    ((who, owed),) = called.owing
    assert (who, owed.conversation, owed.trigger) == ("alice", "dm:alice:bob", Trigger.SYSTEM)
    assert owed.note.startswith(f"Bob asks you to review {PATH} (version {desk.doc.version})")
    assert desk.mind("alice").notes[-1] == READ_MARK + KEY


def test_only_the_author_asks_for_a_review(desk: Desk) -> None:
    desk.ok("bob", "write_document", path=PATH, content="# API\n")
    refused = desk.call("charlie", "request_review", path=PATH)
    assert refused.steps[0].message == f"request_review refused: only its author asks for a review of {PATH}"
    assert refused.owing == [] and desk.doc.review is None


def test_a_department_lead_named_in_the_scenario_reviews(make_office) -> None:
    desk = Desk(
        make_office(
            departments=[
                {
                    "id": "eng",
                    "name": "Engineering",
                    "mission": "Ship",
                    "members": ["alice", "bob", "charlie", "dana"],
                    "lead": "bob",
                }
            ]
        )
    )
    desk.ok("charlie", "write_document", path=PATH, content="# API\n")
    assert desk.ok("charlie", "request_review", path=PATH).steps[0].message == f"asked Bob to review {PATH}"


def test_a_member_whose_skills_fit_the_pieces_task_reviews_it(desk: Desk) -> None:
    desk.give_task("bob", "task-2", "Design the billing schema", document=PATH)
    desk.scratch.employee("dana").persona["skills"] = [{"name": "billing", "summary": "what Dana knows"}]
    desk.ok("bob", "write_document", path=PATH, content="# API\n")
    assert desk.ok("bob", "request_review", path=PATH).steps[0].message == f"asked Dana to review {PATH}"


# --- verdicts and what they do to people --------------------------------------------------------------


def test_an_approval_warms_the_reviewer_to_the_author_and_resolves_the_pieces_task(desk: Desk) -> None:
    desk.give_task("bob", "task-2", "Write the API spec", document=PATH)
    written_and_asked(desk)
    bob = desk.scratch.employee("bob").mind
    bob.stamina = replace(bob.stamina, patience=50.0)
    notes = list(desk.mind("alice").notes)
    called = desk.ok("alice", "review", path=PATH, verdict="approve", notes="clear")
    assert called.steps[0].message == f"approved {PATH}"
    assert desk.affinity("alice", "bob") == 56  # 50, and 6 for an approval
    assert desk.mind("bob").stamina.patience == 85  # review_passed (+15), then task_complete (+20)
    task = next(t for t in desk.mind("bob").tasks if t.id == "task-2")
    assert (task.status, task.result) == ("resolved", f"{PATH} approved by Alice")
    owed = {(who, o.conversation, o.trigger) for who, o in called.owing}
    assert ("bob", "dm:alice:bob", Trigger.SYSTEM) in owed  # told, to tell whoever waits
    assert ("bob", "boss:bob", Trigger.ON_RESOLVE) in owed  # and its task's report to the boss
    assert desk.mind("alice").notes == notes  # the document is not quoted to her again


def test_an_approval_of_a_piece_whose_task_is_done_already_reports_nothing_more(desk: Desk) -> None:
    desk.give_task("bob", "task-2", "Write the API spec", document=PATH)
    written_and_asked(desk)
    bob = desk.scratch.employee("bob").mind
    bob.tasks = [replace(t, status="resolved") if t.id == "task-2" else t for t in bob.tasks]
    called = desk.ok("alice", "review", path=PATH, verdict="approve", notes="clear")
    assert [(who, o.trigger) for who, o in called.owing] == [("bob", Trigger.SYSTEM)]


def test_rejections_cool_the_reviewer_and_two_in_a_row_leave_an_impression_and_a_memory(desk: Desk) -> None:
    written_and_asked(desk)
    before = desk.mind("bob").stamina
    called = desk.ok("alice", "review", path=PATH, verdict="reject", notes="no errors listed")
    assert called.steps[0].message == f"rejected {PATH}"
    assert desk.affinity("alice", "bob") == 44 and desk.mind("alice").relationships["bob"].impression == ""
    assert desk.mind("bob").stamina.patience == before.patience - 5  # review_rejected_1
    ((who, owed),) = called.owing
    assert (who, owed.conversation) == ("bob", "dm:alice:bob")
    assert owed.note.startswith(f"Alice rejected {PATH} (rejection 1 of 3)")
    desk.ok("bob", "request_review", path=PATH)
    desk.ok("alice", "review", path=PATH, verdict="reject", notes="still thin")
    alice = desk.mind("alice")
    assert desk.affinity("alice", "bob") == 38  # the impression moves no affinity of its own
    assert alice.relationships["bob"].impression == f"deliverables repeatedly fail; doubts about {PATH}"
    (memory,) = [m for m in alice.memory.long_term if "failed review again" in m.content]
    assert (memory.content, memory.category, memory.importance) == (
        f"Bob's {PATH} failed review again",
        "experience",
        6,
    )


def test_with_stamina_switched_off_a_rejection_costs_the_author_nothing(make_office) -> None:
    desk = Desk(make_office(switches=Switches(stamina=False)))
    written_and_asked(desk)
    before = desk.mind("bob").stamina
    desk.ok("alice", "review", path=PATH, verdict="reject", notes="thin")
    assert desk.mind("bob").stamina == before


def test_a_verdict_by_someone_else_or_on_a_document_nobody_asked_about_is_refused(desk: Desk) -> None:
    desk.ok("bob", "write_document", path=PATH, content="# API\n")
    unasked = desk.call("alice", "review", path=PATH, verdict="approve")
    assert unasked.steps[0].message == f"review refused: {PATH} is not waiting for a review"
    desk.ok("bob", "request_review", path=PATH)
    notes = list(desk.mind("charlie").notes)
    other = desk.call("charlie", "review", path=PATH, verdict="approve")
    assert other.steps[0].message == f"review refused: {PATH} is not yours to review"
    assert desk.mind("charlie").notes == [*notes, other.steps[0].message]  # the refusal, no quote


def test_a_verdict_on_a_version_revised_since_the_reviewer_read_quotes_the_new_one(desk: Desk) -> None:
    written_and_asked(desk)
    later = NOW + timedelta(minutes=1)
    desk.ok("bob", "revise_document", at=later, path=PATH, content="# API v2\n", base=desk.doc.version)
    stale = desk.call("alice", "review", at=NOW, path=PATH, verdict="approve")  # her think began before it
    assert "after you read it" in stale.steps[0].message
    assert desk.mind("alice").notes[-2:] == [READ_MARK + KEY, stale.steps[0].message]


# --- rebuttals ----------------------------------------------------------------------------------------


def test_a_rebuttal_asks_the_reviewer_to_judge_again_and_without_a_rejection_is_refused(desk: Desk) -> None:
    written_and_asked(desk)
    early = desk.call("bob", "rebut", path=PATH, argument="it is fine")
    assert early.steps[0].message == f"rebut refused: {PATH} has no rejection to rebut" and early.owing == []
    desk.ok("alice", "review", path=PATH, verdict="reject", notes="thin")
    called = desk.ok("bob", "rebut", path=PATH, argument="errors are in the shared guide")
    assert called.steps[0].message == f"rebutted the review of {PATH}"
    ((who, owed),) = called.owing
    assert (who, owed.conversation) == ("alice", "dm:alice:bob") and owed.note.startswith(
        "Bob rebuts your rejection"
    )
    assert desk.mind("alice").notes[-1] == READ_MARK + KEY


# --- the lead's sign-off of a requirement -------------------------------------------------------------


def test_only_a_departments_lead_asks_for_a_sign_off(desk: Desk) -> None:
    refused = desk.call("bob", "sign_off", requirement="req-1", verdict="approve")
    assert refused.steps[0].message == (
        "sign_off refused: only a department's lead asks the boss to sign off its requirements"
    )


def test_a_leads_sign_off_asks_the_boss_and_approves_nothing_whatever_the_boss_said(make_office) -> None:
    office = make_office()
    office.post_as_boss("boss:alice", "The users API is fine, approve it.")
    desk = Desk(office)
    desk.scratch.add_conversation(
        ConversationState(
            id="req-1", kind=ConversationKind.WORK, name="req-1", members=["alice", "bob"], department="eng"
        )
    )
    desk.scratch.edit_company().signoffs["req-1"] = REPORTED
    called = desk.call("alice", "sign_off", read_upto=1, requirement="req-1", verdict="approve")
    assert called.steps[0].message == "asked the boss to sign off requirement req-1"
    assert desk.scratch.company.signoffs == {"req-1": "asked"}
    [notice] = [s for s in called.steps if isinstance(s, NoticeStep)]
    assert notice.conversation == "boss:alice" and notice.message is not None
    assert notice.message.sender == "system" and "/approve req-1" in notice.message.text
    again = desk.call("alice", "sign_off", read_upto=1, requirement="req-1", verdict="reopen")
    assert again.steps[0].message.startswith("sign_off refused: you already asked the boss")
    assert desk.scratch.company.signoffs == {"req-1": "asked"}
